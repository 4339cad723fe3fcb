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

use std::borrow::Cow;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::api::validator::{
    ContractWithState, TransferCommandState, TransferCommandStatusResponse,
    TransferCommandWithStatus, TransferFailureKind,
};
use crate::config::keymap::KeyContext;
use crate::model::amount::{Amount, sum_amounts};
use crate::model::summary::{short_id, short_party, short_template};
use crate::msg::Command;
use crate::msg::{Effect, Fetched, Request, Response};
use crate::panes::{Out, Pane, PaneId, Shared};
use crate::ui::form::{Form, FormOutcome, Load, cell, explain, paragraph, render_section_tabs};
use crate::ui::format::amount_column;
use crate::ui::json::JsonView;
use crate::ui::layout::framed;
use crate::ui::table::{
    Cell, Column, Columns, DataTable, Draw, SortKey, TableInput, TableRow, Width,
};
use crate::ui::theme::Theme;

/// Table width from which the coupon details show beside the table.
const SIDE_PANEL_MIN_WIDTH: u16 = 100;

/// The sections of the pane, in tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProxySection {
    AmuletRules,
    Coupons,
    Transfers,
}

impl ProxySection {
    pub const ALL: [ProxySection; 3] = [
        ProxySection::AmuletRules,
        ProxySection::Coupons,
        ProxySection::Transfers,
    ];

    /// The tab label.
    pub fn title(self) -> &'static str {
        match self {
            ProxySection::AmuletRules => "Amulet rules",
            ProxySection::Coupons => "Dev fund coupons",
            ProxySection::Transfers => "Transfer commands",
        }
    }

    fn index(self) -> usize {
        ProxySection::ALL
            .iter()
            .position(|s| *s == self)
            .unwrap_or(0)
    }
}

/// A contract as shown: its header fields and its payload in a JSON view.
#[derive(Debug, Clone)]
struct ContractView {
    template_id: String,
    contract_id: String,
    created_at: String,
    domain_id: Option<String>,
    payload: JsonView,
}

impl ContractView {
    fn new(c: &ContractWithState) -> Self {
        let payload = c.contract.payload.to_value().unwrap_or(Value::Null);
        ContractView {
            template_id: c.contract.template_id.clone(),
            contract_id: c.contract.contract_id.clone(),
            created_at: c.contract.created_at.clone(),
            domain_id: c.domain_id.clone(),
            payload: JsonView::new(&payload),
        }
    }

    /// Draws the header lines and the payload below them.
    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool) {
        let domain = self
            .domain_id
            .clone()
            .unwrap_or_else(|| "(none: in flight between synchronizers)".into());
        // `Module:Entity (package…)`: the name first, so it survives narrow widths.
        let template = match self.template_id.split_once(':') {
            Some((pkg, _)) if short_template(&self.template_id) != self.template_id => format!(
                "{} (package {})",
                short_template(&self.template_id),
                short_id(pkg, 12)
            ),
            _ => self.template_id.clone(),
        };
        let mut y = area.y;
        for (label, value, style) in [
            ("Template   ", &template, theme.accent),
            ("Contract   ", &self.contract_id, theme.id),
            ("Created at ", &self.created_at, theme.time),
            ("Domain     ", &domain, theme.id),
        ] {
            if y >= area.bottom() {
                return;
            }
            let row = Rect::new(area.x, y, area.width, 1);
            label_value(buf, row, label, (value, style), theme);
            y += 1;
        }
        if y >= area.bottom() {
            return;
        }
        cell(buf, area.x, y, "Payload", area.width, theme.table_header);
        y += 1;
        let rest = Rect::new(area.x, y, area.width, area.bottom().saturating_sub(y));
        self.payload.render(rest, buf, theme, focused);
    }
}

/// One transfer command row.
#[derive(Debug, Clone, PartialEq)]
pub struct TransferRow {
    pub contract_id: String,
    pub status: TransferCommandState,
    pub failure_kind: Option<TransferFailureKind>,
    pub reason: Option<String>,
    pub receiver: String,
    pub amount: String,
    pub expires_at: String,
    /// The amount's exact value and its text in the column (the column's decimals).
    value: Option<Amount>,
    amount_text: String,
}

impl TransferRow {
    fn new(contract_id: &str, t: &TransferCommandWithStatus) -> Self {
        let payload = t.contract.payload.to_value().unwrap_or(Value::Null);
        let text = |k: &str| match payload.get(k) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        TransferRow {
            contract_id: contract_id.to_string(),
            status: t.status.status.clone(),
            failure_kind: t.status.failure_kind.clone(),
            reason: t.status.reason.clone(),
            receiver: text("receiver"),
            value: Amount::parse(&text("amount")),
            amount: text("amount"),
            expires_at: text("expiresAt"),
            amount_text: String::new(),
        }
    }

    /// The rows of an answer, their amounts written with the column's decimals.
    fn rows(r: &TransferCommandStatusResponse) -> Vec<TransferRow> {
        let mut rows: Vec<TransferRow> = r
            .transfer_commands_by_contract_id
            .iter()
            .map(|(cid, t)| TransferRow::new(cid, t))
            .collect();
        let values: Vec<Option<Amount>> = rows.iter().map(|r| r.value).collect();
        let raws: Vec<&str> = rows.iter().map(|r| r.amount.as_str()).collect();
        let texts = amount_column(&values, &raws);
        for (row, text) in rows.iter_mut().zip(texts) {
            row.amount_text = text;
        }
        rows
    }
}

/// The columns of the transfer commands table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferCol {
    Status,
    Failure,
    Contract,
    Receiver,
    Amount,
    Reason,
}

impl TableRow for TransferRow {
    type Col = TransferCol;
    type Ctx = ();

    fn cell(&self, col: TransferCol, _width: u16, _: &(), theme: &Theme) -> Cell<'_> {
        match col {
            TransferCol::Status => {
                Cell::new(self.status.to_string(), status_style(&self.status, theme))
            }
            TransferCol::Failure => Cell::new(
                self.failure_kind
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                theme.status_err,
            ),
            TransferCol::Contract => Cell::new(short_id(&self.contract_id, 12), theme.id),
            TransferCol::Receiver => Cell::new(short_party(&self.receiver), theme.party),
            TransferCol::Amount => Cell::new(self.amount_text.as_str(), theme.json_number),
            TransferCol::Reason => Cell::new(self.reason.as_deref().unwrap_or(""), theme.muted),
        }
    }

    fn sort_key(&self, col: TransferCol) -> SortKey<'_> {
        let text = |s: String| SortKey::Text(Cow::Owned(s));
        match col {
            TransferCol::Status => text(self.status.to_string()),
            TransferCol::Failure => self
                .failure_kind
                .as_ref()
                .map_or(SortKey::Missing, |k| text(k.to_string())),
            TransferCol::Contract => SortKey::Text(Cow::Borrowed(&self.contract_id)),
            TransferCol::Receiver => SortKey::Text(Cow::Borrowed(&self.receiver)),
            TransferCol::Amount => self.value.map_or(SortKey::Missing, SortKey::from),
            TransferCol::Reason => self
                .reason
                .as_deref()
                .map_or(SortKey::Missing, |r| SortKey::Text(Cow::Borrowed(r))),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!(
            "{} {} {} {} {}",
            status_text(self),
            self.contract_id,
            self.receiver,
            self.amount,
            self.reason.as_deref().unwrap_or("")
        ))
    }
}

/// The columns of the coupons table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CouponCol {
    Amount,
    Contract,
    Created,
}

/// A coupon as the table shows it: what the cells need, read once when the answer arrives.
#[derive(Debug, Clone, PartialEq)]
struct CouponRow {
    contract_id: String,
    created_at: String,
    /// The amount as sent, its exact value and its text in the column (the column's decimals).
    amount: String,
    value: Option<Amount>,
    amount_text: String,
}

impl CouponRow {
    /// The rows of the coupons, in their order, their amounts with the column's decimals.
    fn rows(coupons: &[ContractWithState]) -> Vec<CouponRow> {
        let mut rows: Vec<CouponRow> = coupons
            .iter()
            .map(|c| {
                let amount = payload_str(c, "amount").unwrap_or_default();
                CouponRow {
                    contract_id: c.contract.contract_id.clone(),
                    created_at: c.contract.created_at.clone(),
                    value: Amount::parse(&amount),
                    amount,
                    amount_text: String::new(),
                }
            })
            .collect();
        let values: Vec<Option<Amount>> = rows.iter().map(|r| r.value).collect();
        let raws: Vec<&str> = rows.iter().map(|r| r.amount.as_str()).collect();
        let texts = amount_column(&values, &raws);
        for (row, text) in rows.iter_mut().zip(texts) {
            row.amount_text = text;
        }
        rows
    }
}

impl TableRow for CouponRow {
    type Col = CouponCol;
    /// Times are shown in the session's zone.
    type Ctx = Shared;

    fn cell(&self, col: CouponCol, _width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        match col {
            CouponCol::Amount => Cell::new(self.amount_text.as_str(), theme.json_number),
            CouponCol::Contract => Cell::new(short_id(&self.contract_id, 12), theme.id),
            CouponCol::Created => Cell::new(display_time(&self.created_at, sh), theme.time),
        }
    }

    fn sort_key(&self, col: CouponCol) -> SortKey<'_> {
        match col {
            CouponCol::Amount => self.value.map_or(SortKey::Missing, SortKey::from),
            CouponCol::Contract => SortKey::Text(Cow::Borrowed(&self.contract_id)),
            CouponCol::Created => SortKey::Text(Cow::Borrowed(&self.created_at)),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!(
            "{} {} {}",
            self.amount, self.contract_id, self.created_at
        ))
    }
}

/// Widest the amount columns get.
const MAX_AMOUNT_COL: u16 = 40;

fn coupon_table() -> DataTable<CouponCol> {
    DataTable::new(Columns::new(vec![
        Column::new(CouponCol::Amount, "Amount", Width::Fixed(14))
            .right()
            .descending_first(),
        Column::new(CouponCol::Contract, "Contract", Width::Fixed(14)),
        Column::new(CouponCol::Created, "Created at", Width::fill(0)),
    ]))
}

fn transfer_table() -> DataTable<TransferCol> {
    let col = |id, title, width| Column::new(id, title, Width::Fixed(width));
    DataTable::new(Columns::new(vec![
        col(TransferCol::Status, "Status", 8),
        col(TransferCol::Failure, "Failure", 10),
        col(TransferCol::Contract, "Contract", 14),
        col(TransferCol::Receiver, "Receiver", 14),
        col(TransferCol::Amount, "Amount", 12)
            .right()
            .descending_first(),
        Column::new(TransferCol::Reason, "Reason", Width::fill(0)),
    ]))
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
        if let Load::Loading(old) = self.rules {
            out.effects.push(Effect::Cancel(old));
        }
        self.rules = Load::Loading(out.fetch(sh, Request::AmuletRules));
    }

    fn load_coupons(&mut self, sh: &mut Shared, out: &mut Out) {
        if let Load::Loading(old) = self.coupons {
            out.effects.push(Effect::Cancel(old));
        }
        self.coupons = Load::Loading(out.fetch(sh, Request::DevFundCoupons));
    }

    fn query_transfers(&mut self, q: TransferQuery, sh: &mut Shared, out: &mut Out) {
        if let Load::Loading(old) = self.transfers {
            out.effects.push(Effect::Cancel(old));
        }
        let id = out.fetch(
            sh,
            Request::TransferStatus {
                sender: q.sender.clone(),
                nonce: q.nonce,
            },
        );
        self.transfer_query = Some(q);
        self.transfers = Load::Loading(id);
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
        let sender = form.value(0);
        if sender.is_empty() {
            form.set_error(0, "enter the sender party id");
            return;
        }
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

    fn copy(&self, out: &mut Out) {
        match self.section {
            ProxySection::AmuletRules => match self.rules.done() {
                Some(c) if c.payload.scroll().cursor() > 0 => {
                    if let Some(json) = c.payload.selected_json() {
                        out.copy(&format!("JSON at {}", c.payload.selected_path()), json);
                    }
                }
                Some(c) => out.copy("amulet rules contract id", c.contract_id.clone()),
                None => {}
            },
            ProxySection::Coupons => {
                if let Some(c) = self.selected_coupon() {
                    out.copy("coupon contract id", c.contract.contract_id.clone());
                }
            }
            ProxySection::Transfers => {
                if let Some(t) = self
                    .transfers
                    .done()
                    .and_then(|t| self.transfer_table.selected_row(t))
                {
                    out.copy("transfer command contract id", t.contract_id.clone());
                }
            }
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

    // -----------------------------------------------------------------------------------------
    // Drawing
    // -----------------------------------------------------------------------------------------

    fn title_line(&self, theme: &Theme) -> Line<'static> {
        let mut spans = vec![
            Span::styled("Proxy", theme.title),
            Span::styled(format!(" · {}", self.section.title()), theme.muted),
        ];
        if self.section == ProxySection::Transfers
            && let Some(q) = &self.transfer_query
        {
            spans.push(Span::styled(
                format!(
                    " · {} nonce {}",
                    crate::ui::safe::safe_line(short_party(&q.sender), 24),
                    q.nonce
                ),
                theme.muted,
            ));
        }
        Line::from(spans)
    }

    fn render_rules(&self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool) {
        match &self.rules {
            Load::Idle => {
                paragraph(area, buf, "Press r to load the amulet rules.", theme.muted);
            }
            Load::Loading(_) => {
                paragraph(area, buf, "loading the amulet rules…", theme.muted);
            }
            Load::Failed(e) => {
                paragraph(area, buf, e, theme.status_err);
            }
            Load::Done(c) => c.render(area, buf, theme, focused),
        }
    }

    fn render_coupons(
        &self,
        area: Rect,
        buf: &mut Buffer,
        sh: &Shared,
        theme: &Theme,
        focused: bool,
    ) {
        let coupons = match &self.coupons {
            Load::Idle => {
                paragraph(area, buf, "Press r to load the coupons.", theme.muted);
                return;
            }
            Load::Loading(_) => {
                paragraph(
                    area,
                    buf,
                    "loading unclaimed development fund coupons…",
                    theme.muted,
                );
                return;
            }
            Load::Failed(e) => {
                paragraph(area, buf, e, theme.status_err);
                return;
            }
            Load::Done(c) => c,
        };
        if coupons.is_empty() {
            paragraph(
                area,
                buf,
                "No unclaimed development fund coupons: every coupon has been allocated.",
                theme.muted,
            );
            return;
        }
        if self.coupon_details && area.width < SIDE_PANEL_MIN_WIDTH {
            if let Some(v) = &self.coupon_view {
                v.render(area, buf, theme, focused);
            }
            return;
        }
        let (table, side) = if area.width >= SIDE_PANEL_MIN_WIDTH {
            let left = area.width * 11 / 20;
            (
                Rect::new(area.x, area.y, left, area.height),
                Some(Rect::new(
                    area.x + left + 1,
                    area.y,
                    area.width - left - 1,
                    area.height,
                )),
            )
        } else {
            (area, None)
        };
        let total = coupons.len();
        let sum = &self.coupon_total;
        cell(
            buf,
            table.x,
            table.y,
            &format!("{total} unclaimed coupons · {sum} total"),
            table.width,
            theme.muted,
        );
        let t = Rect::new(
            table.x,
            table.y + 1,
            table.width,
            table.height.saturating_sub(1),
        );
        let draw = Draw::new(sh, theme, focused && !self.coupon_details);
        self.coupon_table.render(t, buf, &self.coupon_rows, &draw);
        if let (Some(side), Some(v)) = (side, &self.coupon_view) {
            for y in side.y..side.bottom() {
                buf.set_stringn(side.x - 1, y, "│", 1, theme.border);
            }
            v.render(side, buf, theme, focused && self.coupon_details);
        }
    }

    fn render_transfers(&self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool) {
        let rows = match &self.transfers {
            Load::Idle => {
                paragraph(
                    area,
                    buf,
                    "Press i to look up the transfer commands of a sender for a nonce (Tab completes parties seen in the history). The proxy reports commands created in the last 24 hours.",
                    theme.muted,
                );
                return;
            }
            Load::Loading(_) => {
                paragraph(area, buf, "looking up transfer commands…", theme.muted);
                return;
            }
            Load::Failed(e) => {
                paragraph(area, buf, e, theme.status_err);
                return;
            }
            Load::Done(r) => r,
        };
        let mut y = area.y;
        if let Some(q) = &self.transfer_query {
            let value = format!("{}  nonce {}", q.sender, q.nonce);
            let row = Rect::new(area.x, y, area.width, 1);
            label_value(buf, row, "Sender ", (&value, theme.party), theme);
            y += 1;
        }
        if y >= area.bottom() {
            return;
        }
        // Details of the selected command at the bottom: its full reason, wrapped.
        let selected = self.transfer_table.selected_row(rows);
        let detail = selected.map(|r| {
            let mut s = format!("{}  {}", r.contract_id, status_text(r));
            if !r.expires_at.is_empty() {
                s.push_str(&format!("  expires {}", r.expires_at));
            }
            if let Some(reason) = &r.reason {
                s.push_str(&format!("\nreason: {reason}"));
            }
            s
        });
        let detail_h = if detail.is_some() {
            4u16.min(area.bottom().saturating_sub(y) / 2)
        } else {
            0
        };
        let table = Rect::new(
            area.x,
            y,
            area.width,
            area.bottom().saturating_sub(y) - detail_h,
        );
        let draw = Draw::new(&(), theme, focused);
        self.transfer_table.render(table, buf, rows, &draw);
        if let Some(d) = detail
            && detail_h > 0
        {
            let rect = Rect::new(area.x, area.bottom() - detail_h, area.width, detail_h);
            paragraph(rect, buf, &d, theme.muted);
        }
    }
}

/// `label` in the muted style then `value` in its style, cut to the width of `row`.
fn label_value(buf: &mut Buffer, row: Rect, label: &str, value: (&str, Style), theme: &Theme) {
    buf.set_stringn(row.x, row.y, label, usize::from(row.width), theme.muted);
    let lw = (label.len() as u16).min(row.width);
    cell(buf, row.x + lw, row.y, value.0, row.width - lw, value.1);
}

/// A string field of a contract's payload.
fn payload_str(c: &ContractWithState, key: &str) -> Option<String> {
    let v: Value = serde_json::from_str(c.contract.payload.get()).ok()?;
    match v.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The exact decimal sum of the coupons' amounts (Daml numerics as text), grouped; "?" when
/// an amount is unreadable.
fn coupon_total(coupons: &[CouponRow]) -> String {
    sum_amounts(coupons.iter().map(|c| c.value.as_ref()))
        .map_or_else(|| "?".to_string(), |a| a.fixed(0))
}

/// An RFC 3339 time from the server in the session's zone and format (UTC or local, `t`);
/// text that does not parse as is.
fn display_time(s: &str, sh: &Shared) -> String {
    match crate::model::summary::parse_time_micros(s) {
        Some(t) => sh.format_time(t),
        None => s.to_string(),
    }
}

/// `sent`, `failed (expired)`.
fn status_text(r: &TransferRow) -> String {
    match &r.failure_kind {
        Some(k) => format!("{} ({k})", r.status),
        None => r.status.to_string(),
    }
}

/// Created: pending (warn), sent: ok, failed: error.
fn status_style(s: &TransferCommandState, theme: &Theme) -> Style {
    match s {
        TransferCommandState::Sent => theme.status_ok,
        TransferCommandState::Failed => theme.status_err,
        TransferCommandState::Created => theme.status_warn,
        TransferCommandState::Other(_) => theme.muted,
    }
}

impl Pane for ProxyPane {
    fn id(&self) -> PaneId {
        PaneId::Proxy
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
        let Some(form) = &mut self.form else {
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
        if let Some(form) = &mut self.form {
            form.paste(text);
        } else {
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
                let n = ProxySection::ALL.len();
                let i = self.section.index();
                let next = if cmd == Command::NextSection {
                    i + 1
                } else {
                    i + n - 1
                } % n;
                self.section = ProxySection::ALL[next];
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
        match cmd {
            Command::Up => json.up(1),
            Command::Down => json.down(1),
            Command::PageUp => json.page_up(),
            Command::PageDown => json.page_down(),
            Command::Top => json.top(),
            Command::Bottom => json.bottom(),
            Command::Toggle | Command::Select => json.toggle(),
            Command::Expand | Command::Right => json.expand(),
            Command::Collapse | Command::Left => json.collapse(),
            Command::Parent => json.parent(),
            Command::ExpandAll => json.expand_all(),
            Command::CollapseAll => json.collapse_all(),
            _ => return false,
        }
        true
    }

    fn on_fetched(&mut self, reply: &Fetched, _sh: &mut Shared, _out: &mut Out) {
        let (id, result) = (reply.id, &reply.result);
        if self.rules.waits_for(id) {
            self.rules = match result {
                Ok(Response::AmuletRules(r)) => {
                    Load::Done(Box::new(ContractView::new(&r.amulet_rules)))
                }
                Ok(_) => Load::Failed("unexpected response to amulet-rules".into()),
                Err(e) => Load::Failed(explain(
                    e,
                    "the proxy found no AmuletRules contract (the DSO has not created it yet, or the validator is not connected)",
                )),
            };
        } else if self.coupons.waits_for(id) {
            self.coupons = match result {
                Ok(Response::DevFundCoupons(r)) => {
                    let list = r.unclaimed_development_fund_coupons.clone();
                    self.coupon_rows = CouponRow::rows(&list);
                    let texts: Vec<String> = self
                        .coupon_rows
                        .iter()
                        .map(|r| r.amount_text.clone())
                        .collect();
                    let columns = self.coupon_table.columns_mut();
                    columns.fit_width(CouponCol::Amount, &texts, MAX_AMOUNT_COL);
                    self.coupon_table.reset_rows(&self.coupon_rows);
                    self.coupon_total = coupon_total(&self.coupon_rows);
                    Load::Done(list)
                }
                Ok(_) => Load::Failed("unexpected response to the coupons request".into()),
                Err(e) => Load::Failed(explain(e, "the proxy does not list coupons")),
            };
            self.coupon_details = false;
            self.sync_coupon_view();
        } else if self.transfers.waits_for(id) {
            self.transfers = match result {
                Ok(Response::TransferStatus(r)) => {
                    let rows = TransferRow::rows(r);
                    let texts: Vec<String> = rows.iter().map(|r| r.amount_text.clone()).collect();
                    let columns = self.transfer_table.columns_mut();
                    columns.fit_width(TransferCol::Amount, &texts, MAX_AMOUNT_COL);
                    self.transfer_table.reset_rows(&rows);
                    Load::Done(rows)
                }
                Ok(_) => Load::Failed("unexpected response to transfer-command/status".into()),
                Err(e) => Load::Failed(explain(
                    e,
                    "no transfer command for this sender and nonce (the proxy only knows commands created in the last 24 hours; check the sender and nonce, then press i)",
                )),
            };
        }
    }

    fn set_area(&mut self, area: Rect) {
        self.area = area;
        let v = self.viewport();
        self.coupon_table.set_viewport(v);
        self.transfer_table.set_viewport(v);
    }

    fn render(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
        let title = self.title_line(theme);
        let Some(inner) = framed(area, buf, title, theme.border_style(focused)) else {
            return;
        };
        let titles: Vec<&str> = ProxySection::ALL.iter().map(|s| s.title()).collect();
        render_section_tabs(
            Rect::new(inner.x, inner.y, inner.width, 1),
            buf,
            &titles,
            self.section.index(),
            theme,
        );
        let mut body = Rect::new(inner.x, inner.y + 1, inner.width, inner.height - 1);
        if let Some(form) = &self.form {
            body = form.render_above(body, buf, theme);
        }
        if body.height == 0 {
            return;
        }
        if self.form.is_some() && self.transfers.is_idle() {
            return;
        }
        let focused = focused && self.form.is_none();
        match self.section {
            ProxySection::AmuletRules => self.render_rules(body, buf, theme, focused),
            ProxySection::Coupons => self.render_coupons(body, buf, sh, theme, focused),
            ProxySection::Transfers => self.render_transfers(body, buf, theme, focused),
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

    fn badge(&self, _sh: &Shared) -> Option<String> {
        if self.rules.is_loading() || self.coupons.is_loading() || self.transfers.is_loading() {
            return Some("loading".into());
        }
        if self.rules.failure().is_some() || self.coupons.failure().is_some() {
            return Some("error".into());
        }
        self.coupons.done().map(|c| format!("{} coupons", c.len()))
    }
}
