//! The most telling node of a transaction, for the one-line summary: an amulet transfer reads
//! `transfer alice → bob 25.00` wherever it sits in the tree (inside
//! `WalletAppInstall_ExecuteBatch`, `TransferPreapproval_Send`, `TransferCommand_Send`…), and a
//! few well-known Splice choices read as a short phrase with the party that acts
//! (`liveness validator-3`, `tap alice 1,000.00`). Anything else keeps the root choice.
//!
//! Found in tree order (the first transfer wins; the others are counted), reading only the
//! fields it needs from the choice argument. Untrusted input: an argument that does not have the
//! expected shape simply does not make a telling summary.

use serde::Deserialize;

use crate::api::scan::{ExercisedEvent, Transaction, TreeEvent};

use super::amount::Amount;
use super::format::short_party;
use super::intern::{Interner, Sym};

/// What the telling node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum TellingKind {
    /// `AmuletRules_Transfer`: `party` → `other`, `amount` the sum of the outputs.
    Transfer,
    /// `AmuletRules_DevNet_Tap`: `party` receives `amount`.
    Tap,
    /// `ValidatorLicense_RecordValidatorLivenessActivity`.
    Liveness,
    /// `ValidatorLicense_ReceiveFaucetCoupon`.
    FaucetCoupon,
    /// `DsoRules_SubmitStatusReport`.
    StatusReport,
    /// `DsoRules_ReceiveSvRewardCoupon`.
    SvRewardCoupon,
    /// `DsoRules_CastVote` / `VoteRequest_CastVote`.
    Vote,
    /// `DsoRules_RequestVote`.
    VoteRequest,
    /// `FeaturedAppRight_CreateActivityMarker`.
    ActivityMarker,
    /// `LockedAmulet_Unlock` / `LockedAmulet_OwnerExpireLock`.
    Unlock,
}

impl TellingKind {
    /// Every kind, in the order `is:` lists them.
    pub const ALL: [TellingKind; 10] = [
        TellingKind::Transfer,
        TellingKind::Tap,
        TellingKind::Liveness,
        TellingKind::FaucetCoupon,
        TellingKind::StatusReport,
        TellingKind::SvRewardCoupon,
        TellingKind::Vote,
        TellingKind::VoteRequest,
        TellingKind::ActivityMarker,
        TellingKind::Unlock,
    ];

    /// The choices whose exercise makes an update of this kind.
    pub fn choices(self) -> &'static [&'static str] {
        match self {
            TellingKind::Transfer => &[TRANSFER_CHOICE],
            TellingKind::Tap => &["AmuletRules_DevNet_Tap"],
            TellingKind::Liveness => &["ValidatorLicense_RecordValidatorLivenessActivity"],
            TellingKind::FaucetCoupon => &["ValidatorLicense_ReceiveFaucetCoupon"],
            TellingKind::StatusReport => &["DsoRules_SubmitStatusReport"],
            TellingKind::SvRewardCoupon => &["DsoRules_ReceiveSvRewardCoupon"],
            TellingKind::Vote => &["DsoRules_CastVote", "VoteRequest_CastVote"],
            TellingKind::VoteRequest => &["DsoRules_RequestVote"],
            TellingKind::ActivityMarker => &["FeaturedAppRight_CreateActivityMarker"],
            TellingKind::Unlock => &["LockedAmulet_Unlock", "LockedAmulet_OwnerExpireLock"],
        }
    }

    /// Its name in an `is:` term (`is:transfer`, `is:sv-reward`).
    pub fn name(self) -> &'static str {
        match self {
            TellingKind::Transfer => "transfer",
            TellingKind::Tap => "tap",
            TellingKind::Liveness => "liveness",
            TellingKind::FaucetCoupon => "faucet-coupon",
            TellingKind::StatusReport => "status-report",
            TellingKind::SvRewardCoupon => "sv-reward",
            TellingKind::Vote => "vote",
            TellingKind::VoteRequest => "vote-request",
            TellingKind::ActivityMarker => "activity-marker",
            TellingKind::Unlock => "unlock",
        }
    }

    /// The well-known choices other than transfers, with their kind.
    fn of_choice(choice: &str) -> Option<TellingKind> {
        TellingKind::ALL
            .into_iter()
            .find(|k| *k != TellingKind::Transfer && k.choices().contains(&choice))
    }

    /// The words before the party.
    fn verb(self) -> &'static str {
        match self {
            TellingKind::Transfer => "transfer",
            TellingKind::Tap => "tap",
            TellingKind::Liveness => "liveness",
            TellingKind::FaucetCoupon => "faucet coupon",
            TellingKind::StatusReport => "status report",
            TellingKind::SvRewardCoupon => "SV reward coupon",
            TellingKind::Vote => "vote by",
            TellingKind::VoteRequest => "vote requested by",
            TellingKind::ActivityMarker => "activity marker",
            TellingKind::Unlock => "unlock",
        }
    }
}

/// The choice whose argument names a transfer.
pub const TRANSFER_CHOICE: &str = "AmuletRules_Transfer";

/// Decimals an amount shows in a summary (more when the value needs them; never rounded).
pub const SUMMARY_DECIMALS: usize = 2;

/// An exact amount in a few bytes: `units / 10^scale`; `scale == u8::MAX` means none (absent,
/// unreadable, or too large to keep).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmallAmount {
    pub units: i64,
    pub scale: u8,
}

impl SmallAmount {
    /// No amount.
    pub const NONE: SmallAmount = SmallAmount {
        units: 0,
        scale: u8::MAX,
    };

    /// The amount, without trailing fraction zeros, when it fits.
    pub fn of(a: Amount) -> SmallAmount {
        let (mut units, mut scale) = (a.units(), a.scale());
        while scale > 0 && units % 10 == 0 {
            units /= 10;
            scale -= 1;
        }
        match (i64::try_from(units), u8::try_from(scale)) {
            (Ok(units), Ok(scale)) if scale != u8::MAX => SmallAmount { units, scale },
            _ => SmallAmount::NONE,
        }
    }

    /// Back to an [`Amount`] (`None` for [`SmallAmount::NONE`]).
    pub fn amount(self) -> Option<Amount> {
        (self.scale != u8::MAX)
            .then(|| Amount::from_units(i128::from(self.units), self.scale.into()))
    }
}

/// The most telling node of an update, compactly (parties interned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Telling {
    pub kind: TellingKind,
    /// The sender, or the party that acts.
    pub party: Sym,
    /// The receiver of a transfer (the first output's; [`Sym::NONE`] otherwise).
    pub other: Sym,
    /// The amount's units and scale (see [`SmallAmount`]; kept apart so the summary stays small).
    pub units: i64,
    pub scale: u8,
    /// Receivers of the transfer beyond `other`.
    pub more_receivers: u8,
    /// Further transfers in the same update.
    pub more: u16,
}

/// The parts of a transfer a summary reads.
#[derive(Debug, Deserialize)]
struct TransferArg {
    transfer: TransferBody,
}

#[derive(Debug, Deserialize)]
struct TransferBody {
    sender: String,
    #[serde(default)]
    outputs: Vec<TransferOutput>,
}

#[derive(Debug, Deserialize)]
struct TransferOutput {
    receiver: String,
    amount: String,
}

/// The fields of other well-known choices that name a party or an amount.
#[derive(Debug, Default, Deserialize)]
struct PartyArg {
    #[serde(default)]
    receiver: Option<String>,
    #[serde(default)]
    amount: Option<String>,
    #[serde(default)]
    sv: Option<String>,
    #[serde(default)]
    requester: Option<String>,
}

/// What [`find`] hands back: the kind with its strings, before interning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found<'a> {
    pub kind: TellingKind,
    pub party: std::borrow::Cow<'a, str>,
    pub other: String,
    pub amount: SmallAmount,
    pub more_receivers: usize,
    pub more: usize,
}

/// The most telling node of `tx`: the first `AmuletRules_Transfer` in tree order (the others
/// counted), else the first well-known Splice choice; `None` when there is neither.
pub fn find(tx: &Transaction) -> Option<Found<'_>> {
    let mut first: Option<Found> = None;
    let mut transfers = 0usize;
    let mut known: Option<Found> = None;
    for item in tx.walk() {
        let Some(TreeEvent::Exercised(e)) = item.event else {
            continue;
        };
        if e.choice == TRANSFER_CHOICE {
            if let Some(found) = transfer(e) {
                transfers += 1;
                if first.is_none() {
                    first = Some(found);
                }
            }
        } else if known.is_none()
            && let Some(kind) = TellingKind::of_choice(&e.choice)
        {
            known = Some(well_known(kind, e));
        }
    }
    match first {
        Some(mut f) => {
            f.more = transfers.saturating_sub(1);
            Some(f)
        }
        None => known,
    }
}

fn transfer(e: &ExercisedEvent) -> Option<Found<'_>> {
    let arg: TransferArg = serde_json::from_str(e.choice_argument.get()).ok()?;
    let body = arg.transfer;
    let mut total = Some(Amount::ZERO);
    for o in &body.outputs {
        total = total.and_then(|t| t.checked_add(Amount::parse(&o.amount)?));
    }
    let first = body.outputs.first();
    Some(Found {
        kind: TellingKind::Transfer,
        other: first.map(|o| o.receiver.clone()).unwrap_or_default(),
        amount: total
            .filter(|_| first.is_some())
            .map_or(SmallAmount::NONE, SmallAmount::of),
        more_receivers: body.outputs.len().saturating_sub(1),
        party: std::borrow::Cow::Owned(body.sender),
        more: 0,
    })
}

fn well_known(kind: TellingKind, e: &ExercisedEvent) -> Found<'_> {
    let arg: PartyArg = serde_json::from_str(e.choice_argument.get()).unwrap_or_default();
    let acting = e.acting_parties.first().map_or("", String::as_str);
    let named = match kind {
        TellingKind::Tap => arg.receiver,
        TellingKind::StatusReport | TellingKind::SvRewardCoupon => arg.sv,
        TellingKind::VoteRequest => arg.requester,
        _ => None,
    };
    let amount = match kind {
        TellingKind::Tap => arg
            .amount
            .as_deref()
            .and_then(Amount::parse)
            .map_or(SmallAmount::NONE, SmallAmount::of),
        _ => SmallAmount::NONE,
    };
    Found {
        kind,
        party: named.map_or(std::borrow::Cow::Borrowed(acting), std::borrow::Cow::Owned),
        other: String::new(),
        amount,
        more_receivers: 0,
        more: 0,
    }
}

impl Telling {
    /// The amount (see [`SmallAmount`]).
    pub fn amount(&self) -> SmallAmount {
        SmallAmount {
            units: self.units,
            scale: self.scale,
        }
    }

    /// The one-line summary: `transfer alice → bob 25.00`, `transfer alice → bob +2 75.00 (+9
    /// more)`, `transfer val → self 12.50`, `liveness validator-3`, `tap alice 1,000.00`.
    pub fn label(&self, interner: &Interner) -> String {
        let (party, other) = self.names(interner);
        self.compose(party, other)
    }

    /// [`label`](Self::label) in at most `width` columns where it can be: when the whole label
    /// is wider, the parties' names are cut (each ending in `…`, the shorter one kept whole when
    /// it fits in half the room) so that the verb, the amount and the count of other transfers
    /// stay whole (`transfer nimbus-valid… → olivia 36.00`). When that leaves no room for a
    /// name, the amount is cut after its second decimal too (`transfer nimb… → self
    /// 1,212.87…`: the `…` says there are more). Too narrow even for that, the whole label
    /// (the table cuts it).
    pub fn label_within(&self, interner: &Interner, width: usize) -> String {
        let (party, other) = self.names(interner);
        let whole = self.compose(party, other);
        if whole.chars().count() <= width {
            return whole;
        }
        self.fit(party, other, width, false)
            .or_else(|| self.fit(party, other, width, true))
            .unwrap_or(whole)
    }

    /// The label in `width` columns with the names cut (and the amount, with `cut_amount`), if
    /// each name keeps at least two columns.
    fn fit(
        &self,
        party: &str,
        other: Option<&str>,
        width: usize,
        cut_amount: bool,
    ) -> Option<String> {
        // `self` and `nobody` are words, not names: never cut.
        let other_name = other.filter(|o| !matches!(*o, "self" | "nobody"));
        let word = other.map(|o| if other_name.is_some() { "" } else { o });
        let fixed = self.compose_cut("", word, cut_amount).chars().count();
        let room = width.saturating_sub(fixed);
        let (a, b) = (
            party.chars().count(),
            other_name.map_or(0, |o| o.chars().count()),
        );
        let (party_room, other_room) = match other_name {
            None => (room, 0),
            Some(_) if a <= room / 2 => (a, room - a),
            Some(_) if b <= room / 2 => (room - b, b),
            Some(_) => (room - room / 2, room / 2),
        };
        if party_room < 2 || (other_name.is_some() && other_room < 2) {
            return None;
        }
        let party = cut_name(party, party_room);
        Some(match other_name {
            Some(o) => self.compose_cut(&party, Some(&cut_name(o, other_room)), cut_amount),
            None => self.compose_cut(&party, other, cut_amount),
        })
    }

    /// The acting party's short name (`?` when unknown) and, for a transfer, the receiver's
    /// (`self`, `nobody` or a short name).
    fn names<'a>(&self, interner: &'a Interner) -> (&'a str, Option<&'a str>) {
        let party = short_party(interner.resolve(self.party));
        let party = if party.is_empty() { "?" } else { party };
        let other = (self.kind == TellingKind::Transfer).then(|| {
            let other = short_party(interner.resolve(self.other));
            if self.other == self.party && self.more_receivers == 0 {
                "self"
            } else if other.is_empty() {
                "nobody"
            } else {
                other
            }
        });
        (party, other)
    }

    /// The label with the given names.
    fn compose(&self, party: &str, other: Option<&str>) -> String {
        self.compose_cut(party, other, false)
    }

    /// [`compose`](Self::compose), with `cut_amount` the amount cut after
    /// [`SUMMARY_DECIMALS`] decimals (ending in `…` when that drops digits).
    fn compose_cut(&self, party: &str, other: Option<&str>, cut_amount: bool) -> String {
        let mut s = format!("{} {party}", self.kind.verb());
        if let Some(other) = other {
            s.push_str(" → ");
            s.push_str(other);
            if self.more_receivers > 0 {
                s.push_str(&format!(" +{}", self.more_receivers));
            }
        }
        if let Some(a) = self.amount().amount() {
            s.push(' ');
            let fixed = a.fixed(SUMMARY_DECIMALS);
            match fixed.find('.') {
                Some(dot) if cut_amount && fixed.len() > dot + 1 + SUMMARY_DECIMALS => {
                    s.push_str(&fixed[..=dot + SUMMARY_DECIMALS]);
                    s.push('…');
                }
                _ => s.push_str(&fixed),
            }
        }
        if self.more > 0 {
            s.push_str(&format!(" (+{} more)", self.more));
        }
        s
    }
}

/// `name` in at most `n` characters: cut with `…` when longer.
fn cut_name(name: &str, n: usize) -> String {
    if name.chars().count() <= n {
        return name.to_owned();
    }
    let mut s: String = name.chars().take(n.saturating_sub(1)).collect();
    s.push('…');
    s
}

#[cfg(test)]
mod tests;
