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
    /// The well-known choices other than transfers, with their kind.
    fn of_choice(choice: &str) -> Option<TellingKind> {
        Some(match choice {
            "AmuletRules_DevNet_Tap" => TellingKind::Tap,
            "ValidatorLicense_RecordValidatorLivenessActivity" => TellingKind::Liveness,
            "ValidatorLicense_ReceiveFaucetCoupon" => TellingKind::FaucetCoupon,
            "DsoRules_SubmitStatusReport" => TellingKind::StatusReport,
            "DsoRules_ReceiveSvRewardCoupon" => TellingKind::SvRewardCoupon,
            "DsoRules_CastVote" | "VoteRequest_CastVote" => TellingKind::Vote,
            "DsoRules_RequestVote" => TellingKind::VoteRequest,
            "FeaturedAppRight_CreateActivityMarker" => TellingKind::ActivityMarker,
            "LockedAmulet_Unlock" | "LockedAmulet_OwnerExpireLock" => TellingKind::Unlock,
            _ => return None,
        })
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
        let party = short_party(interner.resolve(self.party));
        let party = if party.is_empty() { "?" } else { party };
        let mut s = format!("{} {party}", self.kind.verb());
        if self.kind == TellingKind::Transfer {
            let other = short_party(interner.resolve(self.other));
            if self.other == self.party && self.more_receivers == 0 {
                s.push_str(" → self");
            } else if other.is_empty() {
                s.push_str(" → nobody");
            } else {
                s.push_str(" → ");
                s.push_str(other);
            }
            if self.more_receivers > 0 {
                s.push_str(&format!(" +{}", self.more_receivers));
            }
        }
        if let Some(a) = self.amount().amount() {
            s.push(' ');
            s.push_str(&a.fixed(SUMMARY_DECIMALS));
        }
        if self.more > 0 {
            s.push_str(&format!(" (+{} more)", self.more));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::scan::UpdateItem;
    use crate::model::summary::{RootAction, Summarizer};

    fn item(json: &str) -> UpdateItem {
        serde_json::from_str(json).expect("an update")
    }

    fn label(json: &str) -> String {
        let mut s = Summarizer::default();
        let summary = s.summarize(&item(json));
        summary.root_label(&s.interner)
    }

    const FIXTURE: &str = include_str!("../../tests/fixtures/scan_update_transfer.json");

    /// A tree as the scan sends it: a root exercise with children, `events_by_id` keyed in
    /// text order (`:10` before `:2`).
    fn tx(events: &[(&str, serde_json::Value)], roots: &[&str]) -> String {
        let id = "1220aa";
        let mut by_id = serde_json::Map::new();
        for (n, ev) in events {
            let mut ev = ev.clone();
            ev["event_id"] = format!("{id}:{n}").into();
            by_id.insert(format!("{id}:{n}"), ev);
        }
        serde_json::json!({
            "update_id": id, "migration_id": 1, "workflow_id": "",
            "record_time": "2026-11-22T10:00:00.000000Z",
            "synchronizer_id": "global-domain::1220",
            "effective_at": "2026-11-22T10:00:00.000000Z",
            "root_event_ids": roots.iter().map(|r| format!("{id}:{r}")).collect::<Vec<_>>(),
            "events_by_id": by_id,
        })
        .to_string()
    }

    /// A transaction whose one root event exercises `choice` with `arg`.
    fn one_exercise(choice: &str, arg: serde_json::Value) -> String {
        tx(&[("0", exercise(choice, arg, &[]))], &["0"])
    }

    fn exercise(choice: &str, arg: serde_json::Value, children: &[&str]) -> serde_json::Value {
        serde_json::json!({
            "event_type": "exercised_event",
            "contract_id": "00ab",
            "template_id": "pkg:Splice.Wallet.Install:WalletAppInstall",
            "package_name": "splice-wallet",
            "choice": choice,
            "choice_argument": arg,
            "child_event_ids": children.iter().map(|c| format!("1220aa:{c}")).collect::<Vec<_>>(),
            "exercise_result": null,
            "consuming": false,
            "acting_parties": ["sv-1::1220ff"],
            "interface_id": null
        })
    }

    /// A transaction whose root `0` is a wallet batch (`arg`) over the transfers
    /// `(event id, transfer argument)`, in that order.
    fn batch(arg: serde_json::Value, transfers: &[(&str, serde_json::Value)]) -> String {
        let children: Vec<&str> = transfers.iter().map(|(id, _)| *id).collect();
        let mut events = vec![(
            "0",
            exercise("WalletAppInstall_ExecuteBatch", arg, &children),
        )];
        for (id, transfer) in transfers {
            events.push((id, exercise(TRANSFER_CHOICE, transfer.clone(), &[])));
        }
        tx(&events, &["0"])
    }

    fn transfer_arg(sender: &str, outputs: &[(&str, &str)]) -> serde_json::Value {
        serde_json::json!({
            "transfer": {
                "sender": sender, "provider": sender,
                "inputs": [{"tag": "InputAmulet", "value": "00cc"}],
                "outputs": outputs.iter().map(|(r, a)| serde_json::json!({
                    "receiver": r, "receiverFeeRatio": "0.0000000000", "amount": a, "lock": null
                })).collect::<Vec<_>>(),
                "beneficiaries": null
            },
            "context": {"openMiningRound": "00dd"},
            "expectedDso": "DSO::1220"
        })
    }

    #[test]
    fn a_root_transfer_names_sender_receiver_and_amount() {
        assert_eq!(label(FIXTURE), "transfer alice → bob 25.00");
    }

    #[test]
    fn a_transfer_inside_an_execute_batch_is_the_summary() {
        let json = batch(
            serde_json::json!({"operations": []}),
            &[(
                "1",
                transfer_arg("alice::1220ab", &[("bob::1220cd", "4195.0000000000")]),
            )],
        );
        assert_eq!(label(&json), "transfer alice → bob 4,195.00");
        // The filter still sees every nested choice.
        let mut s = Summarizer::default();
        let summary = s.summarize(&item(&json));
        let choices: Vec<&str> = summary
            .syms
            .iter()
            .filter(|x| s.category(**x) & crate::model::summary::cat::CHOICE != 0)
            .map(|x| s.interner.resolve(*x))
            .collect();
        assert!(choices.contains(&"WalletAppInstall_ExecuteBatch"));
        assert!(choices.contains(&TRANSFER_CHOICE));
        assert!(matches!(summary.root, RootAction::Telling(_)));
    }

    #[test]
    fn the_first_transfer_in_tree_order_wins_and_the_others_are_counted() {
        // Children :2 and :10: text order would put :10 first; tree order puts :2 first.
        let json = batch(
            serde_json::json!({}),
            &[
                ("2", transfer_arg("payer::1220", &[("first::1220", "10.5")])),
                ("10", transfer_arg("payer::1220", &[("second::1220", "1")])),
            ],
        );
        assert_eq!(label(&json), "transfer payer → first 10.50 (+1 more)");
    }

    #[test]
    fn several_outputs_are_summed_and_a_self_transfer_says_so() {
        let cases = [
            (
                transfer_arg(
                    "a::1220",
                    &[("b::1220", "1.25"), ("c::1220", "2"), ("d::1220", "0.0001")],
                ),
                "transfer a → b +2 3.2501",
            ),
            (
                transfer_arg("val::1220", &[("val::1220", "12.5")]),
                "transfer val → self 12.50",
            ),
        ];
        for (arg, want) in cases {
            assert_eq!(label(&one_exercise(TRANSFER_CHOICE, arg)), want, "{want}");
        }
    }

    #[test]
    fn well_known_choices_read_as_a_phrase_and_others_keep_the_root_choice() {
        let cases = [
            (
                "ValidatorLicense_RecordValidatorLivenessActivity",
                serde_json::json!({"closedRoundCid": "00aa"}),
                "liveness sv-1",
            ),
            (
                "AmuletRules_DevNet_Tap",
                serde_json::json!({"receiver": "alice::1220", "amount": "1000.0000000000"}),
                "tap alice 1,000.00",
            ),
            (
                "DsoRules_AdvanceOpenMiningRounds",
                serde_json::json!({}),
                "DsoRules_AdvanceOpenMiningRounds",
            ),
        ];
        for (choice, arg, want) in cases {
            assert_eq!(label(&one_exercise(choice, arg)), want, "{choice}");
        }
    }

    #[test]
    fn a_transfer_argument_of_another_shape_falls_back_to_the_root_choice() {
        for arg in [
            serde_json::json!("text"),
            serde_json::json!({"transfer": {"sender": 5}}),
            serde_json::json!({"transfer": {"sender": "a", "outputs": [{"receiver": "b", "amount": "1e5"}]}}),
        ] {
            let l = label(&one_exercise(TRANSFER_CHOICE, arg.clone()));
            assert!(l == TRANSFER_CHOICE || l == "transfer a → b", "{arg}: {l}");
        }
    }

    #[test]
    fn the_real_token_standard_shape_reads_as_a_transfer() {
        // TransferPreapproval_Send with AmuletRules_Transfer beneath, as a LocalNet participant
        // answered (tests/fixtures keep only scan shapes; the argument is the sample's).
        let json = tx(
            &[
                (
                    "4",
                    exercise(
                        "TransferPreapproval_Send",
                        serde_json::json!({"amount": "200.0000000000", "sender": "sender::1220"}),
                        &["5"],
                    ),
                ),
                (
                    "5",
                    exercise(
                        TRANSFER_CHOICE,
                        transfer_arg(
                            "sender::1220278a",
                            &[("treasury-party::1220278a", "200.0000000000")],
                        ),
                        &[],
                    ),
                ),
            ],
            &["4"],
        );
        assert_eq!(label(&json), "transfer sender → treasury-party 200.00");
    }

    #[test]
    fn a_telling_summary_costs_no_more_than_a_reassignment() {
        assert!(
            std::mem::size_of::<RootAction>() <= 32,
            "{}",
            std::mem::size_of::<RootAction>()
        );
    }

    #[test]
    fn small_amounts_round_trip_and_huge_ones_are_dropped() {
        let a = Amount::parse("4195.0000000000").expect("amount");
        let back = SmallAmount::of(a).amount().expect("fits");
        assert_eq!(back.cmp(&a), std::cmp::Ordering::Equal);
        assert_eq!(back.fixed(2), "4,195.00");
        assert_eq!(SmallAmount::of(a).units, 4195);
        let huge = Amount::parse("99999999999999999999999.5").expect("amount");
        assert_eq!(SmallAmount::of(huge), SmallAmount::NONE);
    }
}
