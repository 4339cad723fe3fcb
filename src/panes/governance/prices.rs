//! The Price votes section: each SV's amulet price vote (`/v0/amulet-price/votes`) and when it
//! was cast, their median and spread, and the price in force (the latest open mining round's
//! `amuletPrice`, from `/v0/dso`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::GovernancePane;
use super::detail::{name_column, padded_name};
use crate::api::scan::{AmuletPriceVotes, DsoInfo};
use crate::model::format::parse_time_micros;
use crate::model::governance::price_stats;
use crate::panes::{RenderCtx, Shared};
use crate::ui::load::Waiting;
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

/// What the section says before its answer.
pub const WAITING: Waiting = Waiting {
    idle: "The amulet price votes are read when this section is shown.",
    loading: "reading the amulet price votes…",
};

/// The price in force: the latest open mining round's `amuletPrice` and its round number.
pub fn price_in_force(dso: &DsoInfo) -> Option<(String, Option<String>)> {
    let round = dso.latest_mining_round.to_value().ok()?;
    let payload = round.pointer("/contract/payload")?;
    let price = payload.get("amuletPrice")?.as_str()?.to_owned();
    let number = payload.pointer("/round/number").and_then(|n| {
        n.as_str()
            .map(str::to_owned)
            .or_else(|| Some(n.to_string()))
    });
    Some((price, number))
}

/// The SV name of `party` per the DSO, else the party.
fn sv_name<'a>(party: &'a str, dso: Option<&'a DsoInfo>) -> &'a str {
    dso.and_then(|d| d.svs.iter().find(|s| s.party == party))
        .map_or(party, |s| s.name.as_str())
}

/// Every line of the section on a screen `width` columns wide (the SV column as wide as the
/// longest name, cut only when the screen cannot hold it beside the price).
pub fn price_lines(
    votes: &AmuletPriceVotes,
    dso: Option<&DsoInfo>,
    width: u16,
    sh: &Shared,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let stats = price_stats(&votes.votes);
    let dash = || "-".to_string();
    let mut lines = Vec::new();
    let svs = dso.map(|d| d.svs.len());
    let voted = match svs {
        Some(n) => format!("{} of {n} SVs voted a price", stats.voted),
        None => format!("{} SVs voted a price", stats.voted),
    };
    lines.push(Line::from(vec![
        Span::styled(format!("{:<10}", "Median"), theme.muted),
        Span::styled(stats.median.clone().unwrap_or_else(dash), theme.title),
        Span::styled(format!(" · {voted}"), theme.muted),
    ]));
    lines.push(Line::from(vec![
        Span::styled(format!("{:<10}", "Spread"), theme.muted),
        Span::raw(stats.spread.clone().unwrap_or_else(dash)),
        Span::styled(
            format!(
                " (lowest {}, highest {})",
                stats.lowest.clone().unwrap_or_else(dash),
                stats.highest.clone().unwrap_or_else(dash)
            ),
            theme.muted,
        ),
    ]));
    match dso.and_then(price_in_force) {
        Some((price, round)) => lines.push(Line::from(vec![
            Span::styled(format!("{:<10}", "In force"), theme.muted),
            Span::styled(safe_line(&price, 40).into_owned(), theme.accent),
            Span::styled(
                round.map_or_else(String::new, |r| {
                    format!(" (open round {})", safe_line(&r, 20))
                }),
                theme.muted,
            ),
        ])),
        None => lines.push(Line::from(vec![
            Span::styled(format!("{:<10}", "In force"), theme.muted),
            Span::styled("unknown (no open round in /v0/dso yet)", theme.muted),
        ])),
    }
    lines.push(Line::default());
    // Every SV of the DSO: the ones that sent a vote contract, and the idle ones (none).
    let mut rows: Vec<(&str, Option<&crate::api::scan::AmuletPriceVote>)> = votes
        .votes
        .iter()
        .map(|v| (sv_name(&v.sv, dso), Some(v)))
        .collect();
    if let Some(d) = dso {
        for sv in &d.svs {
            if !votes.votes.iter().any(|v| v.sv == sv.party) {
                rows.push((sv.name.as_str(), None));
            }
        }
    }
    rows.sort_by(|a, b| a.0.cmp(b.0));
    // The mark, the name and a space, then the price (and two spaces).
    let name_w = name_column(rows.iter().map(|(name, _)| *name), 20, width, 2 + 1 + 16);
    lines.push(Line::styled(
        format!("  {}{:>14}  cast at", padded_name("SV", name_w), "price"),
        theme.table_header,
    ));
    for (name, vote) in rows {
        let mine = sh.health.dso.is_mine(name);
        let cast = vote.map_or_else(
            || "never voted".to_owned(),
            |v| {
                parse_time_micros(&v.last_updated_at).map_or_else(
                    || safe_line(&v.last_updated_at, 40).into_owned(),
                    |t| format!("{} {}", sh.format_time(t), sh.zone_label()),
                )
            },
        );
        let (price, style) = match vote.and_then(|v| v.amulet_price.as_deref()) {
            Some(p) => (safe_line(p, 14).into_owned(), Style::default()),
            None => ("no vote".to_string(), theme.muted),
        };
        lines.push(Line::from(vec![
            Span::styled(if mine { "★ " } else { "  " }, theme.accent),
            Span::styled(padded_name(name, name_w), theme.party),
            Span::styled(format!("{price:>14}  "), style),
            Span::styled(
                cast,
                if vote.is_some() {
                    theme.time
                } else {
                    theme.muted
                },
            ),
        ]));
    }
    if votes.votes.is_empty() && dso.is_none_or(|d| d.svs.is_empty()) {
        lines.push(Line::styled("  no price votes", theme.muted));
    }
    lines
}

impl GovernancePane {
    pub(super) fn render_prices(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let Some(votes) = self.prices.or_draw(area, buf, cx.theme, &WAITING) else {
            return;
        };
        let dso = cx.sh.health.dso.info.as_deref();
        let lines = price_lines(votes, dso, area.width, cx.sh, cx.theme);
        let height = usize::from(area.height);
        let first = self.scroll.min(lines.len().saturating_sub(height));
        for (i, line) in lines.iter().skip(first).take(height).enumerate() {
            let y = area.y + u16::try_from(i).unwrap_or(u16::MAX);
            buf.set_line(area.x, y, line, area.width);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::scan::AmuletPriceVote;
    use crate::panes::AppContext;

    #[test]
    fn the_table_lists_every_sv_of_the_dso_the_idle_ones_too() {
        let dso: DsoInfo = serde_json::from_str(
            r#"{"sv_party_id":"A::1","dso_rules":{"contract":{"payload":{"svs":[
                ["A::1",{"name":"Alpha"}],["B::1",{"name":"Beta"}],["C::1",{"name":"Gamma"}]]}}}}"#,
        )
        .expect("decodes");
        let votes = AmuletPriceVotes {
            votes: vec![AmuletPriceVote {
                contract_id: "00a".into(),
                sv: "B::1".into(),
                amulet_price: Some("0.005".into()),
                last_updated_at: "2026-12-01T10:00:00Z".into(),
            }],
        };
        let sh = Shared::new(AppContext::default(), 0);
        let text: Vec<String> = price_lines(&votes, Some(&dso), 100, &sh, &Theme::default())
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        let text = text.join("\n");
        assert!(text.contains("1 of 3 SVs voted a price"), "{text}");
        for name in ["Alpha", "Beta", "Gamma"] {
            assert_eq!(
                text.lines().filter(|l| l.contains(name)).count(),
                1,
                "{name} listed once: {text}"
            );
        }
        let idle = text.lines().filter(|l| l.contains("never voted")).count();
        assert_eq!(idle, 2, "{text}");
    }
}
