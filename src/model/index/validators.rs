//! Validators over the index (issue 37 §4), pure parts: what one kept update tells of the
//! validators ([`facts_of`]: a `ValidatorLicense` created names a validator licensed then; a
//! `ValidatorLivenessActivityRecord` or `ValidatorFaucetCoupon` created is its activity in a
//! round), their sums per validator as the store keeps them ([`ValidatorSums`]), and the list
//! `index validators` and the Validators pane show ([`ValidatorRow`]: every validator ever
//! licensed, the kept history's and the scan's current licences together).
//!
//! Untrusted input: a body that does not decode, an event without a `validator`, a round that
//! is not a number tell nothing (a round left out still counts the activity).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::Value;

use crate::api::RawJson;
use crate::api::scan::{TreeEvent, UpdateItem};
use crate::model::format::format_time_micros;
use crate::model::index::Digest;

/// The licence template (`Module:Entity`, any package).
pub const LICENSE_TEMPLATE: &str = "Splice.ValidatorLicense:ValidatorLicense";
/// The templates whose creation records a validator's activity in a round.
pub const ACTIVITY_TEMPLATES: [&str; 2] = [
    "Splice.ValidatorLicense:ValidatorLivenessActivityRecord",
    "Splice.ValidatorLicense:ValidatorFaucetCoupon",
];
/// What a body must contain to tell anything: bodies without it are not decoded.
const MARK: &str = "Splice.ValidatorLicense:";

/// Whether `text` names [`MARK`]: a searcher made once (`str::contains` makes one a call, 1.3%
/// of a sync's CPU in a `perf` profile, each update's text searched for it).
fn names_mark(text: &str) -> bool {
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(MARK));
    FINDER.find(text.as_bytes()).is_some()
}

/// Whether `template_id` (`package:Module:Entity`) is `module_entity` in any package.
fn is_template(template_id: &str, module_entity: &str) -> bool {
    template_id
        .strip_suffix(module_entity)
        .is_some_and(|head| head.is_empty() || head.ends_with(':'))
}

fn int(v: &Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

/// One thing an update tells of a validator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub validator: String,
    /// A licence created (else an activity).
    pub licensed: bool,
    /// The activity's round (`None`: a licence, or a round that does not read).
    pub round: Option<i64>,
}

/// What the update item `body` (its JSON as kept) tells of the validators, in its events'
/// order.
pub fn facts_of(body: &str) -> Vec<Fact> {
    if !names_mark(body) {
        return Vec::new();
    }
    let Ok(raw) = RawJson::from_string(body.to_owned()) else {
        return Vec::new();
    };
    facts_in(&UpdateItem::from_raw(raw, "."))
}

/// What the update `item`, decoded from a page, tells of the validators: the facts
/// [`facts_of`] finds in the body kept of it (its JSON as served, without the whitespace
/// between tokens), without reading that body back (a sync counts a page's facts from the
/// items it decoded).
pub fn facts_of_item(item: &UpdateItem) -> Vec<Fact> {
    // The same test as `facts_of`'s: leaving out the whitespace between tokens neither makes
    // nor breaks the mark, which lies within a string.
    if !names_mark(item.raw().get()) {
        return Vec::new();
    }
    facts_in(item)
}

/// What a page's updates tell of the validators, by the digest of each (every update of the
/// page is there, those that tell nothing with no facts): a sync counts the updates it has just
/// written from it ([`crate::store::validators::build_page`]) instead of reading their bodies
/// back.
pub type PageFacts = HashMap<Digest, Vec<Fact>, foldhash::fast::RandomState>;

/// The facts of `items` (with their `digests`), on every core; with `bodies` false none (an
/// update kept without its body tells nothing). Of two items with one digest (the same
/// update twice in a page, written once) the first's.
pub fn page_facts(items: &[UpdateItem], digests: &[Digest], bodies: bool) -> PageFacts {
    let pairs: Vec<(&UpdateItem, &Digest)> = items.iter().zip(digests).collect();
    let facts = super::par_chunks(&pairs, |part| {
        part.iter()
            .map(|(item, digest)| {
                let facts = if bodies {
                    facts_of_item(item)
                } else {
                    Vec::new()
                };
                (**digest, facts)
            })
            .collect()
    });
    let mut by_digest = PageFacts::default();
    for (digest, facts) in facts {
        by_digest.entry(digest).or_insert(facts);
    }
    by_digest
}

/// The two fields of a licence's or an activity's arguments a fact reads, the others skipped
/// unread (a `Value` of the whole argument was most of [`facts_in`]'s time).
#[derive(serde::Deserialize)]
struct FactArgs<'a> {
    #[serde(borrow, default)]
    validator: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    round: Option<&'a serde_json::value::RawValue>,
}

/// The facts of a decoded item that names [`MARK`].
fn facts_in(item: &UpdateItem) -> Vec<Fact> {
    let Some(tx) = item.as_transaction() else {
        return Vec::new();
    };
    let mut facts = Vec::new();
    for node in tx.walk() {
        let Some(TreeEvent::Created(c)) = node.event else {
            continue;
        };
        let licensed = is_template(&c.template_id, LICENSE_TEMPLATE);
        if !licensed
            && !ACTIVITY_TEMPLATES
                .iter()
                .any(|t| is_template(&c.template_id, t))
        {
            continue;
        }
        let Ok(arg) = serde_json::from_str::<FactArgs<'_>>(c.create_arguments.get()) else {
            continue;
        };
        let Some(validator) = arg.validator.filter(|v| !v.is_empty()) else {
            continue;
        };
        let round = match (licensed, arg.round) {
            (false, Some(round)) => serde_json::from_str::<Value>(round.get())
                .ok()
                .and_then(|round| int(&round["number"]).or_else(|| int(&round))),
            _ => None,
        };
        facts.push(Fact {
            validator: validator.into_owned(),
            licensed,
            round,
        });
    }
    facts
}

/// What the kept history says of one validator (the store's row).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValidatorSums {
    /// The record time of its first licence created (µs; `None`: none kept).
    pub first_licensed: Option<i64>,
    /// Licences created for it (each liveness record or coupon renews it).
    pub licenses: i64,
    /// The record time of its newest activity (µs).
    pub last_time: Option<i64>,
    /// The highest round of its activities.
    pub last_round: Option<i64>,
    /// Its activities (liveness records and faucet coupons created).
    pub activities: i64,
    /// Its newest round as the provider of CIP-104 app activity records (the per-round
    /// summary of the kept events; not in the validators' table).
    pub app_round: Option<i64>,
    /// That round's newest kept record time (µs).
    pub app_time: Option<i64>,
    /// Its app activity records.
    pub app_records: i64,
}

fn min_of(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn max_of(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    a.max(b)
}

impl ValidatorSums {
    /// Adds one fact of an update recorded at `time` (µs).
    pub fn add(&mut self, fact: &Fact, time: i64) {
        if fact.licensed {
            self.first_licensed = min_of(self.first_licensed, Some(time));
            self.licenses += 1;
        } else {
            self.last_time = max_of(self.last_time, Some(time));
            self.last_round = max_of(self.last_round, fact.round);
            self.activities += 1;
        }
    }

    /// Both sums together.
    pub fn merge(&mut self, other: &ValidatorSums) {
        self.first_licensed = min_of(self.first_licensed, other.first_licensed);
        self.licenses += other.licenses;
        self.last_time = max_of(self.last_time, other.last_time);
        self.last_round = max_of(self.last_round, other.last_round);
        self.activities += other.activities;
        self.app_round = max_of(self.app_round, other.app_round);
        self.app_time = max_of(self.app_time, other.app_time);
        self.app_records += other.app_records;
    }

    /// Whether the kept history tells it is a validator (a licence or a validator's activity,
    /// not app activity alone: any party may provide an app).
    pub fn is_validator(&self) -> bool {
        self.licenses > 0 || self.activities > 0
    }

    /// Its newest activity: record time and round, of its liveness records and faucet coupons
    /// and of its app activity as a provider.
    pub fn last_active(&self) -> (Option<i64>, Option<i64>) {
        (
            max_of(self.last_time, self.app_time),
            max_of(self.last_round, self.app_round),
        )
    }
}

/// The sums of many updates, by validator.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValidatorsDelta {
    pub validators: BTreeMap<String, ValidatorSums>,
}

impl ValidatorsDelta {
    /// Adds what the update `body` recorded at `time` (µs) tells.
    pub fn add_body(&mut self, body: &str, time: i64) {
        self.add_facts(&facts_of(body), time);
    }

    /// Adds `facts`, told by an update recorded at `time` (µs).
    pub fn add_facts(&mut self, facts: &[Fact], time: i64) {
        for fact in facts {
            if let Some(sums) = self.validators.get_mut(&fact.validator) {
                sums.add(fact, time);
            } else {
                let mut sums = ValidatorSums::default();
                sums.add(fact, time);
                self.validators.insert(fact.validator.clone(), sums);
            }
        }
    }

    /// Adds `party`'s app activity as a provider: its newest `round`, its `records`, the
    /// round's newest record `time`.
    pub fn add_app_activity(&mut self, party: String, round: i64, records: i64, time: Option<i64>) {
        let s = self.validators.entry(party).or_default();
        s.app_round = max_of(s.app_round, Some(round));
        s.app_time = max_of(s.app_time, time);
        s.app_records += records;
    }

    /// Adds kept rows (validator, sums).
    pub fn merge_rows(&mut self, rows: impl IntoIterator<Item = (String, ValidatorSums)>) {
        for (v, sums) in rows {
            self.validators.entry(v).or_default().merge(&sums);
        }
    }
}

/// A licence the scan serves now (`/v0/admin/validator/licenses`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrentLicense {
    pub validator: String,
    /// Its `created_at` (µs; `None`: not served or not a time).
    pub created_at: Option<i64>,
}

impl CurrentLicense {
    /// The licences of `/v0/admin/validator/licenses` (a contract without a `validator` in its
    /// payload names none).
    pub fn of_contracts(contracts: &[crate::api::validator::Contract]) -> Vec<CurrentLicense> {
        contracts
            .iter()
            .filter_map(|c| {
                let payload = c.payload.to_value().ok()?;
                let validator = payload["validator"].as_str().filter(|v| !v.is_empty())?;
                Some(CurrentLicense {
                    validator: validator.to_owned(),
                    created_at: crate::model::format::parse_time_micros(&c.created_at),
                })
            })
            .collect()
    }
}

/// The newest round of `/v0/open-and-issuing-mining-rounds` (its open and issuing rounds).
pub fn newest_scan_round(rounds: &crate::api::scan::OpenAndIssuingMiningRounds) -> Option<i64> {
    rounds
        .open_mining_rounds
        .values()
        .chain(rounds.issuing_mining_rounds.values())
        .filter_map(|c| c.round().map(|r| r.number))
        .max()
}

/// What the scan says beside the index: its current licences and its newest round, or why
/// not (not asked offline, or its error).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanSide {
    pub licenses: Option<Vec<CurrentLicense>>,
    pub newest_round: Option<i64>,
    /// Why the licences are unknown.
    pub not_asked: Option<String>,
}

impl ScanSide {
    /// From the scan's answers ([`crate::api::scan::licenses_and_rounds`]): its licences (or
    /// why they are unknown) and its rounds (`None`: unanswered).
    pub fn of(
        licenses: Result<&[crate::api::validator::Contract], String>,
        rounds: Option<&crate::api::scan::OpenAndIssuingMiningRounds>,
    ) -> ScanSide {
        let newest_round = rounds.and_then(newest_scan_round);
        match licenses {
            Ok(contracts) => ScanSide {
                licenses: Some(CurrentLicense::of_contracts(contracts)),
                newest_round,
                not_asked: None,
            },
            Err(why) => ScanSide {
                licenses: None,
                newest_round,
                not_asked: Some(why),
            },
        }
    }

    /// The scan not asked, and why.
    pub fn not_asked(why: &str) -> ScanSide {
        ScanSide {
            not_asked: Some(why.to_owned()),
            ..ScanSide::default()
        }
    }
}

/// A validator as `index validators` and the Validators pane list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ValidatorRow {
    pub party: String,
    /// Its first licence: the kept history's first, else the scan's current one (µs; RFC 3339
    /// in JSON).
    #[serde(serialize_with = "time_or_null")]
    pub first_licensed: Option<i64>,
    /// Whether the scan lists a licence of it now (`None`: the scan was not asked or did not
    /// answer).
    pub license_current: Option<bool>,
    /// Its newest activity's record time (µs; RFC 3339 in JSON).
    #[serde(serialize_with = "time_or_null")]
    pub last_activity: Option<i64>,
    /// The highest round it recorded activity in.
    pub last_activity_round: Option<i64>,
    /// Rounds from that one to the newest round known (`None`: no activity or no round known).
    pub rounds_since: Option<i64>,
    /// Its activities kept (liveness records and faucet coupons).
    pub activities: i64,
    /// The CIP-104 app activity records naming it as the provider in the kept events (counted
    /// as activity in `last_activity`, not in `activities`).
    pub app_activity_records: i64,
}

#[allow(clippy::ref_option)]
fn time_or_null<S: serde::Serializer>(micros: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    match micros {
        Some(m) => s.serialize_str(&format_time_micros(*m)),
        None => s.serialize_none(),
    }
}

/// The orders of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ValidatorSort {
    /// The newest activity first (never active last).
    #[default]
    Last,
    /// The most rounds since the last activity first (never active first).
    RoundsSince,
    /// By party id.
    Party,
    /// The first licensed first.
    First,
}

/// The list: every validator the kept history licensed or saw active (`kept`), and every one
/// the scan licenses now (`current`: `None` when not asked or unanswered), the rounds since
/// each one's last activity counted from `newest_round`, in `sort` order.
pub fn assemble(
    kept: &BTreeMap<String, ValidatorSums>,
    current: Option<&[CurrentLicense]>,
    newest_round: Option<i64>,
    sort: ValidatorSort,
) -> Vec<ValidatorRow> {
    let row_of = |party: &str, sums: &ValidatorSums| {
        let (last_activity, last_activity_round) = sums.last_active();
        ValidatorRow {
            party: party.to_owned(),
            first_licensed: sums.first_licensed,
            license_current: current.map(|_| false),
            last_activity,
            last_activity_round,
            rounds_since: None,
            activities: sums.activities,
            app_activity_records: sums.app_records,
        }
    };
    let mut rows: BTreeMap<&str, ValidatorRow> = BTreeMap::new();
    // An app provider is listed only when it is a validator (its licence kept or current).
    for (party, sums) in kept.iter().filter(|(_, s)| s.is_validator()) {
        rows.insert(party, row_of(party, sums));
    }
    for license in current.unwrap_or_default() {
        let row = rows.entry(&license.validator).or_insert_with(|| {
            let none = ValidatorSums::default();
            row_of(
                &license.validator,
                kept.get(&license.validator).unwrap_or(&none),
            )
        });
        row.license_current = Some(true);
        row.first_licensed = min_of(row.first_licensed, license.created_at);
    }
    let newest = max_of(
        newest_round,
        kept.values().filter_map(|s| s.last_active().1).max(),
    );
    let mut rows: Vec<ValidatorRow> = rows
        .into_values()
        .map(|mut row| {
            row.rounds_since = row
                .last_activity_round
                .zip(newest)
                .map(|(last, newest)| (newest - last).max(0));
            row
        })
        .collect();
    sort_rows(&mut rows, sort);
    rows
}

/// Sorts `rows` in `sort` order (ties by party).
pub fn sort_rows(rows: &mut [ValidatorRow], sort: ValidatorSort) {
    use std::cmp::Reverse;
    match sort {
        ValidatorSort::Last => rows.sort_by(|a, b| {
            Reverse(a.last_activity)
                .cmp(&Reverse(b.last_activity))
                .then_with(|| a.party.cmp(&b.party))
        }),
        ValidatorSort::RoundsSince => rows.sort_by(|a, b| {
            let key = |r: &ValidatorRow| (r.rounds_since.is_some(), Reverse(r.rounds_since));
            key(a).cmp(&key(b)).then_with(|| a.party.cmp(&b.party))
        }),
        ValidatorSort::Party => rows.sort_by(|a, b| a.party.cmp(&b.party)),
        ValidatorSort::First => rows.sort_by(|a, b| {
            (a.first_licensed.is_none(), a.first_licensed)
                .cmp(&(b.first_licensed.is_none(), b.first_licensed))
                .then_with(|| a.party.cmp(&b.party))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(events: &[(&str, Value)]) -> String {
        let mut by_id = serde_json::Map::new();
        let mut roots = Vec::new();
        for (i, (template, args)) in events.iter().enumerate() {
            let id = format!("#u:{i}");
            roots.push(Value::String(id.clone()));
            by_id.insert(
                id.clone(),
                serde_json::json!({
                    "event_type": "created_event", "event_id": id, "contract_id": format!("c{i}"),
                    "template_id": format!("pkg:{template}"), "create_arguments": args,
                    "signatories": ["dso"], "observers": [],
                }),
            );
        }
        serde_json::json!({
            "update_id": "u", "migration_id": 0, "record_time": "2026-01-01T00:00:00Z",
            "synchronizer_id": "s", "effective_at": "2026-01-01T00:00:00Z",
            "root_event_ids": roots, "events_by_id": by_id,
        })
        .to_string()
    }

    #[test]
    fn licences_and_activities_are_told_apart() {
        let b = body(&[
            (LICENSE_TEMPLATE, serde_json::json!({"validator": "v1"})),
            (
                ACTIVITY_TEMPLATES[0],
                serde_json::json!({"validator": "v1", "round": {"number": "12"}}),
            ),
            (
                ACTIVITY_TEMPLATES[1],
                serde_json::json!({"validator": "v2", "round": {"number": 3}}),
            ),
            ("Splice.Amulet:Amulet", serde_json::json!({"owner": "v1"})),
            (LICENSE_TEMPLATE, serde_json::json!({"sponsor": "sv"})),
            // A name with escapes read as its text, a round given as a bare number.
            (
                ACTIVITY_TEMPLATES[0],
                serde_json::json!({"validator": "v\u{e9}\"3", "round": 9, "other": [1, {"a": "b"}]}),
            ),
            // A name that is not a string, or empty: no fact.
            (LICENSE_TEMPLATE, serde_json::json!({"validator": 5})),
            (LICENSE_TEMPLATE, serde_json::json!({"validator": ""})),
        ]);
        let facts = facts_of(&b);
        assert_eq!(
            facts,
            vec![
                Fact {
                    validator: "v1".into(),
                    licensed: true,
                    round: None
                },
                Fact {
                    validator: "v1".into(),
                    licensed: false,
                    round: Some(12)
                },
                Fact {
                    validator: "v2".into(),
                    licensed: false,
                    round: Some(3)
                },
                Fact {
                    validator: "v\u{e9}\"3".into(),
                    licensed: false,
                    round: Some(9)
                },
            ]
        );
        assert!(facts_of("{not json Splice.ValidatorLicense:").is_empty());
    }

    #[test]
    fn sums_keep_the_first_licence_and_the_newest_activity() {
        let mut d = ValidatorsDelta::default();
        let lic = body(&[(LICENSE_TEMPLATE, serde_json::json!({"validator": "v"}))]);
        let act = |r: i64| {
            body(&[(
                ACTIVITY_TEMPLATES[0],
                serde_json::json!({"validator": "v", "round": {"number": r.to_string()}}),
            )])
        };
        d.add_body(&act(7), 300);
        d.add_body(&lic, 200);
        d.add_body(&act(5), 100);
        d.add_body(&lic, 50);
        assert_eq!(
            d.validators["v"],
            ValidatorSums {
                first_licensed: Some(50),
                licenses: 2,
                last_time: Some(300),
                last_round: Some(7),
                activities: 2,
                ..ValidatorSums::default()
            }
        );
    }

    #[test]
    fn app_activity_as_a_provider_is_a_validators_activity_and_lists_no_other_party() {
        let mut d = ValidatorsDelta::default();
        let act = body(&[(
            ACTIVITY_TEMPLATES[0],
            serde_json::json!({"validator": "v", "round": {"number": "5"}}),
        )]);
        d.add_body(&act, 100);
        d.add_app_activity("v".into(), 8, 3, Some(400));
        d.add_app_activity("app".into(), 9, 2, Some(500));
        let rows = assemble(&d.validators, None, None, ValidatorSort::Last);
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!(rows[0].party, "v");
        assert_eq!(rows[0].last_activity, Some(400));
        assert_eq!(rows[0].last_activity_round, Some(8));
        assert_eq!(rows[0].activities, 1);
        assert_eq!(rows[0].app_activity_records, 3);
        // Older app activity leaves the newest liveness record as the last activity.
        let mut d = ValidatorsDelta::default();
        d.add_body(&act, 100);
        d.add_app_activity("v".into(), 2, 1, Some(50));
        let row = &assemble(&d.validators, None, None, ValidatorSort::Last)[0];
        assert_eq!(
            (row.last_activity, row.last_activity_round),
            (Some(100), Some(5))
        );
        // A provider the scan licenses now is listed with its app activity.
        let current = [CurrentLicense {
            validator: "app".into(),
            created_at: Some(1),
        }];
        let mut d = ValidatorsDelta::default();
        d.add_app_activity("app".into(), 9, 2, Some(500));
        let rows = assemble(&d.validators, Some(&current), Some(10), ValidatorSort::Last);
        assert_eq!(rows[0].last_activity_round, Some(9));
        assert_eq!(rows[0].rounds_since, Some(1));
    }

    #[test]
    fn the_list_joins_the_scans_licences_and_counts_rounds_since() {
        let mut kept = BTreeMap::new();
        kept.insert(
            "a".to_owned(),
            ValidatorSums {
                first_licensed: Some(10),
                licenses: 1,
                last_time: Some(100),
                last_round: Some(4),
                activities: 3,
                ..ValidatorSums::default()
            },
        );
        kept.insert(
            "b".to_owned(),
            ValidatorSums {
                first_licensed: Some(5),
                licenses: 1,
                last_time: Some(200),
                last_round: Some(9),
                activities: 1,
                ..ValidatorSums::default()
            },
        );
        let current = [
            CurrentLicense {
                validator: "b".into(),
                created_at: Some(1),
            },
            CurrentLicense {
                validator: "c".into(),
                created_at: Some(7),
            },
        ];
        let rows = assemble(&kept, Some(&current), Some(10), ValidatorSort::RoundsSince);
        let parties: Vec<&str> = rows.iter().map(|r| r.party.as_str()).collect();
        assert_eq!(parties, ["c", "a", "b"]);
        assert_eq!(rows[1].rounds_since, Some(6));
        assert_eq!(rows[2].rounds_since, Some(1));
        assert_eq!(rows[1].license_current, Some(false));
        assert_eq!(rows[2].first_licensed, Some(1));
        assert_eq!(rows[0].license_current, Some(true));
        let offline = assemble(&kept, None, None, ValidatorSort::Last);
        assert_eq!(offline[0].party, "b");
        assert_eq!(offline[0].rounds_since, Some(0));
        assert_eq!(offline[1].license_current, None);
    }
}
