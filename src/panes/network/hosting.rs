//! The party hosting and reward weight sections: which participants host a party, and an SV's
//! previous reward weight.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::NetworkPane;
use crate::api::scan::RewardWeightRequest;
use crate::msg::Request;
use crate::panes::form::{Load, cell, paragraph};
use crate::panes::{Out, RenderCtx, Shared};
use crate::ui::layout::label_rows;
use crate::ui::load::Waiting;
use crate::ui::table::{Column, Columns, DataTable, Draw, ListCol, Width};
use crate::ui::theme::Theme;

const HOSTING_WAITING: Waiting = Waiting {
    idle: "Press i to look up which participants host a party on a synchronizer (Tab completes parties seen in the history).",
    loading: "looking up the hosting participants…",
};

pub(super) fn hosting_table() -> DataTable<ListCol> {
    DataTable::new(
        Columns::new(vec![
            Column::new(ListCol::Number, "", Width::Fixed(3)).row_number(),
            Column::new(ListCol::Text, "Participant", Width::fill(0)),
        ])
        .without_header(),
    )
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Hosting {
    pub(super) domain: String,
    pub(super) party: String,
    pub(super) participants: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Weight {
    pub(super) sv: String,
    pub(super) before: Option<String>,
    pub(super) weight: Option<String>,
}

const WEIGHT_WAITING: Waiting = Waiting {
    idle: "Press i to look up the reward weight an SV had: the weight set by the most recent accepted UpdateSvRewardWeight proposal, optionally only counting changes that took effect before a time.",
    loading: "looking up the reward weight…",
};

impl NetworkPane {
    pub(super) fn query_hosting(
        &mut self,
        domain: String,
        party: String,
        sh: &mut Shared,
        out: &mut Out,
    ) {
        let id = out.fetch(
            sh,
            Request::api(crate::api::scan::participant_ids(&domain, &party)),
        );
        self.hosting_query = Some((domain, party));
        self.hosting = Load::Loading(id);
    }

    pub(super) fn query_weight(
        &mut self,
        sv: String,
        before: Option<String>,
        sh: &mut Shared,
        out: &mut Out,
    ) {
        let id = out.fetch(
            sh,
            Request::api(crate::api::scan::previous_sv_reward_weight(
                &RewardWeightRequest {
                    sv_party: sv.clone(),
                    effective_before: before.clone(),
                },
            )),
        );
        self.weight_query = Some((sv, before));
        self.weight = Load::Loading(id);
    }

    pub(super) fn render_hosting(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { theme, focused, .. } = cx;
        let Some(h) = self.hosting.or_draw(area, buf, theme, &HOSTING_WAITING) else {
            return;
        };
        let rows = [
            ("Party        ", h.party.as_str(), theme.party),
            ("Synchronizer ", h.domain.as_str(), theme.id),
        ];
        let mut y = label_rows(area, buf, &rows, theme);
        if y >= area.bottom() {
            return;
        }
        let line = match h.participants.len() {
            0 => "Hosted by no participant (the scan returned an empty list).".to_string(),
            1 => "Hosted by 1 participant:".to_string(),
            n => format!("Hosted by {n} participants (multi-hosted):"),
        };
        cell(buf, area.x, y, &line, area.width, theme.accent);
        y += 1;
        let list = Rect::new(area.x, y, area.width, area.bottom().saturating_sub(y));
        let draw = Draw::new(&theme.id, theme, focused);
        self.hosting_table.render(list, buf, &h.participants, &draw);
    }

    pub(super) fn render_weight(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let Some(w) = self.weight.or_draw(area, buf, theme, &WEIGHT_WAITING) else {
            return;
        };
        let before = w.before.as_deref().unwrap_or("(now)");
        let mut rows = vec![
            ("SV party         ", w.sv.as_str(), theme.party),
            ("Effective before ", before, theme.time),
        ];
        if let Some(weight) = &w.weight {
            rows.push(("Reward weight    ", weight.as_str(), theme.json_number));
        }
        let y = label_rows(area, buf, &rows, theme);
        if w.weight.is_none() && y < area.bottom() {
            let when = match &w.before {
                Some(t) => format!("before {t}"),
                None => "so far".to_string(),
            };
            paragraph(
                Rect::new(area.x, y, area.width, area.bottom() - y),
                buf,
                &format!(
                    "No reward weight: no accepted UpdateSvRewardWeight proposal for this party took effect {when}. The scan leaves rewardWeight out in that case (an unknown party or a party that is not an SV gets the same answer); the SV then has the weight it was onboarded with."
                ),
                theme.status_warn,
            );
        }
    }
}
