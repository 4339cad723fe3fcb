//! Governance in Scan (all `internal` in Splice's `scan.yaml`, so decoded tolerantly): the active
//! vote requests (`GET /v0/admin/sv/voterequests`), their look-ups (`POST /v0/voterequest`,
//! `GET /v0/voterequests/{cid}`), the closed requests' results (`POST /v0/admin/sv/voteresults`
//! and its `/count`) and the SVs' amulet price votes (`GET /v0/amulet-price/votes`).
//!
//! Every Daml payload is read from JSON without ever failing: a field of another shape is left
//! empty, an action whose tag this client does not know keeps its JSON ([`GovAction::value`]),
//! a Daml `Map` (the votes) arrives as `[[key, value], …]` or as an object. Only an answer that
//! is not a JSON object at all is a decode error.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::call::{Call, Group, encode_segment};

/// `reason` of a request or a vote (`Splice.DsoRules:Reason`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct GovReason {
    /// Where the background is (often a CIP or a forum post).
    pub url: String,
    /// Free text.
    pub body: String,
}

impl GovReason {
    fn decode(value: Option<&Value>) -> GovReason {
        GovReason {
            url: text(value.and_then(|v| v.get("url"))),
            body: text(value.and_then(|v| v.get("body"))),
        }
    }
}

/// One vote cast on a request: an entry of `votes` (SV name → `Vote`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct CastVote {
    /// The map's key: the voting SV's name (possibly an SV offboarded since).
    pub voter: String,
    /// `sv`: the party that cast it.
    pub sv: String,
    /// `accept`.
    pub accept: bool,
    /// `reason`.
    pub reason: GovReason,
    /// `optCastAt`, when the vote says.
    pub cast_at: Option<String>,
}

/// `action` of a vote request: `{tag: ARC_…, value: {dsoAction | amuletRulesAction: {tag, value}}}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct GovAction {
    /// The outer tag (`ARC_DsoRules`, `ARC_AmuletRules`, …), empty when absent.
    pub group: String,
    /// The inner tag (`SRARC_SetConfig`, `CRARC_SetConfig`, …), or the outer one when the
    /// action has no known inner action.
    pub name: String,
    /// The inner action's `value` (its arguments), or the whole action when not nested.
    pub value: Value,
    /// The action as the scan sent it.
    pub raw: Value,
}

impl GovAction {
    /// Decodes an action of any shape.
    pub fn decode(raw: &Value) -> GovAction {
        let group = text(raw.get("tag"));
        let outer = raw.get("value");
        let inner = outer.and_then(|v| {
            ["dsoAction", "amuletRulesAction", "ansEntryContextAction"]
                .iter()
                .find_map(|k| v.get(*k))
        });
        match inner.filter(|i| i.get("tag").is_some()) {
            Some(inner) => GovAction {
                group,
                name: text(inner.get("tag")),
                value: inner.get("value").cloned().unwrap_or(Value::Null),
                raw: raw.clone(),
            },
            None => GovAction {
                name: group.clone(),
                group,
                value: outer.cloned().unwrap_or_else(|| raw.clone()),
                raw: raw.clone(),
            },
        }
    }
}

/// A `Splice.DsoRules:VoteRequest`, decoded from its payload (and its contract, when active).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct VoteRequest {
    /// The contract id (empty for the request inside a result).
    pub contract_id: String,
    /// `created_at` of the contract (empty inside a result).
    pub created_at: String,
    /// `requester`: the requesting SV's name.
    pub requester: String,
    /// `action`.
    pub action: GovAction,
    /// `reason`.
    pub reason: GovReason,
    /// `voteBefore`.
    pub vote_before: String,
    /// `targetEffectiveAt`: when set, the request stays open until it takes effect.
    pub target_effective_at: Option<String>,
    /// `votes`, in the order the scan sent them.
    pub votes: Vec<CastVote>,
    /// `trackingCid`: the id of the request as first created (votes re-create it).
    pub tracking_cid: Option<String>,
}

impl VoteRequest {
    /// Decodes a request payload of any shape.
    pub fn from_payload(payload: &Value) -> VoteRequest {
        VoteRequest {
            contract_id: String::new(),
            created_at: String::new(),
            requester: text(payload.get("requester")),
            action: GovAction::decode(payload.get("action").unwrap_or(&Value::Null)),
            reason: GovReason::decode(payload.get("reason")),
            vote_before: text(payload.get("voteBefore")),
            target_effective_at: opt_text(payload.get("targetEffectiveAt")),
            votes: decode_votes(payload.get("votes")),
            tracking_cid: opt_text(payload.get("trackingCid")),
        }
    }

    /// Decodes a `Contract` (`{contract_id, payload, created_at, …}`) of a request.
    pub fn from_contract(contract: &Value) -> VoteRequest {
        let mut request =
            VoteRequest::from_payload(contract.get("payload").unwrap_or(&Value::Null));
        request.contract_id = text(contract.get("contract_id"));
        request.created_at = text(contract.get("created_at"));
        request
    }

    /// The request's stable key: `trackingCid`, else its contract id (a vote re-creates the
    /// contract, so its id changes while the tracking id stays).
    pub fn key(&self) -> &str {
        self.tracking_cid
            .as_deref()
            .filter(|t| !t.is_empty())
            .unwrap_or(&self.contract_id)
    }

    /// The vote of the SV named `name`, when it voted.
    pub fn vote_of(&self, name: &str) -> Option<&CastVote> {
        self.votes.iter().find(|v| v.voter == name)
    }
}

/// A Daml `Map Text Vote`: `[[name, vote], …]` or `{name: vote}`; odd entries are skipped.
fn decode_votes(votes: Option<&Value>) -> Vec<CastVote> {
    let decode = |name: &str, vote: &Value| CastVote {
        voter: name.to_owned(),
        sv: text(vote.get("sv")),
        accept: vote.get("accept").and_then(Value::as_bool).unwrap_or(false),
        reason: GovReason::decode(vote.get("reason")),
        cast_at: opt_text(vote.get("optCastAt")),
    };
    match votes {
        Some(Value::Array(entries)) => entries
            .iter()
            .filter_map(|entry| match entry.as_array().map(Vec::as_slice) {
                Some([Value::String(name), vote]) if vote.is_object() => Some(decode(name, vote)),
                _ => None,
            })
            .collect(),
        Some(Value::Object(entries)) => entries
            .iter()
            .filter(|(_, vote)| vote.is_object())
            .map(|(name, vote)| decode(name, vote))
            .collect(),
        _ => Vec::new(),
    }
}

/// `outcome` of a closed request (`VoteRequestOutcome`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum VoteOutcome {
    /// `VRO_Accepted{effectiveAt}`.
    Accepted { effective_at: String },
    /// `VRO_Rejected`.
    Rejected,
    /// `VRO_Expired`: neither accepted nor rejected before the deadline.
    Expired,
    /// `VRO_AcceptedButActionFailed{description}` (legacy).
    AcceptedButActionFailed { description: String },
    /// A tag this client does not know, with its value.
    Unknown { tag: String, value: Value },
}

impl VoteOutcome {
    /// Decodes an outcome of any shape.
    pub fn decode(raw: &Value) -> VoteOutcome {
        let tag = text(raw.get("tag"));
        let value = raw.get("value");
        match tag.as_str() {
            "VRO_Accepted" => VoteOutcome::Accepted {
                effective_at: text(value.and_then(|v| v.get("effectiveAt"))),
            },
            "VRO_Rejected" => VoteOutcome::Rejected,
            "VRO_Expired" => VoteOutcome::Expired,
            "VRO_AcceptedButActionFailed" => VoteOutcome::AcceptedButActionFailed {
                description: text(value.and_then(|v| v.get("description"))),
            },
            _ => VoteOutcome::Unknown {
                tag,
                value: value.cloned().unwrap_or(Value::Null),
            },
        }
    }
}

/// A `DsoRules_CloseVoteRequestResult`: a closed request and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VoteResult {
    /// `request`: the request as it was when closed.
    pub request: VoteRequest,
    /// `completedAt`.
    pub completed_at: String,
    /// `offboardedVoters`: SVs that voted but were offboarded before it closed.
    pub offboarded_voters: Vec<String>,
    /// `abstainingSvs`: SVs that did not vote.
    pub abstaining_svs: Vec<String>,
    /// `outcome`.
    pub outcome: VoteOutcome,
    /// The result as the scan sent it.
    pub raw: Value,
}

impl VoteResult {
    /// Decodes a result of any shape.
    pub fn decode(raw: &Value) -> VoteResult {
        let names = |key: &str| -> Vec<String> {
            raw.get(key)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        VoteResult {
            request: VoteRequest::from_payload(raw.get("request").unwrap_or(&Value::Null)),
            completed_at: text(raw.get("completedAt")),
            offboarded_voters: names("offboardedVoters"),
            abstaining_svs: names("abstainingSvs"),
            outcome: VoteOutcome::decode(raw.get("outcome").unwrap_or(&Value::Null)),
            raw: raw.clone(),
        }
    }

    /// The effective date the scan orders and filters by: `effectiveAt` when accepted, else
    /// `completedAt`.
    pub fn effective_date(&self) -> &str {
        match &self.outcome {
            VoteOutcome::Accepted { effective_at } if !effective_at.is_empty() => effective_at,
            _ => &self.completed_at,
        }
    }
}

/// One SV's `Splice.DSO.AmuletPrice:AmuletPriceVote`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct AmuletPriceVote {
    pub contract_id: String,
    /// `sv`: the voting SV's party.
    pub sv: String,
    /// `amuletPrice` (a Daml decimal as text); `None` when the SV has not voted a price.
    pub amulet_price: Option<String>,
    /// `lastUpdatedAt`.
    pub last_updated_at: String,
}

impl AmuletPriceVote {
    fn from_contract(contract: &Value) -> AmuletPriceVote {
        let payload = contract.get("payload").unwrap_or(&Value::Null);
        AmuletPriceVote {
            contract_id: text(contract.get("contract_id")),
            sv: text(payload.get("sv")),
            amulet_price: opt_text(payload.get("amuletPrice")),
            last_updated_at: text(payload.get("lastUpdatedAt")),
        }
    }
}

/// Text of a string or number; empty otherwise.
fn text(value: Option<&Value>) -> String {
    opt_text(value).unwrap_or_default()
}

/// A string or number as text; `None` for null, absent or another shape. A Daml `Optional`
/// may also arrive as `{"Some": x}` / `{"None": {}}` in older encodings: read it too.
fn opt_text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Object(o) if o.len() == 1 && o.contains_key("Some") => opt_text(o.get("Some")),
        _ => None,
    }
}

/// The top-level object of an answer, or a decode error naming what came instead.
fn object<E: serde::de::Error>(value: Value) -> Result<serde_json::Map<String, Value>, E> {
    match value {
        Value::Object(o) => Ok(o),
        other => Err(E::custom(format!(
            "expected a JSON object, got {}",
            kind_of(&other)
        ))),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An array under `key` (empty when absent or of another shape).
fn items<'a>(o: &'a serde_json::Map<String, Value>, key: &str) -> &'a [Value] {
    o.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Vote requests: the answer of `GET /v0/admin/sv/voterequests` (`dso_rules_vote_requests`)
/// and of `POST /v0/voterequest` (`vote_requests`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct VoteRequests {
    pub requests: Vec<VoteRequest>,
}

impl<'de> Deserialize<'de> for VoteRequests {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let o = object::<D::Error>(Value::deserialize(d)?)?;
        let list = if o.contains_key("dso_rules_vote_requests") {
            items(&o, "dso_rules_vote_requests")
        } else {
            items(&o, "vote_requests")
        };
        Ok(VoteRequests {
            requests: list
                .iter()
                .filter(|c| c.is_object())
                .map(VoteRequest::from_contract)
                .collect(),
        })
    }
}

/// The answer of `GET /v0/voterequests/{cid}` (`dso_rules_vote_request`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct VoteRequestLookup {
    pub request: VoteRequest,
}

impl<'de> Deserialize<'de> for VoteRequestLookup {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let o = object::<D::Error>(Value::deserialize(d)?)?;
        Ok(VoteRequestLookup {
            request: VoteRequest::from_contract(
                o.get("dso_rules_vote_request").unwrap_or(&Value::Null),
            ),
        })
    }
}

/// A page of `POST /v0/admin/sv/voteresults`, newest first.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct VoteResultsPage {
    pub results: Vec<VoteResult>,
    /// `next_page_token`: this scan's own cursor; absent on the last page.
    pub next_page_token: Option<i64>,
}

impl<'de> Deserialize<'de> for VoteResultsPage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let o = object::<D::Error>(Value::deserialize(d)?)?;
        let next_page_token = match o.get("next_page_token") {
            Some(Value::Number(n)) => n.as_i64(),
            Some(Value::String(s)) => s.trim().parse().ok(),
            _ => None,
        };
        Ok(VoteResultsPage {
            results: items(&o, "dso_rules_vote_results")
                .iter()
                .filter(|r| r.is_object())
                .map(VoteResult::decode)
                .collect(),
            next_page_token,
        })
    }
}

/// The answer of `POST /v0/admin/sv/voteresults/count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct VoteResultsCount {
    pub count: i64,
}

impl<'de> Deserialize<'de> for VoteResultsCount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let o = object::<D::Error>(Value::deserialize(d)?)?;
        let count = match o.get("count") {
            Some(Value::Number(n)) => n.as_i64(),
            Some(Value::String(s)) => s.trim().parse().ok(),
            _ => None,
        };
        count
            .map(|count| VoteResultsCount { count })
            .ok_or_else(|| serde::de::Error::custom("count: expected an integer"))
    }
}

/// The answer of `GET /v0/amulet-price/votes`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct AmuletPriceVotes {
    pub votes: Vec<AmuletPriceVote>,
}

impl<'de> Deserialize<'de> for AmuletPriceVotes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let o = object::<D::Error>(Value::deserialize(d)?)?;
        Ok(AmuletPriceVotes {
            votes: items(&o, "amulet_price_votes")
                .iter()
                .filter(|c| c.is_object())
                .map(AmuletPriceVote::from_contract)
                .collect(),
        })
    }
}

/// The filters of `voteresults` and its `/count` (server-side: `actionName` and `requester`
/// match as substrings, outcome only as `accepted`, dates filter the effective date).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VoteResultsFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requester: Option<String>,
    /// RFC 3339 UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_from: Option<String>,
    /// RFC 3339 UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_to: Option<String>,
}

/// Body of `POST /v0/admin/sv/voteresults`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VoteResultsRequest {
    #[serde(flatten)]
    pub filter: VoteResultsFilter,
    pub limit: i64,
    /// The `next_page_token` of the previous page *of the same scan*.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_token: Option<i64>,
}

/// `GET /v0/admin/sv/voterequests`: the active vote requests.
pub fn vote_requests() -> Call<VoteRequests> {
    Group::Scan
        .get(
            "scan GET /v0/admin/sv/voterequests",
            "/v0/admin/sv/voterequests",
        )
        .named("vote requests")
}

/// `POST /v0/voterequest`: several vote requests by contract id.
pub fn vote_requests_by_cid(contract_ids: &[String]) -> Call<VoteRequests> {
    #[derive(Serialize)]
    struct Body<'a> {
        vote_request_contract_ids: &'a [String],
    }
    Group::Scan
        .post(
            "scan POST /v0/voterequest",
            "/v0/voterequest",
            &Body {
                vote_request_contract_ids: contract_ids,
            },
        )
        .named("vote requests by id")
}

/// `GET /v0/voterequests/{cid}`: one vote request (404 when the scan does not know it).
pub fn vote_request(contract_id: &str) -> Call<VoteRequestLookup> {
    Group::Scan
        .get(
            "scan GET /v0/voterequests/{id}",
            format!("/v0/voterequests/{}", encode_segment(contract_id)),
        )
        .named("vote request")
}

/// `POST /v0/admin/sv/voteresults`: a page of closed requests, newest first.
pub fn vote_results(req: &VoteResultsRequest) -> Call<VoteResultsPage> {
    Group::Scan
        .post(
            "scan POST /v0/admin/sv/voteresults",
            "/v0/admin/sv/voteresults",
            req,
        )
        .named("vote results")
}

/// `POST /v0/admin/sv/voteresults/count`: how many results match `filter`.
pub fn vote_results_count(filter: &VoteResultsFilter) -> Call<VoteResultsCount> {
    Group::Scan
        .post(
            "scan POST /v0/admin/sv/voteresults/count",
            "/v0/admin/sv/voteresults/count",
            filter,
        )
        .named("vote results count")
}

/// `GET /v0/amulet-price/votes`: each SV's current amulet price vote.
pub fn amulet_price_votes() -> Call<AmuletPriceVotes> {
    Group::Scan
        .get("scan GET /v0/amulet-price/votes", "/v0/amulet-price/votes")
        .named("amulet price votes")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request as `/v0/admin/sv/voterequests` sends it (the recorded shape: votes as pairs).
    const REQUESTS: &str = r#"{"dso_rules_vote_requests":[
      {"template_id":"p:Splice.DsoRules:VoteRequest","contract_id":"00b2","created_event_blob":"",
       "created_at":"2026-01-30T08:00:00Z",
       "payload":{"dso":"DSO::1","requester":"Alpha",
         "action":{"tag":"ARC_DsoRules","value":{"dsoAction":{"tag":"SRARC_UpdateSvRewardWeight",
            "value":{"svParty":"D::4","newRewardWeight":"9000"}}}},
         "reason":{"url":"https://cip/1","body":"why"},
         "voteBefore":"2026-02-06T08:00:00Z",
         "votes":[["Alpha",{"sv":"A::1","accept":true,"reason":{"url":"","body":"ok"},"optCastAt":"2026-01-30T08:00:00Z"}],
                  ["Beta",{"sv":"B::2","accept":false,"reason":{"url":"u","body":"no"},"optCastAt":null}],
                  "odd", ["Gamma"]],
         "trackingCid":"00a1","targetEffectiveAt":null,"future":1}},
      {"contract_id":"00c3","payload":{"requester":"Beta",
         "action":{"tag":"ARC_AmuletRules","value":{"amuletRulesAction":{"tag":"CRARC_Fancy","value":{"x":[1,2]}}}},
         "votes":{"Beta":{"sv":"B::2","accept":true}},
         "trackingCid":null,"targetEffectiveAt":"2026-03-01T00:00:00Z"}},
      {"contract_id":"00d4","payload":{"action":{"tag":"ARC_Future","value":{"what":true}},"votes":7}},
      3
    ]}"#;

    #[test]
    fn requests_decode_with_votes_as_pairs_or_object_and_unknown_tags_kept() {
        let r: VoteRequests = serde_json::from_str(REQUESTS).expect("decodes");
        assert_eq!(r.requests.len(), 3, "the number is skipped");
        let a = &r.requests[0];
        assert_eq!(a.contract_id, "00b2");
        assert_eq!(a.key(), "00a1", "keyed on the tracking id");
        assert_eq!(a.requester, "Alpha");
        assert_eq!(a.action.group, "ARC_DsoRules");
        assert_eq!(a.action.name, "SRARC_UpdateSvRewardWeight");
        assert_eq!(a.action.value["newRewardWeight"], "9000");
        assert_eq!(a.reason.url, "https://cip/1");
        assert_eq!(a.vote_before, "2026-02-06T08:00:00Z");
        assert_eq!(a.target_effective_at, None);
        let voters: Vec<(&str, bool)> = a
            .votes
            .iter()
            .map(|v| (v.voter.as_str(), v.accept))
            .collect();
        assert_eq!(voters, [("Alpha", true), ("Beta", false)]);
        assert_eq!(a.votes[1].cast_at, None);
        assert_eq!(
            a.vote_of("Beta").map(|v| v.reason.body.as_str()),
            Some("no")
        );
        let b = &r.requests[1];
        assert_eq!(b.key(), "00c3", "no tracking id: the contract id");
        assert_eq!(b.action.name, "CRARC_Fancy");
        assert_eq!(b.action.value["x"][1], 2);
        assert_eq!(b.votes.len(), 1);
        assert_eq!(
            b.target_effective_at.as_deref(),
            Some("2026-03-01T00:00:00Z")
        );
        let c = &r.requests[2];
        assert_eq!(c.action.name, "ARC_Future");
        assert_eq!(c.action.value["what"], true);
        assert!(c.votes.is_empty());
        assert_eq!(c.requester, "");
    }

    #[test]
    fn by_cid_and_lookup_shapes() {
        let r: VoteRequests =
            serde_json::from_str(r#"{"vote_requests":[{"contract_id":"x","payload":{}}]}"#)
                .expect("decodes");
        assert_eq!(r.requests[0].contract_id, "x");
        let one: VoteRequestLookup = serde_json::from_str(
            r#"{"dso_rules_vote_request":{"contract_id":"y","payload":{"requester":"A"}}}"#,
        )
        .expect("decodes");
        assert_eq!(one.request.requester, "A");
        assert!(serde_json::from_str::<VoteRequests>("[]").is_err());
        assert!(
            serde_json::from_str::<VoteRequests>("{}")
                .expect("empty")
                .requests
                .is_empty()
        );
    }

    #[test]
    fn results_decode_every_outcome() {
        let page: VoteResultsPage = serde_json::from_str(
            r#"{"dso_rules_vote_results":[
              {"request":{"requester":"A","action":{"tag":"ARC_DsoRules","value":{"dsoAction":{"tag":"SRARC_SetConfig","value":{"newConfig":{},"baseConfig":{}}}}},"votes":[],"voteBefore":"t","trackingCid":null},
               "completedAt":"2026-01-02T00:00:00Z","offboardedVoters":["Old"],"abstainingSvs":["C","D"],
               "outcome":{"tag":"VRO_Accepted","value":{"effectiveAt":"2026-01-03T00:00:00Z"}}},
              {"completedAt":"c2","outcome":{"tag":"VRO_Rejected","value":{}}},
              {"completedAt":"c3","outcome":{"tag":"VRO_Expired"}},
              {"completedAt":"c4","outcome":{"tag":"VRO_AcceptedButActionFailed","value":{"description":"boom"}}},
              {"completedAt":"c5","outcome":{"tag":"VRO_Later","value":{"n":1}}},
              {"completedAt":"c6"}
            ],"next_page_token":"17"}"#,
        )
        .expect("decodes");
        assert_eq!(page.next_page_token, Some(17));
        let r = &page.results;
        assert_eq!(r[0].offboarded_voters, ["Old"]);
        assert_eq!(r[0].abstaining_svs, ["C", "D"]);
        assert_eq!(r[0].effective_date(), "2026-01-03T00:00:00Z");
        assert_eq!(r[0].request.action.name, "SRARC_SetConfig");
        assert_eq!(r[1].outcome, VoteOutcome::Rejected);
        assert_eq!(r[1].effective_date(), "c2");
        assert_eq!(r[2].outcome, VoteOutcome::Expired);
        assert_eq!(
            r[3].outcome,
            VoteOutcome::AcceptedButActionFailed {
                description: "boom".into()
            }
        );
        assert!(
            matches!(&r[4].outcome, VoteOutcome::Unknown { tag, value } if tag == "VRO_Later" && value["n"] == 1)
        );
        assert!(matches!(&r[5].outcome, VoteOutcome::Unknown { tag, .. } if tag.is_empty()));
        let last: VoteResultsPage =
            serde_json::from_str(r#"{"dso_rules_vote_results":[],"next_page_token":null}"#)
                .expect("decodes");
        assert_eq!(last.next_page_token, None);
    }

    #[test]
    fn count_price_votes_and_request_bodies() {
        let c: VoteResultsCount = serde_json::from_str(r#"{"count":"331"}"#).expect("decodes");
        assert_eq!(c.count, 331);
        assert!(serde_json::from_str::<VoteResultsCount>(r#"{"count":"many"}"#).is_err());
        let p: AmuletPriceVotes = serde_json::from_str(
            r#"{"amulet_price_votes":[{"contract_id":"p1","payload":{"dso":"D","sv":"A::1","amuletPrice":"0.005","lastUpdatedAt":"t1"}},
               {"contract_id":"p2","payload":{"sv":"B::2","amuletPrice":null,"lastUpdatedAt":"t2"}}]}"#,
        )
        .expect("decodes");
        assert_eq!(p.votes[0].amulet_price.as_deref(), Some("0.005"));
        assert_eq!(p.votes[1].amulet_price, None);
        let body = serde_json::to_value(VoteResultsRequest {
            filter: VoteResultsFilter {
                action_name: Some("SRARC_SetConfig".into()),
                accepted: Some(false),
                ..VoteResultsFilter::default()
            },
            limit: 50,
            page_token: Some(3),
        })
        .expect("serialises");
        assert_eq!(
            body,
            serde_json::json!({"actionName":"SRARC_SetConfig","accepted":false,"limit":50,"pageToken":3})
        );
        let call = vote_request("00 a/b");
        assert_eq!(call.path, "/v0/voterequests/00%20a%2Fb");
    }
}
