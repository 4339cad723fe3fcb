//! The updates of the request shown in Detail. Scan's contracts carry no update id: they are
//! found by contract id among the loaded updates (again whenever the loaded history changes),
//! else asked of the local index (a read run as an effect when the detail opens), and Enter
//! opens the one found in the Update pane. For a past result the link is the update that closed
//! the request (`DsoRules_CloseVoteRequest`); its creation is shown beside it. When neither
//! source has an update, the detail says which were asked.

use ratatui::text::{Line, Span};

use super::row;
use crate::model::governance::{VoteUpdates, vote_updates_loaded};
use crate::model::index::read::{IndexAnswer, IndexRead};
use crate::msg::{Effect, Fetched, Request, RequestId, UNEXPECTED_INDEX_ANSWER};
use crate::panes::{Out, Shared};
use crate::ui::format::group_thousands;
use crate::ui::theme::Theme;

/// What a past result without a `trackingCid` says: it names no contract to look for.
pub const NO_CONTRACT_TEXT: &str =
    "the result names no contract (no trackingCid): its updates cannot be found";

/// Which request's updates are looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The contract the request was first created as (`trackingCid ?? contract id`).
    pub contract_id: String,
    /// A closed request: the update that closed it too.
    pub close: bool,
}

/// Where one of the request's updates is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Where {
    Loaded(String),
    Index(String),
    /// Neither has it (yet): why, in words.
    Missing(String),
}

impl Where {
    /// The update id, when found.
    pub fn id(&self) -> Option<&str> {
        match self {
            Where::Loaded(id) | Where::Index(id) => Some(id),
            Where::Missing(_) => None,
        }
    }
}

/// The look-up of the updates of the request shown in Detail.
#[derive(Debug, Clone, Default)]
pub struct UpdateLookup {
    /// `None`: nothing to look for (no request, or a result without a `trackingCid`).
    target: Option<Target>,
    /// What the loaded history has, and the history it was read from (epoch, base, length).
    loaded: VoteUpdates,
    loaded_of: Option<(u64, i64, usize)>,
    /// The index read awaited.
    pending: Option<RequestId>,
    /// The index's answer (its error in words).
    answer: Option<Result<VoteUpdates, String>>,
}

fn history_mark(sh: &Shared) -> (u64, i64, usize) {
    (sh.history.epoch(), sh.history.base(), sh.history.len())
}

fn complete(found: &VoteUpdates, close: bool) -> bool {
    found.creation.is_some() && (!close || found.close.is_some())
}

impl UpdateLookup {
    /// Looks for the updates of `target`: in the loaded history now, and in the local index
    /// (a read) when the loaded history lacks one and an index can be read.
    pub fn start(&mut self, target: Option<Target>, sh: &mut Shared, out: &mut Out) {
        if let Some(old) = self.pending.take() {
            out.effects.push(Effect::Cancel(old));
        }
        *self = UpdateLookup {
            target,
            ..UpdateLookup::default()
        };
        self.sync(sh);
        let Some(t) = &self.target else {
            return;
        };
        if complete(&self.loaded, t.close) || !sh.index.usable() {
            return;
        }
        let read = IndexRead::VoteUpdates {
            contract_id: t.contract_id.clone(),
            close: t.close,
        };
        self.pending = Some(out.fetch(sh, Request::Index(read)));
    }

    /// Reads the loaded history again when it changed; returns whether what is found changed.
    pub fn sync(&mut self, sh: &Shared) -> bool {
        let mark = Some(history_mark(sh));
        let Some(t) = &self.target else {
            return false;
        };
        if mark == self.loaded_of {
            return false;
        }
        self.loaded_of = mark;
        let loaded = vote_updates_loaded(&sh.history, &t.contract_id, t.close);
        let changed = loaded != self.loaded;
        self.loaded = loaded;
        changed
    }

    /// Takes the index's answer; whether the reply was this look-up's.
    pub fn on_fetched(&mut self, reply: &Fetched) -> bool {
        if self.pending != Some(reply.id) {
            return false;
        }
        self.pending = None;
        self.answer = Some(match reply.index_answer() {
            Ok(IndexAnswer::VoteUpdates(found)) => Ok(found),
            Ok(_) => Err(UNEXPECTED_INDEX_ANSWER.to_owned()),
            Err(e) => Err(e),
        });
        true
    }

    /// Whether the index is being asked.
    pub fn is_searching(&self) -> bool {
        self.pending.is_some()
    }

    /// The request's creation.
    pub fn creation(&self, sh: &Shared) -> Where {
        self.find(sh, |f| f.creation.as_deref())
    }

    /// The update that closed the request.
    pub fn close(&self, sh: &Shared) -> Where {
        self.find(sh, |f| f.close.as_deref())
    }

    fn find(&self, sh: &Shared, pick: impl Fn(&VoteUpdates) -> Option<&str>) -> Where {
        if self.target.is_none() {
            return Where::Missing(NO_CONTRACT_TEXT.to_owned());
        }
        if let Some(id) = pick(&self.loaded) {
            return Where::Loaded(id.to_owned());
        }
        if let Some(Ok(found)) = &self.answer
            && let Some(id) = pick(found)
        {
            return Where::Index(id.to_owned());
        }
        let loaded = match sh.history.len() {
            1 => "not among the 1 loaded update".to_owned(),
            n => format!("not among the {} loaded updates", group_thousands(n)),
        };
        let index = match (&self.answer, self.pending.is_some()) {
            (_, true) => "; searching the local index…".to_owned(),
            (Some(Ok(_)), _) => " nor in the local index".to_owned(),
            (Some(Err(e)), _) => format!("; the local index could not be read: {e}"),
            (None, _) if !sh.index.configured() => "; no local index".to_owned(),
            (None, _) => match &sh.index.failure {
                Some(_) => "; the local index cannot be used".to_owned(),
                None => "; the local index was not asked".to_owned(),
            },
        };
        Where::Missing(format!("{loaded}{index}"))
    }

    /// The update Enter opens: for a past result the one that closed it (else its creation),
    /// for an open request its creation; else why there is none.
    pub fn link(&self, sh: &Shared) -> Result<String, String> {
        let close = self.target.as_ref().is_some_and(|t| t.close);
        let first = if close {
            self.close(sh)
        } else {
            self.creation(sh)
        };
        if let Some(id) = first.id() {
            return Ok(id.to_owned());
        }
        if close && let Some(id) = self.creation(sh).id() {
            return Ok(id.to_owned());
        }
        match first {
            Where::Missing(why) => Err(why),
            _ => Err(String::new()),
        }
    }

    /// The detail's lines on the request's updates: for a past result the update that closed
    /// it (and its creation, when found), else its creation.
    pub fn lines(&self, sh: &Shared, theme: &Theme) -> Vec<Line<'static>> {
        let close = self.target.as_ref().is_some_and(|t| t.close);
        let link = self.link(sh).ok();
        let line = |label: &str, lead: &str, at: Where| -> Line<'static> {
            let (id, source) = match at {
                Where::Missing(why) => return row(label, why, theme.muted, theme),
                Where::Loaded(id) => (id, "loaded"),
                Where::Index(id) => (id, "from the local index"),
            };
            let enter = if link.as_deref() == Some(id.as_str()) {
                "; Enter opens it"
            } else {
                ""
            };
            let mut spans = vec![Span::styled(format!("{label:<13}"), theme.muted)];
            if !lead.is_empty() {
                spans.push(Span::raw(lead.to_owned()));
            }
            spans.push(Span::styled(
                crate::ui::safe::sanitize(&id).into_owned(),
                theme.id,
            ));
            spans.push(Span::styled(format!(" ({source}{enter})"), theme.muted));
            Line::from(spans)
        };
        if close {
            let mut lines = vec![line("Update", "closed in ", self.close(sh))];
            let creation = self.creation(sh);
            if creation.id().is_some() {
                lines.push(line("Requested in", "", creation));
            }
            lines
        } else {
            vec![line("Update", "requested in ", self.creation(sh))]
        }
    }
}
