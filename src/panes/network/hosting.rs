//! The party hosting and reward weight sections: which participants host a party, and an SV's
//! previous reward weight.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::NetworkPane;
use crate::api::scan::RewardWeightRequest;
use crate::msg::Request;
use crate::panes::form::{Load, cell, paragraph};
use crate::panes::{Out, RenderCtx, Shared};
use crate::ui::table::{Column, Columns, DataTable, Draw, ListCol, Width};
use crate::ui::theme::Theme;

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
            Request::ParticipantIds {
                domain_id: domain.clone(),
                party_id: party.clone(),
            },
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
            Request::RewardWeight(RewardWeightRequest {
                sv_party: sv.clone(),
                effective_before: before.clone(),
            }),
        );
        self.weight_query = Some((sv, before));
        self.weight = Load::Loading(id);
    }

    pub(super) fn render_hosting(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { theme, focused, .. } = cx;
        match &self.hosting {
            Load::Idle => {
                paragraph(
                    area,
                    buf,
                    "Press i to look up which participants host a party on a synchronizer (Tab completes parties seen in the history).",
                    theme.muted,
                );
            }
            Load::Loading(_) => {
                paragraph(
                    area,
                    buf,
                    "looking up the hosting participants…",
                    theme.muted,
                );
            }
            Load::Failed(e) => {
                paragraph(area, buf, e, theme.status_err);
            }
            Load::Done(h) => {
                let mut y = area.y;
                for (label, value, style) in [
                    ("Party        ", &h.party, theme.party),
                    ("Synchronizer ", &h.domain, theme.id),
                ] {
                    if y >= area.bottom() {
                        return;
                    }
                    buf.set_stringn(area.x, y, label, usize::from(area.width), theme.muted);
                    let x = area.x + (label.len() as u16).min(area.width);
                    cell(buf, x, y, value, area.right() - x, style);
                    y += 1;
                }
                if y >= area.bottom() {
                    return;
                }
                let n = h.participants.len();
                let line = match n {
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
        }
    }

    pub(super) fn render_weight(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        match &self.weight {
            Load::Idle => {
                paragraph(
                    area,
                    buf,
                    "Press i to look up the reward weight an SV had: the weight set by the most recent accepted UpdateSvRewardWeight proposal, optionally only counting changes that took effect before a time.",
                    theme.muted,
                );
            }
            Load::Loading(_) => {
                paragraph(area, buf, "looking up the reward weight…", theme.muted);
            }
            Load::Failed(e) => {
                paragraph(area, buf, e, theme.status_err);
            }
            Load::Done(w) => {
                let mut y = area.y;
                let before = w.before.clone().unwrap_or_else(|| "(now)".into());
                for (label, value, style) in [
                    ("SV party         ", &w.sv, theme.party),
                    ("Effective before ", &before, theme.time),
                ] {
                    if y >= area.bottom() {
                        return;
                    }
                    buf.set_stringn(area.x, y, label, usize::from(area.width), theme.muted);
                    let x = area.x + (label.len() as u16).min(area.width);
                    cell(buf, x, y, value, area.right() - x, style);
                    y += 1;
                }
                if y >= area.bottom() {
                    return;
                }
                let rest = Rect::new(area.x, y, area.width, area.bottom() - y);
                match &w.weight {
                    Some(weight) => {
                        let label = "Reward weight    ";
                        buf.set_stringn(
                            rest.x,
                            rest.y,
                            label,
                            usize::from(rest.width),
                            theme.muted,
                        );
                        let x = rest.x + (label.len() as u16).min(rest.width);
                        cell(buf, x, rest.y, weight, rest.right() - x, theme.json_number);
                    }
                    None => {
                        let when = match &w.before {
                            Some(t) => format!("before {t}"),
                            None => "so far".to_string(),
                        };
                        paragraph(
                            rest,
                            buf,
                            &format!(
                                "No reward weight: no accepted UpdateSvRewardWeight proposal for this party took effect {when}. The scan leaves rewardWeight out in that case (an unknown party or a party that is not an SV gets the same answer); the SV then has the weight it was onboarded with."
                            ),
                            theme.status_warn,
                        );
                    }
                }
            }
        }
    }
}
