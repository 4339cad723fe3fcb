//! Drawing of the Proxy pane: a contract (header fields and payload JSON), the title and the
//! three sections.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::api::validator::ContractWithState;
use crate::model::summary::{short_id, short_party, short_template};
use crate::msg::tabs::Tabs;
use crate::panes::RenderCtx;
use crate::ui::form::{cell, paragraph};
use crate::ui::json::JsonView;
use crate::ui::layout::{heading, label_rows};
use crate::ui::load::Waiting;
use crate::ui::table::Draw;
use crate::ui::theme::Theme;

use super::rows::status_text;
use super::{ProxyPane, ProxySection, SIDE_PANEL_MIN_WIDTH};

/// A contract as shown: its header fields and its payload in a JSON view.
#[derive(Debug, Clone)]
pub(super) struct ContractView {
    template_id: String,
    pub(super) contract_id: String,
    created_at: String,
    domain_id: Option<String>,
    pub(super) payload: JsonView,
}

const RULES_WAITING: Waiting = Waiting {
    idle: "Press r to load the amulet rules.",
    loading: "loading the amulet rules…",
};

const COUPONS_WAITING: Waiting = Waiting {
    idle: "Press r to load the coupons.",
    loading: "loading unclaimed development fund coupons…",
};

const TRANSFERS_WAITING: Waiting = Waiting {
    idle: "Press i to look up the transfer commands of a sender for a nonce (Tab completes parties seen in the history). The proxy reports commands created in the last 24 hours.",
    loading: "looking up transfer commands…",
};

impl ContractView {
    pub(super) fn new(c: &ContractWithState) -> Self {
        let payload = c.contract.payload.to_value().unwrap_or(Value::Null);
        ContractView {
            template_id: c.contract.template_id.clone(),
            contract_id: c.contract.contract_id.clone(),
            created_at: c.contract.created_at.clone(),
            domain_id: c.domain_id.clone(),
            payload: JsonView::new(&payload),
        }
    }

    /// Draws the header lines and the payload below them.
    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool) {
        let domain = self
            .domain_id
            .clone()
            .unwrap_or_else(|| "(none: in flight between synchronizers)".into());
        // `Module:Entity (package…)`: the name first, so it survives narrow widths.
        let template = match self.template_id.split_once(':') {
            Some((pkg, _)) if short_template(&self.template_id) != self.template_id => format!(
                "{} (package {})",
                short_template(&self.template_id),
                short_id(pkg, 12)
            ),
            _ => self.template_id.clone(),
        };
        let rows = [
            ("Template   ", template.as_str(), theme.accent),
            ("Contract   ", self.contract_id.as_str(), theme.id),
            ("Created at ", self.created_at.as_str(), theme.time),
            ("Domain     ", domain.as_str(), theme.id),
        ];
        let mut y = label_rows(area, buf, &rows, theme);
        if y >= area.bottom() {
            return;
        }
        cell(buf, area.x, y, "Payload", area.width, theme.table_header);
        y += 1;
        let rest = Rect::new(area.x, y, area.width, area.bottom().saturating_sub(y));
        self.payload.render(rest, buf, theme, focused);
    }
}

impl ProxyPane {
    pub(super) fn title_line(&self, theme: &Theme) -> Line<'static> {
        let mut spans = vec![
            Span::styled("Proxy", theme.title),
            Span::styled(format!(" · {}", self.section.title()), theme.muted),
        ];
        if self.section == ProxySection::Transfers
            && let Some(q) = &self.transfer_query
        {
            spans.push(Span::styled(
                format!(
                    " · {} nonce {}",
                    crate::ui::safe::safe_line(short_party(&q.sender), 24),
                    q.nonce
                ),
                theme.muted,
            ));
        }
        Line::from(spans)
    }

    pub(super) fn render_rules(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { theme, focused, .. } = cx;
        if let Some(c) = self.rules.or_draw(area, buf, theme, &RULES_WAITING) {
            c.render(area, buf, theme, focused);
        }
    }

    pub(super) fn render_coupons(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        let Some(coupons) = self.coupons.or_draw(area, buf, theme, &COUPONS_WAITING) else {
            return;
        };
        if coupons.is_empty() {
            paragraph(
                area,
                buf,
                "No unclaimed development fund coupons: every coupon has been allocated.",
                theme.muted,
            );
            return;
        }
        if self.coupon_details && area.width < SIDE_PANEL_MIN_WIDTH {
            if let Some(v) = &self.coupon_view {
                v.render(area, buf, theme, focused);
            }
            return;
        }
        let (table, side) = if area.width >= SIDE_PANEL_MIN_WIDTH {
            let left = area.width * 11 / 20;
            (
                Rect::new(area.x, area.y, left, area.height),
                Some(Rect::new(
                    area.x + left + 1,
                    area.y,
                    area.width - left - 1,
                    area.height,
                )),
            )
        } else {
            (area, None)
        };
        let total = coupons.len();
        let sum = &self.coupon_total;
        let t = heading(
            buf,
            table,
            &format!("{total} unclaimed coupons · {sum} total"),
            theme.muted,
        );
        let draw = Draw::new(sh, theme, focused && !self.coupon_details);
        self.coupon_table.render(t, buf, &self.coupon_rows, &draw);
        if let (Some(side), Some(v)) = (side, &self.coupon_view) {
            for y in side.y..side.bottom() {
                buf.set_stringn(side.x - 1, y, "│", 1, theme.border);
            }
            v.render(side, buf, theme, focused && self.coupon_details);
        }
    }

    pub(super) fn render_transfers(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { theme, focused, .. } = cx;
        let Some(rows) = self.transfers.or_draw(area, buf, theme, &TRANSFERS_WAITING) else {
            return;
        };
        let mut y = area.y;
        if let Some(q) = &self.transfer_query {
            let value = format!("{}  nonce {}", q.sender, q.nonce);
            let row = Rect::new(area.x, y, area.width, 1);
            y = label_rows(row, buf, &[("Sender ", &value, theme.party)], theme);
        }
        if y >= area.bottom() {
            return;
        }
        // Details of the selected command at the bottom: its full reason, wrapped.
        let selected = self.transfer_table.selected_row(rows);
        let detail = selected.map(|r| {
            let mut s = format!("{}  {}", r.contract_id, status_text(r));
            if !r.expires_at.is_empty() {
                s.push_str(&format!("  expires {}", r.expires_at));
            }
            if let Some(reason) = &r.reason {
                s.push_str(&format!("\nreason: {reason}"));
            }
            s
        });
        let detail_h = if detail.is_some() {
            4u16.min(area.bottom().saturating_sub(y) / 2)
        } else {
            0
        };
        let table = Rect::new(
            area.x,
            y,
            area.width,
            area.bottom().saturating_sub(y) - detail_h,
        );
        let draw = Draw::new(&(), theme, focused);
        self.transfer_table.render(table, buf, rows, &draw);
        if let Some(d) = detail
            && detail_h > 0
        {
            let rect = Rect::new(area.x, area.bottom() - detail_h, area.width, detail_h);
            paragraph(rect, buf, &d, theme.muted);
        }
    }
}
