//! Where the config file and the log file live. Config lookup order: `--config PATH`, then
//! `$CANTONSCOPE_CONFIG`, then `$XDG_CONFIG_HOME/cantonscope/config.toml`, then the platform config
//! dir from `directories`. The log file defaults to `cantonscope.log` in the platform state dir (or
//! the local data dir where there is no state dir).

use std::path::{Path, PathBuf};

use directories::ProjectDirs;

use super::Env;

/// The environment variable naming the config file.
pub const CONFIG_ENV: &str = "CANTONSCOPE_CONFIG";

/// The environment variable naming the data directory (where the last-known scan lists are
/// kept); tests point it at a temporary directory.
pub const DATA_DIR_ENV: &str = "CANTONSCOPE_DATA_DIR";
/// The environment variable naming the local history index (a path or a `postgres://` URL).
pub const INDEX_ENV: &str = "CANTONSCOPE_INDEX";

/// File name of the config file inside a config directory.
pub const CONFIG_FILE_NAME: &str = "config.toml";

/// File name of the default log file.
pub const LOG_FILE_NAME: &str = "cantonscope.log";

/// A config file location and how it was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigLocation {
    /// The path of the config file.
    pub path: PathBuf,
    /// True when the user named this file (`--config` or `$CANTONSCOPE_CONFIG`): then a missing
    /// file is an error. A file found by the default lookup may be absent.
    pub explicit: bool,
}

/// The platform directories of cantonscope, when the platform has a home directory.
pub fn project_dirs() -> Option<ProjectDirs> {
    ProjectDirs::from("", "", "cantonscope")
}

/// Find the config file location from the `--config` flag and the environment. Returns `None`
/// only when no home directory can be determined and nothing was given explicitly.
pub fn locate_config(flag: Option<&Path>, env: &Env) -> Option<ConfigLocation> {
    if let Some(path) = flag {
        return Some(ConfigLocation {
            path: path.to_owned(),
            explicit: true,
        });
    }
    if let Some(path) = env.get(CONFIG_ENV) {
        return Some(ConfigLocation {
            path: PathBuf::from(path),
            explicit: true,
        });
    }
    if let Some(dir) = env.get("XDG_CONFIG_HOME") {
        let dir = Path::new(dir);
        // The XDG spec says relative paths are invalid and must be ignored.
        if dir.is_absolute() {
            return Some(ConfigLocation {
                path: dir.join("cantonscope").join(CONFIG_FILE_NAME),
                explicit: false,
            });
        }
    }
    project_dirs().map(|dirs| ConfigLocation {
        path: dirs.config_dir().join(CONFIG_FILE_NAME),
        explicit: false,
    })
}

/// The user's cantonscope config directory (where theme overrides live):
/// `$XDG_CONFIG_HOME/cantonscope`, else the platform config dir. Reads the process environment.
pub fn config_dir() -> Option<PathBuf> {
    config_dir_with_env(&super::process_env())
}

/// [`config_dir`] with an explicit environment.
pub fn config_dir_with_env(env: &Env) -> Option<PathBuf> {
    env.get("XDG_CONFIG_HOME")
        .map(Path::new)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("cantonscope"))
        .or_else(|| project_dirs().map(|dirs| dirs.config_dir().to_owned()))
}

/// The default log file: `cantonscope.log` in the state dir (Linux) or the local data dir.
pub fn default_log_file() -> Option<PathBuf> {
    project_dirs().map(|dirs| {
        dirs.state_dir()
            .unwrap_or_else(|| dirs.data_local_dir())
            .join(LOG_FILE_NAME)
    })
}

/// The platform data dir (`$XDG_DATA_HOME/cantonscope` on Linux), `None` without a home
/// directory. `$CANTONSCOPE_DATA_DIR` overrides it ([`super::Settings::data_path`]).
pub fn data_dir() -> Option<PathBuf> {
    project_dirs().map(|dirs| dirs.data_dir().to_owned())
}
