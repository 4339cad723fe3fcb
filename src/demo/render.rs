//! Renders the ledger for the scan and scan-proxy APIs in their exact wire shapes: update history
//! items (`UpdateHistoryTransactionV2` / `UpdateHistoryReassignment`), event-history items with
//! verdict, traffic summary and app activity records, and `Contract` / `ContractWithState`.
//!
//! `protobuf_json` encoding: Daml values are rendered in the verbose protobuf-JSON form of the
//! Ledger API (`{"fields": [{"label", "value": {"party": …}}]}`, `{"numeric": …}`, `{"list":
//! {"elements": …}}`, `{"variant": {"constructor", "value"}}`, `{"optional": {…}}`…), with each
//! value's type inferred from its shape (party ids, contract ids, decimals, timestamps, integers).

use std::fmt;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value, json};

use super::ledger::{Body, CreateNode, ExerciseNode, Node, Reassign, ReassignKind, Tx, Update};
use super::topology::{Network, PartyIdx, Tpl};
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

// The update rendering is done by serializers that borrow from the ledger (no payload copies):
// pages of a thousand updates are rendered straight into the response body.

struct PartiesJson<'a>(&'a Network, &'a [PartyIdx]);

impl Serialize for PartiesJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.1.len()))?;
        for p in self.1 {
            seq.serialize_element(self.0.party_id(*p))?;
        }
        seq.end()
    }
}

/// `<update_id>:<node>`
struct EventIdJson<'a>(&'a str, u32);

impl fmt::Display for EventIdJson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.0, self.1)
    }
}

impl Serialize for EventIdJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A Daml value in the requested encoding (a record at the top of create arguments).
struct PayloadJson<'a> {
    value: &'a Value,
    enc: Encoding,
    record: bool,
}

impl Serialize for PayloadJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (self.enc, self.record) {
            (Encoding::CompactJson, _) => self.value.serialize(s),
            (Encoding::ProtobufJson, true) => encode_record(self.value, self.enc).serialize(s),
            (Encoding::ProtobufJson, false) => proto_value(self.value).serialize(s),
        }
    }
}

/// The entries every event starts with: its type and id, its contract and the contract's
/// template and package.
fn event_head<M: SerializeMap>(
    m: &mut M,
    net: &Network,
    event_type: &str,
    id: &EventIdJson<'_>,
    (contract_id, tpl): (&str, Tpl),
) -> Result<(), M::Error> {
    m.serialize_entry("event_type", event_type)?;
    m.serialize_entry("event_id", id)?;
    m.serialize_entry("contract_id", contract_id)?;
    m.serialize_entry("template_id", net.template_id(tpl))?;
    m.serialize_entry("package_name", net.package_name(tpl))
}

struct CreatedJson<'a> {
    net: &'a Network,
    c: &'a CreateNode,
    id: EventIdJson<'a>,
    created_at: i64,
    enc: Encoding,
}

impl Serialize for CreatedJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (net, c) = (self.net, self.c);
        let mut m = s.serialize_map(Some(9))?;
        event_head(
            &mut m,
            net,
            "created_event",
            &self.id,
            (&c.contract_id, c.tpl),
        )?;
        m.serialize_entry(
            "create_arguments",
            &PayloadJson {
                value: &c.args,
                enc: self.enc,
                record: true,
            },
        )?;
        m.serialize_entry("created_at", &fmt_time(self.created_at))?;
        m.serialize_entry("signatories", &PartiesJson(net, &c.signatories))?;
        m.serialize_entry("observers", &PartiesJson(net, &c.observers))?;
        m.end()
    }
}

struct ChildrenJson<'a> {
    update_id: &'a str,
    tx: &'a Tx,
    children: &'a [u32],
}

impl Serialize for ChildrenJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for c in self.children {
            if self
                .tx
                .nodes
                .get(*c as usize)
                .is_some_and(|n| !n.is_fetch())
            {
                seq.serialize_element(&EventIdJson(self.update_id, *c))?;
            }
        }
        seq.end()
    }
}

struct ExercisedJson<'a> {
    net: &'a Network,
    update_id: &'a str,
    tx: &'a Tx,
    e: &'a ExerciseNode,
    n: u32,
    enc: Encoding,
}

impl Serialize for ExercisedJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (net, e) = (self.net, self.e);
        let mut m = s.serialize_map(Some(12))?;
        let id = EventIdJson(self.update_id, self.n);
        event_head(&mut m, net, "exercised_event", &id, (&e.contract_id, e.tpl))?;
        m.serialize_entry("choice", e.choice)?;
        let payload = |value| PayloadJson {
            value,
            enc: self.enc,
            record: false,
        };
        m.serialize_entry("choice_argument", &payload(&e.argument))?;
        m.serialize_entry(
            "child_event_ids",
            &ChildrenJson {
                update_id: self.update_id,
                tx: self.tx,
                children: &e.children,
            },
        )?;
        m.serialize_entry("exercise_result", &payload(&e.result))?;
        m.serialize_entry("consuming", &e.consuming)?;
        m.serialize_entry("acting_parties", &PartiesJson(net, &e.actors))?;
        m.serialize_entry("interface_id", &Value::Null)?;
        m.end()
    }
}

struct EventsByIdJson<'a> {
    net: &'a Network,
    update_id: &'a str,
    tx: &'a Tx,
    enc: Encoding,
}

impl Serialize for EventsByIdJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let tx = self.tx;
        let mut ids: Vec<u32> = (0..tx.nodes.len() as u32)
            .filter(|n| !tx.nodes[*n as usize].is_fetch())
            .collect();
        // `events_by_id` is sorted as text, so `…:10` comes before `…:2`.
        ids.sort_by_cached_key(std::string::ToString::to_string);
        let mut m = s.serialize_map(Some(ids.len()))?;
        for n in ids {
            let key = EventIdJson(self.update_id, n);
            match &tx.nodes[n as usize] {
                Node::Create(c) => m.serialize_entry(
                    &key,
                    &CreatedJson {
                        net: self.net,
                        c,
                        id: EventIdJson(self.update_id, n),
                        created_at: tx.effective_at,
                        enc: self.enc,
                    },
                )?,
                Node::Exercise(e) => m.serialize_entry(
                    &key,
                    &ExercisedJson {
                        net: self.net,
                        update_id: self.update_id,
                        tx,
                        e,
                        n,
                        enc: self.enc,
                    },
                )?,
                Node::Fetch { .. } => {}
            }
        }
        m.end()
    }
}

/// One `/v2/updates` item (`UpdateHistoryTransactionV2` or `UpdateHistoryReassignment`),
/// serialized without copying the ledger's data.
pub struct ScanUpdateJson<'a> {
    pub net: &'a Network,
    pub u: &'a Update,
    pub idx: usize,
    pub scan: usize,
    pub enc: Encoding,
    /// Rendered by a diverging demo scan: a different `workflow_id`.
    pub diverged: bool,
}

impl Serialize for ScanUpdateJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (net, u) = (self.net, self.u);
        match &u.body {
            Body::Tx(tx) => {
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("update_id", &u.update_id)?;
                m.serialize_entry("migration_id", &u.migration_id)?;
                if self.diverged {
                    m.serialize_entry(
                        "workflow_id",
                        &super::faults::diverged_workflow(&tx.workflow_id),
                    )?;
                } else {
                    m.serialize_entry("workflow_id", &tx.workflow_id)?;
                }
                m.serialize_entry("record_time", &fmt_time(u.record_time))?;
                m.serialize_entry("synchronizer_id", net.sync_id(tx.sync))?;
                m.serialize_entry("effective_at", &fmt_time(tx.effective_at))?;
                let roots: Vec<EventIdJson<'_>> = tx
                    .roots
                    .iter()
                    .filter(|r| !tx.nodes[**r as usize].is_fetch())
                    .map(|r| EventIdJson(&u.update_id, *r))
                    .collect();
                m.serialize_entry("root_event_ids", &roots)?;
                m.serialize_entry(
                    "events_by_id",
                    &EventsByIdJson {
                        net,
                        update_id: &u.update_id,
                        tx,
                        enc: self.enc,
                    },
                )?;
                if let Some(h) = &tx.external_hash {
                    m.serialize_entry("external_transaction_hash", h)?;
                }
                m.end()
            }
            Body::Reassign(r) => {
                let mut m = s.serialize_map(Some(4))?;
                m.serialize_entry("update_id", &u.update_id)?;
                m.serialize_entry("offset", &scan_offset(self.idx, self.scan))?;
                m.serialize_entry("record_time", &fmt_time(u.record_time))?;
                m.serialize_entry(
                    "event",
                    &ReassignEventJson {
                        net,
                        u,
                        r,
                        enc: self.enc,
                    },
                )?;
                m.end()
            }
        }
    }
}

struct ReassignEventJson<'a> {
    net: &'a Network,
    u: &'a Update,
    r: &'a Reassign,
    enc: Encoding,
}

impl Serialize for ReassignEventJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (net, u, r) = (self.net, self.u, self.r);
        let mut m = s.serialize_map(Some(7))?;
        m.serialize_entry("submitter", net.party_id(r.submitter))?;
        m.serialize_entry("source_synchronizer", net.sync_id(r.source))?;
        match r.kind {
            ReassignKind::Unassign => {
                m.serialize_entry("migration_id", &u.migration_id)?;
                m.serialize_entry("target_synchronizer", net.sync_id(r.target))?;
                m.serialize_entry("unassign_id", &r.unassign_id)?;
                m.serialize_entry("reassignment_counter", &r.counter)?;
                m.serialize_entry("contract_id", &r.create.contract_id)?;
            }
            ReassignKind::Assign => {
                m.serialize_entry("target_synchronizer", net.sync_id(r.target))?;
                m.serialize_entry("migration_id", &u.migration_id)?;
                m.serialize_entry("unassign_id", &r.unassign_id)?;
                m.serialize_entry(
                    "created_event",
                    &CreatedJson {
                        net,
                        c: &r.create,
                        id: EventIdJson(&u.update_id, 0),
                        created_at: r.created_at,
                        enc: self.enc,
                    },
                )?;
                m.serialize_entry("reassignment_counter", &r.counter)?;
            }
        }
        m.end()
    }
}

/// The scan offset string of an update on scan instance `scan` (differs between scans).
pub fn scan_offset(idx: usize, scan: usize) -> String {
    format!("{:016x}", 0x0100_0000 * (scan as u64 + 1) + idx as u64 + 1)
}

/// One `/v2/updates` item as a JSON value.
pub fn scan_update(net: &Network, u: &Update, idx: usize, scan: usize, enc: Encoding) -> Value {
    serde_json::to_value(ScanUpdateJson {
        net,
        u,
        idx,
        scan,
        enc,
        diverged: false,
    })
    .unwrap_or(Value::Null)
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
        // As Splice 0.8+ scans send it.
        "round_number": tx.round,
    })
}

/// Traffic cost of each envelope (one per root view, carrying it and its sub-views).
fn envelopes(u: &Update, tx: &Tx) -> Vec<(i64, Vec<i64>)> {
    let (vs, roots) = views(tx);
    let jitter = u
        .update_id
        .bytes()
        .fold(0i64, |a, b| (a * 31 + i64::from(b)) % 997);
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
    event_with(net, u, &update)
}

/// An event with a verdict and no update (`update: null`): a confirmation request the mediator
/// rejected, or a wholly private transaction (its traffic summary too; no app activity).
pub fn verdict_only_item(net: &Network, u: &Update) -> Value {
    event_with(net, u, &Value::Null)
}

/// The event of `u`, its update rendered as `update` (`null`: a verdict-only event).
fn event_with(net: &Network, u: &Update, update: &Value) -> Value {
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
pub fn contract_with_state(
    net: &Network,
    c: &CreateNode,
    created_at: i64,
    sync: Option<&str>,
) -> Value {
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
        Value::Array(a) => {
            json!({"list": {"elements": a.iter().map(proto_value).collect::<Vec<_>>()}})
        }
        Value::Object(m) => {
            if let (Some(Value::String(tag)), Some(val), 2) =
                (m.get("tag"), m.get("value"), m.len())
            {
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
