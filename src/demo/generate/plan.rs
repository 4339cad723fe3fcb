//! Planning a mining round: the intents placed in the round's ten-minute window, and running
//! each one.

use crate::demo::ledger::Ledger;
use crate::demo::topology::APP;
use crate::demo::util::{Rng, SECOND, UNIT};

use super::{Generator, scripted};

/// One thing that happens in a round, at the time the plan gives it.
#[derive(Clone, Debug)]
pub(super) enum Intent {
    Advance,
    StartIssuing,
    Close,
    SvReward(usize),
    Liveness(usize),
    StatusReport(usize),
    Transfer,
    Payroll,
    LockedTransfer,
    Unlock,
    Tap,
    PreapprovalSend,
    Collect(usize),
    RequestVote,
    CastVote(u32, usize),
    CloseVote(u32),
    Scripted(scripted::Step),
    AllocateDevFund,
    Unassign(usize),
    Assign(usize),
    ActivityMarker(usize),
    CreateTc,
    ResolveTc(String),
    OnboardValidator(usize),
    InstallWallet(usize),
}

impl Generator {
    pub(super) fn plan_round(&mut self, r: i64) -> Vec<(i64, Intent)> {
        let mut plan: Vec<(i64, Intent)> = Vec::new();
        let rng = &mut self.rng;
        let at = |rng: &mut Rng, lo: i64, hi: i64| rng.range(lo * 1000, hi * 1000) * 1000;
        if r >= 1 {
            plan.push((at(rng, 0, 1), Intent::Advance));
            plan.push((at(rng, 2, 4), Intent::StartIssuing));
        }
        if r >= 2 {
            plan.push((at(rng, 5, 7), Intent::Close));
        }
        for s in 0..self.net.active_svs().len() {
            plan.push((at(rng, 10, 120), Intent::SvReward(s)));
            if rng.chance(0.3) {
                plan.push((at(rng, 10, 590), Intent::StatusReport(s)));
            }
        }
        for (v, st) in self.validators.iter().enumerate() {
            if st.onboard_round == r {
                plan.push((at(rng, 10, 200), Intent::OnboardValidator(v)));
                plan.push((at(rng, 205, 300), Intent::InstallWallet(v)));
                continue;
            }
            let onboarded = st.onboard_round < r;
            let down = st.down.is_some_and(|(a, b)| (a..b).contains(&r));
            if onboarded && !down && rng.chance(st.reliability) {
                plan.push((at(rng, 15, 590), Intent::Liveness(v)));
            }
            if onboarded && (r + v as i64) % 12 == 0 {
                plan.push((at(rng, 300, 590), Intent::Collect(v)));
            }
        }
        for _ in 0..rng.range(3, 8) {
            plan.push((at(rng, 10, 590), Intent::Transfer));
        }
        let extras: [(f64, Intent); 5] = [
            (0.10, Intent::Payroll),
            (0.35, Intent::LockedTransfer),
            (0.30, Intent::Unlock),
            (0.12, Intent::Tap),
            (0.45, Intent::PreapprovalSend),
        ];
        for (p, intent) in extras {
            if rng.chance(p) {
                plan.push((at(rng, 10, 590), intent));
            }
        }
        if r % 36 == 5 {
            plan.push((at(rng, 100, 500), Intent::RequestVote));
        }
        if r % 12 == 7 {
            plan.push((at(rng, 100, 500), Intent::AllocateDevFund));
        }
        plan.extend(scripted::plan(r));
        for vote in self.votes.iter().filter(|v| v.script.is_none()) {
            for (s, _, cast_round) in &vote.casts {
                if *cast_round == r {
                    plan.push((at(rng, 20, 580), Intent::CastVote(vote.id, *s)));
                }
            }
            if vote.close_round == r {
                plan.push((at(rng, 585, 595), Intent::CloseVote(vote.id)));
            }
        }
        for (i, f) in self.featured.iter().enumerate() {
            if f.sync == APP && f.in_flight.is_none() {
                for _ in 0..rng.range(0, 2) {
                    plan.push((at(rng, 10, 400), Intent::ActivityMarker(i)));
                }
            }
            if (r + 8 * i as i64) % 24 == 10 {
                let t = at(rng, 410, 520);
                plan.push((t, Intent::Unassign(i)));
                plan.push((t + rng.range(2, 60) * SECOND, Intent::Assign(i)));
            }
        }
        if r >= self.tc_from_round {
            for _ in 0..rng.range(0, 2) {
                plan.push((at(rng, 10, 590), Intent::CreateTc));
            }
        }
        for tc in &self.tcs {
            if tc.resolve_round == r {
                plan.push((at(rng, 10, 590), Intent::ResolveTc(tc.con.cid.clone())));
            }
        }
        plan.sort_by_key(|(t, _)| *t);
        plan
    }

    pub(super) fn run(&mut self, l: &mut Ledger, intent: Intent) {
        match intent {
            Intent::Advance => self.advance(l),
            Intent::StartIssuing => self.start_issuing(l),
            Intent::Close => self.close_round(l),
            Intent::SvReward(s) => self.sv_reward(l, s),
            Intent::Liveness(v) => self.liveness(l, v),
            Intent::StatusReport(s) => self.status_report(l, s),
            Intent::Transfer => self.wallet_transfer(l, false),
            Intent::LockedTransfer => self.wallet_transfer(l, true),
            Intent::Payroll => self.payroll(l),
            Intent::Unlock => self.unlock(l),
            Intent::Tap => {
                let u = self.net.users[self.rng.index(self.net.users.len())];
                let amount = self.rng.range(100, 5_000) * UNIT;
                self.tap(l, u, amount);
            }
            Intent::PreapprovalSend => self.preapproval_send(l),
            Intent::Collect(v) => self.collect(l, v),
            Intent::RequestVote => self.request_vote(l),
            Intent::CastVote(id, s) => self.cast_vote(l, id, s),
            Intent::CloseVote(id) => self.close_vote(l, id),
            Intent::Scripted(step) => {
                std::mem::swap(&mut self.rng, &mut self.script_rng);
                self.scripted(l, step);
                std::mem::swap(&mut self.rng, &mut self.script_rng);
            }
            Intent::AllocateDevFund => self.allocate_dev_fund(l),
            Intent::Unassign(f) => self.unassign(l, f),
            Intent::Assign(f) => self.assign(l, f),
            Intent::ActivityMarker(f) => self.activity_marker(l, f),
            Intent::CreateTc => self.create_tc(l),
            Intent::ResolveTc(cid) => self.resolve_tc(l, &cid),
            Intent::OnboardValidator(v) => self.onboard_validator(l, v),
            Intent::InstallWallet(v) => self.install_validator_wallet(l, v),
        }
    }
}
