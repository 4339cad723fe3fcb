//! Execute section: `POST /v2/interactive-submission/executeAndWaitForTransaction`. The request
//! body is loaded from a file (`Effect::ReadFile`) or typed / pasted into a multi-line editor,
//! checked locally (valid JSON that decodes as [`ExecuteRequest`], with the serde error path on
//! failure), reviewed in a confirmation dialog, then sent. The answer shows the transaction
//! (update id, offset, external transaction hash, paid traffic cost, events) or the
//! `JsCantonError` (code, cause, category, correlation id). Disabled in read-only mode.

mod draw;

use std::path::PathBuf;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use serde_json::Value;

use crate::api::json::decode_with_path;
use crate::api::ledger::{ExecuteRequest, JsTransaction};
use crate::config::keymap::KeyContext;
use crate::msg::Command;
use crate::msg::{Effect, Fetched, Request, RequestId, Response};
use crate::panes::{Out, Shared};
use crate::ui::form::{Field, Form, FormOutcome};
use crate::ui::format::group_thousands;
use crate::ui::scroll::ScrollState;
use crate::ui::text_input::TextInput;
use crate::ui::theme::Theme;

use super::SectionView;
use super::common::{
    READ_ONLY_TEXT, put, put_safe, read_only_notes, reading_line, refuse_read_only, render_notes,
};
use crate::ui::explain::{Note, Tone, explain_failure};
use crate::ui::load::accept;

use draw::{render_confirm, render_editor, render_result};

/// Which input of the editor has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditorFocus {
    Path,
    Body,
}

/// The editor: a form of the file path and the (multi-line) body.
#[derive(Debug)]
struct Editor(Form);

const PATH: usize = 0;
const BODY: usize = 1;

impl Editor {
    fn new(path: &str, body: &str, focus: EditorFocus) -> Self {
        let mut form = Form::new(vec![
            Field::text(
                "file",
                path,
                "path of a JSON request body, e.g. execute.json",
            ),
            Field::multi_line("body", body, "paste or type the JSON request body here"),
        ]);
        form.set_active(focus.index());
        Editor(form)
    }

    fn focus(&self) -> EditorFocus {
        if self.0.active() == PATH {
            EditorFocus::Path
        } else {
            EditorFocus::Body
        }
    }

    fn input(&self, focus: EditorFocus) -> Option<&TextInput> {
        self.0.get(focus.index()).map(|f| &f.input)
    }

    /// The untrimmed text of an input.
    fn text(&self, focus: EditorFocus) -> String {
        self.input(focus).map(TextInput::text).unwrap_or_default()
    }
}

impl EditorFocus {
    fn index(self) -> usize {
        match self {
            EditorFocus::Path => PATH,
            EditorFocus::Body => BODY,
        }
    }
}

/// The Execute section.
#[derive(Debug, Default)]
pub struct Execute {
    editor: Option<Editor>,
    /// The body text last loaded or edited.
    body_text: String,
    path: String,
    /// Where the body came from (`file x.json`, `editor`).
    source: String,
    read_pending: Option<(RequestId, String)>,
    /// The checked request, ready to send.
    request: Option<ExecuteRequest>,
    /// Why the body is not acceptable.
    problem: Option<Vec<Note>>,
    confirm: bool,
    pending: Option<RequestId>,
    result: Option<JsTransaction>,
    error: Option<Vec<Note>>,
    scroll: ScrollState,
}

/// Checks a request body: JSON syntax first (with line and column), then the shape of an
/// `ExecuteRequest` (with the JSON path of the first problem), then the fields that must not be
/// empty.
pub fn check_body(text: &str) -> Result<ExecuteRequest, Vec<Note>> {
    if text.trim().is_empty() {
        return Err(vec![Note::new(Tone::Err, "the request body is empty")]);
    }
    match serde_json::from_str::<Value>(text) {
        Err(e) => return Err(vec![Note::new(Tone::Err, format!("not valid JSON: {e}"))]),
        Ok(Value::Object(_)) => {}
        Ok(_) => {
            return Err(vec![Note::new(
                Tone::Err,
                "the request body must be a JSON object",
            )]);
        }
    }
    let req = decode_with_path::<ExecuteRequest>(text.as_bytes()).map_err(|(path, detail)| {
        vec![
            Note::new(
                Tone::Err,
                format!("invalid request body at {path}: {detail}"),
            ),
            Note::new(
                Tone::Muted,
                "An executeAndWaitForTransaction request needs: preparedTransaction, partySignatures.signatures[].{party, signatures[].{format, signature, signedBy, signingAlgorithmSpec}}, submissionId, hashingSchemeVersion",
            ),
        ]
    })?;
    let mut problems = Vec::new();
    if req.prepared_transaction.trim().is_empty() {
        problems.push(Note::new(
            Tone::Err,
            "preparedTransaction must not be empty",
        ));
    }
    if req.party_signatures.signatures.is_empty() {
        problems.push(Note::new(
            Tone::Err,
            "partySignatures.signatures: at least one party must sign",
        ));
    }
    if req.submission_id.trim().is_empty() {
        problems.push(Note::new(Tone::Err, "submissionId must not be empty"));
    }
    if problems.is_empty() {
        Ok(req)
    } else {
        Err(problems)
    }
}

impl Execute {
    /// The executed transaction.
    pub fn result(&self) -> Option<&JsTransaction> {
        self.result.as_ref()
    }

    /// Whether the confirmation dialog is open.
    pub fn confirm_open(&self) -> bool {
        self.confirm
    }

    /// Whether a checked request is ready to send.
    pub fn ready(&self) -> bool {
        self.request.is_some()
    }

    /// The notes of the last problem (body check or server error).
    pub fn problem_text(&self) -> String {
        self.problem
            .iter()
            .chain(self.error.iter())
            .flatten()
            .map(|n| n.text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn open_editor(&mut self, focus: EditorFocus) {
        self.editor = Some(Editor::new(&self.path, &self.body_text, focus));
    }

    /// Takes a body (from a file or the editor): checks it and opens the confirmation, or shows
    /// the problem in the editor.
    fn take_body(&mut self, text: String, source: String) {
        self.body_text = text;
        self.source = source;
        match check_body(&self.body_text) {
            Ok(req) => {
                self.request = Some(req);
                self.problem = None;
                self.editor = None;
                self.confirm = true;
            }
            Err(notes) => {
                self.request = None;
                self.problem = Some(notes);
                if self.editor.is_none() {
                    self.open_editor(EditorFocus::Body);
                }
                if let Some(ed) = &mut self.editor {
                    ed.0.set_text(BODY, &self.body_text);
                    ed.0.set_active(BODY);
                }
            }
        }
    }

    fn send(&mut self, sh: &mut Shared, out: &mut Out) {
        self.confirm = false;
        if sh.ctx.read_only {
            out.warn(READ_ONLY_TEXT);
            return;
        }
        let Some(req) = self.request.take() else {
            return;
        };
        self.error = None;
        self.result = None;
        self.pending =
            Some(out.fetch(sh, Request::api(crate::api::ledger::execute_and_wait(&req))));
    }

    /// A file read of the pane finished: the body file the editor asked for, if it is that one.
    pub(super) fn on_file_read(
        &mut self,
        id: RequestId,
        path: &str,
        result: &Result<Vec<u8>, String>,
        out: &mut Out,
    ) {
        if self.read_pending.as_ref().map(|(i, _)| *i) != Some(id) {
            return;
        }
        self.read_pending = None;
        match result {
            Ok(bytes) => {
                if let Ok(text) = String::from_utf8(bytes.clone()) {
                    out.info(format!("read {} bytes from {path}", bytes.len()));
                    self.take_body(text, format!("file {path}"));
                } else {
                    let msg = format!("{path} is not UTF-8 text");
                    if let Some(ed) = &mut self.editor {
                        ed.0.set_error(PATH, msg.clone());
                    }
                    out.error(msg);
                }
            }
            Err(e) => {
                let msg = format!("cannot read {path}: {e}");
                if let Some(ed) = &mut self.editor {
                    ed.0.set_error(PATH, msg.clone());
                }
                out.error(msg);
            }
        }
    }
}

impl SectionView for Execute {
    fn wants_raw_keys(&self) -> bool {
        self.editor.is_some()
    }

    fn key_context(&self) -> KeyContext {
        if self.editor.is_some() {
            KeyContext::TextInput
        } else if self.confirm {
            KeyContext::Overlay
        } else {
            KeyContext::List
        }
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        let Some(ed) = &mut self.editor else { return };
        let focus = ed.focus();
        let before = ed.text(EditorFocus::Body);
        match ed.0.handle_key(key) {
            FormOutcome::Submitted => match focus {
                EditorFocus::Path => {
                    let path = ed.0.value(PATH);
                    if path.is_empty() {
                        ed.0.set_error(PATH, "name a file, or Tab to the body and paste it");
                        return;
                    }
                    self.path.clone_from(&path);
                    let id = out.next_id(sh);
                    out.effects.push(Effect::ReadFile {
                        id,
                        path: PathBuf::from(&path),
                    });
                    self.read_pending = Some((id, path));
                }
                EditorFocus::Body => {
                    let text = ed.text(EditorFocus::Body);
                    self.take_body(text, "editor".into());
                }
            },
            FormOutcome::Cancelled => {
                self.body_text = ed.text(EditorFocus::Body);
                self.path = ed.text(EditorFocus::Path);
                self.editor = None;
            }
            FormOutcome::Consumed => {
                // The shown problem was about the old text.
                if ed.text(EditorFocus::Body) != before {
                    self.problem = None;
                }
            }
        }
    }

    fn on_paste(&mut self, text: &str) {
        if let Some(ed) = &mut self.editor {
            ed.0.paste(text);
        }
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        if self.confirm {
            match cmd {
                // An irreversible action: confirmed with the execute key, never with the Enter
                // that loaded the file (a held or repeated Enter must not send it).
                Command::Execute => self.send(sh, out),
                Command::Confirm | Command::Select => {
                    out.info("press x (execute) to send it, Esc to cancel");
                }
                Command::Cancel | Command::Back => {
                    self.confirm = false;
                    out.info("execute cancelled");
                }
                _ => {}
            }
            return true;
        }
        if matches!(cmd, Command::Execute | Command::Edit) && self.pending.is_some() {
            out.warn("an execute is in flight: wait for its result");
            return true;
        }
        match cmd {
            Command::Execute => {
                if refuse_read_only(sh, out) {
                    return true;
                }
                if self.request.is_some() {
                    self.confirm = true;
                } else {
                    self.open_editor(EditorFocus::Path);
                }
                true
            }
            Command::Edit => {
                if !refuse_read_only(sh, out) {
                    self.open_editor(EditorFocus::Body);
                }
                true
            }
            Command::Copy => {
                if let Some(t) = &self.result {
                    out.copy("update id", t.update_id.clone());
                }
                true
            }
            _ => self.scroll.navigate(cmd),
        }
    }

    fn on_fetched(&mut self, reply: &Fetched, _sh: &mut Shared, out: &mut Out) {
        let answer = accept(
            &mut self.pending,
            reply,
            "executeAndWaitForTransaction",
            Response::answer::<crate::api::ledger::ExecuteResponse>,
        );
        match answer {
            None => {}
            Some(Ok(r)) => {
                let t = r.transaction.clone();
                out.info(format!(
                    "executed: update {} at offset {}",
                    t.update_id, t.offset
                ));
                self.scroll = ScrollState::new(t.events.len());
                self.result = Some(t);
                self.error = None;
            }
            Some(Err(failure)) => {
                let mut notes = vec![Note::new(Tone::Err, "execute failed:")];
                notes.extend(explain_failure(&failure, None));
                self.error = Some(notes);
                out.error(format!("execute: {failure}"));
            }
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let w = area.width;
        if sh.ctx.read_only {
            let notes = read_only_notes("prepared transactions cannot be executed");
            render_notes(&notes, area, buf, theme);
            return;
        }
        if let Some(ed) = &self.editor {
            render_editor(self, ed, area, buf, theme);
            return;
        }
        let intro = [Note::new(
            Tone::Muted,
            "POST /v2/interactive-submission/executeAndWaitForTransaction: x loads a request body \
             from a file, i edits or pastes it; it is checked, then you confirm before it is sent.",
        )];
        let mut y = render_notes(&intro, area, buf, theme) + 1;
        let rest = |y: u16| {
            Rect::new(
                area.x,
                area.y + y.min(area.height),
                w,
                area.height - y.min(area.height),
            )
        };
        if let Some((_, p)) = &self.read_pending {
            reading_line(area, y, buf, p, theme);
            y += 1;
        }
        if let Some(p) = &self.problem {
            y += render_notes(p, rest(y), buf, theme) + 1;
        } else if let Some(r) = &self.request {
            let line = format!(
                "ready: submission {} from {} ({} bytes) · x reviews and executes",
                r.submission_id,
                self.source,
                group_thousands(self.body_text.len())
            );
            put_safe(area, y, buf, &line, theme.status_ok);
            y += 2;
        }
        if self.pending.is_some() {
            put(
                area,
                y,
                buf,
                &Line::styled("executing and waiting for the transaction…", theme.muted),
            );
            y += 1;
        }
        if let Some(err) = &self.error {
            render_notes(err, rest(y), buf, theme);
        } else if let Some(t) = &self.result {
            render_result(self, t, rest(y), buf, theme, focused);
        }
        if self.confirm
            && let Some(r) = &self.request
        {
            render_confirm(r, sh, area, buf, theme);
        }
    }

    /// The request ready to send and the executed transaction, each field whole.
    fn fields(&self, _sh: &Shared) -> Vec<crate::ui::fields::Field> {
        use crate::ui::fields::Field as Whole;
        let mut v = Vec::new();
        if let Some(r) = &self.request {
            v.push(Whole::new("submission id", r.submission_id.as_str()));
            v.push(Whole::new("from", self.source.as_str()));
        }
        if let Some(t) = &self.result {
            v.extend(draw::result_fields(self, t));
        }
        v
    }

    fn hints(&self) -> Vec<Command> {
        if self.editor.is_some() {
            // Enter loads the file or adds a line: the editor's own hint row says which.
            vec![Command::Cancel]
        } else if self.confirm {
            vec![Command::Execute, Command::Cancel]
        } else {
            vec![
                Command::Execute,
                Command::Edit,
                Command::Copy,
                Command::NextSection,
            ]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_checked_with_paths() {
        let e = check_body("{").expect_err("syntax");
        assert!(e[0].text.contains("not valid JSON"), "{e:?}");
        let e = check_body("[]").expect_err("shape");
        assert!(e[0].text.contains("JSON object"));
        let e = check_body(
            r#"{"preparedTransaction": "AA==", "partySignatures": {"signatures": [{"party": 1}]}}"#,
        )
        .expect_err("path");
        assert!(
            e[0].text.contains("partySignatures.signatures[0].party"),
            "{e:?}"
        );
        let ok = r#"{"preparedTransaction": "AA==", "partySignatures": {"signatures": [{"party": "a::1",
            "signatures": [{"format": "SIGNATURE_FORMAT_RAW", "signature": "AQ==", "signedBy": "x",
            "signingAlgorithmSpec": "SIGNING_ALGORITHM_SPEC_ED25519"}]}]}, "submissionId": "s",
            "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2"}"#;
        assert!(check_body(ok).is_ok());
        let e = check_body(&ok.replace("\"s\"", "\"\"")).expect_err("empty id");
        assert!(e[0].text.contains("submissionId"));
    }
}
