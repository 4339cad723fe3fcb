//! The whole network, pure: which scans there are (the `/v0/scans` list of the global
//! synchronizer merged with the profile's pins and SV selection, and its on-disk copy), how
//! healthy each one is (Splice's network status rules) with the one-line verdict, the
//! search for the newest update of a scan's history ([`HeadSearch`], driven by page results),
//! and "my SV" ([`resolve_my_sv`]: the profile's `sv` key, else the scan's `/v0/dso`).
//!
//! ```text
//! GET /v0/scans ─► ScanList::from_response ─► select_scans(list, selection, pins, own) ─► [ScanEntry]
//! per scan: /status, /version, open rounds, HeadSearch ─► ScanObservation ─► assess() ─► NetworkHealth
//! ```
//!
//! Scans are counted (`n`, quorum) when they are listed by the network or pinned by the profile.
//! The profile's own `scan_url`, when it is not one of them (for example the SV's own scan
//! reached through an SSH tunnel), is still asked and shown, but only compared against the
//! others: it does not count in `n`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use self::health::duration_micros;
use super::consensus::{fault_tolerance, quorum};
use crate::api::scan::DsoScans;
pub use crate::api::without_userinfo;

pub mod fork;
mod head;
mod health;
mod my_sv;

pub use head::{
    FAR_FUTURE, HEAD_PAGE, HEAD_PROBE, HEAD_WINDOWS, HeadItem, HeadProbe, HeadSearch, migration_at,
    record_time_micros,
};
pub use health::{
    CheckedOnScans, ForkMark, HealthOutcome, HealthState, HealthThresholds, HistoryHead,
    NetworkCheck, NetworkHealth, NetworkSnapshot, NodeState, RoundSeen, ScanHealth,
    ScanObservation, assess, assess_with, down_ops, fork_marks, verdict_lag,
};
pub use my_sv::{MySv, MySvSource, resolve_my_sv};

const MICROS: i64 = 1_000_000;

/// How often the scan list is fetched again (as Splice does).
pub const SCAN_LIST_REFRESH: Duration = Duration::from_secs(600);

// ---------------------------------------------------------------------------------------------
// The scan list
// ---------------------------------------------------------------------------------------------

/// Which of the listed scans to use: all of them, or the scans of the named SVs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ScanSelection {
    #[default]
    All,
    Names(Vec<String>),
}

/// One listed scan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedScan {
    pub sv_name: String,
    pub url: String,
}

/// The scans of the global synchronizer, as `/v0/scans` lists them (and as kept on disk).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanList {
    /// The synchronizer the list is for.
    pub domain_id: String,
    pub scans: Vec<ListedScan>,
}

impl ScanList {
    /// The global synchronizer's entry of a `/v0/scans` answer (the `domainId` starting with
    /// `global-domain::`; without one, the first entry). Entries without a URL are dropped, and
    /// a URL listed twice is kept once.
    pub fn from_response(response: &DsoScans) -> Option<ScanList> {
        let domain = response
            .scans
            .iter()
            .find(|d| d.domain_id.starts_with("global-domain::"))
            .or_else(|| response.scans.first())?;
        let mut scans: Vec<ListedScan> = Vec::new();
        for info in &domain.scans {
            let url = info.public_url.trim().trim_end_matches('/').to_owned();
            if url.is_empty() || scans.iter().any(|s| same_url(&s.url, &url)) {
                continue;
            }
            scans.push(ListedScan {
                sv_name: info.sv_name.trim().to_owned(),
                url,
            });
        }
        Some(ScanList {
            domain_id: domain.domain_id.clone(),
            scans,
        })
    }
}

/// The last-known scan list, as kept on disk (one file per profile and seed scan).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedScanList {
    /// The scan the list was fetched from.
    pub seed: String,
    /// When (µs since the epoch).
    pub fetched_at: i64,
    pub list: ScanList,
}

impl CachedScanList {
    /// True when the list is older than [`SCAN_LIST_REFRESH`] at `now` (µs).
    pub fn is_stale(&self, now: i64) -> bool {
        now.saturating_sub(self.fetched_at) >= duration_micros(SCAN_LIST_REFRESH)
    }

    /// The file text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a file's text (`None` when it is not a list of ours).
    pub fn from_json(text: &str) -> Option<CachedScanList> {
        serde_json::from_str(text).ok()
    }
}

/// A profile's name as part of a file name (`default` without one): letters, digits, `-` and
/// `_` kept, anything else `_`, at most 64 characters.
pub fn file_stem(profile: Option<&str>) -> String {
    profile
        .unwrap_or("default")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

/// The file name of the cached list of a profile and seed URL: the profile name (or
/// `default`), made file-safe, and a short hash of the seed URL.
pub fn cache_file_name(profile: Option<&str>, seed: &str) -> String {
    let name = file_stem(profile);
    // FNV-1a: stable across versions and platforms.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in normalize_url(seed).bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("scans-{name}-{h:016x}.json")
}

/// A URL in the form URLs are matched by: no user info (the same scan asked with or without
/// credentials is one scan), no trailing `/`, scheme and host in lower case.
pub fn normalize_url(url: &str) -> String {
    let url = without_userinfo(url.trim().trim_end_matches('/'));
    let url = url.as_str();
    match url.find("://") {
        Some(scheme_end) => {
            let rest = &url[scheme_end + 3..];
            let host_end = rest.find('/').map_or(url.len(), |i| scheme_end + 3 + i);
            format!(
                "{}{}",
                url[..host_end].to_ascii_lowercase(),
                &url[host_end..]
            )
        }
        None => url.to_owned(),
    }
}

/// True when the URL carries user info (basic-auth credentials).
pub fn has_userinfo(url: &str) -> bool {
    without_userinfo(url).len() != url.len()
}

/// True when two URLs name the same scan (user info aside).
pub fn same_url(a: &str, b: &str) -> bool {
    normalize_url(a) == normalize_url(b)
}

/// The host (and port) of a URL, for display, with its path when it has one (scans served
/// under one host by path, as the demo's `/svK`, stay apart); never the user info or a query.
pub fn url_host(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        host.to_owned()
    } else {
        format!("{host}/{path}")
    }
}

/// The part of each host (as [`url_host`] gives it) that tells it from the others: the
/// segments (split before `.`, `:`, `/`) every host shares at the start and at the end are
/// dropped, a dropped start shown as `…`; a host that is all shared part keeps its last shared
/// segment (`…:41329` beside `…/sv2`). One host (or none) is kept whole.
pub fn distinct_hosts(hosts: &[String]) -> Vec<String> {
    if hosts.len() < 2 {
        return hosts.to_vec();
    }
    let split = |h: &str| -> Vec<String> {
        let mut parts: Vec<String> = Vec::new();
        for c in h.chars() {
            if matches!(c, '.' | ':' | '/') || parts.is_empty() {
                parts.push(String::new());
            }
            if let Some(last) = parts.last_mut() {
                last.push(c);
            }
        }
        parts
    };
    let parts: Vec<Vec<String>> = hosts.iter().map(|h| split(h)).collect();
    let shortest = parts.iter().map(Vec::len).min().unwrap_or(0);
    let same_at = |i: usize, from_end: bool| {
        let pick = |p: &Vec<String>| {
            if from_end {
                p[p.len() - 1 - i].clone()
            } else {
                p[i].clone()
            }
        };
        let first = pick(&parts[0]);
        parts.iter().all(|p| pick(p) == first)
    };
    let prefix = (0..shortest).take_while(|&i| same_at(i, false)).count();
    let suffix = (0..shortest - prefix)
        .take_while(|&i| same_at(i, true))
        .count();
    parts
        .iter()
        .zip(hosts)
        .map(|(p, host)| {
            let middle: String = p[prefix..p.len() - suffix].concat();
            let middle = if middle.is_empty() && prefix > 0 {
                p[prefix - 1].clone()
            } else {
                middle
            };
            if middle.is_empty() {
                host.clone()
            } else if prefix > 0 {
                format!("…{middle}")
            } else {
                middle
            }
        })
        .collect()
}

/// One scan of the network as the explorer uses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScanEntry {
    /// The SV's name (for a pinned scan the network does not list: its host).
    pub sv_name: String,
    /// The base URL requests go to.
    pub url: String,
    /// Listed by the network's `/v0/scans`.
    pub listed: bool,
    /// Named by the profile's `scan_urls`.
    pub pinned: bool,
    /// The profile's own `scan_url`.
    pub own: bool,
    /// Counts in `n` and votes (listed or pinned); the profile's own scan, when neither, is only
    /// compared against the others.
    pub counted: bool,
}

/// The scans to ask: the listed ones chosen by `selection`, then the pinned URLs the list does
/// not have, then the profile's own scan when it is neither (not counted, unless there is no
/// list at all: then the own and pinned scans are the network). URLs are matched without user
/// info; a listed scan the profile names with credentials (`https://user:pw@host`) is asked
/// with them. Also returns warnings (selected names the list does not have).
pub fn select_scans(
    list: Option<&ScanList>,
    selection: &ScanSelection,
    pins: &[String],
    own: Option<&str>,
) -> (Vec<ScanEntry>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut entries: Vec<ScanEntry> = Vec::new();
    let listed: &[ListedScan] = list.map_or(&[], |l| l.scans.as_slice());
    if let ScanSelection::Names(names) = selection {
        for name in names {
            if !listed.iter().any(|s| s.sv_name.eq_ignore_ascii_case(name)) {
                warnings.push(format!("no scan of an SV named {name:?} is listed"));
            }
        }
    }
    let is_pinned = |url: &str| pins.iter().any(|p| same_url(p, url));
    let is_own = |url: &str| own.is_some_and(|o| same_url(o, url));
    let own_url = own;
    for scan in listed {
        let chosen = match selection {
            ScanSelection::All => true,
            ScanSelection::Names(names) => {
                names.iter().any(|n| n.eq_ignore_ascii_case(&scan.sv_name))
            }
        };
        let pinned = is_pinned(&scan.url);
        let own = is_own(&scan.url);
        if chosen || pinned || own {
            // The profile names this scan with credentials (basic auth) the list does not
            // carry: it is asked with them.
            let url = if has_userinfo(&scan.url) {
                None
            } else {
                own_url.filter(|o| own && has_userinfo(o)).or_else(|| {
                    pins.iter()
                        .find(|p| has_userinfo(p) && same_url(p, &scan.url))
                        .map(String::as_str)
                })
            };
            let url = url.map_or_else(
                || scan.url.clone(),
                |u| u.trim().trim_end_matches('/').to_owned(),
            );
            entries.push(ScanEntry {
                sv_name: scan.sv_name.clone(),
                url,
                listed: true,
                pinned,
                own,
                counted: true,
            });
        }
    }
    for pin in pins {
        let url = pin.trim().trim_end_matches('/');
        if url.is_empty() || entries.iter().any(|e| same_url(&e.url, url)) {
            continue;
        }
        entries.push(ScanEntry {
            sv_name: url_host(url),
            url: url.to_owned(),
            listed: false,
            pinned: true,
            own: is_own(url),
            counted: true,
        });
    }
    if let Some(own) = own {
        let url = own.trim().trim_end_matches('/');
        if !url.is_empty() && !entries.iter().any(|e| same_url(&e.url, url)) {
            entries.push(ScanEntry {
                sv_name: url_host(url),
                url: url.to_owned(),
                listed: false,
                pinned: false,
                own: true,
                counted: list.is_none(),
            });
        }
    }
    (entries, warnings)
}

/// `n`, `f` and the quorum of a set of scans (counted ones only).
pub fn quorum_of(entries: &[ScanEntry]) -> (usize, usize, usize) {
    let n = entries.iter().filter(|e| e.counted).count();
    (n, fault_tolerance(n), quorum(n))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod distinct_host_tests {
    use super::distinct_hosts;

    #[test]
    fn hosts_keep_the_part_that_tells_them_apart() {
        let v = |s: &[&str]| s.iter().map(|h| (*h).to_string()).collect::<Vec<_>>();
        assert_eq!(
            distinct_hosts(&v(&[
                "127.0.0.1:41329",
                "127.0.0.1:41329/sv2",
                "127.0.0.1:41329/sv3"
            ])),
            v(&["…:41329", "…/sv2", "…/sv3"])
        );
        assert_eq!(
            distinct_hosts(&v(&[
                "scan.sv-1.global.canton.network.sync.global",
                "scan.sv-2.global.canton.network.sync.global",
            ])),
            v(&["….sv-1", "….sv-2"])
        );
        assert_eq!(distinct_hosts(&v(&["a:1", "a:2"])), v(&["…:1", "…:2"]));
        assert_eq!(distinct_hosts(&v(&["one"])), v(&["one"]));
    }
}
