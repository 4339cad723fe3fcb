//! What `App::update` asks the runtime to do: fetches (HTTP through `api/`), clipboard, file
//! writes, quitting. The runtime sends each result back as an [`super::Action`].

use std::path::PathBuf;
use std::sync::Arc;

use crate::api::scan::{EventHistoryItem, NodeStatus, UpdateItem, UpdatesPage, UpdatesRequest};

/// Identifies one request; a pane keeps the id of its current request and drops replies to
/// older ones (latest request wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RequestId(pub u64);

/// Why the history asked for a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdatesPurpose {
    /// Probing whether migration `k` is the newest (page of 1 after (k, far future)).
    Discover { migration: i64 },
    /// Looking for recent activity: window index into the look-back steps.
    Seek { window: usize },
    /// Loading forward towards the head, or polling the head.
    Forward,
    /// Loading updates older than the oldest loaded one.
    Earlier,
}

/// A fetch to run.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// `POST /v2/updates` on scan 0.
    Updates {
        req: UpdatesRequest,
        purpose: UpdatesPurpose,
    },
    /// `GET /v0/events/{update_id}` on scan 0.
    Event { update_id: String },
    /// `GET /v2/updates/hash/{hash}` on scan `scan`.
    ByHash { scan: usize, hash: String },
    /// `GET /status` on scan `scan`.
    Status { scan: usize },
    /// `GET /v2/state/ledger-end`.
    LedgerEnd,
    /// `GET /v0/scan-proxy/amulet-rules`, as a reachability probe of the validator proxy.
    ValidatorProbe,
}

/// A fetch result.
#[derive(Debug, Clone)]
pub enum Response {
    Updates(UpdatesPage),
    Event(Arc<EventHistoryItem>),
    ByHash(Box<UpdateItem>),
    Status(Box<NodeStatus>),
    /// Ledger end offset (`None`: the server sent no offset, an empty ledger).
    LedgerEnd(Option<i64>),
    /// The validator proxy answered.
    ValidatorOk,
}

/// A side effect for the runtime.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Run a request; answer with `Action::Fetched`.
    Fetch { id: RequestId, request: Request },
    /// Abort a request if it is still running (its reply would be dropped anyway).
    Cancel(RequestId),
    /// Copy text to the clipboard through OSC 52.
    Copy(String),
    /// Write a file; answer with `Action::Written`.
    WriteFile {
        id: RequestId,
        path: PathBuf,
        contents: Vec<u8>,
    },
    /// Load a theme by name; answer with `Action::ThemeLoaded`.
    LoadTheme(String),
    /// Leave the app.
    Quit,
}
