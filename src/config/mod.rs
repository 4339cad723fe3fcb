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
pub mod values;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::api::{Secret, TokenSource};
use crate::feed::dashboard::LagThresholds;
use crate::model::network::{HealthThresholds, ScanSelection};
pub use file::{ConfigFile, KeySpecs, NetworkScans, ProfileFile, parse_config};
pub use logging::init_logging;
pub use paths::{ConfigLocation, default_log_file, locate_config};

pub use values::{BaseUrl, HistoryStart, TimeZone, format_duration, parse_duration, parse_refresh};

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
    /// True when delete-user and execute are disabled.
    pub read_only: bool,
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
}

impl Default for NetworkSettings {
    fn default() -> Self {
        NetworkSettings {
            scans: ScanSelection::All,
            request_rate: DEFAULT_SCAN_REQUEST_RATE,
            thresholds: HealthThresholds::default(),
            lag: LagThresholds::default(),
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
            time_zone: TimeZone::Utc,
            from: HistoryStart::Recent,
            keys: BTreeMap::new(),
            log_file: None,
            log_level: DEFAULT_LOG_LEVEL.to_owned(),
            data_dir: None,
            max_response_mib: DEFAULT_MAX_RESPONSE_MIB,
            history_memory_mib: crate::feed::loader::DEFAULT_MEMORY_MIB,
            network: NetworkSettings::default(),
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

    /// True when no node at all is configured (the explorer then explains how to configure one
    /// and offers the demo).
    pub fn has_no_nodes(&self) -> bool {
        self.scan_url.is_none() && self.validator_url.is_none() && self.ledger_url.is_none()
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

fn env_value<'a>(env: &'a Env, name: &str) -> Option<&'a str> {
    env.get(name)
        .map(String::as_str)
        .filter(|value| !value.is_empty())
}

fn env_url(env: &Env, name: &str) -> Result<Option<BaseUrl>, ConfigError> {
    env_value(env, name)
        .map(|text| {
            text.parse().map_err(|message| ConfigError::Invalid {
                origin: format!("${name}"),
                message,
            })
        })
        .transpose()
}

/// Choose the profile: `--profile`, else `default_profile`, else the only profile, else one named
/// `default`, else none.
fn select_profile<'a>(
    file: Option<(&Path, &'a ConfigFile)>,
    flags: &Overrides,
) -> Result<Option<(String, &'a ProfileFile)>, ConfigError> {
    let available: Vec<String> = file
        .map(|(_, config)| config.profiles.keys().cloned().collect())
        .unwrap_or_default();
    let file_desc = file.map_or_else(
        || "no config file was found".to_owned(),
        |(path, _)| format!("in {}", path.display()),
    );
    let requested = match (&flags.profile, file) {
        (Some(name), _) => Some((name.clone(), format!("--profile, {file_desc}"))),
        (None, Some((_, config))) => config
            .default_profile
            .clone()
            .map(|name| (name, format!("default_profile {file_desc}"))),
        (None, None) => None,
    };
    match requested {
        Some((name, source_desc)) => {
            let profile = file.and_then(|(_, config)| config.profiles.get(&name));
            match profile {
                Some(profile) => Ok(Some((name, profile))),
                None => Err(ConfigError::UnknownProfile {
                    name,
                    source_desc,
                    available,
                }),
            }
        }
        None => {
            let Some((_, config)) = file else {
                return Ok(None);
            };
            if config.profiles.len() == 1 {
                Ok(config
                    .profiles
                    .iter()
                    .next()
                    .map(|(name, profile)| (name.clone(), profile)))
            } else {
                Ok(config
                    .profiles
                    .get_key_value("default")
                    .map(|(name, profile)| (name.clone(), profile)))
            }
        }
    }
}

/// The layering, as a pure function: defaults ← `file` (the selected profile) ← `env` ← `flags`.
///
/// `NO_COLOR` picks the `mono` theme only when neither the file nor a flag names a theme.
pub fn resolve(
    file: Option<&LoadedFile>,
    env: &Env,
    flags: &Overrides,
) -> Result<Settings, ConfigError> {
    let parsed = file
        .map(|loaded| parse_config(&loaded.path, &loaded.text).map(|config| (loaded, config)))
        .transpose()?;
    let parsed_ref = parsed
        .as_ref()
        .map(|(loaded, config)| (loaded.path.as_path(), config));
    let selected = select_profile(parsed_ref, flags)?;
    let empty = ProfileFile::default();
    let (profile_name, profile) = match &selected {
        Some((name, profile)) => (Some(name.clone()), *profile),
        None => (None, &empty),
    };
    // An invalid value of the selected profile: named with the file, line and column.
    let profile_error = |key: &str, message: String| match (&profile_name, file) {
        (Some(name), Some(loaded)) => {
            let (line, column) =
                file::key_path_position(&loaded.text, &["profiles", name.as_str(), key])
                    .unwrap_or((1, 1));
            ConfigError::Parse {
                path: loaded.path.clone(),
                line,
                column,
                message: format!("{key} of profile {name:?}: {message}"),
            }
        }
        _ => ConfigError::Invalid {
            origin: key.to_owned(),
            message,
        },
    };

    let mut settings = Settings {
        config_path: file.map(|loaded| loaded.path.clone()),
        profile: profile_name.clone(),
        embedded_demo: false,
        profiles: parsed_ref
            .map(|(_, config)| config.profiles.keys().cloned().collect())
            .unwrap_or_default(),
        ..Settings::default()
    };

    // URLs: file ← env ← flag.
    settings.scan_url = flags
        .scan_url
        .clone()
        .or(env_url(env, SCAN_URL_ENV)?)
        .or_else(|| profile.scan_url.clone());
    settings.validator_url = flags
        .validator_url
        .clone()
        .or(env_url(env, VALIDATOR_URL_ENV)?)
        .or_else(|| profile.validator_url.clone());
    settings.ledger_url = flags
        .ledger_url
        .clone()
        .or(env_url(env, LEDGER_URL_ENV)?)
        .or_else(|| profile.ledger_url.clone());
    settings.extra_scan_urls = profile
        .scan_urls
        .iter()
        .flatten()
        .filter(|url| Some(*url) != settings.scan_url.as_ref())
        .fold(Vec::new(), |mut acc: Vec<BaseUrl>, url| {
            if !acc.contains(url) {
                acc.push(url.clone());
            }
            acc
        });

    // Token: file (token_file or token_command) ← $CANTONSCOPE_TOKEN ← --token-file.
    let (token, token_origin) = if let Some(path) = &flags.token_file {
        (Some(TokenSource::File(path.clone())), Origin::Flag)
    } else if let Some(token) = env_value(env, TOKEN_ENV) {
        (Some(TokenSource::Literal(Secret::new(token))), Origin::Env)
    } else {
        match (&profile.token_file, &profile.token_command) {
            (Some(_), Some(_)) => {
                return Err(profile_error(
                    "token_command",
                    "set only one of token_file and token_command".to_owned(),
                ));
            }
            (Some(path), None) => (
                Some(TokenSource::File(resolve_relative(path, file))),
                Origin::File,
            ),
            (None, Some(command)) if command.trim().is_empty() => {
                return Err(profile_error("token_command", "empty command".to_owned()));
            }
            (None, Some(command)) => (Some(TokenSource::Command(command.clone())), Origin::File),
            (None, None) => (None, Origin::Default),
        }
    };
    settings.token = token;
    settings.token_origin = token_origin;

    // Refresh interval.
    let too_short = |refresh: Duration| {
        format!(
            "refresh interval {} is too short (at least {})",
            format_duration(refresh),
            format_duration(MIN_REFRESH)
        )
    };
    settings.refresh = match (flags.refresh, profile.refresh) {
        (Some(refresh), _) if refresh < MIN_REFRESH => {
            return Err(ConfigError::Invalid {
                origin: "--refresh".to_owned(),
                message: too_short(refresh),
            });
        }
        (None, Some(refresh)) if refresh < MIN_REFRESH => {
            return Err(profile_error("refresh", too_short(refresh)));
        }
        (Some(refresh), _) | (None, Some(refresh)) => refresh,
        (None, None) => DEFAULT_REFRESH,
    };

    // Theme: default ← NO_COLOR ← file ← flag.
    settings.theme = flags
        .theme
        .clone()
        .or_else(|| profile.theme.clone())
        .or_else(|| env_value(env, "NO_COLOR").map(|_| NO_COLOR_THEME.to_owned()))
        .unwrap_or_else(|| DEFAULT_THEME.to_owned());
    if settings.theme.trim().is_empty() {
        let message = "empty theme name".to_owned();
        return Err(if flags.theme.is_some() {
            ConfigError::Invalid {
                origin: "--theme".to_owned(),
                message,
            }
        } else {
            profile_error("theme", message)
        });
    }

    // Response size cap: default ← file ← env ← flag.
    let out_of_range = |value: &dyn std::fmt::Display| {
        format!(
            "{value} is not a size in MiB between {} and {}",
            MAX_RESPONSE_MIB_RANGE.start(),
            MAX_RESPONSE_MIB_RANGE.end()
        )
    };
    let in_range = |value: i64| {
        u32::try_from(value)
            .ok()
            .filter(|mib| MAX_RESPONSE_MIB_RANGE.contains(mib))
    };
    settings.max_response_mib = if let Some(mib) = flags.max_response_mib {
        if !MAX_RESPONSE_MIB_RANGE.contains(&mib) {
            return Err(ConfigError::Invalid {
                origin: "--max-response-mib".to_owned(),
                message: out_of_range(&mib),
            });
        }
        mib
    } else if let Some(text) = env_value(env, MAX_RESPONSE_MIB_ENV) {
        text.trim()
            .parse::<i64>()
            .ok()
            .and_then(in_range)
            .ok_or_else(|| ConfigError::Invalid {
                origin: format!("${MAX_RESPONSE_MIB_ENV}"),
                message: out_of_range(&text),
            })?
    } else if let Some(value) = profile.max_response_mib {
        in_range(value).ok_or_else(|| profile_error("max_response_mib", out_of_range(&value)))?
    } else {
        DEFAULT_MAX_RESPONSE_MIB
    };

    settings.history_memory_mib = match profile.history_memory_mib {
        Some(value) => u32::try_from(value)
            .ok()
            .filter(|mib| (1..=1 << 20).contains(mib))
            .ok_or_else(|| {
                profile_error(
                    "history_memory_mib",
                    format!("{value} is out of range (1 to 1048576 MiB)"),
                )
            })?,
        None => crate::feed::loader::DEFAULT_MEMORY_MIB,
    };

    settings.network = network_settings(profile, &profile_error)?;
    settings.data_dir = env_value(env, paths::DATA_DIR_ENV).map(PathBuf::from);
    settings.read_only = flags.read_only || profile.read_only.unwrap_or(false);
    settings.time_zone = profile.time_zone.unwrap_or_default();
    settings.from = flags.from.or(profile.from).unwrap_or_default();

    if let Some((path, config)) = parsed_ref {
        check_keys(path, file, &config.keys)?;
        settings.keys = config.keys.clone();
        settings.log_level = match &config.log_level {
            Some(level) => values::validate_log_level(level).map_err(|message| {
                let text = file.map_or("", |loaded| loaded.text.as_str());
                let (line, column) =
                    file::key_path_position(text, &["log_level"]).unwrap_or((1, 1));
                ConfigError::Parse {
                    path: path.to_owned(),
                    line,
                    column,
                    message: format!("log_level: {message}"),
                }
            })?,
            None => DEFAULT_LOG_LEVEL.to_owned(),
        };
        settings.log_file = config
            .log_file
            .as_ref()
            .map(|path| resolve_relative(path, file));
    }
    if let Some(path) = &flags.log_file {
        settings.log_file = Some(path.clone());
    }
    Ok(settings)
}

/// The network keys of a profile, checked (`profile_error` names the file, line and key).
fn network_settings(
    profile: &ProfileFile,
    profile_error: &dyn Fn(&str, String) -> ConfigError,
) -> Result<NetworkSettings, ConfigError> {
    let mut network = NetworkSettings::default();
    match &profile.network_scans {
        None => {}
        Some(NetworkScans::Word(word)) if word.trim().eq_ignore_ascii_case("all") => {}
        Some(NetworkScans::Word(word)) => {
            return Err(profile_error(
                "network_scans",
                format!("expected \"all\" or a list of SV names, got {word:?}"),
            ));
        }
        Some(NetworkScans::Names(names)) => {
            let names: Vec<String> = names
                .iter()
                .map(|n| n.trim().to_owned())
                .filter(|n| !n.is_empty())
                .collect();
            if names.is_empty() {
                return Err(profile_error(
                    "network_scans",
                    "the list of SV names is empty (use \"all\" for every scan)".to_owned(),
                ));
            }
            network.scans = ScanSelection::Names(names);
        }
    }
    if let Some(rate) = profile.scan_request_rate {
        if !(rate.is_finite() && rate > 0.0 && rate <= MAX_SCAN_REQUEST_RATE) {
            return Err(profile_error(
                "scan_request_rate",
                format!(
                    "expected requests per second above 0 and at most {MAX_SCAN_REQUEST_RATE}, \
                     got {rate}"
                ),
            ));
        }
        network.request_rate = rate;
    }
    let positive = |key: &str, value: Option<Duration>, default: Duration| match value {
        Some(d) if d.is_zero() => Err(profile_error(key, "must be longer than 0s".to_owned())),
        Some(d) => Ok(d),
        None => Ok(default),
    };
    let defaults = HealthThresholds::default();
    network.thresholds = HealthThresholds {
        max_round_age: positive(
            "max_round_age",
            profile.max_round_age,
            defaults.max_round_age,
        )?,
        max_update_age: positive(
            "max_update_age",
            profile.max_update_age,
            defaults.max_update_age,
        )?,
        max_lag: positive("max_lag", profile.max_lag, defaults.max_lag)?,
    };
    let micros = |d: Duration| i64::try_from(d.as_micros()).unwrap_or(i64::MAX);
    let lag_defaults = LagThresholds::default();
    let warn = positive(
        "lag_warn",
        profile.lag_warn,
        Duration::from_micros(lag_defaults.warn.unsigned_abs()),
    )?;
    let error = positive(
        "lag_error",
        profile.lag_error,
        Duration::from_micros(lag_defaults.error.unsigned_abs()),
    )?;
    if warn > error {
        return Err(profile_error(
            "lag_warn",
            format!(
                "must not be longer than lag_error ({}s > {}s)",
                warn.as_secs(),
                error.as_secs()
            ),
        ));
    }
    network.lag = LagThresholds {
        warn: micros(warn),
        error: micros(error),
    };
    Ok(network)
}

/// Check the `[keys]` table with the keymap's own parser so a bad key or command name is a load
/// error naming the file and the line of the offending entry.
fn check_keys(
    path: &Path,
    file: Option<&LoadedFile>,
    keys: &BTreeMap<String, KeySpecs>,
) -> Result<(), ConfigError> {
    if keys.is_empty() {
        return Ok(());
    }
    let text = file.map_or("", |loaded| loaded.text.as_str());
    for (name, specs) in keys {
        let single = BTreeMap::from([(name.clone(), specs.clone())]);
        if let Err(err) = keymap::parse_key_overrides(&single) {
            let (line, column) = file::key_path_position(text, &["keys", name]).unwrap_or((1, 1));
            return Err(ConfigError::Parse {
                path: path.to_owned(),
                line,
                column,
                message: err.to_string(),
            });
        }
    }
    if let Err(err) = keymap::KeyMap::from_config(keys) {
        // At the entry of the command that shadows, when that is the error.
        let entry = match &err {
            keymap::KeymapError::Shadows { by, .. } => keys
                .keys()
                .find(|k| k.rsplit('.').next() == Some(by.name())),
            _ => None,
        };
        let position = match entry {
            Some(name) => file::key_path_position(text, &["keys", name]),
            None => None,
        };
        let (line, column) = position
            .or_else(|| file::key_path_position(text, &["keys"]))
            .unwrap_or((1, 1));
        return Err(ConfigError::Parse {
            path: path.to_owned(),
            line,
            column,
            message: err.to_string(),
        });
    }
    Ok(())
}

/// Paths in the config file are relative to the file's directory; `~/` means the home directory.
fn resolve_relative(path: &Path, file: Option<&LoadedFile>) -> PathBuf {
    if let Ok(rest) = path.strip_prefix("~")
        && let Some(home) = directories::BaseDirs::new()
    {
        return home.home_dir().join(rest);
    }
    if path.is_absolute() {
        return path.to_owned();
    }
    match file.and_then(|loaded| loaded.path.parent()) {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(path),
        _ => path.to_owned(),
    }
}
