//! Drawing of the Execute section: the editor (file path and request body), the
//! confirmation dialog and the executed transaction with its events.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::api::ledger::{Event, ExecuteRequest, JsTransaction};
use crate::model::summary::{short_id, short_template};
use crate::panes::Shared;
use crate::ui::format::group_thousands;
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

use super::super::common::{dialog, kv_line, put, reading_line, render_notes};
use crate::ui::explain::Note;

use super::{Editor, EditorFocus, Execute};

/// `template  contract-id`, both shortened.
fn contract_words(template_id: &str, contract_id: &str) -> String {
    format!(
        "{}  {}",
        short_template(template_id),
        short_id(contract_id, 16)
    )
}

fn event_line(e: &Event) -> (String, Style, String) {
    let (node, verb, what) = match e {
        Event::CreatedEvent(c) => (
            c.node_id,
            "created",
            contract_words(&c.template_id, &c.contract_id),
        ),
        Event::ArchivedEvent(a) => (
            a.node_id,
            "archived",
            contract_words(&a.template_id, &a.contract_id),
        ),
        Event::ExercisedEvent(x) => (
            x.node_id,
            "exercised",
            format!(
                "{} {}{}  {}",
                x.choice,
                short_template(&x.template_id),
                if x.consuming { " consuming" } else { "" },
                short_id(&x.contract_id, 16)
            ),
        ),
        Event::Unknown { kind, .. } => return (kind.clone(), Style::default(), String::new()),
    };
    (format!("#{node} {verb}"), Style::default(), what)
}

/// The label of an editor field, `›` before it and highlighted while it has the keys.
fn editor_label(label: &'static str, active: bool, theme: &Theme) -> [Span<'static>; 2] {
    [
        Span::styled(if active { "›" } else { " " }, theme.accent),
        Span::styled(label, if active { theme.title } else { theme.muted }),
    ]
}

pub(super) fn render_editor(x: &Execute, ed: &Editor, area: Rect, buf: &mut Buffer, theme: &Theme) {
    let w = area.width;
    let path_focus = ed.focus() == EditorFocus::Path;
    let (Some(path), Some(body)) = (ed.input(EditorFocus::Path), ed.input(EditorFocus::Body))
    else {
        return;
    };
    put(
        area,
        0,
        buf,
        &Line::from(editor_label("file ", path_focus, theme).to_vec()),
    );
    if w > 7 {
        let h = path.desired_height().min(area.height);
        path.render(
            Rect::new(area.x + 7, area.y, w - 7, h),
            buf,
            theme,
            path_focus,
        );
    }
    let mut y = path.desired_height();
    let hint = if path_focus {
        "Enter load the file · Tab body · Esc cancel"
    } else {
        "Ctrl-s check & review · Tab file · Esc cancel"
    };
    let mut label = editor_label("body ", !path_focus, theme).to_vec();
    label.push(Span::styled(
        safe_line(hint, usize::from(w.saturating_sub(7))).into_owned(),
        theme.muted,
    ));
    put(area, y, buf, &Line::from(label));
    y += 1;
    if let Some((_, p)) = &x.read_pending {
        reading_line(area, y, buf, p, theme);
        y += 1;
    }
    // Why the body was not accepted goes under the editor.
    let extra: Vec<Note> = x.problem.iter().flatten().cloned().collect();
    let extra_h =
        super::super::common::notes_height(&extra, w).min(area.height.saturating_sub(y) / 2);
    if y < area.height {
        let h = area.height - y - extra_h;
        body.render(
            Rect::new(area.x + 1, area.y + y, w.saturating_sub(1), h),
            buf,
            theme,
            !path_focus,
        );
        y += h;
    }
    if extra_h > 0 {
        render_notes(
            &extra,
            Rect::new(area.x, area.y + y, w, extra_h),
            buf,
            theme,
        );
    }
}

pub(super) fn render_confirm(
    r: &ExecuteRequest,
    sh: &Shared,
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
) {
    // Narrow panes: the whole width, so no text of the section peeks out beside the dialog.
    let w = if area.width < 96 { area.width } else { 76 };
    let inner = dialog(area, w, 12, "Execute prepared transaction", buf, theme);
    if inner.height == 0 {
        return;
    }
    let signers: Vec<&str> = r
        .party_signatures
        .signatures
        .iter()
        .map(|s| s.party.as_str())
        .collect();
    let lw = 12;
    let iw = inner.width;
    let lines = [
        Line::styled(
            "Execute this prepared transaction and wait for it?",
            theme.status_warn,
        ),
        kv_line(
            "ledger",
            sh.ctx.ledger_url.as_deref().unwrap_or("-"),
            theme.accent,
            lw,
            iw,
            theme,
        ),
        kv_line("submission", &r.submission_id, theme.id, lw, iw, theme),
        kv_line(
            "user",
            r.user_id.as_deref().unwrap_or("(the token's user)"),
            Style::default(),
            lw,
            iw,
            theme,
        ),
        kv_line("signed by", &signers.join(", "), theme.party, lw, iw, theme),
        kv_line(
            "hashing",
            &r.hashing_scheme_version,
            Style::default(),
            lw,
            iw,
            theme,
        ),
        kv_line(
            "prepared",
            &format!(
                "{} characters of base64",
                group_thousands(r.prepared_transaction.len())
            ),
            theme.muted,
            lw,
            iw,
            theme,
        ),
        Line::styled(
            "It is committed to the ledger: this cannot be undone.",
            theme.muted,
        ),
    ];
    for (i, l) in lines.iter().enumerate() {
        put(inner, i as u16, buf, l);
    }
    if inner.height > lines.len() as u16 {
        put(
            inner,
            inner.height - 1,
            buf,
            &Line::styled("x execute · Esc cancel", theme.title),
        );
    }
}

pub(super) fn render_result(
    x: &Execute,
    t: &JsTransaction,
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
    focused: bool,
) {
    let w = area.width;
    let lw = 14;
    let cost = t
        .paid_traffic_cost
        .map_or_else(|| "-".to_string(), group_thousands);
    let rows = [
        Line::styled("executed: the transaction is committed", theme.status_ok),
        kv_line("update id", &t.update_id, theme.id, lw, w, theme),
        kv_line("offset", &t.offset.to_string(), theme.accent, lw, w, theme),
        kv_line(
            "external hash",
            t.external_transaction_hash.as_deref().unwrap_or("-"),
            theme.id,
            lw,
            w,
            theme,
        ),
        kv_line("traffic cost", &cost, theme.accent, lw, w, theme),
        kv_line(
            "command id",
            t.command_id.as_deref().unwrap_or("-"),
            Style::default(),
            lw,
            w,
            theme,
        ),
        kv_line(
            "synchronizer",
            &t.synchronizer_id,
            Style::default(),
            lw,
            w,
            theme,
        ),
        kv_line(
            "events",
            &t.events.len().to_string(),
            Style::default(),
            lw,
            w,
            theme,
        ),
    ];
    let mut y = 0u16;
    for l in &rows {
        put(area, y, buf, l);
        y += 1;
    }
    let list_h = usize::from(area.height.saturating_sub(y));
    for (row, i) in x.scroll.visible_range(list_h).enumerate() {
        let Some(e) = t.events.get(i) else { break };
        let (kind, _, what) = event_line(e);
        let style = match e {
            Event::CreatedEvent(_) => theme.created,
            Event::ArchivedEvent(_) => theme.archived,
            Event::ExercisedEvent(_) => theme.exercised,
            Event::Unknown { .. } => theme.status_warn,
        };
        let kind = format!("  {kind:<14} ");
        let room = usize::from(w).saturating_sub(kind.chars().count());
        let line = Line::from(vec![
            Span::styled(safe_line(&kind, usize::from(w)).into_owned(), style),
            Span::styled(safe_line(&what, room).into_owned(), theme.muted),
        ]);
        let yy = y + row as u16;
        put(area, yy, buf, &line);
        if i == x.scroll.cursor() && focused && yy < area.height {
            buf.set_style(
                Rect::new(area.x, area.y + yy, w, 1),
                theme.selection_style(focused),
            );
        }
    }
}

/// The executed transaction's fields and the event under the cursor, each whole (`v`).
pub(super) fn result_fields(x: &Execute, t: &JsTransaction) -> Vec<crate::ui::fields::Field> {
    use crate::ui::fields::Field;
    let or_dash = |s: Option<&str>| s.unwrap_or("-").to_owned();
    let mut v = vec![
        Field::new("update id", t.update_id.as_str()),
        Field::new("offset", t.offset.to_string()),
        Field::new(
            "external hash",
            or_dash(t.external_transaction_hash.as_deref()),
        ),
        Field::new(
            "traffic cost",
            t.paid_traffic_cost
                .map_or_else(|| "-".to_string(), |c| c.to_string()),
        ),
        Field::new("command id", or_dash(t.command_id.as_deref())),
        Field::new("synchronizer", t.synchronizer_id.as_str()),
    ];
    if let Some(e) = t.events.get(x.scroll.cursor()) {
        let (kind, _, _) = event_line(e);
        let whole = match e {
            Event::CreatedEvent(c) => format!("{}  {}", c.template_id, c.contract_id),
            Event::ArchivedEvent(a) => format!("{}  {}", a.template_id, a.contract_id),
            Event::ExercisedEvent(x) => format!(
                "{} {}{}  {}",
                x.choice,
                x.template_id,
                if x.consuming { " consuming" } else { "" },
                x.contract_id
            ),
            Event::Unknown { .. } => String::new(),
        };
        v.push(Field::new(kind, whole));
    }
    v
}
