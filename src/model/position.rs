//! A place in the history: a migration and a record time (µs). The index (`store`), its engine
//! (`indexer`) and the explorer's reads of it name places with it; ordered as the ledger is,
//! migration first.

/// A migration and a record time (µs since the epoch).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct At {
    pub migration_id: i64,
    pub record_time: i64,
}

impl At {
    /// Before every place (the ledger's beginning).
    pub const BEGIN: At = At::new(i64::MIN, i64::MIN);

    pub const fn new(migration_id: i64, record_time: i64) -> At {
        At {
            migration_id,
            record_time,
        }
    }

    /// As a (migration, µs) pair.
    pub const fn pair(self) -> (i64, i64) {
        (self.migration_id, self.record_time)
    }
}

impl From<(i64, i64)> for At {
    fn from((migration_id, record_time): (i64, i64)) -> At {
        At::new(migration_id, record_time)
    }
}

impl From<At> for (i64, i64) {
    fn from(at: At) -> (i64, i64) {
        at.pair()
    }
}

/// The place of an event of `/v0/events`: its update's, else its verdict's (an event with a
/// verdict only: a rejected request, a wholly private transaction). `None`: neither says.
pub fn event_at(event: &crate::api::scan::EventHistoryItem) -> Option<At> {
    use crate::model::format::parse_time_micros;
    if let Some(update) = &event.update {
        return Some(At::new(
            update.migration_id()?,
            parse_time_micros(update.record_time()?)?,
        ));
    }
    let v = event.verdict.as_ref()?;
    Some(At::new(v.migration_id, parse_time_micros(&v.record_time)?))
}

#[cfg(test)]
mod tests {
    use super::At;

    #[test]
    fn places_order_as_the_ledger_does() {
        assert!(At::new(0, 9) < At::new(1, 0));
        assert!(At::new(1, 0) < At::new(1, 1));
        assert!(At::BEGIN < At::new(i64::MIN, 0));
        assert_eq!(At::from((3, 4)).pair(), (3, 4));
    }
}
