//! A folded, scrollable, syntax-coloured JSON viewer for arbitrary [`serde_json::Value`]s
//! (`create_arguments`, `choice_argument`, `exercise_result`, proxy payloads).
//!
//! The value is flattened once into a pre-order arena of nodes; the visible lines are a list of
//! row references (container open / close, leaf, "… N more") recomputed only when folding
//! changes, and text is built only for the rows on screen ([`JsonView::lines_visible`]), so a
//! 10 MB payload costs as much to draw as a small one. Large values start folded: containers of
//! more than [`INITIAL_EXPAND_MAX_NODES`] nodes are collapsed (the root is always open) and a
//! container shows its first [`CHILDREN_PAGE`] children followed by a "… N more" line that shows
//! the next page when selected. Every key and string is sanitized and cut to the width.
//!
//! ```text
//! ▾ {
//!     "owner": "alice::1220…",
//!     "amount": { "initialAmount": "10.0", … }   (folded: `▸ "amount": {…} 3 keys,`)
//!   ▾ "holders": [
//!       "bob::1220…",
//!       … 9,900 more (Enter: show 100)
//!     ]
//!   }
//! ```

use std::ops::Range;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;
use unicode_width::UnicodeWidthStr;

use crate::msg::Command;
use crate::ui::format::group_thousands;
use crate::ui::safe::safe_line;
use crate::ui::scroll::{ScrollState, Scrolled};
use crate::ui::theme::Theme;

/// Containers with at most this many nodes (themselves included) start expanded.
pub const INITIAL_EXPAND_MAX_NODES: usize = 40;
/// Children shown per container before a "… N more" line; each "show more" adds this many.
pub const CHILDREN_PAGE: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    None,
    Index(u32),
    Name(Box<str>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Val {
    Null,
    Bool(bool),
    Number(Box<str>),
    Str(Box<str>),
    Object(u32),
    Array(u32),
}

impl Val {
    fn container_len(&self) -> Option<u32> {
        match self {
            Val::Object(n) | Val::Array(n) => Some(*n),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
struct Node {
    key: Key,
    val: Val,
    depth: u32,
    parent: u32,
    /// One past the last node of this subtree (pre-order).
    end: u32,
    expanded: bool,
    /// Children shown when expanded.
    shown: u32,
}

/// One visible line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    /// A non-empty container's first line (the whole container when folded).
    Open(u32),
    /// A container's closing bracket.
    Close(u32),
    /// A scalar or an empty container.
    Leaf(u32),
    /// "… N more" under a container.
    More(u32),
}

impl Row {
    fn node(self) -> u32 {
        match self {
            Row::Open(i) | Row::Close(i) | Row::Leaf(i) | Row::More(i) => i,
        }
    }
}

/// State and widget of the JSON viewer. Drawing only reads; folding and moving change state.
#[derive(Debug, Clone)]
pub struct JsonView {
    nodes: Vec<Node>,
    rows: Vec<Row>,
    scroll: ScrollState,
}

impl JsonView {
    /// Flattens `value`; large containers start folded.
    pub fn new(value: &Value) -> Self {
        let mut nodes: Vec<Node> = Vec::new();
        let mut stack: Vec<(&Value, Key, u32, u32)> = vec![(value, Key::None, 0, 0)];
        while let Some((v, key, depth, parent)) = stack.pop() {
            let index = nodes.len() as u32;
            let val = match v {
                Value::Null => Val::Null,
                Value::Bool(b) => Val::Bool(*b),
                Value::Number(n) => Val::Number(n.to_string().into()),
                Value::String(s) => Val::Str(s.as_str().into()),
                Value::Array(a) => {
                    for (i, child) in a.iter().enumerate().rev() {
                        stack.push((child, Key::Index(i as u32), depth + 1, index));
                    }
                    Val::Array(a.len() as u32)
                }
                Value::Object(o) => {
                    for (k, child) in o.iter().rev() {
                        stack.push((child, Key::Name(k.as_str().into()), depth + 1, index));
                    }
                    Val::Object(o.len() as u32)
                }
            };
            let shown = val.container_len().unwrap_or(0).min(CHILDREN_PAGE as u32);
            nodes.push(Node {
                key,
                val,
                depth,
                parent,
                end: index + 1,
                expanded: false,
                shown,
            });
        }
        // Subtrees are contiguous in pre-order: propagate ends upwards.
        for i in (1..nodes.len()).rev() {
            let (end, parent) = (nodes[i].end, nodes[i].parent as usize);
            if nodes[parent].end < end {
                nodes[parent].end = end;
            }
        }
        for (i, n) in nodes.iter_mut().enumerate() {
            n.expanded = n.val.container_len().is_some()
                && (i == 0 || (n.end as usize - i) <= INITIAL_EXPAND_MAX_NODES);
        }
        let mut view = JsonView {
            nodes,
            rows: Vec::new(),
            scroll: ScrollState::default(),
        };
        view.rebuild();
        view
    }

    fn children(&self, i: u32) -> impl Iterator<Item = u32> + '_ {
        let end = self.nodes[i as usize].end;
        let mut next = i + 1;
        std::iter::from_fn(move || {
            (next < end).then(|| {
                let c = next;
                next = self.nodes[c as usize].end;
                c
            })
        })
    }

    fn rebuild(&mut self) {
        let keep = self.rows.get(self.scroll.cursor()).copied();
        self.rows.clear();
        enum Task {
            Node(u32),
            Emit(Row),
        }
        let mut stack = vec![Task::Node(0)];
        while let Some(task) = stack.pop() {
            let i = match task {
                Task::Emit(row) => {
                    self.rows.push(row);
                    continue;
                }
                Task::Node(i) => i,
            };
            let node = &self.nodes[i as usize];
            match node.val.container_len() {
                Some(len) if len > 0 => {
                    self.rows.push(Row::Open(i));
                    if node.expanded {
                        stack.push(Task::Emit(Row::Close(i)));
                        if node.shown < len {
                            stack.push(Task::Emit(Row::More(i)));
                        }
                        let shown: Vec<u32> = self.children(i).take(node.shown as usize).collect();
                        stack.extend(shown.into_iter().rev().map(Task::Node));
                    }
                }
                _ => self.rows.push(Row::Leaf(i)),
            }
        }
        self.scroll.set_len(self.rows.len());
        if let Some(row) = keep {
            self.restore_cursor(row);
        }
    }

    /// Puts the cursor back on `row`, or on the nearest visible ancestor's first line.
    fn restore_cursor(&mut self, row: Row) {
        if let Some(i) = self.rows.iter().position(|r| *r == row) {
            self.scroll.select(i);
            return;
        }
        let mut node = row.node();
        loop {
            if let Some(i) = self
                .rows
                .iter()
                .position(|r| matches!(r, Row::Open(n) | Row::Leaf(n) if *n == node))
            {
                self.scroll.select(i);
                return;
            }
            if node == 0 {
                return;
            }
            node = self.nodes[node as usize].parent;
        }
    }

    /// Number of visible lines.
    pub fn visible_len(&self) -> usize {
        self.rows.len()
    }

    /// Number of JSON nodes (values at any depth).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    fn cursor_row(&self) -> Option<Row> {
        self.rows.get(self.scroll.cursor()).copied()
    }

    fn move_to(&mut self, row: Row) {
        if let Some(i) = self.rows.iter().position(|r| *r == row) {
            self.scroll.select(i);
        }
    }

    fn set_expanded(&mut self, i: u32, expanded: bool) {
        self.nodes[i as usize].expanded = expanded;
        self.rebuild();
    }

    /// Enter / Space: folds or unfolds the container under the cursor; on a "… N more" line,
    /// shows the next page of children.
    pub fn toggle(&mut self) {
        match self.cursor_row() {
            Some(Row::Open(i)) => {
                let e = self.nodes[i as usize].expanded;
                self.set_expanded(i, !e);
            }
            Some(Row::Close(i)) => {
                self.set_expanded(i, false);
                self.move_to(Row::Open(i));
            }
            Some(Row::More(i)) => self.show_more(i),
            Some(Row::Leaf(_)) | None => {}
        }
    }

    fn show_more(&mut self, i: u32) {
        let node = &mut self.nodes[i as usize];
        let len = node.val.container_len().unwrap_or(0);
        let first_new = node.shown;
        node.shown = node.shown.saturating_add(CHILDREN_PAGE as u32).min(len);
        self.rebuild();
        // Put the cursor on the first newly shown child.
        let child = self.children(i).nth(first_new as usize);
        if let Some(child) = child {
            let row = match self.nodes[child as usize].val.container_len() {
                Some(n) if n > 0 => Row::Open(child),
                _ => Row::Leaf(child),
            };
            self.move_to(row);
        }
    }

    /// → / l: unfolds the container under the cursor, or moves into it when already open.
    pub fn expand(&mut self) {
        match self.cursor_row() {
            Some(Row::Open(i)) if !self.nodes[i as usize].expanded => self.set_expanded(i, true),
            Some(Row::Open(_)) => self.scroll.down(1),
            Some(Row::More(i)) => self.show_more(i),
            _ => {}
        }
    }

    /// ← / h: folds the container under the cursor, or moves to the enclosing container.
    pub fn collapse(&mut self) {
        match self.cursor_row() {
            Some(Row::Open(i)) if self.nodes[i as usize].expanded => self.set_expanded(i, false),
            Some(Row::Close(i)) => {
                self.set_expanded(i, false);
                self.move_to(Row::Open(i));
            }
            _ => self.parent(),
        }
    }

    /// Moves the cursor to the first line of the enclosing container.
    pub fn parent(&mut self) {
        let Some(row) = self.cursor_row() else { return };
        let i = row.node();
        let target = match row {
            Row::More(_) | Row::Close(_) => i,
            _ if i == 0 => return,
            _ => self.nodes[i as usize].parent,
        };
        self.move_to(Row::Open(target));
    }

    /// The movement and folding keys of a JSON view (↑/↓, PgUp/PgDn, Home/End, Enter or Space
    /// toggles, →/← expand and collapse, `p` parent, expand/collapse all). Returns whether the
    /// command is one of them.
    pub fn command(&mut self, cmd: Command) -> bool {
        if self.scroll.navigate(cmd) {
            return true;
        }
        match cmd {
            Command::Toggle | Command::Select => self.toggle(),
            Command::Expand | Command::Right => self.expand(),
            Command::Collapse | Command::Left => self.collapse(),
            Command::Parent => self.parent(),
            Command::ExpandAll => self.expand_all(),
            Command::CollapseAll => self.collapse_all(),
            _ => return false,
        }
        true
    }

    /// Unfolds every container (pages of children stay as they are).
    pub fn expand_all(&mut self) {
        for n in &mut self.nodes {
            n.expanded = n.val.container_len().is_some();
        }
        self.rebuild();
    }

    /// Folds every container but the root.
    pub fn collapse_all(&mut self) {
        for (i, n) in self.nodes.iter_mut().enumerate() {
            n.expanded = i == 0 && n.val.container_len().is_some();
        }
        self.rebuild();
    }

    /// The JSON path of the value under the cursor (`$.payload.holders[3]`).
    pub fn selected_path(&self) -> String {
        let Some(row) = self.cursor_row() else {
            return "$".to_string();
        };
        let mut chain = Vec::new();
        let mut i = row.node();
        while i != 0 {
            chain.push(i);
            i = self.nodes[i as usize].parent;
        }
        let mut out = String::from("$");
        for &n in chain.iter().rev() {
            match &self.nodes[n as usize].key {
                Key::Index(ix) => out.push_str(&format!("[{ix}]")),
                Key::Name(k)
                    if !k.is_empty()
                        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        && !k.starts_with(|c: char| c.is_ascii_digit()) =>
                {
                    out.push('.');
                    out.push_str(k);
                }
                Key::Name(k) => {
                    out.push('[');
                    out.push_str(&serde_json::to_string(&**k).unwrap_or_default());
                    out.push(']');
                }
                Key::None => {}
            }
        }
        out
    }

    /// The value under the cursor as pretty JSON (for copy and save). Folding does not matter:
    /// the whole value is written.
    pub fn selected_json(&self) -> Option<String> {
        self.cursor_row().map(|r| self.subtree_json(r.node()))
    }

    /// The whole value as pretty JSON (2-space indent, as `serde_json::to_string_pretty`).
    pub fn to_json(&self) -> String {
        self.subtree_json(0)
    }

    fn subtree_json(&self, root: u32) -> String {
        let root = root as usize;
        let base = self.nodes[root].depth;
        let mut out = String::new();
        let mut open: Vec<usize> = Vec::new();
        let indent = |out: &mut String, depth: u32| {
            for _ in base..depth {
                out.push_str("  ");
            }
        };
        let close = |out: &mut String, n: &Node| {
            out.push('\n');
            indent(out, n.depth);
            out.push(if matches!(n.val, Val::Object(_)) {
                '}'
            } else {
                ']'
            });
        };
        for j in root..self.nodes[root].end as usize {
            while let Some(&top) = open.last() {
                if (self.nodes[top].end as usize) <= j {
                    open.pop();
                    close(&mut out, &self.nodes[top]);
                } else {
                    break;
                }
            }
            let n = &self.nodes[j];
            if j != root {
                out.push_str(if n.parent as usize + 1 == j {
                    "\n"
                } else {
                    ",\n"
                });
                indent(&mut out, n.depth);
                if let Key::Name(k) = &n.key {
                    out.push_str(&serde_json::to_string(&**k).unwrap_or_default());
                    out.push_str(": ");
                }
            }
            match &n.val {
                Val::Null => out.push_str("null"),
                Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Val::Number(s) => out.push_str(s),
                Val::Str(s) => out.push_str(&serde_json::to_string(&**s).unwrap_or_default()),
                Val::Object(0) => out.push_str("{}"),
                Val::Array(0) => out.push_str("[]"),
                Val::Object(_) => {
                    out.push('{');
                    open.push(j);
                }
                Val::Array(_) => {
                    out.push('[');
                    open.push(j);
                }
            }
        }
        while let Some(top) = open.pop() {
            close(&mut out, &self.nodes[top]);
        }
        out
    }

    /// The text of the visible lines `range` (clamped), each cut to `width` columns. Only these
    /// lines are built.
    pub fn lines_visible(&self, range: Range<usize>, theme: &Theme, width: u16) -> Vec<Line<'_>> {
        let end = range.end.min(self.rows.len());
        let start = range.start.min(end);
        self.rows[start..end]
            .iter()
            .map(|&row| self.line(row, theme, usize::from(width)))
            .collect()
    }

    fn is_last_child(&self, i: u32) -> bool {
        let n = &self.nodes[i as usize];
        i == 0 || n.end == self.nodes[n.parent as usize].end
    }

    fn line(&self, row: Row, theme: &Theme, width: usize) -> Line<'_> {
        let i = row.node();
        let n = &self.nodes[i as usize];
        let mut b = LineBuilder::new(width);
        let marker = match row {
            Row::Open(_) if n.expanded => "▾ ",
            Row::Open(_) => "▸ ",
            _ => "  ",
        };
        b.push(marker.into(), theme.json_punct);
        let depth = n.depth as usize + usize::from(matches!(row, Row::More(_)));
        b.push("  ".repeat(depth).into(), Style::default());
        let comma = !self.is_last_child(i);
        if matches!(row, Row::Open(_) | Row::Leaf(_))
            && let Key::Name(k) = &n.key
        {
            b.push_quoted(k, theme.json_key, 2);
            b.push(": ".into(), theme.json_punct);
        }
        let (open, close) = if matches!(n.val, Val::Object(_)) {
            ("{", "}")
        } else {
            ("[", "]")
        };
        match row {
            Row::Open(_) if n.expanded => b.push(open.into(), theme.json_punct),
            Row::Open(_) => {
                let len = n.val.container_len().unwrap_or(0);
                b.push(format!("{open}…{close}").into(), theme.json_punct);
                if comma {
                    b.push(",".into(), theme.json_punct);
                }
                let what = match (&n.val, len) {
                    (Val::Object(_), 1) => "key",
                    (Val::Object(_), _) => "keys",
                    (_, 1) => "item",
                    _ => "items",
                };
                b.push(
                    format!(" {} {what}", group_thousands(len)).into(),
                    theme.muted,
                );
            }
            Row::Close(_) => {
                b.push(close.into(), theme.json_punct);
                if comma {
                    b.push(",".into(), theme.json_punct);
                }
            }
            Row::More(_) => {
                let len = n.val.container_len().unwrap_or(0);
                let hidden = len.saturating_sub(n.shown);
                let next = hidden.min(CHILDREN_PAGE as u32);
                b.push(
                    format!("… {} more (Enter: show {next})", group_thousands(hidden)).into(),
                    theme.muted,
                );
            }
            Row::Leaf(_) => {
                match &n.val {
                    Val::Null => b.push("null".into(), theme.json_null),
                    Val::Bool(v) => b.push(v.to_string().into(), theme.json_bool),
                    Val::Number(s) => b.push_safe(s, theme.json_number, usize::from(comma)),
                    Val::Str(s) => b.push_quoted(s, theme.json_string, usize::from(comma)),
                    Val::Object(_) => b.push("{}".into(), theme.json_punct),
                    Val::Array(_) => b.push("[]".into(), theme.json_punct),
                }
                if comma {
                    b.push(",".into(), theme.json_punct);
                }
            }
        }
        b.finish()
    }

    /// Draws the visible window; the cursor line gets the selection style.
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let range = self.scroll.visible_range(usize::from(area.height));
        let cursor = self.scroll.cursor();
        let start = range.start;
        for (offset, line) in self
            .lines_visible(range, theme, area.width)
            .iter()
            .enumerate()
        {
            let y = area.y + offset as u16;
            buf.set_line(area.x, y, line, area.width);
            if start + offset == cursor {
                buf.set_style(
                    Rect::new(area.x, y, area.width, 1),
                    theme.selection_style(focused),
                );
            }
        }
    }
}

impl Scrolled for JsonView {
    fn scroll(&self) -> &ScrollState {
        &self.scroll
    }

    fn scroll_mut(&mut self) -> &mut ScrollState {
        &mut self.scroll
    }
}

/// Builds a line within a width budget, sanitizing server text.
struct LineBuilder<'a> {
    spans: Vec<Span<'a>>,
    left: usize,
}

impl<'a> LineBuilder<'a> {
    fn new(width: usize) -> Self {
        LineBuilder {
            spans: Vec::with_capacity(8),
            left: width,
        }
    }

    fn push(&mut self, text: std::borrow::Cow<'a, str>, style: Style) {
        if self.left == 0 {
            return;
        }
        let w = text.width();
        let text = if w > self.left {
            std::borrow::Cow::Owned(crate::ui::safe::truncate_width(&text, self.left).into_owned())
        } else {
            text
        };
        self.left = self.left.saturating_sub(w);
        self.spans.push(Span::styled(text, style));
    }

    /// Untrusted text, keeping `reserve` columns free after it when it has to be cut.
    fn push_safe(&mut self, s: &'a str, style: Style, reserve: usize) {
        let budget = self.left.saturating_sub(reserve);
        let text = safe_line(s, budget);
        self.left = self.left.saturating_sub(text.width());
        self.spans.push(Span::styled(text, style));
    }

    /// `"…"`-quoted untrusted text; `reserve` columns are kept for what follows the quote.
    fn push_quoted(&mut self, s: &'a str, style: Style, reserve: usize) {
        if self.left < 2 + reserve {
            self.push_safe(s, style, reserve);
            return;
        }
        self.push("\"".into(), style);
        self.push_safe(s, style, 1 + reserve);
        self.push("\"".into(), style);
    }

    fn finish(self) -> Line<'a> {
        Line::from(self.spans)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(v: &JsonView, width: u16) -> Vec<String> {
        v.lines_visible(0..usize::MAX, &Theme::default(), width)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn small_values_open_fully() {
        let v = JsonView::new(&json!({"a": 1, "b": [true, null], "c": {}}));
        assert_eq!(
            texts(&v, 80),
            [
                "▾ {",
                "    \"a\": 1,",
                "▾   \"b\": [",
                "      true,",
                "      null",
                "    ],",
                "    \"c\": {}",
                "  }",
            ]
        );
    }

    #[test]
    fn large_arrays_page_their_children() {
        let big: Vec<u32> = (0..250).collect();
        let mut v = JsonView::new(&json!(big));
        // root open: 1 + 100 children + more + close
        assert_eq!(v.visible_len(), 1 + CHILDREN_PAGE + 2);
        let t = texts(&v, 80);
        assert_eq!(t[CHILDREN_PAGE + 1], "    … 150 more (Enter: show 100)");
        v.command(Command::Bottom);
        v.up(1);
        v.toggle();
        assert_eq!(v.visible_len(), 1 + 200 + 2);
        // the cursor is on the first newly shown item
        assert_eq!(v.selected_path(), "$[100]");
        v.command(Command::Bottom);
        v.up(1);
        v.toggle();
        assert_eq!(v.visible_len(), 1 + 250 + 1);
    }

    #[test]
    fn big_nested_values_start_folded() {
        let inner: Vec<u32> = (0..100).collect();
        let v = JsonView::new(&json!({"small": [1, 2], "big": inner}));
        let t = texts(&v, 80);
        assert_eq!(t[5], "▸   \"big\": […] 100 items");
    }

    #[test]
    fn fold_unfold_parent_and_paths() {
        let mut v = JsonView::new(&json!({"x": {"y z": [1, {"k": "v"}]}}));
        v.down(1); // "x"
        v.collapse();
        assert_eq!(texts(&v, 80)[1], "▸   \"x\": {…} 1 key");
        v.expand();
        v.expand(); // moves inside
        assert_eq!(v.selected_path(), "$.x[\"y z\"]");
        v.down(2); // {"k": "v"}
        v.expand(); // into it
        assert_eq!(v.selected_path(), "$.x[\"y z\"][1].k");
        assert_eq!(v.selected_json().as_deref(), Some("\"v\""));
        v.parent();
        assert_eq!(v.selected_path(), "$.x[\"y z\"][1]");
        v.collapse_all();
        assert_eq!(v.visible_len(), 3);
        assert_eq!(v.selected_path(), "$.x");
        v.expand_all();
        assert_eq!(v.visible_len(), 10);
    }

    #[test]
    fn serialisation_matches_serde_pretty() {
        let value = json!({
            "a": [1, 2.5, -3, {"b": null, "c": [[], {}]}],
            "q\"uote": "line\nbreak \u{1b}[2J",
            "t": true,
            "n": 12_345_678_901_234_567u64
        });
        let v = JsonView::new(&value);
        assert_eq!(
            v.to_json(),
            serde_json::to_string_pretty(&value).expect("serialises")
        );
        assert_eq!(JsonView::new(&json!(7)).to_json(), "7");
    }

    #[test]
    fn strings_are_sanitized_and_cut_to_width() {
        let v = JsonView::new(&json!({"k\u{202e}": "\u{1b}]52;c;AAAA\u{7}x".repeat(50)}));
        let t = texts(&v, 30);
        assert_eq!(t[1], "    \"k�\": \"␛x␛x␛x␛x␛x␛x␛x␛x␛…\"");
        assert_eq!(t[1].width(), 30);
        for line in &t {
            assert!(line.width() <= 30, "{line}");
        }
    }

    #[test]
    fn tiny_widths_do_not_panic() {
        let v = JsonView::new(&json!({"key": "value", "n": [1, 2, 3]}));
        for w in 0..12 {
            for line in texts(&v, w) {
                assert!(line.width() <= usize::from(w), "{w}: {line:?}");
            }
        }
    }
}
