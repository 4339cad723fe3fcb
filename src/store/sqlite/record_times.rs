//! Schema 18: the record times of the SQLite index's per-update rows counted from
//! 2027-01-01T00:00:00Z ([`EPOCH`]), not from 1970. SQLite keeps an integer in 1, 2, 3, 4, 6 or
//! 8 bytes, the fewest that hold it: a time in microseconds since 1970 (1.8 × 10¹⁵) takes 8, a
//! time within ±4.46 years of the epoch (±2⁴⁷ µs) takes 6. Every update's time is kept four
//! times over (its row, the position and time indexes) and again in each of its keys (about 12
//! an update) and in its terms' newest key: about 34 bytes an update less. A time outside
//! those years is kept as well, in 8 bytes.
//!
//! The columns counted so: `updates.record_time`, `keys.record_time`, `terms.last_time`,
//! `verdict_events.record_time`. Every statement binds a time of them as [`stored`] and reads
//! one back with [`read`]; a time handed on is µs since 1970 as everywhere else. A search turns
//! its bounds into kept times once and compares kept times from there on (the keys' and the
//! terms' positions). The summaries (`rounds`, `validators`, `daily_stats`) keep theirs as they
//! were, and PostgreSQL keeps µs since 1970 (`BIGINT` takes 8 bytes whatever it holds). The
//! shift keeps the order, so a bound, a range and a sort mean what they did.
//! [`migrate_17_to_18_sql`] shifts an index of schema 17 in place.

/// 2027-01-01T00:00:00Z in µs since 1970: what a kept record time counts from (a midnight, so
/// a day of the kept times is a day of the calendar).
pub(super) const EPOCH: i64 = 1_798_761_600_000_000;

/// The kept form of the record time `micros` (µs since 1970). The bounds a read takes for "no
/// bound" (`i64::MIN`, `i64::MAX`) stay below and above every kept time.
pub(super) fn stored(micros: i64) -> i64 {
    micros.saturating_sub(EPOCH)
}

/// The record time (µs since 1970) of its kept form `stored`.
pub(super) fn micros(stored: i64) -> i64 {
    stored.saturating_add(EPOCH)
}

/// A record time read from a kept column, as µs since 1970.
struct Micros(i64);

impl rusqlite::types::FromSql for Micros {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        i64::column_result(value).map(|kept| Micros(micros(kept)))
    }
}

/// The record time (µs since 1970) of column `i` of `row`, a kept time.
pub(super) fn read(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<i64> {
    row.get::<_, Micros>(i).map(|t| t.0)
}

/// The same of a column that may be NULL.
pub(super) fn read_opt(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<i64>> {
    row.get::<_, Option<Micros>>(i).map(|t| t.map(|t| t.0))
}

/// Schema 17 → 18: every kept record time shifted to count from [`EPOCH`]. The tables' rows
/// are rewritten in place; the indexes over the times are made again after (cheaper than
/// moving each entry), the keys' table (whose key holds the time) copied in its own order.
pub(super) fn migrate_17_to_18_sql() -> String {
    MIGRATE_17_TO_18.replace("@EPOCH@", &EPOCH.to_string())
}

/// Schema 18 → 19, of an index written at 18: the newest key of each term that the writer
/// of schema 18 gave as (0, 0, 0) read again from its keys. That writer sought a page's newest
/// keys from (0, 0, 0), which is above every kept time of migration 0 before 2027 (negative),
/// so a term whose newest update in a page was such an update got that key instead of its
/// own (no update has seq 0: a search that reads the term's newest row found none). A term
/// with no key left keeps it unknown. The number of terms read again.
pub(super) fn newest_keys_18(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<usize> {
    tx.execute(
        "UPDATE terms SET (last_migration, last_time, last_seq) = (
             SELECT k.migration_id, k.record_time, k.seq FROM keys k WHERE k.term = terms.id
             ORDER BY k.migration_id DESC, k.record_time DESC, k.seq DESC LIMIT 1)
           WHERE last_seq = 0",
        [],
    )
}

const MIGRATE_17_TO_18: &str = concat!(
    "
DROP INDEX IF EXISTS updates_position;
DROP INDEX IF EXISTS updates_time;
UPDATE updates SET record_time = record_time - @EPOCH@;
CREATE INDEX updates_position ON updates (migration_id, record_time);
CREATE INDEX updates_time ON updates (record_time);
CREATE TABLE keys_v18 ",
    super::row_sets::keys_columns!(),
    "INSERT INTO keys_v18 (term, migration_id, record_time, seq)
    SELECT term, migration_id, record_time - @EPOCH@, seq FROM keys
    ORDER BY term, migration_id, record_time, seq;
DROP TABLE keys;
ALTER TABLE keys_v18 RENAME TO keys;
UPDATE terms SET last_time = last_time - @EPOCH@ WHERE last_time IS NOT NULL;
DROP INDEX IF EXISTS verdict_events_position;
DROP INDEX IF EXISTS verdict_events_time;
UPDATE verdict_events SET record_time = record_time - @EPOCH@;
CREATE INDEX verdict_events_position ON verdict_events (migration_id, record_time);
CREATE INDEX verdict_events_time ON verdict_events (record_time);
"
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::format::parse_time_micros;

    /// SQLite's 6-byte integers: −2⁴⁷ to 2⁴⁷ − 1.
    fn in_six_bytes(kept: i64) -> bool {
        (-(1_i64 << 47)..(1_i64 << 47)).contains(&kept)
    }

    #[test]
    fn the_years_around_2027_fit_six_bytes_and_every_time_reads_back_as_it_was() {
        let at = |text| parse_time_micros(text).expect("a time");
        assert_eq!(at("2027-01-01T00:00:00Z"), EPOCH);
        for text in [
            "2022-07-18T00:00:00Z",
            "2024-06-24T12:00:00.123456Z",
            "2026-12-05T14:36:40Z",
            "2031-06-16T00:00:00Z",
        ] {
            let kept = stored(at(text));
            assert!(in_six_bytes(kept), "{text}: {kept}");
            assert_eq!(micros(kept), at(text));
        }
        // Before and after those years: kept in 8 bytes, read back the same.
        for text in [
            "1970-01-01T00:00:00Z",
            "2022-07-16T00:00:00Z",
            "2031-06-18T00:00:00Z",
        ] {
            let kept = stored(at(text));
            assert!(!in_six_bytes(kept), "{text}");
            assert_eq!(micros(kept), at(text));
        }
        // The order is kept, the reads' open bounds stay outside every kept time.
        assert!(stored(at("2026-12-05T14:36:40Z")) < stored(at("2026-12-05T14:36:40.000001Z")));
        assert_eq!(stored(i64::MIN), i64::MIN);
        assert!(stored(i64::MAX) > stored(at("9999-12-31T23:59:59Z")));
    }

    #[test]
    fn the_migration_shifts_every_kept_time_by_the_epoch() {
        let conn = rusqlite::Connection::open_in_memory().expect("opens");
        conn.execute_batch(
            "CREATE TABLE updates (seq INTEGER PRIMARY KEY, migration_id INTEGER, record_time INTEGER);
             CREATE TABLE keys (term INTEGER NOT NULL, migration_id INTEGER NOT NULL,
                 record_time INTEGER NOT NULL, seq INTEGER NOT NULL,
                 PRIMARY KEY (term, migration_id, record_time, seq)) WITHOUT ROWID;
             CREATE TABLE terms (id INTEGER PRIMARY KEY, last_time INTEGER);
             CREATE TABLE verdict_events (update_id TEXT PRIMARY KEY, migration_id INTEGER,
                 record_time INTEGER);",
        )
        .expect("schema 17's times");
        let t = parse_time_micros("2026-12-05T14:36:40.5Z").expect("a time");
        conn.execute_batch(&format!(
            "INSERT INTO updates VALUES (1, 0, {t}), (2, 1, {});
             INSERT INTO keys VALUES (7, 0, {t}, 1), (7, 1, {}, 2);
             INSERT INTO terms VALUES (7, {}), (8, NULL);
             INSERT INTO verdict_events VALUES ('x', 1, {t});",
            t + 1,
            t + 1,
            t + 1
        ))
        .expect("rows");
        conn.execute_batch(&migrate_17_to_18_sql())
            .expect("migrates");
        let times = |sql: &str| -> Vec<Option<i64>> {
            conn.prepare(sql)
                .expect("reads")
                .query_map([], |r| r.get(0))
                .expect("reads")
                .collect::<Result<_, _>>()
                .expect("reads")
        };
        let (k0, k1) = (Some(stored(t)), Some(stored(t + 1)));
        assert_eq!(
            times("SELECT record_time FROM updates ORDER BY seq"),
            [k0, k1]
        );
        assert_eq!(times("SELECT record_time FROM keys ORDER BY seq"), [k0, k1]);
        assert_eq!(times("SELECT last_time FROM terms ORDER BY id"), [k1, None]);
        assert_eq!(times("SELECT record_time FROM verdict_events"), [k0]);
        let indexes = times(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN
             ('updates_position', 'updates_time', 'verdict_events_position', 'verdict_events_time')",
        );
        assert_eq!(indexes, [Some(4)]);
    }

    #[test]
    fn the_newest_keys_schema_18_wrote_as_zero_are_read_again_from_the_keys() {
        let mut conn = rusqlite::Connection::open_in_memory().expect("opens");
        conn.execute_batch(
            "CREATE TABLE keys (term INTEGER NOT NULL, migration_id INTEGER NOT NULL,
                 record_time INTEGER NOT NULL, seq INTEGER NOT NULL,
                 PRIMARY KEY (term, migration_id, record_time, seq)) WITHOUT ROWID;
             CREATE TABLE terms (id INTEGER PRIMARY KEY, last_migration INTEGER,
                 last_time INTEGER, last_seq INTEGER);
             INSERT INTO keys VALUES (7, 0, -50, 1), (7, 0, -40, 2), (8, 0, -30, 3), (9, 1, 5, 4);
             INSERT INTO terms VALUES (7, 0, 0, 0), (8, 0, -30, 3), (9, 1, 5, 4), (10, 0, 0, 0);",
        )
        .expect("schema 18's newest keys");
        let tx = conn.transaction().expect("tx");
        assert_eq!(newest_keys_18(&tx).expect("read again"), 2);
        let newest: Vec<(Option<i64>, Option<i64>, Option<i64>)> = tx
            .prepare("SELECT last_migration, last_time, last_seq FROM terms ORDER BY id")
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect()
            })
            .expect("newest keys");
        assert_eq!(
            newest,
            [
                (Some(0), Some(-40), Some(2)),
                (Some(0), Some(-30), Some(3)),
                (Some(1), Some(5), Some(4)),
                (None, None, None),
            ]
        );
    }
}
