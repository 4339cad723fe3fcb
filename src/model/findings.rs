//! Findings, pure: what needs an operator's attention and is worth remembering across runs — a
//! scan that differs at the head now (`forked`), a scan that served a past update differently
//! (`diverged history`), a scan that is down, one of my node's alert rules firing, a vote that
//! needs my vote. One [`FindingsBook`] per network, kept under the data directory (by
//! `network::findings`), so the explorer, `network health`, `check` and the index read the same
//! findings; each names what it is about, the update and JSON path where there is one, how and
//! when it was found and when it cleared.
//!
//! ```text
//! head check / b / sweep / index ─► [FindingOp] ─► FindingsBook::apply ─► open / cleared findings
//!                                                                      └► the findings log
//! ```
//!
//! A finding that clears and comes back within [`FLAP_WINDOW_US`] is the same finding opened
//! again (a flapping scan is one finding, not one per flap). Acknowledging a finding keeps it
//! listed but quiet until a time: it stops ringing and stops counting in `check`.

use serde::{Deserialize, Serialize};

/// The schema name of the kept file.
pub const SCHEMA: &str = "cantonscope.findings/1";

/// A finding cleared less than this long ago (µs) that comes back is the same finding again.
pub const FLAP_WINDOW_US: i64 = 30 * 60 * 1_000_000;

/// Cleared findings older than this (µs) leave the log.
pub const KEEP_CLEARED_US: i64 = 14 * 24 * 3600 * 1_000_000;

/// At most this many findings are kept (the oldest cleared ones leave first).
pub const MAX_KEPT: usize = 2000;

/// How the explorer announces a new finding (profile key `notify`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NotifyMode {
    /// The terminal bell, once a finding.
    #[default]
    Bell,
    /// A desktop notification (OSC 777 and OSC 9) and the bell.
    Osc,
    /// Nothing.
    Off,
}

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// The scan differs from the others at the head now (cleared by a newer head check that
    /// agrees).
    Forked,
    /// The scan served a past update differently (kept until that update, or a range holding
    /// it, is checked again and agrees).
    DivergedHistory,
    /// The scan cannot be reached.
    ScanDown,
    /// One of my node's alert rules fires.
    NodeAlert,
    /// A vote request needs my vote.
    VoteNeeded,
}

impl FindingKind {
    /// As written in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::Forked => "forked",
            FindingKind::DivergedHistory => "diverged_history",
            FindingKind::ScanDown => "scan_down",
            FindingKind::NodeAlert => "node_alert",
            FindingKind::VoteNeeded => "vote_needed",
        }
    }

    /// In words, for the screen.
    pub fn words(self) -> &'static str {
        match self {
            FindingKind::Forked => "forked",
            FindingKind::DivergedHistory => "diverged history",
            FindingKind::ScanDown => "down",
            FindingKind::NodeAlert => "alert",
            FindingKind::VoteNeeded => "vote needed",
        }
    }

    /// Whether the finding makes its scan not healthy.
    pub fn is_fork(self) -> bool {
        matches!(self, FindingKind::Forked | FindingKind::DivergedHistory)
    }
}

/// How a finding was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FoundBy {
    /// The head check of a health measurement (explorer, `network health`, `check`).
    HeadCheck,
    /// The consensus check of one update (`b`, `network check-update`).
    UpdateCheck,
    /// A history sweep (`S`, `network sweep`).
    Sweep,
    /// `index sync`.
    IndexSync,
    /// `index verify`.
    IndexVerify,
    /// A health measurement.
    Health,
    /// My node's alert rules.
    Rules,
    /// The scan's vote requests.
    Governance,
}

impl FoundBy {
    /// As written in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            FoundBy::HeadCheck => "head check",
            FoundBy::UpdateCheck => "update check",
            FoundBy::Sweep => "sweep",
            FoundBy::IndexSync => "index sync",
            FoundBy::IndexVerify => "index verify",
            FoundBy::Health => "health",
            FoundBy::Rules => "alert rules",
            FoundBy::Governance => "governance",
        }
    }
}

/// One finding, open or cleared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FindingKind,
    /// What it is about: a scan's URL (never with credentials), a rule's id, a vote request's
    /// contract id.
    pub subject: String,
    /// The subject as shown: the SV's name, the rule's title.
    pub name: String,
    /// The update it was found at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_id: Option<String>,
    /// That update's record time (µs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_time: Option<i64>,
    /// One JSON path where it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub found_by: FoundBy,
    /// One line: what was seen (terminal-safe when shown: it may quote a server).
    pub detail: String,
    /// When it was first found, last seen (µs since the epoch).
    pub first_seen: i64,
    pub last_seen: i64,
    /// When it cleared (µs); `None` while open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleared_at: Option<i64>,
    /// Acknowledged until (µs): listed, but quiet and not counted until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acked_until: Option<i64>,
    /// How often it opened (1, more when it flapped).
    #[serde(default = "one")]
    pub opened: u32,
}

fn one() -> u32 {
    1
}

impl Finding {
    /// Whether it is open.
    pub fn is_open(&self) -> bool {
        self.cleared_at.is_none()
    }

    /// Whether it is acknowledged at `now`.
    pub fn is_acked(&self, now: i64) -> bool {
        self.acked_until.is_some_and(|t| t > now)
    }

    /// Open and not acknowledged at `now`: it rings and counts.
    pub fn needs_attention(&self, now: i64) -> bool {
        self.is_open() && !self.is_acked(now)
    }

    /// Its key: two findings with one key are one finding.
    pub fn key(&self) -> FindingKey {
        FindingKey {
            kind: self.kind,
            subject: self.subject.clone(),
            update_id: if self.kind == FindingKind::DivergedHistory {
                self.update_id.clone()
            } else {
                None
            },
        }
    }

    /// A short id for the screen and `check --ack`: the kind and a hash of the key.
    pub fn id(&self) -> String {
        self.key().id()
    }
}

/// What makes a finding the same finding: its kind, its subject and (for a diverged history)
/// its update.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FindingKey {
    pub kind: FindingKind,
    pub subject: String,
    pub update_id: Option<String>,
}

impl FindingKey {
    /// `forked-3f2a91c0`: the kind and eight hex digits of an FNV-1a hash of the key (stable
    /// across versions and platforms).
    pub fn id(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let text = format!(
            "{}\u{1f}{}\u{1f}{}",
            self.kind.name(),
            self.subject,
            self.update_id.as_deref().unwrap_or("")
        );
        for b in text.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{}-{:08x}", self.kind.name().replace('_', "-"), h >> 32)
    }
}

/// One change to the book.
#[derive(Debug, Clone, PartialEq)]
pub enum FindingOp {
    /// Open (or see again) a finding; its times are set by [`FindingsBook::apply`].
    Open(Box<Finding>),
    /// Clear the open findings of `kind` about `subject` (with `update_id`: only that update's,
    /// for a diverged history).
    Clear {
        kind: FindingKind,
        subject: String,
        update_id: Option<String>,
        detail: String,
    },
    /// Acknowledge the finding with this id until a time (µs); `None` takes it back.
    Ack { id: String, until: Option<i64> },
}

impl FindingOp {
    /// Opens a finding about `subject` (`name` as shown), found by `found_by`.
    pub fn open(
        kind: FindingKind,
        (subject, name): (&str, &str),
        found_by: FoundBy,
        detail: impl Into<String>,
    ) -> FindingOp {
        FindingOp::Open(Box::new(Finding {
            kind,
            subject: subject.to_owned(),
            name: name.to_owned(),
            update_id: None,
            record_time: None,
            path: None,
            found_by,
            detail: detail.into(),
            first_seen: 0,
            last_seen: 0,
            cleared_at: None,
            acked_until: None,
            opened: 1,
        }))
    }

    /// [`FindingOp::open`] at an update (its id, record time and one JSON path).
    pub fn open_at(
        kind: FindingKind,
        (subject, name): (&str, &str),
        found_by: FoundBy,
        detail: impl Into<String>,
        (update_id, record_time, path): (&str, Option<i64>, Option<&str>),
    ) -> FindingOp {
        let mut op = FindingOp::open(kind, (subject, name), found_by, detail);
        if let FindingOp::Open(f) = &mut op {
            f.update_id = Some(update_id.to_owned());
            f.record_time = record_time;
            f.path = path.map(str::to_owned);
        }
        op
    }

    /// Clears the open findings of `kind` about `subject`.
    pub fn clear(kind: FindingKind, subject: &str, detail: impl Into<String>) -> FindingOp {
        FindingOp::Clear {
            kind,
            subject: subject.to_owned(),
            update_id: None,
            detail: detail.into(),
        }
    }
}

/// What [`FindingsBook::apply`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    /// Findings that opened anew (not seen again, not a flap coming back): the ones worth a
    /// bell, by id.
    pub opened: Vec<String>,
    /// Findings that came back within the flap window (no bell: one finding).
    pub reopened: Vec<String>,
    /// Findings that cleared, by id.
    pub cleared: Vec<String>,
    /// Whether anything changed.
    pub changed: bool,
}

/// Every finding of one network, open and cleared (the log).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingsBook {
    pub schema: String,
    pub findings: Vec<Finding>,
}

impl Default for FindingsBook {
    fn default() -> Self {
        FindingsBook {
            schema: SCHEMA.to_owned(),
            findings: Vec::new(),
        }
    }
}

impl FindingsBook {
    /// Reads a kept book (`None` when the text is not one of ours).
    pub fn from_json(text: &str) -> Option<FindingsBook> {
        let book: FindingsBook = serde_json::from_str(text).ok()?;
        (book.schema == SCHEMA).then_some(book)
    }

    /// The file text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The open findings.
    pub fn open(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.is_open())
    }

    /// The open findings that are not acknowledged at `now`.
    pub fn needing_attention(&self, now: i64) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.needs_attention(now))
    }

    /// The open findings of `kind` about the scan at `url` (URLs compared as
    /// `model::network::same_url` does).
    pub fn open_about<'a>(
        &'a self,
        kind: FindingKind,
        url: &'a str,
    ) -> impl Iterator<Item = &'a Finding> + 'a {
        self.open()
            .filter(move |f| f.kind == kind && super::network::same_url(&f.subject, url))
    }

    /// The finding with this id.
    pub fn by_id(&self, id: &str) -> Option<&Finding> {
        self.findings.iter().find(|f| f.id() == id)
    }

    /// Applies `ops` at `now` (µs), then drops what is too old to keep.
    pub fn apply(&mut self, ops: &[FindingOp], now: i64) -> Applied {
        let mut applied = Applied::default();
        for op in ops {
            match op {
                FindingOp::Open(new) => self.open_one(new, now, &mut applied),
                FindingOp::Clear {
                    kind,
                    subject,
                    update_id,
                    detail,
                } => {
                    for f in &mut self.findings {
                        if f.is_open()
                            && f.kind == *kind
                            && super::network::same_url(&f.subject, subject)
                            && (update_id.is_none() || f.update_id == *update_id)
                        {
                            f.cleared_at = Some(now);
                            if !detail.is_empty() {
                                f.detail = format!("{} — cleared: {detail}", f.detail);
                            }
                            applied.cleared.push(f.id());
                            applied.changed = true;
                        }
                    }
                }
                FindingOp::Ack { id, until } => {
                    for f in &mut self.findings {
                        if f.id() == *id && f.acked_until != *until {
                            f.acked_until = *until;
                            applied.changed = true;
                        }
                    }
                }
            }
        }
        applied.changed |= self.prune(now);
        applied
    }

    fn open_one(&mut self, new: &Finding, now: i64, applied: &mut Applied) {
        let key = new.key();
        if let Some(f) = self
            .findings
            .iter_mut()
            .find(|f| f.is_open() && same_key(&f.key(), &key))
        {
            f.last_seen = now;
            f.detail.clone_from(&new.detail);
            // Where it differs now (a diverged history keeps its update: it is its key).
            if new.update_id.is_some() {
                f.update_id.clone_from(&new.update_id);
                f.record_time = new.record_time;
            }
            if new.path.is_some() {
                f.path.clone_from(&new.path);
            }
            applied.changed = true;
            return;
        }
        // The newest cleared one of the same key, when it cleared within the flap window.
        let back = self
            .findings
            .iter_mut()
            .filter(|f| same_key(&f.key(), &key))
            .filter(|f| f.cleared_at.is_some_and(|c| now - c < FLAP_WINDOW_US))
            .max_by_key(|f| f.cleared_at);
        if let Some(f) = back {
            f.cleared_at = None;
            f.last_seen = now;
            f.opened = f.opened.saturating_add(1);
            f.detail.clone_from(&new.detail);
            applied.reopened.push(f.id());
            applied.changed = true;
            return;
        }
        let mut f = new.clone();
        f.first_seen = now;
        f.last_seen = now;
        f.cleared_at = None;
        f.opened = 1;
        applied.opened.push(f.id());
        self.findings.push(f);
        applied.changed = true;
    }

    /// Drops cleared findings older than [`KEEP_CLEARED_US`], and the oldest cleared ones past
    /// [`MAX_KEPT`]; whether any went.
    fn prune(&mut self, now: i64) -> bool {
        let before = self.findings.len();
        self.findings
            .retain(|f| f.cleared_at.is_none_or(|c| now - c < KEEP_CLEARED_US));
        if self.findings.len() > MAX_KEPT {
            let mut cleared: Vec<(i64, usize)> = self
                .findings
                .iter()
                .enumerate()
                .filter_map(|(i, f)| f.cleared_at.map(|c| (c, i)))
                .collect();
            cleared.sort_unstable();
            let excess = self.findings.len() - MAX_KEPT;
            let mut drop: Vec<usize> = cleared.iter().take(excess).map(|(_, i)| *i).collect();
            drop.sort_unstable();
            for i in drop.into_iter().rev() {
                self.findings.remove(i);
            }
        }
        self.findings.len() != before
    }

    /// The ids of the findings that need attention at `now`.
    pub fn attention_ids(&self, now: i64) -> Vec<String> {
        self.needing_attention(now).map(Finding::id).collect()
    }
}

/// Keys match when kind and update match and the subjects name the same scan (user info aside).
fn same_key(a: &FindingKey, b: &FindingKey) -> bool {
    a.kind == b.kind
        && a.update_id == b.update_id
        && super::network::same_url(&a.subject, &b.subject)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: i64 = 60_000_000;

    fn fork(url: &str) -> FindingOp {
        FindingOp::open_at(
            FindingKind::Forked,
            (url, "Scan-5"),
            FoundBy::HeadCheck,
            "differs at the head",
            ("1220ab", Some(5), Some("$.workflow_id")),
        )
    }

    #[test]
    fn a_finding_opens_once_and_is_seen_again_while_open() {
        let mut book = FindingsBook::default();
        let a = book.apply(&[fork("http://s5")], MIN);
        assert_eq!(a.opened.len(), 1);
        let b = book.apply(&[fork("http://s5/")], 2 * MIN);
        assert!(b.opened.is_empty() && b.reopened.is_empty());
        assert_eq!(book.findings.len(), 1);
        let f = &book.findings[0];
        assert_eq!((f.first_seen, f.last_seen), (MIN, 2 * MIN));
        assert_eq!(f.path.as_deref(), Some("$.workflow_id"));
    }

    #[test]
    fn a_flapping_finding_is_one_finding_and_rings_once() {
        let mut book = FindingsBook::default();
        book.apply(&[fork("http://s5")], MIN);
        let c = book.apply(
            &[FindingOp::clear(FindingKind::Forked, "http://s5", "agrees")],
            2 * MIN,
        );
        assert_eq!(c.cleared.len(), 1);
        let again = book.apply(&[fork("http://s5")], 3 * MIN);
        assert!(again.opened.is_empty());
        assert_eq!(again.reopened.len(), 1);
        assert_eq!(book.findings.len(), 1);
        assert_eq!(book.findings[0].opened, 2);
        // Back after the flap window: a new finding, worth a bell.
        book.apply(
            &[FindingOp::clear(FindingKind::Forked, "http://s5", "")],
            4 * MIN,
        );
        let later = book.apply(&[fork("http://s5")], 4 * MIN + FLAP_WINDOW_US + 1);
        assert_eq!(later.opened.len(), 1);
        assert_eq!(book.findings.len(), 2);
    }

    #[test]
    fn diverged_history_is_one_finding_per_update_and_clears_per_update() {
        let mut book = FindingsBook::default();
        let at = |u: &str| {
            FindingOp::open_at(
                FindingKind::DivergedHistory,
                ("http://s5", "Scan-5"),
                FoundBy::Sweep,
                "differs",
                (u, None, Some("$.x")),
            )
        };
        book.apply(&[at("u1"), at("u2")], MIN);
        assert_eq!(book.open().count(), 2);
        book.apply(
            &[FindingOp::Clear {
                kind: FindingKind::DivergedHistory,
                subject: "http://s5".into(),
                update_id: Some("u1".into()),
                detail: "re-checked".into(),
            }],
            2 * MIN,
        );
        let open: Vec<_> = book.open().map(|f| f.update_id.clone()).collect();
        assert_eq!(open, vec![Some("u2".to_owned())]);
    }

    #[test]
    fn an_acknowledged_finding_stays_listed_but_needs_no_attention_until_then() {
        let mut book = FindingsBook::default();
        book.apply(&[fork("http://s5")], MIN);
        let id = book.findings[0].id();
        assert!(id.starts_with("forked-"));
        book.apply(
            &[FindingOp::Ack {
                id: id.clone(),
                until: Some(10 * MIN),
            }],
            MIN,
        );
        assert_eq!(book.open().count(), 1);
        assert_eq!(book.needing_attention(5 * MIN).count(), 0);
        assert_eq!(book.needing_attention(11 * MIN).count(), 1);
    }

    #[test]
    fn old_cleared_findings_leave_the_log_and_the_file_reads_back() {
        let mut book = FindingsBook::default();
        book.apply(&[fork("http://s5")], MIN);
        book.apply(
            &[FindingOp::clear(FindingKind::Forked, "http://s5", "")],
            2 * MIN,
        );
        let back = FindingsBook::from_json(&book.to_json()).expect("reads back");
        assert_eq!(back, book);
        assert!(FindingsBook::from_json("{\"schema\":\"other\",\"findings\":[]}").is_none());
        book.apply(&[], 2 * MIN + KEEP_CLEARED_US);
        assert!(book.findings.is_empty());
    }
}
