//! Building blocks of the query panes (Network, Proxy): the parameter [`Form`] (labelled
//! single-line [`TextInput`]s, one active at a time, with Tab completion from known values such as
//! the parties seen in the history), the section tab row, the [`Load`] state of a request, the
//! explanation of API errors, and wrapped paragraphs of server text.
//!
//! ```text
//! Party      alice::1220ab█
//! Nonce      3
//! ↵ run · Tab complete (4 matches) · ↑↓ field · Esc cancel
//! ```
//!
//! Form keys (raw, while the form is open): Enter submits (the owner validates and may put a
//! message on a field with [`Form::set_error`], keeping the form open), Esc cancels, Tab
//! completes the active field (cycling through the matches) or, when nothing matches, moves to
//! the next field, Shift-Tab / ↑ / ↓ move between fields.

use std::cmp::Ordering;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::api::ApiError;
use crate::model::summary::short_party;
use crate::ui::layout::wrap_text;
pub use crate::ui::load::Load;
use crate::ui::safe::{safe_line, sanitize, sanitize_multiline};
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

/// Most completion candidates kept per field.
const MAX_CANDIDATES: usize = 5_000;

/// One labelled input.
#[derive(Debug, Clone)]
pub struct Field {
    pub label: &'static str,
    pub input: TextInput,
    /// Values Tab completes to.
    pub candidates: Vec<String>,
}

/// What a key did to the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormOutcome {
    /// Enter: the owner reads the values and validates.
    Submitted,
    /// Esc.
    Cancelled,
    /// Anything else (text changed, field moved, completion).
    Consumed,
}

/// A running Tab completion: the text it started from and the match shown.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cycle {
    typed: String,
    index: usize,
}

/// The form.
#[derive(Debug, Clone)]
pub struct Form {
    fields: Vec<Field>,
    active: usize,
    cycle: Option<Cycle>,
}

impl Form {
    /// A form over `fields` (at least one), the first active.
    pub fn new(fields: Vec<Field>) -> Self {
        Form {
            fields,
            active: 0,
            cycle: None,
        }
    }

    /// A field with `label`, starting with `text`, showing `placeholder` while empty.
    pub fn field(label: &'static str, text: &str, placeholder: &str) -> Field {
        Field {
            label,
            input: TextInput::single_line()
                .with_placeholder(placeholder)
                .with_text(text),
            candidates: Vec::new(),
        }
    }

    /// Adds completion candidates to a field (deduplicated, sorted, bounded).
    pub fn with_candidates<'a>(
        mut field: Field,
        candidates: impl IntoIterator<Item = &'a str>,
    ) -> Field {
        let mut c: Vec<String> = candidates
            .into_iter()
            .filter(|s| !s.is_empty())
            .take(MAX_CANDIDATES)
            .map(str::to_string)
            .collect();
        c.sort();
        c.dedup();
        field.candidates = c;
        field
    }

    /// The text of field `i` (trimmed).
    pub fn value(&self, i: usize) -> String {
        self.fields
            .get(i)
            .map(|f| f.input.text().trim().to_string())
            .unwrap_or_default()
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

    /// Makes field `i` active and shows `message` under it.
    pub fn set_error(&mut self, i: usize, message: impl Into<String>) {
        if let Some(f) = self.fields.get_mut(i) {
            f.input.set_validation(Some(message.into()));
            self.active = i;
        }
    }

    /// Matches for the active field's text: prefix matches first, then other substring matches
    /// (case-insensitive).
    pub fn matches(&self) -> Vec<&str> {
        let Some(f) = self.fields.get(self.active) else {
            return Vec::new();
        };
        let typed = match &self.cycle {
            Some(c) => c.typed.clone(),
            None => f.input.text(),
        };
        matches_of(&f.candidates, typed.trim())
    }

    /// Handles a raw key.
    pub fn handle_key(&mut self, key: &KeyEvent) -> FormOutcome {
        match key.code {
            KeyCode::Tab => {
                self.complete();
                return FormOutcome::Consumed;
            }
            KeyCode::BackTab => {
                self.move_to(self.active + self.fields.len().saturating_sub(1));
                return FormOutcome::Consumed;
            }
            // ↑/↓ stop at the first and last field (no surprising wrap-around).
            KeyCode::Up => {
                self.move_to(self.active.saturating_sub(1));
                return FormOutcome::Consumed;
            }
            KeyCode::Down => {
                self.move_to((self.active + 1).min(self.fields.len().saturating_sub(1)));
                return FormOutcome::Consumed;
            }
            _ => {}
        }
        let Some(f) = self.fields.get_mut(self.active) else {
            return FormOutcome::Cancelled;
        };
        match f.input.handle_key(key) {
            InputOutcome::Submitted(_) => FormOutcome::Submitted,
            InputOutcome::Cancelled => FormOutcome::Cancelled,
            InputOutcome::Changed => {
                self.cycle = None;
                FormOutcome::Consumed
            }
            InputOutcome::Consumed | InputOutcome::Ignored => FormOutcome::Consumed,
        }
    }

    /// Pastes into the active field.
    pub fn paste(&mut self, text: &str) {
        if let Some(f) = self.fields.get_mut(self.active)
            && f.input.insert_str(text)
        {
            self.cycle = None;
        }
    }

    fn move_to(&mut self, i: usize) {
        if !self.fields.is_empty() {
            self.active = i % self.fields.len();
        }
        self.cycle = None;
    }

    /// Tab: the next match of what was typed, or the next field when nothing matches.
    fn complete(&mut self) {
        let Some(f) = self.fields.get(self.active) else {
            return;
        };
        let typed = match &self.cycle {
            Some(c) => c.typed.clone(),
            None => f.input.text(),
        };
        let found: Vec<String> = matches_of(&f.candidates, typed.trim())
            .into_iter()
            .map(str::to_string)
            .collect();
        // Nothing to offer, or the only match is already there: go on to the next field.
        if found.is_empty() || (found.len() == 1 && found[0] == f.input.text().trim()) {
            self.move_to(self.active + 1);
            return;
        }
        let index = match &self.cycle {
            Some(c) => (c.index + 1) % found.len(),
            None => 0,
        };
        if let Some(f) = self.fields.get_mut(self.active) {
            f.input.set_text(&found[index]);
        }
        self.cycle = Some(Cycle { typed, index });
    }

    /// Rows needed: one per field (plus its validation line) and the hint line.
    pub fn height(&self) -> u16 {
        self.fields
            .iter()
            .map(|f| f.input.desired_height())
            .sum::<u16>()
            + 1
    }

    /// Draws the form at the top of `area` and returns what is left below it (after one blank
    /// row between the form and what it queried).
    pub fn render_above(&self, area: Rect, buf: &mut Buffer, theme: &Theme) -> Rect {
        let h = self.height().min(area.height);
        self.render(Rect::new(area.x, area.y, area.width, h), buf, theme);
        let used = (h + 1).min(area.height);
        Rect::new(area.x, area.y + used, area.width, area.height - used)
    }

    /// Draws the fields and a hint line.
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let label_w = self
            .fields
            .iter()
            .map(|f| f.label.width())
            .max()
            .unwrap_or(0)
            .min(usize::from(area.width) / 3) as u16;
        let mut y = area.y;
        for (i, f) in self.fields.iter().enumerate() {
            if y >= area.bottom() {
                return;
            }
            let active = i == self.active;
            let style = if active { theme.accent } else { theme.muted };
            buf.set_stringn(area.x, y, f.label, usize::from(label_w), style);
            let x = area.x + label_w + 1;
            let h = f.input.desired_height().min(area.bottom() - y);
            if x < area.right() {
                f.input
                    .render(Rect::new(x, y, area.right() - x, h), buf, theme, active);
            }
            y += h.max(1);
        }
        if y < area.bottom() {
            let matches = self.matches().len();
            let tab = if matches > 0 {
                format!(
                    "Tab complete ({matches} match{})",
                    if matches == 1 { "" } else { "es" }
                )
            } else {
                "Tab next field".to_string()
            };
            let hint = format!("↵ run · {tab} · ↑↓ field · Esc cancel");
            let line = Line::from(Span::styled(
                safe_line(&hint, usize::from(area.width)).into_owned(),
                theme.muted,
            ));
            buf.set_line(area.x, y, &line, area.width);
        }
    }
}

fn matches_of<'a>(candidates: &'a [String], typed: &str) -> Vec<&'a str> {
    matching(candidates, typed)
}

/// The order completion offers ids in: part by part between `::`, so a party's name decides
/// before its fingerprint (`yusuf::1220…` before `yusuf-2::1220…`, although `-` sorts before
/// `:`), then the whole text.
pub fn id_order(a: &str, b: &str) -> Ordering {
    a.split("::").cmp(b.split("::")).then_with(|| a.cmp(b))
}

/// The completion of `word` from `candidates` (case-insensitive, every field of every form
/// alike): the candidates that start with it first, then those that only contain it; each group
/// in [`id_order`], without duplicates.
pub fn matching<'a, S: AsRef<str>>(candidates: &'a [S], word: &str) -> Vec<&'a str> {
    let needle = word.trim().to_lowercase();
    let mut prefix = Vec::new();
    let mut inner = Vec::new();
    for c in candidates {
        let c = c.as_ref();
        let lower = c.to_lowercase();
        if lower.starts_with(&needle) {
            prefix.push(c);
        } else if lower.contains(&needle) {
            inner.push(c);
        }
    }
    for group in [&mut prefix, &mut inner] {
        group.sort_by(|a, b| id_order(a, b));
        group.dedup();
    }
    prefix.extend(inner);
    prefix
}

// ---------------------------------------------------------------------------------------------
// Id lists: splitting, checking and completing the last id of a list
// ---------------------------------------------------------------------------------------------

fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ',' || c == ';'
}

/// The ids of a list typed by the user (separated by spaces, commas or semicolons), without
/// duplicates, in order.
pub fn split_ids(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in text.split(is_separator).filter(|s| !s.is_empty()) {
        if !out.iter().any(|o| o == id) {
            out.push(id.to_string());
        }
    }
    out
}

/// Whether `id` looks like a Canton party id (`hint::fingerprint`).
pub fn looks_like_party(id: &str) -> bool {
    matches!(id.split_once("::"), Some((hint, fp)) if !hint.is_empty() && !fp.is_empty())
}

#[derive(Debug, Clone, PartialEq)]
struct CompletionState {
    /// The input text before the word being completed.
    base: String,
    candidates: Vec<String>,
    index: usize,
    /// The text the input had after the last completion (a change ends the cycle).
    applied: String,
}

/// Tab completion of the last id of a list input: the first Tab replaces the last word with the
/// first known id that starts with it (or contains it), further Tabs cycle, Shift-Tab cycles
/// back. Ids already in the list are not offered again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completer {
    state: Option<CompletionState>,
}

impl Completer {
    /// Completes (or cycles) in `input` from `pool`. `Err` says why nothing was completed.
    pub fn complete(
        &mut self,
        input: &mut TextInput,
        pool: &[&str],
        forward: bool,
    ) -> Result<(), String> {
        let text = input.text();
        if let Some(st) = &mut self.state
            && st.applied == text
            && !st.candidates.is_empty()
        {
            let n = st.candidates.len();
            st.index = if forward {
                (st.index + 1) % n
            } else {
                (st.index + n - 1) % n
            };
            st.applied = format!("{}{}", st.base, st.candidates[st.index]);
            input.set_text(&st.applied);
            return Ok(());
        }
        self.state = None;
        let cut = text.rfind(is_separator).map_or(0, |i| {
            i + text[i..].chars().next().map_or(1, char::len_utf8)
        });
        let (base, word) = text.split_at(cut);
        let present = split_ids(base);
        let fresh: Vec<&str> = pool
            .iter()
            .copied()
            .filter(|p| !p.is_empty() && !present.iter().any(|x| x == p))
            .collect();
        let candidates: Vec<String> = matching(&fresh, word)
            .into_iter()
            .map(str::to_string)
            .collect();
        if candidates.is_empty() {
            return Err(if pool.is_empty() {
                "nothing to complete from: no such ids in the loaded history yet".to_string()
            } else if word.is_empty() {
                "every known id is already in the list".to_string()
            } else {
                format!("no known id matches {:?}", safe_line(word, 40).into_owned())
            });
        }
        let index = if forward { 0 } else { candidates.len() - 1 };
        let applied = format!("{base}{}", candidates[index]);
        input.set_text(&applied);
        self.state = Some(CompletionState {
            base: base.to_string(),
            candidates,
            index,
            applied,
        });
        Ok(())
    }

    /// Ends a completion cycle (the user typed something).
    pub fn reset(&mut self) {
        self.state = None;
    }

    /// The candidates of the current cycle and the index of the one in the input.
    pub fn candidates(&self) -> Option<(&[String], usize)> {
        self.state
            .as_ref()
            .map(|s| (s.candidates.as_slice(), s.index))
    }
}

/// `3 parties: alice, bob, carol` for a list of ids (their names before `::`), cut to `width`
/// with the count kept in front, so a long list shows how many it holds, not only its tail.
pub fn id_list_summary(ids: &[String], noun: (&str, &str), width: usize) -> String {
    let n = ids.len();
    let head = format!("{n} {}", if n == 1 { noun.0 } else { noun.1 });
    if n == 0 {
        return head;
    }
    let names: Vec<&str> = ids.iter().map(|i| short_party(i)).collect();
    let mut out = format!("{head}: ");
    for (i, name) in names.iter().enumerate() {
        let more = format!("… +{}", n - i);
        let sep = if i > 0 { ", " } else { "" };
        if out.width() + sep.len() + name.width() + if i + 1 < n { more.len() } else { 0 } > width {
            out.push_str(&format!("{sep}{more}"));
            break;
        }
        out.push_str(sep);
        out.push_str(name);
    }
    sanitize(&out).into_owned()
}

/// Draws a list of ids as a count line and the ids in columns (as many as `area` holds, then
/// `+N more`); returns the rows used.
pub fn render_id_list(
    ids: &[String],
    noun: (&str, &str),
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
) -> u16 {
    if area.width == 0 || area.height == 0 || ids.is_empty() {
        return 0;
    }
    let n = ids.len();
    let head = format!("{n} {}:", if n == 1 { noun.0 } else { noun.1 });
    buf.set_stringn(area.x, area.y, &head, usize::from(area.width), theme.muted);
    let col_w = ids
        .iter()
        .map(|i| i.width())
        .max()
        .unwrap_or(1)
        .clamp(8, 24)
        + 2;
    let per_row = (usize::from(area.width) / col_w).max(1);
    let rows = usize::from(area.height - 1);
    let shown = (per_row * rows).min(n);
    let shown = if shown < n {
        shown.saturating_sub(1)
    } else {
        shown
    };
    for (k, id) in ids.iter().take(shown).enumerate() {
        let x = area.x + ((k % per_row) * col_w) as u16;
        let y = area.y + 1 + (k / per_row) as u16;
        let text = safe_line(id, col_w - 2).into_owned();
        buf.set_stringn(x, y, &text, col_w - 2, theme.party);
    }
    if shown < n {
        let k = shown;
        let x = area.x + ((k % per_row) * col_w) as u16;
        let y = area.y + 1 + (k / per_row) as u16;
        buf.set_stringn(x, y, format!("+{} more", n - shown), col_w, theme.muted);
    }
    let used = shown + usize::from(shown < n);
    1 + used.div_ceil(per_row) as u16
}

/// Draws the candidates of a completion cycle on one line, the current one highlighted.
pub fn render_candidates(completer: &Completer, area: Rect, buf: &mut Buffer, theme: &Theme) {
    let Some((cands, index)) = completer.candidates() else {
        return;
    };
    if area.width == 0 || area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let mut spans = vec![Span::styled(
        format!("{}/{} ", index + 1, cands.len()),
        theme.muted,
    )];
    let mut used = spans[0].content.len();
    // Start a little before the current candidate so it is always visible.
    let start = index.saturating_sub(1);
    for (i, c) in cands.iter().enumerate().skip(start) {
        if used >= width {
            break;
        }
        let text = safe_line(c, width.saturating_sub(used).min(48)).into_owned();
        used += unicode_width::UnicodeWidthStr::width(text.as_str()) + 2;
        let style = if i == index {
            theme.selection
        } else {
            theme.party
        };
        spans.push(Span::styled(text, style));
        spans.push(Span::raw("  "));
    }
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
}

// ---------------------------------------------------------------------------------------------
// Load state, section tabs, errors, paragraphs
// ---------------------------------------------------------------------------------------------

/// Draws the section tab row (`BFT sequencers │ Bootstrapping │ …  [ ] section`), the active one
/// highlighted, with the keys that really switch sections (`[` and `]`, the default
/// `prev_section` / `next_section`; number keys go to panes, so labels carry no numbers).
/// Labels shrink to their first word when the row is narrow.
pub fn render_section_tabs(
    area: Rect,
    buf: &mut Buffer,
    titles: &[&str],
    active: usize,
    theme: &Theme,
) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    const HINT: &str = "[ ] section";
    let full: usize = titles.iter().map(|t| t.width() + 3).sum::<usize>() + HINT.width() + 2;
    let short = full > usize::from(area.width);
    let mut spans = Vec::new();
    for (i, title) in titles.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" │ ", theme.muted));
        }
        let label = if short {
            title.split(' ').next().unwrap_or(title)
        } else {
            title
        };
        let style = if i == active {
            theme.tab_active
        } else {
            theme.tab_inactive
        };
        spans.push(Span::styled(label.to_string(), style));
    }
    spans.push(Span::styled("   [ ]", theme.key_hint));
    spans.push(Span::styled(" section", theme.key_desc));
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
}

/// One line explaining an API failure; `not_found` says what a 404 with the API's error body
/// means for this request.
pub fn explain(e: &ApiError, not_found: &str) -> String {
    match e {
        ApiError::NotFound { message, .. } => {
            format!("{not_found} (server: {message})")
        }
        ApiError::NotConfigured { what } => {
            format!("not configured: {what}; set it in the profile or on the command line")
        }
        ApiError::Connect { .. } | ApiError::Timeout { .. } => {
            format!("{e}; check the URL and that the node is up, then press r to retry")
        }
        _ => e.to_string(),
    }
}

/// One line explaining a failed scan query (server text sanitized): `not_served` words a 404
/// for the whole route (given the node's version when it says), `not_found` a 404 with the
/// API's error body (given its message); a 400 is the scan rejecting the query; anything else
/// reads as the error says.
pub fn explain_scan(
    e: &ApiError,
    not_served: impl FnOnce(Option<&str>) -> String,
    not_found: impl FnOnce(&str) -> String,
) -> String {
    match e {
        ApiError::EndpointNotServed { version, .. } => {
            let v = version.as_deref().map(|v| safe_line(v, 40).into_owned());
            not_served(v.as_deref())
        }
        ApiError::NotFound { message, .. } => not_found(&safe_line(message, 200)),
        ApiError::Scan {
            status: 400,
            message,
            ..
        } => format!(
            "the scan rejected the query (HTTP 400): {}",
            safe_line(message, 200)
        ),
        other => sanitize(&other.to_string()).into_owned(),
    }
}

/// Draws sanitized, wrapped text from `area.y`; returns the rows used.
pub fn paragraph(area: Rect, buf: &mut Buffer, text: &str, style: Style) -> u16 {
    if area.width == 0 || area.height == 0 {
        return 0;
    }
    let clean = sanitize_multiline(text);
    let mut rows = 0u16;
    for line in wrap_text(&clean, usize::from(area.width)) {
        if rows >= area.height {
            break;
        }
        buf.set_stringn(
            area.x,
            area.y + rows,
            safe_line(&line, usize::from(area.width)),
            usize::from(area.width),
            style,
        );
        rows += 1;
    }
    rows
}

/// Writes `text` (sanitized, cut to `width` columns) at (x, y).
pub fn cell(buf: &mut Buffer, x: u16, y: u16, text: &str, width: u16, style: Style) {
    if width == 0 {
        return;
    }
    let w = usize::from(width);
    buf.set_stringn(x, y, safe_line(text, w), w, style);
}

/// A file-name-safe form of `s` (letters, digits, `-`, `_`, `.`; at most 40 characters).
pub fn file_part(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    while out.starts_with('.') {
        out.remove(0);
    }
    if out.is_empty() { "x".into() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn form() -> Form {
        Form::new(vec![
            Form::with_candidates(
                Form::field("Party", "", "party id"),
                ["bob::1", "alice::1", "alice::2", "carol::alice"],
            ),
            Form::field("Nonce", "", "0"),
        ])
    }

    #[test]
    fn tab_cycles_through_matches_prefix_first_then_moves_on() {
        let mut f = form();
        for c in "ali".chars() {
            f.handle_key(&key(KeyCode::Char(c)));
        }
        assert_eq!(f.matches(), vec!["alice::1", "alice::2", "carol::alice"]);
        f.handle_key(&key(KeyCode::Tab));
        assert_eq!(f.value(0), "alice::1");
        f.handle_key(&key(KeyCode::Tab));
        assert_eq!(f.value(0), "alice::2");
        f.handle_key(&key(KeyCode::Tab));
        f.handle_key(&key(KeyCode::Tab));
        assert_eq!(f.value(0), "alice::1");
        // Typing ends the cycle; a unique complete match moves on.
        f.handle_key(&key(KeyCode::Backspace));
        f.handle_key(&key(KeyCode::Char('1')));
        f.handle_key(&key(KeyCode::Tab));
        assert_eq!(f.active(), 1);
        // No candidates: Tab goes to the next field (wrapping).
        f.handle_key(&key(KeyCode::Tab));
        assert_eq!(f.active(), 0);
    }

    #[test]
    fn completion_prefers_prefixes_and_the_party_name_over_its_fingerprint() {
        let pool = [
            "yusuf-2::1220ab",
            "ayusuf::1220cd",
            "yusuf::1220ef",
            "bob::1",
        ];
        assert_eq!(
            matching(&pool, "yu"),
            vec!["yusuf::1220ef", "yusuf-2::1220ab", "ayusuf::1220cd"]
        );
        let mut input = TextInput::single_line().with_text("bob::1 yu");
        let mut c = Completer::default();
        c.complete(&mut input, &pool, true).expect("completes");
        assert_eq!(input.text(), "bob::1 yusuf::1220ef");
        let mut f = Form::new(vec![Form::with_candidates(
            Form::field("Party", "yu", ""),
            pool,
        )]);
        f.handle_key(&key(KeyCode::Tab));
        assert_eq!(f.value(0), "yusuf::1220ef");
    }

    #[test]
    fn long_id_lists_read_as_a_count_and_names() {
        let ids: Vec<String> = (0..40).map(|i| format!("v{i}::1220{i:04}")).collect();
        let s = id_list_summary(&ids, ("party", "parties"), 40);
        assert!(s.starts_with("40 parties: v0, v1"), "{s}");
        assert!(s.contains("… +"), "{s}");
        assert!(
            unicode_width::UnicodeWidthStr::width(s.as_str()) <= 40,
            "{s}"
        );
        let mut buf = Buffer::empty(Rect::new(0, 0, 60, 4));
        let rows = render_id_list(&ids, ("id", "ids"), buf.area, &mut buf, &Theme::default());
        assert_eq!(rows, 4);
        let text: String = buf.content().iter().map(|c| c.symbol()).collect();
        assert!(text.contains("40 ids:") && text.contains("more"), "{text}");
    }

    #[test]
    fn enter_submits_esc_cancels_and_errors_focus_the_field() {
        let mut f = form();
        assert_eq!(f.handle_key(&key(KeyCode::Down)), FormOutcome::Consumed);
        assert_eq!(f.active(), 1);
        assert_eq!(f.handle_key(&key(KeyCode::Enter)), FormOutcome::Submitted);
        f.set_error(0, "required");
        assert_eq!(f.active(), 0);
        assert_eq!(f.height(), 4);
        assert_eq!(f.handle_key(&key(KeyCode::Esc)), FormOutcome::Cancelled);
        f.paste("x\u{1b}y");
        assert_eq!(f.value(0), "xy");
    }

    #[test]
    fn file_parts_are_safe() {
        assert_eq!(file_part("global-domain::1220ab"), "global-domain__1220ab");
        assert_eq!(file_part("../../etc"), "_.._etc");
        assert_eq!(file_part(""), "x");
    }

    #[test]
    fn tiny_areas_do_not_panic() {
        let f = form();
        for (w, h) in [(0, 0), (1, 1), (3, 1), (10, 2), (80, 1)] {
            let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
            f.render(buf.area, &mut buf, &Theme::default());
        }
    }

    #[test]
    fn ids_split_and_complete() {
        assert_eq!(
            split_ids(" a::1, b::2;a::1\tc::3 "),
            vec!["a::1", "b::2", "c::3"]
        );
        let mut input = TextInput::single_line().with_text("alice::1 b");
        let mut c = Completer::default();
        let pool = ["bob::2", "alice::1", "bert::3", "carol::4"];
        c.complete(&mut input, &pool, true).expect("completes");
        assert_eq!(input.text(), "alice::1 bert::3");
        c.complete(&mut input, &pool, true).expect("cycles");
        assert_eq!(input.text(), "alice::1 bob::2");
        c.complete(&mut input, &pool, false).expect("cycles back");
        assert_eq!(input.text(), "alice::1 bert::3");
        // Substring fallback, and already-listed ids are not offered.
        let mut input = TextInput::single_line().with_text("alice::1 ::4");
        let mut c = Completer::default();
        c.complete(&mut input, &pool, true).expect("substring");
        assert_eq!(input.text(), "alice::1 carol::4");
        let mut input = TextInput::single_line().with_text("zz");
        assert!(c.complete(&mut input, &pool, true).is_err());
    }
}
