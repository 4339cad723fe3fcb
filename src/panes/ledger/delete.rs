//! Delete-user section: `DELETE /v2/users/{user-id}`. `i` names the user, `D` opens a dialog in
//! which the user id must be typed again exactly; the outcome (deleted, not found, not allowed,
//! invalid) is listed plainly, newest first. Disabled in read-only mode.
//!
//! ```text
//! ┌ Delete user ──────────────────────────────┐
//! │Delete user "alice" and all its rights?    │
//! │This cannot be undone.                     │
//! │Type the user id to confirm:               │
//! │alice▏                                     │
//! │Enter delete · Esc cancel                  │
//! └───────────────────────────────────────────┘
//! ```

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::api::ApiError;
use crate::msg::Command;
use crate::msg::{Fetched, Request, RequestId};
use crate::panes::{Out, Shared};
use crate::ui::form::{Field, Form, FormOutcome, form_key, form_paste};
use crate::ui::safe::safe_line;
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

use super::SectionView;
use super::common::{
    READ_ONLY_TEXT, dialog, kv_line, put, put_safe, read_only_notes, refuse_read_only, render_notes,
};
use crate::ui::explain::{Note, Tone, explain_notes, is_auth_error};

/// Outcomes kept in the list.
const MAX_OUTCOMES: usize = 20;

/// One finished delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub user_id: String,
    /// Short verdict: `deleted`, `not found`, `not allowed`, `invalid`, `failed`.
    pub verdict: &'static str,
    pub notes: Vec<Note>,
}

/// The Delete-user section.
#[derive(Debug, Default)]
pub struct DeleteUser {
    /// The user-id form (`i`).
    input: Option<Form>,
    /// The user to delete.
    target: String,
    /// The confirmation dialog: what was typed so far.
    confirm: Option<TextInput>,
    pending: Option<(RequestId, String)>,
    outcomes: Vec<Outcome>,
}

fn verdict_of(e: &ApiError) -> &'static str {
    match e {
        ApiError::Ledger { status: 404, .. } | ApiError::NotFound { .. } => "not found",
        ApiError::Ledger { status: 403, .. } => "not allowed",
        e if is_auth_error(e) => "not allowed",
        ApiError::LedgerBadRequest { .. } => "invalid",
        _ => "failed",
    }
}

impl DeleteUser {
    /// Whether the confirmation dialog is open.
    pub fn dialog_open(&self) -> bool {
        self.confirm.is_some()
    }

    /// The finished deletes, newest first.
    pub fn outcomes(&self) -> &[Outcome] {
        &self.outcomes
    }

    fn open_input(&mut self) {
        self.input = Some(Form::new(vec![Field::text(
            "user id",
            &self.target,
            "user id, e.g. alice",
        )]));
    }

    fn open_dialog(&mut self) {
        self.confirm = Some(TextInput::single_line().with_placeholder("type the user id"));
    }

    fn push(&mut self, o: Outcome) {
        self.outcomes.insert(0, o);
        self.outcomes.truncate(MAX_OUTCOMES);
    }
}

impl SectionView for DeleteUser {
    fn wants_raw_keys(&self) -> bool {
        self.input.is_some() || self.confirm.is_some()
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        if let Some(c) = &mut self.confirm {
            match c.handle_key(key) {
                InputOutcome::Submitted(typed) => {
                    if typed != self.target {
                        c.set_validation(Some(format!(
                            "does not match: type {} exactly",
                            self.target
                        )));
                        return;
                    }
                    self.confirm = None;
                    if sh.ctx.read_only {
                        out.warn(READ_ONLY_TEXT);
                        return;
                    }
                    let id = out.fetch(
                        sh,
                        Request::api(crate::api::ledger::delete_user(&self.target)),
                    );
                    self.pending = Some((id, self.target.clone()));
                }
                InputOutcome::Cancelled => {
                    self.confirm = None;
                    out.info("delete cancelled");
                }
                _ => {}
            }
            return;
        }
        if form_key(&mut self.input, key) == Some(FormOutcome::Submitted)
            && let Some(form) = &mut self.input
        {
            let Some([text]) = form.required([(0, "a user id is required")]) else {
                return;
            };
            self.target = text;
            self.input = None;
            self.open_dialog();
        }
    }

    fn on_paste(&mut self, text: &str) {
        if let Some(c) = &mut self.confirm {
            c.insert_str(text);
        } else {
            form_paste(&mut self.input, text);
        }
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        if matches!(cmd, Command::Edit | Command::Delete) && self.pending.is_some() {
            out.warn("a delete is in flight: wait for its result");
            return true;
        }
        match cmd {
            Command::Edit => {
                if !refuse_read_only(sh, out) {
                    self.open_input();
                }
                true
            }
            Command::Delete => {
                if refuse_read_only(sh, out) {
                    return true;
                }
                if self.target.is_empty() {
                    self.open_input();
                } else {
                    self.open_dialog();
                }
                true
            }
            Command::Copy => {
                if !self.target.is_empty() {
                    out.copy("user id", self.target.clone());
                }
                true
            }
            _ => false,
        }
    }

    fn on_fetched(&mut self, reply: &Fetched, _sh: &mut Shared, out: &mut Out) {
        let (id, result) = (reply.id, &reply.result);
        let Some((pid, user)) = &self.pending else {
            return;
        };
        if *pid != id {
            return;
        }
        let user = user.clone();
        self.pending = None;
        let outcome = match result {
            Ok(_) => {
                out.info(format!("deleted user {user}"));
                Outcome {
                    user_id: user.clone(),
                    verdict: "deleted",
                    notes: vec![Note::new(
                        Tone::Ok,
                        format!("deleted user {user} and all its rights"),
                    )],
                }
            }
            Err(e) => {
                let verdict = verdict_of(e);
                out.error(format!("delete user {user}: {e}"));
                let mut notes = vec![Note::new(Tone::Err, format!("user {user}: {verdict}"))];
                notes.extend(explain_notes(e, None));
                Outcome {
                    user_id: user.clone(),
                    verdict,
                    notes,
                }
            }
        };
        self.push(outcome);
    }

    fn render(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, _focused: bool) {
        let mut y = 0u16;
        if sh.ctx.read_only {
            let notes = read_only_notes("users cannot be deleted");
            y += render_notes(&notes, area, buf, theme) + 1;
        } else {
            let intro = [Note::new(
                Tone::Muted,
                "DELETE /v2/users/{user-id}: deletes a user and all its rights. i names the \
                 user, D deletes (you type the user id again to confirm).",
            )];
            y += render_notes(&intro, area, buf, theme) + 1;
        }
        let target = if self.target.is_empty() {
            "-"
        } else {
            &self.target
        };
        put(
            area,
            y,
            buf,
            &kv_line("user", target, theme.id, 5, area.width, theme),
        );
        y += 1;
        if let Some(form) = &self.input
            && y < area.height
        {
            let rest = Rect::new(area.x, area.y + y, area.width, area.height - y);
            y += form.render_section(rest, buf, theme, "next: confirm");
        }
        y += 1;
        if let Some((_, user)) = &self.pending {
            put_safe(area, y, buf, &format!("deleting user {user}…"), theme.muted);
            y += 1;
        }
        for o in &self.outcomes {
            if y >= area.height {
                break;
            }
            let rest = Rect::new(area.x, area.y + y, area.width, area.height - y);
            y += render_notes(&o.notes, rest, buf, theme) + 1;
        }
        if let Some(c) = &self.confirm {
            let w = area.width.min(64);
            let inner = dialog(area, w, 8, "Delete user", buf, theme);
            if inner.height == 0 {
                return;
            }
            let lines = [
                Line::styled(
                    safe_line(
                        &format!("Delete user \"{}\" and all its rights?", self.target),
                        usize::from(inner.width),
                    )
                    .into_owned(),
                    theme.status_warn,
                ),
                Line::styled("This cannot be undone.", theme.muted),
                Line::styled("Type the user id to confirm:", theme.base),
            ];
            for (i, l) in lines.iter().enumerate() {
                put(inner, i as u16, buf, l);
            }
            if inner.height > 3 {
                let h = c.desired_height().min(inner.height - 3);
                c.render(
                    Rect::new(inner.x, inner.y + 3, inner.width, h),
                    buf,
                    theme,
                    true,
                );
            }
            let last = inner.height.saturating_sub(1);
            if last >= 5 {
                put(
                    inner,
                    last,
                    buf,
                    &Line::styled("Enter delete · Esc cancel", theme.muted),
                );
            }
        }
    }

    /// The user named, then each finished delete and what was said of it.
    fn fields(&self, _sh: &Shared) -> Vec<crate::ui::fields::Field> {
        use crate::ui::fields::Field;
        let mut v = Vec::new();
        if !self.target.is_empty() {
            v.push(Field::new("user", self.target.as_str()));
        }
        for o in &self.outcomes {
            let text: Vec<&str> = o.notes.iter().map(|n| n.text.as_str()).collect();
            v.push(Field::new(
                format!("{} {}", o.verdict, o.user_id),
                text.join(" "),
            ));
        }
        v
    }

    fn hints(&self) -> Vec<Command> {
        if self.wants_raw_keys() {
            vec![Command::Confirm, Command::Cancel]
        } else {
            vec![Command::Delete, Command::Edit, Command::NextSection]
        }
    }
}
