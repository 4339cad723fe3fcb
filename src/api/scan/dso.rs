//! `GET /v0/dso` (`GetDsoInfoResponse`): the DSO as the asked scan's SV sees it: that SV's
//! party (`sv_party_id`), the DSO party, the voting threshold, the newest open mining round, the
//! amulet rules, the DSO rules with the SVs of the DSO, and every SV's node state.
//!
//! The contracts are kept as the JSON the scan sent ([`RawJson`]; the DSO rules' `config` is
//! read by governance views later); the SVs are decoded from
//! `dso_rules.contract.payload.svs` into [`DsoSv`] without ever failing: a Daml map arrives as
//! an array of `[party, SvInfo]` pairs (MainNet) or as an object keyed by party, and an entry of
//! any other shape, a missing field or a number sent as text is skipped or left empty.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::MaybeCachedContract;
use super::MiningRound;
use crate::api::call::{Call, Group};
use crate::api::json::{RawJson, nd, opt_int, parse_nested};

/// One SV of the DSO: an entry of `dso_rules.contract.payload.svs` (party → Daml `SvInfo`).
/// Text fields are empty and numbers `None` when the scan left them out or sent another shape.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct DsoSv {
    /// The SV's party id (the map's key).
    pub party: String,
    /// `name`, the SV's name as `/v0/scans` lists it (`svName`).
    pub name: String,
    /// `svRewardWeight` (a Daml `Int`: a number or a decimal string).
    pub reward_weight: Option<i64>,
    /// `joinedAsOfRound.number`.
    pub joined_as_of_round: Option<i64>,
    /// `participantId` (`PAR::…`).
    pub participant_id: String,
}

/// Response of `GET /v0/dso`. Unknown fields and nulls never fail it; [`DsoInfo::raw`] keeps
/// everything the scan sent (and is what serialising writes back).
#[derive(Debug, Clone, PartialEq)]
pub struct DsoInfo {
    /// The ledger user of the SV app behind this scan.
    pub sv_user: String,
    /// The party of the SV operating this scan.
    pub sv_party_id: String,
    /// The DSO party.
    pub dso_party_id: String,
    /// Votes needed to pass a vote request (derived by Splice from the number of SVs).
    pub voting_threshold: Option<i64>,
    /// The `OpenMiningRound` contract with the highest round number (`ContractWithState`).
    pub latest_mining_round: RawJson,
    /// The `AmuletRules` contract with its whole config schedule (`ContractWithState`).
    pub amulet_rules: RawJson,
    /// The `DsoRules` contract (`ContractWithState`): SVs, epoch, delegate, config.
    pub dso_rules: RawJson,
    /// One `SvNodeState` contract per SV (an array of `ContractWithState`).
    pub sv_node_states: RawJson,
    /// The round the network bootstrapped from (`initial_round`, optional).
    pub initial_round: Option<i64>,
    /// The SVs of `dso_rules.contract.payload.svs`, in the order the scan sent them.
    pub svs: Vec<DsoSv>,
    /// The JSON the scan sent, unknown fields included.
    pub raw: RawJson,
}

#[derive(Deserialize)]
struct DsoInfoRepr {
    #[serde(default, deserialize_with = "nd")]
    sv_user: String,
    #[serde(default, deserialize_with = "nd")]
    sv_party_id: String,
    #[serde(default, deserialize_with = "nd")]
    dso_party_id: String,
    #[serde(default, deserialize_with = "opt_int")]
    voting_threshold: Option<i64>,
    #[serde(default)]
    latest_mining_round: RawJson,
    #[serde(default)]
    amulet_rules: RawJson,
    #[serde(default)]
    dso_rules: RawJson,
    #[serde(default)]
    sv_node_states: RawJson,
    #[serde(default, deserialize_with = "opt_int")]
    initial_round: Option<i64>,
}

impl<'de> Deserialize<'de> for DsoInfo {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawJson::deserialize(d)?;
        let r: DsoInfoRepr =
            parse_nested(raw.get()).map_err(<D::Error as serde::de::Error>::custom)?;
        let svs = r
            .dso_rules
            .to_value()
            .ok()
            .as_ref()
            .and_then(|rules| rules.pointer("/contract/payload/svs"))
            .map(decode_svs)
            .unwrap_or_default();
        Ok(DsoInfo {
            sv_user: r.sv_user,
            sv_party_id: r.sv_party_id,
            dso_party_id: r.dso_party_id,
            voting_threshold: r.voting_threshold,
            latest_mining_round: r.latest_mining_round,
            amulet_rules: r.amulet_rules,
            dso_rules: r.dso_rules,
            sv_node_states: r.sv_node_states,
            initial_round: r.initial_round,
            svs,
            raw,
        })
    }
}

impl Serialize for DsoInfo {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(s)
    }
}

impl DsoInfo {
    /// The SV whose party is `party` (exactly).
    pub fn sv_by_party(&self, party: &str) -> Option<&DsoSv> {
        self.svs.iter().find(|sv| sv.party == party)
    }

    /// The SV named `name` (case-sensitively, as SV names are compared in Splice).
    pub fn sv_by_name(&self, name: &str) -> Option<&DsoSv> {
        self.svs.iter().find(|sv| sv.name == name)
    }

    /// The SV operating the asked scan (`sv_party_id`), when the DSO lists it.
    pub fn own_sv(&self) -> Option<&DsoSv> {
        self.sv_by_party(&self.sv_party_id)
    }

    /// The newest open mining round (`latest_mining_round`), when it carries a round number.
    pub fn latest_round(&self) -> Option<MiningRound> {
        self.latest_mining_round
            .parse::<MaybeCachedContract>()
            .ok()?
            .round()
    }
}

/// The SVs of a Daml `Map Party SvInfo`: `[[party, info], …]` or `{party: info, …}`.
fn decode_svs(svs: &Value) -> Vec<DsoSv> {
    match svs {
        Value::Array(entries) => entries
            .iter()
            .filter_map(|entry| match entry {
                Value::Array(pair) => match pair.as_slice() {
                    [Value::String(party), info] => Some(decode_sv(party, info)),
                    _ => None,
                },
                _ => None,
            })
            .collect(),
        Value::Object(entries) => entries
            .iter()
            .map(|(party, info)| decode_sv(party, info))
            .collect(),
        _ => Vec::new(),
    }
}

fn decode_sv(party: &str, info: &Value) -> DsoSv {
    let text = |key: &str| {
        info.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let joined = info.get("joinedAsOfRound").map(|round| match round {
        Value::Object(_) => round.get("number").and_then(lenient_i64),
        other => lenient_i64(other),
    });
    DsoSv {
        party: party.to_owned(),
        name: text("name"),
        reward_weight: info.get("svRewardWeight").and_then(lenient_i64),
        joined_as_of_round: joined.flatten(),
        participant_id: text("participantId"),
    }
}

/// An integer sent as a number or as decimal text; anything else is `None`.
fn lenient_i64(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// `GET /v0/dso`: the DSO as the asked scan's SV sees it (its party, the DSO rules and SVs,
/// the voting threshold, the newest open round, the amulet rules, the SVs' node states).
pub fn dso() -> Call<DsoInfo> {
    Group::Scan.get("scan GET /v0/dso", "/v0/dso")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(json: &str) -> DsoInfo {
        serde_json::from_str(json).expect("decodes")
    }

    #[test]
    fn svs_as_pairs_with_numbers_as_text_or_numbers() {
        let info = decode(
            r#"{"sv_user":"u","sv_party_id":"B::2","dso_party_id":"DSO::1","voting_threshold":"2",
                "initial_round":"0",
                "dso_rules":{"contract":{"payload":{"svs":[
                  ["A::1",{"name":"Alpha","svRewardWeight":"10000","joinedAsOfRound":{"number":"3"},"participantId":"PAR::A::1"}],
                  ["B::2",{"name":"Beta","svRewardWeight":2500,"joinedAsOfRound":{"number":7},"participantId":"PAR::B::2","extra":true}]
                ]}}},
                "future_field":{"x":1}}"#,
        );
        assert_eq!(info.voting_threshold, Some(2));
        assert_eq!(info.initial_round, Some(0));
        assert_eq!(info.svs.len(), 2);
        assert_eq!(
            info.svs[0],
            DsoSv {
                party: "A::1".into(),
                name: "Alpha".into(),
                reward_weight: Some(10_000),
                joined_as_of_round: Some(3),
                participant_id: "PAR::A::1".into(),
            }
        );
        assert_eq!(info.svs[1].reward_weight, Some(2_500));
        assert_eq!(info.svs[1].joined_as_of_round, Some(7));
        assert_eq!(info.own_sv().map(|sv| sv.name.as_str()), Some("Beta"));
        assert_eq!(
            info.sv_by_name("Alpha").map(|sv| sv.party.as_str()),
            Some("A::1")
        );
        assert!(
            info.sv_by_name("alpha").is_none(),
            "names match case-sensitively"
        );
        // The unknown field is kept, and serialising writes back what was sent.
        let again = serde_json::to_value(&info).expect("serialises");
        assert_eq!(again["future_field"]["x"], 1);
    }

    #[test]
    fn svs_as_an_object_keyed_by_party() {
        let info = decode(
            r#"{"sv_party_id":"A::1","dso_rules":{"contract":{"payload":{"svs":{
                "A::1":{"name":"Alpha","svRewardWeight":"5"},
                "B::2":{"name":"Beta"}}}}}}"#,
        );
        let names: Vec<(&str, &str, Option<i64>)> = info
            .svs
            .iter()
            .map(|sv| (sv.party.as_str(), sv.name.as_str(), sv.reward_weight))
            .collect();
        assert_eq!(names, [("A::1", "Alpha", Some(5)), ("B::2", "Beta", None)]);
    }

    #[test]
    fn nulls_odd_entries_and_missing_parts_never_fail() {
        let info = decode(
            r#"{"sv_user":null,"sv_party_id":null,"dso_party_id":null,"voting_threshold":null,
                "latest_mining_round":null,"amulet_rules":null,"sv_node_states":null,
                "dso_rules":{"contract":{"payload":{"svs":[
                  "not a pair", ["only-a-key"], [7, {"name":"number key"}],
                  ["C::3", null],
                  ["D::4", {"name": null, "svRewardWeight": "lots", "joinedAsOfRound": "12", "participantId": 5}]
                ]}}}}"#,
        );
        assert_eq!(info.sv_party_id, "");
        assert_eq!(info.voting_threshold, None);
        assert!(info.latest_round().is_none());
        assert!(info.own_sv().is_none());
        let parties: Vec<&str> = info.svs.iter().map(|sv| sv.party.as_str()).collect();
        assert_eq!(parties, ["C::3", "D::4"]);
        assert_eq!(
            info.svs[0],
            DsoSv {
                party: "C::3".into(),
                ..DsoSv::default()
            }
        );
        assert_eq!(info.svs[1].reward_weight, None);
        assert_eq!(info.svs[1].joined_as_of_round, Some(12));
        assert_eq!(info.svs[1].participant_id, "");
        // No dso_rules at all, or one of another shape: no SVs.
        assert!(decode("{}").svs.is_empty());
        assert!(decode(r#"{"dso_rules":"gone"}"#).svs.is_empty());
        assert!(
            decode(r#"{"dso_rules":{"contract":{"payload":{"svs":3}}}}"#)
                .svs
                .is_empty()
        );
    }

    #[test]
    fn a_wrong_type_of_a_typed_field_is_a_decode_error() {
        assert!(serde_json::from_str::<DsoInfo>(r#"{"voting_threshold":"nine"}"#).is_err());
        assert!(serde_json::from_str::<DsoInfo>(r#"{"sv_party_id":{"x":1}}"#).is_err());
        assert!(serde_json::from_str::<DsoInfo>("3").is_err());
        // Through the call, the error names the endpoint and the field.
        let err = dso()
            .decode_response(200, &[], br#"{"sv_user":"u","voting_threshold":"nine"}"#)
            .expect_err("not a number");
        match err {
            crate::api::ApiError::Decode { endpoint, path, .. } => {
                assert_eq!(endpoint, "scan GET /v0/dso");
                assert_eq!(path, "voting_threshold");
            }
            other => panic!("expected a decode error, got {other:?}"),
        }
    }

    #[test]
    fn the_latest_round_comes_from_its_contract() {
        let info = decode(
            r#"{"latest_mining_round":{"contract":{"template_id":"p:Splice.Round:OpenMiningRound",
                "contract_id":"00ab","payload":{"round":{"number":"81325"},"opensAt":"2026-01-30T08:49:18Z"},
                "created_at":"2026-01-30T08:39:18Z"},"domain_id":"global-domain::1"}}"#,
        );
        let round = info.latest_round().expect("a round");
        assert_eq!(round.number, 81_325);
        assert_eq!(round.contract_id, "00ab");
        assert_eq!(round.opens_at, "2026-01-30T08:49:18Z");
    }
}
