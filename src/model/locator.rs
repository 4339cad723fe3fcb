//! View locators: a short text address of what the explorer shows, to paste into a chat so a
//! colleague lands on the same view (`cantonscope open LOCATOR`, `:open LOCATOR`, `W` copies the
//! current one). The grammar is versioned (`cs1:`); `W` writes whole ids only, never the
//! shortened form the screen shows, and never a URL, host or credential (the reader's own
//! profile supplies those). An update id typed by hand may be abbreviated as the screen shows it
//! (`cs1:update/1220d17b…9f1e`, `cs1:network/check/9237fcb34d82...`): it is completed when the
//! view is opened (from the loaded updates or the local index; `cantonscope open`: the index).
//!
//! ```text
//! locator  = "cs1:" view
//! view     = pane                                   ; cs1:status, cs1:network, …
//!          | "update/" UPDATE_ID [ "#verdict" ]     ; the update (its verdict)
//!          | "history" [ "?" query ]                ; query: party=PARTY, at=RFC3339 (joined by &)
//!          | "network/check/" UPDATE_ID             ; the update checked on every scan
//!          | "holdings?party=" PARTY                ; the holdings of a party
//!          | "governance/request/" CONTRACT_ID      ; a vote request by its tracking cid
//! UPDATE_ID   = 68 hex characters (1220 + 64; 64 alone gets the 1220 back), or HEAD "…" [TAIL]
//!               (or "..."), an abbreviation completed when opened
//! PARTY       = hint "::" fingerprint (at least 64 hex characters)
//! CONTRACT_ID = at least 66 hex characters
//! ```

use std::fmt;

use chrono::{DateTime, NaiveDateTime, SecondsFormat, Utc};

/// The panes a locator names by word (the explorer's tab titles in lower case; a test checks
/// they agree).
pub const PANES: [&str; 10] = [
    "history",
    "update",
    "verdict",
    "status",
    "holdings",
    "validators",
    "network",
    "proxy",
    "ledger",
    "governance",
];

/// The version this build writes and reads.
pub const VERSION: &str = "cs1";

/// What a locator expects, for usage errors.
pub const EXPECTED: &str = "cs1:<pane> | cs1:update/<update id>[#verdict] | \
     cs1:history[?party=<party id>&at=<RFC 3339 time>] | cs1:network/check/<update id> | \
     cs1:holdings?party=<party id> | cs1:governance/request/<tracking cid>";

/// A view of the explorer, as a locator names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Locator {
    /// A pane as it opens, by its word in [`PANES`].
    Pane(String),
    /// An update in the Update pane, or its verdict in the Verdict pane.
    Update { update_id: String, verdict: bool },
    /// The history, filtered to a party and/or at a record time (µs).
    History {
        party: Option<String>,
        at: Option<i64>,
    },
    /// An update checked on every scan (Network).
    NetworkCheck(String),
    /// The holdings of a party.
    Holdings(String),
    /// A governance vote request by its tracking cid.
    GovernanceRequest(String),
}

/// Why a text is no locator (the message says what was expected).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatorError(pub String);

impl fmt::Display for LocatorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (expected {EXPECTED})", self.0)
    }
}

impl std::error::Error for LocatorError {}

fn err<T>(text: impl Into<String>) -> Result<T, LocatorError> {
    Err(LocatorError(text.into()))
}

/// At most this many characters of the input are quoted in messages.
fn quoted(s: &str) -> String {
    let cut: String = s.chars().take(48).filter(|c| !c.is_control()).collect();
    if s.chars().count() > 48 {
        format!("{cut:?}…")
    } else {
        format!("{cut:?}")
    }
}

impl fmt::Display for Locator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{VERSION}:")?;
        match self {
            Locator::Pane(p) => f.write_str(p),
            Locator::Update { update_id, verdict } => {
                write!(f, "update/{update_id}")?;
                if *verdict {
                    f.write_str("#verdict")?;
                }
                Ok(())
            }
            Locator::History { party, at } => {
                f.write_str("history")?;
                let mut sep = '?';
                if let Some(p) = party {
                    write!(f, "{sep}party={p}")?;
                    sep = '&';
                }
                if let Some(t) = at.and_then(DateTime::<Utc>::from_timestamp_micros) {
                    write!(
                        f,
                        "{sep}at={}",
                        t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
                    )?;
                }
                Ok(())
            }
            Locator::NetworkCheck(id) => write!(f, "network/check/{id}"),
            Locator::Holdings(p) => write!(f, "holdings?party={p}"),
            Locator::GovernanceRequest(cid) => write!(f, "governance/request/{cid}"),
        }
    }
}

fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn shortened(s: &str) -> bool {
    s.contains('…') || s.contains("...")
}

/// A whole update id (68 hex characters; 64 get the `1220` back).
pub fn update_id(s: &str) -> Result<String, LocatorError> {
    if shortened(s) {
        return err(format!(
            "{} is a shortened update id: a locator holds the whole id (68 hex characters)",
            quoted(s)
        ));
    }
    match s.len() {
        68 if is_hex(s) => Ok(s.to_ascii_lowercase()),
        64 if is_hex(s) => Ok(format!("1220{}", s.to_ascii_lowercase())),
        n if is_hex(s) && n < 68 => err(format!(
            "{} is not a whole update id (68 hex characters; a prefix names nothing on a colleague's screen; an abbreviation is marked with …, as the screen shows it)",
            quoted(s)
        )),
        _ => err(format!(
            "{} is not an update id (68 hex characters)",
            quoted(s)
        )),
    }
}

/// An update id as a locator may hold it: whole ([`update_id`]), or abbreviated as the screen
/// shows it, marked with `…` or `...` (kept as `head…tail`, lower case, to complete on opening).
fn given_update_id(s: &str) -> Result<String, LocatorError> {
    if !shortened(s) {
        return update_id(s);
    }
    match super::id_pattern::IdPattern::parse(s) {
        Ok(super::id_pattern::IdPattern::Part { head, tail }) => Ok(format!("{head}…{tail}")),
        Ok(super::id_pattern::IdPattern::Whole(id)) => Ok(id),
        Err(e) => err(e),
    }
}

/// A whole party id (`hint::fingerprint`, the fingerprint at least 64 hex characters).
pub fn party_id(s: &str) -> Result<String, LocatorError> {
    if shortened(s) {
        return err(format!(
            "{} is a shortened party id: a locator holds the whole id (hint::fingerprint)",
            quoted(s)
        ));
    }
    match s.split_once("::") {
        Some((hint, fp))
            if !hint.is_empty()
                && hint
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                && fp.len() >= 64
                && is_hex(fp) =>
        {
            Ok(s.to_owned())
        }
        _ => err(format!(
            "{} is not a whole party id (hint::fingerprint, the fingerprint 64+ hex characters)",
            quoted(s)
        )),
    }
}

/// A whole contract id (at least 66 hex characters).
pub fn contract_id(s: &str) -> Result<String, LocatorError> {
    if shortened(s) {
        return err(format!(
            "{} is a shortened contract id: a locator holds the whole id",
            quoted(s)
        ));
    }
    if s.len() >= 66 && is_hex(s) {
        Ok(s.to_ascii_lowercase())
    } else {
        err(format!(
            "{} is not a whole contract id (66+ hex characters)",
            quoted(s)
        ))
    }
}

/// A time: RFC 3339, or `2026-11-27T09:00Z` (minutes, UTC).
fn time(s: &str) -> Result<i64, LocatorError> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&Utc).timestamp_micros());
    }
    if let Some(body) = s.strip_suffix('Z')
        && let Ok(t) = NaiveDateTime::parse_from_str(body, "%Y-%m-%dT%H:%M")
    {
        return Ok(t.and_utc().timestamp_micros());
    }
    err(format!(
        "{} is not a time (RFC 3339 such as 2026-11-27T09:00:00Z, or 2026-11-27T09:00Z)",
        quoted(s)
    ))
}

/// Keys that would carry what a locator must never hold.
const FORBIDDEN_KEYS: [&str; 8] = [
    "scan",
    "host",
    "url",
    "token",
    "auth",
    "password",
    "ledger",
    "validator",
];

fn query(q: &str, allowed: &[&str]) -> Result<Vec<(String, String)>, LocatorError> {
    let mut pairs = Vec::new();
    for part in q.split('&') {
        let Some((k, v)) = part.split_once('=') else {
            return err(format!("{} is not key=value", quoted(part)));
        };
        if FORBIDDEN_KEYS.contains(&k) {
            return err(format!(
                "a locator names no host, URL or credential ({k}=…): the reader's profile supplies them"
            ));
        }
        if !allowed.contains(&k) {
            return err(format!(
                "unknown key {} (this view takes {})",
                quoted(k),
                allowed.join(", ")
            ));
        }
        if pairs.iter().any(|(seen, _)| seen == k) {
            return err(format!("{k} given twice"));
        }
        pairs.push((k.to_owned(), v.to_owned()));
    }
    Ok(pairs)
}

impl std::str::FromStr for Locator {
    type Err = LocatorError;

    fn from_str(text: &str) -> Result<Self, LocatorError> {
        Locator::parse(text)
    }
}

impl Locator {
    /// The update id it holds abbreviated (`head…tail`), to complete before it is opened.
    pub fn abbreviated(&self) -> Option<&str> {
        match self {
            Locator::Update { update_id: id, .. } | Locator::NetworkCheck(id)
                if id.contains('…') =>
            {
                Some(id)
            }
            _ => None,
        }
    }

    /// The same view of the update `whole` (a view of no update is itself).
    pub fn with_update_id(&self, whole: &str) -> Locator {
        match self {
            Locator::Update { verdict, .. } => Locator::Update {
                update_id: whole.to_owned(),
                verdict: *verdict,
            },
            Locator::NetworkCheck(_) => Locator::NetworkCheck(whole.to_owned()),
            other => other.clone(),
        }
    }

    /// Parses a locator (surrounding white space ignored).
    pub fn parse(text: &str) -> Result<Locator, LocatorError> {
        let text = text.trim();
        if text.is_empty() {
            return err("no locator given");
        }
        if text.contains("://") || text.contains('@') {
            return err(format!(
                "{} holds a URL or host: a locator names a view only (the reader's profile supplies the nodes)",
                quoted(text)
            ));
        }
        if text.chars().any(char::is_whitespace) {
            return err(format!("{} holds white space", quoted(text)));
        }
        let Some((version, rest)) = text.split_once(':') else {
            return err(format!("{} does not start with {VERSION}:", quoted(text)));
        };
        if version != VERSION {
            if version.starts_with("cs") && version[2..].bytes().all(|b| b.is_ascii_digit()) {
                return err(format!(
                    "locator version {version} is not known to this cantonscope (it reads {VERSION}; a newer cantonscope wrote it?)"
                ));
            }
            return err(format!("{} does not start with {VERSION}:", quoted(text)));
        }
        let (path, fragment) = match rest.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (rest, None),
        };
        let (path, q) = match path.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (path, None),
        };
        for part in q.unwrap_or_default().split('&') {
            let key = part.split_once('=').map_or(part, |(k, _)| k);
            if FORBIDDEN_KEYS.contains(&key) {
                return err(format!(
                    "a locator names no host, URL or credential ({key}=…): the reader's profile supplies them"
                ));
            }
        }
        let segments: Vec<&str> = path.split('/').collect();
        let no_query = |what: &str| match q {
            Some(_) => err(format!("{what} takes no ?query")),
            None => Ok(()),
        };
        let no_fragment = |what: &str| match fragment {
            Some(f) => err(format!("{what} takes no #{f}")),
            None => Ok(()),
        };
        match segments.as_slice() {
            ["update", id] => {
                no_query("update/<id>")?;
                let verdict = match fragment {
                    None => false,
                    Some("verdict") => true,
                    Some(f) => return err(format!("unknown #{f} (update/<id> takes #verdict)")),
                };
                Ok(Locator::Update {
                    update_id: given_update_id(id)?,
                    verdict,
                })
            }
            ["network", "check", id] => {
                no_query("network/check/<id>")?;
                no_fragment("network/check/<id>")?;
                Ok(Locator::NetworkCheck(given_update_id(id)?))
            }
            ["governance", "request", cid] => {
                no_query("governance/request/<cid>")?;
                no_fragment("governance/request/<cid>")?;
                Ok(Locator::GovernanceRequest(contract_id(cid)?))
            }
            ["history"] => {
                no_fragment("history")?;
                let mut party = None;
                let mut at = None;
                for (k, v) in q
                    .map(|q| query(q, &["party", "at"]))
                    .transpose()?
                    .unwrap_or_default()
                {
                    match k.as_str() {
                        "party" => party = Some(party_id(&v)?),
                        _ => at = Some(time(&v)?),
                    }
                }
                Ok(Locator::History { party, at })
            }
            ["holdings"] if q.is_some() => {
                no_fragment("holdings")?;
                let pairs = query(q.unwrap_or_default(), &["party"])?;
                match pairs.as_slice() {
                    [(_, v)] => Ok(Locator::Holdings(party_id(v)?)),
                    _ => err("holdings?party=<party id> names one party"),
                }
            }
            [word] => {
                no_query(word)?;
                no_fragment(word)?;
                PANES
                    .iter()
                    .find(|p| **p == *word)
                    .map(|p| Locator::Pane((*p).to_owned()))
                    .ok_or_else(|| LocatorError(format!("unknown view {}", quoted(word))))
            }
            _ => err(format!("unknown view {}", quoted(path))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UID: &str = "1220aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab";
    const PARTY: &str = "alice::1220bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbc";
    const CID: &str =
        "00cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccca101220dd";

    fn all() -> Vec<Locator> {
        // History as it opens is `history` with no query (Pane(History) reads back as that).
        let mut v: Vec<Locator> = PANES
            .iter()
            .filter(|p| **p != "history")
            .map(|p| Locator::Pane((*p).to_owned()))
            .collect();
        v.extend([
            Locator::Update {
                update_id: UID.into(),
                verdict: false,
            },
            Locator::Update {
                update_id: UID.into(),
                verdict: true,
            },
            Locator::History {
                party: None,
                at: None,
            },
            Locator::History {
                party: Some(PARTY.into()),
                at: Some(1_795_770_000_000_000),
            },
            Locator::History {
                party: None,
                at: Some(1_795_770_000_123_456),
            },
            Locator::NetworkCheck(UID.into()),
            Locator::Holdings(PARTY.into()),
            Locator::GovernanceRequest(CID.into()),
        ]);
        v
    }

    #[test]
    fn every_locator_round_trips() {
        for l in all() {
            let text = l.to_string();
            assert!(text.starts_with("cs1:"), "{text}");
            assert_eq!(Locator::parse(&text), Ok(l.clone()), "{text}");
        }
    }

    #[test]
    fn examples_read_as_documented() {
        assert_eq!(
            Locator::parse(&format!("cs1:update/{UID}#verdict")),
            Ok(Locator::Update {
                update_id: UID.into(),
                verdict: true
            })
        );
        assert_eq!(
            Locator::parse(&format!("cs1:history?party={PARTY}&at=2026-11-27T09:00Z")),
            Ok(Locator::History {
                party: Some(PARTY.into()),
                at: Some(
                    DateTime::parse_from_rfc3339("2026-11-27T09:00:00Z")
                        .map(|t| t.timestamp_micros())
                        .unwrap_or_default()
                ),
            })
        );
        // 64 hex characters get the 1220 back.
        assert_eq!(
            Locator::parse(&format!("cs1:network/check/{}", &UID[4..])),
            Ok(Locator::NetworkCheck(UID.into()))
        );
    }

    fn rejected(text: &str, says: &str) {
        match Locator::parse(text) {
            Ok(l) => panic!("{text} parsed as {l:?}"),
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains(says), "{text}: {msg} lacks {says:?}");
                assert!(
                    msg.contains("expected cs1:"),
                    "{msg} says what was expected"
                );
            }
        }
    }

    #[test]
    fn urls_hosts_and_credentials_are_refused() {
        rejected(
            &format!("https://scan.example.com/update/{UID}"),
            "URL or host",
        );
        rejected(&format!("cs1:update/{UID}?scan=10.0.0.1:5012"), "no host");
        rejected("cs1:history?token=abc", "no host, URL or credential");
        rejected("cs1:network/check/127.0.0.1:8080", "not an update id");
        rejected(&format!("cs1:update/{UID}@scan.example.com"), "URL or host");
    }

    #[test]
    fn an_update_id_abbreviated_as_the_screen_shows_it_is_kept_to_complete() {
        for (text, kept) in [
            ("cs1:update/1220AAAA…aaab#verdict", "1220aaaa…aaab"),
            ("cs1:network/check/aaaaaaaa...", "aaaaaaaa…"),
        ] {
            let loc = Locator::parse(text).expect(text);
            assert_eq!(loc.abbreviated(), Some(kept), "{text}");
            let whole = loc.with_update_id(UID);
            assert_eq!(whole.abbreviated(), None);
            assert!(whole.to_string().contains(UID), "{whole}");
        }
        assert_eq!(
            Locator::parse("cs1:update/1220aaaa…aaab").map(|l| l.with_update_id(UID)),
            Ok(Locator::Update {
                update_id: UID.into(),
                verdict: false
            })
        );
        rejected("cs1:update/aa…", "too short an abbreviation");
        rejected("cs1:update/zzzz…", "is not an update id");
    }

    #[test]
    fn short_ids_are_refused() {
        rejected("cs1:update/1220aaaaaaaa", "not a whole update id");
        rejected(
            "cs1:holdings?party=alice::1220bbbb…bbbc",
            "shortened party id",
        );
        rejected(
            "cs1:holdings?party=alice::1220bbbbbbbb",
            "not a whole party id",
        );
        rejected("cs1:holdings?party=alice", "not a whole party id");
        rejected("cs1:governance/request/00cc", "not a whole contract id");
    }

    #[test]
    fn other_versions_and_malformed_views_are_refused() {
        rejected(&format!("cs2:update/{UID}"), "version cs2 is not known");
        rejected(&format!("update/{UID}"), "does not start with cs1:");
        rejected("cs1:nowhere", "unknown view");
        rejected(&format!("cs1:update/{UID}#tree"), "unknown #tree");
        rejected("cs1:history?at=yesterday", "not a time");
        rejected("cs1:history?colour=red", "unknown key");
        rejected("", "no locator");
        rejected("cs1:holdings?party=a&party=b", "given twice");
    }
}
