//! "My SV", pure: which SV this profile belongs to, and where that came from. The profile's
//! `sv` key (an SV name or a party id) wins; else the scan's `/v0/dso` names the SV operating it
//! (`sv_party_id`). The DSO's SV list (`dso_rules.contract.payload.svs`) fills in the other half
//! (the name of a party, the party of a name) when it is known.
//!
//! ```text
//! profile sv key ──┐
//!                  ├─► resolve_my_sv ─► MySv { name, party, source } ─► describe()
//! scan /v0/dso ────┘   (the DSO's SVs complete name ⇄ party)
//! ```

use crate::api::sanitize_line;
use crate::api::scan::{DsoInfo, DsoSv};

/// Where "my SV" came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MySvSource {
    /// The profile's `sv` key.
    Profile,
    /// The scan's `/v0/dso` (`sv_party_id`).
    Scan,
}

/// The SV this profile belongs to. At least one of `name` and `party` is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MySv {
    /// The SV's name (as `/v0/scans` lists its scan: `svName`).
    pub name: Option<String>,
    /// The SV's party id.
    pub party: Option<String>,
    /// Where it came from.
    pub source: MySvSource,
    /// Whether the DSO's SV list has it; `None` while that list is unknown.
    pub listed: Option<bool>,
}

/// Longest name or party [`MySv::describe`] shows (a party id is about 80 characters).
const SHOWN: usize = 120;

impl MySv {
    /// One line for the screen, e.g. `my SV: Delta-SV (from the scan's /v0/dso)`. Server text is
    /// made safe (no control or bidi characters, at most 120 characters).
    pub fn describe(&self) -> String {
        let who = match (&self.name, &self.party) {
            (Some(name), _) => sanitize_line(name, SHOWN),
            (None, Some(party)) => sanitize_line(party, SHOWN),
            (None, None) => "unknown".to_owned(),
        };
        let from = match self.source {
            MySvSource::Profile => "from the profile's sv key",
            MySvSource::Scan => "from the scan's /v0/dso",
        };
        let note = match (self.source, self.listed) {
            (MySvSource::Profile, Some(false)) => "; not an SV of the DSO",
            (MySvSource::Scan, Some(false)) => "; not in the DSO's SV list",
            _ => "",
        };
        format!("my SV: {who} ({from}{note})")
    }

    /// Whether a scan listed under `sv_name` (`/v0/scans` `svName`) is this SV's scan.
    pub fn is_named(&self, sv_name: &str) -> bool {
        self.name.as_deref() == Some(sv_name)
    }
}

/// "My SV": the profile's `sv` key (an SV name or a party id) when it is set, else the SV that
/// operates the scan (`dso.sv_party_id`); `None` when neither says. A configured value is
/// matched case-sensitively to the name, or exactly to the party, of an SV of the DSO when the
/// DSO is known, so both name and party are filled in; unmatched, a value with `::` is taken
/// as a party and any other as a name.
pub fn resolve_my_sv(configured: Option<&str>, dso: Option<&DsoInfo>) -> Option<MySv> {
    let svs: Option<&[DsoSv]> = dso.map(|info| info.svs.as_slice());
    let listed = |found: bool| svs.filter(|svs| !svs.is_empty()).map(|_| found);
    if let Some(key) = configured.map(str::trim).filter(|key| !key.is_empty()) {
        let found = svs.and_then(|svs| {
            svs.iter()
                .find(|sv| sv.name == key)
                .or_else(|| svs.iter().find(|sv| sv.party == key))
        });
        return Some(match found {
            Some(sv) => from_sv(sv, MySvSource::Profile, listed(true)),
            None if key.contains("::") => MySv {
                name: None,
                party: Some(key.to_owned()),
                source: MySvSource::Profile,
                listed: listed(false),
            },
            None => MySv {
                name: Some(key.to_owned()),
                party: None,
                source: MySvSource::Profile,
                listed: listed(false),
            },
        });
    }
    let info = dso?;
    let party = info.sv_party_id.trim();
    if party.is_empty() {
        return None;
    }
    Some(match info.sv_by_party(party) {
        Some(sv) => from_sv(sv, MySvSource::Scan, Some(true)),
        None => MySv {
            name: None,
            party: Some(party.to_owned()),
            source: MySvSource::Scan,
            listed: listed(false),
        },
    })
}

fn from_sv(sv: &DsoSv, source: MySvSource, listed: Option<bool>) -> MySv {
    let text = |s: &str| Some(s.to_owned()).filter(|s| !s.is_empty());
    MySv {
        name: text(&sv.name),
        party: text(&sv.party),
        source,
        listed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALPHA: &str = "Alpha-SV::1220aa";
    const DELTA: &str = "Delta-SV::1220dd";

    /// A `/v0/dso` answer of the scan operated by `own`, listing Alpha and Delta.
    fn dso(own: &str) -> DsoInfo {
        let text = format!(
            r#"{{"sv_party_id":"{own}","dso_rules":{{"contract":{{"payload":{{"svs":[
                ["{ALPHA}",{{"name":"Alpha-SV"}}],["{DELTA}",{{"name":"Delta-SV"}}]]}}}}}}}}"#
        );
        serde_json::from_str(&text).expect("decodes")
    }

    fn sv(name: Option<&str>, party: Option<&str>, source: MySvSource) -> MySv {
        MySv {
            name: name.map(str::to_owned),
            party: party.map(str::to_owned),
            source,
            listed: Some(true),
        }
    }

    #[test]
    fn resolution_table() {
        use MySvSource::{Profile, Scan};
        let delta = dso(DELTA);
        let unlisted = dso("Omega::1220ff");
        // (what, the sv key, the scan's DSO, the resolved SV)
        type Row<'a> = (&'a str, Option<&'a str>, Option<&'a DsoInfo>, Option<MySv>);
        let rows: Vec<Row<'_>> = vec![
            ("nothing known", None, None, None),
            (
                "the scan's SV, named from the list",
                None,
                Some(&delta),
                Some(sv(Some("Delta-SV"), Some(DELTA), Scan)),
            ),
            (
                "the profile's name wins over the scan, party filled in",
                Some("Alpha-SV"),
                Some(&delta),
                Some(sv(Some("Alpha-SV"), Some(ALPHA), Profile)),
            ),
            (
                "the profile's party, name filled in",
                Some(ALPHA),
                Some(&delta),
                Some(sv(Some("Alpha-SV"), Some(ALPHA), Profile)),
            ),
            (
                "surrounding blanks of the key do not count",
                Some("  Delta-SV "),
                Some(&delta),
                Some(sv(Some("Delta-SV"), Some(DELTA), Profile)),
            ),
            (
                "names match case-sensitively",
                Some("alpha-sv"),
                Some(&delta),
                Some(MySv {
                    listed: Some(false),
                    ..sv(Some("alpha-sv"), None, Profile)
                }),
            ),
            (
                "an unlisted party stays a party",
                Some("Zeta::1220ee"),
                Some(&delta),
                Some(MySv {
                    listed: Some(false),
                    ..sv(None, Some("Zeta::1220ee"), Profile)
                }),
            ),
            (
                "without the DSO, the key as given",
                Some("Alpha-SV"),
                None,
                Some(MySv {
                    listed: None,
                    ..sv(Some("Alpha-SV"), None, Profile)
                }),
            ),
            (
                "without the DSO, a party as given",
                Some(ALPHA),
                None,
                Some(MySv {
                    listed: None,
                    ..sv(None, Some(ALPHA), Profile)
                }),
            ),
            (
                "an empty key is no key",
                Some("  "),
                Some(&delta),
                Some(sv(Some("Delta-SV"), Some(DELTA), Scan)),
            ),
            (
                "the scan's SV not in the list: its party alone",
                None,
                Some(&unlisted),
                Some(MySv {
                    listed: Some(false),
                    ..sv(None, Some("Omega::1220ff"), Scan)
                }),
            ),
        ];
        for (what, key, info, want) in rows {
            assert_eq!(resolve_my_sv(key, info), want, "{what}");
        }
        // A scan that names no SV: nothing.
        let empty: DsoInfo = serde_json::from_str(r#"{"sv_party_id":""}"#).expect("decodes");
        assert_eq!(resolve_my_sv(None, Some(&empty)), None);
    }

    #[test]
    fn describe_says_where_it_came_from() {
        let delta = dso(DELTA);
        let from_scan = resolve_my_sv(None, Some(&delta)).expect("scan");
        assert_eq!(
            from_scan.describe(),
            "my SV: Delta-SV (from the scan's /v0/dso)"
        );
        assert!(from_scan.is_named("Delta-SV"));
        assert!(!from_scan.is_named("delta-sv"));
        let from_profile = resolve_my_sv(Some(ALPHA), Some(&delta)).expect("profile");
        assert_eq!(
            from_profile.describe(),
            "my SV: Alpha-SV (from the profile's sv key)"
        );
        let unknown = resolve_my_sv(Some("Nobody"), Some(&delta)).expect("profile");
        assert_eq!(
            unknown.describe(),
            "my SV: Nobody (from the profile's sv key; not an SV of the DSO)"
        );
        let party_only = resolve_my_sv(None, Some(&dso("Omega::1220ff"))).expect("scan");
        assert_eq!(
            party_only.describe(),
            "my SV: Omega::1220ff (from the scan's /v0/dso; not in the DSO's SV list)"
        );
    }

    #[test]
    fn describe_makes_server_text_safe() {
        let text = r#"{"sv_party_id":"X::1","dso_rules":{"contract":{"payload":{"svs":[
            ["X::1",{"name":"Evil\u001b[31m\u202eSV"}]]}}}}"#;
        let info: DsoInfo = serde_json::from_str(text).expect("decodes");
        let line = resolve_my_sv(None, Some(&info)).expect("scan").describe();
        assert!(
            !line.contains('\u{1b}') && !line.contains('\u{202e}'),
            "{line:?}"
        );
        assert!(line.starts_with("my SV: Evil"), "{line:?}");
    }
}
