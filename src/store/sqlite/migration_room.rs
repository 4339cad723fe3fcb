//! Room on disk for a migration. Every migration from before schema 18 ends with the 17 → 18
//! step ([`super::record_times`]), which writes every page of the updates, their keys and their
//! terms once more, through the write-ahead log beside the index, in one transaction: the log
//! grows to about the size the index has in use (11.5 GB for the 12.5 GB of the 10 M bench
//! index) before it is copied into the file. A disk that fills meanwhile fails the migration
//! after it has run for long (an hour at MainNet's size) and rolls it back for as long; so the
//! room is asked of the disk first, and a migration that would not fit is refused before it
//! starts, with the sizes, the index untouched. The 18 → 19 step alone rewrites only the
//! party sets ([`super::party_names`], a few hundredths of the index), and is not held back.

use std::path::Path;

use rusqlite::Connection;

use crate::model::format::human_bytes;

/// The bytes the index on `conn` has in use: its pages but the free ones.
pub(super) fn in_use(conn: &Connection) -> rusqlite::Result<u64> {
    let pragma = |name: &str| -> rusqlite::Result<u64> {
        conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0))
            .map(|n| u64::try_from(n).unwrap_or(0))
    };
    let pages = pragma("page_count")?.saturating_sub(pragma("freelist_count")?);
    Ok(pages.saturating_mul(pragma("page_size")?))
}

/// The directory that holds `path`.
pub(super) fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The bytes free to an unprivileged writer on the disk that holds `path` (`None`: the system
/// does not say; the migration is not held back then).
pub(super) fn free_beside(path: &Path) -> Option<u64> {
    free_in(dir_of(path))
}

/// The bytes free to an unprivileged writer on the disk that holds the directory `dir`.
pub(super) fn free_in(dir: &Path) -> Option<u64> {
    let stat = rustix::fs::statvfs(dir).ok()?;
    Some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// The bytes the index at `path` takes on disk: its file, its write-ahead log and the log's
/// index (`index status`' size).
pub(super) fn files_size(path: &Path) -> u64 {
    ["", "-wal", "-shm"]
        .iter()
        .filter_map(|suffix| {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            std::fs::metadata(std::path::PathBuf::from(name)).ok()
        })
        .map(|m| m.len())
        .sum()
}

/// Why a migration from schema `found` of an index with `in_use` bytes in use does not fit in
/// `free` bytes (`None`: it fits, or it starts at schema 18 and rewrites only the party sets).
pub(super) fn refusal(found: i64, in_use: u64, free: u64) -> Option<String> {
    (found < 18 && free < in_use).then(|| {
        let shown = |n: u64| human_bytes(i64::try_from(n).unwrap_or(i64::MAX));
        format!(
            "migrating the index from schema {found} to schema {} writes it once more through its write-ahead log beside it: it needs about {} free on that disk and {} are; nothing was changed (free some space, or move the index to a larger disk, and run again)",
            super::SCHEMA_VERSION,
            shown(in_use),
            shown(free)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_migration_that_would_not_fit_is_refused_with_the_sizes() {
        assert_eq!(refusal(17, 12_463_046_656, 30_000_000_000), None);
        assert_eq!(refusal(17, 1_000, 1_000), None);
        let said = refusal(16, 12_463_046_656, 3_100_000_000).expect("refused");
        assert!(
            said.contains(&format!(
                "from schema 16 to schema {}",
                super::super::SCHEMA_VERSION
            )),
            "{said}"
        );
        assert!(said.contains("about 12.5 GB free"), "{said}");
        assert!(said.contains("and 3.10 GB are"), "{said}");
        assert!(said.contains("nothing was changed"), "{said}");
        // From schema 18 only the party sets are rewritten: not held back.
        assert_eq!(refusal(18, 12_463_046_656, 3_100_000_000), None);
    }

    #[test]
    fn the_bytes_in_use_leave_out_the_free_pages_and_the_disk_says_what_is_free() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("room.sqlite");
        let conn = Connection::open(&path).expect("opens");
        conn.execute_batch(
            "CREATE TABLE t (x BLOB);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
             INSERT INTO t SELECT zeroblob(3000) FROM n;",
        )
        .expect("rows");
        let full = in_use(&conn).expect("in use");
        assert!(full >= 900_000, "{full}");
        conn.execute_batch("DELETE FROM t").expect("deleted");
        let emptied = in_use(&conn).expect("in use");
        assert!(emptied < full / 10, "{emptied} of {full}");
        assert!(free_beside(&path).is_some_and(|free| free > 0));
        assert!(free_beside(Path::new("room.sqlite")).is_some());
    }
}
