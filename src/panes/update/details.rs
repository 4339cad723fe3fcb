//! The details panel of the Update pane: the fields of the selected event (or of a
//! reassignment), then its JSON values (`create_arguments`, `choice_argument`,
//! `exercise_result`) as folded [`JsonView`]s, all one scrollable list of rows; its keys and how
//! it is drawn.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;
use unicode_width::UnicodeWidthStr;

use crate::api::json::RawJson;
use crate::api::scan::{CreatedEvent, ExercisedEvent, TreeEvent};
use crate::model::event_tree::ScanTree;
use crate::model::summary::short_template;
use crate::msg::Command;
use crate::ui::format::fit_id;
use crate::ui::json::JsonView;
use crate::ui::safe::{safe_line, sanitize, truncate_width};
use crate::ui::scroll::ScrollState;
use crate::ui::scroll::Scrolled;
use crate::ui::theme::Theme;
use crate::ui::tree::{NodeId, skip_columns};
use crate::ui::whole_value::ValueView;

use super::layout::{Areas, fmt_time, render_title};
use super::{Content, Focus, Out, Shared, UpdatePane, Want};

/// Width of the label column of the details panel.
const LABEL_WIDTH: usize = 13;

/// How a details value is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FieldStyle {
    Id,
    /// An event id `<update id>:<n>`: drawn with the update id shortened so the node number
    /// stays visible.
    EventId,
    Party,
    /// A server time, formatted when drawn (UTC / local follows the toggle).
    Time,
    Text,
    Accent,
    Muted,
    Created,
    Exercised,
    Archived,
    /// An update this row opens with Enter.
    Link,
}

/// One row of the details panel outside the JSON sections.
#[derive(Debug, Clone)]
pub(super) struct Field {
    /// The label, also used in "copied …" messages.
    pub(super) name: &'static str,
    /// Whether the label is drawn (continuation rows of a list leave it blank).
    pub(super) first: bool,
    /// The raw server value (sanitized when drawn and copied).
    pub(super) value: String,
    pub(super) style: FieldStyle,
    /// Enter opens this update.
    pub(super) open: Option<String>,
}

/// A JSON value under a heading.
#[derive(Debug, Clone)]
pub(super) struct Section {
    name: &'static str,
    json: JsonView,
}

/// Where a details row points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spot {
    Field(usize),
    Header(usize),
    Json(usize, usize),
    Nowhere,
}

/// The details panel of one event (or of a reassignment): fields, then JSON sections, as one
/// scrollable list of rows.
#[derive(Debug, Clone)]
pub(super) struct Details {
    /// The panel title (raw server text, sanitized when drawn).
    title: String,
    fields: Vec<Field>,
    sections: Vec<Section>,
    pub(super) scroll: ScrollState,
    /// The tree node shown (None for reassignments and empty trees).
    pub(super) node: Option<NodeId>,
    /// Columns scrolled sideways (`H` / `L`); values show in full while scrolled.
    pub(super) hscroll: usize,
}

impl Details {
    pub(super) fn new(
        title: String,
        fields: Vec<Field>,
        sections: Vec<Section>,
        node: Option<NodeId>,
    ) -> Self {
        let mut d = Details {
            title,
            fields,
            sections,
            scroll: ScrollState::default(),
            node,
            hscroll: 0,
        };
        d.scroll.set_len(d.len());
        d
    }

    fn len(&self) -> usize {
        self.fields.len()
            + self
                .sections
                .iter()
                .map(|s| 1 + s.json.visible_len())
                .sum::<usize>()
    }

    /// First row of section `s` (its heading).
    fn section_start(&self, s: usize) -> usize {
        self.fields.len()
            + self.sections[..s.min(self.sections.len())]
                .iter()
                .map(|s| 1 + s.json.visible_len())
                .sum::<usize>()
    }

    fn spot(&self, row: usize) -> Spot {
        if row < self.fields.len() {
            return Spot::Field(row);
        }
        let mut start = self.fields.len();
        for (i, s) in self.sections.iter().enumerate() {
            if row == start {
                return Spot::Header(i);
            }
            let len = s.json.visible_len();
            if row <= start + len {
                return Spot::Json(i, row - start - 1);
            }
            start += 1 + len;
        }
        Spot::Nowhere
    }

    fn cursor_spot(&self) -> Spot {
        self.spot(self.scroll.cursor())
    }

    /// Runs `f` on the JSON view under the cursor (its own cursor put on the row first), then
    /// puts the panel cursor where the view's cursor ended. False when the cursor is not in JSON.
    fn with_json(&mut self, f: impl FnOnce(&mut JsonView)) -> bool {
        let Spot::Json(s, local) = self.cursor_spot() else {
            return false;
        };
        let json = &mut self.sections[s].json;
        json.top();
        json.down(local);
        f(json);
        let local = json.scroll().cursor();
        let start = self.section_start(s);
        self.scroll.set_len(self.len());
        self.scroll.select(start + 1 + local);
        true
    }

    /// Folds or unfolds a whole section's value (from its heading).
    fn toggle_section(&mut self, s: usize) {
        if let Some(section) = self.sections.get_mut(s) {
            section.json.top();
            section.json.toggle();
        }
        self.scroll.set_len(self.len());
    }

    /// `y` in the panel: the field's value, a whole section, or the JSON under the cursor.
    pub(super) fn copy(&self, out: &mut Out) {
        match self.cursor_spot() {
            Spot::Field(i) => {
                let f = &self.fields[i];
                out.copy(f.name, sanitize(&f.value).into_owned());
            }
            Spot::Header(s) => {
                let sec = &self.sections[s];
                out.copy(sec.name, sec.json.to_json());
            }
            Spot::Json(s, local) => {
                let mut json = self.sections[s].json.clone();
                json.top();
                json.down(local);
                if let Some(text) = json.selected_json() {
                    out.copy(&format!("JSON {}", json.selected_path()), text);
                }
            }
            Spot::Nowhere => {}
        }
    }

    /// The widest row among the fields and the JSON rows in the viewport, values in full.
    fn content_width(&self) -> usize {
        let fields = self
            .fields
            .iter()
            .map(|f| LABEL_WIDTH + sanitize(&f.value).width())
            .max()
            .unwrap_or(0);
        let range = self.scroll.visible_range(self.scroll.viewport().max(1));
        let theme = Theme::default();
        let mut json = 0usize;
        for row in range {
            if let Spot::Json(s, local) = self.spot(row) {
                for line in self.sections[s]
                    .json
                    .lines_visible(local..local + 1, &theme, u16::MAX)
                {
                    json = json.max(line.width());
                }
            }
        }
        fields.max(json)
    }

    /// Scrolls sideways by `delta` columns within a panel `width` columns wide.
    pub(super) fn scroll_sideways(&mut self, delta: isize, width: usize) {
        let max = self.content_width().saturating_sub(width);
        self.hscroll = self.hscroll.saturating_add_signed(delta).min(max);
    }

    /// What `v` shows: (title, the whole value) of the row under the cursor.
    pub(super) fn value_at_cursor(&self) -> Option<(String, String)> {
        match self.cursor_spot() {
            Spot::Field(i) => {
                let f = &self.fields[i];
                Some((f.name.to_string(), f.value.clone()))
            }
            Spot::Header(s) => {
                let sec = &self.sections[s];
                Some((sec.name.to_string(), sec.json.to_json()))
            }
            Spot::Json(s, local) => {
                let mut json = self.sections[s].json.clone();
                json.top();
                json.down(local);
                let text = json.selected_json()?;
                Some((
                    format!("{} {}", self.sections[s].name, json.selected_path()),
                    text,
                ))
            }
            Spot::Nowhere => None,
        }
    }

    /// What `v` shows from the tree: every field of the node, in full.
    pub(super) fn all_fields(&self) -> (String, String) {
        let mut text = String::new();
        for f in &self.fields {
            let label = if f.first { f.name } else { "" };
            text.push_str(&format!("{label:<LABEL_WIDTH$}{}\n", f.value));
        }
        (self.title.clone(), text.trim_end().to_string())
    }

    fn for_each_json(&mut self, f: impl Fn(&mut JsonView)) {
        for s in &mut self.sections {
            f(&mut s.json);
        }
        self.scroll.set_len(self.len());
    }
}

impl UpdatePane {
    /// `v`: the whole value under the details cursor, or from the tree every field of the
    /// selected event, in a box over the pane.
    pub(super) fn show_value(&mut self, out: &mut Out) {
        let picked = match (self.focus, self.details()) {
            (Focus::Details, Some(d)) => d.value_at_cursor(),
            (Focus::Tree, Some(d)) => Some(d.all_fields()),
            _ => None,
        };
        match picked {
            Some((title, value)) => {
                let mut view = ValueView::new(title, value);
                view.set_area(self.area);
                self.whole_value = Some(view);
            }
            None => out.info("no value under the cursor"),
        }
    }

    /// A details command. Returns whether it was used.
    pub(super) fn details_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        let has_tree = matches!(self.content, Some(Content::Tx(_)));
        let Some(d) = self.details_mut() else {
            return false;
        };
        let spot = d.cursor_spot();
        match cmd {
            Command::Up => d.scroll.up(1),
            Command::Down => d.scroll.down(1),
            Command::PageUp => d.scroll.page_up(),
            Command::PageDown => d.scroll.page_down(),
            Command::Top => d.scroll.top(),
            Command::Bottom => d.scroll.bottom(),
            Command::Toggle | Command::Select => match spot {
                Spot::Json(..) => {
                    d.with_json(JsonView::toggle);
                }
                Spot::Header(s) => d.toggle_section(s),
                Spot::Field(i) => {
                    if let Some(target) = d.fields[i].open.clone() {
                        self.navigate(&target, Want::Nothing, sh, out);
                    }
                }
                Spot::Nowhere => {}
            },
            Command::Expand | Command::Right => match spot {
                Spot::Json(..) => {
                    d.with_json(JsonView::expand);
                }
                Spot::Header(s) => {
                    if d.sections.get(s).is_some_and(|x| x.json.visible_len() <= 1) {
                        d.toggle_section(s);
                    }
                    d.scroll.down(1);
                }
                _ => d.scroll.down(1),
            },
            Command::Collapse | Command::Left => match spot {
                Spot::Json(_, local) if local > 0 => {
                    d.with_json(JsonView::collapse);
                }
                _ => {
                    if has_tree {
                        self.focus = Focus::Tree;
                    }
                }
            },
            Command::Parent => match spot {
                Spot::Json(_, local) if local > 0 => {
                    d.with_json(JsonView::parent);
                }
                Spot::Json(s, _) => d.scroll.select(d.section_start(s)),
                _ => {
                    if has_tree {
                        self.focus = Focus::Tree;
                        self.tree_command(Command::Parent);
                    }
                }
            },
            Command::ExpandAll => d.for_each_json(JsonView::expand_all),
            Command::CollapseAll => d.for_each_json(JsonView::collapse_all),
            _ => return false,
        }
        true
    }

    pub(super) fn render_details(
        &self,
        d: &Details,
        areas: &Areas,
        buf: &mut Buffer,
        sh: &Shared,
        theme: &Theme,
        focused: bool,
    ) {
        let active = focused && self.focus == Focus::Details;
        let hint = match (&self.content, active) {
            (Some(Content::Tx(_)), true) => "  ← tree",
            (Some(Content::Tx(_)), false) => "  → details",
            _ => "",
        };
        let hint = if d.hscroll > 0 {
            format!("{hint} · +{} cols", d.hscroll)
        } else {
            hint.to_string()
        };
        render_title(
            areas.details_title,
            buf,
            theme,
            active,
            "Details",
            &d.title,
            &hint,
        );
        let area = areas.details;
        if area.width == 0 || area.height == 0 {
            return;
        }
        let width = usize::from(area.width);
        let range = d.scroll.visible_range(usize::from(area.height));
        let cursor = d.scroll.cursor();
        // Rows of JSON sections are built per section, only for the visible part.
        let mut row = range.start;
        while row < range.end {
            let y = area.y + (row - range.start) as u16;
            match d.spot(row) {
                Spot::Field(i) => {
                    let line = field_line(&d.fields[i], width, d.hscroll, sh, theme);
                    buf.set_line(area.x, y, &line, area.width);
                    row += 1;
                }
                Spot::Header(s) => {
                    let sec = &d.sections[s];
                    let mut text = format!("── {} ", sec.name);
                    let used = text.width();
                    text.push_str(&"─".repeat(width.saturating_sub(used)));
                    let line = Line::styled(safe_line(&text, width).into_owned(), theme.title);
                    buf.set_line(area.x, y, &line, area.width);
                    row += 1;
                }
                Spot::Json(s, local) => {
                    let json = &d.sections[s].json;
                    let take = (json.visible_len() - local).min(range.end - row);
                    let virtual_width =
                        u16::try_from(usize::from(area.width) + d.hscroll).unwrap_or(u16::MAX);
                    for (k, line) in json
                        .lines_visible(local..local + take, theme, virtual_width)
                        .into_iter()
                        .enumerate()
                    {
                        let line = skip_columns(line, d.hscroll, theme);
                        buf.set_line(area.x, y + k as u16, &line, area.width);
                    }
                    row += take.max(1);
                }
                Spot::Nowhere => break,
            }
        }
        if range.contains(&cursor) {
            let y = area.y + (cursor - range.start) as u16;
            buf.set_style(
                Rect::new(area.x, y, area.width, 1),
                theme.selection_style(active),
            );
        }
    }
}

/// One field row: the label, then the value; ids in it shortened in the middle to fit
/// ([`fit_id`]), or, scrolled sideways by `hscroll` columns, the whole value from there on.
fn field_line<'a>(
    f: &'a Field,
    width: usize,
    hscroll: usize,
    sh: &Shared,
    theme: &Theme,
) -> Line<'a> {
    let label = if f.first { f.name } else { "" };
    let label = format!("{label:<LABEL_WIDTH$}");
    let label = safe_line(&label, width).into_owned();
    let left = width.saturating_sub(label.width());
    let (value, style) = match f.style {
        FieldStyle::Time => (fmt_time(&f.value, sh), theme.time),
        FieldStyle::Id => (f.value.clone(), theme.id),
        FieldStyle::EventId => (f.value.clone(), theme.id),
        FieldStyle::Party => (f.value.clone(), theme.party),
        FieldStyle::Text => (f.value.clone(), Style::default()),
        FieldStyle::Accent => (f.value.clone(), theme.accent),
        FieldStyle::Muted => (f.value.clone(), theme.muted),
        FieldStyle::Created => (f.value.clone(), theme.created),
        FieldStyle::Exercised => (f.value.clone(), theme.exercised),
        FieldStyle::Archived => (f.value.clone(), theme.archived),
        FieldStyle::Link => (f.value.clone(), theme.id),
    };
    let suffix = if f.open.is_some() {
        "  Enter: open"
    } else {
        ""
    };
    let room = left.saturating_sub(if left > suffix.width() + 8 {
        suffix.width()
    } else {
        0
    });
    let shown = if hscroll == 0 {
        safe_line(&fit_id(&value, room), room).into_owned()
    } else {
        let line = Line::from(Span::styled(sanitize(&value).into_owned(), style));
        let line = skip_columns(line, hscroll, theme);
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        truncate_width(&text, room).into_owned()
    };
    let mut spans = vec![Span::styled(label, theme.muted), Span::styled(shown, style)];
    if !suffix.is_empty() && room < left {
        spans.push(Span::styled(suffix, theme.muted));
    }
    Line::from(spans)
}

pub(super) fn field(name: &'static str, value: impl Into<String>, style: FieldStyle) -> Field {
    Field {
        name,
        first: true,
        value: value.into(),
        style,
        open: None,
    }
}

/// One row per item (label on the first only); `-` when empty.
fn list_fields(out: &mut Vec<Field>, name: &'static str, items: &[String], style: FieldStyle) {
    if items.is_empty() {
        out.push(field(name, "-", FieldStyle::Muted));
        return;
    }
    for (i, item) in items.iter().enumerate() {
        out.push(Field {
            first: i == 0,
            ..field(name, item.clone(), style)
        });
    }
}

pub(super) fn json_section(name: &'static str, raw: &RawJson) -> Section {
    let value = raw
        .to_value()
        .unwrap_or_else(|e| Value::String(format!("(cannot show this value: {e})")));
    Section {
        name,
        json: JsonView::new(&value),
    }
}

/// The package id of a template id (`pkg:Module:Entity`).
fn package_id(template_id: &str) -> &str {
    match template_id.split_once(':') {
        Some((pkg, rest)) if rest.contains(':') => pkg,
        _ => "",
    }
}

fn package_value(package_name: &str, template_id: &str) -> String {
    let pkg = package_id(template_id);
    match (package_name.is_empty(), pkg.is_empty()) {
        // The whole package id: drawn shortened in the middle to fit (`fit_id`).
        (false, false) => format!("{package_name}  {pkg}"),
        (false, true) => package_name.to_string(),
        (true, false) => pkg.to_string(),
        (true, true) => "-".into(),
    }
}

/// The first rows of an event's details: event, contract, the choice of an exercise, template
/// and package.
fn event_head_fields(
    fields: &mut Vec<Field>,
    (event_id, contract_id): (&str, &str),
    choice: Option<&str>,
    (template_id, package_name): (&str, &str),
) {
    fields.push(field("event", event_id.to_owned(), FieldStyle::EventId));
    fields.push(field("contract", contract_id.to_owned(), FieldStyle::Id));
    if let Some(choice) = choice {
        fields.push(field("choice", choice.to_owned(), FieldStyle::Exercised));
    }
    fields.push(field(
        "template",
        short_template(template_id),
        FieldStyle::Accent,
    ));
    fields.push(field(
        "package",
        package_value(package_name, template_id),
        FieldStyle::Text,
    ));
}

pub(super) fn created_fields(c: &CreatedEvent, fields: &mut Vec<Field>) {
    event_head_fields(
        fields,
        (&c.event_id, &c.contract_id),
        None,
        (&c.template_id, &c.package_name),
    );
    if !c.created_at.is_empty() {
        fields.push(field("created at", c.created_at.clone(), FieldStyle::Time));
    }
    list_fields(fields, "signatories", &c.signatories, FieldStyle::Party);
    list_fields(fields, "observers", &c.observers, FieldStyle::Party);
}

fn exercised_fields(e: &ExercisedEvent, fields: &mut Vec<Field>) {
    event_head_fields(
        fields,
        (&e.event_id, &e.contract_id),
        Some(&e.choice),
        (&e.template_id, &e.package_name),
    );
    fields.push(if e.consuming {
        field(
            "consuming",
            "yes (archives the contract)",
            FieldStyle::Archived,
        )
    } else {
        field("consuming", "no", FieldStyle::Muted)
    });
    list_fields(fields, "acting", &e.acting_parties, FieldStyle::Party);
    match e.interface_id.as_deref().filter(|i| !i.is_empty()) {
        Some(i) => fields.push(field("interface", short_template(i), FieldStyle::Accent)),
        None => fields.push(field("interface", "-", FieldStyle::Muted)),
    }
    fields.push(field(
        "children",
        e.child_event_ids.len().to_string(),
        FieldStyle::Text,
    ));
}

/// The details of tree node `node`.
pub(super) fn tx_details(tree: &ScanTree, node: Option<NodeId>) -> Details {
    let Some(node) = node else {
        return Details::new(
            String::new(),
            vec![field("events", "none", FieldStyle::Muted)],
            Vec::new(),
            None,
        );
    };
    let mut fields = Vec::new();
    let mut sections = Vec::new();
    let title = match tree.event(node) {
        Some(TreeEvent::Created(c)) => {
            created_fields(c, &mut fields);
            sections.push(json_section("create_arguments", &c.create_arguments));
            format!("created {}", short_template(&c.template_id))
        }
        Some(TreeEvent::Exercised(e)) => {
            exercised_fields(e, &mut fields);
            sections.push(json_section("choice_argument", &e.choice_argument));
            sections.push(json_section("exercise_result", &e.exercise_result));
            format!("exercised {}", e.choice)
        }
        Some(TreeEvent::Unknown {
            event_type,
            event_id,
            raw,
        }) => {
            fields.push(field("event", event_id.clone(), FieldStyle::EventId));
            fields.push(field("event type", event_type.clone(), FieldStyle::Accent));
            fields.push(field(
                "note",
                "an event kind this version does not know",
                FieldStyle::Muted,
            ));
            sections.push(json_section("event", raw));
            event_type.clone()
        }
        None => {
            let id = tree.event_id(node).unwrap_or_default();
            fields.push(field("event", id, FieldStyle::EventId));
            fields.push(field(
                "note",
                "listed as a child but missing from events_by_id",
                FieldStyle::Archived,
            ));
            "missing event".into()
        }
    };
    // A key repeated in events_by_id decodes to its last copy: say so rather than hide it.
    let copies = tree.copies_of(node);
    if copies > 1 {
        let note = format!("{copies} copies in events_by_id; the last is shown");
        fields.insert(0, field("duplicate", note, FieldStyle::Archived));
    } else if !tree.duplicates().is_empty() {
        let n = tree.duplicates().len();
        let note = format!("{n} other id(s) repeated in events_by_id");
        fields.push(field("duplicate", note, FieldStyle::Muted));
    }
    Details::new(title, fields, sections, Some(node))
}
