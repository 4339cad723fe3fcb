//! `GET /v0/events/latest-record-time` (Splice 0.8 and later; not in the 0.7.5 spec): the latest
//! record time for which `/v0/events` can answer, the head of the scan's verdict ingestion. It
//! is not the head of `/v2/updates` (verdicts trail the updates): the difference is the scan's
//! verdict ingestion lag.
//!
//! On an older scan the path falls into `/v0/events/{update_id}` and answers 404 (no update
//! with id `latest-record-time`) or 400: that means the endpoint is absent, not an error
//! ([`or_absent`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::api::call::{Call, Group};
use crate::api::error::ApiError;

/// The answer: `{"record_time": "…"}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LatestEventRecordTime {
    /// As sent (ISO 8601).
    pub record_time: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `GET /v0/events/latest-record-time`. Pass the result through [`or_absent`]: an older scan
/// answers 404 or 400.
pub fn latest_event_record_time() -> Call<LatestEventRecordTime> {
    Group::Scan
        .get(
            "scan GET /v0/events/latest-record-time",
            "/v0/events/latest-record-time",
        )
        .named("latest record time of events")
}

/// Whether `e` is how a scan without the endpoint answers it (older than Splice 0.8: the path
/// is read as `/v0/events/{update_id}`, which answers 404 or 400).
pub fn is_absent(e: &ApiError) -> bool {
    matches!(e.status(), Some(400 | 404))
}

/// The answer, `None` when the scan does not serve the endpoint ([`is_absent`]); other errors
/// stay errors.
pub fn or_absent(
    result: Result<LatestEventRecordTime, ApiError>,
) -> Result<Option<LatestEventRecordTime>, ApiError> {
    match result {
        Ok(t) => Ok(Some(t)),
        Err(e) if is_absent(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_and_reads_the_time() {
        let call = latest_event_record_time();
        assert_eq!(call.path(), "/v0/events/latest-record-time");
        let t = call
            .decode_response(
                200,
                &[],
                br#"{"record_time":"2026-01-30T08:49:18.5Z","x":1}"#,
            )
            .expect("decodes");
        assert_eq!(t.record_time, "2026-01-30T08:49:18.5Z");
        assert!(t.unknown.contains_key("x"));
    }

    #[test]
    fn a_404_or_400_is_absent_other_errors_are_not() {
        let nf = ApiError::NotFound {
            endpoint: "e",
            message: "Event with update id latest-record-time not found".into(),
        };
        assert_eq!(or_absent(Err(nf)).expect("absent"), None);
        let gone = ApiError::EndpointNotServed {
            endpoint: "e",
            version: None,
        };
        assert_eq!(or_absent(Err(gone)).expect("absent"), None);
        let down = ApiError::Timeout { endpoint: "e" };
        assert!(or_absent(Err(down)).is_err());
    }
}
