//! The one form of the app: labelled fields, one active at a time, each with its own completion
//! source (Tab completes from known values such as the parties seen in the history: prefix
//! matches first, then substring matches). Every query form uses it — the Network and Proxy
//! sections, the Ledger sections (parties, trees, package, delete, the execute editor), the
//! Holdings query and the Validators query — and every text is typed into a
//! [`TextInput`](crate::ui::text_input::TextInput).
//!
//! ```text
//! Party      alice::1220ab█                       a text field
//! Owners     3 owners: alice, bob, carol · █      a list field: the ids and how many
//! Match      (•) at_or_before  ( ) exact          a choice
//! ↵ run · Tab complete (4 matches) · ↑↓ field · Esc cancel
//! ```
//!
//! Kinds of field ([`Kind`]):
//! - text (single- or multi-line);
//! - a list of ids: typed one at a time into an entry; Space, `,` or `;` add the entry to the
//!   list, Backspace in an empty entry takes the last id back for editing, Ctrl-u / Ctrl-k in an
//!   empty entry empty the list; the list is shown as a count with the ids, never as one long
//!   line;
//! - a choice between a few options (←/→ or Space switch, a letter picks the option it starts).
//!
//! Keys (raw, while the form is open): Enter submits (the owner validates and may put a message
//! on a field with [`Form::set_error`], keeping the form open; a multi-line field submits with
//! Ctrl-s), Esc cancels, Tab completes the active field (cycling through the matches, Shift-Tab
//! cycles back) or, when there is nothing to complete, moves to the next field, Shift-Tab / ↑ /
//! ↓ move between fields.
//!
//! Drawing ([`draw`]): inline above what the form queries ([`Form::render`], Network and
//! Proxy), as a Ledger section form with a marker and suggestions ([`Form::render_section`]), or
//! as a dialog over a pane ([`Form::render_dialog`], Holdings and Validators).

mod draw;
mod field;
mod ids;
mod parts;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::config::keymap::KeyContext;
use crate::ui::table::{DataTable, TableRow};
use crate::ui::text_input::InputOutcome;

pub use crate::ui::layout::{cell, paragraph};
pub use crate::ui::load::Load;
pub use field::{Field, Kind};
pub use ids::{
    id_list_rows, id_list_summary, id_order, is_separator, looks_like_party, matching,
    render_id_list, split_ids,
};
pub use parts::{file_part, file_safe, key_line, progress_bar, render_section_tabs};

/// What a key did to the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormOutcome {
    /// Enter (Ctrl-s in a multi-line field): the owner reads the values and validates.
    Submitted,
    /// Esc.
    Cancelled,
    /// Anything else (text changed, field moved, completion).
    Consumed,
}

/// A running Tab completion: the field, the text it started from, the matches and the one shown.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cycle {
    field: usize,
    matches: Vec<String>,
    index: usize,
    /// The field's text after the last completion (any other text ends the cycle).
    applied: String,
}

/// The form.
#[derive(Debug, Clone)]
pub struct Form {
    fields: Vec<Field>,
    active: usize,
    cycle: Option<Cycle>,
    /// A note for the user (completion feedback, what was pre-filled).
    note: Option<String>,
}

impl Form {
    /// A form over `fields` (at least one), the first active.
    pub fn new(fields: Vec<Field>) -> Self {
        Form {
            fields,
            active: 0,
            cycle: None,
            note: None,
        }
    }

    /// A text field with `label`, starting with `text`, showing `placeholder` while empty.
    pub fn field(label: &'static str, text: &str, placeholder: &str) -> Field {
        Field::text(label, text, placeholder)
    }

    /// Adds completion candidates to a field (deduplicated, sorted, bounded).
    pub fn with_candidates<'a>(
        field: Field,
        candidates: impl IntoIterator<Item = &'a str>,
    ) -> Field {
        field.candidates(candidates)
    }

    /// Field `i`.
    pub fn get(&self, i: usize) -> Option<&Field> {
        self.fields.get(i)
    }

    /// Field `i`, to change.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Field> {
        self.cycle = None;
        self.fields.get_mut(i)
    }

    /// The value of field `i` (see [`Field::value`]).
    pub fn value(&self, i: usize) -> String {
        self.fields.get(i).map(Field::value).unwrap_or_default()
    }

    /// The ids of field `i` (see [`Field::ids`]).
    pub fn ids(&self, i: usize) -> Vec<String> {
        self.fields.get(i).map(Field::ids).unwrap_or_default()
    }

    /// The option chosen in field `i` (0 for other fields).
    pub fn choice(&self, i: usize) -> usize {
        match self.fields.get(i).map(|f| &f.kind) {
            Some(Kind::Choice { selected, .. }) => *selected,
            _ => 0,
        }
    }

    /// Chooses option `n` in field `i`.
    pub fn set_choice(&mut self, i: usize, n: usize) {
        if let Some(Field {
            kind: Kind::Choice { options, selected },
            ..
        }) = self.fields.get_mut(i)
            && n < options.len()
        {
            *selected = n;
        }
    }

    /// Replaces the text of field `i` (a list: its ids, from the text).
    pub fn set_text(&mut self, i: usize, text: &str) {
        if let Some(f) = self.fields.get_mut(i) {
            if f.is_list() {
                f.set_items(split_ids(text));
                f.input.clear();
            } else {
                f.input.set_text(text);
            }
        }
        self.cycle = None;
    }

    /// Replaces the completion candidates of field `i`.
    pub fn set_candidates<'a>(&mut self, i: usize, candidates: impl IntoIterator<Item = &'a str>) {
        if let Some(f) = self.fields.get_mut(i) {
            f.set_candidates(candidates);
            f.refresh_placeholder();
        }
    }

    /// The active field.
    pub fn active(&self) -> usize {
        self.active
    }

    /// Makes field `i` active (the first empty one, for instance).
    pub fn set_active(&mut self, i: usize) {
        if i < self.fields.len() {
            self.active = i;
            self.cycle = None;
        }
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether the form has no fields.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The values of the required `fields` (index, what its error says when empty), or `None`
    /// after marking the first empty one.
    pub fn required<const N: usize>(&mut self, fields: [(usize, &str); N]) -> Option<[String; N]> {
        let values = fields.map(|(i, _)| self.value(i));
        if let Some(k) = values.iter().position(String::is_empty) {
            let (i, message) = fields[k];
            self.set_error(i, message);
            return None;
        }
        Some(values)
    }

    /// Makes field `i` active and shows `message` under it.
    pub fn set_error(&mut self, i: usize, message: impl Into<String>) {
        if let Some(f) = self.fields.get_mut(i) {
            f.input.set_validation(Some(message.into()));
            self.active = i;
            self.cycle = None;
        }
    }

    /// Removes every field's message.
    pub fn clear_errors(&mut self) {
        for f in &mut self.fields {
            f.input.set_validation(None);
        }
    }

    /// The message of field `i`.
    pub fn error(&self, i: usize) -> Option<&str> {
        self.fields.get(i).and_then(|f| f.input.validation())
    }

    /// The note shown to the user (completion feedback, what was pre-filled).
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Sets (or clears) the note.
    pub fn set_note(&mut self, note: Option<String>) {
        self.note = note;
    }

    /// Matches for the active field's text: prefix matches first, then other substring matches
    /// (case-insensitive); ids already in a list are left out.
    pub fn matches(&self) -> Vec<&str> {
        let Some(f) = self.fields.get(self.active) else {
            return Vec::new();
        };
        if let Some(c) = self.cycle.as_ref().filter(|c| c.field == self.active) {
            return c.matches.iter().map(String::as_str).collect();
        }
        if matches!(f.kind, Kind::Choice { .. }) {
            return Vec::new();
        }
        f.fresh_matches()
    }

    /// The matches of a running Tab completion and the index of the one shown.
    pub fn cycle(&self) -> Option<(&[String], usize)> {
        self.cycle
            .as_ref()
            .filter(|c| c.field == self.active)
            .map(|c| (c.matches.as_slice(), c.index))
    }

    /// Handles a raw key.
    pub fn handle_key(&mut self, key: &KeyEvent) -> FormOutcome {
        if key.kind == KeyEventKind::Release {
            return FormOutcome::Consumed;
        }
        let Some(f) = self.fields.get(self.active) else {
            return FormOutcome::Cancelled;
        };
        let multi = f.is_multi_line();
        match key.code {
            KeyCode::Tab => {
                self.complete(true);
                return FormOutcome::Consumed;
            }
            KeyCode::BackTab => {
                if self.cycle().is_some() {
                    self.complete(false);
                } else {
                    self.move_to(self.active + self.fields.len().saturating_sub(1));
                }
                return FormOutcome::Consumed;
            }
            // ↑/↓ stop at the first and last field (no surprising wrap-around); a multi-line
            // field moves its cursor first.
            KeyCode::Up | KeyCode::Down if !multi => {
                self.step(key.code == KeyCode::Down);
                return FormOutcome::Consumed;
            }
            _ => {}
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let plain = !ctrl && !key.modifiers.contains(KeyModifiers::ALT);
        let active = self.active;
        let Some(f) = self.fields.get_mut(active) else {
            return FormOutcome::Cancelled;
        };
        if let Kind::Choice { options, selected } = &mut f.kind {
            let n = options.len().max(1);
            match key.code {
                KeyCode::Enter => return FormOutcome::Submitted,
                KeyCode::Esc => return FormOutcome::Cancelled,
                KeyCode::Left | KeyCode::Char('h') => *selected = (*selected + n - 1) % n,
                KeyCode::Right | KeyCode::Char(' ' | 'l') => *selected = (*selected + 1) % n,
                KeyCode::Char(c) if plain => {
                    if let Some(k) = options.iter().position(|o| o.starts_with(c)) {
                        *selected = k;
                    }
                }
                _ => {}
            }
            return FormOutcome::Consumed;
        }
        if f.is_list() {
            let empty = f.input.is_empty();
            match key.code {
                KeyCode::Char(c) if plain && is_separator(c) => {
                    f.commit(true);
                    self.edited();
                    return FormOutcome::Consumed;
                }
                KeyCode::Backspace if empty => {
                    if let Some(last) = f.items.pop() {
                        f.input.set_text(&last);
                        f.refresh_placeholder();
                    }
                    self.edited();
                    return FormOutcome::Consumed;
                }
                KeyCode::Char('u' | 'k') if ctrl && empty => {
                    f.set_items(Vec::new());
                    self.edited();
                    return FormOutcome::Consumed;
                }
                KeyCode::Enter => f.commit(true),
                _ => {}
            }
        }
        let outcome = f.input.handle_key(key);
        match outcome {
            InputOutcome::Submitted(_) => FormOutcome::Submitted,
            InputOutcome::Cancelled => FormOutcome::Cancelled,
            InputOutcome::Changed => {
                self.edited();
                FormOutcome::Consumed
            }
            InputOutcome::Consumed => FormOutcome::Consumed,
            InputOutcome::Ignored => {
                if multi && matches!(key.code, KeyCode::Up | KeyCode::Down) {
                    self.step(key.code == KeyCode::Down);
                }
                FormOutcome::Consumed
            }
        }
    }

    /// The text changed: a completion and the note are over.
    fn edited(&mut self) {
        self.cycle = None;
        self.note = None;
    }

    /// Pastes into the active field (into a list: every id followed by a separator joins the
    /// list).
    pub fn paste(&mut self, text: &str) {
        if let Some(f) = self.fields.get_mut(self.active)
            && !matches!(f.kind, Kind::Choice { .. })
            && f.input.insert_str(text)
        {
            if f.is_list() {
                f.commit(false);
            }
            self.edited();
        }
    }

    /// ↑/↓: the field above or below, stopping at the first and last.
    fn step(&mut self, down: bool) {
        let last = self.fields.len().saturating_sub(1);
        let i = if down {
            (self.active + 1).min(last)
        } else {
            self.active.saturating_sub(1)
        };
        self.move_to(i);
    }

    fn move_to(&mut self, i: usize) {
        if !self.fields.is_empty() {
            self.active = i % self.fields.len();
        }
        self.cycle = None;
        self.note = None;
        if let Some(f) = self.fields.get_mut(self.active) {
            f.input.move_to_end();
        }
    }

    /// Tab (`forward`) or Shift-Tab in a completion: the next (previous) match of what was
    /// typed; in a text field the next field when nothing matches; in a list a note saying why
    /// nothing was completed.
    fn complete(&mut self, forward: bool) {
        let i = self.active;
        let Some(f) = self.fields.get_mut(i) else {
            return;
        };
        if matches!(f.kind, Kind::Choice { .. }) {
            self.move_to(i + 1);
            return;
        }
        let text = f.input.text();
        if let Some(c) = &mut self.cycle
            && c.field == i
            && c.applied == text
            && !c.matches.is_empty()
        {
            let n = c.matches.len();
            c.index = if forward {
                (c.index + 1) % n
            } else {
                (c.index + n - 1) % n
            };
            f.input.set_text(&c.matches[c.index]);
            c.applied = f.input.text();
            return;
        }
        self.cycle = None;
        let typed = f.typed();
        let found: Vec<String> = f.fresh_matches().into_iter().map(str::to_string).collect();
        if found.is_empty() {
            if f.is_list() && !(f.candidates.is_empty() && typed.is_empty()) {
                self.note = Some(if f.candidates.is_empty() {
                    "nothing to complete from: no such ids in the loaded history yet".to_string()
                } else if typed.is_empty() {
                    "every known id is already in the list".to_string()
                } else {
                    format!(
                        "no known id matches {:?}",
                        crate::ui::safe::safe_line(&typed, 40).into_owned()
                    )
                });
            } else {
                self.move_to(i + 1);
            }
            return;
        }
        // The only match is already there: a list takes it, a text field moves on.
        if found.len() == 1 && found[0] == typed {
            if f.is_list() {
                f.commit(true);
            } else {
                self.move_to(i + 1);
            }
            return;
        }
        let index = if forward { 0 } else { found.len() - 1 };
        f.input.set_text(&found[index]);
        self.note = None;
        self.cycle = Some(Cycle {
            field: i,
            applied: f.input.text(),
            matches: found,
            index,
        });
    }
}

/// Where a form lives while it is open: an `Option<Form>` (built on open, dropped on close, as
/// the Ledger sections do) or a [`Dialog`] (kept between openings, as Holdings and Validators
/// do).
pub trait FormSlot {
    /// The form, when it is open.
    fn open_form(&mut self) -> Option<&mut Form>;
    /// Closes the form.
    fn close(&mut self);
}

impl FormSlot for Option<Form> {
    fn open_form(&mut self) -> Option<&mut Form> {
        self.as_mut()
    }

    fn close(&mut self) {
        *self = None;
    }
}

/// A form kept between openings: what was typed is still there when it opens again.
#[derive(Debug, Clone)]
pub struct Dialog {
    pub form: Form,
    open: bool,
}

impl Dialog {
    /// A closed dialog over `form`.
    pub fn new(form: Form) -> Self {
        Dialog { form, open: false }
    }

    /// Whether the form is open (it has every key).
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Opens the form.
    pub fn open(&mut self) {
        self.open = true;
    }

    /// Closes the form (what was typed stays).
    pub fn close(&mut self) {
        self.open = false;
    }
}

impl FormSlot for Dialog {
    fn open_form(&mut self) -> Option<&mut Form> {
        self.open.then_some(&mut self.form)
    }

    fn close(&mut self) {
        Dialog::close(self);
    }
}

/// A raw key for a form that may be open (`None`: no form, the key is the caller's). Esc closes
/// the form here; the caller acts on `Submitted`.
pub fn form_key(slot: &mut impl FormSlot, key: &KeyEvent) -> Option<FormOutcome> {
    let outcome = slot.open_form()?.handle_key(key);
    if outcome == FormOutcome::Cancelled {
        slot.close();
    }
    Some(outcome)
}

/// Pasted text for a form that may be open; returns whether it took it.
pub fn form_paste(slot: &mut impl FormSlot, text: &str) -> bool {
    slot.open_form().map(|f| f.paste(text)).is_some()
}

/// A raw key of a view with a form over a table: the open form takes it, else the table (its
/// moves and `/` filter). Returns whether the form was submitted.
pub fn form_or_table_key<C, R>(
    slot: &mut impl FormSlot,
    table: &mut DataTable<C>,
    rows: &[R],
    key: &KeyEvent,
) -> bool
where
    C: Copy + PartialEq,
    R: TableRow<Col = C>,
{
    match form_key(slot, key) {
        None => {
            table.on_key(key, rows);
            false
        }
        Some(outcome) => outcome == FormOutcome::Submitted,
    }
}

/// Pasted text of a view with a form over a table: the open form's, else the table filter's.
pub fn form_or_table_paste<C, R>(
    slot: &mut impl FormSlot,
    table: &mut DataTable<C>,
    rows: &[R],
    text: &str,
) where
    C: Copy + PartialEq,
    R: TableRow<Col = C>,
{
    if !form_paste(slot, text) {
        table.on_paste(text, rows);
    }
}

/// The key context of a view that reads raw keys while a form or filter is open.
pub fn raw_or_list(raw: bool) -> KeyContext {
    if raw {
        KeyContext::TextInput
    } else {
        KeyContext::List
    }
}

#[cfg(test)]
mod tests;
