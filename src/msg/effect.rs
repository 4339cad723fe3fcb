//! What `App::update` asks the runtime to do: fetches (HTTP through `api/`), clipboard, file
//! writes, quitting. The runtime sends each result back as an [`super::Action`].

use std::path::PathBuf;
use std::sync::Arc;

use super::PaneId;
use crate::api::scan::UpdatesRequest;
use crate::api::{Answer, Answered, ApiCall, ApiError, Call};
use crate::model::consensus::Unordered;
use crate::model::index::read::{IndexAnswer, IndexRead, IndexReply};
use crate::model::network::{HistoryHead, NetworkCheck, NetworkSnapshot};
use crate::model::sweep::{Cursor, SweepPageReply};

/// Who sent a request, and so who takes its reply: a pane, or one of the state machines the
/// app owns (the history loader, History's timeline, health, the local index's feed).
/// `App::handle` routes a reply by this alone (one match, no probing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Owner {
    /// A pane.
    Pane(PaneId),
    /// The history loader ([`crate::feed::loader`]).
    Loader,
    /// History's timeline over the local index and the scan ([`crate::feed::timeline`]).
    Timeline,
    /// The health the app owns: my nodes, the network watch, my node's metrics
    /// ([`crate::feed::health`]).
    Health,
    /// The local index's reach ([`crate::feed::index`]).
    Index,
    /// The Rounds view's read of the index's rounds (`crate::ui::rounds`).
    Rounds,
}

impl Default for Owner {
    fn default() -> Self {
        Owner::Pane(PaneId::default())
    }
}

impl From<PaneId> for Owner {
    fn from(pane: PaneId) -> Self {
        Owner::Pane(pane)
    }
}

impl Owner {
    /// The pane, when a pane sent it.
    pub fn pane(self) -> Option<PaneId> {
        match self {
            Owner::Pane(p) => Some(p),
            _ => None,
        }
    }
}

/// Identifies one request (a fetch or a file operation) and who sent it ([`Owner`]): the app
/// delivers the reply to that owner only. An owner keeps the id of its current request and
/// drops replies to older ones (latest request wins). Ids grow: a larger `seq` was sent later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RequestId {
    pub seq: u64,
    pub owner: Owner,
}

impl RequestId {
    pub fn new(owner: impl Into<Owner>, seq: u64) -> Self {
        RequestId {
            seq,
            owner: owner.into(),
        }
    }
}

/// Hands out request ids in sending order.
#[derive(Debug, Clone, Default)]
pub struct RequestIds(u64);

impl RequestIds {
    /// A new id for a request of `owner`.
    pub fn next(&mut self, owner: impl Into<Owner>) -> RequestId {
        self.0 += 1;
        RequestId::new(owner, self.0)
    }
}

/// A finished fetch, as the app hands it to the pane that asked.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub id: RequestId,
    pub request: Request,
    pub result: Result<Response, ApiError>,
    /// How long the request took, in milliseconds.
    pub elapsed_ms: u32,
}

/// What a reply of the local index that is not the answer its read expects says.
pub const UNEXPECTED_INDEX_ANSWER: &str = "unexpected answer to an index read";

impl Fetched {
    /// The local index's answer in this reply: the index's failure or the request's error as
    /// one line for the user, and a reply that is not an index read's as "unexpected".
    pub fn index_answer(&self) -> Result<IndexAnswer, String> {
        match &self.result {
            Ok(r) => match r.index() {
                Some(a) => a.clone().map_err(|f| f.message),
                None => Err(UNEXPECTED_INDEX_ANSWER.to_owned()),
            },
            Err(e) => Err(e.to_string()),
        }
    }
}

/// A fetch to run.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// One API call (any endpoint of `api/`), on the profile's node of the call's group (its
    /// own scan for a scan call).
    Api(ApiCall),
    /// One scan call on the configured scan `scan` (numbered from 0; the profile's own scan
    /// when there are no others).
    OnScan { scan: usize, call: ApiCall },
    /// Every scan of the network (discovered, each within its request budget): `/status`,
    /// `/version`, the newest open mining round and the newest update of its history (paging
    /// forward from `heads`, the heads found last time, by scan URL). `now`: the app's clock.
    NetworkHealth {
        now: i64,
        heads: Vec<(String, HistoryHead)>,
        /// Run the head check too (one `/v2/updates` page per scan, compared update by update)
        /// and keep what it finds.
        head_check: bool,
    },
    /// Changes to the network's kept findings (opened by `b` or a sweep, acknowledged, …),
    /// answered with the findings after them.
    Findings {
        ops: Vec<crate::model::findings::FindingOp>,
        now: i64,
    },
    /// One update on every scan: `GET /v2/updates/{id}` and `GET /v0/events/{id}`.
    NetworkCheck { update_id: String, now: i64 },
    /// A pane's scan call (holdings summary, validator faucets, hosting participants, reward
    /// weight, …) asked of every scan, the answers grouped; `what` names it on the screen.
    OnEveryScan {
        call: ApiCall,
        what: String,
        now: i64,
        /// Lists of the answer whose order carries no meaning (sorted before grouping).
        unordered: Unordered,
    },
    /// One page of the history sweep on every scan: `POST /v2/updates` after `after` (`None`:
    /// from the beginning), each answer reduced to its item hashes.
    SweepPage {
        after: Option<Cursor>,
        page_size: usize,
        now: i64,
    },
    /// Where a sweep from `time` (µs) starts: after (the migration whose first update is the
    /// newest at or before `time`, `time`), read from the profile's own scan, else the others.
    SweepStart { time: i64, now: i64 },
    /// A page of the history (`POST /v2/updates`) for the history loader, named `name` in the
    /// log: answered from the local index where the index covers it (all of it with
    /// `--offline`), else by the profile's scan; the answer is an `UpdatesPage` either way.
    History { req: UpdatesRequest, name: String },
    /// An update's body and verdict, wherever the explorer can read it (decided here, in the
    /// runtime, for every pane that shows one): the profile's scan (`GET /v0/events/{id}`,
    /// answered [`Response::Api`]); with `--offline`, or when the scan does not answer (a
    /// transient failure) and the profile has a usable index, the local index's copy (answered
    /// [`Response::Kept`], which says why).
    Body { update_id: String },
    /// A read of the local history index, run on a blocking thread.
    Index(IndexRead),
    /// One mining round on every scan (each within its request budget): its activity totals
    /// and its root hash on the reward accounting endpoints (the Rounds view).
    RoundOnScans { round: i64, now: i64 },
    /// One mining round's reward tree walked on every scan serving a root hash (each batch's
    /// hash recomputed), the providers of its leaves looked up in the local index (the Rounds
    /// view's `T`).
    RoundTree { round: i64, now: i64 },
    /// My node: every configured metrics endpoint scraped (or the Prometheus queried) once;
    /// `now`: the app's clock.
    NodeMetrics { now: i64 },
}

/// An update's body the local index answered for `Request::Body`: its reply (the item's JSON,
/// or none kept), and the scan's failure when the scan was asked first (`None`: `--offline`).
#[derive(Debug, Clone)]
pub struct KeptBody {
    pub reply: IndexReply,
    pub scan_failed: Option<ApiError>,
}

impl Request {
    /// The update a body request is for (`Request::Body`, or a `GET /v0/events/{id}` call).
    pub fn body_subject(&self) -> Option<&str> {
        match self {
            Request::Body { update_id } => Some(update_id),
            other => other.call().and_then(|c| c.subject()),
        }
    }

    /// A request for `call` on the profile's node.
    pub fn api<T: Into<Answer> + 'static>(call: Call<T>) -> Request {
        Request::Api(call.into_answer())
    }

    /// A request for the scan call `call` on configured scan `scan` (from 0).
    pub fn on_scan<T: Into<Answer> + 'static>(scan: usize, call: Call<T>) -> Request {
        Request::OnScan {
            scan,
            call: call.into_answer(),
        }
    }

    /// The scan call `call` asked of every scan, named `what` on the screen.
    pub fn on_every_scan<T: Into<Answer> + 'static>(
        call: Call<T>,
        what: impl Into<String>,
        now: i64,
    ) -> Request {
        Request::OnEveryScan {
            call: call.into_answer(),
            what: what.into(),
            now,
            unordered: Unordered::NONE,
        }
    }

    /// [`Request::on_every_scan`], the `unordered` lists of each answer sorted before the
    /// answers are grouped (a list the scans may send in any order).
    pub fn on_every_scan_sorted<T: Into<Answer> + 'static>(
        call: Call<T>,
        what: impl Into<String>,
        now: i64,
        unordered: Unordered,
    ) -> Request {
        Request::OnEveryScan {
            call: call.into_answer(),
            what: what.into(),
            now,
            unordered,
        }
    }

    /// The API call this request sends (`None` for the network jobs, which send many).
    pub fn call(&self) -> Option<&ApiCall> {
        match self {
            Request::Api(call) | Request::OnScan { call, .. } => Some(call),
            _ => None,
        }
    }

    /// A short description of a request for logs (no tokens, no bodies).
    pub fn describe(&self) -> String {
        match self {
            Request::Api(call) => match call.subject() {
                Some(subject) => format!("{} {subject}", call.name()),
                None => call.name().to_owned(),
            },
            // Scans are numbered from 1, as the UI shows them.
            Request::OnScan { scan, call } => format!("{} on scan {}", call.name(), scan + 1),
            Request::NetworkHealth { .. } => "network health".into(),
            Request::Findings { ops, .. } => format!("findings ({} changes)", ops.len()),
            Request::NetworkCheck { update_id, .. } => format!("network check {update_id}"),
            Request::SweepPage { .. } => "network sweep page".into(),
            Request::SweepStart { .. } => "network sweep start".into(),
            Request::OnEveryScan { call, .. } => format!("on every scan: {}", call.name()),
            Request::History { name, .. } => name.clone(),
            Request::Body { update_id } => {
                let call =
                    crate::api::scan::event(update_id, &crate::api::scan::ValueEncoding::default());
                format!("{} {update_id}", call.name())
            }
            Request::Index(read) => read.describe(),
            Request::RoundOnScans { round, .. } => format!("round {round} on every scan"),
            Request::RoundTree { round, .. } => {
                format!("round {round}'s reward tree on every scan")
            }
            Request::NodeMetrics { .. } => "node metrics".into(),
        }
    }
}

/// Declares [`Response`] and, for each variant with an answer, the accessor named after the
/// arrow: `Some(answer)` when the response is that variant (a boxed answer unboxed), so a pane
/// picks its answer with `Response::sweep_page` instead of a hand-written `match`.
macro_rules! responses {
    ($( $(#[$doc:meta])* $variant:ident $( ( $($answer:tt)+ ) => $accessor:ident )?, )*) => {
        /// A fetch result.
        #[derive(Debug, Clone)]
        pub enum Response {
            $( $(#[$doc])* $variant $( ( $($answer)+ ) )?, )*
        }

        impl Response {
            $( $( response_accessor!($variant, $accessor, $($answer)+); )? )*
        }
    };
}

/// One accessor of [`Response`] (see `responses!`); a `Box<T>` answer is handed out as `&T`.
macro_rules! response_accessor {
    ($variant:ident, $accessor:ident, Box<$answer:ty>) => {
        response_accessor!($variant, $accessor, $answer);
    };
    ($variant:ident, $accessor:ident, $answer:ty) => {
        #[doc = concat!("The answer when this is a `", stringify!($variant), "` response.")]
        pub fn $accessor(&self) -> Option<&$answer> {
            match self {
                Response::$variant(answer) => Some(answer),
                _ => None,
            }
        }
    };
}

responses! {
    /// The answer of one API call (`Request::Api`, `Request::OnScan`).
    Api(Answer) => api,
    NetworkHealth(Box<NetworkSnapshot>) => network_health,
    NetworkCheck(Box<NetworkCheck>) => network_check,
    /// The network's findings after a change.
    Findings(Box<crate::model::findings::FindingsBook>) => findings,
    SweepPage(Box<SweepPageReply>) => sweep_page,
    /// Where the sweep starts, or why that could not be found.
    SweepStart(Result<Cursor, String>) => sweep_start,
    /// What the local index answered.
    Index(Box<IndexReply>) => index,
    /// An update's body read from the local index in place of the scan (`Request::Body`).
    Kept(Box<KeptBody>) => kept,
    /// My node: one scrape per endpoint (samples or the error).
    NodeMetrics(Box<Vec<crate::model::metrics::Scrape>>) => node_metrics,
    /// One round as every scan serves it (`Request::RoundOnScans`).
    RoundOnScans(Box<crate::model::index::rounds::RoundOnScans>) => round_on_scans,
    /// One round's reward tree on every scan (`Request::RoundTree`).
    RoundTree(Box<crate::model::reward_tree::RoundTrees>) => round_tree,
}

impl Response {
    /// The API answer as `T`, when it is one: what a pane picks its reply with
    /// (`load.accept(reply, "parties", Response::answer::<PartiesResponse>)`).
    pub fn answer<T: Answered>(&self) -> Option<&T> {
        self.api()?.get()
    }

    /// The shared API answer as `T` (for a pane that keeps it).
    pub fn shared<T: Answered>(&self) -> Option<&Arc<T>> {
        self.api()?.shared()
    }
}

impl<T: Into<Answer>> From<T> for Response {
    fn from(answer: T) -> Self {
        Response::Api(answer.into())
    }
}

/// The error of an `Effect::CreateFile` whose path exists.
pub const FILE_EXISTS: &str = "the file exists";

/// A side effect for the runtime.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Run a request; answer with `Action::Fetched`.
    Fetch { id: RequestId, request: Request },
    /// Abort a request if it is still running (its reply would be dropped anyway).
    Cancel(RequestId),
    /// Copy text to the clipboard through OSC 52.
    Copy(String),
    /// Announce new findings: the terminal bell once and, with `notify = "osc"`, a desktop
    /// notification of this text (made terminal-safe by the runtime).
    Notify {
        text: String,
        mode: crate::model::findings::NotifyMode,
    },
    /// Write (create or truncate) a file; answer with `Action::Written`. File effects run in
    /// the order they were issued.
    WriteFile {
        id: RequestId,
        path: PathBuf,
        contents: Vec<u8>,
    },
    /// Write a new file, never replacing one: when `path` exists, answer `Action::Written`
    /// with the error [`FILE_EXISTS`] (the pane then asks before a `WriteFile`).
    CreateFile {
        id: RequestId,
        path: PathBuf,
        contents: Vec<u8>,
    },
    /// Append to a file written before (a streamed export's next chunk); answer with
    /// `Action::Written` (the bytes appended).
    AppendFile {
        id: RequestId,
        path: PathBuf,
        contents: Vec<u8>,
    },
    /// Replace a file the explorer keeps between runs (the profile's state): its folder made, a
    /// temporary file renamed over it, in order with the other file effects; no answer (a
    /// failure is logged).
    KeepFile { path: PathBuf, contents: Vec<u8> },
    /// Remove a file (a cancelled export's partial output); no answer.
    RemoveFile(PathBuf),
    /// Cut a file to `len` bytes (a resumed export drops a row cut short); answer with
    /// `Action::Written` (`len`). Runs in order with the other file effects.
    TruncateFile {
        id: RequestId,
        path: PathBuf,
        len: u64,
    },
    /// Read a file (e.g. a request body the user named); answer with `Action::FileRead`.
    ReadFile { id: RequestId, path: PathBuf },
    /// Load a theme by name; answer with `Action::ThemeLoaded`.
    LoadTheme(String),
    /// Leave the app.
    Quit,
}

#[cfg(test)]
mod tests {
    use super::Request;
    use crate::api::scan;

    #[test]
    fn log_descriptions_number_scans_from_1_like_the_ui() {
        assert_eq!(
            Request::on_scan(5, scan::status()).describe(),
            "status on scan 6"
        );
        assert_eq!(
            Request::on_scan(
                0,
                scan::update_by_hash("ab", &scan::ValueEncoding::default())
            )
            .describe(),
            "update-by-hash on scan 1"
        );
    }
}
