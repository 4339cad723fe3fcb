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
//!   reason and cast time, the tracking and contract ids, and the request's update, found by
//!   contract id among the loaded updates or in the local index (Enter opens it; the detail says
//!   which were asked when neither has it). Esc goes back to Open.
//! - **Price votes**: each SV's amulet price vote and when it was cast, the median, the spread
//!   and the price in force (`/v0/amulet-price/votes`, read when the section is first shown).
//!
//! The requests are read when the pane is first shown, then every `governance_interval` (not at
//! the history's refresh rate); `r` reads them now.

mod across;
mod detail;
mod detail_section;
mod lookup;
mod open;
mod past;
mod prices;
mod results;
mod svs;

pub use across::{ACROSS_IDLE_TEXT, AcrossView, MISSING_HISTORY_NOTE, RECENT_VOTE_NOTE};
pub use detail::{DetailView, detail_lines};
pub use lookup::{NO_CONTRACT_TEXT, Target, UpdateLookup, Where};
pub use open::{
    LOADING_TEXT, NONE_OPEN_TEXT, OpenCol, VOTES_LEGEND, compact_votes, deadline_words,
    my_vote_style, short_votes, urgency_style,
};
pub use past::result_lines;
pub use prices::{price_in_force, price_lines};
pub use results::{PAGE_SIZE, ResultsView};
pub use svs::{SvRow, SvsView};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::api::scan;
use crate::api::scan::AmuletPriceVotes;
use crate::feed::dashboard::GovernanceWatch;
use crate::model::governance::{MyVote, OpenRequest};
use crate::msg::tabs::{Tabs, tabs};
use crate::msg::{Command, Fetched, Request, Response};
use crate::panes::{Out, Pane, PaneId, RenderCtx, Shared};
use crate::ui::explain::explain;
use crate::ui::load::Load;
use crate::ui::safe::safe_line;
use crate::ui::sections::framed_sections;
use crate::ui::table::{DataTable, TableInput};
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

/// What Detail says when no request is chosen.
pub const NO_DETAIL_TEXT: &str = "No request chosen: select one in Open and press Enter.";

/// A label (muted, padded) and its value.
fn row(label: &str, value: impl Into<String>, style: Style, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{label:<13}"), theme.muted),
        Span::styled(value.into(), style),
    ])
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
    /// The updates of the request or result shown in Detail.
    lookup: UpdateLookup,
    /// The SVs and their weight history (SVs).
    svs: SvsView,
    /// Every scan's count and active requests (Across scans).
    across: AcrossView,
    area: Rect,
    last_second: i64,
}

impl GovernancePane {
    /// A key or a paste for the table of the section shown (not Results, whose dialog takes
    /// them first).
    fn table_input(&mut self, input: TableInput<'_>, sh: &mut Shared, out: &mut Out) {
        match self.section {
            GovSection::Svs => {
                self.svs.input(input, sh, out);
            }
            GovSection::Across => {
                self.across.input(input);
            }
            _ => {
                self.table.input(input, &self.rows);
            }
        }
    }

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
            lookup: UpdateLookup::default(),
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

    /// Enters `section` (reading what it shows when first shown).
    fn enter(&mut self, section: GovSection, sh: &mut Shared, out: &mut Out) {
        self.section = section;
        self.scroll = 0;
        match section {
            GovSection::Detail if self.chosen.is_none() && self.chosen_result.is_none() => {
                self.chosen = self.selected().map(|r| r.key.clone());
                self.detail_of = DetailOf::Open;
                self.look_up(sh, out);
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
        let due = self.watch.poll.due(sh.now) || (now && self.watch.poll.due(i64::MAX));
        if !due {
            return false;
        }
        let id = out.fetch(sh, Request::api(scan::vote_requests()));
        self.watch.poll.sent(id);
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

    /// Shows the open request with this key (tracking cid) in Detail, once it is read (a view
    /// locator names it).
    pub fn show_request(&mut self, key: &str) {
        self.chosen = Some(key.to_owned());
        self.detail_of = DetailOf::Open;
        self.scroll = 0;
        self.section = GovSection::Detail;
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
}

impl Pane for GovernancePane {
    /// `o` then a letter sorts the shown section's table (open requests, results, SVs, across
    /// scans).
    fn sort_by_letter(&mut self, letter: char) -> bool {
        let input = TableInput::SortLetter(letter);
        match self.section {
            GovSection::Open => self.table.input(input, &self.rows),
            GovSection::Results => self.results.table.input(input, &self.results.rows),
            GovSection::Svs => self.svs.table.input(input, &self.svs.rows),
            GovSection::Across => self.across.input(input),
            GovSection::Detail | GovSection::PriceVotes => false,
        }
    }

    fn sort_letters(&self) -> Option<String> {
        let hint = match self.section {
            GovSection::Open => self.table.columns().letter_hint(),
            GovSection::Results => self.results.table.columns().letter_hint(),
            GovSection::Svs => self.svs.table.columns().letter_hint(),
            GovSection::Across if self.across.scans.is_some() => {
                self.across.table.columns().letter_hint()
            }
            _ => return None,
        };
        Some(hint).filter(|h| !h.is_empty())
    }

    fn id(&self) -> PaneId {
        PaneId::Governance
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
        if self.section == GovSection::Results {
            self.results.on_key(key, sh, out);
        } else {
            self.table_input(TableInput::Key(key), sh, out);
        }
    }

    fn on_paste(&mut self, text: &str, sh: &mut Shared, out: &mut Out) {
        if self.section == GovSection::Results {
            self.results.on_paste(text);
        } else {
            self.table_input(TableInput::Paste(text), sh, out);
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
        changed |= self.lookup.sync(sh);
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
                Command::Select => self.open_result(sh, out),
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
            Command::Select => self.open_detail(sh, out),
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
        if self.lookup.on_fetched(reply)
            || self.results.on_fetched(reply, sh, out)
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
        if !self.watch.poll.is_waiting_for(reply.id) {
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
        // The keys of the two request tables (Open, Results) after ↵ (and Results' `i`).
        let table = [
            Command::NextSection,
            Command::Refresh,
            Command::Filter,
            Command::Sort,
            Command::Copy,
            Command::Consensus,
        ];
        match self.section {
            GovSection::Open => [&[Command::Select][..], &table].concat(),
            GovSection::PriceVotes => vec![Command::NextSection, Command::Refresh],
            GovSection::Results => [&[Command::Select, Command::Edit][..], &table].concat(),
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

    /// The selected row of the section shown, whole (requesters, actions, reasons).
    fn fields(&self, sh: &Shared) -> Option<(String, Vec<crate::ui::fields::Field>)> {
        let fields = match self.section {
            GovSection::Open => self.table.selected_fields(&self.rows, sh)?,
            GovSection::Results => self.results.table.selected_fields(&self.results.rows, sh)?,
            GovSection::Svs => self.svs.table.selected_fields(&self.svs.rows, sh)?,
            GovSection::Across => self
                .across
                .table
                .selected_fields(&self.across.scans.as_ref()?.rows, sh)?,
            // Line sections: each line whole, named by its label.
            GovSection::Detail | GovSection::PriceVotes => {
                let theme = Theme::default();
                let lines = match self.section {
                    GovSection::PriceVotes => {
                        let dso = sh.health.dso.info.as_deref();
                        // Each line whole: names are never cut.
                        prices::price_lines(self.prices.done()?, dso, u16::MAX, sh, &theme)
                    }
                    _ => self.detail_lines(sh, &theme, u16::MAX),
                };
                let fields = crate::ui::fields::line_fields(&lines);
                return (!fields.is_empty()).then(|| (self.section.title().to_owned(), fields));
            }
        };
        Some((format!("{} row", self.section.title()), fields))
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
