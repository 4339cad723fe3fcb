//! The telling node as the summary's one-line label shows it: each test summarizes a whole
//! update with [`Summarizer`] and reads its root label. (A file of its own: these tests use
//! `summary`, which uses `summary_telling`, and the module itself does not.)

// Fixture builders take the JSON they are handed by value.
#![allow(clippy::needless_pass_by_value)]

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

const FIXTURE: &str = include_str!("../../../tests/fixtures/scan_update_transfer.json");

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
        .syms()
        .filter(|x| s.category(*x) & crate::model::summary::cat::CHOICE != 0)
        .map(|x| s.interner.resolve(x))
        .collect();
    assert!(choices.contains(&"WalletAppInstall_ExecuteBatch"));
    assert!(choices.contains(&TRANSFER_CHOICE));
    assert!(matches!(summary.root(), RootAction::Telling(_)));
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

fn label_within(json: &str, width: usize) -> String {
    let mut s = Summarizer::default();
    let summary = s.summarize(&item(json));
    summary.root_label_within(&s.interner, width)
}

#[test]
fn a_narrow_column_cuts_the_names_and_keeps_the_amount_whole() {
    let json = batch(
        serde_json::json!({}),
        &[
            (
                "2",
                transfer_arg("nimbus-validator-1::1220", &[("olivia::1220", "36")]),
            ),
            ("10", transfer_arg("payer::1220", &[("second::1220", "1")])),
        ],
    );
    let whole = "transfer nimbus-validator-1 → olivia 36.00 (+1 more)";
    assert_eq!(label_within(&json, 80), whole);
    // The shorter name stays whole; the longer one is cut; the amount and the count stay.
    let cut = label_within(&json, 40);
    assert_eq!(cut, "transfer nimbu… → olivia 36.00 (+1 more)");
    assert_eq!(cut.chars().count(), 40, "{cut}");
    // Both names long: each gets half the room.
    let json = one_exercise(
        TRANSFER_CHOICE,
        transfer_arg(
            "bluefin-validator-1::1220",
            &[("harbor-validator-1::1220", "1234.5")],
        ),
    );
    let cut = label_within(&json, 30);
    assert_eq!(cut.chars().count(), 30, "{cut}");
    assert!(cut.ends_with(" 1,234.50"), "{cut}");
    assert_eq!(cut, "transfer blue… → har… 1,234.50");
    // A self-transfer with a long amount (a validator collecting its rewards): no room for
    // the name with the whole amount, so the amount is cut after two decimals, marked `…`.
    let reward = one_exercise(
        TRANSFER_CHOICE,
        transfer_arg(
            "nimbus-validator-1::1220",
            &[("nimbus-validator-1::1220", "1212.8741295484")],
        ),
    );
    assert_eq!(
        label_within(&reward, 80),
        "transfer nimbus-validator-1 → self 1,212.8741295484"
    );
    assert_eq!(
        label_within(&reward, 40),
        "transfer nimbus… → self 1,212.8741295484"
    );
    let cut = label_within(&reward, 31);
    assert_eq!(cut, "transfer nimb… → self 1,212.87…");
    assert_eq!(cut.chars().count(), 31, "{cut}");
    // Too narrow even for the amount: the whole label (the table cuts it).
    assert_eq!(
        label_within(&json, 12),
        "transfer bluefin-validator-1 → harbor-validator-1 1,234.50"
    );
}
