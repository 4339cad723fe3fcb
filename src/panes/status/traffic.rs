//! The traffic card: this validator's extra sequencer traffic on the global synchronizer. The
//! participant id comes from the Ledger API (`GET /v2/parties/participant-id`, once), the
//! synchronizer from the mining rounds scan 0 sends, and the numbers from scan 0
//! (`GET /v0/domains/{domain_id}/members/PAR::…/traffic-status`, every poll interval).

use ratatui::text::{Line, Span};

use crate::api::ledger::ParticipantIdResponse;
use crate::api::scan::MemberTrafficStatusResponse;
use crate::feed::dashboard::LagLevel;
use crate::msg::Fetched;
use crate::panes::{Out, Shared};
use crate::ui::format::{human_bytes, human_duration};
use crate::ui::theme::Theme;

use super::card_rows::{CardRows, bold};
use super::{NO_TOKEN_TEXT, StatusPane};

/// The text of the card without a ledger URL.
pub const TRAFFIC_NEEDS_LEDGER: &str = "needs the Ledger API of this validator: set ledger_url (or --ledger-url) to read its participant id";
/// Cells of the consumed / limit bar.
const BAR_CELLS: usize = 20;

impl StatusPane {
    /// Sends the traffic request that is due, if any (the participant id needs the ledger and
    /// its token, the status needs a scan and the global synchronizer's id).
    pub(super) fn poll_traffic(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let ctx = &sh.ctx;
        if ctx.ledger_url.is_none() || !ctx.has_token || ctx.scan_urls.is_empty() {
            return false;
        }
        let Some(request) = self.traffic.due(sh.now, self.rounds.domain_id.as_deref()) else {
            return false;
        };
        let id = out.fetch(sh, request.request());
        self.traffic.sent(id, &request);
        true
    }

    /// Hands a traffic reply to the state machine (the next request goes out on a tick).
    pub(super) fn on_traffic(&mut self, reply: &Fetched, sh: &Shared) {
        let every = i64::try_from(sh.health.nodes.refresh_ms())
            .unwrap_or(i64::MAX / 1000)
            .saturating_mul(1000);
        let unexpected = || "unexpected answer".to_owned();
        if self.traffic.is_participant_request(reply.id) {
            let id = match &reply.result {
                Ok(r) => r
                    .answer::<ParticipantIdResponse>()
                    .map(|p| p.participant_id.as_str())
                    .ok_or_else(unexpected),
                Err(e) => Err(e.to_string()),
            };
            self.traffic.on_participant(id, sh.now, every);
        } else {
            let status = match &reply.result {
                Ok(r) => r
                    .answer::<MemberTrafficStatusResponse>()
                    .map(|r| &r.traffic_status)
                    .ok_or_else(unexpected),
                Err(e) => Err(e.to_string()),
            };
            self.traffic.on_status(status, sh.now, every);
        }
    }

    pub(super) fn render_traffic(&self, rows: &mut CardRows<'_>, sh: &Shared, theme: &Theme) {
        let ctx = &sh.ctx;
        if ctx.ledger_url.is_none() {
            rows.wrapped(TRAFFIC_NEEDS_LEDGER, theme.muted);
            return;
        }
        if !ctx.has_token {
            rows.line(Line::styled("NOT POLLED", theme.status_warn));
            rows.wrapped(NO_TOKEN_TEXT, theme.muted);
            return;
        }
        if ctx.scan_urls.is_empty() {
            rows.wrapped(
                "needs a scan URL: the traffic status is read from a scan",
                theme.muted,
            );
            return;
        }
        let t = &self.traffic;
        let Some(member) = t.member_id() else {
            match &t.participant_error {
                Some(e) => rows.wrapped_cut(&format!("participant id: {e}"), theme.status_err, 3),
                None => rows.line(Line::styled(
                    "asking the Ledger API for the participant id",
                    theme.muted,
                )),
            }
            return;
        };
        let Some(status) = &t.status else {
            match &t.error {
                Some(e) => rows.wrapped_cut(&format!("error: {e}"), theme.status_err, 3),
                None if t.domain_id.is_none() && self.rounds.domain_id.is_none() => {
                    rows.line(Line::styled(
                        "waiting for the global synchronizer's id (mining rounds)",
                        theme.muted,
                    ));
                }
                None => rows.line(Line::styled("waiting for the first answer", theme.muted)),
            }
            rows.line(Line::from(vec![
                Span::styled("member ", theme.muted),
                Span::styled(member, theme.id),
            ]));
            return;
        };
        let a = &status.actual;
        let level = t.level().unwrap_or(LagLevel::Fine);
        let level_style = match level {
            LagLevel::Fine => theme.status_ok,
            LagLevel::Amber => theme.status_warn,
            LagLevel::Red => theme.status_err,
        };
        // Rounded up, as the remaining share is rounded down: the two add up to 100 %.
        let used_pct = if a.total_limit > 0 {
            let limit = i128::from(a.total_limit);
            ((i128::from(a.total_consumed.max(0)) * 100 + limit - 1) / limit) as i64
        } else {
            100
        };
        let filled = usize::try_from(used_pct.clamp(0, 100)).unwrap_or(0) * BAR_CELLS / 100;
        rows.line(Line::from(vec![
            Span::styled("consumed ", theme.muted),
            Span::styled(human_bytes(a.total_consumed), theme.accent),
            Span::styled(" / limit ", theme.muted),
            Span::raw(human_bytes(a.total_limit)),
            Span::styled(format!("  {used_pct}% "), level_style),
            Span::styled("█".repeat(filled), level_style),
            Span::styled("░".repeat(BAR_CELLS - filled), theme.muted),
        ]));
        let purchased = status.target.total_purchased;
        let mut l2 = vec![
            Span::styled("purchased ", theme.muted),
            Span::raw(human_bytes(purchased)),
        ];
        if purchased > a.total_limit {
            l2.push(Span::styled(
                format!(
                    " · {} not yet in the limit",
                    human_bytes(purchased - a.total_limit)
                ),
                theme.muted,
            ));
        }
        rows.line(Line::from(l2));
        let remaining = a.total_limit - a.total_consumed;
        let pct = t.remaining_percent().unwrap_or(0);
        rows.line(Line::from(vec![
            Span::styled("remaining ", theme.muted),
            Span::styled(
                format!("{} ({pct}%)", human_bytes(remaining)),
                level_style.patch(bold()),
            ),
            Span::styled(
                format!(
                    " · amber under {}%, red under {}%",
                    t.thresholds.warn, t.thresholds.error
                ),
                theme.muted,
            ),
        ]));
        match (&t.error, t.at) {
            (Some(e), _) => rows.line(Line::styled(format!("error: {e}"), theme.status_err)),
            (None, Some(at)) => rows.line(Line::from(vec![
                Span::styled(member, theme.id),
                Span::styled(
                    format!(" · read {} ago", human_duration(sh.now - at)),
                    theme.muted,
                ),
            ])),
            (None, None) => {}
        }
    }
}
