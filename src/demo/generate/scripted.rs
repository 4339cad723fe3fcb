//! Scripted governance: a few vote requests beside the regular weight votes, so every state
//! of governance is in the demo history: an expired request, one accepted whose action failed
//! (with a vote of an SV offboarded since), a rejected AmuletRules config change with its
//! `baseConfig`, and three requests still open when the history ends (a DsoRules config change
//! with `baseConfig` and `targetEffectiveAt`, voted by SV 1; a featured app right SV 1 has not
//! voted on, closing within a day; an action whose tag no client knows).
//!
//! They run on their own random stream (`Generator::script_rng`) at fixed times, so the rest
//! of the history is the same with or without them; only the first four SVs (the active ones)
//! take part, so the history is also the same for any number of SVs.

use serde_json::{Value, json};

use super::{Generator, Intent, ROUND_LEN, ROUNDS, Vote, pending_request};
use crate::demo::ledger::Ledger;
use crate::demo::util::{HOUR, SECOND, fmt_time6};

/// A step of the script.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step {
    Open(usize),
    Cast(usize, usize),
    Close(usize),
}

/// How a scripted request ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// Still open when the history ends.
    Open,
    Expired,
    AcceptedButFailed,
    Rejected,
}

#[derive(Clone, Copy)]
enum Kind {
    RevokeFeatured,
    GrantFeatured,
    AmuletConfig,
    DsoConfig,
    Unknown,
}

/// When voting closes.
#[derive(Clone, Copy)]
enum Deadline {
    /// This many rounds after the request is made.
    Rounds(i64),
    /// This long after the end of the generated history.
    AfterHistory(i64),
}

struct Scripted {
    open_round: i64,
    requester: usize,
    kind: Kind,
    /// (sv, accept, round)
    casts: &'static [(usize, bool, i64)],
    close_round: Option<i64>,
    ending: Ending,
    deadline: Deadline,
    /// `targetEffectiveAt` this long after `voteBefore`.
    target_after: Option<i64>,
    /// A vote of an SV offboarded since.
    offboarded_voter: bool,
}

/// The id of scripted request `k` (apart from the regular votes' ids).
const FIRST_ID: u32 = 1_000_000;

/// The name of the SV that voted and was offboarded before the vote closed.
pub(crate) const OFFBOARDED_SV: &str = "Retired-Node-7";

const SCRIPT: [Scripted; 6] = [
    Scripted {
        open_round: 40,
        requester: 1,
        kind: Kind::RevokeFeatured,
        casts: &[(2, true, 41)],
        close_round: Some(47),
        ending: Ending::Expired,
        deadline: Deadline::Rounds(5),
        target_after: None,
        offboarded_voter: false,
    },
    Scripted {
        open_round: 70,
        requester: 0,
        kind: Kind::GrantFeatured,
        casts: &[(1, true, 71), (2, true, 72), (3, true, 72)],
        close_round: Some(74),
        ending: Ending::AcceptedButFailed,
        deadline: Deadline::Rounds(6),
        target_after: None,
        offboarded_voter: true,
    },
    Scripted {
        open_round: 100,
        requester: 3,
        kind: Kind::AmuletConfig,
        casts: &[(0, false, 101), (1, false, 102), (2, true, 102)],
        close_round: Some(104),
        ending: Ending::Rejected,
        deadline: Deadline::Rounds(6),
        target_after: None,
        offboarded_voter: false,
    },
    Scripted {
        open_round: 200,
        requester: 1,
        kind: Kind::DsoConfig,
        casts: &[(0, true, 201), (2, true, 203)],
        close_round: None,
        ending: Ending::Open,
        deadline: Deadline::AfterHistory(4 * 24 * HOUR),
        target_after: Some(24 * HOUR),
        offboarded_voter: false,
    },
    Scripted {
        open_round: 250,
        requester: 3,
        kind: Kind::Unknown,
        casts: &[(0, true, 251)],
        close_round: None,
        ending: Ending::Open,
        deadline: Deadline::AfterHistory(3 * 24 * HOUR),
        target_after: None,
        offboarded_voter: false,
    },
    Scripted {
        open_round: 300,
        requester: 2,
        kind: Kind::GrantFeatured,
        casts: &[(3, false, 302)],
        close_round: None,
        ending: Ending::Open,
        deadline: Deadline::AfterHistory(20 * HOUR),
        target_after: None,
        offboarded_voter: false,
    },
];

/// The scripted steps of round `r`, at fixed offsets in the round (no random draws).
pub(super) fn plan(r: i64) -> Vec<(i64, Intent)> {
    let mut plan = Vec::new();
    if r >= ROUNDS {
        return plan;
    }
    for (k, s) in SCRIPT.iter().enumerate() {
        let off = |secs: i64| (secs + 7 * k as i64) * SECOND + 137_000;
        if s.open_round == r {
            plan.push((off(240), Intent::Scripted(Step::Open(k))));
        }
        for (sv, _, round) in s.casts {
            if *round == r {
                plan.push((
                    off(300 + 11 * *sv as i64),
                    Intent::Scripted(Step::Cast(k, *sv)),
                ));
            }
        }
        if s.close_round == Some(r) {
            plan.push((off(560), Intent::Scripted(Step::Close(k))));
        }
    }
    plan
}

/// The `reason` of scripted request `id`.
pub(super) fn reason(id: u32) -> Value {
    let k = id.saturating_sub(FIRST_ID) as usize;
    let (url, body) = match SCRIPT.get(k).map(|s| s.kind) {
        Some(Kind::RevokeFeatured) => (
            "https://forum.demo.cantonscope.invalid/t/revoke-inactive-app",
            "The app has been inactive for months",
        ),
        Some(Kind::GrantFeatured) => (
            "https://github.com/global-synchronizer-foundation/cips/blob/main/cip-0099/cip-0099.md",
            "Featured app status as approved by the Tokenomics committee",
        ),
        Some(Kind::AmuletConfig) => (
            "https://github.com/global-synchronizer-foundation/cips/blob/main/cip-0098/cip-0098.md",
            "Lower the create fee",
        ),
        Some(Kind::DsoConfig) => (
            "https://github.com/global-synchronizer-foundation/cips/blob/main/cip-0097/cip-0097.md",
            "Longer vote request timeout and a lower unclaimed rewards threshold",
        ),
        Some(Kind::Unknown) | None => ("", "An action of a newer DSO governance version"),
    };
    json!({"url": url, "body": body})
}

impl Generator {
    pub(super) fn scripted(&mut self, l: &mut Ledger, step: Step) {
        match step {
            Step::Open(k) => self.scripted_open(l, k),
            Step::Cast(k, sv) => self.cast_vote(l, FIRST_ID + k as u32, sv),
            Step::Close(k) => self.scripted_close(l, k),
        }
    }

    fn scripted_action(&self, l: &Ledger, kind: Kind) -> Value {
        let dso_action = |tag: &str, value: Value| json!({"tag": "ARC_DsoRules", "value": {"dsoAction": {"tag": tag, "value": value}}});
        match kind {
            Kind::RevokeFeatured => {
                let cid = self
                    .featured
                    .first()
                    .map_or_else(|| "00feed".to_owned(), |f| f.create.contract_id.clone());
                dso_action("SRARC_RevokeFeaturedAppRight", json!({"rightCid": cid}))
            }
            Kind::GrantFeatured => {
                let provider = self.net.validators[1 % self.net.validators.len()];
                dso_action(
                    "SRARC_GrantFeaturedAppRight",
                    json!({"provider": self.pid(provider)}),
                )
            }
            Kind::DsoConfig => {
                let base = self.dso_config();
                let mut new = base.clone();
                new["numUnclaimedRewardsThreshold"] = json!("8");
                new["voteRequestTimeout"] = json!({"microseconds": "1209600000000"});
                dso_action(
                    "SRARC_SetConfig",
                    json!({"newConfig": new, "baseConfig": base}),
                )
            }
            Kind::AmuletConfig => {
                let base = l
                    .amulet_rules_cid()
                    .and_then(|cid| l.contract(cid))
                    .map_or(Value::Null, |(c, _, _)| {
                        c.args["configSchedule"]["initialValue"].clone()
                    });
                let mut new = base.clone();
                if new.is_object() {
                    new["transferConfig"]["createFee"]["fee"] = json!("0.0200000000");
                }
                json!({"tag": "ARC_AmuletRules", "value": {"amuletRulesAction": {"tag": "CRARC_SetConfig",
                    "value": {"newConfig": new, "baseConfig": base}}}})
            }
            Kind::Unknown => dso_action(
                "SRARC_DemoFutureAction",
                json!({"weights": [["A", "1"]], "note": "no client knows this tag"}),
            ),
        }
    }

    fn scripted_open(&mut self, l: &mut Ledger, k: usize) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let s = &SCRIPT[k];
        let dso = self.dso();
        let sv = self.net.svs[s.requester].party;
        let vote_before = match s.deadline {
            Deadline::Rounds(n) => self.now + n * ROUND_LEN,
            Deadline::AfterHistory(after) => self.now + (ROUNDS - self.round) * ROUND_LEN + after,
        };
        let offboarded_votes = if s.offboarded_voter {
            vec![(
                OFFBOARDED_SV.to_owned(),
                json!({"sv": format!("{OFFBOARDED_SV}::1220{}", self.rng.hex(64)), "accept": true,
                    "reason": {"url": "", "body": "voted before leaving"}, "optCastAt": fmt_time6(self.now)}),
            )]
        } else {
            Vec::new()
        };
        let vote = Vote {
            id: FIRST_ID + k as u32,
            con: pending_request(dso),
            first_cid: String::new(),
            requester: s.requester,
            target: s.requester,
            new_weight: 0,
            action: self.scripted_action(l, s.kind),
            casts: s.casts.to_vec(),
            votes: vec![(s.requester, true, self.now)],
            close_round: i64::MAX,
            vote_before,
            target_effective_at: s.target_after.map(|after| vote_before + after),
            offboarded_votes,
            script: Some(s.ending),
        };
        let reason = reason(vote.id);
        let arg = json!({"requester": self.pid(sv), "action": vote.action, "reason": reason,
            "voteRequestTimeout": {"microseconds": (vote_before - self.now).to_string()},
            "targetEffectiveAt": vote.target_effective_at.map(fmt_time6)});
        self.submit_request(l, &rules, vote, &reason, arg);
    }

    fn scripted_close(&mut self, l: &mut Ledger, k: usize) {
        let Some(closing) = self.begin_close(FIRST_ID + k as u32) else {
            return;
        };
        let outcome = match closing.vote.script {
            Some(Ending::AcceptedButFailed) => json!({"tag": "VRO_AcceptedButActionFailed",
                "value": {"description": "Featured app right already granted to this provider"}}),
            Some(Ending::Rejected) => json!({"tag": "VRO_Rejected", "value": {}}),
            _ => json!({"tag": "VRO_Expired", "value": {}}),
        };
        self.finish_close(l, closing, &outcome);
    }
}
