//! The layering as a pure function ([`resolve`]): defaults ← the selected profile of the file
//! ← environment ← command-line flags, each value checked where it comes from (file values are
//! reported with their file, line and column).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{
    BaseUrl, ConfigError, ConfigFile, DEFAULT_LOG_LEVEL, DEFAULT_MAX_RESPONSE_MIB, DEFAULT_REFRESH,
    DEFAULT_THEME, Env, GOVERNANCE_INTERVAL_RANGE, KeySpecs, LEDGER_URL_ENV, LoadedFile,
    MAX_RESPONSE_MIB_ENV, MAX_RESPONSE_MIB_RANGE, MAX_SCAN_REQUEST_RATE, MIN_METRICS_REFRESH,
    MIN_NETWORK_HEALTH_INTERVAL, MIN_REFRESH, MetricsEndpoint, NO_COLOR_THEME, NetworkScans,
    NetworkSettings, NodeSettings, Origin, Overrides, ProfileFile, SCAN_URL_ENV, Settings,
    TOKEN_ENV, VALIDATOR_URL_ENV, file, format_duration, keymap, parse_config, paths, values,
};
use crate::api::{Secret, TokenSource};
use crate::feed::dashboard::{LagThresholds, TrafficThresholds};
use crate::model::network::{HealthThresholds, ScanSelection};

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
    if let Some((name, source_desc)) = requested {
        let profile = file.and_then(|(_, config)| config.profiles.get(&name));
        match profile {
            Some(profile) => Ok(Some((name, profile))),
            None => Err(ConfigError::UnknownProfile {
                name,
                source_desc,
                available,
            }),
        }
    } else {
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
    let url = |flag: &Option<BaseUrl>, name: &str, in_file: &Option<BaseUrl>| {
        // The environment is checked even when a flag wins: a bad value is never silent.
        let from_env = env_url(env, name)?;
        Ok::<_, ConfigError>(flag.clone().or(from_env).or_else(|| in_file.clone()))
    };
    settings.scan_url = url(&flags.scan_url, SCAN_URL_ENV, &profile.scan_url)?;
    settings.validator_url = url(
        &flags.validator_url,
        VALIDATOR_URL_ENV,
        &profile.validator_url,
    )?;
    settings.ledger_url = url(&flags.ledger_url, LEDGER_URL_ENV, &profile.ledger_url)?;
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
    settings.node = node_settings(profile, file, &settings.network, &profile_error)?;
    settings.sv = match profile.sv.as_deref().map(str::trim) {
        None => None,
        Some("") => {
            return Err(profile_error(
                "sv",
                "expected an SV name or party id, got an empty text".to_owned(),
            ));
        }
        Some(sv) => Some(sv.to_owned()),
    };
    settings.data_dir = env_value(env, paths::DATA_DIR_ENV).map(PathBuf::from);
    settings.index = match (env_value(env, paths::INDEX_ENV), profile.index.as_deref()) {
        (Some(named), _) => {
            Some(
                values::index_location(named).map_err(|message| ConfigError::Invalid {
                    origin: format!("${}", paths::INDEX_ENV),
                    message,
                })?,
            )
        }
        (None, Some(named)) if named.trim().is_empty() => {
            return Err(profile_error(
                "index",
                "expected a file path or a postgres:// URL, got an empty text".to_owned(),
            ));
        }
        (None, Some(named)) if named.contains("://") => Some(named.to_owned()),
        (None, Some(named)) => Some(
            values::index_location(&resolve_relative(Path::new(named), file).to_string_lossy())
                .map_err(|message| profile_error("index", message))?,
        ),
        (None, None) => None,
    };
    settings.export_dir = match profile.export_dir.as_deref() {
        Some(dir) if dir.as_os_str().is_empty() => {
            return Err(profile_error(
                "export_dir",
                "expected a folder, got an empty text".to_owned(),
            ));
        }
        Some(dir) => Some(resolve_relative(dir, file)),
        None => None,
    };
    settings.read_only = flags.read_only || profile.read_only.unwrap_or(false);
    settings.read_only_origin = if flags.read_only {
        Origin::Flag
    } else if settings.read_only {
        Origin::File
    } else {
        Origin::Default
    };
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
    let defaults = TrafficThresholds::default();
    let percent = |key: &str, value: Option<i64>, default: u32| match value {
        None => Ok(default),
        Some(p) => u32::try_from(p)
            .ok()
            .filter(|p| (1..100).contains(p))
            .ok_or_else(|| {
                profile_error(key, format!("expected a percentage from 1 to 99, got {p}"))
            }),
    };
    let warn = percent(
        "traffic_warn_percent",
        profile.traffic_warn_percent,
        defaults.warn,
    )?;
    let error = percent(
        "traffic_error_percent",
        profile.traffic_error_percent,
        defaults.error,
    )?;
    if error > warn {
        return Err(profile_error(
            "traffic_error_percent",
            format!("must not be above traffic_warn_percent ({error} > {warn})"),
        ));
    }
    network.traffic = TrafficThresholds { warn, error };
    if let Some(interval) = profile.network_health_interval {
        if interval < MIN_NETWORK_HEALTH_INTERVAL {
            return Err(profile_error(
                "network_health_interval",
                format!(
                    "{} is too short (at least {})",
                    format_duration(interval),
                    format_duration(MIN_NETWORK_HEALTH_INTERVAL)
                ),
            ));
        }
        network.health_interval = interval;
    }
    if let Some(every) = profile.fork_check {
        if !every.is_zero() && every < MIN_NETWORK_HEALTH_INTERVAL {
            return Err(profile_error(
                "fork_check",
                format!(
                    "{} is too short (at least {}, or 0s to turn the head check off)",
                    format_duration(every),
                    format_duration(MIN_NETWORK_HEALTH_INTERVAL)
                ),
            ));
        }
        network.fork_check = every;
    }
    network.notify = profile.notify.unwrap_or_default();
    if let Some(interval) = profile.governance_interval {
        if !GOVERNANCE_INTERVAL_RANGE.contains(&interval) {
            return Err(profile_error(
                "governance_interval",
                format!(
                    "{} is out of range ({} to {})",
                    format_duration(interval),
                    format_duration(*GOVERNANCE_INTERVAL_RANGE.start()),
                    format_duration(*GOVERNANCE_INTERVAL_RANGE.end())
                ),
            ));
        }
        network.governance_interval = interval;
    }
    Ok(network)
}

/// The My node keys of a profile (`metrics`, `metrics_refresh`, `prometheus`, `[alerts]`),
/// checked.
fn node_settings(
    profile: &ProfileFile,
    file: Option<&LoadedFile>,
    network: &NetworkSettings,
    profile_error: &dyn Fn(&str, String) -> ConfigError,
) -> Result<NodeSettings, ConfigError> {
    let mut node = NodeSettings::default();
    for entry in profile.metrics.iter().flatten() {
        let name = entry.name.trim();
        if name.is_empty() {
            return Err(profile_error(
                "metrics",
                "an endpoint has an empty name".to_owned(),
            ));
        }
        if node.endpoints.iter().any(|e| e.name == name) {
            return Err(profile_error(
                "metrics",
                format!("two endpoints are named {name:?}"),
            ));
        }
        node.endpoints.push(MetricsEndpoint {
            name: name.to_owned(),
            url: entry.url.clone(),
            token: entry
                .token_file
                .as_ref()
                .map(|path| TokenSource::File(resolve_relative(path, file))),
        });
    }
    if let Some(refresh) = profile.metrics_refresh {
        if refresh < MIN_METRICS_REFRESH {
            return Err(profile_error(
                "metrics_refresh",
                format!(
                    "{} is too short (at least {})",
                    format_duration(refresh),
                    format_duration(MIN_METRICS_REFRESH)
                ),
            ));
        }
        node.refresh = refresh;
    }
    node.prometheus.clone_from(&profile.prometheus);
    node.rules.traffic_warn_percent = network.traffic.warn;
    node.rules.traffic_error_percent = network.traffic.error;
    let Some(alerts) = &profile.alerts else {
        return Ok(node);
    };
    let rules = &mut node.rules;
    let micros = |d: Duration| i64::try_from(d.as_micros()).unwrap_or(i64::MAX / 4);
    let durations: [(&str, Option<Duration>, &mut i64, bool); 12] = [
        (
            "sequencer_client_delay",
            alerts.sequencer_client_delay,
            &mut rules.sequencer_delay_us,
            false,
        ),
        (
            "sequencer_client_delay_for",
            alerts.sequencer_client_delay_for,
            &mut rules.sequencer_delay_for_us,
            true,
        ),
        (
            "mediator_ack_lag",
            alerts.mediator_ack_lag,
            &mut rules.mediator_lag_us,
            false,
        ),
        (
            "mediator_ack_lag_for",
            alerts.mediator_ack_lag_for,
            &mut rules.mediator_lag_for_us,
            true,
        ),
        (
            "rounds_not_advancing",
            alerts.rounds_not_advancing,
            &mut rules.rounds_window_us,
            false,
        ),
        (
            "status_report_age",
            alerts.status_report_age,
            &mut rules.status_report_age_us,
            false,
        ),
        (
            "scan_disagreement_window",
            alerts.scan_disagreement_window,
            &mut rules.disagreement_window_us,
            false,
        ),
        (
            "missed_confirmations_window",
            alerts.missed_confirmations_window,
            &mut rules.missed_confirmations_window_us,
            false,
        ),
        (
            "ingestion_lag",
            alerts.ingestion_lag,
            &mut rules.ingestion_lag_us,
            false,
        ),
        (
            "automation_failures_window",
            alerts.automation_failures_window,
            &mut rules.automation_failures_window_us,
            false,
        ),
        (
            "acs_commitments",
            alerts.acs_commitments,
            &mut rules.acs_commitment_age_us,
            false,
        ),
        (
            "ordering_layer",
            alerts.ordering_layer,
            &mut rules.ordering_window_us,
            false,
        ),
    ];
    for (key, value, slot, zero_ok) in durations {
        let Some(value) = value else { continue };
        if value.is_zero() && !zero_ok {
            return Err(profile_error(
                "alerts",
                format!("{key} must be longer than 0s"),
            ));
        }
        if value > Duration::from_secs(30 * 86_400) {
            return Err(profile_error(
                "alerts",
                format!("{key} must be at most 30 days"),
            ));
        }
        *slot = micros(value);
    }
    if let Some(percent) = alerts.scan_disagreement_percent {
        if !(percent.is_finite() && percent > 0.0 && percent < 100.0) {
            return Err(profile_error(
                "alerts",
                format!("scan_disagreement_percent must be above 0 and below 100, got {percent}"),
            ));
        }
        rules.disagreement_percent = percent;
    }
    Ok(node)
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
