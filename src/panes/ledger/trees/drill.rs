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
use crate::ui::format::server_time;
use crate::ui::json::JsonView;
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;
use crate::ui::tree::TreeState;

use super::super::common::{kv_line, put};

use super::{Drill, DrillFocus, EXPAND_ALL_MAX, Trees, describe};

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
                let mut d = Drill::Tree {
                    index,
                    tree: Box::new(tree),
                    state,
                    focus: DrillFocus::Tree,
                    details,
                };
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
        let Some(drill) = &mut self.drill else {
            return false;
        };
        if matches!(cmd, Command::Back | Command::Cancel) {
            match drill {
                Drill::Tree { focus, .. } if *focus == DrillFocus::Details => {
                    *focus = DrillFocus::Tree
                }
                _ => self.drill = None,
            }
            return true;
        }
        match drill {
            Drill::Raw { json, .. } => json.command(cmd),
            Drill::Tree {
                tree,
                state,
                focus,
                details,
                ..
            } => {
                if *focus == DrillFocus::Details {
                    if cmd == Command::Collapse && details.scroll().cursor() == 0 {
                        *focus = DrillFocus::Tree;
                        return true;
                    }
                    if cmd == Command::Copy {
                        if let Some(j) = details.selected_json() {
                            out.copy("JSON", j);
                        }
                        return true;
                    }
                    return details.command(cmd);
                }
                let before = state.selected();
                match cmd {
                    Command::Up => state.up(1),
                    Command::Down => state.down(1),
                    Command::PageUp => state.page_up(),
                    Command::PageDown => state.page_down(),
                    Command::Top => state.top(),
                    Command::Bottom => state.bottom(),
                    Command::Toggle | Command::Select => state.toggle(&**tree),
                    Command::Expand | Command::Right => {
                        let leaf = state.selected().is_none_or(|n| tree.children(n).is_empty());
                        if leaf {
                            *focus = DrillFocus::Details;
                        } else {
                            state.expand(&**tree);
                        }
                    }
                    Command::Collapse | Command::Left => state.collapse(),
                    Command::Parent => state.parent(),
                    Command::ExpandAll => state.expand_all(&**tree),
                    Command::CollapseAll => state.collapse_all(&**tree),
                    Command::Copy => {
                        if let Some(ev) = state.selected().and_then(|n| tree.event(n)) {
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
                    _ => return false,
                }
                if state.selected() != before {
                    let mut d =
                        JsonView::new(&node_json(state.selected().and_then(|n| tree.event(n))));
                    d.set_viewport(details.scroll().viewport());
                    *details = d;
                }
                true
            }
        }
    }
}

pub(super) fn apply_rows(d: &mut Drill, rows: usize) {
    match d {
        Drill::Tree { state, details, .. } => {
            state.set_viewport((rows / 2).max(1));
            details.set_viewport((rows / 2).max(1));
        }
        Drill::Raw { json, .. } => json.set_viewport(rows.max(1)),
    }
}

fn node_fields(
    ev: Option<&TreeEvent>,
    node: Option<i64>,
    hidden: u32,
    theme: &Theme,
    sh: &Shared,
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
                server_time(&c.created_at, "", |us| sh.format_time(us)),
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
                .map(|(k, o, u, ..)| {
                    format!(
                        "{k} at offset {} {}  (Esc: back to the list)",
                        o.unwrap_or_default(),
                        u
                    )
                })
                .unwrap_or_default();
            put(
                area,
                0,
                buf,
                &Line::styled(
                    safe_line(&title, usize::from(width)).into_owned(),
                    theme.title,
                ),
            );
            if area.height > 1 {
                json.render(
                    Rect::new(area.x, area.y + 1, width, area.height - 1),
                    buf,
                    theme,
                    focused,
                );
            }
        }
        Drill::Tree {
            index,
            tree,
            state,
            focus,
            details,
        } => {
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
            put(
                area,
                0,
                buf,
                &Line::styled(
                    safe_line(&head, usize::from(width)).into_owned(),
                    theme.title,
                ),
            );
            if area.height < 3 {
                return;
            }
            let body = Rect::new(area.x, area.y + 1, width, area.height - 1);
            let wide = width >= 100;
            let (tree_area, det_area) = if wide {
                let tw = width * 11 / 20;
                (
                    Rect::new(body.x, body.y, tw, body.height),
                    Rect::new(body.x + tw + 1, body.y, width - tw - 1, body.height),
                )
            } else {
                let th = (body.height * 2 / 5).max(1);
                (
                    Rect::new(body.x, body.y, width, th),
                    Rect::new(body.x, body.y + th, width, body.height - th),
                )
            };
            let tree_focus = *focus == DrillFocus::Tree;
            title_rule(tree_area, buf, theme, tree_focus, "Event tree", "Esc back");
            if tree_area.height > 1 {
                state.render(
                    &**tree,
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
            let fields = node_fields(ev, sel.and_then(|n| tree.node_id(n)), hidden, theme, sh);
            title_rule(
                det_area,
                buf,
                theme,
                !tree_focus,
                "Details",
                if tree_focus {
                    "→ details"
                } else {
                    "← tree"
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
                put(
                    det_area,
                    y,
                    buf,
                    &kv_line(
                        label,
                        if value.is_empty() { "-" } else { value },
                        *style,
                        11,
                        det_area.width,
                        theme,
                    ),
                );
                y += 1;
            }
            if y < det_area.height {
                details.render(
                    Rect::new(
                        det_area.x,
                        det_area.y + y,
                        det_area.width,
                        det_area.height - y,
                    ),
                    buf,
                    theme,
                    focused && !tree_focus,
                );
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
