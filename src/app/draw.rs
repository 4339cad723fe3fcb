//! Drawing the whole screen from the app state. Only reads. The screen, as
//! `ui::layout::screen_areas` splits it (the same diagram heads `ui/mod.rs`):
//!
//! ```text
//! ┌──────────────────────────────────────────────────────────────────────────────┐
//! │ cantonscope · profile · ● scan OK · net 4/4 · mig 1 · newest 10:41:07 (2s) · LIVE│ header
//! │ 1 History 1,234  2 Update  3 Verdict  4 Status  5 Holdings …                 │ tabs   1 row
//! ├──────────────────────────────────────────────────────────────────────────────┤
//! │ body: the focused pane (lists, trees, JSON, cards); overlays (help, palette, │
//! │       error log) are drawn on top of it                                      │
//! ├──────────────────────────────────────────────────────────────────────────────┤
//! │ ↵ open  / filter  f follow  y copy  ? help  : commands  q quit               │ footer 1 row
//! │ <messages and errors (toasts)>                                    ! 2 errors │ status 1 row
//! └──────────────────────────────────────────────────────────────────────────────┘
//! ```

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use crate::feed::dashboard::LagLevel;
use crate::msg::{Command, Tabs};
use crate::panes::{Level, PaneId, RenderCtx};
use crate::ui::format::{group_thousands, human_secs};
use crate::ui::help::footer_hints;
use crate::ui::layout::{is_too_small, render_too_small};
use crate::ui::safe::safe_line;

use super::state::{App, Overlay};

/// Draws the app into a frame.
pub fn draw(app: &App, frame: &mut Frame) {
    let area = frame.area();
    render(app, area, frame.buffer_mut());
}

/// Draws the app into a buffer (used by tests and benchmarks too).
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = &app.theme;
    buf.set_style(area, theme.base);
    if is_too_small(area) {
        render_too_small(area, buf, theme);
        return;
    }
    let areas = crate::ui::layout::areas(area, app.zoomed);
    if !app.zoomed {
        render_header(app, areas.header, buf);
        render_tabs(app, areas.tabs, buf);
    }
    let cx = RenderCtx::new(&app.sh, theme, app.overlay.is_none());
    app.pane(app.focus).render(areas.body, buf, cx);
    // A message of two lines takes the footer's row; the footer moves up over the body's last
    // row meanwhile, so its keys (`? help`, `q quit`) stay on screen. Zoomed, there is no footer.
    let two_lines =
        !app.zoomed && toast_lines(app, areas.status.width) > 1 && areas.body.height > 3;
    if !app.zoomed {
        let footer = if two_lines {
            let row = Rect::new(areas.footer.x, areas.footer.y - 1, areas.footer.width, 1);
            Clear.render(row, buf);
            row
        } else {
            areas.footer
        };
        render_footer(app, footer, buf);
    }
    render_status(app, areas.status, buf, two_lines);
    match &app.overlay {
        Some(Overlay::Help(h)) => {
            let a = crate::ui::help::HelpOverlay::area(areas.body);
            Clear.render(a, buf);
            h.render(a, buf, theme);
        }
        Some(Overlay::Palette(p)) => {
            let a = p.area(area);
            p.render(a, buf, theme);
        }
        Some(Overlay::Fields(f)) => f.render(areas.body, buf, theme),
        Some(Overlay::Rounds(r)) => {
            let a = crate::ui::layout::centered_pct(areas.body, 90, 90, 40, 8);
            r.render(a, buf, theme, &|us| app.sh.format_time(us));
        }
        Some(Overlay::ErrorLog) => {
            let a = crate::ui::layout::centered_pct(areas.body, 90, 80, 40, 8);
            Clear.render(a, buf);
            app.errors.render(a, buf, theme, app.sh.local_time);
        }
        None => {}
    }
}

fn render_header(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = &app.theme;
    buf.set_style(area, theme.header);
    // The widest variant that fits: full, compact (short time, no zone), minimal; the index's
    // part (when the profile has an index) shortens along; last, the newest update's part
    // gives way, so the network's part (`net 4/7 · 1 down · …`) always stays.
    const VARIANTS: [(u8, u8, bool); 6] = [
        (0, 0, true),
        (1, 0, true),
        (1, 1, true),
        (2, 1, true),
        (2, 2, true),
        (2, 2, false),
    ];
    for (i, (level, index, newest)) in VARIANTS.iter().enumerate() {
        let line = header_line(app, *level, *index, *newest);
        if i + 1 == VARIANTS.len() || line.width() <= usize::from(area.width) {
            buf.set_line(area.x, area.y, &line, area.width);
            return;
        }
    }
}

/// The header's part for the local index: how far it reaches and whether a sync writes it
/// (`index 2026-10-28 → 11-27 · 1.2M · syncing`), at three widths; `None` without an index or
/// before its first reading.
fn index_span(app: &App, level: u8) -> Option<Span<'static>> {
    let theme = &app.theme;
    let feed = &app.sh.index;
    if !feed.configured() {
        return None;
    }
    if feed.absent {
        let text = if level == 0 {
            "no index yet"
        } else {
            "idx –"
        };
        return Some(Span::styled(text, theme.status_warn));
    }
    if feed.rewritten.is_some() {
        let text = if level == 0 {
            "history rewritten (see !)"
        } else {
            "idx ≠"
        };
        return Some(Span::styled(text, theme.status_err));
    }
    if feed.failure.is_some() {
        let text = if level == 0 {
            "index unusable (see !)"
        } else {
            "idx ✗"
        };
        return Some(Span::styled(text, theme.status_err));
    }
    let reach = feed.reach.as_ref()?;
    let syncing = reach.sync_running.is_some();
    let (Some(first), Some(last)) = (reach.first, reach.last) else {
        let text = match (level, syncing) {
            (0, true) => "index empty · syncing",
            (0, false) => "index empty",
            (_, true) => "idx 0 ⟳",
            (_, false) => "idx 0",
        };
        return Some(Span::styled(text, theme.muted));
    };
    let count = crate::model::format::compact_count(reach.updates);
    let day = |t: i64| {
        let s = app.sh.format_time(t);
        s.get(..10).unwrap_or(&s).to_owned()
    };
    let (from, to) = (day(first), day(last));
    // The end without its year when it is the start's.
    let to_short = if from.get(..4) == to.get(..4) {
        to.get(5..).unwrap_or(&to).to_owned()
    } else {
        to.clone()
    };
    let text = match level {
        0 => format!(
            "index {from} → {to_short} · {count}{}",
            if syncing { " · syncing" } else { "" }
        ),
        1 => format!(
            "idx {} → {to_short} {count}{}",
            from.get(5..).unwrap_or(&from),
            if syncing { " ⟳" } else { "" }
        ),
        _ => format!("idx {count}{}", if syncing { "⟳" } else { "" }),
    };
    Some(Span::styled(
        text,
        if syncing { theme.accent } else { theme.header },
    ))
}

/// The network's part of the header (`net 4/7 · 1 down · 1 lag 48s · 1 forked`), in the
/// Status verdict's colours: red without a healthy quorum, green when all is well, amber
/// otherwise; `net …` before the first measurement. `None` when the network is not measured.
fn network_span(app: &App) -> Option<Span<'static>> {
    let theme = &app.theme;
    let net = &app.sh.health.network;
    if !net.is_enabled() {
        return None;
    }
    Some(match net.header_part() {
        None => Span::styled("net …", theme.muted),
        Some(part) => Span::styled(
            part.text.clone(),
            if !part.quorum_ok {
                theme.status_err
            } else if part.all_well {
                theme.status_ok
            } else {
                theme.status_warn
            },
        ),
    })
}

fn header_line(app: &App, level: u8, index_level: u8, newest: bool) -> Line<'static> {
    let theme = &app.theme;
    let sep = Span::styled(" · ", theme.muted);
    let mut spans = Vec::new();
    if level < 2 {
        spans.push(Span::styled(" cantonscope", theme.accent));
        spans.push(sep.clone());
        spans.push(Span::styled(
            safe_line(&app.sh.ctx.profile, 24).into_owned(),
            theme.header,
        ));
        spans.push(sep.clone());
    } else {
        spans.push(Span::raw(" "));
    }
    if let Some(index) = index_span(app, index_level) {
        spans.push(index);
        spans.push(sep.clone());
    }
    if app.sh.ctx.offline {
        // No node is asked: the history is the index's.
        spans.push(Span::styled(
            if level == 0 {
                "offline: reading the index"
            } else {
                "offline"
            },
            theme.status_warn,
        ));
    } else {
        let health = app.sh.health.nodes.scan0_health();
        spans.push(Span::styled(
            format!("● scan {}", health.label()),
            crate::panes::status::health_style(health, theme),
        ));
        if let Some(net) = network_span(app) {
            spans.push(sep.clone());
            spans.push(net);
        }
    }
    if let Some(last) = app.sh.history.last().filter(|_| newest) {
        spans.push(sep.clone());
        spans.push(Span::styled(
            if level == 0 {
                format!("migration {}", last.migration_id())
            } else {
                format!("mig {}", last.migration_id())
            },
            theme.header,
        ));
        let lag = (app.sh.now - last.record_time()).max(0) / 1_000_000;
        let time = app.sh.format_time(last.record_time());
        if app.sh.ctx.offline {
            // The index's newest loaded update: no lag is claimed (no node is asked).
            let shown = if level == 0 {
                format!("loaded up to {time} {}", app.sh.zone_label())
            } else {
                format!("up to {}", time.get(5..16).unwrap_or(&time))
            };
            spans.push(sep.clone());
            spans.push(Span::styled(shown, theme.muted));
            spans.push(sep);
            spans.push(follow_span(app));
            return Line::from(spans);
        }
        if !app.sh.history_at_head {
            // Browsing the past (or still catching up): the newest loaded update is not the
            // network's, so no lag is claimed.
            let shown = if level == 0 {
                format!(
                    "browsing: loaded up to {time} {} (not at the head)",
                    app.sh.zone_label()
                )
            } else {
                format!("browsing {}", time.get(5..16).unwrap_or(&time))
            };
            spans.push(sep.clone());
            spans.push(Span::styled(shown, theme.muted));
            spans.push(sep);
            spans.push(follow_span(app));
            return Line::from(spans);
        }
        let text = if level == 0 {
            format!(
                "newest {time} {} ({} ago)",
                app.sh.zone_label(),
                human_secs(lag)
            )
        } else {
            // `HH:MM:SS` of the newest update and its age (without "ago": the network's part
            // needs the room).
            let hms = time.get(11..19).unwrap_or(&time);
            format!("newest {hms} ({})", human_secs(lag))
        };
        spans.push(sep.clone());
        spans.push(Span::styled(
            text,
            match app.sh.ctx.lag.level(lag * 1_000_000) {
                LagLevel::Fine => theme.time,
                LagLevel::Amber => theme.status_warn,
                LagLevel::Red => theme.status_err,
            },
        ));
    }
    spans.push(sep);
    spans.push(follow_span(app));
    Line::from(spans)
}

/// `LIVE` while following a scan that answers; `OFFLINE` while following a scan that is down
/// (nothing new can arrive); `CONNECTING` before scan 1 first answered; `BROWSING` after `:time` (or `--from`); `PAUSED` when the user
/// scrolled away.
fn follow_span(app: &App) -> Span<'static> {
    let theme = &app.theme;
    if app.sh.ctx.offline {
        return Span::styled("INDEX", theme.status_warn);
    }
    if app.panes.history.is_following() {
        match app.sh.health.nodes.scan0_health() {
            crate::panes::status::NodeHealth::Down => Span::styled("OFFLINE", theme.status_err),
            // Nothing answered yet: not LIVE before there is evidence of it.
            crate::panes::status::NodeHealth::Unknown => Span::styled("CONNECTING", theme.muted),
            _ => Span::styled("LIVE", theme.status_ok),
        }
    } else if app.panes.history.is_browsing() {
        Span::styled("BROWSING", theme.muted)
    } else {
        Span::styled("PAUSED", theme.status_warn)
    }
}

/// The tab labels, as wide as fits in `width`: full titles with every pane's badge, then with the
/// focused tab's badge only, then titles cut to 4, 3 and 2 characters, then numbers only. The
/// focused tab always keeps its full title and its badge, whichever pane it is. Labels are
/// padded by a space on each side and drawn side by side (two spaces between titles), so ten
/// tabs keep a name at 80 columns.
fn tabs(app: &App, width: u16) -> Vec<(PaneId, String)> {
    let label = |i: usize, p: PaneId, level: u8| {
        let focused = p == app.focus;
        let badge = if level == 0 || focused {
            badge(app, p)
        } else {
            String::new()
        };
        let title: String = match level {
            0 | 1 => p.title().to_string(),
            _ if focused => p.title().to_string(),
            2..=4 => p.title().chars().take(usize::from(6 - level)).collect(),
            _ => String::new(),
        };
        if title.is_empty() {
            format!(" {} ", i + 1)
        } else {
            format!(" {} {}{} ", i + 1, title, badge)
        }
    };
    let mut best = Vec::new();
    for level in 0..6u8 {
        best = PaneId::ALL
            .iter()
            .enumerate()
            .map(|(i, p)| (*p, label(i, *p, level)))
            .collect::<Vec<_>>();
        let total: usize = best
            .iter()
            .map(|(_, l)| unicode_width::UnicodeWidthStr::width(l.as_str()))
            .sum();
        if total <= usize::from(width) {
            break;
        }
    }
    best
}

/// The badge after a tab's title, one rule for every pane: the number of rows of its main
/// table or list (the section shown), thousands grouped (` 1,560`), once it has loaded
/// something; nothing before.
fn badge(app: &App, p: PaneId) -> String {
    app.pane(p)
        .tab_count(&app.sh)
        .map(|n| format!(" {}", group_thousands(n)))
        .unwrap_or_default()
}

/// The pane whose tab is at column `x` of the tab row.
pub fn tab_at(app: &App, x: u16) -> Option<PaneId> {
    let mut pos = 0u16;
    for (p, label) in tabs(app, app.size.width) {
        let w = unicode_width::UnicodeWidthStr::width(label.as_str()) as u16;
        if x >= pos && x < pos + w {
            return Some(p);
        }
        pos += w;
    }
    None
}

fn render_tabs(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = &app.theme;
    let mut spans = Vec::new();
    for (p, label) in tabs(app, area.width) {
        let style = if p == app.focus {
            theme.tab_active
        } else {
            theme.tab_inactive
        };
        spans.push(Span::styled(label, style));
    }
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
}

fn render_footer(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = &app.theme;
    buf.set_style(area, theme.footer);
    let ctx = app.key_context();
    let cmds = match &app.overlay {
        Some(Overlay::Palette(_)) => vec![
            Command::Confirm,
            Command::Complete,
            Command::HistoryPrev,
            Command::Cancel,
        ],
        Some(Overlay::Help(_)) => {
            vec![Command::Filter, Command::Down, Command::Up, Command::Cancel]
        }
        Some(Overlay::ErrorLog) => vec![Command::Down, Command::Up, Command::Cancel],
        Some(Overlay::Rounds(_)) => vec![
            Command::Down,
            Command::Up,
            Command::PageDown,
            Command::Cancel,
        ],
        Some(Overlay::Fields(_)) => vec![
            Command::Down,
            Command::Up,
            Command::Confirm,
            Command::Copy,
            Command::Cancel,
        ],
        None => {
            let mut cmds = app.pane(app.focus).hints();
            cmds.extend([
                Command::NextPane,
                Command::Help,
                Command::Palette,
                Command::Quit,
            ]);
            cmds
        }
    };
    let line = footer_hints(&app.keymap, ctx, &cmds, theme, area.width);
    buf.set_line(area.x, area.y, &line, area.width);
}

/// The error count at the right of the status line (`! 2 errors `), empty without errors.
fn error_count(n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        format!("! {n} error{} ", if n == 1 { "" } else { "s" })
    }
}

/// The columns a message has on a status line `width` wide with `errors` in the log.
pub(super) fn status_text_width(width: u16, errors: usize) -> usize {
    let right = error_count(errors).chars().count();
    usize::from(width).saturating_sub(right + 1).max(1)
}

/// The status line: the message (toast) and the error count. A message longer than the line
/// takes the footer's row too when `two_lines` (the footer moved up; longer ones were cut when
/// shown, with a hint, and went to the error log whole).
/// The lines the message takes on a status line `width` wide (0: none).
fn toast_lines(app: &App, width: u16) -> usize {
    app.toast.as_ref().map_or(0, |t| {
        let max = status_text_width(width, app.errors.len());
        let text = crate::ui::safe::sanitize(&t.text).replace(['\n', '\r'], " ");
        crate::ui::layout::wrap_text(&text, max).len()
    })
}

fn render_status(app: &App, area: Rect, buf: &mut Buffer, two_lines: bool) {
    let theme = &app.theme;
    buf.set_style(area, theme.status_line);
    let right = error_count(app.errors.len());
    let right_w = right.chars().count() as u16;
    if let Some(t) = &app.toast {
        let style: Style = match t.level {
            Level::Info => theme.status_line,
            Level::Warn => theme.status_warn,
            Level::Error => theme.status_err,
        };
        let max = status_text_width(area.width, app.errors.len());
        let text = crate::ui::safe::sanitize(&t.text).replace(['\n', '\r'], " ");
        let lines = crate::ui::layout::wrap_text(&text, max);
        let mut y = area.y;
        if two_lines && area.y > 0 {
            // The first line over the footer's row (the keys come back when the message goes).
            let above = Rect::new(area.x, area.y - 1, area.width, 1);
            buf.set_style(above, theme.status_line);
            for x in above.x..above.right() {
                buf[(x, above.y)].set_symbol(" ");
            }
            y = above.y;
        }
        let shown = if y < area.y { 2 } else { 1 };
        for (i, line) in lines.iter().take(shown).enumerate() {
            let last = i + 1 == shown && lines.len() > shown;
            let text = if last {
                // More than fits (the terminal narrowed since): cut, and say where it is whole.
                let hint = " (! shows it whole)";
                let rest = format!("{line} {}", lines[shown..].join(" "));
                let room = max.saturating_sub(hint.chars().count());
                format!("{}{hint}", safe_line(&rest, room))
            } else {
                safe_line(line, max).into_owned()
            };
            buf.set_line(
                area.x,
                y + i as u16,
                &Line::from(Span::styled(format!(" {text}"), style)),
                area.width.saturating_sub(right_w),
            );
        }
    } else if app.zoomed {
        // Zoomed: no footer, so the status line says how to get the screen back.
        let keys = app
            .keymap
            .keys_for(crate::config::keymap::KeyContext::Global, Command::Zoom);
        let key = keys
            .first()
            .map_or_else(|| "+".to_owned(), ToString::to_string);
        buf.set_line(
            area.x,
            area.y,
            &Line::from(Span::styled(
                format!(" {} zoomed · {key} or Esc: back", app.focus.title()),
                theme.muted,
            )),
            area.width.saturating_sub(right_w),
        );
    }
    if right_w > 0 && area.width > right_w {
        buf.set_string(
            area.x + area.width - right_w,
            area.y,
            right,
            theme.status_err,
        );
    }
}
