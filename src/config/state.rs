//! What the explorer keeps per profile between runs, apart from the user's config file (which
//! it never rewrites): the format of the last export. One small JSON file a profile,
//! `<data dir>/state/<profile>.json`, replaced whole (a temporary file renamed over it, mode
//! 0600). A missing or unreadable file is the state of a first run.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::export::ExportFormat;

/// A profile's kept state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileState {
    /// The format of the last export (`e` or `X`): `jsonl` or `csv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    export_format: Option<String>,
}

impl ProfileState {
    /// The format of the last export, if one was made.
    pub fn export_format(&self) -> Option<ExportFormat> {
        [ExportFormat::JsonLines, ExportFormat::Csv]
            .into_iter()
            .find(|f| self.export_format.as_deref() == Some(f.extension()))
    }

    /// Keeps `format` as the last export's; whether that changed the state.
    pub fn set_export_format(&mut self, format: ExportFormat) -> bool {
        let changed = self.export_format() != Some(format);
        self.export_format = Some(format.extension().to_owned());
        changed
    }

    /// The file's contents.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(self).unwrap_or_default()
    }

    /// Reads the state kept at `path` (the default state when there is none, or it is not ours).
    pub fn read(path: &Path) -> ProfileState {
        std::fs::read(path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }
}

/// The state file of `profile` under the data directory `data_dir`.
pub fn state_path(data_dir: &Path, profile: Option<&str>) -> PathBuf {
    data_dir.join("state").join(format!(
        "{}.json",
        crate::model::network::file_stem(profile)
    ))
}

/// Writes `contents` to `path`, its folder made: a temporary file (mode 0600) renamed over the
/// old one, so a reader never sees half a file and two writers lose at most one change.
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        let mut file = options.open(&tmp)?;
        file.write_all(contents)?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_export_format_is_kept_per_profile_and_read_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let main = state_path(dir.path(), Some("main net"));
        let other = state_path(dir.path(), Some("test"));
        assert_ne!(main, other);
        assert_eq!(ProfileState::read(&main).export_format(), None);
        let mut state = ProfileState::default();
        assert!(state.set_export_format(ExportFormat::Csv));
        assert!(!state.set_export_format(ExportFormat::Csv));
        write_atomically(&main, &state.to_bytes()).expect("written");
        assert_eq!(
            ProfileState::read(&main).export_format(),
            Some(ExportFormat::Csv)
        );
        assert_eq!(ProfileState::read(&other).export_format(), None);
        // A damaged file is a first run's state.
        std::fs::write(&main, b"{not json").expect("written");
        assert_eq!(ProfileState::read(&main), ProfileState::default());
    }
}
