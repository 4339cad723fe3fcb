//! `is:` terms: updates of a kind History's one-line summary names (`is:transfer`,
//! `is:vote`, `is:reward`), so nobody has to learn a choice's name (`AmuletRules_Transfer`)
//! to find them. Each name stands for the choices whose exercise makes that summary; an update
//! is one when it exercises any of them, anywhere in its tree. The same in the History filter,
//! the whole-index search and `index search`.

use super::summary_telling::TellingKind;

/// Names that stand for several kinds.
const GROUPS: &[(&str, &[TellingKind])] = &[(
    // Every update that earns a reward coupon.
    "reward",
    &[
        TellingKind::SvRewardCoupon,
        TellingKind::FaucetCoupon,
        TellingKind::Liveness,
        TellingKind::ActivityMarker,
    ],
)];

/// Every name `is:` takes, in the order messages list them.
pub fn names() -> Vec<&'static str> {
    TellingKind::ALL
        .iter()
        .map(|k| k.name())
        .chain(GROUPS.iter().map(|(name, _)| *name))
        .collect()
}

/// The choices `is:NAME` stands for (the name in any case), or a message listing the names.
pub fn choices(name: &str) -> Result<Vec<&'static str>, String> {
    let lower = name.to_ascii_lowercase();
    let kinds: Vec<TellingKind> = match TellingKind::ALL.iter().find(|k| k.name() == lower) {
        Some(kind) => vec![*kind],
        None => match GROUPS.iter().find(|(group, _)| *group == lower) {
            Some((_, kinds)) => kinds.to_vec(),
            None => {
                return Err(format!(
                    "unknown is:{name}: is: takes one of {}",
                    names().join(", ")
                ));
            }
        },
    };
    Ok(kinds.iter().flat_map(|k| k.choices()).copied().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_stands_for_its_choices_and_an_unknown_one_lists_them_all() {
        assert_eq!(choices("transfer"), Ok(vec!["AmuletRules_Transfer"]));
        assert_eq!(choices("Transfer"), Ok(vec!["AmuletRules_Transfer"]));
        assert_eq!(
            choices("vote"),
            Ok(vec!["DsoRules_CastVote", "VoteRequest_CastVote"])
        );
        let reward = choices("reward").expect("reward");
        assert!(
            reward.contains(&"DsoRules_ReceiveSvRewardCoupon"),
            "{reward:?}"
        );
        assert!(reward.contains(&"ValidatorLicense_ReceiveFaucetCoupon"));
        let e = choices("colour").expect_err("unknown");
        assert!(e.contains("is:colour"), "{e}");
        for name in names() {
            assert!(e.contains(name), "{e} names {name}");
            assert!(choices(name).is_ok_and(|c| !c.is_empty()), "{name}");
        }
    }
}
