//! The summary above the view tree: the verdict's result, update, migration, mediator group and
//! domain; record and finalization times with the gap between them; who submitted it; and the
//! traffic it cost, per envelope.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::api::scan::{EventHistoryItem, UpdateItem, VerdictResult};
use crate::model::summary::{parse_time_micros, short_id};
use crate::ui::format::{format_gap, group_thousands};
use crate::ui::layout::wrap_text;
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

use super::{Shared, VerdictPane, compact_party, draw_lines, plural};

impl VerdictPane {
    pub(super) fn render_header(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme) {
        let Some(body) = &self.body else { return };
        let id = self.update_id.as_deref().unwrap_or_default();
        let mut lines: Vec<Line> = Vec::with_capacity(4);
        if let Some(v) = &body.verdict {
            let (word, style) = result_word(&v.verdict_result, theme);
            let mut l1 = vec![
                Span::styled(word, style),
                Span::styled("  update ", theme.muted),
                Span::styled(short_id(id, 16), theme.id),
                Span::styled("  migration ", theme.muted),
                Span::raw(v.migration_id.to_string()),
                Span::styled("  mediator group ", theme.muted),
                Span::raw(v.mediator_group.to_string()),
            ];
            // Newer scans (Splice 0.8+) say which mining round the verdict falls in.
            if let Some(round) = v.round_number {
                l1.extend([
                    Span::styled("  round ", theme.muted),
                    Span::raw(round.to_string()),
                ]);
            }
            if !v.domain_id.is_empty() {
                l1.push(Span::styled("  domain ", theme.muted));
                l1.push(Span::styled(compact_party(&v.domain_id), theme.id));
            }
            lines.push(Line::from(l1));
            let record = parse_time_micros(&v.record_time).or_else(|| {
                body.update
                    .as_ref()
                    .and_then(UpdateItem::record_time)
                    .and_then(parse_time_micros)
            });
            let fin = parse_time_micros(&v.finalization_time);
            let fmt = |t: Option<i64>, raw: &str| match t {
                Some(t) => sh.format_time(t),
                None if raw.is_empty() => "-".to_string(),
                None => raw.to_string(),
            };
            let record_text = fmt(record, &v.record_time);
            let mut fin_text = fmt(fin, &v.finalization_time);
            // Same day: the finalization time without its date.
            if record.is_some()
                && fin.is_some()
                && record_text.get(..11).is_some()
                && record_text.get(..11) == fin_text.get(..11)
            {
                fin_text = fin_text[11..].to_string();
            }
            let mut l2 = vec![
                Span::styled("record ", theme.muted),
                Span::styled(format!("{record_text} {}", sh.zone_label()), theme.time),
            ];
            if let Some(origin) = &self.origin {
                // The index keeps the verdict without its scan-local finalization time.
                l2.push(Span::styled("  kept in the index", theme.accent));
                l2.push(Span::styled(
                    format!(", confirmed by {}", scans_named(&origin.scans)),
                    theme.muted,
                ));
                if origin.scan_failed {
                    l2.push(Span::styled(" (the scan did not answer)", theme.muted));
                }
            } else {
                l2.push(Span::styled("  finalized ", theme.muted));
                l2.push(Span::styled(fin_text, theme.time));
            }
            if self.origin.is_none()
                && let (Some(r), Some(f)) = (record, fin)
            {
                l2.push(Span::styled("  gap ", theme.muted));
                l2.push(Span::styled(format_gap(f - r), theme.accent));
            }
            if self.origin.is_none() {
                // The scan the verdict came from (the profile's own: the finalization time
                // is its own), when its name fits whole.
                let scan = serving_scan(sh);
                let served = format!("  served by {scan}");
                let used: usize = l2.iter().map(Span::width).sum();
                if used + unicode_width::UnicodeWidthStr::width(served.as_str())
                    <= usize::from(area.width)
                {
                    l2.push(Span::styled("  served by ", theme.muted));
                    l2.push(Span::styled(scan, theme.accent));
                }
            }
            lines.push(Line::from(l2));
            let mut parties: Vec<String> = v
                .submitting_parties
                .iter()
                .take(16)
                .map(|p| compact_party(p))
                .collect();
            if v.submitting_parties.len() > parties.len() {
                parties.push(format!("+{}", v.submitting_parties.len() - parties.len()));
            }
            let mut l3 = vec![Span::styled("submitted by ", theme.muted)];
            if parties.is_empty() {
                l3.push(Span::styled("-", theme.muted));
            } else {
                l3.push(Span::styled(parties.join(", "), theme.party));
            }
            l3.push(Span::styled("  participant ", theme.muted));
            l3.push(Span::styled(
                if v.submitting_participant_uid.is_empty() {
                    "-".to_string()
                } else {
                    compact_party(&v.submitting_participant_uid)
                },
                theme.id,
            ));
            lines.push(Line::from(l3));
            if body.update.is_none() {
                lines.push(Line::styled(
                    crate::model::verdict::no_update_why(&v.verdict_result),
                    theme.accent,
                ));
            }
        } else {
            lines.push(Line::from(vec![
                Span::styled("NO VERDICT", theme.status_warn),
                Span::styled("  update ", theme.muted),
                Span::styled(short_id(id, 16), theme.id),
            ]));
            let why = match (&body.update, &self.origin) {
                (Some(UpdateItem::Reassignment(_)), _) => {
                    "This is a reassignment: reassignments are not confirmed by a mediator, \
                     so there is no verdict."
                        .to_owned()
                }
                (_, Some(origin)) if origin.events_synced => format!(
                    "No verdict kept for this update in the local index: the scans that \
                     confirmed its events ({}) served none.",
                    scans_named(&origin.scans)
                ),
                (_, Some(origin)) => format!(
                    "Its events are not synced yet in the local index (`cantonscope index \
                     sync --events` keeps them); {}.",
                    if origin.scan_failed {
                        "the scan did not answer"
                    } else {
                        "no scan was asked"
                    }
                ),
                _ => "The scan returned no verdict for this update (older scans do not \
                     record verdicts)."
                    .to_owned(),
            };
            let mut wrapped = wrap_text(&why, usize::from(area.width).max(1));
            wrapped.resize(2, String::new());
            for w in wrapped.into_iter().take(2) {
                lines.push(Line::styled(w, theme.muted));
            }
        }
        match &self.origin {
            Some(origin) if !origin.events_synced => lines.push(Line::from(vec![
                Span::styled("traffic ", theme.muted),
                Span::styled("not synced yet in the local index", theme.muted),
            ])),
            _ => lines.push(traffic_line(body, theme)),
        }
        draw_lines(area, buf, lines);
    }
}

/// The scans that confirmed what the index keeps, as the header names them.
fn scans_named(scans: &[String]) -> String {
    if scans.is_empty() {
        return "no scan recorded".to_owned();
    }
    let named: Vec<String> = scans
        .iter()
        .take(6)
        .map(|s| safe_line(s, 40).into_owned())
        .collect();
    let more = scans.len() - named.len();
    if more > 0 {
        format!("{} +{more}", named.join(", "))
    } else {
        named.join(", ")
    }
}

fn result_word(result: &VerdictResult, theme: &Theme) -> (String, Style) {
    match result {
        VerdictResult::Accepted => ("ACCEPTED".into(), theme.accepted),
        VerdictResult::Rejected => ("REJECTED".into(), theme.rejected),
        VerdictResult::Unspecified => ("UNSPECIFIED".into(), theme.status_warn),
        VerdictResult::Other(s) => (safe_line(s, 40).into_owned(), theme.status_warn),
    }
}

fn traffic_line<'a>(body: &'a EventHistoryItem, theme: &Theme) -> Line<'a> {
    match &body.traffic_summary {
        None => Line::from(vec![
            Span::styled("traffic ", theme.muted),
            Span::styled("no traffic summary (older data)", theme.muted),
        ]),
        Some(t) => {
            let n = t.envelope_traffic_summaries.len();
            let mut spans = vec![
                Span::styled("traffic total ", theme.muted),
                Span::styled(group_thousands(t.total_traffic_cost), theme.accent),
                Span::styled(format!(" in {n} envelope{}", plural(n)), theme.muted),
            ];
            for (i, e) in t.envelope_traffic_summaries.iter().enumerate().take(16) {
                spans.push(Span::styled(
                    if i == 0 {
                        ": ".to_string()
                    } else {
                        " · ".to_string()
                    },
                    theme.muted,
                ));
                spans.push(Span::styled(format!("#{i} "), theme.muted));
                spans.push(Span::raw(group_thousands(e.traffic_cost)));
            }
            Line::from(spans)
        }
    }
}

/// The scan that serves the explorer's verdicts (the profile's own, `scan_url`), as the
/// Network pane names it: its SV's name once the network was measured, else its URL (else
/// `scan 1`, as the Status cards say).
pub(super) fn serving_scan(sh: &Shared) -> String {
    let named = sh
        .health
        .network
        .snapshot
        .as_ref()
        .and_then(|s| s.entries.iter().find(|e| e.own))
        .map(|e| e.sv_name.clone());
    named
        .or_else(|| sh.ctx.scan_urls.first().cloned())
        .map_or_else(|| "scan 1".to_owned(), |s| safe_line(&s, 60).into_owned())
}
