//! Runs a [`Request`] through the API client: the call it carries on the node it names (no
//! endpoint is named here), or a network job through the session. The only bridge between the
//! app's pure requests and HTTP.

use std::sync::Arc;

use crate::api::{ApiClient, ApiError};
use crate::msg::{Request, Response};

/// The API clients of a session: one per configured scan (the first is the main one, which also
/// carries the validator and ledger URLs).
#[derive(Clone)]
pub struct Clients {
    pub main: ApiClient,
    pub scans: Vec<ApiClient>,
    /// The whole network (discovered scans, each within its budget), when scans are configured.
    pub network: Option<Arc<crate::every_scan::session::NetworkSession>>,
    /// The local history index, when the profile has one.
    pub index: Option<super::index::IndexSource>,
    /// My node's metrics endpoints (or Prometheus), when the profile has some.
    pub node: Option<Arc<crate::api::metrics::MetricsSources>>,
}

impl Clients {
    /// Clients for `main` plus one per extra scan URL (sharing the connection pool).
    pub fn new(main: ApiClient, scan_urls: &[String]) -> Self {
        let scans = scan_urls.iter().map(|u| main.with_scan_url(u)).collect();
        Clients {
            main,
            scans,
            network: None,
            index: None,
            node: None,
        }
    }

    fn scan(&self, i: usize) -> &ApiClient {
        self.scans.get(i).unwrap_or(&self.main)
    }
}

/// Runs one request: an API call on the node it names, or a job of the network session.
pub async fn execute(clients: &Clients, request: &Request) -> Result<Response, ApiError> {
    let offline = clients.index.as_ref().is_some_and(|i| i.offline);
    match request {
        Request::Index(read @ crate::model::index::read::IndexRead::Reach { .. }) => {
            match &clients.index {
                Some(source) => Ok(Response::Index(Box::new(
                    super::index::reach(source, &clients.main, read.clone()).await,
                ))),
                None => Err(no_index()),
            }
        }
        Request::Index(crate::model::index::read::IndexRead::Validators) => match &clients.index {
            Some(source) => Ok(Response::Index(Box::new(
                super::index::validators(source, &clients.main).await,
            ))),
            None => Err(no_index()),
        },
        Request::Index(read) => match &clients.index {
            Some(source) => Ok(Response::Index(Box::new(
                super::index::read(source, read.clone()).await,
            ))),
            None => Err(no_index()),
        },
        Request::History { req, .. } => {
            super::index::history_page(clients.index.as_ref(), &clients.main, req).await
        }
        Request::Body { update_id } => body(clients, update_id, offline).await,
        _ if offline => Err(super::index::offline_error()),
        Request::RoundTree { round, now } => match &clients.network {
            Some(session) => {
                let mut trees = session.round_tree(*round, *now).await;
                if let Some(source) = &clients.index {
                    let parties = trees.providers();
                    trees.kept = Some(super::index::kept_records(source, *round, parties).await);
                }
                Ok(Response::RoundTree(Box::new(trees)))
            }
            None => Err(ApiError::NotConfigured {
                what: "a scan URL (the network is discovered from its /v0/scans)".into(),
            }),
        },
        Request::NodeMetrics { now } => match &clients.node {
            Some(sources) => Ok(Response::NodeMetrics(Box::new(
                crate::api::metrics::read_sources(&clients.main, sources, *now).await,
            ))),
            None => Err(ApiError::NotConfigured {
                what: "metrics endpoints (metrics or prometheus in the profile)".into(),
            }),
        },
        Request::Api(call) => clients.main.send(call).await.map(Response::Api),
        Request::OnScan { scan, call } => clients.scan(*scan).send(call).await.map(Response::Api),
        Request::NetworkHealth { .. }
        | Request::Findings { .. }
        | Request::NetworkCheck { .. }
        | Request::SweepPage { .. }
        | Request::SweepStart { .. }
        | Request::RoundOnScans { .. }
        | Request::OnEveryScan { .. } => match &clients.network {
            Some(session) => session.execute(request).await,
            None => Err(ApiError::NotConfigured {
                what: "a scan URL (the network is discovered from its /v0/scans)".into(),
            }),
        },
    }
}

/// The error of an index read without an index.
fn no_index() -> ApiError {
    ApiError::NotConfigured {
        what: "a local history index (cantonscope index sync)".into(),
    }
}

/// An update's body: the scan's `/v0/events/{id}`, else (offline, or the scan not answering
/// with an index at hand) the local index's copy. Where it came from is the answer's variant.
async fn body(clients: &Clients, update_id: &str, offline: bool) -> Result<Response, ApiError> {
    let scan_failed = if offline {
        None
    } else {
        let call = crate::api::scan::event(update_id, &crate::api::scan::ValueEncoding::default());
        match clients.main.send(&call.into_answer()).await {
            Ok(answer) => return Ok(Response::Api(answer)),
            Err(e) if e.is_transient() && clients.index.is_some() => Some(e),
            Err(e) => return Err(e),
        }
    };
    let Some(source) = &clients.index else {
        return Err(super::index::offline_error());
    };
    let read = crate::model::index::read::IndexRead::Body {
        update_id: update_id.to_owned(),
    };
    let reply = super::index::read(source, read).await;
    match (reply, scan_failed) {
        // An index that cannot be used says nothing of the update: the scan's failure stands.
        (Err(f), Some(e)) if f.unusable => Err(e),
        (reply, scan_failed) => Ok(Response::Kept(Box::new(crate::msg::KeptBody {
            reply,
            scan_failed,
        }))),
    }
}
