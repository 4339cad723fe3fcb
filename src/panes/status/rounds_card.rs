//! The Status pane's rounds card: every figure from the last read of the rounds.

use ratatui::text::{Line, Span};

use super::StatusPane;
use super::card_rows::{CardRows, bold};
use crate::model::summary::parse_time_micros;
use crate::panes::Shared;
use crate::ui::format::{group_thousands, human_duration};
use crate::ui::theme::Theme;

impl StatusPane {
    /// Every figure from the last read of the rounds and the same `now` ([`RoundsView`]).
    pub(super) fn render_rounds(&self, rows: &mut CardRows<'_>, sh: &Shared, theme: &Theme) {
        let r = &self.rounds;
        let Some(view) = r.view(sh.now) else {
            match &r.error {
                Some(e) => rows.wrapped_cut(&format!("error: {e}"), theme.status_err, 2),
                None => rows.line(Line::styled("waiting for the first answer", theme.muted)),
            }
            return;
        };
        let hms = |t: &str| {
            parse_time_micros(t).map_or_else(
                || "-".to_string(),
                |m| {
                    let f = sh.format_time(m);
                    f.get(11..19).unwrap_or(&f).to_string()
                },
            )
        };
        match view.current {
            Some(c) => rows.line(Line::from(vec![
                Span::styled("current round ", theme.muted),
                Span::styled(group_thousands(c.number), theme.accent.patch(bold())),
                Span::styled(format!(" · opened {}", hms(&c.opens_at)), theme.muted),
            ])),
            None => rows.line(Line::styled(
                "no open round has opened yet",
                theme.status_warn,
            )),
        }
        let open: Vec<String> = view
            .open
            .iter()
            .map(|o| group_thousands(o.number))
            .collect();
        let mut line = vec![
            Span::styled("open ", theme.muted),
            Span::raw(if open.is_empty() {
                "-".into()
            } else {
                open.join(" · ")
            }),
        ];
        if let Some(next) = view.next {
            line.push(Span::styled(
                format!("  next opens {}", hms(&next.opens_at)),
                theme.muted,
            ));
        }
        rows.line(Line::from(line));
        let issuing: Vec<String> = view.issuing.iter().map(|&n| group_thousands(n)).collect();
        rows.line(Line::from(vec![
            Span::styled("issuing ", theme.muted),
            Span::raw(if issuing.is_empty() {
                "-".into()
            } else {
                issuing.join(" · ")
            }),
        ]));
        match &r.error {
            Some(e) => rows.line(Line::styled(format!("error: {e}"), theme.status_err)),
            None => rows.line(Line::styled(
                format!("read {} ago", human_duration(sh.now - view.read_at)),
                theme.muted,
            )),
        }
    }
}
