//! The Network pane (7): what the scan knows about the network, in four sections switched with
//! `]` / `[`: the BFT sequencers of this SV, the bootstrapping transactions of a synchronizer,
//! the participants hosting a party, and an SV's previous reward weight. It also runs the `:hash`
//! lookup (`/v2/updates/hash/{hash}`), trying every configured scan in turn because each scan
//! indexes hashes only from its own starting point.
//!
//! ```text
//! ┌Network · Bootstrapping · global-domain──────────────────────────────────────┐
//! │1 BFT sequencers │ 2 Bootstrapping │ 3 Party hosting │ 4 Reward weight       │
//! │Prefix global-domain: 3 transactions                                          │
//! │Transaction               Size      Base64                                    │
//! │domain_parameters         96 B      128 chars                                 │
//! │sequencer_domain_state    640 B     856 chars                                 │
//! └──────────────────────────────────────────────────────────────────────────────┘
//! ```

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::api::ApiCall;
use crate::api::scan::{self, SynchronizerBftSequencer};
use crate::config::keymap::KeyContext;
use crate::feed::health::HealthIntent;
use crate::msg::Command;
use crate::msg::tabs::{Tabs, tabs};
use crate::msg::{Fetched, Request, Response};
use crate::panes::form::{Form, FormOutcome, Load};
use crate::panes::{AppEvent, Out, Pane, PaneId, RenderCtx, Shared};
use crate::ui::explain::explain;
use crate::ui::sections::framed_sections;
use crate::ui::table::{DataTable, ListCol, TableInput};
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

mod bootstrapping;
mod consensus;
mod findings;
mod forms;
mod hash;
mod hosting;
mod scans;
pub use findings::FindingRow;
mod sequencers;
mod sweep;

use bootstrapping::BootResult;
use bootstrapping::boot_table;
pub use bootstrapping::{BootCol, BootTx, boot_txs};
use consensus::ConsensusState;
pub use consensus::{CheckCol, CheckRow, class_label};
use forms::FormKind;
use hash::HashLookup;
use hosting::hosting_table;
use hosting::{Hosting, Weight};
use scans::ScansState;
pub use scans::{ScanCol, ScanRow};
pub use sequencers::SeqCol;
use sequencers::seq_table;
pub use sweep::{SWEEP_PAGE, SweepFrom, SweepState};

tabs! {
    /// The sections of the pane, in tab order.
    pub enum NetSection {
        Scans => "Scans",
        Sequencers => "BFT sequencers",
        Bootstrapping => "Bootstrapping",
        Participants => "Party hosting",
        RewardWeight => "Reward weight",
        Findings => "Findings",
    }
}

/// The Network pane.
#[derive(Debug)]
pub struct NetworkPane {
    section: NetSection,
    scans: ScansState,
    check: ConsensusState,
    sweep: SweepState,
    sequencers: Load<Vec<SynchronizerBftSequencer>>,
    seq_table: DataTable<SeqCol>,
    boot: Load<BootResult>,
    boot_prefix: Option<String>,
    boot_table: DataTable<BootCol>,
    /// The "save to" path input of the bootstrapping section.
    save_input: Option<TextInput>,
    /// The bootstrapping save in flight (its write and path), and the path told to exist.
    boot_saving: Option<(crate::msg::RequestId, String)>,
    boot_file: crate::panes::new_file::NewFile,
    hosting: Load<Hosting>,
    hosting_query: Option<(String, String)>,
    hosting_table: DataTable<ListCol>,
    weight: Load<Weight>,
    /// The network's findings log (the app's, taken in by `sync_scans`).
    findings: Vec<findings::FindingRow>,
    findings_table: DataTable<findings::FindingCol>,
    weight_query: Option<(String, Option<String>)>,
    form: Option<(FormKind, Form)>,
    hash: Option<HashLookup>,
    area: Rect,
}

impl Default for NetworkPane {
    fn default() -> Self {
        NetworkPane {
            section: NetSection::Scans,
            scans: ScansState::default(),
            check: ConsensusState::default(),
            sweep: SweepState::default(),
            sequencers: Load::Idle,
            seq_table: seq_table(),
            boot: Load::Idle,
            boot_prefix: None,
            boot_table: boot_table(),
            save_input: None,
            boot_saving: None,
            boot_file: crate::panes::new_file::NewFile::default(),
            hosting: Load::Idle,
            hosting_query: None,
            hosting_table: hosting_table(),
            weight: Load::Idle,
            findings: Vec::new(),
            findings_table: findings::findings_table(),
            weight_query: None,
            form: None,
            hash: None,
            area: Rect::default(),
        }
    }
}

impl NetworkPane {
    /// A new pane; nothing is fetched until it is first shown.
    pub fn new(_sh: &Shared) -> Self {
        NetworkPane::default()
    }

    /// The section shown.
    pub fn section(&self) -> NetSection {
        self.section
    }

    /// The update the consensus view shows (when it is open on an update, not a pane's query).
    pub fn checked_update(&self) -> Option<&str> {
        if self.section == NetSection::Scans && self.check.open && self.check.query.is_none() {
            self.check.update_id.as_deref()
        } else {
            None
        }
    }

    /// Whether a form or the save-path input is open.
    pub fn is_editing(&self) -> bool {
        self.form.is_some() || self.save_input.is_some()
    }

    /// Whether a `:hash` lookup is running.
    pub fn is_looking_up_hash(&self) -> bool {
        self.hash.is_some()
    }

    /// The bootstrapping transactions loaded (for tests and the save flow).
    pub fn bootstrapping(&self) -> Option<&[BootTx]> {
        self.boot.done().map(|b| b.txs.as_slice())
    }

    /// The participants found for the last party lookup.
    pub fn participants(&self) -> Option<&[String]> {
        self.hosting.done().map(|h| h.participants.as_slice())
    }

    /// The BFT sequencers loaded.
    pub fn sequencers(&self) -> Option<&[SynchronizerBftSequencer]> {
        self.sequencers.done().map(Vec::as_slice)
    }

    /// The text of the current failure of the shown section, if it failed.
    pub fn error_text(&self) -> Option<&str> {
        match self.section {
            NetSection::Scans => self.scans.error.as_deref(),
            NetSection::Sequencers => self.sequencers.failure(),
            NetSection::Bootstrapping => self.boot.failure(),
            NetSection::Participants => self.hosting.failure(),
            NetSection::RewardWeight => self.weight.failure(),
            NetSection::Findings => None,
        }
    }

    fn refresh(&mut self, sh: &mut Shared, out: &mut Out) {
        match self.section {
            NetSection::Scans => self.measure(sh, out),
            NetSection::Sequencers => self.load_sequencers(sh, out),
            NetSection::Bootstrapping => match self.boot_prefix.clone() {
                Some(p) => self.query_boot(p, sh, out),
                None => self.open_form(sh),
            },
            NetSection::Participants => match self.hosting_query.clone() {
                Some((d, p)) => self.query_hosting(d, p, sh, out),
                None => self.open_form(sh),
            },
            NetSection::RewardWeight => match self.weight_query.clone() {
                Some((sv, b)) => self.query_weight(sv, b, sh, out),
                None => self.open_form(sh),
            },
            // The findings come with every measurement: measure now.
            NetSection::Findings => self.measure(sh, out),
        }
    }

    /// `y`: copies what is selected in the shown section (nothing when nothing is).
    fn copy(&self, out: &mut Out) {
        let copied = match self.section {
            NetSection::Scans => self
                .selected_scan()
                .map(|row| ("scan URL".to_string(), row.entry.url.clone())),
            NetSection::Sequencers => self
                .sequencers
                .done()
                .and_then(|v| self.seq_table.selected_row(v))
                .map(|s| ("sequencer p2p URL".to_string(), s.p2p_url.clone())),
            NetSection::Bootstrapping => self
                .selected_boot()
                .map(|(_, tx)| (format!("{} (base64)", tx.name), tx.base64.clone())),
            NetSection::Participants => self
                .hosting
                .done()
                .and_then(|h| self.hosting_table.selected_row(&h.participants))
                .map(|p| ("participant id".to_string(), p.clone())),
            NetSection::RewardWeight => self
                .weight
                .done()
                .and_then(|w| w.weight.clone())
                .map(|w| ("reward weight".to_string(), w)),
            NetSection::Findings => self.selected_finding().map(|r| {
                r.finding.update_id.clone().map_or_else(
                    || ("finding id".to_string(), r.id.clone()),
                    |u| ("update id".to_string(), u),
                )
            }),
        };
        if let Some((what, text)) = copied {
            out.copy(&what, text);
        }
    }

    /// The sortable columns of the shown section's table with their letters.
    fn section_letters(&self) -> Option<String> {
        let hint = match self.section {
            NetSection::Scans if self.check.open => self.check.table.columns().letter_hint(),
            NetSection::Scans if self.scans.detail.is_some() => return None,
            NetSection::Scans => self.scans.table.columns().letter_hint(),
            NetSection::Sequencers => self.seq_table.columns().letter_hint(),
            NetSection::Bootstrapping => self.boot_table.columns().letter_hint(),
            NetSection::Participants => self.hosting_table.columns().letter_hint(),
            NetSection::Findings => self.findings_table.columns().letter_hint(),
            NetSection::RewardWeight => return None,
        };
        Some(hint).filter(|h| !h.is_empty())
    }

    /// The table of the shown section: a command (movement, sort, `/` filter) or, while the
    /// filter input is open, a raw key or pasted text. Returns whether the table used it.
    fn table_input(&mut self, input: TableInput<'_>) -> bool {
        match self.section {
            NetSection::Scans if self.check.open => self.check.table.input(input, &self.check.rows),
            NetSection::Scans if self.scans.detail.is_some() => false,
            NetSection::Scans => self.scans.table.input(input, &self.scans.rows),
            NetSection::Sequencers => {
                let rows = self.sequencers.done().map_or(&[][..], Vec::as_slice);
                self.seq_table.input(input, rows)
            }
            NetSection::Bootstrapping => {
                let rows = self.boot.done().map_or(&[][..], |b| b.txs.as_slice());
                self.boot_table.input(input, rows)
            }
            NetSection::Participants => {
                let rows = self
                    .hosting
                    .done()
                    .map_or(&[][..], |h| h.participants.as_slice());
                self.hosting_table.input(input, rows)
            }
            NetSection::Findings => self.findings_table.input(input, &self.findings),
            NetSection::RewardWeight => false,
        }
    }

    /// Whether the `/` filter input of the shown section's table is open.
    fn is_filtering(&self) -> bool {
        match self.section {
            NetSection::Scans if self.check.open => self.check.table.is_filtering(),
            NetSection::Scans => self.scans.table.is_filtering(),
            NetSection::Sequencers => self.seq_table.is_filtering(),
            NetSection::Bootstrapping => self.boot_table.is_filtering(),
            NetSection::Participants => self.hosting_table.is_filtering(),
            NetSection::Findings => self.findings_table.is_filtering(),
            NetSection::RewardWeight => false,
        }
    }

    /// Loads what the shown section needs on its first showing.
    fn load_section(&mut self, sh: &mut Shared, out: &mut Out) {
        match self.section {
            NetSection::Sequencers if self.sequencers.is_idle() => self.load_sequencers(sh, out),
            _ => {}
        }
    }

    fn list_viewport(&self) -> usize {
        usize::from(self.area.height.saturating_sub(6)).max(1)
    }

    // -----------------------------------------------------------------------------------------
    // Drawing
    // -----------------------------------------------------------------------------------------

    fn title_line(&self, theme: &Theme) -> Line<'static> {
        let mut spans = vec![
            Span::styled("Network", theme.title),
            Span::styled(format!(" · {}", self.section.title()), theme.muted),
        ];
        if let Some(h) = &self.hash {
            spans.push(Span::styled(
                format!(" · hash lookup on scan {}…", h.scan + 1),
                theme.status_warn,
            ));
        }
        Line::from(spans)
    }

    fn render_body(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        match self.section {
            NetSection::Scans if self.check.open => {
                let area = self.render_sweep(area, buf, cx.sh, cx.theme);
                self.render_consensus(area, buf, cx);
            }
            NetSection::Scans => {
                let area = self.render_sweep(area, buf, cx.sh, cx.theme);
                self.render_scans(area, buf, cx);
            }
            NetSection::Sequencers => self.render_sequencers(area, buf, cx),
            NetSection::Bootstrapping => self.render_boot(area, buf, cx),
            NetSection::Participants => self.render_hosting(area, buf, cx),
            NetSection::RewardWeight => self.render_weight(area, buf, cx.theme),
            NetSection::Findings => self.render_findings(area, buf, cx),
        }
    }
}

impl Pane for NetworkPane {
    fn id(&self) -> PaneId {
        PaneId::Network
    }

    fn sort_by_letter(&mut self, letter: char) -> bool {
        self.table_input(TableInput::SortLetter(letter))
    }

    fn sort_letters(&self) -> Option<String> {
        self.section_letters()
    }

    fn key_context(&self) -> KeyContext {
        if self.is_editing() || self.is_filtering() {
            KeyContext::TextInput
        } else {
            KeyContext::List
        }
    }

    fn wants_raw_keys(&self) -> bool {
        self.is_editing() || self.is_filtering()
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        if let Some(input) = &mut self.save_input {
            match input.handle_key(key) {
                InputOutcome::Submitted(path) => self.save_to(&path, sh, out),
                InputOutcome::Cancelled => {
                    self.save_input = None;
                    self.boot_file.forget();
                }
                _ => {}
            }
            return;
        }
        let Some((_, form)) = &mut self.form else {
            self.table_input(TableInput::Key(key));
            return;
        };
        match form.handle_key(key) {
            FormOutcome::Submitted => self.submit_form(sh, out),
            FormOutcome::Cancelled => self.form = None,
            FormOutcome::Consumed => {}
        }
    }

    fn on_paste(&mut self, text: &str, _sh: &mut Shared, _out: &mut Out) {
        if let Some(input) = &mut self.save_input {
            input.insert_str(text);
        } else if let Some((_, form)) = &mut self.form {
            form.paste(text);
        } else {
            self.table_input(TableInput::Paste(text));
        }
    }

    fn on_focus(&mut self, sh: &mut Shared, out: &mut Out) {
        self.sync_scans(sh);
        self.load_section(sh, out);
    }

    fn on_tick(&mut self, sh: &mut Shared, _out: &mut Out) -> bool {
        self.sync_scans(sh)
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        match cmd {
            Command::NextSection | Command::PrevSection => {
                self.section = self.section.step(cmd == Command::NextSection);
                self.load_section(sh, out);
                true
            }
            Command::Sweep => {
                self.toggle_sweep(out);
                true
            }
            Command::Save if self.section == NetSection::Scans => {
                self.open_sweep_save(sh, out);
                true
            }
            _ if self.is_consensus_open() => self.on_consensus_command(cmd, sh, out),
            // b on a query section: the same query on every scan.
            Command::Consensus
                if matches!(
                    self.section,
                    NetSection::Participants | NetSection::RewardWeight
                ) =>
            {
                match self.scan_request(sh) {
                    Some((request, label)) => self.open_query(request, &label, sh, out),
                    None => out.info("b asks this query of every scan: run it first (i)"),
                }
                true
            }
            // b on the matrix: back to the last consensus check.
            Command::Consensus if self.section == NetSection::Scans => {
                let known = self.check.update_id.is_some();
                if known {
                    self.check.open = true;
                    self.check.back_to_scans();
                } else {
                    out.info("b checks an update on every scan: select one in History or use :bft <update_id>");
                }
                known
            }
            Command::Acknowledge if self.section == NetSection::Findings => {
                self.acknowledge(sh, out);
                true
            }
            Command::Select if self.section == NetSection::Findings => {
                self.open_finding(sh, out);
                true
            }
            Command::Select if self.section == NetSection::Scans => {
                self.scans.detail = self.selected_scan().map(|r| r.index);
                true
            }
            Command::Back if self.section == NetSection::Scans && self.scans.detail.is_some() => {
                self.scans.detail = None;
                true
            }
            Command::Edit => {
                if matches!(
                    self.section,
                    NetSection::Sequencers | NetSection::Scans | NetSection::Findings
                ) {
                    return false;
                }
                self.open_form(sh);
                true
            }
            Command::Refresh => {
                self.refresh(sh, out);
                true
            }
            Command::Save if self.section == NetSection::Bootstrapping => {
                self.open_save(out);
                true
            }
            Command::Copy => {
                self.copy(out);
                true
            }
            _ => self.table_input(TableInput::Command(cmd)),
        }
    }

    fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        let (id, request, result) = (reply.id, &reply.request, &reply.result);
        if self.hash.as_ref().is_some_and(|h| h.id == id) {
            self.on_hash_reply(result, sh, out);
            return;
        }
        if let Request::SweepPage { .. } = request {
            self.on_sweep_reply(reply, sh, out);
            return;
        }
        if let Request::SweepStart { .. } = request {
            self.on_sweep_start_reply(reply, sh, out);
            return;
        }
        if let Request::NetworkCheck { .. } | Request::OnEveryScan { .. } = request {
            let ops = self.on_check_reply(reply);
            if !ops.is_empty() {
                out.events.push(AppEvent::Health(HealthIntent::Record(ops)));
            }
            return;
        }
        if let Some(answer) = self.sequencers.accept(
            reply,
            "/v0/sv-bft-sequencers",
            Response::answer::<scan::BftSequencers>,
        ) {
            self.sequencers = match answer {
                Ok(r) => {
                    self.seq_table.set_rows(&r.bft_sequencers);
                    Load::Done(r.bft_sequencers.clone())
                }
                Err(f) => Load::Failed(
                    f.text(|e| explain(e, "this scan has no BFT sequencer configuration")),
                ),
            };
        } else if let Some(answer) = self.boot.accept(
            reply,
            "the bootstrapping request",
            Response::answer::<scan::BootstrappingTransactions>,
        ) {
            let prefix = self.boot_prefix.clone().unwrap_or_default();
            self.boot = match answer {
                Ok(r) => {
                    let txs = boot_txs(r);
                    self.boot_table.reset_rows(&txs);
                    Load::Done(BootResult { prefix, txs })
                }
                Err(f) => Load::Failed(f.text(|e| {
                    explain(
                        e,
                        &format!(
                            "no synchronizer id starts with {prefix:?}; press i to change the prefix"
                        ),
                    )
                })),
            };
        } else if let Some(answer) = self.hosting.accept(
            reply,
            "the participant-id request",
            Response::answer::<scan::ParticipantIds>,
        ) {
            let (domain, party) = self.hosting_query.clone().unwrap_or_default();
            self.hosting = match answer {
                Ok(r) => {
                    self.hosting_table.reset_rows(&r.participant_ids);
                    Load::Done(Hosting {
                        domain,
                        party,
                        participants: r.participant_ids.clone(),
                    })
                }
                Err(f) => Load::Failed(f.text(|e| explain(
                    e,
                    "the scan knows no hosting of this party on this synchronizer (unknown party or synchronizer id)",
                ))),
            };
        } else if let Some(answer) = self.weight.accept(
            reply,
            "the reward weight request",
            Response::answer::<scan::RewardWeightResponse>,
        ) {
            let (sv, before) = self.weight_query.clone().unwrap_or_default();
            self.weight = match answer {
                Ok(r) => Load::Done(Weight {
                    sv,
                    before,
                    weight: r.reward_weight.clone(),
                }),
                Err(f) => Load::Failed(f.text(|e| explain(e, "the scan does not know this SV"))),
            };
        }
    }

    fn on_written(
        &mut self,
        id: crate::msg::RequestId,
        result: &Result<usize, String>,
        out: &mut Out,
    ) -> bool {
        self.on_sweep_written(id, result, out) || self.on_boot_written(id, result, out)
    }

    fn set_area(&mut self, area: Rect) {
        self.area = area;
        let v = self.list_viewport();
        self.seq_table.set_viewport(v);
        self.boot_table.set_viewport(v);
        self.hosting_table.set_viewport(v);
        self.scans.table.set_viewport(v);
        self.check.table.set_viewport(v.saturating_sub(3).max(1));
    }

    fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { theme, focused, .. } = cx;
        let title = self.title_line(theme);
        let Some(mut body) = framed_sections(area, buf, title, self.section, theme, focused) else {
            return;
        };
        if let Some((_, form)) = &self.form {
            body = form.render_above(body, buf, theme);
        }
        // While a form for a first query is open, the form says it all.
        let idle = match self.section {
            NetSection::Scans => false,
            NetSection::Sequencers => self.sequencers.is_idle(),
            NetSection::Bootstrapping => self.boot.is_idle(),
            NetSection::Participants => self.hosting.is_idle(),
            NetSection::RewardWeight => self.weight.is_idle(),
            NetSection::Findings => false,
        };
        if body.height > 0 && !(idle && self.form.is_some()) {
            self.render_body(body, buf, cx.focus(focused && !self.is_editing()));
        }
    }

    fn hints(&self) -> Vec<Command> {
        if self.is_editing() {
            return vec![Command::Confirm, Command::Complete, Command::Cancel];
        }
        if self.is_filtering() {
            return vec![Command::Confirm, Command::Cancel];
        }
        match self.section {
            NetSection::Scans if self.check.open => self.consensus_hints(),
            NetSection::Scans if self.scans.detail.is_some() => {
                vec![Command::Back, Command::Copy, Command::Refresh]
            }
            NetSection::Scans => vec![
                Command::Select,
                Command::Sweep,
                Command::Sort,
                Command::Filter,
                Command::Refresh,
                Command::NextSection,
            ],
            NetSection::Sequencers => vec![
                Command::NextSection,
                Command::Refresh,
                Command::Copy,
                Command::PrevSection,
            ],
            NetSection::Bootstrapping => vec![
                Command::Edit,
                Command::Save,
                Command::Copy,
                Command::NextSection,
                Command::Refresh,
            ],
            NetSection::Participants | NetSection::RewardWeight => vec![
                Command::Edit,
                Command::Copy,
                Command::NextSection,
                Command::Refresh,
            ],
            NetSection::Findings => vec![
                Command::Acknowledge,
                Command::Select,
                Command::Copy,
                Command::Filter,
                Command::PrevSection,
            ],
        }
    }

    fn scan_request(&self, _sh: &Shared) -> Option<(ApiCall, String)> {
        match self.section {
            NetSection::Participants => {
                let (domain_id, party_id) = self.hosting_query.clone()?;
                Some((
                    scan::participant_ids(&domain_id, &party_id).into_answer(),
                    "hosting participants of a party".to_owned(),
                ))
            }
            NetSection::RewardWeight => {
                let (sv_party, effective_before) = self.weight_query.clone()?;
                Some((
                    scan::previous_sv_reward_weight(&scan::RewardWeightRequest {
                        sv_party,
                        effective_before,
                    })
                    .into_answer(),
                    "previous SV reward weight".to_owned(),
                ))
            }
            _ => None,
        }
    }

    /// The selected row of the section shown, whole (hosts, party ids, answers).
    fn fields(&self, sh: &Shared) -> Option<(String, Vec<crate::ui::fields::Field>)> {
        let style = ratatui::style::Style::default();
        let fields = match self.section {
            NetSection::Scans if self.check.open => {
                self.check.table.selected_fields(&self.check.rows, sh)?
            }
            NetSection::Scans => self.scans.table.selected_fields(&self.scans.rows, sh)?,
            NetSection::Sequencers => self
                .seq_table
                .selected_fields(self.sequencers.done()?, &())?,
            NetSection::Bootstrapping => self
                .boot_table
                .selected_fields(&self.boot.done()?.txs, &())?,
            NetSection::Participants => self
                .hosting_table
                .selected_fields(&self.hosting.done()?.participants, &style)?,
            NetSection::Findings => self.findings_table.selected_fields(&self.findings, sh)?,
            NetSection::RewardWeight => return None,
        };
        Some((format!("{} row", self.section.title()), fields))
    }

    fn tab_count(&self, _sh: &Shared) -> Option<usize> {
        // The table of the section shown.
        match self.section {
            NetSection::Scans if self.check.open => {
                self.check.load.done().map(|_| self.check.rows.len())
            }
            NetSection::Scans => self.scans.snapshot.as_ref().map(|_| self.scans.rows.len()),
            NetSection::Sequencers => self.sequencers.done().map(Vec::len),
            NetSection::Bootstrapping => self.boot.done().map(|b| b.txs.len()),
            NetSection::Participants => self.hosting.done().map(|h| h.participants.len()),
            NetSection::Findings => Some(self.findings.len()),
            NetSection::RewardWeight => None,
        }
    }
}
