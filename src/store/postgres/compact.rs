//! `index compact` on PostgreSQL: the indexes of the index's tables built again and the tables
//! vacuumed. A B-tree page that fills in the middle of the key order is split in two halves,
//! and a term's keys arrive at the end of its range, so `keys`' primary key fills to about
//! half (57% at 1 M updates, the book's "Compaction"); built again, its pages are full and in
//! order, and a walk of a term's keys reads half the pages. `REINDEX … CONCURRENTLY` (a server
//! of version 12 or later) builds each new index beside the old one while searches and
//! writes go on; a rebuild that fails (the server's disk full) leaves an invalid copy, which is
//! dropped before the error is said. `VACUUM` gives the tables' empty pages at their end back
//! and marks their pages all visible, so walks read the keys alone.

use postgres::Client;

use super::{PgIndex, StoreError, TABLES};
use crate::store::Compacted;

/// The bytes the index's tables take with their indexes (`index status`' size).
pub(super) fn size_sql() -> String {
    format!(
        "SELECT ({})::bigint",
        TABLES
            .iter()
            .map(|t| format!("pg_total_relation_size('{t}')"))
            .collect::<Vec<_>>()
            .join(" + ")
    )
}

/// Drops the copies a failed `REINDEX … CONCURRENTLY` of the index's tables left (invalid,
/// named `…_ccnew` or `…_ccold`); best effort, on the way to saying the failure.
fn drop_invalid_copies(c: &mut Client) {
    let tables: Vec<String> = TABLES.iter().map(|t| (*t).to_owned()).collect();
    let Ok(rows) = c.query(
        "SELECT quote_ident(n.nspname) || '.' || quote_ident(x.relname)
         FROM pg_index i
         JOIN pg_class x ON x.oid = i.indexrelid
         JOIN pg_class t ON t.oid = i.indrelid
         JOIN pg_namespace n ON n.oid = x.relnamespace
         WHERE NOT i.indisvalid AND t.relname = ANY($1) AND pg_table_is_visible(t.oid)
           AND (x.relname LIKE '%\\_ccnew%' OR x.relname LIKE '%\\_ccold%')",
        &[&tables],
    ) else {
        return;
    };
    for row in rows {
        let name: String = row.get(0);
        let _ = c.batch_execute(&format!("DROP INDEX CONCURRENTLY IF EXISTS {name}"));
    }
}

impl PgIndex {
    pub(super) fn compact_tables(&mut self) -> Result<Compacted, StoreError> {
        let size = size_sql();
        let (before, after) = self.with(|c| {
            let before: i64 = c.query_one(&size, &[])?.get(0);
            let version: i32 = c
                .query_one("SELECT current_setting('server_version_num')::int", &[])?
                .get(0);
            let concurrently = if version >= 120_000 {
                "CONCURRENTLY "
            } else {
                ""
            };
            for table in TABLES {
                if let Err(e) = c.batch_execute(&format!("REINDEX TABLE {concurrently}{table}")) {
                    drop_invalid_copies(c);
                    return Err(e);
                }
            }
            c.batch_execute(&format!("VACUUM (ANALYZE) {}", TABLES.join(", ")))?;
            let after: i64 = c.query_one(&size, &[])?.get(0);
            Ok((before, after))
        })?;
        Ok(Compacted {
            bytes_before: u64::try_from(before).unwrap_or(0),
            bytes_after: u64::try_from(after).unwrap_or(0),
        })
    }
}
