//! The Governance pane (0): the DSO's open vote requests, as scan 0 serves them
//! (`/v0/admin/sv/voterequests`), against the DSO of `/v0/dso` (its SVs and voting threshold).
//!
//! ```text
//! ┌Governance · Open · 4 open · 1 needs my vote (Alpha-SV)────────────────────────┐
//! │ Open │ Detail │ Price votes   [ ] section                                       │
//! │Deadline   Action                          Requester  Votes           My vote  │
//! │in 3h 12m  update reward weight of D …     Alpha-SV   4 of 5 · 2✓ 0✗ 3? needed │
//! └───────────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! - **Open**: every active request, soonest deadline first: the action in words, the
//!   requester, the deadline as a countdown, the votes against the threshold (current SVs only)
//!   and my SV's vote (needed / accepted / rejected). Enter opens it in Detail.
//! - **Detail**: the request in full: action, reason, deadlines, the config diff of a config
//!   action (against its `baseConfig`, else the config in force), every SV's vote with its
//!   reason and cast time, the tracking and contract ids, and whether the request's update is in
//!   the loaded history (Enter opens it there). Esc goes back to Open.
//! - **Price votes**: each SV's amulet price vote and when it was cast, the median, the spread
//!   and the price in force (`/v0/amulet-price/votes`, read when the section is first shown).
//!
//! The requests are read when the pane is first shown, then every `governance_interval` (not at
//! the history's refresh rate); `r` reads them now.

mod across;
mod detail;
mod past;
mod prices;
mod results;
mod svs;

pub use across::{ACROSS_IDLE_TEXT, AcrossView, MISSING_HISTORY_NOTE, RECENT_VOTE_NOTE};
pub use detail::{NOT_LOADED_TEXT, creation_update, detail_lines};
pub use past::{result_lines, result_update};
pub use prices::{price_in_force, price_lines};
pub use results::{PAGE_SIZE, ResultsView};
pub use svs::{SvRow, SvsView};

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::api::scan;
use crate::api::scan::AmuletPriceVotes;
use crate::config::keymap::KeyContext;
use crate::feed::dashboard::GovernanceWatch;
use crate::model::format::human_duration;
use crate::model::governance::{MyVote, OpenRequest, Urgency};
use crate::msg::tabs::{Tabs, tabs};
use crate::msg::{Command, Fetched, Request, Response};
use crate::panes::{AppEvent, Out, Pane, PaneId, RenderCtx, Shared};
use crate::ui::explain::explain;
use crate::ui::form::paragraph;
use crate::ui::load::Load;
use crate::ui::safe::safe_line;
use crate::ui::sections::framed_sections;
use crate::ui::table::{
    Cell, Column, Columns, DataTable, Draw, SortKey, TableInput, TableRow, Width,
};
use crate::ui::theme::Theme;

tabs! {
    /// The sections of the pane, in tab order.
    pub enum GovSection {
        Open => "Open",
        Detail => "Detail",
        PriceVotes => "Price votes",
        Results => "Results",
        Svs => "SVs",
        Across => "Across scans",
    }
}

/// What Detail shows: an open request (from Open) or a past result (from Results).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DetailOf {
    #[default]
    Open,
    Result,
}

/// What Open says before the first answer.
pub const LOADING_TEXT: &str = "reading the open vote requests…";

/// What Open says when nothing is open.
pub const NONE_OPEN_TEXT: &str = "No vote request is open.";

/// What Detail says when no request is chosen.
pub const NO_DETAIL_TEXT: &str = "No request chosen: select one in Open and press Enter.";

/// `in 19h 59m`, or `passed 5m ago`.
pub fn deadline_words(left: i64) -> String {
    if left >= 0 {
        format!("in {}", human_duration(left))
    } else {
        format!("passed {} ago", human_duration(-left))
    }
}

/// The style of a deadline `left` µs away: red under two hours, amber under a day.
pub fn urgency_style(left: i64, theme: &Theme) -> Style {
    match Urgency::of(left) {
        Urgency::Urgent => theme.status_err,
        Urgency::Soon => theme.status_warn,
        Urgency::Calm => Style::default(),
    }
}

/// The style of my SV's vote.
pub fn my_vote_style(vote: MyVote, theme: &Theme) -> Style {
    match vote {
        MyVote::Needed => theme.status_warn,
        MyVote::Accepted => theme.status_ok,
        MyVote::Rejected => theme.status_err,
    }
}

/// A column of Open (also the sort key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OpenCol {
    #[default]
    Deadline,
    Action,
    Requester,
    Votes,
    MyVote,
}

impl OpenCol {
    fn columns() -> Columns<OpenCol> {
        Columns::new(vec![
            Column::new(OpenCol::Deadline, "Deadline", Width::Fixed(16)),
            Column::new(OpenCol::Action, "Action", Width::fill(20)),
            Column::new(OpenCol::Requester, "Requester", requester_width(12)).priority(4),
            Column::new(
                OpenCol::Votes,
                "Votes",
                Width::Wide {
                    narrow: 17,
                    wide: 48,
                    from: 110,
                },
            )
            .priority(8),
            Column::new(OpenCol::MyVote, "My vote", Width::Fixed(8)).priority(9),
        ])
        .sorted_by(OpenCol::Deadline, false)
    }
}

/// The Requester column: 12 wide below 150 columns, else as wide as the longest name (up to
/// 40).
fn requester_width(longest: usize) -> Width {
    Width::Wide {
        narrow: 12,
        wide: u16::try_from(longest.clamp(12, 40)).unwrap_or(40),
        from: 150,
    }
}

/// The compact votes: `4/5 2✓ 0✗ 3?` (needed of threshold, accept, reject, not yet).
pub fn compact_votes(r: &OpenRequest) -> String {
    let t = &r.tally;
    let needed = t
        .threshold
        .map_or_else(|| "?".to_string(), |n| n.to_string());
    format!(
        "{}/{needed} {}✓ {}✗ {}?",
        t.accept, t.accept, t.reject, t.not_yet
    )
}

impl TableRow for OpenRequest {
    type Col = OpenCol;
    /// The time now (µs), for the countdowns.
    type Ctx = i64;

    fn cell(&self, col: OpenCol, width: u16, now: &i64, theme: &Theme) -> Cell<'_> {
        match col {
            OpenCol::Deadline => match self.deadline() {
                Some(at) => Cell::new(deadline_words(at - now), urgency_style(at - now, theme)),
                None => Cell::new(safe_line(&self.vote_before, 16).into_owned(), theme.muted),
            },
            OpenCol::Action => Cell::new(safe_line(&self.action, 400), Style::default()),
            OpenCol::Requester => Cell::new(safe_line(&self.requester, 60), theme.party),
            OpenCol::Votes => {
                let style = if self.tally.passes() {
                    theme.status_ok
                } else {
                    Style::default()
                };
                if usize::from(width) >= self.votes_words.chars().count() {
                    Cell::new(self.votes_words.as_str(), style)
                } else {
                    Cell::new(compact_votes(self), style)
                }
            }
            OpenCol::MyVote => match self.my_vote {
                Some(v) => Cell::new(v.word(), my_vote_style(v, theme)),
                None => Cell::new("unknown", theme.muted),
            },
        }
    }

    fn sort_key(&self, col: OpenCol) -> SortKey<'_> {
        match col {
            OpenCol::Deadline => self
                .deadline()
                .map_or(SortKey::Missing, |d| SortKey::Int(d.into())),
            OpenCol::Action => SortKey::Text(Cow::Borrowed(&self.action)),
            OpenCol::Requester => SortKey::Text(Cow::Borrowed(&self.requester)),
            OpenCol::Votes => SortKey::Int(self.tally.accept as i128),
            OpenCol::MyVote => {
                SortKey::Text(Cow::Borrowed(self.my_vote.map_or("unknown", MyVote::word)))
            }
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!(
            "{} {} {} {}",
            self.action, self.requester, self.action_name, self.key
        ))
    }
}

/// The Governance pane.
#[derive(Debug)]
pub struct GovernancePane {
    section: GovSection,
    /// Whether the pane was shown once (reading starts then).
    shown: bool,
    /// The open requests as last read, and when the next read is due.
    watch: GovernanceWatch,
    /// The open requests summarised, soonest deadline first.
    rows: Vec<OpenRequest>,
    table: DataTable<OpenCol>,
    /// The key (`trackingCid ?? contract id`) of the request shown in Detail.
    chosen: Option<String>,
    /// Each SV's amulet price vote, read when Price votes is first shown, then every
    /// `governance_interval` while the pane is shown.
    prices: Load<AmuletPriceVotes>,
    /// When the price votes are due again (µs).
    prices_due: i64,
    /// The first line of Detail (or Price votes) shown.
    scroll: usize,
    /// Whether Detail shows an open request or a past result.
    detail_of: DetailOf,
    /// The past result shown in Detail: its index in the results read.
    chosen_result: Option<usize>,
    /// The closed requests (Results).
    results: ResultsView,
    /// The SVs and their weight history (SVs).
    svs: SvsView,
    /// Every scan's count and active requests (Across scans).
    across: AcrossView,
    area: Rect,
    last_second: i64,
}

impl GovernancePane {
    /// A new pane (nothing read until it is shown).
    pub fn new(_sh: &Shared) -> Self {
        GovernancePane {
            section: GovSection::Open,
            shown: false,
            watch: GovernanceWatch::default(),
            rows: Vec::new(),
            table: DataTable::new(OpenCol::columns()),
            chosen: None,
            prices: Load::Idle,
            prices_due: i64::MIN,
            scroll: 0,
            detail_of: DetailOf::Open,
            chosen_result: None,
            results: ResultsView::default(),
            svs: SvsView::default(),
            across: AcrossView::default(),
            area: Rect::default(),
            last_second: i64::MIN,
        }
    }

    /// The section shown.
    pub fn section(&self) -> GovSection {
        self.section
    }

    /// When the open requests were last read (µs).
    pub fn read_at(&self) -> Option<i64> {
        self.watch.at
    }

    /// The open requests in display order.
    pub fn ordered(&self) -> Vec<&OpenRequest> {
        self.table.ordered(&self.rows).collect()
    }

    /// The request selected in Open.
    pub fn selected(&self) -> Option<&OpenRequest> {
        self.table.selected_row(&self.rows)
    }

    /// The request shown in Detail (when Detail shows an open request).
    pub fn chosen(&self) -> Option<&OpenRequest> {
        if self.detail_of != DetailOf::Open {
            return None;
        }
        let key = self.chosen.as_deref()?;
        self.rows.iter().find(|r| r.key == key)
    }

    /// What Detail shows.
    pub fn detail_of(&self) -> DetailOf {
        self.detail_of
    }

    /// The Results section.
    pub fn results(&self) -> &ResultsView {
        &self.results
    }

    /// Sets the results asked per page (from the next reading on; at least 1). The demo has
    /// few results: a small page shows its paging.
    pub fn set_results_page_size(&mut self, n: i64) {
        self.results.page_size = n.max(1);
    }

    /// The SVs section.
    pub fn svs(&self) -> &SvsView {
        &self.svs
    }

    /// The Across scans section.
    pub fn across(&self) -> &AcrossView {
        &self.across
    }

    /// The past result shown in Detail (when Detail shows one), as the scan sent it.
    pub fn chosen_result(&self) -> Option<&crate::api::scan::VoteResult> {
        if self.detail_of != DetailOf::Result {
            return None;
        }
        self.results.raw.get(self.chosen_result?)
    }

    /// Opens the result selected in Results in Detail.
    fn open_result(&mut self) -> bool {
        let Some(i) = self.results.selected_raw() else {
            return false;
        };
        self.chosen_result = Some(i);
        self.detail_of = DetailOf::Result;
        self.scroll = 0;
        self.section = GovSection::Detail;
        true
    }

    /// The lines of Detail.
    fn detail_lines(&self, sh: &Shared, theme: &Theme) -> Vec<Line<'static>> {
        let dso = sh.health.dso.info.as_deref();
        match self.detail_of {
            DetailOf::Open => match self.chosen() {
                Some(r) => detail::detail_lines(r, self.chosen_request(), dso, sh, theme),
                None => Vec::new(),
            },
            DetailOf::Result => match self
                .chosen_result
                .and_then(|i| Some((self.results.raw.get(i)?, self.results.rows.get(i)?)))
            {
                Some((result, row)) => {
                    past::result_lines(result, row, &self.results.raw, dso, sh, theme)
                }
                None => Vec::new(),
            },
        }
    }

    /// Enters `section` (reading what it shows when first shown).
    fn enter(&mut self, section: GovSection, sh: &mut Shared, out: &mut Out) {
        self.section = section;
        self.scroll = 0;
        match section {
            GovSection::Detail if self.chosen.is_none() && self.chosen_result.is_none() => {
                self.chosen = self.selected().map(|r| r.key.clone());
                self.detail_of = DetailOf::Open;
            }
            GovSection::Results if !self.results.started => {
                self.results
                    .run(crate::model::governance::ResultsQuery::default(), sh, out);
            }
            GovSection::Svs => {
                self.svs.start(sh, out);
                self.svs.sync(sh, out);
            }
            GovSection::Across if !self.across.is_loading() && self.across.scans.is_none() => {
                self.across.ask(sh, out);
            }
            _ => {}
        }
        self.poll_prices(sh, out, false);
    }

    /// Asks scan 0 for the open requests when they are due (or `now`).
    fn poll(&mut self, sh: &mut Shared, out: &mut Out, now: bool) -> bool {
        if sh.ctx.scan_urls.is_empty() || !self.shown {
            return false;
        }
        // `r`: now, unless a read is in flight.
        let due = self.watch.due(sh.now) || (now && self.watch.due(i64::MAX));
        if !due {
            return false;
        }
        let id = out.fetch(sh, Request::api(scan::vote_requests()));
        self.watch.sent(id);
        true
    }

    /// Asks scan 0 for the amulet price votes when Price votes was shown and they are due (or
    /// `now`), unless a read is in flight.
    fn poll_prices(&mut self, sh: &mut Shared, out: &mut Out, now: bool) -> bool {
        if sh.ctx.scan_urls.is_empty() || self.prices.is_loading() {
            return false;
        }
        let wanted = self.section == GovSection::PriceVotes || !self.prices.is_idle();
        if !wanted || !(now || sh.now >= self.prices_due) {
            return false;
        }
        let id = out.fetch(sh, Request::api(scan::amulet_price_votes()));
        self.prices.start(id);
        self.prices_due = sh.now.saturating_add(sh.ctx.governance_every);
        true
    }

    /// The amulet price votes, once read.
    pub fn price_votes(&self) -> Option<&AmuletPriceVotes> {
        self.prices.done()
    }

    /// Rebuilds the rows from the last answer and the DSO; returns whether they changed.
    fn sync_rows(&mut self, sh: &Shared) -> bool {
        let rows = self
            .watch
            .rows(sh.health.dso.info.as_deref(), sh.health.dso.my_sv())
            .unwrap_or_default();
        if rows == self.rows {
            return false;
        }
        self.rows = rows;
        let longest = self
            .rows
            .iter()
            .map(|r| safe_line(&r.requester, 60).chars().count())
            .max()
            .unwrap_or(0);
        self.table
            .columns_mut()
            .set_width(OpenCol::Requester, requester_width(longest));
        self.table.set_rows(&self.rows);
        true
    }

    /// Opens the selected request in Detail.
    fn open_detail(&mut self) -> bool {
        let Some(key) = self.selected().map(|r| r.key.clone()) else {
            return false;
        };
        self.chosen = Some(key);
        self.detail_of = DetailOf::Open;
        self.scroll = 0;
        self.section = GovSection::Detail;
        true
    }

    fn detail_viewport(&self) -> usize {
        usize::from(self.area.height.saturating_sub(3)).max(1)
    }

    /// The first line of Detail (or Price votes) that can be shown with the last line at the
    /// bottom.
    fn detail_last_scroll(&self, sh: &Shared) -> usize {
        let dso = sh.health.dso.info.as_deref();
        let theme = Theme::default();
        let len = match self.section {
            GovSection::PriceVotes => self
                .prices
                .done()
                .map_or(0, |v| prices::price_lines(v, dso, sh, &theme).len()),
            _ => self.detail_lines(sh, &theme).len(),
        };
        len.saturating_sub(self.detail_viewport())
    }

    fn detail_command(&mut self, cmd: Command, sh: &Shared, out: &mut Out) -> bool {
        let page = self.detail_viewport();
        let last = self.detail_last_scroll(sh);
        match cmd {
            Command::Back => {
                self.section = match self.detail_of {
                    DetailOf::Open => GovSection::Open,
                    DetailOf::Result => GovSection::Results,
                }
            }
            Command::Select if self.detail_of == DetailOf::Result => {
                match self
                    .chosen_result()
                    .and_then(|r| past::result_update(r, sh))
                {
                    Some(update_id) => out.events.push(AppEvent::OpenUpdate {
                        update_id,
                        event_id: None,
                    }),
                    None => out.info("the request's update is not in the loaded history"),
                }
            }
            Command::Copy if self.detail_of == DetailOf::Result => {
                match self.chosen_result().map(|r| r.request.key().to_owned()) {
                    Some(k) if !k.is_empty() => out.copy("request's tracking id", k),
                    _ => return false,
                }
            }
            Command::Up => self.scroll = self.scroll.saturating_sub(1),
            Command::Down => self.scroll = (self.scroll + 1).min(last),
            Command::PageUp => self.scroll = self.scroll.saturating_sub(page),
            Command::PageDown => self.scroll = (self.scroll + page).min(last),
            Command::Top => self.scroll = 0,
            Command::Bottom => self.scroll = last,
            Command::Select => match self.chosen().and_then(|r| detail::creation_update(r, sh)) {
                Some(update_id) => out.events.push(AppEvent::OpenUpdate {
                    update_id,
                    event_id: None,
                }),
                None => out.info("the request's update is not in the loaded history"),
            },
            Command::Copy => match self.chosen() {
                Some(r) => out.copy("request's contract id", r.contract_id.clone()),
                None => return false,
            },
            _ => return false,
        }
        true
    }

    fn title_line(&self, sh: &Shared, theme: &Theme) -> Line<'static> {
        let mut spans = vec![
            Span::styled("Governance", theme.title),
            Span::styled(format!(" · {}", self.section.title()), theme.muted),
        ];
        if self.watch.requests.is_some() {
            spans.push(Span::styled(
                format!(" · {} open", self.rows.len()),
                theme.muted,
            ));
            let needed = self
                .rows
                .iter()
                .filter(|r| r.my_vote == Some(MyVote::Needed))
                .count();
            if let Some(me) = sh.health.dso.my_sv() {
                let who = me
                    .name
                    .as_deref()
                    .or(me.party.as_deref())
                    .unwrap_or("my SV");
                let (text, style) = if needed == 0 {
                    ("my SV voted on all".to_string(), theme.status_ok)
                } else {
                    let verb = if needed == 1 { "needs" } else { "need" };
                    (format!("{needed} {verb} my vote"), theme.status_warn)
                };
                spans.push(Span::styled(" · ", theme.muted));
                spans.push(Span::styled(text, style));
                spans.push(Span::styled(
                    format!(" ({})", safe_line(who, 30)),
                    theme.muted,
                ));
            }
        }
        Line::from(spans)
    }

    fn render_open(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let theme = cx.theme;
        let mut area = area;
        if let Some(e) = &self.watch.error {
            let used = paragraph(
                Rect::new(area.x, area.y, area.width, 1),
                buf,
                &format!("error: {e}"),
                theme.status_err,
            );
            area.y += used;
            area.height -= used;
        }
        if self.watch.requests.is_none() {
            if self.watch.error.is_none() {
                paragraph(area, buf, LOADING_TEXT, theme.muted);
            }
            return;
        }
        if self.rows.is_empty() {
            paragraph(area, buf, NONE_OPEN_TEXT, theme.muted);
            return;
        }
        let draw = Draw::new(&cx.sh.now, theme, cx.focused);
        self.table.render(area, buf, &self.rows, &draw);
    }
}

impl Pane for GovernancePane {
    /// `o` then a letter sorts the open requests' list.
    fn sort_by_letter(&mut self, letter: char) -> bool {
        self.section == GovSection::Open
            && self.table.input(TableInput::SortLetter(letter), &self.rows)
    }

    fn sort_letters(&self) -> Option<String> {
        Some(self.table.columns().letter_hint())
            .filter(|h| self.section == GovSection::Open && !h.is_empty())
    }

    fn id(&self) -> PaneId {
        PaneId::Governance
    }

    fn key_context(&self) -> KeyContext {
        if self.wants_raw_keys() {
            KeyContext::TextInput
        } else {
            KeyContext::List
        }
    }

    fn wants_raw_keys(&self) -> bool {
        match self.section {
            GovSection::Results => {
                self.results.dialog.is_open() || self.results.table.is_filtering()
            }
            GovSection::Svs => self.svs.table.is_filtering(),
            GovSection::Across => self.across.table.is_filtering(),
            _ => self.table.is_filtering(),
        }
    }

    fn on_key(&mut self, key: &crossterm::event::KeyEvent, sh: &mut Shared, out: &mut Out) {
        match self.section {
            GovSection::Results => {
                self.results.on_key(key, sh, out);
            }
            GovSection::Svs => {
                self.svs.input(TableInput::Key(key), sh, out);
            }
            GovSection::Across => {
                self.across.input(TableInput::Key(key));
            }
            _ => {
                self.table.input(TableInput::Key(key), &self.rows);
            }
        }
    }

    fn on_paste(&mut self, text: &str, sh: &mut Shared, out: &mut Out) {
        match self.section {
            GovSection::Results => self.results.on_paste(text),
            GovSection::Svs => {
                self.svs.input(TableInput::Paste(text), sh, out);
            }
            GovSection::Across => {
                self.across.input(TableInput::Paste(text));
            }
            _ => {
                self.table.input(TableInput::Paste(text), &self.rows);
            }
        }
    }

    fn on_focus(&mut self, sh: &mut Shared, out: &mut Out) {
        self.shown = true;
        self.poll(sh, out, false);
    }

    fn on_tick(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let mut changed = self.poll(sh, out, false);
        changed |= self.shown && self.poll_prices(sh, out, false);
        changed |= self.sync_rows(sh);
        if self.section == GovSection::Svs {
            changed |= self.svs.sync(sh, out);
        }
        let second = sh.now.div_euclid(1_000_000);
        if self.shown && second != self.last_second {
            self.last_second = second;
            changed = true;
        }
        changed
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        match cmd {
            Command::NextSection | Command::PrevSection => {
                let next = self.section.step(cmd == Command::NextSection);
                self.enter(next, sh, out);
                true
            }
            // b: every scan's results count and active requests, side by side.
            Command::Consensus => {
                self.section = GovSection::Across;
                self.across.ask(sh, out);
                true
            }
            Command::Refresh if self.section == GovSection::Results => {
                let q = self.results.query.clone();
                self.results.run(q, sh, out);
                true
            }
            Command::Refresh if self.section == GovSection::Svs => {
                self.svs.refresh(sh, out);
                true
            }
            Command::Refresh if self.section == GovSection::Across => {
                self.across.ask(sh, out);
                true
            }
            _ if self.section == GovSection::Results => match cmd {
                Command::Edit => {
                    self.results.open_form(sh);
                    true
                }
                Command::Select => self.open_result(),
                Command::Copy => match self
                    .results
                    .selected_raw()
                    .and_then(|i| self.results.raw.get(i))
                    .map(|r| r.request.key().to_owned())
                {
                    Some(k) if !k.is_empty() => {
                        out.copy("request's tracking id", k);
                        true
                    }
                    _ => false,
                },
                _ => {
                    let used = self
                        .results
                        .table
                        .input(TableInput::Command(cmd), &self.results.rows);
                    self.results.more_if_near_end(sh, out);
                    used
                }
            },
            _ if self.section == GovSection::Svs => match cmd {
                Command::Copy => match self.svs.selected().map(|r| r.party.clone()) {
                    Some(p) => {
                        out.copy("SV's party id", p);
                        true
                    }
                    None => false,
                },
                _ => self.svs.input(TableInput::Command(cmd), sh, out),
            },
            _ if self.section == GovSection::Across => self.across.input(TableInput::Command(cmd)),
            Command::Refresh if self.section == GovSection::PriceVotes => {
                if !self.poll_prices(sh, out, true) {
                    out.info("the amulet price votes are being read");
                }
                true
            }
            Command::Refresh => {
                if !self.poll(sh, out, true) {
                    out.info("the open vote requests are being read");
                }
                true
            }
            Command::Back if self.section == GovSection::PriceVotes => false,
            Command::Select if self.section == GovSection::PriceVotes => false,
            Command::Copy if self.section == GovSection::PriceVotes => false,
            _ if self.section != GovSection::Open => self.detail_command(cmd, sh, out),
            Command::Select => self.open_detail(),
            Command::Copy => match self.selected() {
                Some(r) => {
                    out.copy("request's contract id", r.contract_id.clone());
                    true
                }
                None => false,
            },
            _ => self.table.input(TableInput::Command(cmd), &self.rows),
        }
    }

    fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        if self.results.on_fetched(reply, sh, out)
            || self.svs.on_fetched(reply, sh, out)
            || self.across.on_fetched(reply)
        {
            return;
        }
        if let Some(answer) = self.prices.accept(
            reply,
            "/v0/amulet-price/votes",
            Response::answer::<AmuletPriceVotes>,
        ) {
            self.prices = match answer {
                Ok(v) => Load::Done(v.clone()),
                Err(f) => {
                    Load::Failed(f.text(|e| explain(e, "this scan does not serve the price votes")))
                }
            };
            return;
        }
        if !self.watch.is_waiting_for(reply.id) {
            return;
        }
        let result = match &reply.result {
            Ok(r) => r
                .shared::<scan::VoteRequests>()
                .cloned()
                .ok_or_else(|| "unexpected response to the vote requests".to_string()),
            Err(e) => Err(explain(e, "this scan does not serve the vote requests")),
        };
        self.watch
            .on_result(result, sh.now, sh.ctx.governance_every);
        self.sync_rows(sh);
    }

    fn set_area(&mut self, area: Rect) {
        self.area = area;
        self.table
            .set_viewport(usize::from(area.height.saturating_sub(4)).max(1));
        self.results
            .table
            .set_viewport(usize::from(area.height.saturating_sub(5)).max(1));
        self.svs
            .table
            .set_viewport(usize::from(area.height.saturating_sub(4) / 2).max(1));
        self.across
            .table
            .set_viewport(usize::from(area.height.saturating_sub(8)).max(1));
    }

    fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let title = self.title_line(cx.sh, cx.theme);
        let Some(body) = framed_sections(area, buf, title, self.section, cx.theme, cx.focused)
        else {
            return;
        };
        match self.section {
            GovSection::Open => self.render_open(body, buf, cx),
            GovSection::Detail => self.render_detail(body, buf, cx),
            GovSection::PriceVotes => self.render_prices(body, buf, cx),
            GovSection::Results => self.results.render(body, buf, cx),
            GovSection::Svs => self.svs.render(body, buf, cx),
            GovSection::Across => self.across.render(body, buf, cx),
        }
    }

    fn hints(&self) -> Vec<Command> {
        match self.section {
            GovSection::Open => vec![
                Command::Select,
                Command::NextSection,
                Command::Refresh,
                Command::Filter,
                Command::Sort,
                Command::Copy,
                Command::Consensus,
            ],
            GovSection::PriceVotes => vec![Command::NextSection, Command::Refresh],
            GovSection::Results => vec![
                Command::Select,
                Command::Edit,
                Command::NextSection,
                Command::Refresh,
                Command::Filter,
                Command::Sort,
                Command::Copy,
                Command::Consensus,
            ],
            GovSection::Svs => vec![
                Command::NextSection,
                Command::Refresh,
                Command::Sort,
                Command::Copy,
            ],
            GovSection::Across => vec![Command::Consensus, Command::NextSection, Command::Filter],
            GovSection::Detail => vec![
                Command::Back,
                Command::Select,
                Command::NextSection,
                Command::Refresh,
                Command::Copy,
            ],
        }
    }

    fn tab_count(&self, _sh: &Shared) -> Option<usize> {
        match self.section {
            GovSection::PriceVotes => return self.prices.done().map(|v| v.votes.len()),
            GovSection::Results => {
                return self.results.started.then_some(self.results.rows.len());
            }
            GovSection::Svs => return Some(self.svs.rows.len()).filter(|n| *n > 0),
            GovSection::Across => return self.across.scans.as_ref().map(|s| s.rows.len()),
            _ => {}
        }
        self.watch.requests.as_ref().map(|_| self.rows.len())
    }
}
