//! Whether history read before still stands when it is read again: one check shared by the
//! local index's sync (each update of a page it already keeps or walked past, see
//! `store::IndexWriter::write_page`) and the explorer's loader (the newest loaded update, read
//! again once the scan answers after failing: a `serve-demo` restarted with another ledger on the
//! same port, a scan restored from a backup). The participant's ledger end is checked here too
//! ([`ledger_end_reread`]): the JSON Ledger API has no update to read again, but its end never
//! goes back.

use crate::model::format::format_time_micros;
use crate::model::position::At;

/// What the reader keeps under an update id it reads again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// Nothing.
    Absent,
    /// The same update.
    Same,
    /// Another update under that id: how it differs, in words.
    Other(String),
}

/// An update read again that agrees with what was read before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reread {
    /// Kept already, the same.
    Known,
    /// Not kept, and after everything read before.
    New,
}

/// History rewritten under the reader: which update tells, where, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    pub update_id: String,
    pub position: At,
    /// What is wrong with it (`is gone from its position`, `has digest … where …`).
    pub what: String,
}

impl Rewrite {
    /// The position in words: `migration 1, 2026-11-27T09:00:00.000000Z`.
    pub fn at(&self) -> String {
        format!(
            "migration {}, {}",
            self.position.migration_id,
            format_time_micros(self.position.record_time)
        )
    }
}

impl std::fmt::Display for Rewrite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "update {} ({}) {}", self.update_id, self.at(), self.what)
    }
}

/// An update read again at `position`, of which the reader keeps `kept`, having read everything
/// up to `walked_to`: known, new, or a sign the history was rewritten (another update under a
/// known id, or an update the reader never saw at a position it already read past).
pub fn reread(
    update_id: &str,
    position: At,
    kept: Kept,
    walked_to: Option<At>,
) -> Result<Reread, Rewrite> {
    let rewrite = |what: String| Rewrite {
        update_id: update_id.to_owned(),
        position,
        what,
    };
    match kept {
        Kept::Same => Ok(Reread::Known),
        Kept::Other(what) => Err(rewrite(what)),
        Kept::Absent if walked_to.is_some_and(|w| position <= w) => Err(rewrite(
            "is new at a position already walked past".to_owned(),
        )),
        Kept::Absent => Ok(Reread::New),
    }
}

/// The newest update the reader keeps (`newest`), read again from just before its position:
/// `first` is the first update the scan answers there (`None`: none). It stands when that is the
/// same update (or another one kept at the same position); `kept` says what the reader keeps
/// under an id.
pub fn newest_reread(
    newest: (&str, At),
    first: Option<(&str, At)>,
    kept: impl Fn(&str, At) -> Kept,
) -> Result<(), Rewrite> {
    let gone = || Rewrite {
        update_id: newest.0.to_owned(),
        position: newest.1,
        what: "is gone from its position".to_owned(),
    };
    match first {
        None => Err(gone()),
        Some((_, pos)) if pos > newest.1 => Err(gone()),
        Some((id, pos)) => reread(id, pos, kept(id, pos), Some(newest.1)).map(|_| ()),
    }
}

/// A participant's ledger end lower than the one read before from the same ledger: the ledger
/// under the reader was replaced (a participant restored from a backup, `serve-demo` restarted
/// with another ledger on the same port). Pruning never lowers the ledger end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndWentBack {
    /// The ledger end read before.
    pub from: i64,
    /// The ledger end read now (`None`: the ledger is empty).
    pub to: Option<i64>,
}

impl std::fmt::Display for EndWentBack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let from = crate::model::format::group_thousands(self.from);
        match self.to {
            Some(to) => write!(
                f,
                "the ledger end went back from {from} to {}",
                crate::model::format::group_thousands(to)
            ),
            None => write!(f, "the ledger end went back from {from} to an empty ledger"),
        }
    }
}

/// The ledger end read again: `before` is the last one read from the same ledger (`None`:
/// none read yet, or the ledger was empty), `now` the one just read (`None`: empty). It
/// stands unless it is lower.
pub fn ledger_end_reread(before: Option<i64>, now: Option<i64>) -> Result<(), EndWentBack> {
    match (before, now) {
        (Some(from), Some(to)) if to < from => Err(EndWentBack { from, to: Some(to) }),
        (Some(from), None) if from > 0 => Err(EndWentBack { from, to: None }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ledger_end_only_stands_when_it_does_not_go_back() {
        assert_eq!(ledger_end_reread(None, Some(5)), Ok(()));
        assert_eq!(ledger_end_reread(Some(5), Some(5)), Ok(()));
        assert_eq!(ledger_end_reread(Some(5), Some(9)), Ok(()));
        assert_eq!(ledger_end_reread(None, None), Ok(()));
        let back = ledger_end_reread(Some(1584), Some(1560)).unwrap_err();
        assert_eq!(
            back,
            EndWentBack {
                from: 1584,
                to: Some(1560)
            }
        );
        assert_eq!(
            back.to_string(),
            "the ledger end went back from 1,584 to 1,560"
        );
        let emptied = ledger_end_reread(Some(7), None).unwrap_err();
        assert_eq!(
            emptied.to_string(),
            "the ledger end went back from 7 to an empty ledger"
        );
    }

    #[test]
    fn known_new_and_rewritten() {
        assert_eq!(
            reread("a", At::new(1, 5), Kept::Same, Some(At::new(1, 9))),
            Ok(Reread::Known)
        );
        assert_eq!(
            reread("a", At::new(1, 10), Kept::Absent, Some(At::new(1, 9))),
            Ok(Reread::New)
        );
        assert!(reread("a", At::new(1, 9), Kept::Absent, Some(At::new(1, 9))).is_err());
        assert!(reread("a", At::new(0, 99), Kept::Absent, Some(At::new(1, 9))).is_err());
        let r = reread("a", At::new(1, 5), Kept::Other("differs".into()), None).unwrap_err();
        assert_eq!(r.what, "differs");
        let same = |_: &str, _: At| Kept::Same;
        assert_eq!(
            newest_reread(("a", At::new(1, 9)), Some(("a", At::new(1, 9))), same),
            Ok(())
        );
        let r = newest_reread(("a", At::new(1, 9)), None, same).unwrap_err();
        assert_eq!(r.update_id, "a");
        assert!(newest_reread(("a", At::new(1, 9)), Some(("b", At::new(1, 10))), same).is_err());
        let absent = |_: &str, _: At| Kept::Absent;
        assert!(newest_reread(("a", At::new(1, 9)), Some(("b", At::new(1, 9))), absent).is_err());
    }
}
