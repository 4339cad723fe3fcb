//! The index in a PostgreSQL database, for a team: one `index sync --follow` writes it, several
//! explorers read it. The same tables, versions and answers as the SQLite file
//! ([`super::sqlite`]); text is matched in Rust (prefixes walk a `COLLATE "C"` column in byte
//! order, as SQLite compares), never with `LIKE`.
//!
//! - One writer: `pg_try_advisory_lock` on the writer's own connection, a session lock the
//!   server drops with the connection (a killed sync, a restarted server); a second writer is
//!   refused naming the first from its heartbeat row.
//! - `keys` is ordered by (term, migration, record time, seq), so the newest-first first page of
//!   a term walks the keys' key (newest first) with a LIMIT; `terms` keeps each term's count and
//!   newest key at write and prune time, in its `(kind, value)` key as well.
//! - The client is `postgres` (synchronous, over tokio-postgres with its own small runtime): the
//!   store's calls run on blocking threads, never inside an async task, and a client is closed
//!   on a thread of its own (closing blocks on its runtime).
//! - TLS: rustls on ring with the system's roots (and `sslrootcert=FILE` when given); a local
//!   server (a Unix socket, localhost) is reached without TLS unless `sslmode=require`. The URL's
//!   password never reaches a message: errors are scrubbed of it and name the URL redacted.
//!
//! ```text
//! mod.rs      the index's connection, the writer lock, the IndexReader and IndexWriter calls
//! connect.rs  the URL, TLS, the driver's errors
//! schema.rs   tables, open (create, check versions), meta
//! write.rs    a page in one transaction with its chunk's cursor; prune
//! compact.rs  the indexes built again, the tables vacuumed (`index compact`)
//! page.rs     a page's rows: updates and keys by binary COPY (copy.rs), terms, counts
//! events.rs   an events page in one statement
//! search.rs   search and count
//! pairs.rs    the counts of two frequent terms together (hubs): kept per page, on prune
//! read.rs     status, bodies, digests, the explorer's reads
//! ```

mod compact;
mod connect;
mod copy;
mod events;
mod key_blocks;
mod page;
mod pairs;
mod read;
mod rounds;
mod schema;
mod search;
mod stats;
pub(super) mod term_values;
mod validators;
mod write;

pub use connect::redact_url;
#[cfg(test)]
use connect::scrub;
use connect::{Fail, Target, closed, truncate};
pub use read::{KEPT_DIGESTS_SQL, PAGE_AFTER_SQL, range_sql};
pub use schema::TABLES;

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use postgres::config::{Host, SslMode};
use postgres::error::SqlState;
use postgres::{Client, GenericClient, IsolationLevel, NoTls};

use super::{
    At, Chunk, DivergenceRecord, EventsRow, EventsTodo, HEARTBEAT_STALE_MICROS, Heartbeat,
    IndexReach, IndexReader, IndexStatus, IndexWriter, KeptUpdate, MigrationRange, PageWrite,
    PageWritten, Position, StoreError, VerdictEvent,
};
use crate::model::format::format_time_micros;
use crate::model::index::query::{Query, Term};
use crate::model::index::read::SyncRunning;
use crate::model::index::{KeyKind, SUMMARY_VERSION, SearchRow};

/// The schema of a PostgreSQL index. It followed the shared number ([`super::SCHEMA_VERSION`],
/// whose 11-13 changed only SQLite's file) up to 13; 14 is PostgreSQL's own: each term keeps its
/// count and newest key in `terms`, whose `(kind, value)` key includes them, so a contract-id
/// prefix's terms come with their counts from one range of that key (13 kept them in
/// `term_counts`, in id order: a cold read each). 15: a body names its update's own id by a
/// byte (`crate::model::index::pack::OWN_ID`; SQLite's schema 14), which an older build would
/// show as is; the bodies kept before read back as they were. 16: a term's value is bytes, a
/// contract id of lowercase hex kept as the bytes it spells (`term_values`; SQLite's schema 11):
/// half the bytes of the terms' table and of its `(kind, value)` key. 17: the keys' key newest
/// first, so a search's walk reads it forwards (`schema::keys_newest_first`). 18: the keys of
/// every frequent term kept a second time as posting blocks, read by the walks
/// (`key_blocks`).
pub const SCHEMA_VERSION: i64 = 18;

/// The advisory lock of the one writer ("cantonsc"), per database.
const WRITER_LOCK: i64 = 0x6361_6e74_6f6e_7363;

/// An index in a PostgreSQL database.
pub struct PgIndex {
    /// Always `Some` until dropped (taken to close it on a thread of its own).
    client: Option<Client>,
    target: Target,
    /// Its body dictionaries, as reads need them.
    dictionaries: super::BodyDictionaries,
    /// Its events dictionaries, as reads need them.
    event_dictionaries: super::BodyDictionaries,
    /// What opening it did that the user should hear of, each once.
    notices: Vec<String>,
}

impl Drop for PgIndex {
    fn drop(&mut self) {
        // Closing blocks on the client's runtime, which may not happen inside an async task.
        if let Some(client) = self.client.take() {
            let _ = std::thread::spawn(move || drop(client)).join();
        }
    }
}

impl PgIndex {
    /// Runs `f` with the client and turns its driver error into a store error.
    fn with<T>(
        &mut self,
        f: impl FnOnce(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreError> {
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        f(client).map_err(|e| target.error(&e))
    }

    /// Takes the writer lock, or names who holds it.
    fn lock(&mut self) -> Result<(), StoreError> {
        let got: bool = self.with(|c| {
            c.query_one("SELECT pg_try_advisory_lock($1)", &[&WRITER_LOCK])
                .map(|r| r.get(0))
        })?;
        if got {
            return Ok(());
        }
        let now = chrono::Utc::now().timestamp_micros();
        let mut holder = None;
        if self.table_exists("sync_heartbeat")? {
            let beat = self.heartbeat()?;
            holder = beat
                .filter(|h| now.saturating_sub(h.beat_at) < super::HEARTBEAT_STALE_MICROS)
                .map(|h| {
                    format!(
                        "pid {} on {} since {} (cantonscope {})",
                        h.pid,
                        h.host,
                        format_time_micros(h.started_at),
                        h.command
                    )
                });
        }
        if holder.is_none() {
            // The session holding the lock, as it named itself.
            holder = self
                .with(|c| {
                    c.query_opt(
                        "SELECT a.application_name, coalesce(host(a.client_addr), 'a local socket'),
                                a.backend_start::text
                         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                         WHERE l.locktype = 'advisory' AND l.granted
                           AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                           AND l.objid = ($1::bigint & 4294967295)::oid
                         LIMIT 1",
                        &[&WRITER_LOCK],
                    )
                })?
                .map(|r| {
                    let name: String = r.get(0);
                    let from: String = r.get(1);
                    let since: String = r.get(2);
                    format!("{name} (a session from {from} since {since})")
                });
        }
        Err(StoreError::Busy {
            path: self.target.shown.clone(),
            holder: holder.unwrap_or_else(|| "a session holds its writer lock".to_owned()),
        })
    }

    fn heartbeat(&mut self) -> Result<Option<Heartbeat>, StoreError> {
        Ok(self
            .with(|c| c.query_opt(HEARTBEAT_SQL, &[]))?
            .map(|r| heartbeat_of(&r)))
    }
}

/// A heartbeat as [`HEARTBEAT_SQL`] reads it.
fn heartbeat_of(r: &postgres::Row) -> Heartbeat {
    Heartbeat {
        pid: r.get(0),
        host: r.get(1),
        started_at: r.get(2),
        beat_at: r.get(3),
        command: r.get(4),
    }
}

/// The heartbeat's row.
const HEARTBEAT_SQL: &str =
    "SELECT pid, host, started_at, beat_at, command FROM sync_heartbeat WHERE id = 1";

/// The rows of `sql` (three columns) by their first two: (first, second) → third.
fn by_first_two<A, B, V>(
    c: &mut impl GenericClient,
    sql: &str,
    params: &[&(dyn postgres::types::ToSql + Sync)],
) -> Result<HashMap<(A, B), V>, postgres::Error>
where
    A: postgres::types::FromSqlOwned + Eq + std::hash::Hash,
    B: postgres::types::FromSqlOwned + Eq + std::hash::Hash,
    V: postgres::types::FromSqlOwned,
{
    Ok(c.query(sql, params)?
        .iter()
        .map(|r| ((r.get(0), r.get(1)), r.get(2)))
        .collect())
}

/// One short read-only snapshot: every read of it sees the same index.
fn snapshot(c: &mut Client) -> Result<postgres::Transaction<'_>, postgres::Error> {
    c.build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
}

fn chunk_rows(c: &mut impl GenericClient) -> Result<Vec<Chunk>, postgres::Error> {
    let rows = c.query(
        "SELECT id, start_migration, start_time, end_before, cursor_migration, cursor_time,
                page_start_migration, page_start_time, state, verify, scans, updates
         FROM chunks ORDER BY id",
        &[],
    )?;
    let position = |m: Option<i64>, t: Option<String>| match (m, t) {
        (Some(migration_id), Some(record_time)) => Some(Position {
            migration_id,
            record_time,
        }),
        _ => None,
    };
    Ok(rows
        .iter()
        .map(|r| {
            let scans: String = r.get(10);
            Chunk {
                id: r.get(0),
                start: position(r.get(1), r.get(2)),
                end_before: r.get(3),
                cursor: position(r.get(4), r.get(5)),
                page_start: position(r.get(6), r.get(7)),
                state: r.get(8),
                verify: r.get(9),
                scans: serde_json::from_str(&scans).unwrap_or_default(),
                updates: r.get(11),
                events: None,
            }
        })
        .collect())
}

impl IndexReader for PgIndex {
    fn shown(&self) -> String {
        self.target.shown.clone()
    }

    fn meta_get(&mut self, key: &str) -> Result<Option<String>, StoreError> {
        self.meta(key)
    }

    fn notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    fn chunks(&mut self) -> Result<Vec<Chunk>, StoreError> {
        self.with(chunk_rows)
    }

    fn body_dictionary(&mut self) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self
            .with(|c| {
                c.query_opt(
                    "SELECT dictionary FROM dictionaries ORDER BY added_at DESC, id DESC LIMIT 1",
                    &[],
                )
            })?
            .map(|r| r.get(0)))
    }

    fn body_dictionary_of(&mut self, id: u32) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self
            .with(|c| {
                c.query_opt(
                    "SELECT dictionary FROM dictionaries WHERE id = $1",
                    &[&i64::from(id)],
                )
            })?
            .map(|r| r.get(0)))
    }

    super::reads::engine_reads!(
        mark: '$',
        bytewise: " COLLATE \"C\"",
        updates_id: "update_id",
        updates_parties: "parties"
    );
    super::stats::stats_reads!();

    super::rounds::engine_round_reads!();
}

impl IndexWriter for PgIndex {
    fn events_todo(&mut self) -> Result<EventsTodo, StoreError> {
        let at = |r: postgres::Row| At::new(r.get(0), r.get(1));
        let first_lacking = self.with(|c| {
            c.query_opt(
                "SELECT u.migration_id, u.record_time FROM updates u
                 WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.seq = u.seq)
                 ORDER BY u.migration_id, u.record_time LIMIT 1",
                &[],
            )
        })?;
        let last = self.with(|c| {
            c.query_opt(
                "SELECT migration_id, record_time FROM updates
                 ORDER BY migration_id DESC, record_time DESC LIMIT 1",
                &[],
            )
        })?;
        Ok(EventsTodo {
            first_lacking: first_lacking.map(at),
            last: last.map(at),
        })
    }

    fn write_verdict_events(&mut self, rows: &[VerdictEvent]) -> Result<u64, StoreError> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            let stmt = tx.prepare(&crate::store::write::verdict_events_upsert('$'))?;
            let mut kept = 0;
            for VerdictEvent { at, row: r } in rows {
                kept += tx.execute(
                    &stmt,
                    &[
                        &r.update_id,
                        &at.migration_id,
                        &at.record_time,
                        &r.served,
                        &r.verdict,
                        &r.traffic_summary,
                        &r.app_activity_records,
                        &r.round_number,
                        &r.verdict_result,
                        &r.mediator_group,
                        &r.digest,
                        &r.scans,
                    ],
                )?;
            }
            tx.commit()?;
            Ok(kept)
        })
    }

    fn write_events(&mut self, rows: &[EventsRow]) -> Result<u64, StoreError> {
        let shown = self.target.shown.clone();
        let packing = |detail: String| StoreError::Engine {
            path: shown.clone(),
            detail,
        };
        let kept: Option<Vec<u8>> = self
            .with(|c| {
                c.query_opt(
                    "SELECT dictionary FROM event_dictionaries ORDER BY added_at DESC, id DESC LIMIT 1",
                    &[],
                )
            })?
            .map(|r| r.get(0));
        let (packer, trained) =
            super::events_pack::EventsPacker::new(kept, rows).map_err(packing)?;
        let packed = packer.pack_all(rows).map_err(packing)?;
        let mut trained_failed = None;
        let kept = self.with(|c| {
            let mut tx = c.transaction()?;
            if let Some(dictionary) = &trained
                && let Err(e) = schema::add_event_dictionary(&mut tx, dictionary)
            {
                trained_failed = Some(e);
                return Ok(0);
            }
            let one = crate::store::write::events_upsert('$');
            let kept = events::upsert(&mut tx, rows, &packed, &one)?;
            tx.commit()?;
            Ok(kept)
        })?;
        match trained_failed {
            Some(detail) => Err(packing(detail)),
            None => Ok(kept),
        }
    }

    fn write_stats_day(
        &mut self,
        figures: &crate::model::index::stats::DayFigures,
    ) -> Result<(), StoreError> {
        self.write_day(figures)
    }
    super::rounds::engine_round_writes!();

    fn add_validators(
        &mut self,
        delta: &crate::model::index::validators::ValidatorsDelta,
        through: i64,
    ) -> Result<(), StoreError> {
        self.write_validators(delta, through)
    }

    fn meta_set(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.set_meta(key, value)
    }

    fn clear_beat(&mut self) -> Result<(), StoreError> {
        self.with(|c| c.execute("DELETE FROM sync_heartbeat", &[]))
            .map(|_| ())
    }

    /// A sync's tables analyzed once it ends: until autovacuum gets to a freshly filled
    /// database, the planner guesses, and a two-term first page took 97 ms instead of 0.9 ms
    /// (100,000 updates, measured with `cargo bench --bench index`). The keys, the hubs'
    /// bitmaps and the terms (whose `(kind, value)` key includes each term's count and newest
    /// key), which searches read from their keys alone, are vacuumed as well, so
    /// that their new pages are marked all-visible: until then each row read from such a page
    /// also reads the table (at 10 M updates autovacuum had left 18% of the keys' pages
    /// unmarked, and a template's 76,671 keys read cold fetched 13,583 rows from the table).
    /// VACUUM reads the pages not marked yet (8 s for those 18%; after a prune, whose removed
    /// rows it clears, the keys' indexes as well), and runs outside a transaction: a statement
    /// of its own.
    fn refresh_statistics(&mut self) -> Result<(), StoreError> {
        self.with(|c| {
            c.batch_execute("VACUUM (ANALYZE) keys, hub_bits, terms")?;
            c.batch_execute("ANALYZE updates, hubs, pairs")
        })
    }

    fn insert_chunk(&mut self, chunk: &Chunk, now: i64) -> Result<i64, StoreError> {
        let start = chunk.start.as_ref();
        self.with(|c| {
            c.query_one(
                "INSERT INTO chunks (start_migration, start_time, end_before, state, verify, scans, started_at)
                 VALUES ($1, $2, $3, 'open', $4, '[]', $5) RETURNING id",
                &[
                    &start.map(|p| p.migration_id),
                    &start.map(|p| p.record_time.clone()),
                    &chunk.end_before,
                    &chunk.verify,
                    &now,
                ],
            )
            .map(|r| r.get(0))
        })
    }

    fn write_page(&mut self, chunk: i64, page: &PageWrite) -> Result<PageWritten, StoreError> {
        self.write_page_tx(chunk, page)
    }

    fn set_chunk_state(&mut self, chunk: i64, state: &str, now: i64) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "UPDATE chunks SET state = $2, finished_at = $3 WHERE id = $1",
                &[&chunk, &state, &now],
            )
        })
        .map(|_| ())
    }

    fn record_divergence(&mut self, d: &DivergenceRecord) -> Result<(), StoreError> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            if !d.resolved {
                tx.execute(
                    "DELETE FROM divergences WHERE update_id = $1 AND NOT resolved",
                    &[&d.update_id],
                )?;
            }
            tx.execute(
                "INSERT INTO divergences (update_id, migration_id, record_time, found_at, resolved, detail)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                &[
                    &d.update_id,
                    &d.migration_id,
                    &d.record_time,
                    &d.found_at,
                    &d.resolved,
                    &d.detail.to_string(),
                ],
            )?;
            tx.commit()
        })
    }

    fn resolve_divergences(&mut self, update_ids: &[String]) -> Result<(), StoreError> {
        // One statement (one round trip) for a page's updates.
        self.with(|c| {
            c.execute(
                "UPDATE divergences SET resolved = TRUE WHERE NOT resolved AND update_id = ANY($1)",
                &[&update_ids],
            )
        })
        .map(|_| ())
    }

    fn beat(&mut self, h: &Heartbeat) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO sync_heartbeat (id, pid, host, started_at, beat_at, command)
                 VALUES (1, $1, $2, $3, $4, $5)
                 ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host,
                   started_at = excluded.started_at, beat_at = excluded.beat_at,
                   command = excluded.command",
                &[&h.pid, &h.host, &h.started_at, &h.beat_at, &h.command],
            )
        })
        .map(|_| ())
    }

    fn refresh_beat(&mut self, pid: i64, beat_at: i64) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "UPDATE sync_heartbeat SET beat_at = $2 WHERE id = 1 AND pid = $1",
                &[&pid, &beat_at],
            )
        })
        .map(|_| ())
    }

    fn add_body_dictionary(&mut self, dictionary: &[u8], now: i64) -> Result<(), StoreError> {
        let id = super::dictionary_id_of(self.target.shown.clone(), dictionary)?;
        self.with(|c| {
            c.execute(
                "INSERT INTO dictionaries (id, added_at, dictionary) VALUES ($1, $2, $3)
                 ON CONFLICT (id) DO NOTHING",
                &[&id, &now, &dictionary],
            )
        })
        .map(|_| ())
    }

    fn prune(&mut self, before: i64) -> Result<u64, StoreError> {
        self.prune_before(before)
    }

    fn compact(
        &mut self,
        stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
    ) -> Result<super::Compacted, StoreError> {
        self.compact_tables(stop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_named_without_its_password() {
        for (url, shown) in [
            (
                "postgres://cs:s3cret@db.example:5432/index",
                "postgres://***@db.example:5432/index",
            ),
            (
                "postgresql://db.example/index?user=cs&password=s3cret&sslmode=require",
                "postgresql://db.example/index?user=cs&password=***&sslmode=require",
            ),
        ] {
            assert_eq!(redact_url(url), shown);
            let target = Target::parse(url).expect("parses");
            assert_eq!(target.shown, shown);
            assert!(target.tls, "a remote server is reached over TLS");
            assert_eq!(
                scrub("auth s3cret failed", &target.secrets),
                "auth *** failed"
            );
        }
        let local = Target::parse("postgres://cs:pw@localhost:5432/i").expect("parses");
        assert!(!local.tls, "localhost without TLS");
        let socket = Target::parse("postgres://cs@%2Ftmp%2Fpg/i").expect("parses");
        assert!(!socket.tls, "a Unix socket without TLS");
        let required =
            Target::parse("postgres://cs@localhost/i?sslmode=verify-full").expect("parses");
        assert!(required.tls, "verify-full is TLS (rustls always verifies)");
        let e = Target::parse("postgres://cs:s3cret@h/i?sslmode=sometimes")
            .err()
            .expect("refused");
        assert!(!e.to_string().contains("s3cret"), "{e}");
    }
}
