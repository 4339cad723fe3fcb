//! The whole-history search of the History pane (`F`): the query of the History filter's
//! fielded terms (`party:`, `template:`, `choice:`, `contract:`, `id:`;
//! [`crate::model::index::query`]) asked of the local index, not of the loaded rows. The view
//! says so in its title, shows the total, lists the matches newest first in pages read as the
//! selection nears the end (only the rows on screen are drawn), and Enter opens an update in
//! the Update pane (from the index's body when no node is asked). The list's columns are a
//! [`Columns`] as History's table: the Action and the Parties share the room the others leave.
//!
//! ```text
//! ┌Whole index · party:alice::1220… · 1,234 matches (200 read)──────────────────────────┐
//! │Time (UTC)              Update          Kind         Action                 Parties  │
//! │2026-11-27 10:41:07.123 d17b…9f1e       transaction  AmuletRules_Transfer   alice +2 │
//! │…                                                                                    │
//! │the whole local index, not the loaded rows · ↵ open · F new search · Esc loaded rows │
//! └─────────────────────────────────────────────────────────────────────────────────────┘
//! ```

use std::borrow::Cow;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};
use unicode_width::UnicodeWidthStr;

use crate::model::format::parse_time_micros;
use crate::model::format::short_party;
use crate::model::id_pattern::IdPattern;
use crate::model::index::SearchRow;
use crate::model::index::query::{Query, SEARCH_SYNTAX};
use crate::model::index::read::{IndexRead, SEARCH_PAGE, next_page_after};
use crate::model::locator::Locator;
use crate::msg::{Command, Fetched, Request};
use crate::ui::format::group_thousands;
use crate::ui::layout::below_heading;
use crate::ui::safe::safe_line;
use crate::ui::table::{Cell, Column, Columns, Draw, TableRow, Width};
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

use super::super::{AppEvent, Out, RenderCtx, Shared};
use super::HistoryPane;
use super::context::HitContext;
use super::table::{distinct_id, put_line};
use crate::feed::timeline::PagedList;

/// Most rows one search keeps (a larger result says how to narrow it).
pub const MAX_KEPT: usize = 20_000;
/// A next page is read when the selection is this close to the last row read.
const READ_AHEAD: usize = 50;

/// What `F` says without a usable index.
pub const NO_INDEX: &str = "the whole-history search reads the local index, and this profile has none: start one with `cantonscope index sync --from -30d --follow` (in a tmux pane)";

/// A whole-history search: its query and its rows, a [`PagedList`] read page after page
/// (each page's bound is the last row of the page before: keyset, newest first) as the
/// selection nears the last row read; at most [`MAX_KEPT`] rows.
#[derive(Debug, Clone)]
pub struct IndexSearch {
    /// The query input, while open.
    input: Option<TextInput>,
    /// The query shown (as typed).
    text: String,
    query: Option<Query>,
    list: PagedList<SearchRow>,
    /// Every page was read.
    ended: bool,
    /// An abbreviated update id looked up here (`:event 9237fcb34d82…` not loaded) and the
    /// view to open on it: the one match of the first page opens it, else the matches stay
    /// listed.
    open_unique: Option<(IdPattern, Locator)>,
    /// The context of a hit (`N`), shown instead of the results while open.
    context: Option<HitContext>,
}

impl IndexSearch {
    fn new(text: &str) -> Self {
        let mut input = TextInput::single_line().with_text(text);
        input.set_placeholder("party:P template:T choice:C contract:PREFIX id:PREFIX");
        IndexSearch {
            input: Some(input),
            text: String::new(),
            query: None,
            list: PagedList::new(SEARCH_PAGE, MAX_KEPT / SEARCH_PAGE),
            ended: false,
            open_unique: None,
            context: None,
        }
    }

    /// Whether the query input is open.
    pub fn is_typing(&self) -> bool {
        self.input.is_some()
    }

    /// The rows read so far.
    pub fn rows(&self) -> Vec<&SearchRow> {
        (0..self.read()).filter_map(|i| self.list.row(i)).collect()
    }

    /// How many rows were read.
    fn read(&self) -> usize {
        self.list.scroll.len()
    }

    /// Every match, once counted.
    pub fn total(&self) -> Option<u64> {
        self.list.total()
    }

    /// The selected row.
    pub fn selected(&self) -> Option<&SearchRow> {
        self.list.selected()
    }

    /// The context of a hit, while shown.
    pub fn context(&self) -> Option<&HitContext> {
        self.context.as_ref()
    }

    /// Whether a page is being read.
    pub fn is_loading(&self) -> bool {
        self.list.is_loading()
    }

    /// Sends the read of `page` (the next after the rows read).
    fn read_page(&mut self, page: usize, sh: &mut Shared, out: &mut Out) {
        let Some(query) = &self.query else {
            return;
        };
        let (until, skip) = if page == 0 {
            (None, Vec::new())
        } else {
            let Some((until, skip)) = self.list.page(page - 1).and_then(next_page_after) else {
                return;
            };
            (Some(until), skip)
        };
        let id = out.fetch(
            sh,
            Request::Index(IndexRead::Search {
                query: query.clone(),
                until,
                skip,
                limit: SEARCH_PAGE,
                count: page == 0,
            }),
        );
        self.list.sent(id, page);
    }

    /// Runs the query typed: the first page and the count, or the reason it is refused.
    fn submit(&mut self, text: &str, sh: &mut Shared, out: &mut Out) -> bool {
        let query = match Query::parse(&[text]) {
            Ok(q) => q,
            Err(e) => {
                if let Some(input) = &mut self.input {
                    input.set_validation(Some(e.clone()));
                }
                out.warn(format!("whole-history search: {e}"));
                return false;
            }
        };
        text.trim().clone_into(&mut self.text);
        let viewport = self.list.scroll.viewport();
        self.list = PagedList::new(SEARCH_PAGE, MAX_KEPT / SEARCH_PAGE);
        self.list.scroll.set_viewport(viewport);
        self.ended = false;
        self.query = Some(query);
        self.read_page(0, sh, out);
        true
    }

    /// Reads the next page when the selection nears the last row read.
    fn read_ahead(&mut self, sh: &mut Shared, out: &mut Out) {
        let read = self.read();
        if self.ended || self.list.is_loading() || read >= MAX_KEPT {
            return;
        }
        if self.list.cursor() + READ_AHEAD < read {
            return;
        }
        self.read_page(read / SEARCH_PAGE, sh, out);
    }

    fn on_reply(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) -> bool {
        match self.list.accept(reply, |r, _| r) {
            None => false,
            Some(Ok(page)) => {
                self.ended = page.rows < SEARCH_PAGE;
                let read = page.page * SEARCH_PAGE + page.rows;
                self.list.scroll.set_len(read);
                if let Some((pattern, then)) = self.open_unique.take() {
                    let found: Vec<String> = self
                        .rows()
                        .iter()
                        .filter(|r| pattern.matches(&r.update_id))
                        .map(|r| r.update_id.clone())
                        .collect();
                    match found.as_slice() {
                        [one] if self.ended || read < SEARCH_PAGE => {
                            out.events.push(AppEvent::Open(then.with_update_id(one)));
                        }
                        [] => out.warn(format!(
                            "{}: not found among the loaded updates nor in the local index",
                            safe_line(&self.text, 60)
                        )),
                        many => out.info(format!(
                            "{} updates of the local index match: ↵ opens one",
                            many.len()
                        )),
                    }
                }
                if read >= MAX_KEPT && !self.ended {
                    out.info(format!(
                        "the first {} matches are shown: add a term to narrow the search",
                        group_thousands(MAX_KEPT)
                    ));
                }
                self.read_ahead(sh, out);
                true
            }
            Some(Err(e)) => {
                out.error(format!("whole-history search: {e}"));
                true
            }
        }
    }
}

impl HistoryPane {
    /// `F`: opens the whole-history search (its input), or says how to get an index.
    pub(super) fn open_index_search(&mut self, sh: &Shared, out: &mut Out) {
        if !sh.index.usable() {
            match &sh.index.failure {
                Some(why) => out.warn(format!("the local index cannot be used: {why}")),
                None => out.info(NO_INDEX),
            }
            return;
        }
        if let Some(s) = &mut self.index_search {
            let mut input = TextInput::single_line().with_text(&s.text);
            input.move_to_end();
            s.input = Some(input);
        } else {
            // Starts from the History filter when it is made of fielded terms.
            let text = self
                .filter_text()
                .filter(|t| Query::parse(&[*t]).is_ok())
                .unwrap_or("")
                .to_owned();
            self.index_search = Some(IndexSearch::new(&text));
        }
    }

    /// `:event 9237fcb34d82…` for an update not loaded: the local index searched for the
    /// abbreviation (head and tail), the view `then` opened on the one match; `false` without
    /// a usable index.
    pub fn search_index_for_id(
        &mut self,
        pattern: IdPattern,
        then: Locator,
        sh: &mut Shared,
        out: &mut Out,
    ) -> bool {
        if !sh.index.usable() {
            return false;
        }
        let mut search = IndexSearch::new("");
        search.input = None;
        if !search.submit(&pattern.search_term(), sh, out) {
            return false;
        }
        search.open_unique = Some((pattern, then));
        self.index_search = Some(search);
        true
    }

    /// The whole-history search, when open.
    pub fn index_search(&self) -> Option<&IndexSearch> {
        self.index_search.as_ref()
    }

    /// A key for the search's query input.
    pub(super) fn on_index_search_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        let Some(s) = &mut self.index_search else {
            return;
        };
        let Some(input) = &mut s.input else {
            return;
        };
        match input.handle_key(key) {
            InputOutcome::Submitted(text) => {
                if s.submit(&text, sh, out) {
                    s.input = None;
                }
            }
            InputOutcome::Cancelled => {
                s.input = None;
                if s.query.is_none() {
                    self.index_search = None;
                }
            }
            InputOutcome::Changed => input.set_validation(None),
            InputOutcome::Consumed | InputOutcome::Ignored => {}
        }
    }

    /// Pasted text into the query input.
    pub(super) fn paste_index_search(&mut self, text: &str) -> bool {
        match self.index_search.as_mut().and_then(|s| s.input.as_mut()) {
            Some(input) => {
                input.insert_str(&text.replace(['\n', '\r'], " "));
                true
            }
            None => false,
        }
    }

    /// A command while the search's results are shown; `None` when it is not the search's.
    pub(super) fn index_search_command(
        &mut self,
        cmd: Command,
        sh: &mut Shared,
        out: &mut Out,
    ) -> Option<bool> {
        let s = self.index_search.as_mut()?;
        if let Some(c) = &mut s.context {
            match cmd {
                cmd if cmd.is_move() => {
                    c.scroll.navigate(cmd);
                }
                Command::Select | Command::Copy | Command::CopyUpdateId => {
                    open_or_copy(cmd, c.selected(), out);
                }
                Command::Context => c.next_term(sh, out),
                Command::Back | Command::Cancel => s.context = None,
                _ => return None,
            }
            return Some(true);
        }
        match cmd {
            cmd if cmd.is_move() => {
                s.list.scroll.navigate(cmd);
                s.read_ahead(sh, out);
            }
            Command::Select | Command::Copy | Command::CopyUpdateId => {
                open_or_copy(cmd, s.selected(), out);
            }
            Command::Context if s.input.is_none() => {
                if let Some(row) = s.selected().cloned() {
                    s.context = HitContext::open(&s.text, &row, sh, out);
                    let rows = self.index_search_viewport();
                    if let Some(c) = self.index_search.as_mut().and_then(|s| s.context.as_mut()) {
                        c.scroll.set_viewport(rows);
                    }
                }
            }
            Command::SearchIndex | Command::Filter => self.open_index_search(sh, out),
            Command::Back | Command::Cancel => self.index_search = None,
            _ => return None,
        }
        Some(true)
    }

    /// The reply to a search read; whether it was one.
    pub(super) fn on_index_search_reply(
        &mut self,
        reply: &Fetched,
        sh: &mut Shared,
        out: &mut Out,
    ) -> bool {
        if let Some(c) = self.index_search.as_mut().and_then(|s| s.context.as_mut())
            && c.on_reply(reply)
        {
            return true;
        }
        self.index_search
            .as_mut()
            .is_some_and(|s| s.on_reply(reply, sh, out))
    }

    /// Rows of the results list in the pane's area.
    pub(super) fn index_search_viewport(&self) -> usize {
        usize::from(self.area.height.saturating_sub(5).max(1))
    }

    /// Keeps the search's page size in step with the area.
    pub(super) fn index_search_set_viewport(&mut self) {
        let rows = self.index_search_viewport();
        if let Some(s) = &mut self.index_search {
            s.list.scroll.set_viewport(rows);
            if let Some(c) = &mut s.context {
                c.scroll.set_viewport(rows);
            }
        }
    }

    /// Draws the search over the whole pane.
    pub(super) fn render_index_search(
        &self,
        s: &IndexSearch,
        area: Rect,
        buf: &mut Buffer,
        cx: RenderCtx<'_>,
    ) {
        if let Some(c) = &s.context {
            self.render_context(c, area, buf, cx);
            return;
        }
        let RenderCtx { sh, theme, focused } = cx;
        let width = usize::from(area.width.saturating_sub(2));
        let mut title = vec![Span::styled("Whole index", theme.title)];
        if !s.text.is_empty() {
            title.push(Span::styled(
                format!(" · {}", safe_line(&s.text, width / 2)),
                theme.accent,
            ));
        }
        let count = match (s.total(), s.is_loading() && s.read() == 0) {
            (_, true) => " · searching…".to_owned(),
            (Some(1), _) => format!(" · 1 match ({} read)", group_thousands(s.read())),
            (Some(n), _) => format!(
                " · {} matches ({} read)",
                group_thousands(n),
                group_thousands(s.read())
            ),
            (None, _) => String::new(),
        };
        title.push(Span::styled(count, theme.muted));
        let Some(inner) = framed(title, area, buf, theme, focused) else {
            return;
        };
        let bottom = inner.y + inner.height - 1;
        // The last row: the input while typing, else what this is and its keys.
        if let Some(input) = &s.input {
            let row = Rect::new(inner.x, bottom, inner.width, 1);
            input.render_prompted(row, buf, "F ", theme, focused);
            if let Some(e) = input.validation() {
                put_line(
                    buf,
                    inner.x,
                    bottom.saturating_sub(1),
                    inner.width,
                    e,
                    theme.status_warn,
                );
            }
        } else {
            let keys = "the whole local index, not the loaded rows · ↵ open · N context · y copy id · F new search · Esc back to the loaded rows";
            put_line(buf, inner.x, bottom, inner.width, keys, theme.muted);
        }
        let draw = Draw::new(sh, theme, focused);
        let Some((cols, rows)) = headed_list(inner, buf, &draw) else {
            return;
        };
        let w = usize::from(rows.width);
        if s.read() == 0 {
            let text = if s.is_loading() {
                "searching the whole local index…".to_owned()
            } else if let Some(e) = s.list.error() {
                e.to_owned()
            } else if s.query.is_some() {
                "no update of the index matches".to_owned()
            } else {
                format!("type a query and ↵: {SEARCH_SYNTAX}")
            };
            buf.set_line(
                rows.x,
                rows.y,
                &Line::styled(safe_line(&text, w).into_owned(), theme.muted),
                rows.width,
            );
            return;
        }
        cols.render_rows(rows, buf, &s.list.scroll, |i| s.list.row(i), &draw);
    }
}

impl HistoryPane {
    /// Draws a hit's context over the whole pane: the updates around it, the hit selected.
    fn render_context(&self, c: &HitContext, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        let width = usize::from(area.width.saturating_sub(2));
        let mut title = vec![
            Span::styled("Context", theme.title),
            Span::styled(
                format!(" · {}", safe_line(c.term(), width / 2)),
                theme.accent,
            ),
        ];
        let count = if c.is_loading() {
            " · reading…".to_owned()
        } else {
            format!(" · {} before, {} after the hit", c.before, c.after)
        };
        title.push(Span::styled(count, theme.muted));
        let Some(inner) = framed(title, area, buf, theme, focused) else {
            return;
        };
        let bottom = inner.y + inner.height - 1;
        let keys = format!(
            "updates touching {} nearest the hit (▸), newest first · N next party or contract ({} of {}) · ↵ open · y copy id · Esc back to the results",
            safe_line(c.term(), 40),
            c.which + 1,
            c.terms.len()
        );
        put_line(buf, inner.x, bottom, inner.width, &keys, theme.muted);
        let draw = Draw::new(sh, theme, focused);
        let Some((cols, rows)) = headed_list(inner, buf, &draw) else {
            return;
        };
        if let Some(e) = &c.error {
            put_line(buf, rows.x, rows.y, rows.width, e, theme.status_warn);
            return;
        }
        cols.render_rows(rows, buf, &c.scroll, |i| c.rows.get(i), &draw);
        // The hit's mark, in the row's first cell when it is on screen.
        let range = c.scroll.visible_range(usize::from(rows.height));
        if range.contains(&c.hit_row) {
            let y = rows.y + u16::try_from(c.hit_row - range.start).unwrap_or(0);
            if let Some(cell) = buf.cell_mut((rows.x, y)) {
                cell.set_symbol("▸");
            }
        }
    }
}

/// The list's frame with `title` drawn over `area`: the room inside, `None` when too small.
fn framed(
    title: Vec<Span<'_>>,
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
    focused: bool,
) -> Option<Rect> {
    let block = Block::bordered()
        .border_style(theme.border_style(focused))
        .title(Line::from(title));
    let inner = block.inner(area);
    block.render(area, buf);
    (inner.height >= 3 && inner.width >= 10).then_some(inner)
}

/// The list's columns with their header drawn in `inner` (its last two rows left for the
/// keys), and the room for its rows; `None` when there is none.
fn headed_list(
    inner: Rect,
    buf: &mut Buffer,
    draw: &Draw<'_, Shared>,
) -> Option<(Columns<SearchCol>, Rect)> {
    let list = Rect::new(
        inner.x,
        inner.y,
        inner.width,
        inner.height.saturating_sub(2),
    );
    if list.height == 0 {
        return None;
    }
    let cols = search_columns();
    cols.render_header::<SearchRow>(Rect::new(list.x, list.y, list.width, 1), buf, draw);
    Some((cols, below_heading(list)))
}

/// Enter opens the selected row's update, `y` copies its id (the results and a hit's context).
fn open_or_copy(cmd: Command, row: Option<&SearchRow>, out: &mut Out) {
    let Some(row) = row else { return };
    if cmd == Command::Select {
        out.events.push(AppEvent::OpenUpdate {
            update_id: row.update_id.clone(),
            event_id: None,
        });
        if row.is_verdict_only() {
            // No update to show: its verdict (kept, or the scan's) is what there is.
            out.events
                .push(AppEvent::Focus(crate::msg::PaneId::Verdict));
        }
    } else {
        out.copy("update id", row.update_id.clone());
    }
}

/// A column of the whole-index search's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchCol {
    Time,
    Id,
    Kind,
    Action,
    Parties,
}

/// The search's columns, laid out as History's table is: the Action and the Parties share what
/// the time, the id and the kind leave (two thirds to the Action); a narrow list drops the
/// Parties first.
fn search_columns() -> Columns<SearchCol> {
    let col = |id, title, width| Column::new(id, title, width).unsortable();
    Columns::new(vec![
        col(SearchCol::Time, "Time", Width::Fixed(23)),
        col(
            SearchCol::Id,
            "Update",
            Width::Wide {
                narrow: 12,
                wide: 18,
                from: 110,
            },
        ),
        col(SearchCol::Kind, "Kind", Width::Fixed(11)),
        col(
            SearchCol::Action,
            "Action",
            Width::Fill { min: 20, weight: 2 },
        ),
        col(
            SearchCol::Parties,
            "Parties",
            Width::Fill { min: 12, weight: 1 },
        )
        .priority(1),
    ])
}

impl TableRow for SearchRow {
    type Col = SearchCol;
    /// Times in the session's zone.
    type Ctx = Shared;

    fn cell(&self, col: SearchCol, width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        match col {
            SearchCol::Time => Cell::new(
                parse_time_micros(&self.record_time)
                    .map_or_else(|| self.record_time.clone(), |t| sh.format_time(t)),
                theme.time,
            ),
            SearchCol::Id => Cell::new(distinct_id(&self.update_id, width), theme.id),
            SearchCol::Kind => Cell::new(self.kind.as_str(), Style::default()),
            SearchCol::Action => Cell::new(self.root_action.as_str(), Style::default()),
            SearchCol::Parties => Cell::new(
                parties_within(&self.parties, usize::from(width)),
                theme.muted,
            ),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.update_id)
    }

    fn title(col: SearchCol, sh: &Shared) -> Option<Cow<'static, str>> {
        (col == SearchCol::Time).then(|| Cow::Owned(format!("Time ({})", sh.zone_label())))
    }
}

/// The parties' names (before `::`) as many as fit in `width`, the others counted:
/// `DSO, alice, bob`, `DSO, alice +2`, `DSO +3`.
fn parties_within(parties: &[String], width: usize) -> String {
    let names: Vec<&str> = parties.iter().map(|p| short_party(p)).collect();
    (1..=names.len())
        .rev()
        .map(|shown| match names.len() - shown {
            0 => names.join(", "),
            more => format!("{} +{more}", names[..shown].join(", ")),
        })
        .find(|text| text.width() <= width)
        .unwrap_or_else(|| match names.split_first() {
            Some((first, [])) => (*first).to_owned(),
            Some((first, rest)) => format!("{first} +{}", rest.len()),
            None => String::new(),
        })
}
