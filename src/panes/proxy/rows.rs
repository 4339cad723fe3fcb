//! The rows of the Proxy pane's tables (development fund coupons, transfer commands): what
//! their cells show, how they sort and filter, read once when an answer arrives.

use std::borrow::Cow;

use ratatui::style::Style;
use serde_json::Value;

use crate::api::validator::{
    ContractWithState, TransferCommandState, TransferCommandStatusResponse,
    TransferCommandWithStatus, TransferFailureKind,
};
use crate::model::amount::sum_amounts;
use crate::model::summary::{short_id, short_party};
use crate::panes::Shared;
use crate::ui::format::{ColumnAmount, fill_amount_column};
use crate::ui::table::{Cell, Column, Columns, DataTable, SortKey, TableRow, Width};
use crate::ui::theme::Theme;

/// One transfer command row.
#[derive(Debug, Clone, PartialEq)]
pub struct TransferRow {
    pub contract_id: String,
    pub status: TransferCommandState,
    pub failure_kind: Option<TransferFailureKind>,
    pub reason: Option<String>,
    pub receiver: String,
    /// As sent, exact, and as drawn (with the column's decimals).
    pub amount: ColumnAmount,
    pub expires_at: String,
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
            amount: ColumnAmount::new(&text("amount")),
            expires_at: text("expiresAt"),
        }
    }

    /// The rows of an answer, their amounts written with the column's decimals (also returned,
    /// to fit the column).
    pub(super) fn rows(r: &TransferCommandStatusResponse) -> (Vec<TransferRow>, Vec<String>) {
        let mut rows: Vec<TransferRow> = r
            .transfer_commands_by_contract_id
            .iter()
            .map(|(cid, t)| TransferRow::new(cid, t))
            .collect();
        let texts = fill_amount_column(rows.iter_mut().map(|r| &mut r.amount));
        (rows, texts)
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

    fn cell(&self, col: TransferCol, _width: u16, (): &(), theme: &Theme) -> Cell<'_> {
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
            TransferCol::Amount => Cell::new(self.amount.text.as_str(), theme.json_number),
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
            TransferCol::Amount => self
                .amount
                .cell
                .value
                .map_or(SortKey::Missing, SortKey::from),
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
            self.amount.cell.raw,
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
pub(super) struct CouponRow {
    contract_id: String,
    created_at: String,
    /// As sent, exact, and as drawn (with the column's decimals).
    amount: ColumnAmount,
}

impl CouponRow {
    /// The rows of the coupons, in their order, their amounts with the column's decimals (also
    /// returned, to fit the column).
    pub(super) fn rows(coupons: &[ContractWithState]) -> (Vec<CouponRow>, Vec<String>) {
        let mut rows: Vec<CouponRow> = coupons
            .iter()
            .map(|c| CouponRow {
                contract_id: c.contract.contract_id.clone(),
                created_at: c.contract.created_at.clone(),
                amount: ColumnAmount::new(&payload_str(c, "amount").unwrap_or_default()),
            })
            .collect();
        let texts = fill_amount_column(rows.iter_mut().map(|r| &mut r.amount));
        (rows, texts)
    }
}

impl TableRow for CouponRow {
    type Col = CouponCol;
    /// Times are shown in the session's zone.
    type Ctx = Shared;

    fn cell(&self, col: CouponCol, _width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        match col {
            CouponCol::Amount => Cell::new(self.amount.text.as_str(), theme.json_number),
            CouponCol::Contract => Cell::new(short_id(&self.contract_id, 12), theme.id),
            CouponCol::Created => Cell::new(display_time(&self.created_at, sh), theme.time),
        }
    }

    fn sort_key(&self, col: CouponCol) -> SortKey<'_> {
        match col {
            CouponCol::Amount => self
                .amount
                .cell
                .value
                .map_or(SortKey::Missing, SortKey::from),
            CouponCol::Contract => SortKey::Text(Cow::Borrowed(&self.contract_id)),
            CouponCol::Created => SortKey::Text(Cow::Borrowed(&self.created_at)),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!(
            "{} {} {}",
            self.amount.cell.raw, self.contract_id, self.created_at
        ))
    }
}

/// Widest the amount columns get.
pub(super) const MAX_AMOUNT_COL: u16 = 40;

/// Puts a new answer's rows in their table, its `amount` column as wide as the amounts
/// (`texts`, formatted with aligned decimals).
pub(super) fn fill_table<C: Copy + PartialEq, R: TableRow<Col = C>>(
    table: &mut DataTable<C>,
    amount: C,
    (rows, texts): (&[R], &[String]),
) {
    table.columns_mut().fit_width(amount, texts, MAX_AMOUNT_COL);
    table.reset_rows(rows);
}

pub(super) fn coupon_table() -> DataTable<CouponCol> {
    DataTable::new(Columns::new(vec![
        Column::new(CouponCol::Amount, "Amount", Width::Fixed(14))
            .right()
            .descending_first(),
        Column::new(CouponCol::Contract, "Contract", Width::Fixed(14)),
        Column::new(CouponCol::Created, "Created at", Width::fill(0)),
    ]))
}

pub(super) fn transfer_table() -> DataTable<TransferCol> {
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
pub(super) fn coupon_total(coupons: &[CouponRow]) -> String {
    sum_amounts(coupons.iter().map(|c| c.amount.cell.value.as_ref()))
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
pub(super) fn status_text(r: &TransferRow) -> String {
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
