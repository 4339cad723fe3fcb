//! The API client: the only client-side module that knows HTTP.
//!
//! - [`ApiClient`] (built from [`ApiConfig`]) executes [`Call`]s: `client.send(&call)` gives the
//!   typed answer, `client.send_raw(&call)` also the exact status, headers and body.
//! - Calls are built per endpoint by [`scan`], [`validator`] and [`ledger`] (e.g.
//!   `scan::updates(&req)`), which also hold the typed models with the API's own field names.
//! - Every failure is an [`ApiError`]; the ledger token comes from a [`TokenSource`] and is a
//!   [`Secret`] that never prints.
//!
//! ```text
//! scan::updates(&req) ──► Call<UpdatesPage> ──► client.send(&call) ──► Result<UpdatesPage, ApiError>
//! ```

pub mod answer;
pub mod auth;
pub mod call;
pub mod client;
pub mod error;
pub mod json;
pub mod ledger;
pub mod metrics;
pub mod scan;
pub mod validator;

pub use answer::{Answer, Answered};
pub use auth::{Secret, TokenSource};
pub use call::{Call, Exchange, Group, Method, RawResponse};

/// A call as the app's requests carry it: any endpoint, its answer an [`Answer`].
pub type ApiCall = Call<Answer>;
pub use client::classify_answer;
pub use client::{ApiClient, ApiConfig, redact_userinfo, without_userinfo};
pub use error::ApiError;
pub use json::{RawJson, sanitize_line};
