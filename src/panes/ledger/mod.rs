//! The Ledger pane (9): the participant's JSON Ledger API v2, which needs a JWT. The ledger end
//! sits at the top; `]` / `[` switch between the sections of the tab row: Parties, Delete user,
//! Package, Trees and Execute. Without a token (or when the node refuses it) the pane says what
//! to configure; in read-only mode delete and execute are disabled and the pane says so.
//!
//! ```text
//! ledger end 1,234 · http://participant:7575 · JWT configured · read-only: delete and execute are disabled
//!  Parties │ Delete user │ Package │ Trees │ Execute
//! ─────────────────────────────────────────────────────────────────────────────
//! <the section>
//! ```
//!
//! Each section owns its state (forms, pending request, answer) and drawing; the pane routes
//! commands, raw keys, fetch results and file reads to them. Requests are tagged: a section
//! drops replies to requests that are not its current one.

mod common;
mod delete;
mod execute;
mod package;
mod parties;
mod trees;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::api::ApiError;
use crate::api::ledger::{Event, ExecuteResponse, JsGetUpdateTreesResponse, TreeEvent, Update};
use crate::config::keymap::KeyContext;
use crate::msg::Command;
use crate::msg::tabs::{Tabs, tabs};
use crate::msg::{Fetched, Request, RequestId, Response};
use crate::panes::{Out, Pane, PaneId, RenderCtx, Shared};
use crate::ui::format::group_thousands;
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

pub use crate::ui::explain::TOKEN_HELP;
pub use common::READ_ONLY_TEXT;
pub use delete::{DeleteUser, Outcome};
pub use execute::{Execute, check_body};
pub use package::{Downloaded, PackageSection};
pub use parties::Parties;
pub use trees::{DrillFocus, REMOVED_HINT, Trees};

use crate::ui::explain::{Note, Tone, explain_notes};
use common::{put, render_notes};

tabs! {
    /// The sections, in tab order.
    pub enum Section {
        Parties => "Parties",
        DeleteUser => "Delete user",
        Package => "Package",
        Trees => "Trees",
        Execute => "Execute",
    }
}

/// What every section implements (the pane does the routing).
trait SectionView {
    fn wants_raw_keys(&self) -> bool;
    /// Raw keys while a form or filter is open, list keys otherwise (by default).
    fn key_context(&self) -> KeyContext {
        crate::ui::form::raw_or_list(self.wants_raw_keys())
    }
    fn on_key(&mut self, _key: &KeyEvent, _sh: &mut Shared, _out: &mut Out) {}
    fn on_paste(&mut self, _text: &str) {}
    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool;
    /// A reply to a request of the pane: each section takes its own (see
    /// [`crate::ui::load::accept`]).
    fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out);
    fn set_rows(&mut self, _rows: usize) {}
    /// `o` then a column's letter: sorts the section's table by that column.
    fn sort_by_letter(&mut self, _letter: char) -> bool {
        false
    }
    /// The section's sortable columns with their letters (`None` without a table shown).
    fn sort_letters(&self) -> Option<String> {
        None
    }
    fn render(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool);
    fn hints(&self) -> Vec<Command>;
    /// What the section shows of its selection or its last answer, each field whole (`v`).
    fn fields(&self, _sh: &Shared) -> Vec<crate::ui::fields::Field> {
        Vec::new()
    }
}

/// The Ledger pane.
#[derive(Debug)]
pub struct LedgerPane {
    section: Section,
    /// The ledger end: `None` unknown, `Some(None)` the server sent no offset (empty ledger).
    end_pending: Option<RequestId>,
    end_error: Option<ApiError>,
    /// Whether the pane fetched the ledger end itself once.
    end_tried: bool,
    pub parties: Parties,
    pub delete: DeleteUser,
    pub package: PackageSection,
    pub trees: Trees,
    pub execute: Execute,
    /// Fixed for the session (from the settings): whether the ledger can be called at all, and
    /// whether state-changing actions are disabled. Used for the footer hints.
    usable: bool,
    read_only: bool,
    /// Package-name template references (`#package-name:Module:Entity`) seen in ledger
    /// answers: what the template filters complete from.
    template_refs: Vec<String>,
}

impl Default for LedgerPane {
    fn default() -> Self {
        LedgerPane {
            section: Section::Parties,
            end_pending: None,
            end_error: None,
            end_tried: false,
            parties: Parties::default(),
            delete: DeleteUser::default(),
            package: PackageSection::default(),
            trees: Trees::default(),
            execute: Execute::default(),
            usable: true,
            read_only: false,
            template_refs: Vec::new(),
        }
    }
}

/// Why the pane cannot call the ledger, if it cannot.
fn not_ready(sh: &Shared) -> Option<Vec<Note>> {
    if sh.ctx.ledger_url.is_none() {
        return Some(vec![
            Note::new(Tone::Err, "No participant ledger is configured."),
            Note::new(
                Tone::Warn,
                "Set --ledger-url URL, CANTONSCOPE_LEDGER_URL, or ledger_url in the profile, and a JWT.",
            ),
        ]);
    }
    if !sh.ctx.has_token {
        return Some(vec![
            Note::new(Tone::Err, "JWT required: no ledger token is configured."),
            Note::new(Tone::Warn, TOKEN_HELP),
        ]);
    }
    None
}

impl LedgerPane {
    /// A new pane.
    pub fn new(sh: &Shared) -> Self {
        LedgerPane {
            usable: sh.ctx.ledger_url.is_some() && sh.ctx.has_token,
            read_only: sh.ctx.read_only,
            ..LedgerPane::default()
        }
    }

    /// The section shown.
    pub fn section(&self) -> Section {
        self.section
    }

    /// Shows a section.
    pub fn set_section(&mut self, s: Section) {
        self.section = s;
    }

    fn current(&self) -> &dyn SectionView {
        match self.section {
            Section::Parties => &self.parties,
            Section::DeleteUser => &self.delete,
            Section::Package => &self.package,
            Section::Trees => &self.trees,
            Section::Execute => &self.execute,
        }
    }

    fn current_mut(&mut self) -> &mut dyn SectionView {
        match self.section {
            Section::Parties => &mut self.parties,
            Section::DeleteUser => &mut self.delete,
            Section::Package => &mut self.package,
            Section::Trees => &mut self.trees,
            Section::Execute => &mut self.execute,
        }
    }

    /// Remembers the package ids and the package-name references of `(template id, package
    /// name)` pairs from a ledger answer.
    fn note_templates(&mut self, seen: &[(&str, &str)]) {
        if seen.is_empty() {
            return;
        }
        self.package.note_template_ids(seen.iter().map(|(t, _)| *t));
        for (t, name) in seen {
            let Some((_, qualified)) = t.split_once(':') else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let r = format!("#{name}:{qualified}");
            if !self.template_refs.contains(&r) {
                self.template_refs.push(r);
            }
        }
        self.template_refs.sort();
    }

    /// The ledger under the pane was replaced (its end went back): what the sections read of
    /// the old ledger is read again (the parties and trees asked last), and what was gathered
    /// from its answers (package ids, template references for completion) is forgotten. The
    /// answers of Delete user and Execute stay: they tell what was done.
    pub fn ledger_replaced(&mut self, sh: &mut Shared, out: &mut Out) {
        self.end_error = None;
        self.template_refs.clear();
        self.package.forget_seen();
        self.parties.ledger_replaced(sh, out);
        self.trees.ledger_replaced(sh.ledger_end.flatten(), sh, out);
    }

    fn fetch_end(&mut self, sh: &mut Shared, out: &mut Out) {
        if not_ready(sh).is_some() || self.end_pending.is_some() {
            return;
        }
        self.end_tried = true;
        self.end_pending = Some(out.fetch(sh, Request::api(crate::api::ledger::ledger_end())));
    }

    fn render_header(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme) {
        let mut spans = vec![Span::styled("ledger end ", theme.muted)];
        match (sh.ledger_end, &self.end_error) {
            (Some(Some(e)), _) => spans.push(Span::styled(group_thousands(e), theme.accent)),
            (Some(None), _) => spans.push(Span::styled("0 (empty ledger)", theme.accent)),
            (None, Some(_)) => spans.push(Span::styled("unavailable", theme.status_err)),
            (None, None) if self.end_pending.is_some() => {
                spans.push(Span::styled("…", theme.muted));
            }
            (None, None) => spans.push(Span::styled("-", theme.muted)),
        }
        spans.push(Span::styled(" · ", theme.muted));
        match &sh.ctx.ledger_url {
            Some(u) => spans.push(Span::styled(u.clone(), theme.base)),
            None => spans.push(Span::styled("no ledger URL", theme.status_err)),
        }
        spans.push(Span::styled(" · ", theme.muted));
        if sh.ctx.has_token {
            spans.push(Span::styled("JWT configured", theme.status_ok));
        } else {
            spans.push(Span::styled("no JWT", theme.status_err));
        }
        if sh.ctx.read_only {
            spans.push(Span::styled(" · ", theme.muted));
            spans.push(Span::styled(READ_ONLY_TEXT, theme.status_warn));
        }
        // Sanitize and cut each span to what is left of the row.
        let mut left = usize::from(area.width);
        let mut out = Vec::new();
        for s in spans {
            if left == 0 {
                break;
            }
            let t = safe_line(&s.content, left).into_owned();
            left = left.saturating_sub(t.width());
            out.push(Span::styled(t, s.style));
        }
        put(area, 0, buf, &Line::from(out));
    }

    fn render_tabs(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let mut spans = Vec::new();
        for (i, s) in Section::ALL.iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled("│", theme.border));
            }
            let style = if *s == self.section {
                theme.tab_active
            } else {
                theme.tab_inactive
            };
            spans.push(Span::styled(format!(" {} ", s.title()), style));
        }
        spans.push(Span::styled("  [ ] section", theme.muted));
        put(area, 1, buf, &Line::from(spans));
        if area.height > 2 {
            put(
                area,
                2,
                buf,
                &Line::styled("─".repeat(usize::from(area.width)), theme.border),
            );
        }
    }
}

impl Pane for LedgerPane {
    fn id(&self) -> PaneId {
        PaneId::Ledger
    }

    fn key_context(&self) -> KeyContext {
        self.current().key_context()
    }

    fn wants_raw_keys(&self) -> bool {
        self.current().wants_raw_keys()
    }

    fn sort_by_letter(&mut self, letter: char) -> bool {
        self.current_mut().sort_by_letter(letter)
    }

    fn sort_letters(&self) -> Option<String> {
        self.current().sort_letters()
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        self.current_mut().on_key(key, sh, out);
    }

    fn on_paste(&mut self, text: &str, _sh: &mut Shared, _out: &mut Out) {
        self.current_mut().on_paste(text);
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        // An open dialog takes every command first.
        let dialog = self.section == Section::Execute && self.execute.confirm_open();
        if !dialog {
            match cmd {
                Command::NextSection => {
                    self.section = self.section.step(true);
                    return true;
                }
                Command::PrevSection => {
                    self.section = self.section.step(false);
                    return true;
                }
                Command::Edit | Command::Delete | Command::Execute | Command::Refresh => {
                    if let Some(notes) = not_ready(sh) {
                        let text = notes
                            .iter()
                            .map(|n| n.text.as_str())
                            .collect::<Vec<_>>()
                            .join(" ");
                        out.warn(text);
                        return true;
                    }
                    if cmd == Command::Refresh {
                        self.fetch_end(sh, out);
                    }
                }
                _ => {}
            }
        }
        if self.section == Section::Trees {
            self.trees.ledger_end = sh.ledger_end.flatten();
            self.trees.template_refs.clone_from(&self.template_refs);
        }
        let used = self.current_mut().on_command(cmd, sh, out);
        used || cmd == Command::Refresh
    }

    fn on_tick(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        // Fetch the ledger end once by ourselves when nobody else (the Status pane) did.
        if sh.ledger_end.is_none() && !self.end_tried && self.end_pending.is_none() {
            self.fetch_end(sh, out);
        }
        false
    }

    fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        let (id, result) = (reply.id, &reply.result);
        // The ledger end itself is shared (`Shared::ledger_end`, from any pane's request: the
        // Status pane polls it too); the error of our own request is ours.
        if self.end_pending == Some(id) {
            self.end_pending = None;
            if let Err(e) = result {
                self.end_error = Some(e.clone());
            }
        }
        // Remember package ids and package-name template references from ledger answers.
        let mut seen: Vec<(&str, &str)> = Vec::new();
        let answer = result.as_ref().ok();
        if let Some(items) = answer.and_then(Response::answer::<Vec<JsGetUpdateTreesResponse>>) {
            for it in items {
                if let Update::TransactionTree(t) = &it.update {
                    for ev in t.events_by_id.values() {
                        match ev {
                            TreeEvent::CreatedTreeEvent(c) => {
                                seen.push((&c.template_id, &c.package_name));
                            }
                            TreeEvent::ExercisedTreeEvent(e) => {
                                seen.push((&e.template_id, &e.package_name));
                            }
                            TreeEvent::Unknown { .. } => {}
                        }
                    }
                }
            }
        } else if let Some(r) = answer.and_then(Response::answer::<ExecuteResponse>) {
            // The ledger moved on: show the new end.
            self.fetch_end(sh, out);
            seen.extend(r.transaction.events.iter().filter_map(|e| match e {
                Event::CreatedEvent(c) => Some((c.template_id.as_str(), c.package_name.as_str())),
                Event::ArchivedEvent(a) => Some((a.template_id.as_str(), a.package_name.as_str())),
                Event::ExercisedEvent(x) => Some((x.template_id.as_str(), x.package_name.as_str())),
                Event::Unknown { .. } => None,
            }));
        }
        self.note_templates(&seen);
        self.parties.on_fetched(reply, sh, out);
        self.delete.on_fetched(reply, sh, out);
        self.package.on_fetched(reply, sh, out);
        self.trees.on_fetched(reply, sh, out);
        self.execute.on_fetched(reply, sh, out);
    }

    fn on_file_read(
        &mut self,
        id: RequestId,
        path: &str,
        result: &Result<Vec<u8>, String>,
        _sh: &mut Shared,
        out: &mut Out,
    ) {
        self.execute.on_file_read(id, path, result, out);
    }

    fn on_written(&mut self, id: RequestId, result: &Result<usize, String>, out: &mut Out) -> bool {
        // The App's "saved N bytes" message is kept: the section only updates its own line (and
        // asks again when the file exists).
        self.package.on_written(id, result, out)
    }

    fn set_area(&mut self, area: Rect) {
        let rows = usize::from(area.height.saturating_sub(3));
        self.parties.set_rows(rows);
        self.delete.set_rows(rows);
        self.package.set_rows(rows);
        self.trees.set_rows(rows);
        self.trees.set_width(area.width);
        self.execute.set_rows(rows);
    }

    fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        if area.width == 0 || area.height == 0 {
            return;
        }
        self.render_header(area, buf, sh, theme);
        if area.height < 2 {
            return;
        }
        self.render_tabs(area, buf, theme);
        if area.height <= 3 {
            return;
        }
        let body = Rect::new(area.x, area.y + 3, area.width, area.height - 3);
        if let Some(notes) = not_ready(sh) {
            render_notes(&notes, body, buf, theme);
            return;
        }
        // The ledger refused us: say what to configure above the section.
        let mut body = body;
        if let Some(e) = &self.end_error
            && crate::ui::explain::is_auth_error(e)
        {
            let notes = explain_notes(e, None);
            let h = render_notes(&notes, body, buf, theme)
                .saturating_add(1)
                .min(body.height);
            body = Rect::new(body.x, body.y + h, body.width, body.height - h);
        }
        self.current().render(body, buf, sh, theme, focused);
    }

    fn hints(&self) -> Vec<Command> {
        // Only what can work: nothing but the sections without a ledger or a token, no
        // delete/execute (nor their editors) when read-only.
        if !self.usable {
            return vec![Command::NextSection, Command::PrevSection];
        }
        let mut hints = self.current().hints();
        if self.read_only {
            let state_changing = matches!(self.section, Section::DeleteUser | Section::Execute);
            hints.retain(|c| match c {
                Command::Delete | Command::Execute => false,
                Command::Edit => !state_changing,
                _ => true,
            });
        }
        hints
    }

    /// The section's selection or last answer, each field whole (the Trees section answers
    /// `v` itself, with the value under its cursor).
    fn fields(&self, sh: &Shared) -> Option<(String, Vec<crate::ui::fields::Field>)> {
        let fields = self.current().fields(sh);
        (!fields.is_empty()).then(|| (self.section.title().to_owned(), fields))
    }

    fn tab_count(&self, _sh: &Shared) -> Option<usize> {
        // The table of the section shown (the other sections are forms).
        match self.section {
            Section::Parties => self
                .parties
                .answered()
                .then(|| self.parties.party_ids().len()),
            Section::Trees => self.trees.answered().then(|| self.trees.items().len()),
            Section::DeleteUser | Section::Package | Section::Execute => None,
        }
    }
}
