//! The update stream: `POST /v2/updates/trees` (deprecated) and `POST /v2/updates`, their
//! request with party and template filters, and the trees of a range whichever of the two the
//! node serves.

use super::{Event, JsGetUpdateTreesResponse, JsTransaction, JsTransactionTree, TreeEvent, Update};
use crate::api::call::{Call, Group};
use crate::api::json::RawJson;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Filter of one template / interface / wildcard (`IdentifierFilter`, a one-key object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum IdentifierFilter {
    Empty(Map<String, Value>),
    InterfaceFilter { value: InterfaceFilter },
    TemplateFilter { value: TemplateFilter },
    WildcardFilter { value: WildcardFilter },
}

/// Interface filter value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InterfaceFilter {
    pub interface_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_interface_view: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_created_event_blob: Option<bool>,
}

/// Template filter value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TemplateFilter {
    pub template_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_created_event_blob: Option<bool>,
}

/// Wildcard filter value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WildcardFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_created_event_blob: Option<bool>,
}

/// One cumulative filter.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CumulativeFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identifier_filter: Option<IdentifierFilter>,
}

/// `Filters`: cumulative filters (none = one wildcard).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Filters {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cumulative: Vec<CumulativeFilter>,
}

/// Deprecated `TransactionFilter`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransactionFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters_by_party: Option<BTreeMap<String, Filters>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters_for_any_party: Option<Filters>,
}

/// `EventFormat`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventFormat {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters_by_party: Option<BTreeMap<String, Filters>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters_for_any_party: Option<Filters>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verbose: Option<bool>,
}

/// `TransactionFormat`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransactionFormat {
    pub event_format: EventFormat,
    /// `TRANSACTION_SHAPE_ACS_DELTA`, `TRANSACTION_SHAPE_LEDGER_EFFECTS` or unspecified.
    pub transaction_shape: String,
}

/// Parties whose participant authorization topology events to include.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ParticipantAuthorizationTopologyFormat {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parties: Vec<String>,
}

/// `TopologyFormat`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologyFormat {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_participant_authorization_events: Option<ParticipantAuthorizationTopologyFormat>,
}

/// `UpdateFormat`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateFormat {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_transactions: Option<TransactionFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_reassignments: Option<EventFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_topology_events: Option<TopologyFormat>,
}

/// Body of `POST /v2/updates/trees` (`GetUpdatesRequest`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetUpdatesRequest {
    /// Exclusive lower bound; 0 = ledger begin.
    pub begin_exclusive: i64,
    /// Inclusive upper bound; without it the server streams until idle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_inclusive: Option<i64>,
    /// Deprecated party filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<TransactionFilter>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verbose: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_format: Option<UpdateFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descending_order: Option<bool>,
}

impl GetUpdatesRequest {
    /// A request over `(begin_exclusive, end_inclusive]` with wildcard filters for `parties`
    /// (any party when empty).
    pub fn for_parties(
        begin_exclusive: i64,
        end_inclusive: Option<i64>,
        parties: &[String],
    ) -> Self {
        let filter = if parties.is_empty() {
            TransactionFilter {
                filters_by_party: None,
                filters_for_any_party: Some(Filters::default()),
            }
        } else {
            TransactionFilter {
                filters_by_party: Some(
                    parties
                        .iter()
                        .map(|p| (p.clone(), Filters::default()))
                        .collect(),
                ),
                filters_for_any_party: None,
            }
        };
        GetUpdatesRequest {
            begin_exclusive,
            end_inclusive,
            filter: Some(filter),
            verbose: Some(true),
            update_format: None,
            descending_order: None,
        }
    }
}

impl GetUpdatesRequest {
    /// A request over `(begin_exclusive, end_inclusive]` for `parties` (any party when empty),
    /// keeping only the templates named in `templates` (package-name references
    /// `#package-name:Module:Entity`, see [`template_filter_ref`]; every template when empty).
    pub fn for_parties_and_templates(
        begin_exclusive: i64,
        end_inclusive: Option<i64>,
        parties: &[String],
        templates: &[String],
    ) -> Self {
        let mut req = Self::for_parties(begin_exclusive, end_inclusive, parties);
        if templates.is_empty() {
            return req;
        }
        let filters = Filters {
            cumulative: templates
                .iter()
                .map(|t| CumulativeFilter {
                    identifier_filter: Some(IdentifierFilter::TemplateFilter {
                        value: TemplateFilter {
                            template_id: t.clone(),
                            include_created_event_blob: None,
                        },
                    }),
                })
                .collect(),
        };
        if let Some(f) = &mut req.filter {
            if let Some(by_party) = &mut f.filters_by_party {
                for v in by_party.values_mut() {
                    *v = filters.clone();
                }
            } else {
                f.filters_for_any_party = Some(filters);
            }
        }
        req
    }
}

/// Whether `s` is a package id (a 64-digit hex hash) rather than a package name.
pub fn is_package_id(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A template as ledger filters take it from Canton 3.5.1 on: a package-name reference
/// `#package-name:Module.Path:Entity` (the leading `#` may be left out when typing). A
/// package-id reference (`<64 hex>:Module:Entity`) is refused with what to write instead, as
/// the node would refuse it.
pub fn template_filter_ref(typed: &str) -> Result<String, String> {
    let t = typed.trim();
    let body = t.strip_prefix('#').unwrap_or(t);
    let parts: Vec<&str> = body.split(':').collect();
    let [package, module, entity] = parts[..] else {
        return Err(format!(
            "not a template reference: {t} (expected #package-name:Module:Entity)"
        ));
    };
    if package.is_empty() || module.is_empty() || entity.is_empty() {
        return Err(format!(
            "not a template reference: {t} (expected #package-name:Module:Entity)"
        ));
    }
    if is_package_id(package) {
        return Err(format!(
            "{}… is a package id: write #package-name:{module}:{entity} (Canton 3.5.1 \
             takes package names only)",
            &package[..8]
        ));
    }
    Ok(format!("#{package}:{module}:{entity}"))
}

/// `POST /v2/updates/trees` (deprecated; 413 over the node's list limit, 404 once removed).
pub fn update_trees(
    req: &GetUpdatesRequest,
    limit: Option<i64>,
    stream_idle_timeout_ms: Option<i64>,
) -> Call<Vec<JsGetUpdateTreesResponse>> {
    update_list(
        "ledger POST /v2/updates/trees",
        "/v2/updates/trees",
        req,
        limit,
        stream_idle_timeout_ms,
    )
}

/// `POST /v2/updates` (`JsGetUpdatesResponse` items: the same `update` wrapper as the trees,
/// with flat `Transaction`s); the replacement of `/v2/updates/trees` from Canton 3.5 on.
pub fn updates(
    req: &GetUpdatesRequest,
    limit: Option<i64>,
    stream_idle_timeout_ms: Option<i64>,
) -> Call<Vec<JsGetUpdateTreesResponse>> {
    update_list(
        "ledger POST /v2/updates",
        "/v2/updates",
        req,
        limit,
        stream_idle_timeout_ms,
    )
}

/// The list form of an update stream endpoint: the request as the body, `limit` and
/// `stream_idle_timeout_ms` as query parameters when given.
fn update_list(
    endpoint: &'static str,
    path: &str,
    req: &GetUpdatesRequest,
    limit: Option<i64>,
    stream_idle_timeout_ms: Option<i64>,
) -> Call<Vec<JsGetUpdateTreesResponse>> {
    let mut call = Group::Ledger.post(endpoint, path, req);
    if let Some(l) = limit {
        call = call.query("limit", l.to_string());
    }
    if let Some(t) = stream_idle_timeout_ms {
        call = call.query("stream_idle_timeout_ms", t.to_string());
    }
    call
}

/// The `/v2/updates` request for the same range and parties as a trees request: the party
/// filter moves into `updateFormat` (transactions in the ledger-effects shape, which has every
/// exercised node with its `lastDescendantNodeId`, and reassignments).
pub fn ledger_effects_request(req: &GetUpdatesRequest) -> GetUpdatesRequest {
    let (filters_by_party, filters_for_any_party) = match (&req.update_format, &req.filter) {
        (
            Some(UpdateFormat {
                include_transactions: Some(t),
                ..
            }),
            _,
        ) => (
            t.event_format.filters_by_party.clone(),
            t.event_format.filters_for_any_party.clone(),
        ),
        (_, Some(f)) => (f.filters_by_party.clone(), f.filters_for_any_party.clone()),
        _ => (None, Some(Filters::default())),
    };
    let event_format = EventFormat {
        filters_by_party,
        filters_for_any_party,
        verbose: req.verbose,
    };
    GetUpdatesRequest {
        begin_exclusive: req.begin_exclusive,
        end_inclusive: req.end_inclusive,
        filter: None,
        verbose: None,
        update_format: Some(UpdateFormat {
            include_transactions: Some(TransactionFormat {
                event_format: event_format.clone(),
                transaction_shape: "TRANSACTION_SHAPE_LEDGER_EFFECTS".to_owned(),
            }),
            include_reassignments: Some(event_format),
            include_topology_events: None,
        }),
        descending_order: req.descending_order,
    }
}

/// The transaction tree of a ledger-effects `JsTransaction`: its events keyed by node id (as
/// `eventsById` is), nesting left to the node-id ranges as in a tree from `/v2/updates/trees`.
/// Events of unknown kinds keep their JSON under a key that is not a node id.
pub fn tree_of_transaction(tx: &JsTransaction) -> JsTransactionTree {
    let mut events_by_id = BTreeMap::new();
    for (i, event) in tx.events.iter().enumerate() {
        match event {
            Event::CreatedEvent(c) => {
                events_by_id.insert(
                    c.node_id.to_string(),
                    TreeEvent::CreatedTreeEvent(c.clone()),
                );
            }
            Event::ExercisedEvent(e) => {
                events_by_id.insert(
                    e.node_id.to_string(),
                    TreeEvent::ExercisedTreeEvent(e.clone()),
                );
            }
            // Not part of the ledger-effects shape: an archive is its consuming exercise.
            Event::ArchivedEvent(_) => {}
            Event::Unknown { kind, raw } => {
                events_by_id.insert(
                    format!("{kind}#{i}"),
                    TreeEvent::Unknown {
                        kind: kind.clone(),
                        raw: raw.clone(),
                    },
                );
            }
        }
    }
    let mut tree = JsTransactionTree {
        update_id: tx.update_id.clone(),
        command_id: tx.command_id.clone(),
        workflow_id: tx.workflow_id.clone(),
        effective_at: tx.effective_at.clone(),
        offset: tx.offset,
        events_by_id,
        synchronizer_id: tx.synchronizer_id.clone(),
        trace_context: tx.trace_context.clone(),
        record_time: tx.record_time.clone(),
        raw: RawJson::null(),
    };
    // The JSON a trees answer would have carried (what the pane saves and shows).
    let value = serde_json::json!({
        "updateId": tree.update_id,
        "commandId": tree.command_id,
        "workflowId": tree.workflow_id,
        "effectiveAt": tree.effective_at,
        "offset": tree.offset,
        "eventsById": tree.events_by_id,
        "synchronizerId": tree.synchronizer_id,
        "traceContext": tree.trace_context,
        "recordTime": tree.record_time,
    });
    tree.raw = RawJson::from_value(&value).unwrap_or_default();
    tree
}

/// The items of a `/v2/updates` answer as a trees answer: transactions become transaction
/// trees; reassignments, checkpoints and unknown kinds pass through.
pub fn as_tree_items(items: Vec<JsGetUpdateTreesResponse>) -> Vec<JsGetUpdateTreesResponse> {
    items
        .into_iter()
        .map(|item| match &item.update {
            Update::Transaction(tx) => {
                let tree = tree_of_transaction(tx);
                let raw = RawJson::from_value(
                    &serde_json::json!({"update": {"TransactionTree": {"value": tree.raw}}}),
                )
                .unwrap_or_default();
                JsGetUpdateTreesResponse {
                    update: Update::TransactionTree(Box::new(tree)),
                    raw,
                }
            }
            _ => item,
        })
        .collect()
}

/// Transaction trees of a range: `POST /v2/updates/trees`, and when the node answers 404 for
/// it (Canton 3.5+ removed it) `POST /v2/updates` in the ledger-effects shape for the same range,
/// turned into the same trees. When both are missing, the error is the trees' one.
pub fn trees(req: &GetUpdatesRequest, limit: Option<i64>) -> Call<Vec<JsGetUpdateTreesResponse>> {
    update_trees(req, limit, None)
        .or_if_not_served(updates(&ledger_effects_request(req), limit, None).map(as_tree_items))
        .named("ledger update trees")
}
