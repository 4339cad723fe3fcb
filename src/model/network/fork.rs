//! The head check, pure: is a scan forked *now*? Every scan is asked one `/v2/updates` page
//! from the same `after` cursor, a little before the oldest head of the newest migration, so
//! every page holds updates all scans have. The pages are compared **update by update** over
//! the positions both hold; a scan whose page is shorter is lagging there, never forked. At a
//! position, the answer most counted scans agree on (more than any other answer) is the
//! reference; a scan with another answer is forked at that update (its id and one JSON path
//! where it differs). A scan compared at one position or more and never different agrees,
//! which clears an earlier fork.

use serde_json::Value;

use super::{HistoryHead, ScanEntry};
use crate::model::consensus::json_diff;
use crate::model::findings::{FindingKind, FindingOp, FoundBy};
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::sweep::{Cursor, PageAnswer, item_info};

/// Updates asked of each scan by one page of the head check.
pub const HEAD_CHECK_PAGE: usize = 50;

/// At most this many pages a head check (a busy network: 50 updates may end before the
/// oldest head).
pub const HEAD_CHECK_MAX_PAGES: usize = 2;

/// How far before the oldest head (of the newest migration) the head check starts (µs).
pub const HEAD_CHECK_BACK_US: i64 = 10_000_000;

/// What the head check says of one scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeadVerdict {
    /// Compared at `compared` updates, the same at every one.
    Agrees { compared: usize },
    /// Differs at this update.
    Forked {
        update_id: String,
        record_time: Option<i64>,
        /// One JSON path where it differs from the reference.
        path: Option<String>,
        compared: usize,
    },
    /// Nothing compared: no page, an empty or short page, or no reference to compare with.
    NotCompared(String),
}

/// The head check of every scan: where it started and what it says of each (in scan order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadCheck {
    pub after: Cursor,
    pub scans: Vec<HeadVerdict>,
}

impl HeadCheck {
    /// The findings it makes: a forked scan opens `forked`, a scan that agrees clears it.
    /// `entries` are the scans (URLs without credentials), in the check's order.
    pub fn ops(&self, entries: &[ScanEntry]) -> Vec<FindingOp> {
        let mut ops = Vec::new();
        for (entry, verdict) in entries.iter().zip(&self.scans) {
            match verdict {
                HeadVerdict::Agrees { compared } => ops.push(FindingOp::clear(
                    FindingKind::Forked,
                    &entry.url,
                    format!("the head check agreed at {compared} updates"),
                )),
                HeadVerdict::Forked {
                    update_id,
                    record_time,
                    path,
                    compared,
                } => ops.push(FindingOp::open_at(
                    FindingKind::Forked,
                    (&entry.url, &entry.sv_name),
                    FoundBy::HeadCheck,
                    format!(
                        "differs from the other scans at the head (update {} of {compared} compared{})",
                        short(update_id),
                        path.as_deref()
                            .map(|p| format!(", at {p}"))
                            .unwrap_or_default()
                    ),
                    (update_id, *record_time, path.as_deref()),
                )),
                HeadVerdict::NotCompared(_) => {}
            }
        }
        ops
    }
}

fn short(id: &str) -> String {
    let cut: String = id.chars().take(12).collect();
    if cut.len() < id.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// The findings of one update's consensus check (`b`, `network check-update`): a scan whose
/// answer differs from the consensus has a diverged history at that update (one JSON path
/// where it differs; a 404 while its history reaches past the update counts too); a scan that
/// agrees clears its diverged history at that update. No consensus: no finding.
pub fn update_check_ops(
    entries: &[ScanEntry],
    update_id: &str,
    check: &crate::model::consensus::UpdateCheck,
) -> Vec<FindingOp> {
    use crate::model::consensus::ScanClass;
    let record_time = check.position.map(|p| p.record_time);
    let mut ops = Vec::new();
    for (entry, class) in entries.iter().zip(&check.classes) {
        match class {
            ScanClass::Agree => ops.push(FindingOp::Clear {
                kind: FindingKind::DivergedHistory,
                subject: entry.url.clone(),
                update_id: Some(update_id.to_owned()),
                detail: "the update was checked again and agrees".to_owned(),
            }),
            ScanClass::Disagree {
                status,
                differences,
                ..
            } => {
                let path = differences.first().map(|d| d.path.as_str());
                let detail = if *status == 200 {
                    format!(
                        "serves update {} differently from the consensus{}",
                        short(update_id),
                        path.map(|p| format!(" (at {p})")).unwrap_or_default()
                    )
                } else {
                    format!(
                        "answers HTTP {status} for update {} that the consensus has",
                        short(update_id)
                    )
                };
                ops.push(FindingOp::open_at(
                    FindingKind::DivergedHistory,
                    (&entry.url, &entry.sv_name),
                    FoundBy::UpdateCheck,
                    detail,
                    (update_id, record_time, path),
                ));
            }
            _ => {}
        }
    }
    ops
}

/// Where the head check of these heads starts: after the newest migration and a little
/// ([`HEAD_CHECK_BACK_US`]) before the oldest head on it; `None` without a head.
pub fn head_check_cursor(heads: &[Option<&HistoryHead>]) -> Option<Cursor> {
    let migration = heads.iter().flatten().map(|h| h.migration_id).max()?;
    let oldest = heads
        .iter()
        .flatten()
        .filter(|h| h.migration_id == migration)
        .map(|h| h.record_time)
        .min()?;
    Some(Cursor {
        migration_id: migration,
        record_time: format_time_micros(oldest - HEAD_CHECK_BACK_US),
    })
}

/// Judges one page per scan asked from `after` (see the module doc). `counted[i]`: whether
/// scan `i` counts (an uncounted scan is judged but does not make the reference).
pub fn judge_head_check(after: Cursor, answers: &[PageAnswer], counted: &[bool]) -> HeadCheck {
    let pages: Vec<Option<(&crate::model::consensus::digest::PageDigest, &[u8])>> = answers
        .iter()
        .map(|a| match a {
            PageAnswer::Page { digest, body } => Some((digest, body.as_slice())),
            PageAnswer::Failed { .. } => None,
        })
        .collect();
    let longest = pages
        .iter()
        .flatten()
        .map(|(d, _)| d.items.len())
        .max()
        .unwrap_or(0);
    let mut compared = vec![0usize; answers.len()];
    let mut forked: Vec<Option<HeadVerdict>> = vec![None; answers.len()];
    for pos in 0..longest {
        // The answers at this position, grouped by hash: (hash, members, counted members).
        let mut groups: Vec<(u64, Vec<usize>, usize)> = Vec::new();
        for (scan, page) in pages.iter().enumerate() {
            let Some((digest, _)) = page else { continue };
            let Some(item) = digest.items.get(pos) else {
                continue;
            };
            let is_counted = counted.get(scan).copied().unwrap_or(true);
            match groups.iter_mut().find(|g| g.0 == item.hash) {
                Some(g) => {
                    g.1.push(scan);
                    g.2 += usize::from(is_counted);
                }
                None => groups.push((item.hash, vec![scan], usize::from(is_counted))),
            }
        }
        groups.sort_by(|a, b| b.2.cmp(&a.2).then(b.1.len().cmp(&a.1.len())));
        let Some(reference) = groups.first() else {
            continue;
        };
        // Only one answer, or a tie: nothing to judge by at this position.
        if groups.len() > 1 && groups[1].2 == reference.2 {
            continue;
        }
        if reference.2 == 0 {
            continue;
        }
        let item_of = |scan: usize| -> Option<&[u8]> {
            let (digest, body) = pages[scan]?;
            let span = digest.items.get(pos)?.span.clone();
            body.get(span)
        };
        let reference_item = reference.1.first().and_then(|s| item_of(*s));
        for group in &groups {
            for &scan in &group.1 {
                compared[scan] += 1;
                if group.0 == reference.0 || forked[scan].is_some() {
                    continue;
                }
                let mine = item_of(scan);
                let info = mine.and_then(item_info);
                let path = match (reference_item, mine) {
                    (Some(r), Some(m)) => first_difference(r, m),
                    _ => None,
                };
                forked[scan] = Some(HeadVerdict::Forked {
                    update_id: info
                        .as_ref()
                        .map(|i| i.update_id.clone())
                        .filter(|u| !u.is_empty())
                        .unwrap_or_else(|| format!("position {}", pos + 1)),
                    record_time: info.and_then(|i| parse_time_micros(&i.record_time)),
                    path,
                    compared: 0,
                });
            }
        }
    }
    let scans = (0..answers.len())
        .map(|scan| match forked[scan].take() {
            Some(HeadVerdict::Forked {
                update_id,
                record_time,
                path,
                ..
            }) => HeadVerdict::Forked {
                update_id,
                record_time,
                path,
                compared: compared[scan],
            },
            _ if compared[scan] > 0 => HeadVerdict::Agrees {
                compared: compared[scan],
            },
            _ => HeadVerdict::NotCompared(match &answers[scan] {
                PageAnswer::Failed { message, .. } => message.clone(),
                PageAnswer::Page { digest, .. } if digest.items.is_empty() => {
                    "no update after the head check's start".to_owned()
                }
                PageAnswer::Page { .. } => "no other scan to compare with".to_owned(),
            }),
        })
        .collect();
    HeadCheck { after, scans }
}

/// The first JSON path where two items differ (`None` when they do not parse).
fn first_difference(reference: &[u8], other: &[u8]) -> Option<String> {
    let r: Value = serde_json::from_slice(reference).ok()?;
    let o: Value = serde_json::from_slice(other).ok()?;
    let (diffs, _) = json_diff(&r, &o, 1);
    diffs.into_iter().next().map(|d| d.path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::consensus::LocalFields;
    use crate::model::consensus::digest::Digester;

    fn page(items: &[(u32, &str)]) -> PageAnswer {
        let body = format!(
            "{{\"transactions\":[{}]}}",
            items
                .iter()
                .map(|(k, workflow)| format!(
                    r#"{{"update_id":"u{k}","migration_id":1,"record_time":"2026-01-01T00:00:{k:02}.000000Z","workflow_id":"{workflow}","events_by_id":{{}}}}"#
                ))
                .collect::<Vec<_>>()
                .join(",")
        );
        let digest = Digester::with_key(7)
            .page(body.as_bytes(), LocalFields::UPDATE)
            .expect("a page");
        PageAnswer::Page {
            digest,
            body: body.into_bytes(),
        }
    }

    fn after() -> Cursor {
        Cursor {
            migration_id: 1,
            record_time: "2026-01-01T00:00:00.000000Z".into(),
        }
    }

    #[test]
    fn a_shorter_page_is_lagging_never_forked() {
        let full = [(1, ""), (2, ""), (3, "")];
        let check = judge_head_check(
            after(),
            &[page(&full), page(&full), page(&full[..1]), page(&[])],
            &[true; 4],
        );
        assert_eq!(check.scans[0], HeadVerdict::Agrees { compared: 3 });
        assert_eq!(check.scans[2], HeadVerdict::Agrees { compared: 1 });
        assert!(matches!(check.scans[3], HeadVerdict::NotCompared(_)));
    }

    #[test]
    fn a_scan_that_differs_where_others_agree_is_forked_at_that_update() {
        let good = [(1, ""), (2, ""), (3, "")];
        let bad = [(1, ""), (2, "x"), (3, "x")];
        let check = judge_head_check(
            after(),
            &[page(&good), page(&good), page(&bad[..2]), page(&good[..1])],
            &[true; 4],
        );
        assert_eq!(
            check.scans[2],
            HeadVerdict::Forked {
                update_id: "u2".into(),
                record_time: parse_time_micros("2026-01-01T00:00:02.000000Z"),
                path: Some("$.workflow_id".into()),
                compared: 2,
            }
        );
        // Compared only where it has updates: the fourth is not forked.
        assert_eq!(check.scans[3], HeadVerdict::Agrees { compared: 1 });
        let entries: Vec<ScanEntry> = (1..=4)
            .map(|k| ScanEntry {
                sv_name: format!("SV-{k}"),
                url: format!("http://s{k}"),
                listed: true,
                pinned: false,
                own: false,
                counted: true,
            })
            .collect();
        let ops = check.ops(&entries);
        assert!(
            matches!(&ops[2], FindingOp::Open(f) if f.kind == FindingKind::Forked && f.update_id.as_deref() == Some("u2"))
        );
        assert!(matches!(
            &ops[0],
            FindingOp::Clear {
                kind: FindingKind::Forked,
                ..
            }
        ));
    }

    #[test]
    fn a_tie_names_no_one() {
        let a = [(1, "")];
        let b = [(1, "x")];
        let check = judge_head_check(after(), &[page(&a), page(&b)], &[true; 2]);
        assert!(
            check
                .scans
                .iter()
                .all(|s| matches!(s, HeadVerdict::NotCompared(_)))
        );
    }

    #[test]
    fn the_cursor_starts_before_the_oldest_head_of_the_newest_migration() {
        let h = |m: i64, t: i64| HistoryHead {
            migration_id: m,
            record_time: t,
            update_id: String::new(),
        };
        let (a, b, c) = (h(1, 500_000_000), h(2, 900_000_000), h(2, 800_000_000));
        let cursor = head_check_cursor(&[Some(&a), Some(&b), None, Some(&c)]).expect("a cursor");
        assert_eq!(cursor.migration_id, 2);
        assert_eq!(
            parse_time_micros(&cursor.record_time),
            Some(800_000_000 - HEAD_CHECK_BACK_US)
        );
        assert!(head_check_cursor(&[None]).is_none());
    }
}
