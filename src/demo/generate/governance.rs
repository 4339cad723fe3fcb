//! Governance: vote requests on SV reward weights, votes, closing them, and allocations from the
//! development fund.

use serde_json::{Value, json};

use super::{Con, Generator, ROUND_LEN, TreeB, Vote, micros_obj, pending_request};

/// A vote request being closed: the `DsoRules` it is closed under, the request, its requester
/// (who closes it), the tree so far and the node of the `DsoRules_CloseVoteRequest` exercise.
pub(super) struct Closing {
    rules: Con,
    pub vote: Vote,
    closer: PartyIdx,
    b: TreeB,
    x: u32,
}
use crate::demo::ledger::Ledger;
use crate::demo::topology::{PartyIdx, Tpl};
use crate::demo::util::{HOUR, fmt_amount, fmt_time6};

impl Generator {
    pub(super) fn request_vote(&mut self, l: &mut Ledger) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let n = self.net.active_svs().len();
        let requester = (self.round / 36) as usize % n;
        let target = (requester + 1 + self.rng.index(n - 1)) % n;
        let delta = self.rng.range(1, 6) * 500 * if self.rng.chance(0.5) { 1 } else { -1 };
        let new_weight = (self.sv_weights[target] + delta).max(500);
        let pass = self.rng.chance(0.8);
        let round = self.round;
        let mut casts = Vec::new();
        for s in 0..n {
            if s == requester {
                continue;
            }
            let accept = pass || casts.is_empty();
            casts.push((s, accept, round + 1 + self.rng.range(0, 1)));
        }
        let dso = self.dso();
        let sv = self.net.svs[requester].party;
        let vote_before = self.now + 4 * ROUND_LEN;
        let mut vote = Vote {
            id: self.next_vote,
            con: pending_request(dso),
            first_cid: String::new(),
            requester,
            target,
            new_weight,
            action: Value::Null,
            casts,
            votes: vec![(requester, true, self.now)],
            close_round: round + 3,
            vote_before,
            target_effective_at: None,
            offboarded_votes: Vec::new(),
            script: None,
        };
        self.next_vote += 1;
        vote.action = self.vote_action(&vote);
        let action = vote.action.clone();
        let reason = self.vote_reason(&vote);
        let arg = json!({"requester": self.pid(sv), "action": action, "reason": reason, "voteRequestTimeout": micros_obj(4 * ROUND_LEN), "targetEffectiveAt": null});
        self.submit_request(l, &rules, vote, &reason, arg);
    }

    /// Submits `vote`'s request by its requester (`DsoRules_RequestVote` with `arg`, creating
    /// the request with `reason`) and keeps it among the open requests.
    pub(super) fn submit_request(
        &mut self,
        l: &mut Ledger,
        rules: &Con,
        mut vote: Vote,
        reason: &Value,
        arg: Value,
    ) {
        let sv = self.net.svs[vote.requester].party;
        let mut b = TreeB::new();
        let x = b.exercise(None, rules, "DsoRules_RequestVote", arg, false, vec![sv]);
        let args = self.vote_args(&vote, reason);
        let con = self.create_dso(&mut b, Some(x), Tpl::VoteRequest, args);
        b.set_result(x, json!({"voteRequest": con.cid}));
        vote.first_cid.clone_from(&con.cid);
        vote.con = con;
        self.votes.push(vote);
        self.submit(l, b, vec![sv], "request-vote");
    }

    pub(super) fn vote_action(&self, vote: &Vote) -> Value {
        json!({"tag": "ARC_DsoRules", "value": {"dsoAction": {"tag": "SRARC_UpdateSvRewardWeight", "value": {
            "svParty": self.net.party_id(self.net.svs[vote.target].party),
            "newRewardWeight": vote.new_weight.to_string()
        }}}})
    }

    pub(super) fn vote_reason(&self, vote: &Vote) -> Value {
        if vote.script.is_some() {
            return super::scripted::reason(vote.id);
        }
        json!({"url": format!("https://forum.demo.cantonscope.invalid/t/weight-{}", vote.id), "body": format!("Adjust the reward weight of {}", self.net.svs[vote.target].name)})
    }

    /// The vote of SV `s`, cast at `at`.
    pub(super) fn sv_vote(&self, s: usize, accept: bool, at: i64) -> Value {
        json!({
            "sv": self.net.party_id(self.net.svs[s].party),
            "accept": accept,
            "reason": {"url": "", "body": if accept {"looks good"} else {"not yet"}},
            "optCastAt": fmt_time6(at)
        })
    }

    /// The request's create arguments; a request re-created by a vote carries the id it was
    /// first created with as its `trackingCid`.
    pub(super) fn vote_args(&self, vote: &Vote, reason: &Value) -> Value {
        let mut votes: Vec<Value> = vote
            .votes
            .iter()
            .map(|(s, accept, at)| json!([self.net.svs[*s].name, self.sv_vote(*s, *accept, *at)]))
            .collect();
        votes.extend(
            vote.offboarded_votes
                .iter()
                .map(|(name, v)| json!([name, v])),
        );
        let tracking = (!vote.first_cid.is_empty()).then(|| vote.first_cid.clone());
        json!({
            "dso": self.pid(self.dso()),
            "requester": self.net.svs[vote.requester].name,
            "action": vote.action,
            "reason": reason,
            "voteBefore": fmt_time6(vote.vote_before),
            "votes": votes,
            "trackingCid": tracking,
            "targetEffectiveAt": vote.target_effective_at.map(fmt_time6)
        })
    }

    /// The `DsoRules_CloseVoteRequestResult` of closing `vote` now with `outcome`: the request
    /// as closed, the active SVs that did not vote, the offboarded voters.
    pub(super) fn close_result(&self, vote: &Vote, outcome: &Value) -> Value {
        let abstaining: Vec<&str> = self
            .net
            .active_svs()
            .iter()
            .enumerate()
            .filter(|(i, _)| !vote.votes.iter().any(|v| v.0 == *i))
            .map(|(_, sv)| sv.name.as_str())
            .collect();
        let offboarded: Vec<&str> = vote
            .offboarded_votes
            .iter()
            .map(|(name, _)| name.as_str())
            .collect();
        json!({
            "request": self.vote_args(vote, &self.vote_reason(vote)),
            "completedAt": fmt_time6(self.now),
            "offboardedVoters": offboarded,
            "abstainingSvs": abstaining,
            "outcome": outcome
        })
    }

    pub(super) fn cast_vote(&mut self, l: &mut Ledger, id: u32, s: usize) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let Some(vi) = self.votes.iter().position(|v| v.id == id) else {
            return;
        };
        let Some(accept) = self.votes[vi].casts.iter().find(|c| c.0 == s).map(|c| c.1) else {
            return;
        };
        let dso = self.dso();
        let sv = self.net.svs[s].party;
        let old = self.votes[vi].con.clone();
        self.votes[vi].votes.push((s, accept, self.now));
        let reason = self.vote_reason(&self.votes[vi]);
        let vote_json = self.sv_vote(s, accept, self.now);
        let mut b = TreeB::new();
        let arg = json!({"requestCid": old.cid, "vote": vote_json});
        let x = b.exercise(None, &rules, "DsoRules_CastVote", arg, false, vec![sv]);
        let y = b.exercise(
            Some(x),
            &old,
            "VoteRequest_CastVote",
            json!({"vote": vote_json}),
            true,
            vec![dso],
        );
        let args = self.vote_args(&self.votes[vi].clone(), &reason);
        let con = self.create_dso(&mut b, Some(y), Tpl::VoteRequest, args);
        b.set_result(y, json!({"voteRequest": con.cid}));
        b.set_result(x, json!({"voteRequest": con.cid}));
        self.votes[vi].con = con;
        self.submit(l, b, vec![sv], "cast-vote");
    }

    /// Starts closing the open vote request `id`: takes it from the open requests and begins
    /// the tree with its requester exercising `DsoRules_CloseVoteRequest`, which archives the
    /// request. `None` without `DsoRules` or such a request.
    pub(super) fn begin_close(&mut self, id: u32) -> Option<Closing> {
        let rules = self.dso_rules.clone()?;
        let vi = self.votes.iter().position(|v| v.id == id)?;
        let vote = self.votes.remove(vi);
        let dso = self.dso();
        let closer = self.net.svs[vote.requester].party;
        let mut b = TreeB::new();
        let arg = json!({"requestCid": vote.con.cid, "amuletRulesCid": self.amulet_rules.as_ref().map(|c| c.cid.clone())});
        let x = b.exercise(
            None,
            &rules,
            "DsoRules_CloseVoteRequest",
            arg,
            false,
            vec![closer],
        );
        b.archive(Some(x), &vote.con, vec![dso]);
        Some(Closing {
            rules,
            vote,
            closer,
            b,
            x,
        })
    }

    /// Ends a closing with its `outcome`: the close's result, submitted by the requester.
    pub(super) fn finish_close(&mut self, l: &mut Ledger, closing: Closing, outcome: &Value) {
        let Closing {
            vote,
            closer,
            mut b,
            x,
            ..
        } = closing;
        let result = self.close_result(&vote, outcome);
        b.set_result(x, result);
        self.submit(l, b, vec![closer], "close-vote");
    }

    pub(super) fn close_vote(&mut self, l: &mut Ledger, id: u32) {
        let Some(mut c) = self.begin_close(id) else {
            return;
        };
        let dso = self.dso();
        let accepts = c.vote.votes.iter().filter(|v| v.1).count();
        let accepted = accepts * 4 >= self.net.active_svs().len() * 3;
        let outcome = if accepted {
            let arg = json!({"action": c.vote.action, "amuletRulesCid": self.amulet_rules.as_ref().map(|c| c.cid.clone()), "confirmationCid": null});
            let e = c.b.exercise(
                Some(c.x),
                &c.rules,
                "DsoRules_ExecuteConfirmedAction",
                arg,
                false,
                vec![dso],
            );
            let arg = json!({"svParty": self.net.party_id(self.net.svs[c.vote.target].party), "newRewardWeight": c.vote.new_weight.to_string()});
            let w = c.b.exercise(
                Some(e),
                &c.rules,
                "DsoRules_UpdateSvRewardWeight",
                arg,
                true,
                vec![dso],
            );
            self.sv_weights[c.vote.target] = c.vote.new_weight;
            self.dso_epoch += 1;
            let args = self.dso_rules_args();
            let new_rules = self.create_dso(&mut c.b, Some(w), Tpl::DsoRules, args);
            c.b.set_result(w, json!({"newDsoRules": new_rules.cid}));
            c.b.set_result(e, json!({"newDsoRules": new_rules.cid}));
            self.dso_rules = Some(new_rules);
            json!({"tag": "VRO_Accepted", "value": {"effectiveAt": fmt_time6(self.now)}})
        } else {
            json!({"tag": "VRO_Rejected", "value": {}})
        };
        self.finish_close(l, c, &outcome);
    }

    pub(super) fn allocate_dev_fund(&mut self, l: &mut Ledger) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let k = self.rng.range(1, 3) as usize;
        if self.dev_unclaimed.len() < k + 1 {
            return;
        }
        let taken: Vec<(Con, i64)> = self.dev_unclaimed.drain(..k).collect();
        let total: i64 = taken.iter().map(|t| t.1).sum();
        let amount = total * self.rng.range(40, 100) / 100;
        let dso = self.dso();
        let manager = self.net.active_svs()[self.rng.index(self.net.active_svs().len())].party;
        let beneficiary = self.pick_user();
        let mut b = TreeB::new();
        let arg = json!({"unclaimedDevelopmentFundCouponCids": taken.iter().map(|t| t.0.cid.clone()).collect::<Vec<_>>(), "beneficiary": self.pid(beneficiary), "amount": fmt_amount(amount), "expiresAt": fmt_time6(self.now + 30 * 24 * HOUR), "reason": "ecosystem grant", "fundManager": self.pid(manager)});
        let x = b.exercise(
            None,
            &rules,
            "DsoRules_AllocateDevelopmentFundCoupon",
            arg,
            false,
            vec![manager],
        );
        for (c, _) in &taken {
            b.archive(Some(x), c, vec![dso]);
        }
        let args = json!({"dso": self.pid(dso), "beneficiary": self.pid(beneficiary), "fundManager": self.pid(manager), "amount": fmt_amount(amount), "expiresAt": fmt_time6(self.now + 30 * 24 * HOUR), "reason": "ecosystem grant"});
        let coupon = self.create(
            &mut b,
            Some(x),
            Tpl::DevelopmentFundCoupon,
            args,
            beneficiary,
            Some(manager),
        );
        let mut rest = Value::Null;
        if total > amount {
            let args = json!({"dso": self.pid(dso), "amount": fmt_amount(total - amount)});
            let c = self.create_dso(&mut b, Some(x), Tpl::UnclaimedDevelopmentFundCoupon, args);
            rest = json!(c.cid);
            self.dev_unclaimed.push_back((c, total - amount));
        }
        b.set_result(
            x,
            json!({"developmentFundCouponCid": coupon.cid, "optUnclaimedDevelopmentFundCouponCid": rest}),
        );
        self.submit(l, b, vec![manager], "allocate-development-fund");
    }
}
