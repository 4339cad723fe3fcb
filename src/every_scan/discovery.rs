//! Which scans there are: `GET /v0/scans` on the profile's scan (else on a pinned scan), the
//! global synchronizer's list merged with the profile's pins and SV selection; the list is kept
//! on disk, one file per profile and seed scan, so a restart works while the seed scan is down.

use std::path::{Path, PathBuf};

use crate::api::{ApiClient, redact_userinfo, scan};
use crate::config::Settings;
use crate::model::format::format_time_micros;
use crate::model::network::{
    CachedScanList, ScanEntry, ScanList, cache_file_name, same_url, select_scans,
};

/// Where the list came from. URLs and errors here never carry credentials (user info is
/// shown as `***@`): they are printed and shown as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListSource {
    /// Fetched now from this scan.
    Fetched { from: String },
    /// The copy kept on disk (fetched at this time, µs), because no scan answered.
    Cached {
        fetched_at: i64,
        errors: Vec<String>,
    },
    /// No list: only the profile's own and pinned scans.
    Unavailable { errors: Vec<String> },
}

/// The outcome of discovery.
#[derive(Debug, Clone)]
pub struct Discovered {
    /// The scans to ask.
    pub entries: Vec<ScanEntry>,
    /// The list they were chosen from.
    pub list: Option<ScanList>,
    pub source: ListSource,
    /// Selected SV names the list does not have, a list that could not be kept, …
    pub warnings: Vec<String>,
    /// The file the list is kept in.
    pub cache_file: Option<PathBuf>,
}

impl ListSource {
    /// `fetched`, `cached` or `unavailable`.
    pub fn name(&self) -> &'static str {
        match self {
            ListSource::Fetched { .. } => "fetched",
            ListSource::Cached { .. } => "cached",
            ListSource::Unavailable { .. } => "unavailable",
        }
    }
}

/// The file the scan list of this profile and seed is kept in, under `dir` (normally
/// [`crate::config::Settings::data_path`]).
pub fn cache_path(dir: &Path, profile: Option<&str>, seed: &str) -> PathBuf {
    dir.join("network").join(cache_file_name(profile, seed))
}

/// Reads a kept list (`None` when there is none or it is not ours).
pub fn read_cached(path: &Path) -> Option<CachedScanList> {
    let text = std::fs::read_to_string(path).ok()?;
    CachedScanList::from_json(&text)
}

/// Keeps a list (written to a temporary file, then renamed over the old one), readable by its
/// owner only (mode 0600 on unix). The seed is stored with its user info as `***`: no
/// credentials on disk (it is matched to the profile's seed without user info).
pub fn write_cached(path: &Path, list: &CachedScanList) -> std::io::Result<()> {
    use std::io::Write as _;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let kept = CachedScanList {
        seed: redact_userinfo(&list.seed),
        ..list.clone()
    };
    let tmp = path.with_extension("json.tmp");
    // A stale temporary file may have other permissions: start afresh.
    let _ = std::fs::remove_file(&tmp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&tmp)?;
    file.write_all(kept.to_json().as_bytes())?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)
}

/// Discovers the scans for `settings`: the list from the profile's scan, else from a pinned
/// scan, else the kept copy; then the selection. `data_dir` is where lists are kept (`None`:
/// not kept). `now` is µs since the epoch.
pub async fn discover(
    client: &ApiClient,
    settings: &Settings,
    data_dir: Option<&Path>,
    now: i64,
) -> Discovered {
    let own = settings.scan_url.as_ref().map(|u| u.as_str().to_owned());
    let pins: Vec<String> = settings
        .extra_scan_urls
        .iter()
        .map(|u| u.as_str().to_owned())
        .collect();
    let seeds: Vec<String> = own.iter().chain(&pins).cloned().collect();
    let cache_file = match (data_dir, seeds.first()) {
        (Some(dir), Some(seed)) => Some(cache_path(dir, settings.profile.as_deref(), seed)),
        _ => None,
    };
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let mut found = None;
    for seed in &seeds {
        let seed_client = client.with_scan_url(seed);
        match seed_client.send(&scan::scans()).await {
            Ok(response) => match ScanList::from_response(&response) {
                Some(list) => {
                    found = Some((seed.clone(), list));
                    break;
                }
                None => errors.push(format!(
                    "{}: /v0/scans lists no synchronizer",
                    redact_userinfo(seed)
                )),
            },
            Err(error) => errors.push(format!("{}: {error}", redact_userinfo(seed))),
        }
    }
    let (list, source) = match found {
        Some((from, list)) => {
            if let Some(path) = &cache_file {
                let kept = CachedScanList {
                    seed: seeds[0].clone(),
                    fetched_at: now,
                    list: list.clone(),
                };
                if let Err(error) = write_cached(path, &kept) {
                    warnings.push(format!(
                        "cannot keep the scan list in {}: {error}",
                        path.display()
                    ));
                }
            }
            (
                Some(list),
                ListSource::Fetched {
                    from: redact_userinfo(&from),
                },
            )
        }
        None => match cache_file
            .as_deref()
            .and_then(read_cached)
            .filter(|kept| seeds.first().is_some_and(|seed| same_url(&kept.seed, seed)))
        {
            Some(kept) => {
                warnings.push(format!(
                    "no scan answered /v0/scans; using the list kept at {}",
                    format_time_micros(kept.fetched_at)
                ));
                (
                    Some(kept.list),
                    ListSource::Cached {
                        fetched_at: kept.fetched_at,
                        errors,
                    },
                )
            }
            None => (None, ListSource::Unavailable { errors }),
        },
    };
    let (entries, selection_warnings) = select_scans(
        list.as_ref(),
        &settings.network.scans,
        &pins,
        own.as_deref(),
    );
    warnings.extend(selection_warnings);
    Discovered {
        entries,
        list,
        source,
        warnings,
        cache_file,
    }
}
