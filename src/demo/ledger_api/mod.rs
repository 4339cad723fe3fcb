//! The participant ledger group (JSON Ledger API v2 under `/v2`), as seen by one participant that
//! hosts some of the parties. Every call needs an HS256 bearer token signed with the demo secret.
//! Invalid values answer 400 `text/plain`; other failures a `JsCantonError`. This file is the
//! router; the checks of a request and those error replies are `request.rs`.

mod execute;
mod parties;
mod request;
mod updates;

use axum::Router;
use axum::routing::{delete, get, post};

use super::state::Shared;
use execute::execute;
use parties::{delete_user, ledger_end, package, participant_id, parties};
use updates::{update_trees, updates_flat};

pub(crate) fn routes(app: Shared) -> Router {
    Router::new()
        .route("/v2/parties/participant-id", get(participant_id))
        .route("/v2/parties/{party}", get(parties))
        .route("/v2/users/{user_id}", delete(delete_user))
        .route("/v2/packages/{package_id}", get(package))
        .route("/v2/state/ledger-end", get(ledger_end))
        .route("/v2/updates/trees", post(update_trees))
        .route("/v2/updates", post(updates_flat))
        .route(
            "/v2/interactive-submission/executeAndWaitForTransaction",
            post(execute),
        )
        .with_state(app)
}
