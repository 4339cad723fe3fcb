//! Where a pane's request stands, and the one place a reply is matched to it: [`accept`] (and
//! [`Load::accept`]) drop replies to requests that are no longer the pane's current one (latest
//! request wins), clear the pending id, pick the answer out of the [`Response`] and turn an
//! answer of the wrong kind into the single "unexpected response" failure, so no pane writes
//! that matching (and that error arm) itself.

use std::fmt;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::api::ApiError;
use crate::msg::{Fetched, RequestId, Response};
use crate::ui::layout::paragraph;
use crate::ui::theme::Theme;

/// Why a request failed: the API said so, or the answer was of another kind than asked for.
#[derive(Debug, Clone, Copy)]
pub enum Failure<'a> {
    Api(&'a ApiError),
    /// The reply carried another kind of answer (names the request).
    Unexpected(&'static str),
}

impl Failure<'_> {
    /// One line: `explain` for an API error, "unexpected response to …" otherwise.
    pub fn text(&self, explain: impl FnOnce(&ApiError) -> String) -> String {
        match self {
            Failure::Api(e) => explain(e),
            Failure::Unexpected(what) => format!("unexpected response to {what}"),
        }
    }

    /// The API error, when it is one.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Failure::Api(e) => Some(e),
            Failure::Unexpected(_) => None,
        }
    }
}

impl fmt::Display for Failure<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Api(e) => write!(f, "{e}"),
            Failure::Unexpected(what) => write!(f, "unexpected response to {what}"),
        }
    }
}

/// Matches `reply` to the request a pane waits for (`pending`). `None` when it is not that
/// request's reply (stale or never asked: dropped). Otherwise `pending` is cleared and the
/// answer is what `pick` takes out of the response (`what` names the request when the answer
/// is of another kind), or the API's error.
pub fn accept<'a, T>(
    pending: &mut Option<RequestId>,
    reply: &'a Fetched,
    what: &'static str,
    pick: impl FnOnce(&'a Response) -> Option<T>,
) -> Option<Result<T, Failure<'a>>> {
    if *pending != Some(reply.id) {
        return None;
    }
    *pending = None;
    Some(picked(reply, what, pick))
}

fn picked<'a, T>(
    reply: &'a Fetched,
    what: &'static str,
    pick: impl FnOnce(&'a Response) -> Option<T>,
) -> Result<T, Failure<'a>> {
    match &reply.result {
        Ok(r) => pick(r).ok_or(Failure::Unexpected(what)),
        Err(e) => Err(Failure::Api(e)),
    }
}

/// What a section shows before its answer is there.
#[derive(Debug, Clone, Copy)]
pub struct Waiting {
    /// Before anything was asked (usually the key that asks).
    pub idle: &'static str,
    /// While the request is in flight.
    pub loading: &'static str,
}

/// Where one request of a pane stands. Replies to anything but the `Loading` id are dropped.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Load<T> {
    /// Nothing asked yet.
    #[default]
    Idle,
    /// Waiting for this request.
    Loading(RequestId),
    /// The answer.
    Done(T),
    /// The explained failure.
    Failed(String),
}

impl<T> Load<T> {
    /// Waits for request `id` from now on; returns the request it waited for before (to be
    /// cancelled), if any.
    pub fn start(&mut self, id: RequestId) -> Option<RequestId> {
        let old = match self {
            Load::Loading(old) => Some(*old),
            _ => None,
        };
        *self = Load::Loading(id);
        old
    }

    /// Matches `reply` to the request this state waits for, as [`accept`] does: `None` for a
    /// reply to any other request (dropped, the state unchanged); otherwise the answer `pick`
    /// takes out of the response, or the failure. The caller stores what it makes of it.
    pub fn accept<'a, U>(
        &self,
        reply: &'a Fetched,
        what: &'static str,
        pick: impl FnOnce(&'a Response) -> Option<U>,
    ) -> Option<Result<U, Failure<'a>>> {
        self.waits_for(reply.id).then(|| picked(reply, what, pick))
    }

    /// Whether `id` is the request this state waits for.
    pub fn waits_for(&self, id: RequestId) -> bool {
        matches!(self, Load::Loading(mine) if *mine == id)
    }

    /// The answer, when there is one.
    pub fn done(&self) -> Option<&T> {
        match self {
            Load::Done(t) => Some(t),
            _ => None,
        }
    }

    /// Whether nothing was asked yet.
    pub fn is_idle(&self) -> bool {
        matches!(self, Load::Idle)
    }

    /// Whether a request is in flight.
    pub fn is_loading(&self) -> bool {
        matches!(self, Load::Loading(_))
    }

    /// The failure text, when the request failed.
    pub fn failure(&self) -> Option<&str> {
        match self {
            Load::Failed(e) => Some(e),
            _ => None,
        }
    }

    /// The answer; until there is one, draws what stands instead over `area` and returns
    /// `None`: the text of `waiting` before anything was asked or while waiting, or the failure.
    pub fn or_draw(
        &self,
        area: Rect,
        buf: &mut Buffer,
        theme: &Theme,
        waiting: &Waiting,
    ) -> Option<&T> {
        let (text, style) = match self {
            Load::Done(t) => return Some(t),
            Load::Idle => (waiting.idle, theme.muted),
            Load::Loading(_) => (waiting.loading, theme.muted),
            Load::Failed(e) => (e.as_str(), theme.status_err),
        };
        paragraph(area, buf, text, style);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ledger::{JsGetUpdateTreesResponse, LedgerEnd};
    use crate::msg::{PaneId, Request};

    fn reply(seq: u64, result: Result<Response, ApiError>) -> Fetched {
        Fetched {
            id: RequestId::new(PaneId::Holdings, seq),
            request: Request::api(crate::api::ledger::ledger_end()),
            result,
            elapsed_ms: 0,
        }
    }

    #[test]
    fn only_the_current_request_is_accepted_and_other_answers_are_unexpected() {
        let end = |r: &Response| r.answer::<LedgerEnd>().map(|e| e.offset);
        let mut pending = Some(RequestId::new(PaneId::Holdings, 2));
        let stale = reply(
            1,
            Ok(Response::from(LedgerEnd {
                offset: Some(5),
                ..LedgerEnd::default()
            })),
        );
        assert!(accept(&mut pending, &stale, "x", end).is_none());
        assert!(
            pending.is_some(),
            "a stale reply leaves the request pending"
        );
        let ok = reply(
            2,
            Ok(Response::from(LedgerEnd {
                offset: Some(7),
                ..LedgerEnd::default()
            })),
        );
        assert_eq!(
            accept(&mut pending, &ok, "x", end).map(Result::ok),
            Some(Some(Some(7)))
        );
        assert_eq!(pending, None);
        assert!(
            accept(&mut pending, &ok, "x", end).is_none(),
            "answered once"
        );

        let mut load: Load<i64> = Load::Idle;
        assert_eq!(load.start(RequestId::new(PaneId::Holdings, 3)), None);
        let other = reply(
            3,
            Ok(Response::from(Vec::<JsGetUpdateTreesResponse>::new())),
        );
        let failure = load
            .accept(&other, "the ledger end", end)
            .and_then(Result::err);
        assert_eq!(
            failure
                .map(|f| f.text(std::string::ToString::to_string))
                .as_deref(),
            Some("unexpected response to the ledger end")
        );
        assert_eq!(
            load.start(RequestId::new(PaneId::Holdings, 4)),
            Some(RequestId::new(PaneId::Holdings, 3)),
            "the request to cancel"
        );
    }
}
