//! The History pane's export dialog (file path + format) and its progress line. The encoding
//! itself lives in [`crate::model::export`]; the History pane owns the dialog and the running
//! job and drives it on ticks.
//!
//! ```text
//! ┌Export 1,234 updates──────────────────────────────────────────┐
//! │File    cantonscope-export-20261122T104107Z.jsonl             │
//! │Format  ● JSON Lines  ○ CSV                                   │
//! │Rows    12 matching choice:Transfer, oldest first             │
//! │                                                              │
//! │Enter export · Tab/↑/↓ ^T format · ←/→ in the path · Esc cancel│
//! └──────────────────────────────────────────────────────────────┘
//! exporting 15% ▕███░░░░░░░░░░░░░▏ 150,000 / 1,000,000 rows · Esc cancel · → out.csv
//! ```

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::model::export::{
    ExportFormat, ExportJob, ExportSnapshot, check_path, default_file_name,
};
use crate::msg::Effect;
use crate::ui::form::{key_line, progress_bar};
use crate::ui::format::group_thousands;
use crate::ui::layout::{draw_overlay, overlay_block};
use crate::ui::safe::safe_line;
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

use super::{AppContext, Out, Shared};

/// What a key did to the dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogOutcome {
    /// Enter: start the export (see [`ExportDialog::into_job`]).
    Submit,
    /// Esc: close the dialog.
    Cancel,
    /// Something visible changed.
    Changed,
    /// Nothing happened.
    Nothing,
}

/// The file path and export format of a dialog, shared by `e` ([`ExportDialog`]) and `X`
/// ([`RangeDialog`]) so both behave the same: the format follows a known extension typed or
/// pasted into the path (`.csv` → CSV, `.jsonl` / `.ndjson` / `.json` → JSON Lines), and
/// [`PathFormat::toggle`] (Ctrl-T in both dialogs) switches it, rewriting such an extension.
#[derive(Debug, Clone)]
pub struct PathFormat {
    input: TextInput,
    format: ExportFormat,
}

impl PathFormat {
    /// A path input holding `name` (its extension, if known, sets the format; JSON Lines
    /// otherwise).
    pub fn new(placeholder: &str, name: &str) -> PathFormat {
        let mut input = TextInput::single_line()
            .with_placeholder(placeholder)
            .with_text(name);
        input.move_to_end();
        PathFormat {
            format: ExportFormat::from_path(name).unwrap_or(ExportFormat::JsonLines),
            input,
        }
    }

    /// The path typed so far.
    pub fn path(&self) -> String {
        self.input.text()
    }

    /// The chosen format.
    pub fn format(&self) -> ExportFormat {
        self.format
    }

    /// The path input (rendering, validation).
    pub fn input(&self) -> &TextInput {
        &self.input
    }

    /// The path input, mutably.
    pub fn input_mut(&mut self) -> &mut TextInput {
        &mut self.input
    }

    /// Replaces the path (the format follows a known extension).
    pub fn set_path(&mut self, text: &str) {
        self.input.set_text(text);
        self.input.move_to_end();
        self.follow_extension();
    }

    /// Handles a key: Ctrl-T switches the format, other keys edit the path (the format follows
    /// its extension). Keys the input does not use come back as `Ignored`.
    pub fn handle_key(&mut self, key: &KeyEvent) -> InputOutcome {
        if is_toggle_key(key) {
            self.toggle();
            return InputOutcome::Changed;
        }
        let outcome = self.input.handle_key(key);
        if outcome == InputOutcome::Changed {
            self.follow_extension();
        }
        outcome
    }

    /// Pasted text goes into the path.
    pub fn paste(&mut self, text: &str) -> bool {
        let changed = self.input.insert_str(text);
        if changed {
            self.follow_extension();
        }
        changed
    }

    /// Switches the format; a known extension of the path follows.
    pub fn toggle(&mut self) {
        self.format = self.format.toggled();
        let path = self.input.text();
        let new = self.format.apply_to_path(&path);
        if new != path {
            self.input.set_text(&new);
        }
    }

    /// Ctrl-T alone (the dialog's other fields pass keys here first): `Changed` when it
    /// switched the format, `Ignored` for every other key.
    pub fn handle_toggle_key(&mut self, key: &KeyEvent) -> InputOutcome {
        if is_toggle_key(key) {
            self.toggle();
            InputOutcome::Changed
        } else {
            InputOutcome::Ignored
        }
    }

    fn follow_extension(&mut self) {
        if let Some(f) = ExportFormat::from_path(&self.input.text()) {
            self.format = f;
        }
    }

    /// The trimmed path when it can be written to, else the message why not (also shown under
    /// the input).
    pub fn checked_path(&mut self) -> Result<PathBuf, String> {
        let path = self.input.text().trim().to_string();
        if let Err(e) = check_path(&path) {
            self.input.set_validation(Some(e.clone()));
            return Err(e);
        }
        Ok(PathBuf::from(path))
    }

    /// Draws the "Format" row's value: both formats, the chosen one marked, and `hint`.
    /// Returns the width of the formats (without the hint).
    pub fn render_format(
        &self,
        x: u16,
        y: u16,
        width: u16,
        hint: &str,
        buf: &mut Buffer,
        theme: &Theme,
    ) -> u16 {
        let mut spans = Vec::new();
        for (i, f) in [ExportFormat::JsonLines, ExportFormat::Csv]
            .into_iter()
            .enumerate()
        {
            let (mark, style) = if f == self.format {
                ("● ", theme.accent)
            } else {
                ("○ ", theme.muted)
            };
            if i > 0 {
                spans.push(Span::raw("  "));
            }
            spans.push(Span::styled(format!("{mark}{}", f.label()), style));
        }
        let options = u16::try_from(Line::from(spans.clone()).width()).unwrap_or(u16::MAX);
        spans.push(Span::styled(format!("  ({hint})"), theme.muted));
        buf.set_line(x, y, &Line::from(spans), width);
        options.min(width)
    }
}

/// The path an export dialog starts with: `cantonscope-<what>-<time>` in the format of the
/// profile's last export (JSON Lines before the first), in the profile's `export_dir` (else
/// the current directory, as a bare file name).
pub fn start_path(ctx: &AppContext, now: i64, what: &str) -> String {
    let format = ctx.state.export_format().unwrap_or(ExportFormat::JsonLines);
    let name = default_file_name(now, format).replacen("export", what, 1);
    match &ctx.export_dir {
        Some(dir) => dir.join(name).display().to_string(),
        None => name,
    }
}

/// An export in `format` started: it is the profile's last export format from now on (the
/// state file replaced when that changed).
pub fn remember_format(sh: &mut Shared, format: ExportFormat, out: &mut Out) {
    if sh.ctx.state.set_export_format(format)
        && let Some(path) = &sh.ctx.state_file
    {
        out.effects.push(Effect::KeepFile {
            path: path.clone(),
            contents: sh.ctx.state.to_bytes(),
        });
    }
}

/// Ctrl-T: the key switching the format in both export dialogs.
fn is_toggle_key(key: &KeyEvent) -> bool {
    key.kind != KeyEventKind::Release
        && key.modifiers.contains(KeyModifiers::CONTROL)
        && matches!(key.code, KeyCode::Char('t' | 'T'))
}

/// The export dialog: the rows are frozen when it opens.
#[derive(Debug, Clone)]
pub struct ExportDialog {
    file: PathFormat,
    snapshot: ExportSnapshot,
}

const LABEL_W: u16 = 8;

impl ExportDialog {
    /// A dialog for `snapshot`, starting at `path` (see [`start_path`]).
    pub fn new(snapshot: ExportSnapshot, path: &str) -> ExportDialog {
        let file = PathFormat::new("file path (.jsonl or .csv)", path);
        ExportDialog { file, snapshot }
    }

    /// The path typed so far.
    pub fn path(&self) -> String {
        self.file.path()
    }

    /// The chosen format.
    pub fn format(&self) -> ExportFormat {
        self.file.format()
    }

    /// Rows the export will write.
    pub fn rows(&self) -> usize {
        self.snapshot.len()
    }

    /// The validation message under the path, if any.
    pub fn validation(&self) -> Option<&str> {
        self.file.input().validation()
    }

    /// Shows `message` under the path (e.g. that the file exists).
    pub fn set_validation(&mut self, message: &str) {
        self.file
            .input_mut()
            .set_validation(Some(message.to_owned()));
    }

    /// Handles a key: the path and format ([`PathFormat`]) get it first (Ctrl-T switches the
    /// format, ←/→ move in the path: the cursor never leaves it, as the dialog has no other
    /// field); with no other field to go to, Tab / Shift-Tab / ↑ / ↓ switch the format too.
    pub fn handle_key(&mut self, key: &KeyEvent) -> DialogOutcome {
        match self.file.handle_key(key) {
            InputOutcome::Submitted(_) => DialogOutcome::Submit,
            InputOutcome::Cancelled => DialogOutcome::Cancel,
            InputOutcome::Changed | InputOutcome::Consumed => DialogOutcome::Changed,
            InputOutcome::Ignored => match key.code {
                KeyCode::Tab | KeyCode::BackTab | KeyCode::Up | KeyCode::Down => {
                    self.toggle_format();
                    DialogOutcome::Changed
                }
                _ => DialogOutcome::Nothing,
            },
        }
    }

    /// Pasted text goes into the path.
    pub fn paste(&mut self, text: &str) -> bool {
        self.file.paste(text)
    }

    /// Switches the format; a known extension of the path follows.
    pub fn toggle_format(&mut self) {
        self.file.toggle();
    }

    /// The job to run, or the dialog back with a validation message when the path cannot be
    /// used.
    pub fn into_job(mut self) -> Result<ExportJob, Box<ExportDialog>> {
        let Ok(path) = self.file.checked_path() else {
            return Err(Box::new(self));
        };
        let format = self.file.format();
        Ok(ExportJob::new(self.snapshot, path, format))
    }

    /// Rows the dialog needs inside `area` (borders included).
    fn height(&self) -> u16 {
        2 + self.file.input().desired_height().clamp(1, 2) + 4
    }

    /// Draws the dialog centred in `area` (the pane).
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.width < 4 || area.height < 3 {
            return;
        }
        let w = area.width.saturating_sub(4).clamp(area.width.min(20), 76);
        let rect = crate::ui::layout::centered(area, w, self.height());
        let rows = self.rows();
        let noun = if rows == 1 { "update" } else { "updates" };
        let title = format!(" Export {} {noun} ", group_thousands(rows));
        let title = safe_line(&title, usize::from(rect.width.saturating_sub(2))).into_owned();
        let Some(inner) = draw_overlay(rect, buf, overlay_block(title, theme)) else {
            return;
        };
        let bottom = inner.bottom();
        let mut y = inner.y;
        let label_w = LABEL_W.min(inner.width);
        let field_x = inner.x + label_w;
        let field_w = inner.width - label_w;

        // File
        buf.set_stringn(inner.x, y, "File", usize::from(label_w), theme.muted);
        let input_h = self
            .file
            .input()
            .desired_height()
            .clamp(1, 2)
            .min(bottom - y);
        self.file
            .input()
            .render(Rect::new(field_x, y, field_w, input_h), buf, theme, true);
        y += input_h;
        if y >= bottom {
            return;
        }

        // Format
        buf.set_stringn(inner.x, y, "Format", usize::from(label_w), theme.muted);
        self.file
            .render_format(field_x, y, field_w, "Tab or Ctrl-T switches", buf, theme);
        y += 1;
        if y >= bottom {
            return;
        }

        // Rows
        buf.set_stringn(inner.x, y, "Rows", usize::from(label_w), theme.muted);
        let rows = group_thousands(self.rows());
        let line = match &self.snapshot.filter {
            Some(f) => Line::from(vec![
                Span::raw(format!("{rows} matching ")),
                Span::styled(
                    safe_line(f, usize::from(field_w) / 2).into_owned(),
                    theme.accent,
                ),
                Span::styled(", oldest first", theme.muted),
            ]),
            None => Line::from(vec![
                Span::raw(format!("{rows} loaded")),
                Span::styled(", oldest first", theme.muted),
            ]),
        };
        buf.set_line(field_x, y, &line, field_w);

        // Hints on the last row.
        if bottom - y >= 2 {
            let hints = key_line(
                &[
                    ("Enter", "export"),
                    ("Tab/↑/↓ ^T", "format"),
                    ("←/→", "in the path"),
                    ("Esc", "cancel"),
                ],
                theme,
            );
            buf.set_line(inner.x, bottom - 1, &hints, inner.width);
        }
    }
}

/// Draws the one-line progress of a running export.
pub fn render_progress(job: &ExportJob, area: Rect, buf: &mut Buffer, theme: &Theme) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let pct = job.percent();
    let bar_w: usize = if area.width >= 70 { 16 } else { 8 };
    let bar = progress_bar(pct, bar_w);
    let path = job.path.display().to_string();
    let line = Line::from(vec![
        Span::styled(format!("exporting {pct}% "), theme.accent),
        Span::styled(bar, theme.gauge),
        Span::raw(format!(
            " {} / {} rows",
            group_thousands(job.done()),
            group_thousands(job.total())
        )),
        Span::styled(" · Esc cancel · → ", theme.muted),
        Span::styled(
            safe_line(&path, usize::from(area.width)).into_owned(),
            theme.muted,
        ),
    ]);
    buf.set_line(area.x, area.y, &line, area.width);
}

/// The dialog of an export from the server: file and format (the same [`PathFormat`] as `e`'s
/// dialog: the format follows a typed extension, Ctrl-T switches it from any line), from,
/// until. Tab / ↑ / ↓ move between the lines, the Format line included: there ←/→ or Space
/// switch the format. Times as `:time` takes them (RFC 3339, `-2h`, `14:00`, `yesterday
/// 14:00`) or `now`.
///
/// ```text
/// ┌Export from the server───────────────────────────────────────┐
/// │File    cantonscope-range-20261122T104107Z.jsonl             │
/// │Format  ● JSON Lines  ○ CSV  (←/→ or Space here, Ctrl-T)     │
/// │From    -1h                                                  │
/// │Until   now                                                  │
/// │        streamed page by page · run again to resume          │
/// │Enter export · Tab/↑/↓ line · ←/→ ^T format · Esc cancel     │
/// └─────────────────────────────────────────────────────────────┘
/// ```
#[derive(Debug, Clone)]
pub struct RangeDialog {
    file: PathFormat,
    /// From, until.
    times: [TextInput; 2],
    /// The line with the cursor: [`FILE_ROW`], [`FORMAT_ROW`], then From and Until.
    focus: usize,
}

/// The dialog's lines with a cursor: file, format, from, until.
const FILE_ROW: usize = 0;
const FORMAT_ROW: usize = 1;
const ROWS: usize = 4;

/// The line of text field `i` (0 file, 1 from, 2 until).
fn row_of_field(i: usize) -> usize {
    if i == 0 { FILE_ROW } else { i + 1 }
}

/// What a range dialog asks for, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeAsk {
    pub path: PathBuf,
    pub format: ExportFormat,
    /// µs since the epoch, inclusive.
    pub from: i64,
    pub until: i64,
}

const TIME_LABELS: [&str; 2] = ["From", "Until"];

impl RangeDialog {
    /// A dialog starting at `path` (see [`start_path`]) and the last hour.
    pub fn new(path: &str) -> RangeDialog {
        let file = PathFormat::new("file path (.jsonl or .csv); the same file resumes", path);
        let mut from = TextInput::single_line()
            .with_placeholder("RFC 3339, -2h, 14:00")
            .with_text("-1h");
        from.move_to_end();
        let mut until = TextInput::single_line()
            .with_placeholder("RFC 3339, -1h, now")
            .with_text("now");
        until.move_to_end();
        RangeDialog {
            file,
            times: [from, until],
            focus: 0,
        }
    }

    /// The text of a field (0 file, 1 from, 2 until).
    pub fn field(&self, i: usize) -> String {
        match i {
            0 => self.file.path(),
            _ => self
                .times
                .get(i - 1)
                .map(TextInput::text)
                .unwrap_or_default(),
        }
    }

    /// Sets a field's text (tests, paste of a whole value); the format follows a file's
    /// extension.
    pub fn set_field(&mut self, i: usize, text: &str) {
        if i == 0 {
            self.file.set_path(text);
        } else if let Some(f) = self.times.get_mut(i - 1) {
            f.set_text(text);
            f.move_to_end();
        }
    }

    /// The chosen format.
    pub fn format(&self) -> ExportFormat {
        self.file.format()
    }

    /// Switches the format (as Ctrl-T); a known extension of the file follows.
    pub fn toggle_format(&mut self) {
        self.file.toggle();
    }

    fn input(&self, i: usize) -> Option<&TextInput> {
        match i {
            0 => Some(self.file.input()),
            _ => self.times.get(i - 1),
        }
    }

    /// Whether the cursor is on the Format line (where ←/→ and Space switch the format).
    pub fn is_format_focused(&self) -> bool {
        self.focus == FORMAT_ROW
    }

    /// Handles a key: Ctrl-T switches the format whichever line has the cursor; on the Format
    /// line ←/→ and Space switch it too; a text field gets the other keys; Tab / Shift-Tab /
    /// ↑ / ↓ move between the lines.
    pub fn handle_key(&mut self, key: &KeyEvent) -> DialogOutcome {
        let outcome = if self.focus == FILE_ROW {
            self.file.handle_key(key)
        } else if self.focus == FORMAT_ROW {
            if key.kind == KeyEventKind::Release {
                return DialogOutcome::Nothing;
            }
            if let InputOutcome::Changed = self.file.handle_toggle_key(key) {
                return DialogOutcome::Changed;
            }
            let plain = !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
            match key.code {
                KeyCode::Left | KeyCode::Right | KeyCode::Char(' ') if plain => {
                    self.file.toggle();
                    return DialogOutcome::Changed;
                }
                KeyCode::Enter => return DialogOutcome::Submit,
                KeyCode::Esc => return DialogOutcome::Cancel,
                _ => InputOutcome::Ignored,
            }
        } else if let Some(input) = self.times.get_mut(self.focus - 2) {
            // The format key works from the time fields too (the shared component handles it).
            if let InputOutcome::Changed = self.file.handle_toggle_key(key) {
                return DialogOutcome::Changed;
            }
            input.handle_key(key)
        } else {
            return DialogOutcome::Nothing;
        };
        match outcome {
            InputOutcome::Submitted(_) => DialogOutcome::Submit,
            InputOutcome::Cancelled => DialogOutcome::Cancel,
            InputOutcome::Changed | InputOutcome::Consumed => DialogOutcome::Changed,
            InputOutcome::Ignored if key.kind == KeyEventKind::Release => DialogOutcome::Nothing,
            InputOutcome::Ignored => match key.code {
                KeyCode::Tab | KeyCode::Down => {
                    self.focus = (self.focus + 1) % ROWS;
                    DialogOutcome::Changed
                }
                KeyCode::BackTab | KeyCode::Up => {
                    self.focus = (self.focus + ROWS - 1) % ROWS;
                    DialogOutcome::Changed
                }
                _ => DialogOutcome::Nothing,
            },
        }
    }

    /// Pasted text goes into the focused field (nothing on the Format line).
    pub fn paste(&mut self, text: &str) -> bool {
        match self.focus {
            FILE_ROW => self.file.paste(text),
            FORMAT_ROW => false,
            row => self
                .times
                .get_mut(row - 2)
                .is_some_and(|f| f.insert_str(text)),
        }
    }

    /// The export asked for, or the dialog back with a message on the field that is wrong.
    /// `when` reads a time as typed (`None`: not a time).
    pub fn resolve(
        mut self,
        when: impl Fn(&str) -> Option<i64>,
    ) -> Result<RangeAsk, Box<RangeDialog>> {
        let path = match self.file.checked_path() {
            Ok(p) => p,
            Err(e) => return Err(self.invalid(0, e)),
        };
        let Some(from) = when(&self.field(1)) else {
            return Err(self.invalid(1, "not a time (RFC 3339, -2h, 14:00)".into()));
        };
        let Some(until) = when(&self.field(2)) else {
            return Err(self.invalid(2, "not a time (RFC 3339, -1h, now)".into()));
        };
        if until < from {
            return Err(self.invalid(2, "until is before from".into()));
        }
        Ok(RangeAsk {
            format: self.file.format(),
            path,
            from,
            until,
        })
    }

    fn invalid(mut self, i: usize, message: String) -> Box<RangeDialog> {
        self.set_error(i, message);
        Box::new(self)
    }

    /// Focuses field `i` (0 file, 1 from, 2 until) and shows `message` for it.
    pub fn set_error(&mut self, i: usize, message: impl Into<String>) {
        self.focus = row_of_field(i);
        let input = match i {
            0 => Some(self.file.input_mut()),
            _ => self.times.get_mut(i - 1),
        };
        if let Some(f) = input {
            f.set_validation(Some(message.into()));
        }
    }

    /// Draws the dialog centred in `area` (the pane).
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.width < 4 || area.height < 3 {
            return;
        }
        let w = area.width.saturating_sub(4).clamp(area.width.min(20), 76);
        let rect = crate::ui::layout::centered(area, w, 8);
        let block = crate::ui::layout::overlay_block(" Export from the server ", theme);
        let Some(inner) = crate::ui::layout::draw_overlay(rect, buf, block) else {
            return;
        };
        if inner.width <= LABEL_W {
            return;
        }
        let field_w = inner.width - LABEL_W;
        let mut y = inner.y;
        let labels = ["File", "Format", TIME_LABELS[0], TIME_LABELS[1]];
        for (row, label) in labels.iter().enumerate() {
            if y >= inner.bottom() {
                return;
            }
            buf.set_stringn(inner.x, y, label, usize::from(LABEL_W), theme.muted);
            let x = inner.x + LABEL_W;
            if row == FORMAT_ROW {
                let hint = if self.is_format_focused() {
                    "←/→ or Space switch"
                } else {
                    "Ctrl-T switches"
                };
                let w = self.file.render_format(x, y, field_w, hint, buf, theme);
                if self.is_format_focused() {
                    buf.set_style(Rect::new(x, y, w, 1), theme.selection);
                }
            } else {
                let i = if row == FILE_ROW { 0 } else { row - 1 };
                if let Some(input) = self.input(i) {
                    input.render(Rect::new(x, y, field_w, 1), buf, theme, row == self.focus);
                }
            }
            y += 1;
        }
        let note = match (0..3).find_map(|i| self.input(i).and_then(TextInput::validation)) {
            Some(v) => Line::styled(
                safe_line(v, usize::from(field_w)).into_owned(),
                theme.status_err,
            ),
            None => Line::styled("streamed page by page · the same file resumes", theme.muted),
        };
        if y < inner.bottom() {
            buf.set_line(inner.x + LABEL_W, y, &note, field_w);
            y += 1;
        }
        if y < inner.bottom() {
            let hints = key_line(
                &[
                    ("Enter", "export"),
                    ("Tab/↑/↓", "line"),
                    ("←/→ ^T", "format"),
                    ("Esc", "cancel"),
                ],
                theme,
            );
            buf.set_line(inner.x, y, &hints, inner.width);
        }
    }
}
