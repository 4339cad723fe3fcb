//! The `config.toml` format: named profiles, the `[keys]` table, logging keys. Parsing is strict
//! (`deny_unknown_fields`); every error names the file, the line and the column.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::ConfigError;
use super::values::{BaseUrl, HistoryStart, NotifyMode, TimeZone, deserialize_duration};

/// The whole config file, as written. Every key may be left out (`#[serde(default)]`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConfigFile {
    /// The profile used when `--profile` is not given.
    pub default_profile: Option<String>,
    /// Named profiles, one per network or node.
    pub profiles: BTreeMap<String, ProfileFile>,
    /// Key binding overrides: action name → one key spec or a list of key specs. Interpreted by
    /// [`crate::config::keymap`].
    pub keys: BTreeMap<String, KeySpecs>,
    /// Where logs go (never the terminal).
    pub log_file: Option<PathBuf>,
    /// A level (`info`, `debug`, …) or a `tracing` filter directive list.
    pub log_level: Option<String>,
}

/// One `[profiles.<name>]` table. Every key is optional.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProfileFile {
    /// Base URL of the scan (the client appends `/api/scan/...`).
    pub scan_url: Option<BaseUrl>,
    /// Further scans of the same network, for cross-checking.
    pub scan_urls: Option<Vec<BaseUrl>>,
    /// Base URL of the validator (the client appends `/api/validator/...`).
    pub validator_url: Option<BaseUrl>,
    /// Base URL of the participant's JSON Ledger API (the client appends `/v2/...`).
    pub ledger_url: Option<BaseUrl>,
    /// A file holding the ledger JWT.
    pub token_file: Option<PathBuf>,
    /// A shell command that prints the ledger JWT (run once, cached until the token expires).
    pub token_command: Option<String>,
    /// Polling interval, e.g. `"2s"`.
    #[serde(deserialize_with = "deserialize_duration")]
    pub refresh: Option<Duration>,
    /// Theme name (`dark`, `light`, `high-contrast`, `mono`, or a theme file of the config dir).
    pub theme: Option<String>,
    /// Disable the ledger actions that change state (delete user, execute), in the explorer and
    /// in the headless `ledger delete-user` / `ledger execute`.
    pub read_only: Option<bool>,
    /// `"utc"` or `"local"`.
    pub time_zone: Option<TimeZone>,
    /// Where the history starts: `begin`, `now`, `recent` or an RFC 3339 time.
    pub from: Option<HistoryStart>,
    /// Largest response body accepted from a node, in MiB after gzip decoding.
    pub max_response_mib: Option<i64>,
    /// Memory budget of the loaded history, in MiB (the oldest updates leave memory beyond it).
    pub history_memory_mib: Option<i64>,
    /// This profile's SV ("my SV"): its name (`svName` in `/v0/scans`) or its party id. Without
    /// it, the scan's `/v0/dso` says which SV operates the scan.
    pub sv: Option<String>,
    /// The local history index: a file path (relative to the config file), or a `postgres://`
    /// URL. Default: `<data dir>/index/<profile or "default">.sqlite`.
    pub index: Option<String>,
    /// The folder exports are written to by default (relative to the config file). Default:
    /// the current directory.
    pub export_dir: Option<PathBuf>,
    /// Which of the scans the network lists to use: `"all"` or a list of SV names.
    pub network_scans: Option<NetworkScans>,
    /// How often the whole network's health is measured (default `30s`, at least `5s`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub network_health_interval: Option<Duration>,
    /// Request budget per scan, in requests per second (default 10).
    pub scan_request_rate: Option<f64>,
    /// A scan whose newest open mining round is older than this is unhealthy (default `900s`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub max_round_age: Option<Duration>,
    /// A scan whose newest update is older than this is unhealthy (default `300s`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub max_update_age: Option<Duration>,
    /// A healthy scan this far behind the newest head of all scans is lagging (default `30s`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub max_lag: Option<Duration>,
    /// How often the head check compares every scan's newest updates, update by update
    /// (default `60s`; `0s` turns it off).
    #[serde(deserialize_with = "deserialize_duration")]
    pub fork_check: Option<Duration>,
    /// How the explorer announces a new finding: `bell` (the default), `osc` (a desktop
    /// notification, OSC 777 / OSC 9, and the bell) or `off`.
    pub notify: Option<NotifyMode>,
    /// The Status dashboard turns the newest update's lag amber past this (default `60s`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub lag_warn: Option<Duration>,
    /// ... and red (the dashboard says DOWN) past this (default `300s`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub lag_error: Option<Duration>,
    /// The traffic card turns amber when less than this percentage of the limit is left
    /// (default 20).
    pub traffic_warn_percent: Option<i64>,
    /// ... and red (the dashboard says DEGRADED) under this percentage (default 5).
    pub traffic_error_percent: Option<i64>,
    /// How often governance (the open vote requests) is read (default `45s`, 10 s to 1 h).
    #[serde(deserialize_with = "deserialize_duration")]
    pub governance_interval: Option<Duration>,
    /// The operator's own Prometheus endpoints (SV app, scan, validator, participant,
    /// sequencer, mediator), judged by the My node rules.
    pub metrics: Option<Vec<MetricsEndpointFile>>,
    /// How often they are scraped (default `15s`, at least `1s`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub metrics_refresh: Option<Duration>,
    /// The SV's own Prometheus (`/api/v1/query` is appended): the rules' metrics are read from
    /// it, its own windows standing for the previous run.
    pub prometheus: Option<BaseUrl>,
    /// Overrides of the My node rules' thresholds.
    pub alerts: Option<AlertsFile>,
}

/// One `metrics = [{ name, url }]` entry.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsEndpointFile {
    /// A short name (`participant`, `sv-app`): rows and errors name the endpoint by it.
    pub name: String,
    /// The whole URL of the exposition (`http://host:10013/metrics`); basic auth as
    /// `https://user:password@host/metrics`.
    pub url: BaseUrl,
    /// A file holding a bearer token sent to this endpoint only.
    pub token_file: Option<PathBuf>,
}

/// `[profiles.X.alerts]`: the My node rules' thresholds, each optional (the default is the DA
/// rule's, the validator docs' or the profile's, as the book's on-call chapter,
/// `docs/src/on-call.md`, lists).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AlertsFile {
    /// Sequencer client delay (default `90s`) …
    #[serde(deserialize_with = "deserialize_duration")]
    pub sequencer_client_delay: Option<Duration>,
    /// … held for (default `5m`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub sequencer_client_delay_for: Option<Duration>,
    /// Mediator acknowledgement lag (default `900s`) …
    #[serde(deserialize_with = "deserialize_duration")]
    pub mediator_ack_lag: Option<Duration>,
    /// … held for (default `5m`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub mediator_ack_lag_for: Option<Duration>,
    /// No new round for (default `30m`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub rounds_not_advancing: Option<Duration>,
    /// SV status report age (default `300s`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub status_report_age: Option<Duration>,
    /// Share of disagreeing BFT scan reads, percent (default 10) …
    pub scan_disagreement_percent: Option<f64>,
    /// … over (default `30m`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub scan_disagreement_window: Option<Duration>,
    /// DSO missed confirmations counted over (default `10m`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub missed_confirmations_window: Option<Duration>,
    /// Store ingestion lag (default `20m`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub ingestion_lag: Option<Duration>,
    /// Automation failures counted over (default `10m`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub automation_failures_window: Option<Duration>,
    /// ACS commitment checkpoint age (default `2400s`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub acs_commitments: Option<Duration>,
    /// No new ordering block for (default `5m`).
    #[serde(deserialize_with = "deserialize_duration")]
    pub ordering_layer: Option<Duration>,
}

/// The value of `network_scans`: `"all"` or a list of SV names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkScans {
    /// `"all"` (any other text is rejected when the settings are resolved).
    Word(String),
    /// The SV names.
    Names(Vec<String>),
}

impl<'de> Deserialize<'de> for NetworkScans {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = NetworkScans;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("\"all\" or a list of SV names")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<NetworkScans, E> {
                Ok(NetworkScans::Word(v.to_owned()))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<NetworkScans, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    names.push(name);
                }
                Ok(NetworkScans::Names(names))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// The value of one `[keys]` entry: a single key spec (`"ctrl-r"`) or a list (`["j", "down"]`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum KeySpecs {
    /// One key spec.
    One(String),
    /// Several key specs bound to the same action.
    Many(Vec<String>),
}

impl KeySpecs {
    /// The key specs as a slice, whatever the written form.
    pub fn as_slice(&self) -> &[String] {
        match self {
            KeySpecs::One(spec) => std::slice::from_ref(spec),
            KeySpecs::Many(specs) => specs,
        }
    }
}

/// Parse the text of a config file. `path` is only used in error messages.
pub fn parse_config(path: &Path, text: &str) -> Result<ConfigFile, ConfigError> {
    toml::from_str(text).map_err(|err| {
        let (line, column) = err
            .span()
            .map_or((1, 1), |span| line_and_column(text, span.start));
        ConfigError::Parse {
            path: path.to_owned(),
            line,
            column,
            message: with_suggestion(err.message().trim()),
        }
    })
}

/// A message of an unknown field (`unknown field `refersh`, expected one of `refresh`, …`) with
/// the nearest known field suggested when it is a likely typo: "did you mean `refresh`?".
fn with_suggestion(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_owned();
    };
    let Some((typed, expected)) = rest.split_once('`') else {
        return message.to_owned();
    };
    let known = expected.split('`').skip(1).step_by(2);
    let best = known
        .map(|k| (edit_distance(typed, k), k))
        .min_by_key(|(d, _)| *d);
    match best {
        // At most a third of the word changed (two letters swapped count as two).
        Some((d, known)) if d > 0 && d <= (typed.chars().count().max(3) / 3).max(2) => {
            format!("{message}; did you mean `{known}`?")
        }
        _ => message.to_owned(),
    }
}

/// The Levenshtein distance of `a` and `b`, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Line and column of the key at `path` (e.g. `["profiles", "main", "refresh"]` or
/// `["keys", "quit"]`) in a config file's text; `None` when the text does not parse or has no
/// such key.
pub(crate) fn key_path_position(text: &str, path: &[&str]) -> Option<(usize, usize)> {
    let root = toml::de::DeTable::parse(text).ok()?;
    let mut table = root.get_ref();
    let mut position = None;
    for (index, segment) in path.iter().enumerate() {
        let (key, value) = table.iter().find(|(key, _)| key.get_ref() == segment)?;
        position = Some(key.span().start);
        if index + 1 < path.len() {
            match value.get_ref() {
                toml::de::DeValue::Table(inner) => table = inner,
                _ => return None,
            }
        }
    }
    position.map(|offset| line_and_column(text, offset))
}

/// 1-based line and column (in characters) of a byte offset into `text`.
pub(crate) fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |index| index + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_field_near_a_known_one_is_suggested() {
        let message = "unknown field `refersh`, expected one of `scan_url`, `refresh`, `theme`";
        assert_eq!(
            with_suggestion(message),
            format!("{message}; did you mean `refresh`?")
        );
        let far = "unknown field `colour`, expected one of `scan_url`, `refresh`";
        assert_eq!(with_suggestion(far), far);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
    }

    #[test]
    fn line_and_column_counts_from_one() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(line_and_column(text, 0), (1, 1));
        assert_eq!(line_and_column(text, 6), (2, 1));
        assert_eq!(line_and_column(text, 9), (2, 3));
        assert_eq!(line_and_column(text, 1000), (3, 1));
    }

    #[test]
    fn key_and_table_positions() {
        let text =
            "log_level = \"info\"\n[profiles.a]\n\n[keys]\nquit = \"q\"\n\"list.down\" = [\"j\"]\n";
        assert_eq!(key_path_position(text, &["keys", "quit"]), Some((5, 1)));
        assert_eq!(
            key_path_position(text, &["keys", "list.down"]),
            Some((6, 1))
        );
        assert_eq!(key_path_position(text, &["keys", "nope"]), None);
        assert_eq!(key_path_position(text, &["keys"]), Some((4, 2)));
        assert_eq!(key_path_position(text, &["profiles", "a"]), Some((2, 11)));
        assert_eq!(key_path_position(text, &["log_level", "x"]), None);
    }

    #[test]
    fn key_specs_both_forms() {
        let file = parse_config(
            Path::new("c.toml"),
            "[keys]\nquit = \"q\"\ndown = [\"j\", \"down\"]\n",
        )
        .expect("valid");
        assert_eq!(file.keys["quit"].as_slice(), ["q".to_owned()]);
        assert_eq!(file.keys["down"].as_slice().len(), 2);
    }
}
