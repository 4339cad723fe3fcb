//! The Proxy pane (8): the validator's scan proxy (`{validator_url}/api/validator`), in three
//! sections switched with `]` / `[`: the amulet rules contract (header and folded payload JSON),
//! the unclaimed development fund coupons (table plus the selected coupon's details), and the
//! status of transfer commands by sender and nonce.
//!
//! ```text
//! ┌Proxy · Transfer commands · alice::1220… nonce 3──────────────────────────────┐
//! │1 Amulet rules │ 2 Dev fund coupons │ 3 Transfer commands                    │
//! │Status   Failure  Contract       Receiver     Amount    Reason               │
//! │sent              00a1b2c3…      bob          12.5                           │
//! │failed   expired  00ffee01…      carol        3.0       expired before …     │
//! └──────────────────────────────────────────────────────────────────────────────┘
//! ```

mod render;
mod rows;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::api::validator::{self, ContractWithState};
use crate::api::{ApiCall, scan};
use crate::config::keymap::KeyContext;
use crate::msg::Command;
use crate::msg::tabs::{Tabs, tabs};
use crate::msg::{Effect, Fetched, Request, Response};
use crate::panes::{Out, Pane, PaneId, RenderCtx, Shared};
use crate::ui::explain::explain;
use crate::ui::form::{Form, FormOutcome, Load, form_key, form_paste};
use crate::ui::json::JsonView;
use crate::ui::scroll::Scrolled;
use crate::ui::sections::framed_sections;
use crate::ui::table::{DataTable, TableInput};

use render::ContractView;
pub use rows::TransferRow;
use rows::{
    CouponCol, CouponRow, TransferCol, coupon_table, coupon_total, fill_table, transfer_table,
};

/// Table width from which the coupon details show beside the table.
const SIDE_PANEL_MIN_WIDTH: u16 = 100;

tabs! {
    /// The sections of the pane, in tab order.
    pub enum ProxySection {
        AmuletRules => "Amulet rules",
        Coupons => "Dev fund coupons",
        Transfers => "Transfer commands",
    }
}

#[derive(Debug, Clone, PartialEq)]
struct TransferQuery {
    sender: String,
    nonce: i64,
}

/// The Proxy pane.
#[derive(Debug)]
pub struct ProxyPane {
    section: ProxySection,
    rules: Load<Box<ContractView>>,
    coupons: Load<Vec<ContractWithState>>,
    /// The coupons as the table shows them (same order as `coupons`).
    coupon_rows: Vec<CouponRow>,
    /// Exact sum of the coupons' amounts ("?" when one is unreadable), computed on arrival.
    coupon_total: String,
    coupon_table: DataTable<CouponCol>,
    /// The selected coupon's details (rebuilt when the selection moves).
    coupon_view: Option<Box<ContractView>>,
    /// Keys go to the coupon details (Enter on the table; Esc back).
    coupon_details: bool,
    transfers: Load<Vec<TransferRow>>,
    transfer_query: Option<TransferQuery>,
    transfer_table: DataTable<TransferCol>,
    form: Option<Form>,
    area: Rect,
}

impl ProxyPane {
    /// A new pane; nothing is fetched until it is first shown.
    pub fn new(_sh: &Shared) -> Self {
        ProxyPane {
            section: ProxySection::AmuletRules,
            rules: Load::Idle,
            coupons: Load::Idle,
            coupon_rows: Vec::new(),
            coupon_total: String::new(),
            coupon_table: coupon_table(),
            coupon_view: None,
            coupon_details: false,
            transfers: Load::Idle,
            transfer_query: None,
            transfer_table: transfer_table(),
            form: None,
            area: Rect::default(),
        }
    }

    /// The section shown.
    pub fn section(&self) -> ProxySection {
        self.section
    }

    /// Whether the transfer form is open.
    pub fn is_editing(&self) -> bool {
        self.form.is_some()
    }

    /// The amulet rules contract id, once loaded.
    pub fn amulet_rules_id(&self) -> Option<&str> {
        self.rules.done().map(|c| c.contract_id.as_str())
    }

    /// The coupons loaded.
    pub fn coupons(&self) -> Option<&[ContractWithState]> {
        self.coupons.done().map(Vec::as_slice)
    }

    /// The transfer commands found by the last query.
    pub fn transfers(&self) -> Option<&[TransferRow]> {
        self.transfers.done().map(Vec::as_slice)
    }

    /// Whether the coupon details have the keys.
    pub fn is_in_coupon_details(&self) -> bool {
        self.coupon_details
    }

    /// The failure of the shown section, if it failed.
    pub fn error_text(&self) -> Option<&str> {
        match self.section {
            ProxySection::AmuletRules => self.rules.failure(),
            ProxySection::Coupons => self.coupons.failure(),
            ProxySection::Transfers => self.transfers.failure(),
        }
    }

    // -----------------------------------------------------------------------------------------
    // Loading
    // -----------------------------------------------------------------------------------------

    fn load_rules(&mut self, sh: &mut Shared, out: &mut Out) {
        let id = out.fetch(sh, Request::api(validator::amulet_rules()));
        if let Some(old) = self.rules.start(id) {
            out.effects.push(Effect::Cancel(old));
        }
    }

    fn load_coupons(&mut self, sh: &mut Shared, out: &mut Out) {
        let id = out.fetch(sh, Request::api(validator::dev_fund_coupons()));
        if let Some(old) = self.coupons.start(id) {
            out.effects.push(Effect::Cancel(old));
        }
    }

    fn query_transfers(&mut self, q: TransferQuery, sh: &mut Shared, out: &mut Out) {
        let id = out.fetch(
            sh,
            Request::api(validator::transfer_command_status(&q.sender, q.nonce)),
        );
        self.transfer_query = Some(q);
        if let Some(old) = self.transfers.start(id) {
            out.effects.push(Effect::Cancel(old));
        }
    }

    fn refresh(&mut self, sh: &mut Shared, out: &mut Out) {
        match self.section {
            ProxySection::AmuletRules => self.load_rules(sh, out),
            ProxySection::Coupons => self.load_coupons(sh, out),
            ProxySection::Transfers => match self.transfer_query.clone() {
                Some(q) => self.query_transfers(q, sh, out),
                None => self.open_form(sh),
            },
        }
    }

    fn open_form(&mut self, sh: &Shared) {
        let (sender, nonce) = match &self.transfer_query {
            Some(q) => (q.sender.clone(), q.nonce.to_string()),
            None => (String::new(), String::new()),
        };
        let mut form = Form::new(vec![
            Form::with_candidates(
                Form::field("Sender", &sender, "sender party id (Tab completes)"),
                sh.history.parties(),
            ),
            Form::field("Nonce", &nonce, "nonce (integer, ≥ 0)"),
        ]);
        let first_empty = (0..form.len())
            .find(|&i| form.value(i).is_empty())
            .unwrap_or(0);
        form.set_active(first_empty);
        self.form = Some(form);
    }

    fn submit_form(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(form) = &mut self.form else {
            return;
        };
        let Some([sender]) = form.required([(0, "enter the sender party id")]) else {
            return;
        };
        let nonce = form.value(1);
        let nonce = match nonce.parse::<i64>() {
            Ok(n) if n >= 0 => n,
            _ => {
                form.set_error(1, "the nonce is a whole number ≥ 0");
                return;
            }
        };
        self.form = None;
        self.query_transfers(TransferQuery { sender, nonce }, sh, out);
    }

    /// The coupon of the selected table row.
    fn selected_coupon(&self) -> Option<&ContractWithState> {
        let i = self.coupon_table.selected()?;
        self.coupons.done()?.get(i)
    }

    fn sync_coupon_view(&mut self) {
        self.coupon_view = self
            .selected_coupon()
            .map(|c| Box::new(ContractView::new(c)));
    }

    /// `y`: copies what is selected in the shown section (nothing when nothing is).
    fn copy(&self, out: &mut Out) {
        let copied = match self.section {
            ProxySection::AmuletRules => match self.rules.done() {
                Some(c) if c.payload.scroll().cursor() > 0 => c
                    .payload
                    .selected_json()
                    .map(|json| (format!("JSON at {}", c.payload.selected_path()), json)),
                Some(c) => Some((
                    "amulet rules contract id".to_string(),
                    c.contract_id.clone(),
                )),
                None => None,
            },
            ProxySection::Coupons => self.selected_coupon().map(|c| {
                (
                    "coupon contract id".to_string(),
                    c.contract.contract_id.clone(),
                )
            }),
            ProxySection::Transfers => self
                .transfers
                .done()
                .and_then(|t| self.transfer_table.selected_row(t))
                .map(|t| {
                    (
                        "transfer command contract id".to_string(),
                        t.contract_id.clone(),
                    )
                }),
        };
        if let Some((what, text)) = copied {
            out.copy(&what, text);
        }
    }

    /// The JSON view that has the keys, if one does.
    fn json_mut(&mut self) -> Option<&mut JsonView> {
        match self.section {
            ProxySection::AmuletRules => match &mut self.rules {
                Load::Done(c) => Some(&mut c.payload),
                _ => None,
            },
            ProxySection::Coupons if self.coupon_details => {
                self.coupon_view.as_mut().map(|c| &mut c.payload)
            }
            _ => None,
        }
    }

    /// The table that has the keys (coupons without their details, transfers): a command
    /// (movement, sort, `/` filter) or, while the filter input is open, a raw key or pasted
    /// text. `None` when no table has the keys, else whether it used the input.
    fn table_input(&mut self, input: TableInput<'_>) -> Option<bool> {
        match self.section {
            ProxySection::Coupons if !self.coupon_details => {
                let used = self.coupon_table.input(input, &self.coupon_rows);
                if used {
                    self.sync_coupon_view();
                }
                Some(used)
            }
            ProxySection::Transfers => {
                let rows = self.transfers.done().map_or(&[][..], Vec::as_slice);
                Some(self.transfer_table.input(input, rows))
            }
            _ => None,
        }
    }

    /// Whether the `/` filter input of the shown table is open.
    fn is_filtering(&self) -> bool {
        match self.section {
            ProxySection::Coupons => self.coupon_table.is_filtering(),
            ProxySection::Transfers => self.transfer_table.is_filtering(),
            ProxySection::AmuletRules => false,
        }
    }

    fn viewport(&self) -> usize {
        usize::from(self.area.height.saturating_sub(5)).max(1)
    }
}

impl Pane for ProxyPane {
    fn sort_by_letter(&mut self, letter: char) -> bool {
        self.table_input(TableInput::SortLetter(letter))
            .unwrap_or(false)
    }

    fn sort_letters(&self) -> Option<String> {
        let hint = match self.section {
            ProxySection::Coupons if !self.coupon_details => {
                self.coupon_table.columns().letter_hint()
            }
            ProxySection::Transfers => self.transfer_table.columns().letter_hint(),
            _ => return None,
        };
        Some(hint).filter(|h| !h.is_empty())
    }

    fn id(&self) -> PaneId {
        PaneId::Proxy
    }

    /// `b` on the amulet rules asks every scan for them (the scan's own `/v0/amulet-rules`).
    fn scan_request(&self, _sh: &Shared) -> Option<(ApiCall, String)> {
        (self.section == ProxySection::AmuletRules).then(|| {
            (
                scan::amulet_rules().into_answer(),
                "amulet rules".to_owned(),
            )
        })
    }

    fn key_context(&self) -> KeyContext {
        if self.wants_raw_keys() {
            KeyContext::TextInput
        } else if self.section == ProxySection::AmuletRules
            || (self.section == ProxySection::Coupons && self.coupon_details)
        {
            KeyContext::Tree
        } else {
            KeyContext::List
        }
    }

    fn wants_raw_keys(&self) -> bool {
        self.form.is_some() || self.is_filtering()
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        match form_key(&mut self.form, key) {
            None => {
                self.table_input(TableInput::Key(key));
            }
            Some(FormOutcome::Submitted) => self.submit_form(sh, out),
            Some(FormOutcome::Cancelled | FormOutcome::Consumed) => {}
        }
    }

    fn on_paste(&mut self, text: &str, _sh: &mut Shared, _out: &mut Out) {
        if !form_paste(&mut self.form, text) {
            self.table_input(TableInput::Paste(text));
        }
    }

    fn on_focus(&mut self, sh: &mut Shared, out: &mut Out) {
        if self.rules.is_idle() {
            self.load_rules(sh, out);
        }
        if self.coupons.is_idle() {
            self.load_coupons(sh, out);
        }
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        let viewport = self.viewport();
        match cmd {
            Command::NextSection | Command::PrevSection => {
                self.section = self.section.step(cmd == Command::NextSection);
                self.coupon_details = false;
                return true;
            }
            Command::Edit => {
                if self.section != ProxySection::Transfers {
                    return false;
                }
                self.open_form(sh);
                return true;
            }
            Command::Refresh => {
                self.refresh(sh, out);
                return true;
            }
            Command::Copy => {
                self.copy(out);
                return true;
            }
            Command::Select if self.section == ProxySection::Coupons && !self.coupon_details => {
                if self.coupon_view.is_some() {
                    self.coupon_details = true;
                }
                return true;
            }
            Command::Back | Command::Cancel if self.coupon_details => {
                self.coupon_details = false;
                return true;
            }
            _ => {}
        }
        if let Some(used) = self.table_input(TableInput::Command(cmd)) {
            return used;
        }
        let Some(json) = self.json_mut() else {
            return false;
        };
        json.set_viewport(viewport.saturating_sub(5).max(1));
        json.command(cmd)
    }

    fn on_fetched(&mut self, reply: &Fetched, _sh: &mut Shared, _out: &mut Out) {
        let rules = self.rules.accept(
            reply,
            "amulet-rules",
            Response::answer::<validator::AmuletRules>,
        );
        if let Some(answer) = rules {
            self.rules = match answer {
                Ok(r) => Load::Done(Box::new(ContractView::new(&r.amulet_rules))),
                Err(f) => Load::Failed(f.text(|e| explain(
                    e,
                    "the proxy found no AmuletRules contract (the DSO has not created it yet, or the validator is not connected)",
                ))),
            };
            return;
        }
        let coupons = self.coupons.accept(
            reply,
            "the coupons request",
            Response::answer::<validator::DevFundCoupons>,
        );
        if let Some(answer) = coupons {
            self.coupons = match answer {
                Ok(r) => {
                    let list = r.unclaimed_development_fund_coupons.clone();
                    let (rows, texts) = CouponRow::rows(&list);
                    self.coupon_rows = rows;
                    fill_table(
                        &mut self.coupon_table,
                        CouponCol::Amount,
                        (&self.coupon_rows, &texts),
                    );
                    self.coupon_total = coupon_total(&self.coupon_rows);
                    Load::Done(list)
                }
                Err(f) => Load::Failed(f.text(|e| explain(e, "the proxy does not list coupons"))),
            };
            self.coupon_details = false;
            self.sync_coupon_view();
            return;
        }
        let transfers = self.transfers.accept(
            reply,
            "transfer-command/status",
            Response::answer::<validator::TransferCommandStatusResponse>,
        );
        if let Some(answer) = transfers {
            self.transfers = match answer {
                Ok(r) => {
                    let (rows, texts) = TransferRow::rows(r);
                    fill_table(&mut self.transfer_table, TransferCol::Amount, (&rows, &texts));
                    Load::Done(rows)
                }
                Err(f) => Load::Failed(f.text(|e| explain(
                    e,
                    "no transfer command for this sender and nonce (the proxy only knows commands created in the last 24 hours; check the sender and nonce, then press i)",
                ))),
            };
        }
    }

    fn set_area(&mut self, area: Rect) {
        self.area = area;
        let v = self.viewport();
        self.coupon_table.set_viewport(v);
        self.transfer_table.set_viewport(v);
    }

    fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { theme, focused, .. } = cx;
        let title = self.title_line(theme);
        let Some(mut body) = framed_sections(area, buf, title, self.section, theme, focused) else {
            return;
        };
        if let Some(form) = &self.form {
            body = form.render_above(body, buf, theme);
        }
        if body.height == 0 {
            return;
        }
        if self.form.is_some() && self.transfers.is_idle() {
            return;
        }
        let cx = cx.focus(focused && self.form.is_none());
        match self.section {
            ProxySection::AmuletRules => self.render_rules(body, buf, cx),
            ProxySection::Coupons => self.render_coupons(body, buf, cx),
            ProxySection::Transfers => self.render_transfers(body, buf, cx),
        }
    }

    fn hints(&self) -> Vec<Command> {
        if self.form.is_some() {
            return vec![Command::Confirm, Command::Complete, Command::Cancel];
        }
        if self.is_filtering() {
            return vec![Command::Confirm, Command::Cancel];
        }
        match self.section {
            ProxySection::AmuletRules => vec![
                Command::Toggle,
                Command::NextSection,
                Command::Copy,
                Command::Refresh,
                Command::ExpandAll,
            ],
            ProxySection::Coupons if self.coupon_details => {
                vec![Command::Back, Command::Toggle, Command::Copy]
            }
            ProxySection::Coupons => vec![
                Command::Select,
                Command::NextSection,
                Command::Copy,
                Command::Refresh,
            ],
            ProxySection::Transfers => vec![
                Command::Edit,
                Command::Copy,
                Command::NextSection,
                Command::Refresh,
            ],
        }
    }

    /// The selected row of the section shown, whole.
    fn fields(&self, sh: &Shared) -> Option<(String, Vec<crate::ui::fields::Field>)> {
        let fields = match self.section {
            ProxySection::AmuletRules => return None,
            ProxySection::Coupons => self.coupon_table.selected_fields(&self.coupon_rows, sh)?,
            ProxySection::Transfers => self
                .transfer_table
                .selected_fields(self.transfers.done()?, &())?,
        };
        Some((format!("{} row", self.section.title()), fields))
    }

    fn tab_count(&self, _sh: &Shared) -> Option<usize> {
        // The table of the section shown (the amulet rules are one contract, not a table).
        match self.section {
            ProxySection::AmuletRules => None,
            ProxySection::Coupons => self.coupons.done().map(Vec::len),
            ProxySection::Transfers => self.transfers.done().map(Vec::len),
        }
    }
}
