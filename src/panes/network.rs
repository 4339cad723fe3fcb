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

use std::borrow::Cow;
use std::path::PathBuf;

use base64::Engine;
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::api::ApiError;
use crate::api::scan::{BootstrappingTransactions, RewardWeightRequest, SynchronizerBftSequencer};
use crate::config::keymap::KeyContext;
use crate::model::summary::{cat, format_time_micros, parse_time_micros, short_party};
use crate::msg::Command;
use crate::msg::{Effect, Fetched, Request, RequestId, Response};
use crate::panes::form::{
    Form, FormOutcome, Load, cell, explain, file_part, paragraph, render_section_tabs,
};
use crate::panes::{AppEvent, Out, Pane, PaneId, Shared};
use crate::ui::layout::framed;
use crate::ui::safe::safe_line;
use crate::ui::table::{
    Cell, Column, Columns, DataTable, Draw, ListCol, SortKey, TableInput, TableRow, Width,
};
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

/// The sections of the pane, in tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetSection {
    Sequencers,
    Bootstrapping,
    Participants,
    RewardWeight,
}

impl NetSection {
    pub const ALL: [NetSection; 4] = [
        NetSection::Sequencers,
        NetSection::Bootstrapping,
        NetSection::Participants,
        NetSection::RewardWeight,
    ];

    /// The tab label.
    pub fn title(self) -> &'static str {
        match self {
            NetSection::Sequencers => "BFT sequencers",
            NetSection::Bootstrapping => "Bootstrapping",
            NetSection::Participants => "Party hosting",
            NetSection::RewardWeight => "Reward weight",
        }
    }

    fn index(self) -> usize {
        NetSection::ALL.iter().position(|s| *s == self).unwrap_or(0)
    }
}

/// One bootstrapping transaction (a base64 topology transaction bundle).
#[derive(Debug, Clone, PartialEq)]
pub struct BootTx {
    /// The response field it came from (`domain_parameters`, …).
    pub name: String,
    pub base64: String,
    /// The decoded bytes, or why they could not be decoded.
    pub bytes: Result<Vec<u8>, String>,
}

/// The columns of the BFT sequencers table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqCol {
    Serial,
    Id,
    Url,
}

impl TableRow for SynchronizerBftSequencer {
    type Col = SeqCol;
    type Ctx = ();

    fn cell(&self, col: SeqCol, _width: u16, _: &(), theme: &Theme) -> Cell<'_> {
        match col {
            SeqCol::Serial => Cell::new(self.serial_id.to_string(), theme.muted),
            SeqCol::Id => Cell::new(self.id.as_str(), theme.id),
            SeqCol::Url => Cell::new(self.p2p_url.as_str(), theme.accent),
        }
    }

    fn sort_key(&self, col: SeqCol) -> SortKey<'_> {
        match col {
            SeqCol::Serial => SortKey::Int(self.serial_id.into()),
            SeqCol::Id => SortKey::Text(Cow::Borrowed(&self.id)),
            SeqCol::Url => SortKey::Text(Cow::Borrowed(&self.p2p_url)),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!("{} {} {}", self.serial_id, self.id, self.p2p_url))
    }
}

/// The columns of the bootstrapping transactions table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BootCol {
    Name,
    Size,
    Base64,
}

impl TableRow for BootTx {
    type Col = BootCol;
    type Ctx = ();

    fn cell(&self, col: BootCol, _width: u16, _: &(), theme: &Theme) -> Cell<'_> {
        match col {
            BootCol::Name => Cell::new(self.name.as_str(), theme.accent),
            BootCol::Size => {
                let size = match &self.bytes {
                    Ok(v) => bytes_label(v.len()),
                    Err(_) => "invalid".to_string(),
                };
                Cell::new(size, theme.json_number)
            }
            BootCol::Base64 => {
                let b64 = match &self.bytes {
                    // Valid base64 is ASCII; only a screenful of it is ever shown.
                    Ok(_) => Cow::Owned(format!(
                        "{} chars  {}",
                        crate::ui::format::group_thousands(self.base64.len()),
                        self.base64.get(..self.base64.len().min(512)).unwrap_or("")
                    )),
                    Err(e) => Cow::Borrowed(e.as_str()),
                };
                Cell::Text(b64, theme.muted)
            }
        }
    }

    fn sort_key(&self, col: BootCol) -> SortKey<'_> {
        match col {
            BootCol::Name => SortKey::Text(Cow::Borrowed(&self.name)),
            BootCol::Size => self
                .bytes
                .as_ref()
                .map_or(SortKey::Missing, |b| SortKey::Int(b.len() as i128)),
            BootCol::Base64 => SortKey::Int(self.base64.len() as i128),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.name)
    }
}

/// The three tables of the pane (sequencers, bootstrapping, hosting participants).
fn seq_table() -> DataTable<SeqCol> {
    DataTable::new(Columns::new(vec![
        Column::new(SeqCol::Serial, "Serial", Width::Fixed(6)).priority(1),
        Column::new(SeqCol::Id, "Id", Width::Fill { min: 1, weight: 2 }),
        Column::new(SeqCol::Url, "P2P URL", Width::Fill { min: 1, weight: 3 }),
    ]))
}

fn boot_table() -> DataTable<BootCol> {
    DataTable::new(Columns::new(vec![
        Column::new(BootCol::Name, "Transaction", Width::Fixed(26)),
        Column::new(BootCol::Size, "Size", Width::Fixed(12)).descending_first(),
        Column::new(BootCol::Base64, "Base64", Width::fill(0)).descending_first(),
    ]))
}

fn hosting_table() -> DataTable<ListCol> {
    DataTable::new(
        Columns::new(vec![
            Column::new(ListCol::Number, "", Width::Fixed(3)).row_number(),
            Column::new(ListCol::Text, "Participant", Width::fill(0)),
        ])
        .without_header(),
    )
}

#[derive(Debug, Clone, PartialEq)]
struct BootResult {
    prefix: String,
    txs: Vec<BootTx>,
}

#[derive(Debug, Clone, PartialEq)]
struct Hosting {
    domain: String,
    party: String,
    participants: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
struct Weight {
    sv: String,
    before: Option<String>,
    weight: Option<String>,
}

/// A `:hash` lookup walking the configured scans.
#[derive(Debug, Clone, PartialEq)]
struct HashLookup {
    hash: String,
    scan: usize,
    id: RequestId,
    /// Scans tried so far and what each said.
    misses: Vec<(usize, String)>,
}

/// Which form is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FormKind {
    Bootstrapping,
    Participants,
    RewardWeight,
}

/// The Network pane.
#[derive(Debug)]
pub struct NetworkPane {
    section: NetSection,
    sequencers: Load<Vec<SynchronizerBftSequencer>>,
    seq_table: DataTable<SeqCol>,
    boot: Load<BootResult>,
    boot_prefix: Option<String>,
    boot_table: DataTable<BootCol>,
    /// The "save to" path input of the bootstrapping section.
    save_input: Option<TextInput>,
    hosting: Load<Hosting>,
    hosting_query: Option<(String, String)>,
    hosting_table: DataTable<ListCol>,
    weight: Load<Weight>,
    weight_query: Option<(String, Option<String>)>,
    form: Option<(FormKind, Form)>,
    hash: Option<HashLookup>,
    area: Rect,
}

impl Default for NetworkPane {
    fn default() -> Self {
        NetworkPane {
            section: NetSection::Sequencers,
            sequencers: Load::Idle,
            seq_table: seq_table(),
            boot: Load::Idle,
            boot_prefix: None,
            boot_table: boot_table(),
            save_input: None,
            hosting: Load::Idle,
            hosting_query: None,
            hosting_table: hosting_table(),
            weight: Load::Idle,
            weight_query: None,
            form: None,
            hash: None,
            area: Rect::default(),
        }
    }
}

/// Base64 alphabets accepted for bootstrapping transactions.
fn decode_base64(s: &str) -> Result<Vec<u8>, String> {
    let s = s.trim();
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE.decode(s))
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(s))
        .map_err(|e| format!("not valid base64: {e}"))
}

/// The transactions of a bootstrapping response, in the response's field order (the three
/// known ones first, then any other string field a newer server sends).
pub fn boot_txs(r: &BootstrappingTransactions) -> Vec<BootTx> {
    let mut out: Vec<BootTx> = [
        ("domain_parameters", &r.domain_parameters),
        ("sequencer_domain_state", &r.sequencer_domain_state),
        ("mediator_domain_state", &r.mediator_domain_state),
    ]
    .into_iter()
    .map(|(name, b64)| BootTx {
        name: name.to_string(),
        base64: b64.clone(),
        bytes: decode_base64(b64),
    })
    .collect();
    for (k, v) in &r.unknown {
        if let Some(s) = v.as_str() {
            out.push(BootTx {
                name: k.clone(),
                base64: s.to_string(),
                bytes: decode_base64(s),
            });
        }
    }
    out
}

/// `1536` → `1,536 B`.
fn bytes_label(n: usize) -> String {
    format!("{} B", crate::ui::format::group_thousands(n))
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
            NetSection::Sequencers => self.sequencers.failure(),
            NetSection::Bootstrapping => self.boot.failure(),
            NetSection::Participants => self.hosting.failure(),
            NetSection::RewardWeight => self.weight.failure(),
        }
    }

    // -----------------------------------------------------------------------------------------
    // :hash
    // -----------------------------------------------------------------------------------------

    /// Starts a `:hash` lookup on scan 0; on a miss the other configured scans are tried in
    /// turn, and the update opens in the Update pane from the first scan that has it.
    pub fn lookup_hash(&mut self, hash: &str, sh: &mut Shared, out: &mut Out) {
        let hash = hash.trim();
        if hash.is_empty() {
            out.error("hash: give the hash of a prepared transaction (hex)");
            return;
        }
        if let Some(old) = self.hash.take() {
            out.effects.push(Effect::Cancel(old.id));
        }
        let id = out.fetch(
            sh,
            Request::ByHash {
                scan: 0,
                hash: hash.to_string(),
            },
        );
        self.hash = Some(HashLookup {
            hash: hash.to_string(),
            scan: 0,
            id,
            misses: Vec::new(),
        });
        out.info(format!(
            "looking up hash {} on {}…",
            safe_line(hash, 20),
            scan_name(sh, 0)
        ));
    }

    fn on_hash_reply(
        &mut self,
        result: &Result<Response, ApiError>,
        sh: &mut Shared,
        out: &mut Out,
    ) {
        let Some(mut job) = self.hash.take() else {
            return;
        };
        let short = safe_line(&job.hash, 20).into_owned();
        match result {
            Ok(Response::ByHash(item)) => match item.update_id() {
                Some(update_id) => {
                    let mut msg = format!("hash {short} found on {}", scan_name(sh, job.scan));
                    if !job.misses.is_empty() {
                        let names: Vec<String> = job
                            .misses
                            .iter()
                            .map(|(i, _)| format!("{}", i + 1))
                            .collect();
                        msg.push_str(&format!(" (not indexed by scan {})", names.join(", ")));
                    }
                    out.info(msg);
                    out.events.push(AppEvent::OpenUpdate {
                        update_id: update_id.to_string(),
                        event_id: None,
                    });
                }
                None => out.error(format!(
                    "hash {short}: {} returned an update that could not be decoded",
                    scan_name(sh, job.scan)
                )),
            },
            Ok(_) => out.error(format!("hash {short}: unexpected response")),
            Err(e) => {
                let miss = matches!(
                    e,
                    ApiError::NotFound { .. }
                        | ApiError::EndpointNotServed { .. }
                        | ApiError::Connect { .. }
                        | ApiError::Timeout { .. }
                ) || e.is_transient();
                if !miss {
                    out.error(format!("hash {short}: {e}"));
                    return;
                }
                let said = match e {
                    ApiError::NotFound { .. } => "not indexed".to_string(),
                    other => other.to_string(),
                };
                job.misses.push((job.scan, said));
                let scans = sh.ctx.scan_urls.len().max(1);
                let next = job.scan + 1;
                if next < scans {
                    out.info(format!(
                        "{} has no update for hash {short}; trying {}…",
                        scan_name(sh, job.scan),
                        scan_name(sh, next)
                    ));
                    job.scan = next;
                    job.id = out.fetch(
                        sh,
                        Request::ByHash {
                            scan: next,
                            hash: job.hash.clone(),
                        },
                    );
                    self.hash = Some(job);
                } else {
                    out.error(hash_miss_message(sh, &short, &job.misses));
                }
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Loading
    // -----------------------------------------------------------------------------------------

    fn load_sequencers(&mut self, sh: &mut Shared, out: &mut Out) {
        if let Load::Loading(old) = self.sequencers {
            out.effects.push(Effect::Cancel(old));
        }
        self.sequencers = Load::Loading(out.fetch(sh, Request::BftSequencers));
    }

    fn query_boot(&mut self, prefix: String, sh: &mut Shared, out: &mut Out) {
        let id = out.fetch(
            sh,
            Request::Bootstrapping {
                domain_id_prefix: prefix.clone(),
            },
        );
        self.boot_prefix = Some(prefix);
        self.boot = Load::Loading(id);
    }

    fn query_hosting(&mut self, domain: String, party: String, sh: &mut Shared, out: &mut Out) {
        let id = out.fetch(
            sh,
            Request::ParticipantIds {
                domain_id: domain.clone(),
                party_id: party.clone(),
            },
        );
        self.hosting_query = Some((domain, party));
        self.hosting = Load::Loading(id);
    }

    fn query_weight(&mut self, sv: String, before: Option<String>, sh: &mut Shared, out: &mut Out) {
        let id = out.fetch(
            sh,
            Request::RewardWeight(RewardWeightRequest {
                sv_party: sv.clone(),
                effective_before: before.clone(),
            }),
        );
        self.weight_query = Some((sv, before));
        self.weight = Load::Loading(id);
    }

    /// `r`: load the shown section again (the last query of a form section).
    fn refresh(&mut self, sh: &mut Shared, out: &mut Out) {
        match self.section {
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
        }
    }

    // -----------------------------------------------------------------------------------------
    // Forms
    // -----------------------------------------------------------------------------------------

    /// The synchronizer of the newest loaded update, if any.
    fn recent_synchronizer(sh: &Shared) -> Option<String> {
        let last = sh.history.last()?;
        let s = sh.history.summarizer.interner.resolve(last.synchronizer);
        (!s.is_empty()).then(|| s.to_string())
    }

    /// The synchronizer id prefix suggested for the bootstrapping query (`global-domain`).
    pub fn suggested_prefix(sh: &Shared) -> Option<String> {
        Self::recent_synchronizer(sh).map(|s| short_party(&s).to_string())
    }

    fn open_form(&mut self, sh: &Shared) {
        let syncs = sh.history.symbols_of(cat::SYNCHRONIZER);
        let parties = sh.history.parties();
        let form = match self.section {
            NetSection::Sequencers => return,
            NetSection::Bootstrapping => {
                let text = self
                    .boot_prefix
                    .clone()
                    .or_else(|| Self::suggested_prefix(sh))
                    .unwrap_or_default();
                let prefixes: Vec<&str> = syncs.iter().map(|s| short_party(s)).collect();
                (
                    FormKind::Bootstrapping,
                    Form::new(vec![Form::with_candidates(
                        Form::field(
                            "Prefix",
                            &text,
                            "synchronizer id prefix, e.g. global-domain",
                        ),
                        prefixes.iter().copied().chain(syncs.iter().copied()),
                    )]),
                )
            }
            NetSection::Participants => {
                let (domain, party) = self.hosting_query.clone().unwrap_or_else(|| {
                    (
                        Self::recent_synchronizer(sh).unwrap_or_default(),
                        String::new(),
                    )
                });
                (
                    FormKind::Participants,
                    Form::new(vec![
                        Form::with_candidates(
                            Form::field("Synchronizer", &domain, "synchronizer (domain) id"),
                            syncs.iter().copied(),
                        ),
                        Form::with_candidates(
                            Form::field("Party", &party, "party id (Tab completes)"),
                            parties.iter().copied(),
                        ),
                    ]),
                )
            }
            NetSection::RewardWeight => {
                let (sv, before) = self.weight_query.clone().unwrap_or_default();
                (
                    FormKind::RewardWeight,
                    Form::new(vec![
                        Form::with_candidates(
                            Form::field("SV party", &sv, "SV party id (Tab completes)"),
                            parties.iter().copied(),
                        ),
                        Form::field(
                            "Effective before",
                            before.as_deref().unwrap_or(""),
                            "optional, RFC 3339 (e.g. 2026-01-01T00:00:00Z)",
                        ),
                    ]),
                )
            }
        };
        let mut form = form;
        // Start on the first empty field.
        let first_empty = (0..form.1.len())
            .find(|&i| form.1.value(i).is_empty())
            .unwrap_or(0);
        form.1.set_active(first_empty);
        self.form = Some(form);
    }

    fn submit_form(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some((kind, form)) = &mut self.form else {
            return;
        };
        match kind {
            FormKind::Bootstrapping => {
                let prefix = form.value(0);
                if prefix.is_empty() {
                    form.set_error(0, "enter a synchronizer id prefix");
                    return;
                }
                self.form = None;
                self.query_boot(prefix, sh, out);
            }
            FormKind::Participants => {
                let (domain, party) = (form.value(0), form.value(1));
                if domain.is_empty() {
                    form.set_error(0, "enter the synchronizer id");
                    return;
                }
                if party.is_empty() {
                    form.set_error(1, "enter the party id");
                    return;
                }
                self.form = None;
                self.query_hosting(domain, party, sh, out);
            }
            FormKind::RewardWeight => {
                let sv = form.value(0);
                if sv.is_empty() {
                    form.set_error(0, "enter the SV party id");
                    return;
                }
                let before = form.value(1);
                let before = if before.is_empty() {
                    None
                } else {
                    match parse_time_micros(&before) {
                        Some(t) => Some(format_time_micros(t)),
                        None => {
                            form.set_error(
                                1,
                                "not a time: use RFC 3339, e.g. 2026-01-01T00:00:00Z",
                            );
                            return;
                        }
                    }
                };
                self.form = None;
                self.query_weight(sv, before, sh, out);
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Save and copy
    // -----------------------------------------------------------------------------------------

    fn selected_boot(&self) -> Option<(usize, &BootTx)> {
        let b = self.boot.done()?;
        let i = self.boot_table.selected()?;
        b.txs.get(i).map(|t| (i, t))
    }

    fn open_save(&mut self, out: &mut Out) {
        let Some(prefix) = self.boot.done().map(|b| b.prefix.clone()) else {
            out.warn("nothing to save: query the bootstrapping transactions first (i)");
            return;
        };
        let Some((n, tx)) = self.selected_boot() else {
            return;
        };
        if let Err(e) = &tx.bytes {
            out.error(format!("cannot save {}: {e}", tx.name));
            return;
        }
        let path = format!("./bootstrap-{}-{}.bin", file_part(&prefix), n + 1);
        self.save_input = Some(
            TextInput::single_line()
                .with_placeholder("file path")
                .with_text(&path),
        );
    }

    fn save_to(&mut self, path: &str, sh: &mut Shared, out: &mut Out) {
        let path = path.trim();
        if path.is_empty() {
            if let Some(input) = &mut self.save_input {
                input.set_validation(Some("enter a file path".into()));
            }
            return;
        }
        let Some((_, tx)) = self.selected_boot() else {
            self.save_input = None;
            return;
        };
        match &tx.bytes {
            Ok(bytes) => {
                let contents = bytes.clone();
                self.save_input = None;
                let id = out.next_id(sh);
                out.effects.push(Effect::WriteFile {
                    id,
                    path: PathBuf::from(path),
                    contents,
                });
            }
            Err(e) => {
                let msg = format!("cannot save {}: {e}", tx.name);
                self.save_input = None;
                out.error(msg);
            }
        }
    }

    fn copy(&self, out: &mut Out) {
        match self.section {
            NetSection::Sequencers => {
                if let Some(s) = self
                    .sequencers
                    .done()
                    .and_then(|v| self.seq_table.selected_row(v))
                {
                    out.copy("sequencer p2p URL", s.p2p_url.clone());
                }
            }
            NetSection::Bootstrapping => {
                if let Some((_, tx)) = self.selected_boot() {
                    out.copy(&format!("{} (base64)", tx.name), tx.base64.clone());
                }
            }
            NetSection::Participants => {
                if let Some(p) = self
                    .hosting
                    .done()
                    .and_then(|h| self.hosting_table.selected_row(&h.participants))
                {
                    out.copy("participant id", p.clone());
                }
            }
            NetSection::RewardWeight => {
                if let Some(w) = self.weight.done().and_then(|w| w.weight.clone()) {
                    out.copy("reward weight", w);
                }
            }
        }
    }

    /// The table of the shown section: a command (movement, sort, `/` filter) or, while the
    /// filter input is open, a raw key or pasted text. Returns whether the table used it.
    fn table_input(&mut self, input: TableInput<'_>) -> bool {
        match self.section {
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
            NetSection::RewardWeight => false,
        }
    }

    /// Whether the `/` filter input of the shown section's table is open.
    fn is_filtering(&self) -> bool {
        match self.section {
            NetSection::Sequencers => self.seq_table.is_filtering(),
            NetSection::Bootstrapping => self.boot_table.is_filtering(),
            NetSection::Participants => self.hosting_table.is_filtering(),
            NetSection::RewardWeight => false,
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

    fn render_body(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
        match self.section {
            NetSection::Sequencers => self.render_sequencers(area, buf, theme, focused),
            NetSection::Bootstrapping => self.render_boot(area, buf, sh, theme, focused),
            NetSection::Participants => self.render_hosting(area, buf, theme, focused),
            NetSection::RewardWeight => self.render_weight(area, buf, theme),
        }
    }

    fn render_sequencers(&self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool) {
        match &self.sequencers {
            Load::Idle => {
                paragraph(
                    area,
                    buf,
                    "Press r to load the BFT sequencers of this SV.",
                    theme.muted,
                );
            }
            Load::Loading(_) => {
                paragraph(area, buf, "loading BFT sequencers…", theme.muted);
            }
            Load::Failed(e) => {
                paragraph(area, buf, e, theme.status_err);
            }
            Load::Done(seqs) if seqs.is_empty() => {
                paragraph(
                    area,
                    buf,
                    "This SV has no BFT sequencer configured (the scan returned an empty list).",
                    theme.muted,
                );
            }
            Load::Done(seqs) => {
                let line = format!(
                    "{} BFT sequencer{} of this SV (one per synchronizer serial)",
                    seqs.len(),
                    if seqs.len() == 1 { "" } else { "s" }
                );
                cell(buf, area.x, area.y, &line, area.width, theme.muted);
                let table = Rect::new(
                    area.x,
                    area.y + 1,
                    area.width,
                    area.height.saturating_sub(1),
                );
                let draw = Draw::new(&(), theme, focused);
                self.seq_table.render(table, buf, seqs, &draw);
            }
        }
    }

    fn render_boot(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
        let mut area = area;
        if let Some(input) = &self.save_input {
            let h = input.desired_height() + 1;
            if area.height > h {
                let bar = Rect::new(area.x, area.bottom() - h, area.width, h);
                area.height -= h;
                let label = "Save to ";
                buf.set_stringn(bar.x, bar.y, label, usize::from(bar.width), theme.accent);
                let x = bar.x + (label.len() as u16).min(bar.width);
                input.render(
                    Rect::new(x, bar.y, bar.right() - x, input.desired_height()),
                    buf,
                    theme,
                    true,
                );
                cell(
                    buf,
                    bar.x,
                    bar.bottom() - 1,
                    "↵ save the decoded bytes · Esc cancel",
                    bar.width,
                    theme.muted,
                );
            }
        }
        match &self.boot {
            Load::Idle => {
                let hint = match Self::suggested_prefix(sh) {
                    Some(p) => format!(
                        "Press i to enter a synchronizer id prefix (suggested: {p}, the synchronizer of the newest loaded update)."
                    ),
                    None => "Press i to enter a synchronizer id prefix (e.g. global-domain)."
                        .to_string(),
                };
                paragraph(area, buf, &hint, theme.muted);
            }
            Load::Loading(_) => {
                let p = self.boot_prefix.as_deref().unwrap_or("");
                paragraph(
                    area,
                    buf,
                    &format!("loading bootstrapping transactions of {p}…"),
                    theme.muted,
                );
            }
            Load::Failed(e) => {
                paragraph(area, buf, e, theme.status_err);
            }
            Load::Done(b) => {
                let total: usize = b
                    .txs
                    .iter()
                    .map(|t| t.bytes.as_ref().map_or(0, Vec::len))
                    .sum();
                let line = format!(
                    "Prefix {}: {} transactions, {} decoded",
                    b.prefix,
                    b.txs.len(),
                    bytes_label(total)
                );
                cell(buf, area.x, area.y, &line, area.width, theme.muted);
                let table = Rect::new(
                    area.x,
                    area.y + 1,
                    area.width,
                    area.height.saturating_sub(1),
                );
                let draw = Draw::new(&(), theme, focused);
                self.boot_table.render(table, buf, &b.txs, &draw);
            }
        }
    }

    fn render_hosting(&self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool) {
        match &self.hosting {
            Load::Idle => {
                paragraph(
                    area,
                    buf,
                    "Press i to look up which participants host a party on a synchronizer (Tab completes parties seen in the history).",
                    theme.muted,
                );
            }
            Load::Loading(_) => {
                paragraph(
                    area,
                    buf,
                    "looking up the hosting participants…",
                    theme.muted,
                );
            }
            Load::Failed(e) => {
                paragraph(area, buf, e, theme.status_err);
            }
            Load::Done(h) => {
                let mut y = area.y;
                for (label, value, style) in [
                    ("Party        ", &h.party, theme.party),
                    ("Synchronizer ", &h.domain, theme.id),
                ] {
                    if y >= area.bottom() {
                        return;
                    }
                    buf.set_stringn(area.x, y, label, usize::from(area.width), theme.muted);
                    let x = area.x + (label.len() as u16).min(area.width);
                    cell(buf, x, y, value, area.right() - x, style);
                    y += 1;
                }
                if y >= area.bottom() {
                    return;
                }
                let n = h.participants.len();
                let line = match n {
                    0 => "Hosted by no participant (the scan returned an empty list).".to_string(),
                    1 => "Hosted by 1 participant:".to_string(),
                    n => format!("Hosted by {n} participants (multi-hosted):"),
                };
                cell(buf, area.x, y, &line, area.width, theme.accent);
                y += 1;
                let list = Rect::new(area.x, y, area.width, area.bottom().saturating_sub(y));
                let draw = Draw::new(&theme.id, theme, focused);
                self.hosting_table.render(list, buf, &h.participants, &draw);
            }
        }
    }

    fn render_weight(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        match &self.weight {
            Load::Idle => {
                paragraph(
                    area,
                    buf,
                    "Press i to look up the reward weight an SV had: the weight set by the most recent accepted UpdateSvRewardWeight proposal, optionally only counting changes that took effect before a time.",
                    theme.muted,
                );
            }
            Load::Loading(_) => {
                paragraph(area, buf, "looking up the reward weight…", theme.muted);
            }
            Load::Failed(e) => {
                paragraph(area, buf, e, theme.status_err);
            }
            Load::Done(w) => {
                let mut y = area.y;
                let before = w.before.clone().unwrap_or_else(|| "(now)".into());
                for (label, value, style) in [
                    ("SV party         ", &w.sv, theme.party),
                    ("Effective before ", &before, theme.time),
                ] {
                    if y >= area.bottom() {
                        return;
                    }
                    buf.set_stringn(area.x, y, label, usize::from(area.width), theme.muted);
                    let x = area.x + (label.len() as u16).min(area.width);
                    cell(buf, x, y, value, area.right() - x, style);
                    y += 1;
                }
                if y >= area.bottom() {
                    return;
                }
                let rest = Rect::new(area.x, y, area.width, area.bottom() - y);
                match &w.weight {
                    Some(weight) => {
                        let label = "Reward weight    ";
                        buf.set_stringn(
                            rest.x,
                            rest.y,
                            label,
                            usize::from(rest.width),
                            theme.muted,
                        );
                        let x = rest.x + (label.len() as u16).min(rest.width);
                        cell(buf, x, rest.y, weight, rest.right() - x, theme.json_number);
                    }
                    None => {
                        let when = match &w.before {
                            Some(t) => format!("before {t}"),
                            None => "so far".to_string(),
                        };
                        paragraph(
                            rest,
                            buf,
                            &format!(
                                "No reward weight: no accepted UpdateSvRewardWeight proposal for this party took effect {when}. The scan leaves rewardWeight out in that case (an unknown party or a party that is not an SV gets the same answer); the SV then has the weight it was onboarded with."
                            ),
                            theme.status_warn,
                        );
                    }
                }
            }
        }
    }
}

/// The name of scan `i` for messages: `scan 2 (https://…)`.
fn scan_name(sh: &Shared, i: usize) -> String {
    match sh.ctx.scan_urls.get(i) {
        Some(url) => format!("scan {} ({})", i + 1, safe_line(url, 60)),
        None => format!("scan {}", i + 1),
    }
}

/// The error after every configured scan missed a hash.
fn hash_miss_message(sh: &Shared, short: &str, misses: &[(usize, String)]) -> String {
    let tried: Vec<String> = misses
        .iter()
        .map(|(i, said)| format!("{}: {}", scan_name(sh, *i), said))
        .collect();
    let mut msg = format!("no update for hash {short} on {}. ", tried.join("; "));
    msg.push_str(
        "A scan indexes hashes only from the point it started indexing them, so an older update may be known to another scan",
    );
    if sh.ctx.scan_urls.len() <= 1 {
        msg.push_str("; configure more scan URLs (scan_urls) to try them");
    }
    msg
}

impl Pane for NetworkPane {
    fn id(&self) -> PaneId {
        PaneId::Network
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
                InputOutcome::Cancelled => self.save_input = None,
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
        if self.sequencers.is_idle() {
            self.load_sequencers(sh, out);
        }
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        match cmd {
            Command::NextSection | Command::PrevSection => {
                let n = NetSection::ALL.len();
                let i = self.section.index();
                let next = if cmd == Command::NextSection {
                    i + 1
                } else {
                    i + n - 1
                } % n;
                self.section = NetSection::ALL[next];
                if self.section == NetSection::Sequencers && self.sequencers.is_idle() {
                    self.load_sequencers(sh, out);
                }
                true
            }
            Command::Edit => {
                if self.section == NetSection::Sequencers {
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
        if let Request::ByHash { .. } = request {
            if self.hash.as_ref().is_some_and(|h| h.id == id) {
                self.on_hash_reply(result, sh, out);
            }
            return;
        }
        if self.sequencers.waits_for(id) {
            self.sequencers = match result {
                Ok(Response::BftSequencers(r)) => {
                    self.seq_table.set_rows(&r.bft_sequencers);
                    Load::Done(r.bft_sequencers.clone())
                }
                Ok(_) => Load::Failed("unexpected response to /v0/sv-bft-sequencers".into()),
                Err(e) => Load::Failed(explain(e, "this scan has no BFT sequencer configuration")),
            };
        } else if self.boot.waits_for(id) {
            let prefix = self.boot_prefix.clone().unwrap_or_default();
            self.boot = match result {
                Ok(Response::Bootstrapping(r)) => {
                    let txs = boot_txs(r);
                    self.boot_table.reset_rows(&txs);
                    Load::Done(BootResult { prefix, txs })
                }
                Ok(_) => Load::Failed("unexpected response to the bootstrapping request".into()),
                Err(e) => Load::Failed(explain(
                    e,
                    &format!(
                        "no synchronizer id starts with {prefix:?}; press i to change the prefix"
                    ),
                )),
            };
        } else if self.hosting.waits_for(id) {
            let (domain, party) = self.hosting_query.clone().unwrap_or_default();
            self.hosting = match result {
                Ok(Response::ParticipantIds(r)) => {
                    self.hosting_table.reset_rows(&r.participant_ids);
                    Load::Done(Hosting {
                        domain,
                        party,
                        participants: r.participant_ids.clone(),
                    })
                }
                Ok(_) => Load::Failed("unexpected response to the participant-id request".into()),
                Err(e) => Load::Failed(explain(
                    e,
                    "the scan knows no hosting of this party on this synchronizer (unknown party or synchronizer id)",
                )),
            };
        } else if self.weight.waits_for(id) {
            let (sv, before) = self.weight_query.clone().unwrap_or_default();
            self.weight = match result {
                Ok(Response::RewardWeight(r)) => Load::Done(Weight {
                    sv,
                    before,
                    weight: r.reward_weight.clone(),
                }),
                Ok(_) => Load::Failed("unexpected response to the reward weight request".into()),
                Err(e) => Load::Failed(explain(e, "the scan does not know this SV")),
            };
        }
    }

    fn set_area(&mut self, area: Rect) {
        self.area = area;
        let v = self.list_viewport();
        self.seq_table.set_viewport(v);
        self.boot_table.set_viewport(v);
        self.hosting_table.set_viewport(v);
    }

    fn render(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
        let title = self.title_line(theme);
        let Some(inner) = framed(area, buf, title, theme.border_style(focused)) else {
            return;
        };
        let titles: Vec<&str> = NetSection::ALL.iter().map(|s| s.title()).collect();
        render_section_tabs(
            Rect::new(inner.x, inner.y, inner.width, 1),
            buf,
            &titles,
            self.section.index(),
            theme,
        );
        let mut body = Rect::new(inner.x, inner.y + 1, inner.width, inner.height - 1);
        if let Some((_, form)) = &self.form {
            body = form.render_above(body, buf, theme);
        }
        // While a form for a first query is open, the form says it all.
        let idle = match self.section {
            NetSection::Sequencers => self.sequencers.is_idle(),
            NetSection::Bootstrapping => self.boot.is_idle(),
            NetSection::Participants => self.hosting.is_idle(),
            NetSection::RewardWeight => self.weight.is_idle(),
        };
        if body.height > 0 && !(idle && self.form.is_some()) {
            self.render_body(body, buf, sh, theme, focused && !self.is_editing());
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
        }
    }

    fn badge(&self, _sh: &Shared) -> Option<String> {
        if let Some(h) = &self.hash {
            return Some(format!("hash… scan {}", h.scan + 1));
        }
        match &self.sequencers {
            Load::Loading(_) => Some("loading".into()),
            Load::Failed(_) => Some("error".into()),
            Load::Done(v) => Some(format!("{} seq", v.len())),
            Load::Idle => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_variants_decode_and_bad_input_is_explained() {
        assert_eq!(decode_base64("aGVsbG8=").as_deref(), Ok(&b"hello"[..]));
        assert_eq!(decode_base64("aGVsbG8").as_deref(), Ok(&b"hello"[..]));
        assert!(decode_base64("!!!").unwrap_err().contains("base64"));
    }

    #[test]
    fn byte_sizes_group_digits() {
        assert_eq!(bytes_label(96), "96 B");
        assert_eq!(bytes_label(12_345), "12,345 B");
    }
}
