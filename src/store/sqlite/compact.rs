//! `index compact` on SQLite: the file written again with `VACUUM`. A prune frees pages that
//! SQLite reuses but never gives back (the file keeps its size), and a sync's page splits leave
//! the keys' and terms' pages partly empty; `VACUUM` copies every table and index into a
//! temporary file, each page full and in key order, then writes that copy back over the index
//! in one transaction, through the write-ahead log: readers in other processes go on reading
//! meanwhile, and a failure (a full disk) leaves the index as it was. The copy needs about the
//! bytes the index has in use free where SQLite puts temporary files, and the log as much again
//! beside the index: the room is asked of the disks first, as a migration's is
//! ([`super::migration_room`]), and a compaction that would not fit is refused before it starts.

use std::path::{Path, PathBuf};

use super::migration_room::{dir_of, files_size, free_beside, free_in, in_use};
use super::{SqliteIndex, StoreError, engine_error};
use crate::model::format::human_bytes;
use crate::store::Compacted;

/// Where SQLite puts its temporary files on Unix: the first of `SQLITE_TMPDIR`, `TMPDIR`,
/// `/var/tmp`, `/usr/tmp`, `/tmp` and `.` that is a directory it may write in.
fn temp_dir() -> PathBuf {
    let from_env = ["SQLITE_TMPDIR", "TMPDIR"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from);
    let fixed = ["/var/tmp", "/usr/tmp", "/tmp"].iter().map(PathBuf::from);
    from_env
        .chain(fixed)
        .find(|dir| {
            dir.is_dir()
                && rustix::fs::access(
                    dir,
                    rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK,
                )
                .is_ok()
        })
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Whether two directories are on one disk (one device).
fn same_disk(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev(),
        _ => true,
    }
}

/// Why a compaction of an index with `in_use` bytes in use does not fit: `beside` bytes free
/// on the index's disk (for the log) and `temp` on the temporary files' (for the copy), one
/// disk when `same` (`None`: it fits).
fn refusal(in_use: u64, beside: u64, temp: u64, same: bool) -> Option<String> {
    let shown = |n: u64| human_bytes(i64::try_from(n).unwrap_or(i64::MAX));
    let nothing = "nothing was changed (free some space, or set SQLITE_TMPDIR to a directory on a larger disk for the copy, and run again)";
    if same {
        let needed = in_use.saturating_mul(2);
        return (beside < needed).then(|| {
            format!(
                "compacting the index copies its {} in use into a temporary file and writes them back through its write-ahead log, both on this disk: it needs about {} free and {} are; {nothing}",
                shown(in_use),
                shown(needed),
                shown(beside)
            )
        });
    }
    if temp < in_use {
        return Some(format!(
            "compacting the index copies its {} in use into a temporary file, and the disk of the temporary files has {} free; {nothing}",
            shown(in_use),
            shown(temp)
        ));
    }
    (beside < in_use).then(|| {
        format!(
            "compacting the index writes its {} in use back through its write-ahead log beside it, and that disk has {} free; {nothing}",
            shown(in_use),
            shown(beside)
        )
    })
}

impl SqliteIndex {
    pub(super) fn compact_file(&mut self) -> Result<Compacted, StoreError> {
        let path = self.path.clone();
        let failed = |e: &rusqlite::Error| engine_error(&path, e);
        let bytes_before = files_size(&path);
        let in_use = in_use(&self.conn).map_err(|e| failed(&e))?;
        let temp = temp_dir();
        if let (Some(beside), Some(in_temp)) = (free_beside(&path), free_in(&temp))
            && let Some(detail) = refusal(in_use, beside, in_temp, same_disk(dir_of(&path), &temp))
        {
            return Err(StoreError::Engine {
                path: path.display().to_string(),
                detail,
            });
        }
        // The copy in a temporary file, not in memory (where the writer keeps its statement
        // journals): a copy of a large index in memory could take more than the machine has.
        self.conn
            .pragma_update(None, "temp_store", "FILE")
            .map_err(|e| failed(&e))?;
        let vacuumed = self.conn.execute_batch("VACUUM");
        let restored = self.conn.pragma_update(None, "temp_store", "MEMORY");
        vacuumed.map_err(|e| failed(&e))?;
        restored.map_err(|e| failed(&e))?;
        // The log the copy went through, copied into the file and cut to nothing (a reader
        // still in an older snapshot keeps it for now: the next checkpoint cuts it).
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                r.get::<_, i64>(0)
            })
            .map_err(|e| failed(&e))?;
        Ok(Compacted {
            bytes_before,
            bytes_after: files_size(&path),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compaction_that_would_not_fit_is_refused_with_the_sizes() {
        let gb = 1_000_000_000;
        // One disk: the copy and the log, twice the bytes in use.
        assert_eq!(refusal(10 * gb, 20 * gb, 20 * gb, true), None);
        let said = refusal(10 * gb, 19 * gb, 19 * gb, true).expect("refused");
        assert!(said.contains("its 10.0 GB in use"), "{said}");
        assert!(
            said.contains("about 20.0 GB free and 19.0 GB are"),
            "{said}"
        );
        assert!(said.contains("nothing was changed"), "{said}");
        // Two disks: each needs the bytes in use.
        assert_eq!(refusal(10 * gb, 10 * gb, 10 * gb, false), None);
        let said = refusal(10 * gb, 30 * gb, 9 * gb, false).expect("refused");
        assert!(said.contains("temporary files has 9.00 GB free"), "{said}");
        assert!(said.contains("SQLITE_TMPDIR"), "{said}");
        let said = refusal(10 * gb, 9 * gb, 30 * gb, false).expect("refused");
        assert!(
            said.contains("beside it, and that disk has 9.00 GB free"),
            "{said}"
        );
    }
}
