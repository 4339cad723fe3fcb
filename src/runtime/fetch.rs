//! Runs a [`Request`] through the API client and wraps the typed result in a [`Response`].
//! The only bridge between the app's pure requests and HTTP.

use std::sync::Arc;

use crate::api::scan::{self, ValueEncoding};
use crate::api::{ApiClient, ApiError, ledger, validator};
use crate::app::effect::{Request, Response};

/// The API clients of a session: one per configured scan (the first is the main one, which also
/// carries the validator and ledger URLs).
#[derive(Clone)]
pub struct Clients {
    pub main: ApiClient,
    pub scans: Vec<ApiClient>,
}

impl Clients {
    /// Clients for `main` plus one per extra scan URL (sharing the connection pool).
    pub fn new(main: ApiClient, scan_urls: &[String]) -> Self {
        let scans = scan_urls.iter().map(|u| main.with_scan_url(u)).collect();
        Clients { main, scans }
    }

    fn scan(&self, i: usize) -> &ApiClient {
        self.scans.get(i).unwrap_or(&self.main)
    }
}

/// A short description of a request for logs (no tokens, no bodies).
pub fn describe(request: &Request) -> String {
    match request {
        Request::Updates { purpose, .. } => format!("updates {purpose:?}"),
        Request::Event { update_id } => format!("event {update_id}"),
        Request::ByHash { scan, .. } => format!("update-by-hash on scan {scan}"),
        Request::Status { scan } => format!("status of scan {scan}"),
        Request::LedgerEnd => "ledger end".into(),
        Request::ValidatorProbe => "validator amulet-rules".into(),
    }
}

/// Runs one request.
pub async fn execute(clients: &Clients, request: &Request) -> Result<Response, ApiError> {
    let enc = ValueEncoding::default();
    match request {
        Request::Updates { req, .. } => clients
            .main
            .send(&scan::updates(req))
            .await
            .map(Response::Updates),
        Request::Event { update_id } => clients
            .main
            .send(&scan::event(update_id, &enc))
            .await
            .map(|b| Response::Event(Arc::new(b))),
        Request::ByHash { scan: i, hash } => clients
            .scan(*i)
            .send(&scan::update_by_hash(hash, &enc))
            .await
            .map(|u| Response::ByHash(Box::new(u))),
        Request::Status { scan: i } => clients
            .scan(*i)
            .send(&scan::status())
            .await
            .map(|s| Response::Status(Box::new(s))),
        Request::LedgerEnd => clients
            .main
            .send(&ledger::ledger_end())
            .await
            .map(|e| Response::LedgerEnd(e.offset)),
        Request::ValidatorProbe => clients
            .main
            .send(&validator::amulet_rules())
            .await
            .map(|_| Response::ValidatorOk),
    }
}
