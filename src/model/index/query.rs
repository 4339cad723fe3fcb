//! The query grammar of `index search`, the History filter's fielded terms over the whole index:
//! `party:`, `template:` and `choice:` match a key exactly; `contract:` and `id:` match a prefix
//! of a contract id or an update id, given with or without its `1220`; `is:NAME` is an update
//! exercising one of the choices of that kind (`is:transfer`, see [`crate::model::is_term`]);
//! every term must match.
//! Bare words and `re:` would mean reading every key of the index: they are refused with a
//! message naming the fielded terms.

use super::KeyKind;

/// The fielded terms, for messages.
pub const SEARCH_SYNTAX: &str = "party:P template:T choice:C (exact) · contract:PREFIX id:PREFIX (a prefix, with or without 1220) · is:transfer, is:vote, is:reward… · terms separated by spaces must all match";

/// Shortest prefix `contract:` and `id:` take (shorter ones would match most of the index).
pub const MIN_PREFIX: usize = 4;

/// One term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    /// A key equal to the text.
    Exact(KeyKind, String),
    /// A contract id starting with one of the prefixes (the text, and `1220` + the text).
    ContractPrefix(Prefix),
    /// An update id starting with one of the prefixes.
    UpdatePrefix(Prefix),
    /// A template named without its package (`Module:Entity`): every template id
    /// `package:Module:Entity` of that name, whichever package (a template upgraded over
    /// months has several).
    TemplateName(String),
    /// A party named by its hint alone (`alice`, no `::`): every party `alice::<fingerprint>`
    /// (one hint may stand for parties of several participants), and one whose id is `alice`.
    PartyHint(String),
    /// An update exercising any of these choices (an `is:` term).
    Choices(Vec<String>),
    /// An update whose events the index keeps with this verdict, round or mediator group
    /// (`verdict:accepted`, `round:N`, `mediator:GROUP`).
    Events(EventsTerm),
}

/// A term over the events the index keeps with an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventsTerm {
    /// The verdict's result: `accepted` or `rejected`.
    Verdict(String),
    /// The verdict's mining round.
    Round(i64),
    /// The mediator group that gave the verdict.
    Mediator(i64),
}

impl EventsTerm {
    /// The events column the term tests and the value it must have.
    pub fn column(&self) -> (&'static str, EventsValue<'_>) {
        match self {
            EventsTerm::Verdict(v) => ("verdict_result", EventsValue::Text(v)),
            EventsTerm::Round(n) => ("round_number", EventsValue::Number(*n)),
            EventsTerm::Mediator(n) => ("mediator_group", EventsValue::Number(*n)),
        }
    }
}

/// The value an events term tests its column for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventsValue<'a> {
    Text(&'a str),
    Number(i64),
}

/// An id's head (in its forms: with and without `1220`) and, when it was given as the screen
/// draws it (`1220d17b…9f1e`), its tail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefix {
    /// The forms of the head; an id starts with one of them.
    pub heads: Vec<String>,
    /// What the id ends with (empty: anything).
    pub tail: String,
}

impl Prefix {
    /// Whether `id`, which starts with `head`, ends with the tail (after the head).
    pub fn tail_matches(&self, head: &str, id: &str) -> bool {
        id.len() >= head.len() + self.tail.len() && id.ends_with(self.tail.as_str())
    }

    /// Whether `id` starts with one of the heads and ends with the tail.
    pub fn matches(&self, id: &str) -> bool {
        self.heads
            .iter()
            .any(|h| id.starts_with(h.as_str()) && self.tail_matches(h, id))
    }
}

/// Whether the party id `id` has the hint `hint` (`hint::…`), or is `hint`.
pub fn party_hinted(id: &str, hint: &str) -> bool {
    id.strip_prefix(hint)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
}

/// Whether the template id `id` (`package:Module:Entity`) is named `name` (`Module:Entity`).
pub fn template_named(id: &str, name: &str) -> bool {
    id.split_once(':').is_some_and(|(_, rest)| rest == name)
}

/// A parsed query: every term must match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub terms: Vec<Term>,
}

impl Term {
    /// Whether `id` matches a prefix term (`false` for an exact term).
    pub fn prefix_matches(&self, id: &str) -> bool {
        match self {
            Term::ContractPrefix(p) | Term::UpdatePrefix(p) => p.matches(id),
            Term::Exact(..)
            | Term::TemplateName(_)
            | Term::PartyHint(_)
            | Term::Choices(_)
            | Term::Events(_) => false,
        }
    }
}

/// What a search can test of an event with a verdict and no update (a rejected request, a
/// wholly private transaction): it has no keys, only its id, its verdict's result, round and
/// mediator group, and the parties that submitted it.
#[derive(Debug, Clone, Copy)]
pub struct VerdictFacts<'a> {
    pub update_id: &'a str,
    /// `accepted`, `rejected` or `unspecified`.
    pub result: Option<&'a str>,
    pub round: Option<i64>,
    pub mediator: Option<i64>,
    pub submitters: &'a [String],
}

impl Query {
    /// Whether any event with a verdict and no update can match: every term is one such an
    /// event can be tested on (`verdict:`, `round:`, `mediator:`, `id:`, `party:` as a
    /// submitter). When not, a search reads none of them: an index with its events keeps one
    /// for each rejected request and wholly private transaction, and reading them all for
    /// `is:transfer` cost more than the search itself (100-200 ms at 1 M updates with 13,324
    /// of them, against 12-23 ms without).
    pub fn may_match_verdict_only(&self) -> bool {
        !self.terms.is_empty() && self.terms.iter().all(verdict_only_testable)
    }

    /// Whether an event with a verdict and no update matches: every term is one it can be
    /// tested on ([`Self::may_match_verdict_only`]) and holds.
    pub fn matches_verdict_only(&self, facts: &VerdictFacts<'_>) -> bool {
        self.may_match_verdict_only()
            && self.terms.iter().all(|term| match term {
                Term::Events(EventsTerm::Verdict(v)) => facts.result == Some(v.as_str()),
                Term::Events(EventsTerm::Round(n)) => facts.round == Some(*n),
                Term::Events(EventsTerm::Mediator(n)) => facts.mediator == Some(*n),
                Term::UpdatePrefix(p) => p.matches(facts.update_id),
                Term::Exact(KeyKind::Party, party) => facts.submitters.contains(party),
                Term::PartyHint(hint) => facts.submitters.iter().any(|p| party_hinted(p, hint)),
                Term::Exact(..)
                | Term::ContractPrefix(_)
                | Term::TemplateName(_)
                | Term::Choices(_) => false,
            })
    }
}

/// Whether an event with a verdict and no update can be tested on `term` at all: it has no
/// keys, only its id, its verdict's result, round and mediator group, and its submitters.
fn verdict_only_testable(term: &Term) -> bool {
    match term {
        Term::Events(_)
        | Term::UpdatePrefix(_)
        | Term::Exact(KeyKind::Party, _)
        | Term::PartyHint(_) => true,
        Term::Exact(..) | Term::ContractPrefix(_) | Term::TemplateName(_) | Term::Choices(_) => {
            false
        }
    }
}

/// The text and its other form: with `1220` before it, or without the `1220` it starts with
/// when what follows is a prefix long enough ([`MIN_PREFIX`]; `1220ab` does not also stand for
/// every id starting with `ab`, nor `1220` for every id).
fn prefixes(text: &str) -> Vec<String> {
    let bare = text.strip_prefix("1220").unwrap_or(text);
    let mut out = vec![text.to_owned()];
    if bare.len() == text.len() {
        out.push(format!("1220{text}"));
    } else if bare.len() >= MIN_PREFIX {
        out.push(bare.to_owned());
    }
    out
}

impl Query {
    /// Parses the words of a query (each word one term).
    pub fn parse<S: AsRef<str>>(words: &[S]) -> Result<Query, String> {
        let mut terms = Vec::new();
        for word in words.iter().flat_map(|w| w.as_ref().split_whitespace()) {
            let refuse = |why: &str| {
                Err(format!(
                    "{why}: {word:?}; index search takes fielded terms only: {SEARCH_SYNTAX}"
                ))
            };
            let Some((field, text)) = word.split_once(':') else {
                return refuse("a bare word would read every key of the index");
            };
            if text.starts_with("re:") {
                return refuse("a regular expression would read every key of the index");
            }
            if text.is_empty() {
                return refuse("a term without text");
            }
            let term = match field {
                // A hint alone (`alice`) names every party `alice::…`.
                "party" if !text.contains("::") => Term::PartyHint(text.to_owned()),
                "party" => Term::Exact(KeyKind::Party, text.to_owned()),
                // `Module:Entity` names the template in every package; with the package
                // (`package:Module:Entity`) it is one template id.
                "template" if text.matches(':').count() == 1 => Term::TemplateName(text.to_owned()),
                "template" => Term::Exact(KeyKind::Template, text.to_owned()),
                "choice" => Term::Exact(KeyKind::Choice, text.to_owned()),
                "is" => match crate::model::is_term::choices(text) {
                    Ok(choices) => Term::Choices(choices.into_iter().map(str::to_owned).collect()),
                    Err(e) => return Err(e),
                },
                "contract" | "id" => {
                    // As the screen draws an id (`1220d17b…9f1e`, `9237fcb34d82...`): the
                    // head before the ellipsis is the prefix, the tail after it ends the id.
                    let (head, tail) = text
                        .split_once('…')
                        .or_else(|| text.split_once("..."))
                        .map_or((text, ""), |(head, tail)| {
                            (head, tail.trim_start_matches(['…', '.']))
                        });
                    if head.len() < MIN_PREFIX {
                        return refuse(&format!("a prefix needs at least {MIN_PREFIX} characters"));
                    }
                    let prefix = Prefix {
                        heads: prefixes(head),
                        tail: tail.to_owned(),
                    };
                    if field == "contract" {
                        Term::ContractPrefix(prefix)
                    } else {
                        Term::UpdatePrefix(prefix)
                    }
                }
                "verdict" => match text.to_ascii_lowercase().as_str() {
                    v @ ("accepted" | "rejected") => {
                        Term::Events(EventsTerm::Verdict(v.to_owned()))
                    }
                    _ => return refuse("verdict: takes accepted or rejected"),
                },
                "round" | "mediator" => {
                    let Ok(n) = text.parse::<i64>() else {
                        return refuse(&format!("{field}: takes a number"));
                    };
                    Term::Events(if field == "round" {
                        EventsTerm::Round(n)
                    } else {
                        EventsTerm::Mediator(n)
                    })
                }
                "re" => return refuse("a regular expression would read every key of the index"),
                _ => return refuse("an unknown field"),
            };
            terms.push(term);
        }
        if terms.is_empty() {
            return Err(format!("nothing to search for: {SEARCH_SYNTAX}"));
        }
        Ok(Query { terms })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rejection in round 42 by mediator group 0, of id `1220feed`.
    fn rejected_by(submitters: &[String]) -> VerdictFacts<'_> {
        VerdictFacts {
            update_id: "1220feed",
            result: Some("rejected"),
            round: Some(42),
            mediator: Some(0),
            submitters,
        }
    }

    #[test]
    fn an_event_with_a_verdict_only_matches_its_verdict_id_and_submitters_nothing_else() {
        let submitters = vec!["alice::1220ab".to_owned()];
        let facts = rejected_by(&submitters);
        let matches = |q: &str| {
            Query::parse(&[q])
                .expect("a query")
                .matches_verdict_only(&facts)
        };
        assert!(matches("verdict:rejected round:42 mediator:0"));
        assert!(matches("id:feed party:alice"));
        assert!(matches("party:alice::1220ab verdict:rejected"));
        assert!(!matches("verdict:accepted"));
        assert!(!matches("round:41"));
        assert!(!matches("verdict:rejected party:bob"));
        // Keys it has not: a template, a choice, a contract.
        assert!(!matches("verdict:rejected is:transfer"));
        assert!(!matches("contract:1220feed"));
    }

    #[test]
    fn a_query_no_verdict_only_event_can_match_reads_none_and_one_that_can_reads_them() {
        let may = |q: &str| {
            Query::parse(&[q])
                .expect("a query")
                .may_match_verdict_only()
        };
        // A key such an event has not, alone or beside a term it has: none read.
        for q in [
            "is:transfer",
            "template:Splice.Amulet:Amulet",
            "template:pkg:Splice.Amulet:Amulet",
            "choice:AmuletRules_Transfer",
            "contract:1220feed",
            "party:alice is:transfer",
            "verdict:rejected template:Splice.Amulet:Amulet",
        ] {
            assert!(!may(q), "{q}: no event with a verdict only can match");
        }
        // Its id, verdict, round, mediator group, submitters: read and tested.
        for q in [
            "party:alice",
            "party:alice::1220ab",
            "verdict:rejected",
            "round:42 mediator:0",
            "id:1220feed",
        ] {
            assert!(may(q), "{q}: an event with a verdict only can match");
        }
        // Every query that matches some event is one that reads them.
        let submitters = vec!["alice::1220ab".to_owned()];
        let facts = rejected_by(&submitters);
        for q in ["party:alice verdict:rejected", "id:feed round:42"] {
            let query = Query::parse(&[q]).expect("a query");
            assert!(query.matches_verdict_only(&facts) && query.may_match_verdict_only());
        }
    }

    #[test]
    fn events_terms_name_a_verdict_a_round_or_a_mediator_group() {
        let q = Query::parse(&["verdict:Accepted round:42 mediator:0"]).expect("q");
        assert_eq!(
            q.terms,
            vec![
                Term::Events(EventsTerm::Verdict("accepted".to_owned())),
                Term::Events(EventsTerm::Round(42)),
                Term::Events(EventsTerm::Mediator(0)),
            ]
        );
        assert!(Query::parse(&["verdict:maybe"]).is_err());
        assert!(Query::parse(&["round:x"]).is_err());
    }

    #[test]
    fn a_party_hint_alone_is_every_party_of_that_hint() {
        let q = Query::parse(&["party:alice"]).expect("q");
        assert_eq!(q.terms, vec![Term::PartyHint("alice".to_owned())]);
        let q = Query::parse(&["party:alice::1220ab"]).expect("q");
        assert_eq!(
            q.terms,
            vec![Term::Exact(KeyKind::Party, "alice::1220ab".to_owned())]
        );
        assert!(party_hinted("alice::1220ab", "alice"));
        assert!(party_hinted("alice", "alice"));
        assert!(!party_hinted("alice-2::1220ab", "alice"));
        assert!(!party_hinted("alic::1220ab", "alice"));
        assert!(!party_hinted("malice::1220ab", "alice"));
    }

    #[test]
    fn a_template_without_its_package_is_every_template_of_that_name() {
        let q = Query::parse(&["template:Splice.Amulet:Amulet"]).expect("q");
        assert_eq!(
            q.terms,
            vec![Term::TemplateName("Splice.Amulet:Amulet".to_owned())]
        );
        let q = Query::parse(&["template:4ebd:Splice.Amulet:Amulet"]).expect("q");
        assert_eq!(
            q.terms,
            vec![Term::Exact(
                KeyKind::Template,
                "4ebd:Splice.Amulet:Amulet".to_owned()
            )]
        );
        assert!(template_named(
            "4ebd:Splice.Amulet:Amulet",
            "Splice.Amulet:Amulet"
        ));
        assert!(template_named(
            "72aa:Splice.Amulet:Amulet",
            "Splice.Amulet:Amulet"
        ));
        assert!(!template_named(
            "4ebd:Splice.Amulet:AmuletRules",
            "Splice.Amulet:Amulet"
        ));
        assert!(!template_named(
            "4ebd:X.Splice.Amulet:Amulet",
            "Splice.Amulet:Amulet"
        ));
        assert!(!template_named(
            "Splice.Amulet:Amulet",
            "Splice.Amulet:Amulet"
        ));
    }

    #[test]
    fn fielded_terms_parse_and_the_rest_is_refused() {
        let q = Query::parse(&["party:alice::1220", "choice:X", "contract:00ab12"]).expect("q");
        assert_eq!(q.terms.len(), 3);
        assert_eq!(
            q.terms[0],
            Term::Exact(KeyKind::Party, "alice::1220".into())
        );
        assert!(q.terms[2].prefix_matches("00ab12ff"));
        assert!(q.terms[2].prefix_matches("122000ab12ff"));
        let id = Query::parse(&["id:1220abcd"]).expect("id");
        assert!(id.terms[0].prefix_matches("abcd99"));
        assert!(id.terms[0].prefix_matches("1220abcd99"));
        // An id as the screen draws it: its head is the prefix.
        for pasted in ["id:abcd…99", "id:abcd...", "id:1220abcd…", "id:abcd...9"] {
            let q = Query::parse(&[pasted]).expect(pasted);
            assert!(q.terms[0].prefix_matches("1220abcd99"), "{pasted}");
        }
        // The tail of `head…tail` is checked too, after the head.
        for other in ["id:abcd…9f1e", "id:abcd...9f1e", "contract:abcd…9f1e"] {
            let q = Query::parse(&[other]).expect(other);
            assert!(!q.terms[0].prefix_matches("1220abcd99"), "{other}");
            assert!(q.terms[0].prefix_matches("1220abcd00119f1e"), "{other}");
        }
        let q = Query::parse(&["id:abcd…cd"]).expect("q");
        assert!(
            !q.terms[0].prefix_matches("abcd"),
            "the tail is after the head"
        );
        assert!(Query::parse(&["id:ab…"]).is_err());
        // A 1220 followed by less than a prefix is only the 1220 form.
        for (text, not) in [("1220ab", "ab99ff"), ("1220", "00ab12")] {
            let q = Query::parse(&[format!("contract:{text}")]).expect(text);
            assert!(q.terms[0].prefix_matches(&format!("{text}99")), "{text}");
            assert!(!q.terms[0].prefix_matches(not), "{text} {not}");
        }
        for bad in [
            "alice",
            "party:re:^a",
            "re:x",
            "colour:red",
            "id:12",
            "party:",
        ] {
            let e = Query::parse(&[bad]).expect_err(bad);
            assert!(e.contains("party:P"), "{e}");
        }
        assert!(Query::parse::<&str>(&[]).is_err());
    }
}
