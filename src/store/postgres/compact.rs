//! `index compact` on PostgreSQL: the indexes of the index's tables built again and the tables
//! vacuumed. A B-tree page that fills in the middle of the key order is split in two halves,
//! and a term's keys arrive at the start of its range (newest first), so `keys`' key fills to about
//! half (57% at 1 M updates, the book's "Compaction"); built again, its pages are full and in
//! order, and a walk of a term's keys reads half the pages. `REINDEX … CONCURRENTLY` (a server
//! of version 12 or later) builds each new index beside the old one while searches and
//! writes go on; a rebuild that fails (the server's disk full) leaves an invalid copy, which is
//! dropped before the error is said. `VACUUM` gives the tables' empty pages at their end back
//! and marks their pages all visible, so walks read the keys alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use postgres::Client;

use super::connect::{Target, closed};
use super::{Fail, PgIndex, StoreError, TABLES};
use crate::store::Compacted;

/// Drops the copies a failed `REINDEX … CONCURRENTLY` of the index's tables (and of their
/// TOAST tables) left: invalid, named `…_ccnew` or `…_ccold`; best effort, on the way to saying
/// the failure.
fn drop_invalid_copies(c: &mut Client) {
    let tables: Vec<String> = TABLES.iter().map(|t| (*t).to_owned()).collect();
    let Ok(rows) = c.query(
        "WITH ours AS (
             SELECT oid, reltoastrelid FROM pg_class WHERE relname = ANY($1) AND pg_table_is_visible(oid)
         )
         SELECT quote_ident(n.nspname) || '.' || quote_ident(x.relname)
         FROM pg_index i
         JOIN pg_class x ON x.oid = i.indexrelid
         JOIN pg_namespace n ON n.oid = x.relnamespace
         WHERE NOT i.indisvalid
           AND (i.indrelid IN (SELECT oid FROM ours) OR i.indrelid IN (SELECT reltoastrelid FROM ours))
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

/// Until `done` is set, looks at `stop` every tenth of a second; once it is set, asks the
/// server to cancel what the compaction runs then (Ctrl-C: the rebuild under way stops, its
/// copy dropped as a failed one's).
fn canceller(
    target: Target,
    token: postgres::CancelToken,
    stop: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while !done.load(Ordering::SeqCst) {
            if stop.load(Ordering::SeqCst) {
                let _ = target.cancel(&token);
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    })
}

impl PgIndex {
    pub(super) fn compact_tables(
        &mut self,
        stop: &Arc<AtomicBool>,
    ) -> Result<Compacted, StoreError> {
        let size = super::schema::size_sql();
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        let done = Arc::new(AtomicBool::new(false));
        let watching = canceller(
            target.clone(),
            client.cancel_token(),
            Arc::clone(stop),
            Arc::clone(&done),
        );
        let run = |c: &mut Client| -> Result<Option<(i64, i64)>, Fail> {
            // A rebuild of `keys` runs for minutes at 10 M updates: no timeout set for the
            // role or database stops it.
            c.batch_execute("SET statement_timeout = 0; SET lock_timeout = 0")?;
            let before: i64 = c.query_one(&size, &[])?.get(0);
            let version: i32 = c
                .query_one("SELECT current_setting('server_version_num')::int", &[])?
                .get(0);
            let concurrently = if version >= 120_000 {
                "CONCURRENTLY "
            } else {
                ""
            };
            // The frequent terms' posting blocks made again from their keys (a page that
            // filled a gap behind a term's blocks left its keys from there on to `keys`; a
            // prune left the keys before its time in them), before the tables' indexes are
            // built again and vacuumed.
            let mut tx = c.transaction()?;
            if super::key_blocks::build(&mut tx, &|| stop.load(Ordering::SeqCst))?.is_none() {
                return Ok(None);
            }
            tx.commit()?;
            for table in TABLES {
                if stop.load(Ordering::SeqCst) {
                    return Ok(None);
                }
                if let Err(e) = c.batch_execute(&format!("REINDEX TABLE {concurrently}{table}")) {
                    drop_invalid_copies(c);
                    return Err(e.into());
                }
            }
            if stop.load(Ordering::SeqCst) {
                return Ok(None);
            }
            c.batch_execute(&format!("VACUUM (ANALYZE) {}", TABLES.join(", ")))?;
            let after: i64 = c.query_one(&size, &[])?.get(0);
            Ok(Some((before, after)))
        };
        let ran = run(client);
        done.store(true, Ordering::SeqCst);
        let _ = watching.join();
        let interrupted = || StoreError::Interrupted {
            path: target.shown.clone(),
            detail: "the indexes built again before it stand, the others as they were".to_owned(),
        };
        match ran {
            Ok(Some((before, after))) => Ok(Compacted {
                bytes_before: u64::try_from(before).unwrap_or(0),
                bytes_after: u64::try_from(after).unwrap_or(0),
                log_kept: false,
            }),
            Ok(None) => Err(interrupted()),
            Err(_) if stop.load(Ordering::SeqCst) => Err(interrupted()),
            Err(f) => Err(target.fail(f)),
        }
    }
}
