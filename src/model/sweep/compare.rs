//! One compared position's items: the scans grouped by item hash (the reference side first)
//! and each side described against the reference.

use serde_json::Value;

use super::item_info;
use super::{ItemGroup, PageAnswer};
use crate::model::consensus::{LocalFields, MAX_DIFFERENCES, json_diff};

/// The scans with one item at a position, the reference first.
pub(super) struct Grouped {
    pub(super) members: Vec<usize>,
    pub(super) is_quorum: bool,
}

/// The text of scan `scan`'s item at `index`.
pub(super) fn item_of(answers: &[PageAnswer], scan: usize, index: usize) -> Option<&[u8]> {
    match answers.get(scan)? {
        PageAnswer::Page { digest, body } => body.get(digest.items.get(index)?.span.clone()),
        PageAnswer::Failed { .. } => None,
    }
}

/// The scans of `at` grouped by item hash, the reference first: the most counted members, then
/// the most members, then the lowest scan.
pub(super) fn group_by_hash(at: &[(usize, u64)], counted: &[bool], quorum: usize) -> Vec<Grouped> {
    let mut by_hash: Vec<(u64, Vec<usize>)> = Vec::new();
    for (scan, hash) in at {
        match by_hash.iter_mut().find(|(h, _)| h == hash) {
            Some((_, members)) => members.push(*scan),
            None => by_hash.push((*hash, vec![*scan])),
        }
    }
    let counted_in = |members: &[usize]| {
        members
            .iter()
            .filter(|m| counted.get(**m).copied().unwrap_or(false))
            .count()
    };
    by_hash.sort_by(|a, b| {
        counted_in(&b.1)
            .cmp(&counted_in(&a.1))
            .then(b.1.len().cmp(&a.1.len()))
            .then(a.1[0].cmp(&b.1[0]))
    });
    by_hash
        .into_iter()
        .map(|(_, members)| Grouped {
            is_quorum: counted_in(&members) >= quorum,
            members,
        })
        .collect()
}

/// The sides of the differing update at `index`, with where each differs from the reference.
pub(super) fn describe(
    answers: &[PageAnswer],
    index: usize,
    grouped: &[Grouped],
) -> Vec<ItemGroup> {
    let value_of = |scan: usize| -> Option<Value> {
        let mut value: Value = serde_json::from_slice(item_of(answers, scan, index)?).ok()?;
        LocalFields::UPDATE.strip(&mut value);
        Some(value)
    };
    let reference = grouped.first().and_then(|g| value_of(g.members[0]));
    grouped
        .iter()
        .enumerate()
        .map(|(rank, g)| {
            let info = item_of(answers, g.members[0], index).and_then(item_info);
            let (differences, truncated) = match (&reference, rank) {
                (Some(reference), r) if r > 0 => value_of(g.members[0])
                    .map(|v| json_diff(reference, &v, MAX_DIFFERENCES))
                    .unwrap_or_default(),
                _ => (Vec::new(), false),
            };
            ItemGroup {
                members: g.members.clone(),
                is_quorum: g.is_quorum,
                update_id: info.as_ref().map(|i| i.update_id.clone()),
                record_time: info.map(|i| i.record_time),
                differences,
                truncated,
            }
        })
        .collect()
}
