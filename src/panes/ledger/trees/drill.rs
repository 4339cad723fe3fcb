//! One item opened with Enter: a transaction's tree (rebuilt from node-id ranges) beside the
//! details of the selected node, or any other item's JSON; its keys and its drawing.

use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::{Map, Value};
use unicode_width::UnicodeWidthStr;

use crate::api::ledger::{JsTransactionTree, TreeEvent, Update};
use crate::model::ledger_tree::LedgerTree;
use crate::msg::Command;
use crate::panes::{Out, Shared};
use crate::ui::format::{fit_id, server_time};
use crate::ui::json::JsonView;
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::scroll::Scrolled;
use crate::ui::theme::Theme;
use crate::ui::tree::{
    HSCROLL_STEP, TreeCommand, TreeState, fit_line, render_shifted, skip_columns,
};
use crate::ui::whole_value::ValueView;

use super::super::common::{kv_line, put, put_safe};

use super::{
    Drill, DrillFocus, EXPAND_ALL_MAX, SPLIT_DEFAULT, SPLIT_DEFAULT_STACKED, TreeDrill, Trees,
    describe,
};

/// The details JSON of a tree node: its arguments.
fn node_json(ev: Option<&TreeEvent>) -> Value {
    let mut m = Map::new();
    match ev {
        Some(TreeEvent::CreatedTreeEvent(c)) => {
            m.insert(
                "createArgument".into(),
                c.create_argument.to_value().unwrap_or(Value::Null),
            );
        }
        Some(TreeEvent::ExercisedTreeEvent(e)) => {
            m.insert(
                "choiceArgument".into(),
                e.choice_argument.to_value().unwrap_or(Value::Null),
            );
            m.insert(
                "exerciseResult".into(),
                e.exercise_result.to_value().unwrap_or(Value::Null),
            );
        }
        Some(TreeEvent::Unknown { kind, raw }) => {
            m.insert(kind.clone(), raw.to_value().unwrap_or(Value::Null));
        }
        None => {}
    }
    Value::Object(m)
}

impl Trees {
    pub(super) fn open_selected(&mut self) {
        let Some(index) = self.table.selected() else {
            return;
        };
        let Some(item) = self.items.get(index) else {
            return;
        };
        self.drill = Some(match &item.update {
            Update::TransactionTree(t) => {
                let tree = LedgerTree::new(Arc::new(JsTransactionTree::clone(t)));
                let state = if tree.len() <= EXPAND_ALL_MAX {
                    let mut s = TreeState::new(&tree);
                    s.expand_all(&tree);
                    s
                } else {
                    TreeState::with_expanded_depth(&tree, 2)
                };
                let details =
                    JsonView::new(&node_json(state.selected().and_then(|n| tree.event(n))));
                let mut d = Drill::Tree(Box::new(TreeDrill {
                    index,
                    tree,
                    state,
                    focus: DrillFocus::Tree,
                    details,
                    hscroll: 0,
                }));
                apply_rows(&mut d, self.rows);
                d
            }
            _ => Drill::Raw {
                index,
                json: JsonView::new(&item.raw.to_value().unwrap_or(Value::Null)),
            },
        });
    }

    pub(super) fn drill_command(&mut self, cmd: Command, out: &mut Out) -> bool {
        match cmd {
            Command::TreeNarrower | Command::TreeWider
                if matches!(self.drill, Some(Drill::Tree(_))) =>
            {
                let default = if self.width >= WIDE_MIN_WIDTH {
                    SPLIT_DEFAULT
                } else {
                    SPLIT_DEFAULT_STACKED
                };
                if !self.split.step(cmd == Command::TreeWider, default) {
                    out.info("the split is at its end");
                }
                return true;
            }
            Command::ShowValue => {
                match self.value_at_cursor() {
                    Some((title, value)) => {
                        let mut view = ValueView::new(title, value);
                        view.set_area(self.value_area());
                        self.whole_value = Some(view);
                    }
                    None => out.info("no value under the cursor"),
                }
                return true;
            }
            Command::ScrollLeft | Command::ScrollRight => {
                let width = usize::from(self.details_width());
                let step = HSCROLL_STEP.cast_signed();
                let delta = if cmd == Command::ScrollRight {
                    step
                } else {
                    -step
                };
                if let Some(Drill::Tree(d)) = &mut self.drill {
                    let max = d.content_width().saturating_sub(width);
                    d.hscroll = d.hscroll.saturating_add_signed(delta).min(max);
                    return true;
                }
                return false;
            }
            _ => {}
        }
        let Some(drill) = &mut self.drill else {
            return false;
        };
        // Backspace on a root of the tree: back, as Esc.
        let at_root = match drill {
            Drill::Tree(d) => {
                d.focus == DrillFocus::Tree
                    && d.state
                        .selected()
                        .is_none_or(|n| d.tree.parent(n).is_none())
            }
            Drill::Raw { .. } => false,
        };
        if matches!(cmd, Command::Back | Command::Cancel) || (cmd == Command::Parent && at_root) {
            match drill {
                Drill::Tree(d) if d.focus == DrillFocus::Details => d.focus = DrillFocus::Tree,
                _ => self.drill = None,
            }
            return true;
        }
        match drill {
            Drill::Raw { json, .. } => json.command(cmd),
            Drill::Tree(d) => d.command(cmd, out),
        }
    }
}

impl TreeDrill {
    /// A command while the tree is open: the tree's keys, or the details' when they have the
    /// focus. Returns whether it was used.
    fn command(&mut self, cmd: Command, out: &mut Out) -> bool {
        if cmd == Command::SwitchFocus {
            self.focus = match self.focus {
                DrillFocus::Tree => DrillFocus::Details,
                DrillFocus::Details => DrillFocus::Tree,
            };
            return true;
        }
        if self.focus == DrillFocus::Details {
            // ← / h / Backspace on the first row go back to the tree, as in the Update
            // pane.
            if matches!(cmd, Command::Collapse | Command::Left | Command::Parent)
                && self.details.scroll().cursor() == 0
            {
                self.focus = DrillFocus::Tree;
                return true;
            }
            if cmd == Command::Copy {
                if let Some(j) = self.details.selected_json() {
                    out.copy("JSON", j);
                }
                return true;
            }
            return self.details.command(cmd);
        }
        let before = self.state.selected();
        // As in the Update pane: Enter folds a node and opens the details of a leaf;
        // → / l expand a closed node, and on an open node or a leaf move right into
        // the details (↓ walks the children).
        match self.state.command(&self.tree, cmd) {
            TreeCommand::Done => {}
            TreeCommand::Details => self.focus = DrillFocus::Details,
            TreeCommand::Unused if cmd == Command::Copy => {
                if let Some(ev) = self.state.selected().and_then(|n| self.tree.event(n)) {
                    let cid = match ev {
                        TreeEvent::CreatedTreeEvent(c) => c.contract_id.clone(),
                        TreeEvent::ExercisedTreeEvent(e) => e.contract_id.clone(),
                        TreeEvent::Unknown { .. } => String::new(),
                    };
                    if !cid.is_empty() {
                        out.copy("contract id", cid);
                    }
                }
            }
            TreeCommand::Unused => return false,
        }
        if self.state.selected() != before {
            let mut d = JsonView::new(&node_json(
                self.state.selected().and_then(|n| self.tree.event(n)),
            ));
            d.set_viewport(self.details.scroll().viewport());
            self.details = d;
            self.hscroll = 0;
        }
        true
    }

    /// The widest details row (fields in full, the JSON rows on screen).
    fn content_width(&self) -> usize {
        let sel = self.state.selected();
        let fields = node_fields(
            sel.and_then(|n| self.tree.event(n)),
            sel.and_then(|n| self.tree.node_id(n)),
            0,
            &Theme::default(),
            None,
        );
        let fields = fields
            .iter()
            .map(|(_, v, _)| LABEL_W + 1 + v.width())
            .max()
            .unwrap_or(0);
        let details = &self.details;
        let range = details
            .scroll()
            .visible_range(details.scroll().viewport().max(1));
        let json = details
            .lines_visible(range, &Theme::default(), u16::MAX)
            .iter()
            .map(Line::width)
            .max()
            .unwrap_or(0);
        fields.max(json)
    }
}

/// The section's width from which the details sit right of the tree (below it otherwise).
const WIDE_MIN_WIDTH: u16 = 100;
/// Width of the label column of the details fields (plus one space).
const LABEL_W: usize = 11;

impl Trees {
    /// The width of the details panel in the current layout.
    fn details_width(&self) -> u16 {
        if self.width >= WIDE_MIN_WIDTH {
            let tw = self.split.part(self.width, SPLIT_DEFAULT);
            self.width.saturating_sub(tw + 1)
        } else {
            self.width
        }
    }

    /// What `v` shows: from the tree every field of the selected node in full; from the
    /// details the JSON value under the cursor; in a raw item its JSON under the cursor.
    fn value_at_cursor(&self) -> Option<(String, String)> {
        let details = match self.drill.as_ref()? {
            Drill::Tree(d) if d.focus == DrillFocus::Tree => {
                let (tree, sel) = (&d.tree, d.state.selected()?);
                let fields = node_fields(
                    tree.event(sel),
                    tree.node_id(sel),
                    tree.hidden_descendants(sel),
                    &Theme::default(),
                    None,
                );
                let text = fields
                    .iter()
                    .map(|(label, value, _)| format!("{label:<LABEL_W$} {value}"))
                    .collect::<Vec<_>>()
                    .join("\n");
                let title = tree
                    .node_id(sel)
                    .map_or_else(|| "node".to_string(), |n| format!("node #{n}"));
                return Some((title, text));
            }
            Drill::Tree(d) => &d.details,
            Drill::Raw { json, .. } => json,
        };
        let text = details.selected_json()?;
        Some((format!("JSON {}", details.selected_path()), text))
    }
}

pub(super) fn apply_rows(d: &mut Drill, rows: usize) {
    match d {
        Drill::Tree(d) => {
            d.state.set_viewport((rows / 2).max(1));
            d.details.set_viewport((rows / 2).max(1));
        }
        Drill::Raw { json, .. } => json.set_viewport(rows.max(1)),
    }
}

fn node_fields(
    ev: Option<&TreeEvent>,
    node: Option<i64>,
    hidden: u32,
    theme: &Theme,
    sh: Option<&Shared>,
) -> Vec<(&'static str, String, Style)> {
    let mut f: Vec<(&'static str, String, Style)> = Vec::new();
    let n = node.map_or_else(|| "-".to_string(), |n| format!("#{n}"));
    match ev {
        Some(TreeEvent::ExercisedTreeEvent(e)) => {
            f.push((
                "node",
                format!(
                    "{n} (descendants to #{}{})",
                    e.last_descendant_node_id,
                    if hidden > 0 {
                        format!(", {hidden} hidden")
                    } else {
                        String::new()
                    }
                ),
                theme.muted,
            ));
            f.push((
                "choice",
                format!(
                    "{}{}",
                    e.choice,
                    if e.consuming { "  consuming" } else { "" }
                ),
                theme.exercised,
            ));
            f.push(("template", e.template_id.clone(), theme.accent));
            if let Some(i) = &e.interface_id {
                f.push(("interface", i.clone(), theme.accent));
            }
            f.push(("contract", e.contract_id.clone(), theme.id));
            f.push(("acting", e.acting_parties.join(", "), theme.party));
            f.push(("witnesses", e.witness_parties.join(", "), theme.party));
            f.push(("package", e.package_name.clone(), Style::default()));
        }
        Some(TreeEvent::CreatedTreeEvent(c)) => {
            f.push(("node", n, theme.muted));
            f.push(("created", c.template_id.clone(), theme.created));
            f.push(("contract", c.contract_id.clone(), theme.id));
            f.push(("signatories", c.signatories.join(", "), theme.party));
            f.push(("observers", c.observers.join(", "), theme.party));
            f.push(("witnesses", c.witness_parties.join(", "), theme.party));
            f.push((
                "created at",
                server_time(&c.created_at, "", |us| {
                    sh.map_or_else(|| us.to_string(), |sh| sh.format_time(us))
                }),
                theme.time,
            ));
            f.push(("package", c.package_name.clone(), Style::default()));
        }
        Some(TreeEvent::Unknown { kind, .. }) => f.push(("kind", kind.clone(), theme.status_warn)),
        None => f.push(("node", "nothing selected".into(), theme.muted)),
    }
    f
}

pub(super) fn render_drill(
    t: &Trees,
    d: &Drill,
    area: Rect,
    buf: &mut Buffer,
    sh: &Shared,
    theme: &Theme,
    focused: bool,
) {
    let width = area.width;
    match d {
        Drill::Raw { index, json } => {
            let head = t.items.get(*index).map(describe);
            let title = head
                .map(|d| {
                    format!(
                        "{} at offset {} {}  (Esc: back to the list)",
                        d.kind,
                        d.offset.unwrap_or_default(),
                        d.update_id
                    )
                })
                .unwrap_or_default();
            put_safe(area, 0, buf, &title, theme.title);
            if area.height > 1 {
                json.render(
                    Rect::new(area.x, area.y + 1, width, area.height - 1),
                    buf,
                    theme,
                    focused,
                );
            }
        }
        Drill::Tree(d) => {
            let TreeDrill {
                index,
                tree,
                state,
                focus,
                details,
                hscroll,
            } = &**d;
            let tx = tree.tree();
            let head = format!(
                "item {}/{} · offset {} · {} nodes · {} · {} · update {}",
                index + 1,
                t.items.len(),
                tx.offset,
                tree.len(),
                server_time(&tx.record_time, "", |us| sh.format_time(us)),
                tx.synchronizer_id.split("::").next().unwrap_or_default(),
                tx.update_id,
            );
            put_safe(area, 0, buf, &head, theme.title);
            if area.height < 3 {
                return;
            }
            let body = Rect::new(area.x, area.y + 1, width, area.height - 1);
            let wide = width >= WIDE_MIN_WIDTH;
            let (tree_area, det_area) = if wide {
                let tw = t.split.part(width, SPLIT_DEFAULT);
                (
                    Rect::new(body.x, body.y, tw, body.height),
                    Rect::new(body.x + tw + 1, body.y, width - tw - 1, body.height),
                )
            } else {
                let th = t.split.part(body.height, SPLIT_DEFAULT_STACKED).max(1);
                (
                    Rect::new(body.x, body.y, width, th),
                    Rect::new(body.x, body.y + th, width, body.height - th),
                )
            };
            let tree_focus = *focus == DrillFocus::Tree;
            title_rule(tree_area, buf, theme, tree_focus, "Event tree", "Esc back");
            if tree_area.height > 1 {
                state.render(
                    tree,
                    Rect::new(
                        tree_area.x,
                        tree_area.y + 1,
                        tree_area.width,
                        tree_area.height - 1,
                    ),
                    buf,
                    theme,
                    focused && tree_focus,
                );
            }
            if wide {
                for yy in 0..body.height {
                    buf.set_string(body.x + tree_area.width, body.y + yy, "│", theme.border);
                }
            }
            let sel = state.selected();
            let ev = sel.and_then(|n| tree.event(n));
            let hidden = sel.map_or(0, |n| tree.hidden_descendants(n));
            let fields = node_fields(
                ev,
                sel.and_then(|n| tree.node_id(n)),
                hidden,
                theme,
                Some(sh),
            );
            title_rule(
                det_area,
                buf,
                theme,
                !tree_focus,
                "Details",
                &match (tree_focus, *hscroll) {
                    (true, 0) => "→ details".to_string(),
                    (false, 0) => "← tree".to_string(),
                    (true, h) => format!("→ details · +{h} cols"),
                    (false, h) => format!("← tree · +{h} cols"),
                },
            );
            // Narrow and short: fewer fields so the arguments stay visible.
            let max_fields = if wide || det_area.height >= 16 {
                usize::MAX
            } else {
                usize::from(det_area.height).saturating_sub(5).max(2)
            };
            let mut y = 1u16;
            for (label, value, style) in fields.iter().take(max_fields) {
                if y + 1 >= det_area.height {
                    break;
                }
                let value = if value.is_empty() { "-" } else { value };
                // Ids shortened in the middle to fit (never the names); scrolled sideways, the
                // whole value from the scroll position on.
                let room = usize::from(det_area.width).saturating_sub(LABEL_W + 1);
                let line = if *hscroll == 0 {
                    kv_line(
                        label,
                        &fit_id(value, room),
                        *style,
                        LABEL_W,
                        det_area.width,
                        theme,
                    )
                } else {
                    let shifted = skip_columns(
                        Line::from(Span::styled(sanitize(value).into_owned(), *style)),
                        *hscroll,
                        theme,
                    );
                    let mut spans = vec![Span::styled(
                        safe_line(&format!("{label:<LABEL_W$} "), usize::from(det_area.width))
                            .into_owned(),
                        theme.muted,
                    )];
                    spans.extend(shifted.spans);
                    fit_line(spans, det_area.width)
                };
                put(det_area, y, buf, &line);
                y += 1;
            }
            if y < det_area.height {
                let json_area = Rect::new(
                    det_area.x,
                    det_area.y + y,
                    det_area.width,
                    det_area.height - y,
                );
                let active = focused && !tree_focus;
                render_shifted(json_area, buf, *hscroll, theme, |a, b| {
                    details.render(a, b, theme, active);
                });
            }
        }
    }
}

fn title_rule(area: Rect, buf: &mut Buffer, theme: &Theme, active: bool, name: &str, hint: &str) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let head = format!("─ {name} ");
    let fill = width.saturating_sub(head.width() + hint.width() + 1);
    let border = theme.border_style(active);
    let line = Line::from(vec![
        Span::styled(head, if active { theme.title } else { theme.muted }),
        Span::styled("─".repeat(fill), border),
        Span::styled(format!(" {hint}"), theme.muted),
    ]);
    buf.set_line(area.x, area.y, &line, area.width);
}
