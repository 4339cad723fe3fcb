//! Renders the ledger as seen by the demo participant in the JSON Ledger API v2 shapes:
//! `JsGetUpdateTreesResponse` items (`TransactionTree`, `Reassignment`, `OffsetCheckpoint`),
//! tree events keyed by node id with `lastDescendantNodeId`, and `JsTransaction`.
//!
//! Projection: a party sees a node when it is an informee of the node or of one of its ancestors;
//! fetches are never shown, so node ids have gaps.

use serde_json::{Map, Value, json};

use super::ledger::{Body, CreateNode, ExerciseNode, Node, ReassignKind, Tx, Update};
use super::render::traffic_cost;
use super::topology::{Network, PartyIdx};
use super::util::fmt_time;

fn parties(net: &Network, ps: &[PartyIdx]) -> Value {
    Value::Array(
        ps.iter()
            .map(|p| Value::String(net.party_id(*p).to_string()))
            .collect(),
    )
}

fn contains(set: &[PartyIdx], p: PartyIdx) -> bool {
    set.binary_search(&p).is_ok()
}

fn intersect(req: &[PartyIdx], ps: impl IntoIterator<Item = PartyIdx>) -> Vec<PartyIdx> {
    let mut v: Vec<PartyIdx> = ps.into_iter().filter(|p| contains(req, *p)).collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn trace_context(update_id: &str) -> Value {
    let id = update_id.get(4..36).unwrap_or("0");
    let span = update_id.get(36..52).unwrap_or("0");
    json!({"traceparent": format!("00-{id}-{span}-01"), "tracestate": null})
}

fn package_id_of(net: &Network, template_id: &str) -> String {
    let _ = net;
    template_id.split(':').next().unwrap_or("").to_string()
}

/// A ledger `CreatedEvent`.
pub fn created_value(
    net: &Network,
    c: &CreateNode,
    offset: i64,
    node_id: u32,
    created_at: i64,
    witnesses: &[PartyIdx],
    acs_delta: bool,
) -> Value {
    let template_id = net.template_id(c.tpl);
    json!({
        "offset": offset,
        "nodeId": node_id,
        "contractId": c.contract_id,
        "templateId": template_id,
        "contractKey": null,
        "createArgument": c.args,
        "createdEventBlob": "",
        "interfaceViews": [],
        "witnessParties": parties(net, witnesses),
        "signatories": parties(net, &c.signatories),
        "observers": parties(net, &c.observers),
        "createdAt": fmt_time(created_at),
        "packageName": net.package_name(c.tpl),
        "representativePackageId": package_id_of(net, template_id),
        "acsDelta": acs_delta,
    })
}

fn exercised_value(
    net: &Network,
    e: &ExerciseNode,
    offset: i64,
    node_id: u32,
    witnesses: &[PartyIdx],
    acs_delta: bool,
) -> Value {
    json!({
        "offset": offset,
        "nodeId": node_id,
        "contractId": e.contract_id,
        "templateId": net.template_id(e.tpl),
        "interfaceId": null,
        "choice": e.choice,
        "choiceArgument": e.argument,
        "actingParties": parties(net, &e.actors),
        "consuming": e.consuming,
        "witnessParties": parties(net, witnesses),
        "lastDescendantNodeId": e.last_descendant,
        "exerciseResult": e.result,
        "packageName": net.package_name(e.tpl),
        "implementedInterfaces": [],
        "acsDelta": acs_delta,
    })
}

/// For each node: the requested parties that witness it (informees of it or of an ancestor).
fn witnesses(tx: &Tx, req: &[PartyIdx]) -> Vec<Vec<PartyIdx>> {
    let parents = tx.parents();
    let mut w: Vec<Vec<PartyIdx>> = Vec::with_capacity(tx.nodes.len());
    for (i, node) in tx.nodes.iter().enumerate() {
        let mut set = match parents[i] {
            u32::MAX => Vec::new(),
            p => w.get(p as usize).cloned().unwrap_or_default(),
        };
        set.extend(intersect(req, node.informees()));
        set.sort_unstable();
        set.dedup();
        w.push(set);
    }
    w
}

fn acs_delta_create(c: &CreateNode, req: &[PartyIdx]) -> bool {
    c.stakeholders().any(|p| contains(req, p))
}

fn acs_delta_exercise(e: &ExerciseNode, req: &[PartyIdx]) -> bool {
    e.consuming
        && e.signatories
            .iter()
            .chain(&e.observers)
            .any(|p| contains(req, *p))
}

/// Whether any requested party sees the update.
pub fn visible(u: &Update, req: &[PartyIdx]) -> bool {
    match &u.body {
        Body::Tx(tx) => tx
            .nodes
            .iter()
            .any(|n| !n.is_fetch() && n.informees().iter().any(|p| contains(req, *p))),
        Body::Reassign(r) => r.create.stakeholders().any(|p| contains(req, p)),
    }
}

pub(crate) fn command_id<'a>(tx: &'a Tx, req: &[PartyIdx]) -> Option<&'a str> {
    tx.submitters
        .iter()
        .any(|p| contains(req, *p))
        .then_some(tx.command_id.as_str())
}

/// The `JsTransactionTree` of a transaction projected to `req` (sorted party indexes).
pub fn transaction_tree(
    net: &Network,
    u: &Update,
    tx: &Tx,
    offset: i64,
    req: &[PartyIdx],
) -> Value {
    let w = witnesses(tx, req);
    let mut events = Map::new();
    for (i, node) in tx.nodes.iter().enumerate() {
        if w[i].is_empty() {
            continue;
        }
        let v = match node {
            Node::Create(c) => json!({"CreatedTreeEvent": {"value": created_value(
                net, c, offset, i as u32, tx.effective_at, &w[i], acs_delta_create(c, req))}}),
            Node::Exercise(e) => json!({"ExercisedTreeEvent": {"value": exercised_value(
                net, e, offset, i as u32, &w[i], acs_delta_exercise(e, req))}}),
            Node::Fetch { .. } => continue,
        };
        events.insert(i.to_string(), v);
    }
    let mut m = Map::new();
    m.insert("updateId".into(), json!(u.update_id));
    if let Some(c) = command_id(tx, req) {
        m.insert("commandId".into(), json!(c));
    }
    m.insert("workflowId".into(), json!(tx.workflow_id));
    m.insert("effectiveAt".into(), json!(fmt_time(tx.effective_at)));
    m.insert("offset".into(), json!(offset));
    m.insert("eventsById".into(), Value::Object(events));
    m.insert("synchronizerId".into(), json!(net.sync_id(tx.sync)));
    m.insert("traceContext".into(), trace_context(&u.update_id));
    m.insert("recordTime".into(), json!(fmt_time(u.record_time)));
    Value::Object(m)
}

/// A `JsReassignment` projected to `req`.
pub fn reassignment(net: &Network, u: &Update, offset: i64, req: &[PartyIdx]) -> Option<Value> {
    let Body::Reassign(r) = &u.body else {
        return None;
    };
    let witnesses = intersect(req, r.create.stakeholders());
    let event = match r.kind {
        ReassignKind::Unassign => json!({"JsUnassignedEvent": {"value": {
            "reassignmentId": r.unassign_id,
            "contractId": r.create.contract_id,
            "templateId": net.template_id(r.create.tpl),
            "source": net.sync_id(r.source),
            "target": net.sync_id(r.target),
            "submitter": net.party_id(r.submitter),
            "reassignmentCounter": r.counter,
            "assignmentExclusivity": fmt_time(u.record_time + 60_000_000),
            "witnessParties": parties(net, &witnesses),
            "packageName": net.package_name(r.create.tpl),
            "offset": offset,
            "nodeId": 0,
        }}}),
        ReassignKind::Assign => json!({"JsAssignmentEvent": {
            "source": net.sync_id(r.source),
            "target": net.sync_id(r.target),
            "reassignmentId": r.unassign_id,
            "submitter": net.party_id(r.submitter),
            "reassignmentCounter": r.counter,
            "createdEvent": created_value(net, &r.create, offset, 0, r.created_at, &witnesses, true),
        }}),
    };
    let mut m = Map::new();
    m.insert("updateId".into(), json!(u.update_id));
    m.insert("offset".into(), json!(offset));
    m.insert("events".into(), json!([event]));
    m.insert("traceContext".into(), trace_context(&u.update_id));
    m.insert("recordTime".into(), json!(fmt_time(u.record_time)));
    m.insert("synchronizerId".into(), json!(net.sync_id(u.sync())));
    if witnesses.contains(&r.submitter) {
        m.insert("paidTrafficCost".into(), json!(2_400 + offset % 700));
    }
    Some(Value::Object(m))
}

/// One `/v2/updates/trees` item for an update, or `None` when `req` does not see it.
pub fn tree_item(net: &Network, u: &Update, offset: i64, req: &[PartyIdx]) -> Option<Value> {
    if !visible(u, req) {
        return None;
    }
    match &u.body {
        Body::Tx(tx) => Some(
            json!({"update": {"TransactionTree": {"value": transaction_tree(net, u, tx, offset, req)}}}),
        ),
        Body::Reassign(_) => reassignment(net, u, offset, req)
            .map(|r| json!({"update": {"Reassignment": {"value": r}}})),
    }
}

/// One item of `POST /v2/updates` (`JsGetUpdatesResponse`): transactions as flat
/// `JsTransaction`s (events in node order, ledger-effects or ACS-delta shape), reassignments as
/// in the trees answer.
pub fn flat_item(
    net: &Network,
    u: &Update,
    offset: i64,
    req: &[PartyIdx],
    ledger_effects: bool,
) -> Option<Value> {
    if !visible(u, req) {
        return None;
    }
    match &u.body {
        Body::Tx(tx) => {
            let mut value = js_transaction(net, u, tx, offset, req, ledger_effects);
            // As in the trees: the command id only for the submitting parties.
            if let Value::Object(m) = &mut value {
                match command_id(tx, req) {
                    Some(c) => m.insert("commandId".into(), json!(c)),
                    None => m.remove("commandId"),
                };
            }
            Some(json!({"update": {"Transaction": {"value": value}}}))
        }
        Body::Reassign(_) => reassignment(net, u, offset, req)
            .map(|r| json!({"update": {"Reassignment": {"value": r}}})),
    }
}

pub fn checkpoint_item(net: &Network, offset: i64, times: [i64; 2]) -> Value {
    json!({"update": {"OffsetCheckpoint": {"value": {
        "offset": offset,
        "synchronizerTimes": [
            {"synchronizerId": net.sync_id(0), "recordTime": fmt_time(times[0])},
            {"synchronizerId": net.sync_id(1), "recordTime": fmt_time(times[1])},
        ],
    }}}})
}

/// A `JsTransaction` (flat events) in the ACS-delta or ledger-effects shape.
pub fn js_transaction(
    net: &Network,
    u: &Update,
    tx: &Tx,
    offset: i64,
    req: &[PartyIdx],
    ledger_effects: bool,
) -> Value {
    let w = witnesses(tx, req);
    let mut events = Vec::new();
    for (i, node) in tx.nodes.iter().enumerate() {
        if w[i].is_empty() {
            continue;
        }
        match node {
            Node::Create(c) => {
                let delta = acs_delta_create(c, req);
                if ledger_effects || delta {
                    let wit = if ledger_effects {
                        w[i].clone()
                    } else {
                        intersect(req, c.stakeholders())
                    };
                    events.push(json!({"CreatedEvent": created_value(net, c, offset, i as u32, tx.effective_at, &wit, delta)}));
                }
            }
            Node::Exercise(e) => {
                if ledger_effects {
                    events.push(json!({"ExercisedEvent": exercised_value(net, e, offset, i as u32, &w[i], acs_delta_exercise(e, req))}));
                } else if acs_delta_exercise(e, req) {
                    let wit = intersect(req, e.signatories.iter().chain(&e.observers).copied());
                    events.push(json!({"ArchivedEvent": {
                        "offset": offset,
                        "nodeId": i,
                        "contractId": e.contract_id,
                        "templateId": net.template_id(e.tpl),
                        "witnessParties": parties(net, &wit),
                        "packageName": net.package_name(e.tpl),
                        "implementedInterfaces": [],
                    }}));
                }
            }
            Node::Fetch { .. } => {}
        }
    }
    let mut m = Map::new();
    m.insert("updateId".into(), json!(u.update_id));
    m.insert("commandId".into(), json!(tx.command_id));
    m.insert("workflowId".into(), json!(tx.workflow_id));
    m.insert("effectiveAt".into(), json!(fmt_time(tx.effective_at)));
    m.insert("events".into(), Value::Array(events));
    m.insert("offset".into(), json!(offset));
    m.insert("synchronizerId".into(), json!(net.sync_id(tx.sync)));
    m.insert("traceContext".into(), trace_context(&u.update_id));
    m.insert("recordTime".into(), json!(fmt_time(u.record_time)));
    m.insert("externalTransactionHash".into(), json!(tx.external_hash));
    m.insert("paidTrafficCost".into(), json!(traffic_cost(u, tx)));
    Value::Object(m)
}
