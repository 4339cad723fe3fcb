//! The network's findings kept on disk (`model::findings`): one file per profile and seed scan
//! under the data directory, beside the kept scan list (`network/findings-<profile>-<hash>.json`),
//! so the explorer, `network health`, `check`, the sweep and the index read and write the same
//! findings. Every change reads the file afresh, applies its operations and writes it back
//! (a temporary file renamed over the old one, mode 0600): two processes writing at once lose
//! at most one of their changes, never the file.

use std::path::{Path, PathBuf};

use crate::model::findings::{Applied, FindingOp, FindingsBook};
use crate::model::network::cache_file_name;

/// The file of this profile's and seed scan's findings under `dir`.
pub fn findings_path(dir: &Path, profile: Option<&str>, seed: &str) -> PathBuf {
    let name = cache_file_name(profile, seed);
    let name = name.strip_prefix("scans-").unwrap_or(&name);
    dir.join("network").join(format!("findings-{name}"))
}

/// The findings file of `settings` under `data_dir` (the profile and its first scan, as the
/// kept scan list is named); `None` without a data directory or a scan.
pub fn settings_path(
    settings: &crate::config::Settings,
    data_dir: Option<&Path>,
) -> Option<PathBuf> {
    let seed = settings
        .scan_url
        .as_ref()
        .or_else(|| settings.extra_scan_urls.first())
        .map(|u| u.as_str().to_owned())?;
    Some(findings_path(data_dir?, settings.profile.as_deref(), &seed))
}

/// Reads the kept findings (an empty book when there is no file or it is not ours).
pub fn read(path: &Path) -> FindingsBook {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| FindingsBook::from_json(&text))
        .unwrap_or_default()
}

/// Applies `ops` at `now` (µs) to the kept findings and writes them back when they changed;
/// the book after, and what changed.
pub fn update(
    path: &Path,
    ops: &[FindingOp],
    now: i64,
) -> std::io::Result<(FindingsBook, Applied)> {
    let mut book = read(path);
    let applied = book.apply(ops, now);
    if applied.changed {
        write(path, &book)?;
    }
    Ok((book, applied))
}

/// Writes `book` to `path` (a temporary file renamed over the old one).
pub fn write(path: &Path, book: &FindingsBook) -> std::io::Result<()> {
    crate::config::state::write_atomically(path, book.to_json().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::findings::{FindingKind, FoundBy};

    #[test]
    fn findings_are_kept_per_network_and_read_back() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = findings_path(dir.path(), Some("main"), "https://scan.example");
        assert_ne!(
            path,
            findings_path(dir.path(), Some("main"), "https://other.example")
        );
        assert!(read(&path).findings.is_empty());
        let op = FindingOp::open(
            FindingKind::Forked,
            ("https://s5.example", "SV-5"),
            FoundBy::HeadCheck,
            "differs",
        );
        let (book, applied) = update(&path, &[op], 10).expect("written");
        assert_eq!(applied.opened.len(), 1);
        assert_eq!(read(&path), book);
    }
}
