//! What a config action changes: the proposed config against its `baseConfig` when the action
//! carries one (the change is what differs between the two: patch semantics), else against the
//! config in force. Only changed leaves are listed, each with its path and folded JSON.

use serde::Serialize;
use serde_json::Value;

use crate::api::scan::{DsoInfo, GovAction};

/// One changed value: its path (`transferConfig.createFee.fee`) and the value before and after
/// as one-line JSON (`None`: absent on that side).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffLine {
    pub path: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// The proposed config of a `SetConfig` action and its `baseConfig` (when the action carries
/// one); `None` for other actions.
pub fn proposed_config(action: &GovAction) -> Option<(&Value, Option<&Value>)> {
    if !action.name.ends_with("_SetConfig") {
        return None;
    }
    let new = action.value.get("newConfig").filter(|v| !v.is_null())?;
    let base = action.value.get("baseConfig").filter(|v| !v.is_null());
    Some((new, base))
}

/// What a config action's diff is taken against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffBase {
    /// The action's own `baseConfig` (patch semantics).
    BaseConfig,
    /// The config in force now (`/v0/dso`: the DSO rules' `config`, or the amulet rules'
    /// current config).
    InForce,
}

/// The config in force now for a config action: the DSO rules' `config` for `SRARC_SetConfig`,
/// the amulet rules' current config (`configSchedule.initialValue`) for `CRARC_SetConfig`.
pub fn config_in_force(action: &GovAction, dso: &DsoInfo) -> Option<Value> {
    let (contract, path) = match action.name.as_str() {
        "SRARC_SetConfig" => (&dso.dso_rules, "/contract/payload/config"),
        "CRARC_SetConfig" => (
            &dso.amulet_rules,
            "/contract/payload/configSchedule/initialValue",
        ),
        _ => return None,
    };
    contract
        .to_value()
        .ok()?
        .pointer(path)
        .filter(|v| !v.is_null())
        .cloned()
}

/// What a config action changes: against its `baseConfig` when it carries one, else against
/// `in_force` when known; `None` for other actions or when neither is known.
pub fn action_diff(
    action: &GovAction,
    in_force: Option<&Value>,
) -> Option<(DiffBase, Vec<DiffLine>)> {
    let (new, base) = proposed_config(action)?;
    match (base, in_force) {
        (Some(base), _) => Some((DiffBase::BaseConfig, config_diff(base, new))),
        (None, Some(now)) => Some((DiffBase::InForce, config_diff(now, new))),
        (None, None) => None,
    }
}

/// The leaves that differ between `old` and `new`, in path order. Arrays are compared whole.
pub fn config_diff(old: &Value, new: &Value) -> Vec<DiffLine> {
    let mut out = Vec::new();
    walk("", Some(old), Some(new), &mut out);
    out
}

fn folded(v: Option<&Value>) -> Option<String> {
    v.map(|v| serde_json::to_string(v).unwrap_or_default())
}

fn walk(path: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<DiffLine>) {
    if let (Some(Value::Object(a)), Some(Value::Object(b))) = (old, new) {
        let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            let sub = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            walk(&sub, a.get(k), b.get(k), out);
        }
        return;
    }
    if old != new {
        out.push(DiffLine {
            path: if path.is_empty() {
                "(whole config)".to_owned()
            } else {
                path.to_owned()
            },
            old: folded(old),
            new: folded(new),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_changed_leaves_with_paths() {
        let old = json!({"a": {"b": "1", "c": [1, 2]}, "d": "x", "gone": true});
        let new = json!({"a": {"b": "2", "c": [1, 2]}, "d": "x", "added": {"k": 1}});
        let lines = config_diff(&old, &new);
        assert_eq!(
            lines,
            [
                DiffLine {
                    path: "a.b".into(),
                    old: Some("\"1\"".into()),
                    new: Some("\"2\"".into())
                },
                DiffLine {
                    path: "added".into(),
                    old: None,
                    new: Some("{\"k\":1}".into())
                },
                DiffLine {
                    path: "gone".into(),
                    old: Some("true".into()),
                    new: None
                },
            ]
        );
        assert!(config_diff(&old, &old).is_empty());
    }

    #[test]
    fn a_diff_against_the_base_config_else_the_config_in_force() {
        let with_base = GovAction::decode(
            &json!({"tag":"ARC_DsoRules","value":{"dsoAction":{"tag":"SRARC_SetConfig","value":{"newConfig":{"n":"2","m":"1"},"baseConfig":{"n":"1","m":"1"}}}}}),
        );
        let (base, lines) = action_diff(&with_base, Some(&json!({"n": "9"}))).expect("a diff");
        assert_eq!(base, DiffBase::BaseConfig);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].path, "n");
        let dso: DsoInfo = serde_json::from_value(
            json!({"dso_rules": {"contract": {"payload": {"config": {"n": "1", "m": "0"}}}}}),
        )
        .expect("dso");
        let no_base = GovAction::decode(
            &json!({"tag":"ARC_DsoRules","value":{"dsoAction":{"tag":"SRARC_SetConfig","value":{"newConfig":{"n":"2","m":"0"}}}}}),
        );
        let now = config_in_force(&no_base, &dso);
        let (base, lines) = action_diff(&no_base, now.as_ref()).expect("a diff");
        assert_eq!(base, DiffBase::InForce);
        assert_eq!(
            lines.iter().map(|l| l.path.as_str()).collect::<Vec<_>>(),
            ["n"]
        );
        assert!(action_diff(&no_base, None).is_none());
    }

    #[test]
    fn set_config_actions_carry_new_and_base() {
        let raw = json!({"tag":"ARC_DsoRules","value":{"dsoAction":{"tag":"SRARC_SetConfig","value":{"newConfig":{"n":2},"baseConfig":{"n":1}}}}});
        let action = GovAction::decode(&raw);
        let (new, base) = proposed_config(&action).expect("a config action");
        assert_eq!(new["n"], 2);
        assert_eq!(base.map(|b| b["n"].clone()), Some(json!(1)));
        let raw = json!({"tag":"ARC_AmuletRules","value":{"amuletRulesAction":{"tag":"CRARC_SetConfig","value":{"newConfig":{"n":2},"baseConfig":null}}}});
        let amulet = GovAction::decode(&raw);
        let (_, base) = proposed_config(&amulet).expect("a config action");
        assert!(base.is_none());
        let raw = json!({"tag":"ARC_DsoRules","value":{"dsoAction":{"tag":"SRARC_OffboardSv","value":{"sv":"x"}}}});
        assert!(proposed_config(&GovAction::decode(&raw)).is_none());
    }
}
