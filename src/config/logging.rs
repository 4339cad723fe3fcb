//! Logging setup: `tracing` events go to the log file only (`--log-file`, `log_file`, or
//! `cantonscope.log` in the platform state dir), never to the terminal, so the TUI's screen and
//! the headless commands' stdout/stderr stay clean.

use std::fs::{File, OpenOptions};
use std::path::PathBuf;
use std::sync::Arc;

use tracing_subscriber::EnvFilter;

use super::{ConfigError, Settings};

/// The outcome of [`init_logging`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogTarget {
    /// Logs are appended to this file.
    File(PathBuf),
    /// No log file could be determined or opened at the default location: logging is off.
    Disabled,
    /// A global subscriber was already installed (a second call in the same process).
    AlreadyInitialised,
}

/// Open the log file for appending, creating its directory.
fn open_log_file(path: &PathBuf) -> std::io::Result<File> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)?;
    }
    OpenOptions::new().create(true).append(true).open(path)
}

/// Install the global `tracing` subscriber writing to the settings' log file at the settings'
/// level. A log file the user named that cannot be opened is an error; when the default location
/// cannot be used, logging is quietly off (a read-only home must not break the program).
pub fn init_logging(settings: &Settings) -> Result<LogTarget, ConfigError> {
    let (path, explicit) = match &settings.log_file {
        Some(path) => (path.clone(), true),
        None => match super::default_log_file() {
            Some(path) => (path, false),
            None => return Ok(LogTarget::Disabled),
        },
    };
    let file = match open_log_file(&path) {
        Ok(file) => file,
        Err(source) if explicit => return Err(ConfigError::LogFile { path, source }),
        Err(_) => return Ok(LogTarget::Disabled),
    };
    let filter = EnvFilter::builder()
        .parse(&settings.log_level)
        .map_err(|err| ConfigError::Invalid {
            origin: "log_level".to_owned(),
            message: err.to_string(),
        })?;
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(Arc::new(file))
        .with_ansi(false)
        .with_target(true)
        .finish();
    match tracing::subscriber::set_global_default(subscriber) {
        Ok(()) => Ok(LogTarget::File(path)),
        Err(_) => Ok(LogTarget::AlreadyInitialised),
    }
}
