//! Renders the ledger for the scan and scan-proxy APIs in their exact wire shapes: update history
//! items (`UpdateHistoryTransactionV2` / `UpdateHistoryReassignment`), event-history items with
//! verdict, traffic summary and app activity records, and `Contract` / `ContractWithState`.
//!
//! `protobuf_json` encoding: Daml values are rendered in the verbose protobuf-JSON form of the
//! Ledger API (`{"fields": [{"label", "value": {"party": …}}]}`, `{"numeric": …}`, `{"list":
//! {"elements": …}}`, `{"variant": {"constructor", "value"}}`, `{"optional": {…}}`…), with each
//! value's type inferred from its shape (party ids, contract ids, decimals, timestamps, integers).

use serde_json::{Map, Value, json};

use super::ledger::{Body, CreateNode, Node, ReassignKind, Tx, Update};
use super::network::{Network, PartyIdx};
use super::util::{fmt_time, fmt_time6, sha256_hex};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    CompactJson,
    ProtobufJson,
}

impl Encoding {
    pub fn parse(s: &str) -> Option<Encoding> {
        match s {
            "compact_json" => Some(Encoding::CompactJson),
            "protobuf_json" => Some(Encoding::ProtobufJson),
            _ => None,
        }
    }
}

fn parties(net: &Network, ps: &[PartyIdx]) -> Value {
    Value::Array(
        ps.iter()
            .map(|p| Value::String(net.party_id(*p).to_string()))
            .collect(),
    )
}

fn event_id(update_id: &str, node: u32) -> String {
    format!("{update_id}:{node}")
}

/// A scan `CreatedEvent`.
pub fn created_event(
    net: &Network,
    c: &CreateNode,
    event_id: String,
    created_at: i64,
    enc: Encoding,
) -> Value {
    let mut m = Map::new();
    m.insert("event_type".into(), json!("created_event"));
    m.insert("event_id".into(), Value::String(event_id));
    m.insert("contract_id".into(), Value::String(c.contract_id.clone()));
    m.insert("template_id".into(), json!(net.template_id(c.tpl)));
    m.insert("package_name".into(), json!(net.package_name(c.tpl)));
    m.insert("create_arguments".into(), encode_record(&c.args, enc));
    m.insert("created_at".into(), Value::String(fmt_time(created_at)));
    m.insert("signatories".into(), parties(net, &c.signatories));
    m.insert("observers".into(), parties(net, &c.observers));
    Value::Object(m)
}

fn tree_event(net: &Network, update_id: &str, tx: &Tx, n: u32, enc: Encoding) -> Option<Value> {
    match tx.nodes.get(n as usize)? {
        Node::Create(c) => Some(created_event(
            net,
            c,
            event_id(update_id, n),
            tx.effective_at,
            enc,
        )),
        Node::Exercise(e) => {
            let children: Vec<Value> = e
                .children
                .iter()
                .filter(|c| tx.nodes.get(**c as usize).is_some_and(|n| !n.is_fetch()))
                .map(|c| Value::String(event_id(update_id, *c)))
                .collect();
            let mut m = Map::new();
            m.insert("event_type".into(), json!("exercised_event"));
            m.insert("event_id".into(), Value::String(event_id(update_id, n)));
            m.insert("contract_id".into(), Value::String(e.contract_id.clone()));
            m.insert("template_id".into(), json!(net.template_id(e.tpl)));
            m.insert("package_name".into(), json!(net.package_name(e.tpl)));
            m.insert("choice".into(), json!(e.choice));
            m.insert("choice_argument".into(), encode_value(&e.argument, enc));
            m.insert("child_event_ids".into(), Value::Array(children));
            m.insert("exercise_result".into(), encode_value(&e.result, enc));
            m.insert("consuming".into(), json!(e.consuming));
            m.insert("acting_parties".into(), parties(net, &e.actors));
            m.insert("interface_id".into(), Value::Null);
            Some(Value::Object(m))
        }
        Node::Fetch { .. } => None,
    }
}

/// The scan offset string of an update on scan instance `scan` (differs between scans).
pub fn scan_offset(idx: usize, scan: usize) -> String {
    format!("{:016x}", 0x0100_0000 * (scan as u64 + 1) + idx as u64 + 1)
}

/// One `/v2/updates` item.
pub fn scan_update(net: &Network, u: &Update, idx: usize, scan: usize, enc: Encoding) -> Value {
    match &u.body {
        Body::Tx(tx) => {
            let mut ids: Vec<u32> = (0..tx.nodes.len() as u32)
                .filter(|n| !tx.nodes[*n as usize].is_fetch())
                .collect();
            // `events_by_id` is sorted as text, so `…:10` comes before `…:2`.
            ids.sort_by_cached_key(|n| n.to_string());
            let mut events = Map::new();
            for n in ids {
                if let Some(ev) = tree_event(net, &u.update_id, tx, n, enc) {
                    events.insert(event_id(&u.update_id, n), ev);
                }
            }
            let roots: Vec<Value> = tx
                .roots
                .iter()
                .filter(|r| !tx.nodes[**r as usize].is_fetch())
                .map(|r| Value::String(event_id(&u.update_id, *r)))
                .collect();
            let mut m = Map::new();
            m.insert("update_id".into(), Value::String(u.update_id.clone()));
            m.insert("migration_id".into(), json!(u.migration_id));
            m.insert("workflow_id".into(), Value::String(tx.workflow_id.clone()));
            m.insert("record_time".into(), Value::String(fmt_time(u.record_time)));
            m.insert("synchronizer_id".into(), json!(net.sync_id(tx.sync)));
            m.insert("effective_at".into(), Value::String(fmt_time(tx.effective_at)));
            m.insert("root_event_ids".into(), Value::Array(roots));
            m.insert("events_by_id".into(), Value::Object(events));
            if let Some(h) = &tx.external_hash {
                m.insert("external_transaction_hash".into(), Value::String(h.clone()));
            }
            Value::Object(m)
        }
        Body::Reassign(r) => {
            let event = match r.kind {
                ReassignKind::Unassign => json!({
                    "submitter": net.party_id(r.submitter),
                    "source_synchronizer": net.sync_id(r.source),
                    "migration_id": u.migration_id,
                    "target_synchronizer": net.sync_id(r.target),
                    "unassign_id": r.unassign_id,
                    "reassignment_counter": r.counter,
                    "contract_id": r.create.contract_id,
                }),
                ReassignKind::Assign => json!({
                    "submitter": net.party_id(r.submitter),
                    "source_synchronizer": net.sync_id(r.source),
                    "target_synchronizer": net.sync_id(r.target),
                    "migration_id": u.migration_id,
                    "unassign_id": r.unassign_id,
                    "created_event": created_event(net, &r.create, event_id(&u.update_id, 0), r.created_at, enc),
                    "reassignment_counter": r.counter,
                }),
            };
            json!({
                "update_id": u.update_id,
                "offset": scan_offset(idx, scan),
                "record_time": fmt_time(u.record_time),
                "event": event,
            })
        }
    }
}

struct View {
    id: i64,
    informees: Vec<PartyIdx>,
    confirmers: Vec<PartyIdx>,
    sub_views: Vec<i64>,
    events: usize,
}

fn subtree(tx: &Tx, n: u32, out: &mut Vec<u32>) {
    out.push(n);
    for c in tx.nodes[n as usize].children() {
        subtree(tx, *c, out);
    }
}

fn confirmers_of(node: &Node) -> Vec<PartyIdx> {
    let mut v: Vec<PartyIdx> = match node {
        Node::Create(c) => c.signatories.clone(),
        Node::Exercise(e) => e.actors.iter().chain(&e.signatories).copied().collect(),
        Node::Fetch { .. } => Vec::new(),
    };
    v.sort_unstable();
    v.dedup();
    v
}

fn make_view(tx: &Tx, root: u32, exclude: &[u32], next: &mut i64) -> View {
    let mut nodes = Vec::new();
    subtree(tx, root, &mut nodes);
    nodes.retain(|n| !exclude.contains(n));
    let mut informees: Vec<PartyIdx> = nodes
        .iter()
        .flat_map(|n| tx.nodes[*n as usize].informees())
        .collect();
    informees.sort_unstable();
    informees.dedup();
    let id = *next;
    *next += 1;
    View {
        id,
        informees,
        confirmers: confirmers_of(&tx.nodes[root as usize]),
        sub_views: Vec::new(),
        events: nodes
            .iter()
            .filter(|n| !tx.nodes[**n as usize].is_fetch())
            .count(),
    }
}

/// The transaction views: one per root action; children exercised by different actors form
/// sub-views. Returns (views in id order, root view ids, root view id of each view's envelope).
fn views(tx: &Tx) -> (Vec<View>, Vec<i64>) {
    let mut out = Vec::new();
    let mut roots = Vec::new();
    let mut next = 0;
    for r in &tx.roots {
        let node = &tx.nodes[*r as usize];
        if node.is_fetch() {
            continue;
        }
        let root_actors = confirmers_of(node);
        let subs: Vec<u32> = node
            .children()
            .iter()
            .copied()
            .filter(|c| {
                matches!(tx.nodes[*c as usize], Node::Exercise(_))
                    && confirmers_of(&tx.nodes[*c as usize]) != root_actors
            })
            .collect();
        let mut excluded = Vec::new();
        for s in &subs {
            subtree(tx, *s, &mut excluded);
        }
        let view = make_view(tx, *r, &excluded, &mut next);
        roots.push(view.id);
        let pos = out.len();
        out.push(view);
        for s in subs {
            let sv = make_view(tx, s, &[], &mut next);
            out[pos].sub_views.push(sv.id);
            out.push(sv);
        }
    }
    (out, roots)
}

fn view_hash(u: &Update, view: i64) -> String {
    if u.migration_id == 0 {
        // Ingested before view hashes were recorded.
        return String::new();
    }
    sha256_hex(format!("{}/view/{view}", u.update_id).as_bytes())
}

fn quorums(net: &Network, confirmers: &[PartyIdx]) -> Value {
    let dso = net.dso;
    let mut out = Vec::new();
    let others: Vec<PartyIdx> = confirmers.iter().copied().filter(|p| *p != dso).collect();
    if !others.is_empty() {
        out.push(json!({"parties": parties(net, &others), "threshold": others.len()}));
    }
    if confirmers.contains(&dso) {
        out.push(json!({"parties": [net.dso_id()], "threshold": 1}));
    }
    Value::Array(out)
}

/// The mediator verdict of a transaction (`EventHistoryVerdict`).
pub fn verdict(net: &Network, u: &Update, tx: &Tx) -> Value {
    let (vs, roots) = views(tx);
    let views_json: Vec<Value> = vs
        .iter()
        .map(|v| {
            json!({
                "view_id": v.id,
                "informees": parties(net, &v.informees),
                "confirming_parties": quorums(net, &v.confirmers),
                "sub_views": v.sub_views,
                "view_hash": view_hash(u, v.id),
            })
        })
        .collect();
    let submitter = tx.submitters.first().copied().unwrap_or(net.dso);
    json!({
        "update_id": u.update_id,
        "migration_id": u.migration_id,
        "domain_id": net.sync_id(tx.sync),
        "record_time": fmt_time(u.record_time),
        "finalization_time": fmt_time(u.record_time + tx.finalization_delay),
        "submitting_parties": parties(net, &tx.submitters),
        "submitting_participant_uid": net.host(submitter).uid(),
        "verdict_result": if tx.rejected { "VERDICT_RESULT_REJECTED" } else { "VERDICT_RESULT_ACCEPTED" },
        "mediator_group": 0,
        "transaction_views": {"views": views_json, "root_views": roots},
    })
}

/// Traffic cost of each envelope (one per root view, carrying it and its sub-views).
fn envelopes(u: &Update, tx: &Tx) -> Vec<(i64, Vec<i64>)> {
    let (vs, roots) = views(tx);
    let jitter = u.update_id.bytes().fold(0i64, |a, b| (a * 31 + i64::from(b)) % 997);
    roots
        .iter()
        .map(|r| {
            let mut ids = vec![*r];
            let mut events = 0;
            if let Some(v) = vs.iter().find(|v| v.id == *r) {
                ids.extend(&v.sub_views);
                events += v.events;
            }
            for s in &ids[1..] {
                if let Some(v) = vs.iter().find(|v| v.id == *s) {
                    events += v.events;
                }
            }
            (1_800 + 950 * events as i64 + jitter + 13 * *r, ids)
        })
        .collect()
}

/// Total traffic cost paid for a transaction.
pub fn traffic_cost(u: &Update, tx: &Tx) -> i64 {
    envelopes(u, tx).iter().map(|e| e.0).sum()
}

/// `/v0/events/{update_id}`: update plus verdict, traffic summary and app activity records.
/// Data of migration 0 predates traffic summaries (they are `null`), as on real networks.
pub fn event_item(net: &Network, u: &Update, idx: usize, scan: usize, enc: Encoding) -> Value {
    let update = scan_update(net, u, idx, scan, enc);
    let Body::Tx(tx) = &u.body else {
        return json!({"update": update, "verdict": null, "traffic_summary": null, "app_activity_records": null});
    };
    let verdict = verdict(net, u, tx);
    if u.migration_id == 0 {
        return json!({"update": update, "verdict": verdict, "traffic_summary": null, "app_activity_records": null});
    }
    let env = envelopes(u, tx);
    let total: i64 = env.iter().map(|e| e.0).sum();
    let traffic = json!({
        "total_traffic_cost": total,
        "envelope_traffic_summaries": env.iter().map(|(cost, ids)| json!({"traffic_cost": cost, "view_ids": ids})).collect::<Vec<_>>(),
    });
    let records: Vec<Value> = tx
        .app_provider
        .filter(|_| !tx.rejected)
        .map(|p| json!({"party": net.party_id(p), "weight": total}))
        .into_iter()
        .collect();
    json!({
        "update": update,
        "verdict": verdict,
        "traffic_summary": traffic,
        "app_activity_records": {"round_number": tx.round, "records": records},
    })
}

/// An opaque, deterministic `created_event_blob` (base64).
pub fn created_event_blob(net: &Network, c: &CreateNode) -> String {
    use base64::Engine as _;
    let mut bytes = Vec::with_capacity(256);
    bytes.extend_from_slice(b"\x0a\x032.1\x12");
    bytes.extend_from_slice(c.contract_id.as_bytes());
    bytes.push(0x1a);
    bytes.extend_from_slice(net.template_id(c.tpl).as_bytes());
    bytes.push(0x22);
    bytes.extend_from_slice(c.args.to_string().as_bytes());
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// `ContractWithState` of the scan proxy.
pub fn contract_with_state(net: &Network, c: &CreateNode, created_at: i64, sync: Option<&str>) -> Value {
    let mut m = Map::new();
    m.insert(
        "contract".into(),
        json!({
            "template_id": net.template_id(c.tpl),
            "contract_id": c.contract_id,
            "payload": c.args,
            "created_event_blob": created_event_blob(net, c),
            "created_at": fmt_time6(created_at),
        }),
    );
    if let Some(s) = sync {
        m.insert("domain_id".into(), json!(s));
    }
    Value::Object(m)
}

// ---------------------------------------------------------------------------------------------
// protobuf_json

fn encode_record(v: &Value, enc: Encoding) -> Value {
    match (enc, v) {
        (Encoding::CompactJson, _) => v.clone(),
        (Encoding::ProtobufJson, Value::Object(m)) => proto_fields(m),
        (Encoding::ProtobufJson, other) => proto_value(other),
    }
}

fn encode_value(v: &Value, enc: Encoding) -> Value {
    match enc {
        Encoding::CompactJson => v.clone(),
        Encoding::ProtobufJson => proto_value(v),
    }
}

fn proto_fields(m: &Map<String, Value>) -> Value {
    json!({"fields": m.iter().map(|(k, v)| json!({"label": k, "value": proto_value(v)})).collect::<Vec<_>>()})
}

fn looks_party(s: &str) -> bool {
    match s.rsplit_once("::") {
        Some((name, fp)) => {
            !name.is_empty() && fp.len() == 68 && fp.starts_with("1220") && super::util::is_hex(fp)
        }
        None => false,
    }
}

fn looks_contract_id(s: &str) -> bool {
    s.len() == 138 && s.starts_with("00") && super::util::is_hex(s)
}

fn looks_numeric(s: &str) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    match body.split_once('.') {
        Some((i, f)) => {
            !i.is_empty()
                && !f.is_empty()
                && i.bytes().all(|b| b.is_ascii_digit())
                && f.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

fn looks_int(s: &str) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    !body.is_empty() && body.len() < 19 && body.bytes().all(|b| b.is_ascii_digit())
}

fn proto_value(v: &Value) -> Value {
    match v {
        Value::Null => json!({"optional": {}}),
        Value::Bool(b) => json!({"bool": b}),
        Value::Number(n) => json!({"int64": n.to_string()}),
        Value::String(s) => {
            if looks_party(s) {
                json!({"party": s})
            } else if looks_contract_id(s) {
                json!({"contractId": s})
            } else if looks_numeric(s) {
                json!({"numeric": s})
            } else if looks_int(s) {
                json!({"int64": s})
            } else if super::util::parse_time(s).is_some() {
                json!({"timestamp": s})
            } else {
                json!({"text": s})
            }
        }
        Value::Array(a) => json!({"list": {"elements": a.iter().map(proto_value).collect::<Vec<_>>()}}),
        Value::Object(m) => {
            if let (Some(Value::String(tag)), Some(val), 2) = (m.get("tag"), m.get("value"), m.len()) {
                json!({"variant": {"constructor": tag, "value": proto_value(val)}})
            } else {
                json!({"record": proto_fields(m)})
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protobuf_json_tags_values_by_shape() {
        let v = json!({"owner": "alice::1220aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "amount": "1.5000000000", "n": "3", "at": "2024-06-24T21:08:34.404896Z",
            "lock": null, "xs": ["x"], "v": {"tag": "A", "value": {}}});
        let p = encode_record(&v, Encoding::ProtobufJson);
        let s = p.to_string();
        assert!(s.contains(r#"{"label":"owner","value":{"party":"alice::1220"#));
        assert!(s.contains(r#"{"numeric":"1.5000000000"}"#));
        assert!(s.contains(r#"{"int64":"3"}"#));
        assert!(s.contains(r#"{"timestamp":"2024-06-24T21:08:34.404896Z"}"#));
        assert!(s.contains(r#"{"optional":{}}"#));
        assert!(s.contains(r#"{"list":{"elements":[{"text":"x"}]}}"#));
        assert!(s.contains(r#"{"variant":{"constructor":"A","value":{"record":{"fields":[]}}}}"#));
        assert_eq!(encode_record(&v, Encoding::CompactJson), v);
    }
}
