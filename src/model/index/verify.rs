//! When a page of `/v2/updates` counts as verified, pure. Every scan asked the same page (the
//! same `after` cursor) answers its items; position `i` of every answer is the same update of
//! the history. An item is confirmed when `needed` scans have it with the same digest and no
//! scan has another version; when versions differ, one version is kept only when at least
//! `threshold` (f + 1, and at least `needed`) scans have it and more than have any other
//! ("the odd scans" are the rest; the version is kept by every scan asked that has it, all of
//! them named); otherwise the history is disputed at that item. A scan whose
//! page is shorter (a lagging scan at the head) has nothing at the later positions: it neither
//! confirms nor disputes them ("don't know").

use super::Digest;

/// One scan's answer: its index and the digests of its page's items, in page order.
#[derive(Debug, Clone, Copy)]
pub struct Answered<'a> {
    pub scan: usize,
    pub digests: &'a [Digest],
}

/// Why the confirmed prefix ends where it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// Every position up to the limit is confirmed.
    End,
    /// Fewer than `needed` scans have the next item (and none has another version).
    Unknown { have: usize },
    /// The next item has versions of which none is kept: (digest, scans) per version, largest
    /// first.
    Disputed { groups: Vec<(Digest, Vec<usize>)> },
    /// The next item's kept version is not the body scan's: `scan` has it.
    OtherVersion { scan: usize },
}

/// The verdict on a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    /// Positions `0..confirmed` are confirmed, as the body scan has them.
    pub confirmed: usize,
    pub body_scan: usize,
    pub stop: Stop,
    /// Scans that have every confirmed item in its kept version.
    pub confirmers: Vec<usize>,
    /// (position, scan) of each confirmed item a scan has in another version.
    pub odd: Vec<(usize, usize)>,
    /// (position, scans) of each confirmed item some scan has in another version: every scan
    /// asked that has it in the kept version (at least `threshold` of them).
    pub kept_by: Vec<(usize, Vec<usize>)>,
}

/// Judges the answers up to position `limit` (exclusive), with the items of `body_scan` (which
/// must be among the answers) as the ones kept.
pub fn judge(
    answers: &[Answered<'_>],
    body_scan: usize,
    needed: usize,
    threshold: usize,
    limit: usize,
) -> Judged {
    let threshold = threshold.max(needed);
    let body = answers.iter().find(|a| a.scan == body_scan);
    let body_len = body.map_or(0, |b| b.digests.len());
    let limit = limit.min(body_len);
    let mut confirmers: Vec<usize> = answers.iter().map(|a| a.scan).collect();
    let mut odd = Vec::new();
    let mut kept_by = Vec::new();
    let judged = |confirmed: usize, stop: Stop, confirmers: Vec<usize>, odd, kept_by| Judged {
        confirmed,
        body_scan,
        stop,
        confirmers,
        odd,
        kept_by,
    };
    let Some(body) = body else {
        return judged(0, Stop::Unknown { have: 0 }, Vec::new(), odd, kept_by);
    };
    for i in 0..limit {
        let mine = body.digests[i];
        let mut groups: Vec<(Digest, Vec<usize>)> = Vec::new();
        for a in answers {
            if let Some(d) = a.digests.get(i) {
                match groups.iter_mut().find(|(g, _)| g == d) {
                    Some((_, members)) => members.push(a.scan),
                    None => groups.push((*d, vec![a.scan])),
                }
            }
        }
        groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.1[0].cmp(&b.1[0])));
        let have = groups.iter().map(|g| g.1.len()).sum::<usize>();
        if groups.len() == 1 {
            if have < needed {
                return judged(i, Stop::Unknown { have }, confirmers, odd, kept_by);
            }
        } else {
            let top = groups[0].1.len();
            let kept = top >= threshold && groups[1].1.len() < top;
            if !kept {
                return judged(i, Stop::Disputed { groups }, confirmers, odd, kept_by);
            }
            if groups[0].0 != mine {
                let scan = groups[0].1[0];
                return judged(i, Stop::OtherVersion { scan }, confirmers, odd, kept_by);
            }
            for (_, members) in &groups[1..] {
                for scan in members {
                    odd.push((i, *scan));
                }
            }
            kept_by.push((i, groups[0].1.clone()));
        }
        let members = &groups[0].1;
        confirmers.retain(|s| members.contains(s));
    }
    judged(limit, Stop::End, confirmers, odd, kept_by)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(x: u8) -> Digest {
        [x; 32]
    }

    fn answered(scan: usize, digests: &[Digest]) -> Answered<'_> {
        Answered { scan, digests }
    }

    #[test]
    fn agreeing_scans_confirm_and_a_short_page_does_not_dispute() {
        let a = [d(1), d(2), d(3)];
        let b = [d(1), d(2)];
        let answers = [answered(0, &a), answered(1, &b)];
        let j = judge(&answers, 0, 2, 1, 3);
        assert_eq!(j.confirmed, 2);
        assert_eq!(j.stop, Stop::Unknown { have: 1 });
        assert_eq!(j.confirmers, vec![0, 1]);
        // Verify 1: everything the body scan has.
        let j = judge(&answers[..1], 0, 1, 1, 3);
        assert_eq!((j.confirmed, j.stop), (3, Stop::End));
    }

    #[test]
    fn a_difference_is_kept_by_a_quorum_or_disputed() {
        let good = [d(1), d(2)];
        let bad = [d(1), d(9)];
        let two = [answered(0, &good), answered(1, &bad)];
        let j = judge(&two, 0, 2, 1, 2);
        assert_eq!(j.confirmed, 1);
        assert!(matches!(j.stop, Stop::Disputed { ref groups } if groups.len() == 2));
        let mut four = two.to_vec();
        four.push(answered(2, &good));
        four.push(answered(3, &good));
        let j = judge(&four, 0, 2, 2, 2);
        assert_eq!((j.confirmed, j.stop.clone()), (2, Stop::End));
        assert_eq!(j.odd, vec![(1, 1)]);
        assert_eq!(j.confirmers, vec![0, 2, 3]);
        assert_eq!(j.kept_by, vec![(1, vec![0, 2, 3])]);
        // The body scan is the odd one: another scan's version is kept.
        let j = judge(&four, 1, 2, 2, 2);
        assert_eq!((j.confirmed, j.stop), (1, Stop::OtherVersion { scan: 0 }));
    }

    #[test]
    fn a_kept_version_names_every_scan_that_has_it_though_some_lag_after_it() {
        // Seven scans, f = 2: scan 1 differs at position 0; scans 4..6 lag (they have only
        // position 0). The page's confirmers are those with every item; the version kept at
        // position 0 is held by six.
        let full = [d(1), d(2), d(3)];
        let odd = [d(9), d(2), d(3)];
        let short = [d(1)];
        let answers = [
            answered(0, &full),
            answered(1, &odd),
            answered(2, &full),
            answered(3, &full),
            answered(4, &short),
            answered(5, &short),
            answered(6, &short),
        ];
        let j = judge(&answers, 0, 2, 3, 3);
        assert_eq!((j.confirmed, j.stop), (3, Stop::End));
        assert_eq!(j.confirmers, vec![0, 2, 3]);
        assert_eq!(j.odd, vec![(0, 1)]);
        assert_eq!(j.kept_by, vec![(0, vec![0, 2, 3, 4, 5, 6])]);
    }
}
