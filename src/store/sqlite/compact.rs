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
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Whether two directories are on one disk (one device: two subvolumes of one btrfs or ZFS
/// pool count as two, and the room then asked of each is the copy's or the log's alone).
fn same_disk(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev(),
        _ => true,
    }
}

/// Why a compaction of an index with `in_use` bytes in use does not fit: `beside` bytes free
/// on the index's disk (for the log) and `temp` on the temporary files' (for the copy), one
/// disk when `same` (`None`: it fits). Each needs a tenth more than the bytes in use: a log
/// frame is a page and its header, and the copy's pages are not all full.
fn refusal(in_use: u64, beside: u64, temp: u64, same: bool) -> Option<String> {
    let shown = |n: u64| human_bytes(i64::try_from(n).unwrap_or(i64::MAX));
    let each = in_use.saturating_add(in_use / 10);
    let nothing = "nothing was changed (free some space, or set SQLITE_TMPDIR to a directory on a larger disk for the copy, and run again)";
    if same {
        let needed = each.saturating_mul(2);
        return (beside < needed).then(|| {
            format!(
                "compacting the index copies its {} in use (with a tenth to spare) into a temporary file and writes them back through its write-ahead log, both on this disk: it needs about {} free and {} are; {nothing}",
                shown(in_use),
                shown(needed),
                shown(beside)
            )
        });
    }
    if temp < each {
        return Some(format!(
            "compacting the index copies its {} in use (with a tenth to spare) into a temporary file, and the disk of the temporary files has {} free; {nothing}",
            shown(in_use),
            shown(temp)
        ));
    }
    (beside < each).then(|| {
        format!(
            "compacting the index writes its {} in use (with a tenth to spare) back through its write-ahead log beside it, and that disk has {} free; {nothing}",
            shown(in_use),
            shown(beside)
        )
    })
}

/// How many of SQLite's virtual machine steps run between two looks at the stop flag.
const STEPS_PER_LOOK: i32 = 1_000;

impl SqliteIndex {
    pub(super) fn compact_file(&mut self, stop: &Arc<AtomicBool>) -> Result<Compacted, StoreError> {
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
        // Ctrl-C: VACUUM stops at its next look and rolls back, the index as it was.
        let looked = Arc::clone(stop);
        self.conn
            .progress_handler(STEPS_PER_LOOK, Some(move || looked.load(Ordering::Relaxed)))
            .map_err(|e| failed(&e))?;
        let vacuumed = self.conn.execute_batch("VACUUM");
        let unhooked = self.conn.progress_handler(0, None::<fn() -> bool>);
        let restored = self
            .conn
            .pragma_update(None, "temp_store", "MEMORY")
            .and(unhooked);
        match vacuumed {
            Err(e) if stop.load(Ordering::Relaxed) && is_interrupt(&e) => {
                return Err(StoreError::Interrupted {
                    path: path.display().to_string(),
                    detail: "the compaction was rolled back: the index is as it was".to_owned(),
                });
            }
            Err(e) => {
                return Err(match failed(&e) {
                    StoreError::Full { path, detail } => StoreError::Full {
                        path,
                        detail: format!(
                            "{detail}; the copy is written in {}, the log beside the index",
                            temp.display()
                        ),
                    },
                    other => other,
                });
            }
            Ok(()) => {}
        }
        restored.map_err(|e| failed(&e))?;
        // The log the copy went through, copied into the file and cut to nothing. A reader in
        // an older snapshot keeps the log whole until it ends (then the writer's next
        // checkpoint cuts it to the index's `journal_size_limit`): said with the sizes.
        let log_kept = super::checkpoint::truncate(&self.conn, self.checkpointer.as_ref())
            .map_err(|e| failed(&e))?;
        Ok(Compacted {
            bytes_before,
            bytes_after: files_size(&path),
            log_kept,
        })
    }
}

/// Whether `e` is SQLite's answer to an interrupted statement.
fn is_interrupt(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::OperationInterrupted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compaction_that_would_not_fit_is_refused_with_the_sizes() {
        let gb = 1_000_000_000;
        // One disk: the copy and the log, each the bytes in use and a tenth.
        assert_eq!(refusal(10 * gb, 22 * gb, 22 * gb, true), None);
        let said = refusal(10 * gb, 21 * gb, 21 * gb, true).expect("refused");
        assert!(said.contains("its 10.0 GB in use"), "{said}");
        assert!(
            said.contains("about 22.0 GB free and 21.0 GB are"),
            "{said}"
        );
        assert!(said.contains("nothing was changed"), "{said}");
        // Two disks: each needs the bytes in use and a tenth.
        assert_eq!(refusal(10 * gb, 11 * gb, 11 * gb, false), None);
        let said = refusal(10 * gb, 30 * gb, 10 * gb, false).expect("refused");
        assert!(said.contains("temporary files has 10.0 GB free"), "{said}");
        assert!(said.contains("SQLITE_TMPDIR"), "{said}");
        let said = refusal(10 * gb, 10 * gb, 30 * gb, false).expect("refused");
        assert!(
            said.contains("beside it, and that disk has 10.0 GB free"),
            "{said}"
        );
    }

    #[test]
    fn a_compaction_stopped_rolls_back_and_the_index_is_as_it_was() {
        use crate::store::{IndexReader, IndexWriter};
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("i.sqlite");
        let mut index = SqliteIndex::open(&path, true).expect("open");
        let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
        for first in (0..600).step_by(100) {
            let rows = (first..first + 100)
                .map(|n| super::super::tests::row(&format!("up{n:05}"), n, &format!("p{}", n % 7)))
                .collect();
            index
                .write_page(chunk.id, &super::super::tests::page(rows))
                .expect("page");
        }
        assert!(
            index
                .prune(super::super::tests::at_second(500))
                .expect("pruned")
                > 0
        );
        let kept = index.digests().expect("digests");
        let free = |index: &SqliteIndex| -> i64 {
            index
                .conn
                .query_row("PRAGMA freelist_count", [], |r| r.get(0))
                .expect("pragma")
        };
        let free_before = free(&index);
        assert!(free_before > 0);
        // Ctrl-C before it starts: VACUUM stops at its first look, nothing changed.
        let stopped = index.compact(&Arc::new(AtomicBool::new(true)));
        assert!(
            matches!(&stopped, Err(StoreError::Interrupted { detail, .. }) if detail.contains("as it was")),
            "{stopped:?}"
        );
        assert_eq!(free(&index), free_before);
        assert_eq!(index.digests().expect("digests"), kept);
        // The writer goes on as before (its statement journals in memory again), and a
        // compaction not stopped gives the free pages back.
        let temp_store: i64 = index
            .conn
            .query_row("PRAGMA temp_store", [], |r| r.get(0))
            .expect("pragma");
        assert_eq!(temp_store, 2, "MEMORY");
        let done = index
            .compact(&Arc::new(AtomicBool::new(false)))
            .expect("compacted");
        assert!(done.bytes_after < done.bytes_before, "{done:?}");
        assert!(!done.log_kept);
        assert_eq!(free(&index), 0);
        assert_eq!(index.digests().expect("digests"), kept);
    }
}
