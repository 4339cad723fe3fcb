//! Loading a span of history in the background (`L`, `:load 6h`): the small prompt that asks how
//! far back (with what the span will cost of the memory budget), and the progress line while the
//! loader fetches it (the loader does the work; see `feed::loader` and its span job).
//!
//! ```text
//! ┌Load the last───────────────────────────────────────────┐
//! │Span    6h                                              │
//! │        1h · 6h · 24h, or any span (90m, 2d)            │
//! │Memory  ≈ 41 MiB more; 12 of 256 MiB used now          │
//! │Enter load · Esc cancel                                 │
//! └────────────────────────────────────────────────────────┘
//! loading the last 6h 42% ▕██████░░░░░░▏ 12 pages · 11,234 updates · 3,900/s · 31 of 256 MiB · Esc cancels
//! ```

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use crate::feed::loader::{LoaderIntent, SpanProgress, span_estimate, span_limit};
use crate::ui::form::{key_line, progress_bar};
use crate::ui::format::{group_thousands, human_secs};
use crate::ui::safe::safe_line;
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

use super::super::{AppEvent, Out, Shared};
use super::HistoryPane;

/// The spans the prompt offers (typed as shown).
pub const SPAN_CHOICES: [&str; 3] = ["1h", "6h", "24h"];
const DEFAULT_SPAN: &str = "6h";

/// The prompt: how far back to load.
#[derive(Debug, Clone)]
pub struct SpanPrompt {
    input: TextInput,
}

/// Parses a span as typed (`6h`, `90m`, `2d`, `1h30m`) to seconds.
pub fn parse_span(text: &str) -> Result<i64, String> {
    let d = crate::config::values::parse_duration(text.trim())?;
    let secs = i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
    if secs < 1 {
        return Err("a span of at least 1s".into());
    }
    Ok(secs)
}

fn mib(bytes: usize) -> String {
    let m = bytes as f64 / f64::from(1u32 << 20);
    if bytes > 0 && m < 0.1 {
        "< 0.1".to_string()
    } else if m < 10.0 {
        format!("{m:.1}")
    } else {
        group_thousands(m.round() as u64)
    }
}

/// What loading `secs` back from now costs of the budget, in words.
pub fn memory_words(sh: &Shared, secs: i64) -> String {
    let budget = sh.feed.memory_budget;
    let used = sh.history.memory_bytes();
    let since = sh.now.saturating_sub(secs.saturating_mul(1_000_000));
    let now = format!("{} of {} MiB used now", mib(used), mib(budget));
    match span_estimate(&sh.history, since) {
        Some(0) => format!("already loaded; {now}"),
        Some(more) if used.saturating_add(more) > span_limit(budget) => format!(
            "≈ {} MiB more: over the budget, the load stops when it is full; {now}",
            mib(more)
        ),
        Some(more) => format!("≈ {} MiB more; {now}", mib(more)),
        None => format!("unknown until some updates are loaded; {now}"),
    }
}

impl HistoryPane {
    /// `L`: opens the span prompt (or says what runs).
    pub(super) fn open_span_prompt(&mut self, sh: &Shared, out: &mut Out) {
        if let Some(p) = sh.feed.span.filter(SpanProgress::running) {
            out.warn(format!(
                "a span load is running ({}%): Esc cancels it",
                p.percent()
            ));
            return;
        }
        let mut input = TextInput::single_line()
            .with_placeholder("1h, 6h, 24h, 90m, 2d…")
            .with_text(DEFAULT_SPAN);
        input.move_to_end();
        self.span.prompt = Some(SpanPrompt { input });
    }

    /// Starts loading `secs` back from now (the prompt's Enter, `:load`).
    pub fn load_span(&mut self, secs: i64, sh: &mut Shared, out: &mut Out) {
        let since = sh.now.saturating_sub(secs.saturating_mul(1_000_000));
        self.span.label = human_secs(secs);
        if self.span_from_index(since, sh, out) {
            return;
        }
        out.info(format!(
            "loading the last {} in the background: {}",
            self.span.label,
            memory_words(sh, secs)
        ));
        out.events
            .push(AppEvent::Loader(LoaderIntent::LoadSpan { since }));
    }

    pub(super) fn on_span_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        let Some(prompt) = &mut self.span.prompt else {
            return;
        };
        match prompt.input.handle_key(key) {
            InputOutcome::Submitted(text) => match parse_span(&text) {
                Ok(secs) => {
                    self.span.prompt = None;
                    self.load_span(secs, sh, out);
                }
                Err(e) => prompt.input.set_validation(Some(e)),
            },
            InputOutcome::Cancelled => self.span.prompt = None,
            InputOutcome::Changed => {
                let v = parse_span(&prompt.input.text()).err();
                prompt.input.set_validation(v);
            }
            InputOutcome::Consumed | InputOutcome::Ignored => {}
        }
    }

    pub(super) fn paste_span(&mut self, text: &str) -> bool {
        self.span
            .prompt
            .as_mut()
            .is_some_and(|p| p.input.insert_str(text))
    }
}

impl SpanPrompt {
    /// Draws the prompt centred in `area`.
    pub fn render(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme) {
        if area.width < 10 || area.height < 4 {
            return;
        }
        let w = area.width.saturating_sub(4).clamp(area.width.min(20), 72);
        let rect = crate::ui::layout::centered(area, w, 6.min(area.height));
        Clear.render(rect, buf);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border_style(true))
            .title(Line::styled(" Load the last ", theme.title))
            .style(theme.overlay);
        let inner = block.inner(rect);
        block.render(rect, buf);
        if inner.width < 9 || inner.height == 0 {
            return;
        }
        let label_w = 8u16;
        let field = Rect::new(inner.x + label_w, inner.y, inner.width - label_w, 1);
        buf.set_stringn(inner.x, inner.y, "Span", 8, theme.muted);
        self.input.render(field, buf, theme, true);
        let lines: Vec<(&str, Line)> = vec![
            (
                "",
                match self.input.validation() {
                    Some(v) => Line::styled(
                        safe_line(v, usize::from(field.width)).into_owned(),
                        theme.status_err,
                    ),
                    None => Line::styled(
                        format!("{}, or any span (90m, 2d)", SPAN_CHOICES.join(" · ")),
                        theme.muted,
                    ),
                },
            ),
            (
                "Memory",
                Line::raw(match parse_span(&self.input.text()) {
                    Ok(secs) => memory_words(sh, secs),
                    Err(_) => String::new(),
                }),
            ),
            ("", key_line(&[("Enter", "load"), ("Esc", "cancel")], theme)),
        ];
        for (y, (label, line)) in (inner.y + 1..inner.bottom()).zip(lines) {
            buf.set_stringn(inner.x, y, label, 8, theme.muted);
            buf.set_line(field.x, y, &line, field.width);
        }
    }
}

/// Draws the one-line progress of a running span load.
pub fn render_span_progress(
    p: &SpanProgress,
    label: &str,
    sh: &Shared,
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let pct = p.percent();
    let bar_w: usize = if area.width >= 100 { 16 } else { 8 };
    let bar = progress_bar(pct, bar_w);
    let line = Line::from(vec![
        Span::styled(format!("loading the last {label} {pct}% "), theme.accent),
        Span::styled(bar, theme.gauge),
        Span::raw(format!(
            " {} pages · {} updates · {}/s · {} of {} MiB",
            group_thousands(p.pages),
            group_thousands(p.updates),
            group_thousands(p.rate().round() as u64),
            mib(sh.history.memory_bytes()),
            mib(sh.feed.memory_budget)
        )),
        Span::styled(" · Esc cancels", theme.muted),
    ]);
    buf.set_line(area.x, area.y, &line, area.width);
}
