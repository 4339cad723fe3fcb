//! Configuration: the `config.toml` file with named profiles, its lookup, and the layering
//! defaults ← file ← environment ← command-line flags into one resolved [`Settings`].
//!
//! The layering is the pure function [`resolve`] over (file contents, environment map, flags), so
//! it is table-tested without touching the process environment; [`load`] is the thin impure
//! wrapper that reads the process environment and the file. Logging setup ([`init_logging`]) lives
//! here too because the log file and level are config keys.
//!
//! Submodules: `file` (the TOML format), `paths` (where files live), `values` (durations, URLs,
//! time zone, history start), `logging`, and `keymap` (owned by the UI: interprets `[keys]`).

pub mod file;
pub mod keymap;
pub mod logging;
pub mod paths;
mod resolve;
pub mod state;
pub mod values;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::api::{Secret, TokenSource};
use crate::feed::dashboard::{LagThresholds, TrafficThresholds};
use crate::model::network::{HealthThresholds, ScanSelection};
pub use file::{
    AlertsFile, ConfigFile, KeySpecs, MetricsEndpointFile, NetworkScans, ProfileFile, parse_config,
};
pub use logging::init_logging;
pub use paths::{ConfigLocation, default_log_file, locate_config};
pub use resolve::resolve;

pub use values::{
    BaseUrl, HistoryStart, NotifyMode, TimeZone, format_duration, parse_duration, parse_refresh,
};

/// Environment variable: scan base URL.
pub const SCAN_URL_ENV: &str = "CANTONSCOPE_SCAN_URL";
/// Environment variable: validator base URL.
pub const VALIDATOR_URL_ENV: &str = "CANTONSCOPE_VALIDATOR_URL";
/// Environment variable: ledger base URL.
pub const LEDGER_URL_ENV: &str = "CANTONSCOPE_LEDGER_URL";
/// Environment variable: the ledger JWT itself.
pub const TOKEN_ENV: &str = "CANTONSCOPE_TOKEN";
/// Environment variable: the response size cap in MiB.
pub const MAX_RESPONSE_MIB_ENV: &str = "CANTONSCOPE_MAX_RESPONSE_MIB";

/// Default polling interval.
pub const DEFAULT_REFRESH: Duration = Duration::from_secs(2);
/// Smallest accepted polling interval.
pub const MIN_REFRESH: Duration = Duration::from_millis(100);
/// Default theme name.
pub const DEFAULT_THEME: &str = "dark";
/// Theme chosen by `NO_COLOR` when neither the file nor a flag names a theme.
pub const NO_COLOR_THEME: &str = "mono";
/// Default log level.
pub const DEFAULT_LOG_LEVEL: &str = "info";
/// Default cap of a response body, in MiB after gzip decoding.
pub const DEFAULT_MAX_RESPONSE_MIB: u32 = crate::api::client::DEFAULT_MAX_RESPONSE_MIB;
/// Accepted values of `max_response_mib` (1 MiB to 4 GiB).
pub const MAX_RESPONSE_MIB_RANGE: std::ops::RangeInclusive<u32> = 1..=4096;
/// Default request budget per scan (requests per second).
pub const DEFAULT_SCAN_REQUEST_RATE: f64 = 10.0;
/// Highest accepted request budget per scan (requests per second).
pub const MAX_SCAN_REQUEST_RATE: f64 = 1000.0;
/// Default interval of the network health measurement (`network_health_interval`).
pub const DEFAULT_NETWORK_HEALTH_INTERVAL: Duration = Duration::from_secs(30);
/// Default interval of the governance reads (`governance_interval`).
pub const DEFAULT_GOVERNANCE_INTERVAL: Duration = Duration::from_secs(45);
/// Accepted `governance_interval`s.
pub const GOVERNANCE_INTERVAL_RANGE: std::ops::RangeInclusive<Duration> =
    Duration::from_secs(10)..=Duration::from_secs(3600);
/// Default interval of the head check (`fork_check`).
pub const DEFAULT_FORK_CHECK: Duration = Duration::from_secs(60);

/// Shortest accepted `network_health_interval`.
pub const MIN_NETWORK_HEALTH_INTERVAL: Duration = Duration::from_secs(5);

/// The environment as the layering sees it: variable name → value. Empty values count as unset.
pub type Env = BTreeMap<String, String>;

/// Read the variables the config layering uses from the process environment (only those: the
/// `CANTONSCOPE_*` variables, `XDG_CONFIG_HOME` and `NO_COLOR`). Non-UTF-8 values are skipped.
pub fn process_env() -> Env {
    std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .filter(|(name, _)| {
            name.starts_with("CANTONSCOPE_") || name == "XDG_CONFIG_HOME" || name == "NO_COLOR"
        })
        .filter(|(_, value)| !value.is_empty())
        .collect()
}

/// Values given on the command line (the last layer). `None` / `false` means "not given".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    /// `--config`
    pub config: Option<PathBuf>,
    /// `--profile`
    pub profile: Option<String>,
    /// `--scan-url`
    pub scan_url: Option<BaseUrl>,
    /// `--validator-url`
    pub validator_url: Option<BaseUrl>,
    /// `--ledger-url`
    pub ledger_url: Option<BaseUrl>,
    /// `--token-file`
    pub token_file: Option<PathBuf>,
    /// `--log-file`
    pub log_file: Option<PathBuf>,
    /// `--from`
    pub from: Option<HistoryStart>,
    /// `--refresh`
    pub refresh: Option<Duration>,
    /// `--theme`
    pub theme: Option<String>,
    /// `--read-only` (a flag can only turn it on)
    pub read_only: bool,
    /// `--max-response-mib`
    pub max_response_mib: Option<u32>,
}

/// Where a resolved value came from (for "config show"-style diagnostics and error messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Built-in default.
    Default,
    /// The config file (the selected profile).
    File,
    /// An environment variable.
    Env,
    /// A command-line flag.
    Flag,
}

/// The resolved configuration every part of the program reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The config file that was read, if one was.
    pub config_path: Option<PathBuf>,
    /// The name of the profile in use, if any.
    pub profile: Option<String>,
    /// The built-in demo network ([`Settings::use_demo`]): its ports change every run, so
    /// nothing about it (the scan list) is kept on disk.
    pub embedded_demo: bool,
    /// Every profile name defined in the file (sorted).
    pub profiles: Vec<String>,
    /// Base URL of the primary scan.
    pub scan_url: Option<BaseUrl>,
    /// Further scans of the same network (without the primary), for cross-checking.
    pub extra_scan_urls: Vec<BaseUrl>,
    /// Base URL of the validator.
    pub validator_url: Option<BaseUrl>,
    /// Base URL of the participant's JSON Ledger API.
    pub ledger_url: Option<BaseUrl>,
    /// Where the ledger JWT comes from; `None` when no token is configured (ledger calls are then
    /// refused by the node). `Debug` never shows a token value.
    pub token: Option<TokenSource>,
    /// Which layer chose the token source.
    pub token_origin: Origin,
    /// Polling interval.
    pub refresh: Duration,
    /// Theme name.
    pub theme: String,
    /// True when delete-user and execute are disabled (in the explorer and headless).
    pub read_only: bool,
    /// Which layer turned `read_only` on: [`Origin::Flag`] (`--read-only`), [`Origin::File`]
    /// (`read_only = true` in the profile); [`Origin::Default`] when it is off.
    pub read_only_origin: Origin,
    /// How record times are shown.
    pub time_zone: TimeZone,
    /// Where the history starts.
    pub from: HistoryStart,
    /// The raw `[keys]` table (action name → key specs), checked by `config::keymap`.
    pub keys: BTreeMap<String, KeySpecs>,
    /// The log file named by `--log-file` or `log_file`; `None` means the default location
    /// ([`Settings::log_path`]).
    pub log_file: Option<PathBuf>,
    /// The log filter (`info`, `debug`, or directives).
    pub log_level: String,
    /// The data directory named by `$CANTONSCOPE_DATA_DIR`; `None` means the platform default
    /// ([`Settings::data_path`]).
    pub data_dir: Option<PathBuf>,
    /// Largest response body accepted from a node, in MiB after gzip decoding; a larger answer
    /// is aborted mid-read and reported as an error.
    pub max_response_mib: u32,
    /// Memory budget of the loaded history, in MiB: beyond it the oldest updates are dropped
    /// from memory (and fetched again when the user scrolls back to them).
    pub history_memory_mib: u32,
    /// How the whole network is read: which scans, how fast, the health thresholds.
    pub network: NetworkSettings,
    /// The local history index named by `$CANTONSCOPE_INDEX` or the profile's `index` key (a
    /// path or a `postgres://` URL); `None`: the default file ([`Settings::index_location`]).
    pub index: Option<String>,
    /// The profile's `export_dir`: where the explorer's exports go by default (`None`: the
    /// current directory).
    pub export_dir: Option<PathBuf>,
    /// `--offline`: the explorer reads the local index alone and asks no node.
    pub offline: bool,
    /// The profile's `sv` key: this profile's SV, by name or party id (trimmed, never empty).
    /// `None`: the scan's `/v0/dso` says (see `model::network::resolve_my_sv`).
    pub sv: Option<String>,
    /// My node: the operator's own metrics endpoints, their Prometheus, the rules.
    pub node: NodeSettings,
}

/// Default interval of the metrics scrapes (`metrics_refresh`).
pub const DEFAULT_METRICS_REFRESH: Duration = Duration::from_secs(15);
/// Shortest accepted `metrics_refresh`.
pub const MIN_METRICS_REFRESH: Duration = Duration::from_secs(1);

/// One of the operator's Prometheus endpoints (`metrics = [{ name, url }]`).
#[derive(Clone, Debug, PartialEq)]
pub struct MetricsEndpoint {
    /// Its name (`participant`).
    pub name: String,
    /// The exposition's whole URL (basic-auth user info kept in it, shown redacted).
    pub url: BaseUrl,
    /// A bearer token for this endpoint only.
    pub token: Option<TokenSource>,
}

/// The My node settings.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeSettings {
    /// The endpoints scraped (`metrics`).
    pub endpoints: Vec<MetricsEndpoint>,
    /// How often (`metrics_refresh`).
    pub refresh: Duration,
    /// The SV's own Prometheus (`prometheus`), read instead of the endpoints when set.
    pub prometheus: Option<BaseUrl>,
    /// The rules' thresholds (`[alerts]`, `traffic_*_percent`).
    pub rules: crate::model::metrics::AlertRules,
}

impl Default for NodeSettings {
    fn default() -> Self {
        NodeSettings {
            endpoints: Vec::new(),
            refresh: DEFAULT_METRICS_REFRESH,
            prometheus: None,
            rules: crate::model::metrics::AlertRules::default(),
        }
    }
}

impl NodeSettings {
    /// Whether anything is configured to read.
    pub fn is_configured(&self) -> bool {
        !self.endpoints.is_empty() || self.prometheus.is_some()
    }

    /// Where the metrics are read from, as the client reads them (the endpoints with their
    /// real URLs and tokens, or the Prometheus and the rules' metric names).
    pub fn sources(&self) -> crate::api::metrics::MetricsSources {
        crate::api::metrics::MetricsSources {
            targets: self
                .endpoints
                .iter()
                .map(|e| crate::api::metrics::MetricsTarget {
                    name: e.name.clone(),
                    url: e.url.as_str().to_owned(),
                    token: e.token.clone(),
                })
                .collect(),
            prometheus: self.prometheus.as_ref().map(|u| u.as_str().to_owned()),
            names: crate::model::metrics::rules::names::all(),
        }
    }
}

/// The settings of the network views and commands.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkSettings {
    /// Which of the listed scans to use (`network_scans`).
    pub scans: ScanSelection,
    /// Request budget per scan, requests per second (`scan_request_rate`).
    pub request_rate: f64,
    /// The health rules (`max_round_age`, `max_update_age`, `max_lag`).
    pub thresholds: HealthThresholds,
    /// When the Status dashboard's lag turns amber and red (`lag_warn`, `lag_error`).
    pub lag: LagThresholds,
    /// When the remaining traffic turns amber and red (`traffic_warn_percent`,
    /// `traffic_error_percent`).
    pub traffic: TrafficThresholds,
    /// How often governance is read (`governance_interval`).
    pub governance_interval: Duration,
    /// How often the network's health is measured (`network_health_interval`).
    pub health_interval: Duration,
    /// How often the head check runs (`fork_check`; zero: never).
    pub fork_check: Duration,
    /// How a new finding is announced (`notify`).
    pub notify: NotifyMode,
}

impl Default for NetworkSettings {
    fn default() -> Self {
        NetworkSettings {
            scans: ScanSelection::All,
            request_rate: DEFAULT_SCAN_REQUEST_RATE,
            thresholds: HealthThresholds::default(),
            lag: LagThresholds::default(),
            governance_interval: DEFAULT_GOVERNANCE_INTERVAL,
            traffic: TrafficThresholds::default(),
            health_interval: DEFAULT_NETWORK_HEALTH_INTERVAL,
            fork_check: DEFAULT_FORK_CHECK,
            notify: NotifyMode::Bell,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            config_path: None,
            profile: None,
            embedded_demo: false,
            profiles: Vec::new(),
            scan_url: None,
            extra_scan_urls: Vec::new(),
            validator_url: None,
            ledger_url: None,
            token: None,
            token_origin: Origin::Default,
            refresh: DEFAULT_REFRESH,
            theme: DEFAULT_THEME.to_owned(),
            read_only: false,
            read_only_origin: Origin::Default,
            time_zone: TimeZone::Utc,
            from: HistoryStart::Recent,
            keys: BTreeMap::new(),
            log_file: None,
            log_level: DEFAULT_LOG_LEVEL.to_owned(),
            data_dir: None,
            max_response_mib: DEFAULT_MAX_RESPONSE_MIB,
            history_memory_mib: crate::feed::loader::DEFAULT_MEMORY_MIB,
            network: NetworkSettings::default(),
            index: None,
            export_dir: None,
            offline: false,
            sv: None,
            node: NodeSettings::default(),
        }
    }
}

impl Settings {
    /// Every configured scan, the primary first, without duplicates.
    pub fn scan_urls(&self) -> Vec<BaseUrl> {
        let mut urls: Vec<BaseUrl> = Vec::new();
        for url in self.scan_url.iter().chain(&self.extra_scan_urls) {
            if !urls.contains(url) {
                urls.push(url.clone());
            }
        }
        urls
    }

    /// The directory of user files such as theme overrides: the directory of the config file in
    /// use, else the default config directory ([`paths::config_dir`]).
    pub fn config_dir(&self) -> Option<PathBuf> {
        self.config_path
            .as_deref()
            .and_then(Path::parent)
            .filter(|dir| !dir.as_os_str().is_empty())
            .map(Path::to_owned)
            .or_else(paths::config_dir)
    }

    /// The log file in use: the configured one, else the platform default.
    pub fn log_path(&self) -> Option<PathBuf> {
        self.log_file.clone().or_else(default_log_file)
    }

    /// Where data is kept between runs (the last-known scan list of each profile): the
    /// directory named by `$CANTONSCOPE_DATA_DIR`, else the platform data dir; `None` for the
    /// built-in demo network (its ports change every run: a kept list would only pile up files)
    /// and without a home directory.
    pub fn data_path(&self) -> Option<PathBuf> {
        if self.embedded_demo {
            return None;
        }
        self.data_dir.clone().or_else(paths::data_dir)
    }

    /// The explorer's local history index: the one named (`--index`, `$CANTONSCOPE_INDEX`, the
    /// profile's `index`), else the default file when it exists. `None`: no index (nothing
    /// named and no default file, or no data directory).
    pub fn explorer_index(&self) -> Option<String> {
        if let Some(named) = &self.index {
            return Some(named.clone());
        }
        let default = self.index_location(None)?;
        std::path::Path::new(&default).exists().then_some(default)
    }

    /// Where the local history index is: `flag` (`--index`), else `$CANTONSCOPE_INDEX` or the
    /// profile's `index`, else `<data dir>/index/<profile or "default">.sqlite`. `None` without a
    /// data directory (the built-in demo, no home directory) and nothing named.
    pub fn index_location(&self, flag: Option<&str>) -> Option<String> {
        if let Some(named) = flag.or(self.index.as_deref()) {
            return Some(named.to_owned());
        }
        let dir = self.data_path()?;
        let name = self.profile.as_deref().unwrap_or("default");
        Some(
            dir.join("index")
                .join(format!("{name}.sqlite"))
                .to_string_lossy()
                .into_owned(),
        )
    }

    /// Point these settings at a demo network (the `demo` command): its scans (the first is the
    /// primary), validator, ledger and token replace whatever the file, environment or flags
    /// said. The profile is reported as `demo`.
    pub fn use_demo(
        &mut self,
        scan_urls: &[String],
        validator_url: &str,
        ledger_url: &str,
        token: &str,
    ) -> Result<(), ConfigError> {
        let parse = |text: &str| {
            text.parse::<BaseUrl>()
                .map_err(|message| ConfigError::Invalid {
                    origin: "demo network".to_owned(),
                    message,
                })
        };
        let mut scans = scan_urls.iter().map(|url| parse(url));
        self.scan_url = scans.next().transpose()?;
        self.extra_scan_urls = scans.collect::<Result<_, _>>()?;
        self.validator_url = Some(parse(validator_url)?);
        self.ledger_url = Some(parse(ledger_url)?);
        self.token = Some(TokenSource::Literal(Secret::new(token)));
        self.token_origin = Origin::Default;
        self.profile = Some("demo".to_owned());
        self.embedded_demo = true;
        Ok(())
    }

    /// Point the My node settings at a demo network's metrics endpoints (`(node, URL)`), as
    /// `cantonscope demo` does.
    pub fn use_demo_metrics(&mut self, urls: &[(String, String)]) -> Result<(), ConfigError> {
        self.node.endpoints = urls
            .iter()
            .map(|(name, url)| {
                Ok(MetricsEndpoint {
                    name: name.clone(),
                    url: url.parse().map_err(|message| ConfigError::Invalid {
                        origin: "demo network".to_owned(),
                        message,
                    })?,
                    token: None,
                })
            })
            .collect::<Result<_, ConfigError>>()?;
        self.node.prometheus = None;
        Ok(())
    }

    /// True when no node at all is configured (the explorer then explains how to configure one
    /// and offers the demo).
    pub fn has_no_nodes(&self) -> bool {
        self.scan_url.is_none() && self.validator_url.is_none() && self.ledger_url.is_none()
    }

    /// Where `read_only` was turned on, for a refusal message: `--read-only`, or the profile
    /// key and its file; `None` when the ledger may be changed.
    pub fn read_only_source(&self) -> Option<String> {
        if !self.read_only {
            return None;
        }
        Some(match self.read_only_origin {
            Origin::Flag => "--read-only".to_owned(),
            Origin::File => {
                let profile = self
                    .profile
                    .as_deref()
                    .map_or_else(String::new, |name| format!(" of profile {name:?}"));
                let file = self
                    .config_path
                    .as_deref()
                    .map_or_else(String::new, |path| format!(" in {}", path.display()));
                format!("read_only = true{profile}{file}")
            }
            Origin::Default | Origin::Env => "read-only settings".to_owned(),
        })
    }
}

/// A config error: bad file, bad value, unknown profile. The CLI exits with code 2 on these.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file could not be read.
    #[error("cannot read config file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The config file is not valid (syntax, unknown key, bad value).
    #[error("{}:{line}:{column}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The requested profile does not exist.
    #[error(
        "unknown profile {name:?} ({}); available profiles: {}",
        source_desc,
        list_or_none(available)
    )]
    UnknownProfile {
        /// The requested name.
        name: String,
        /// Where the name came from and which file was searched.
        source_desc: String,
        /// The defined profiles.
        available: Vec<String>,
    },
    /// A value from the environment, a flag or the file is invalid.
    #[error("{origin}: {message}")]
    Invalid {
        /// Where the value came from (`$CANTONSCOPE_SCAN_URL`, `--refresh`, `profile "x" in …`).
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// The log file could not be opened.
    #[error("cannot open log file {}: {source}", path.display())]
    LogFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

/// A config file that was read: where it is and its text.
#[derive(Clone, Debug)]
pub struct LoadedFile {
    /// The file's path (named in errors).
    pub path: PathBuf,
    /// The file's contents.
    pub text: String,
}

/// Read the config file chosen by `--config`, `$CANTONSCOPE_CONFIG` or the default lookup.
/// A missing file is `Ok(None)` unless it was named explicitly.
pub fn read_config_file(flag: Option<&Path>, env: &Env) -> Result<Option<LoadedFile>, ConfigError> {
    let Some(location) = locate_config(flag, env) else {
        return Ok(None);
    };
    match std::fs::read_to_string(&location.path) {
        Ok(text) => Ok(Some(LoadedFile {
            path: location.path,
            text,
        })),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound && !location.explicit => Ok(None),
        Err(source) => Err(ConfigError::Read {
            path: location.path,
            source,
        }),
    }
}

/// Load the settings for this process: the process environment, the config file it points to,
/// and the given flags.
pub fn load(flags: &Overrides) -> Result<Settings, ConfigError> {
    load_with_env(flags, &process_env())
}

/// [`load`] with an explicit environment (reads the file system, not the process environment).
pub fn load_with_env(flags: &Overrides, env: &Env) -> Result<Settings, ConfigError> {
    let file = read_config_file(flags.config.as_deref(), env)?;
    resolve(file.as_ref(), env, flags)
}
