//! An update id as an operator gives it: whole, or as the screen draws it, abbreviated with `…`
//! (or `...`): `1220d17b…9f1e` (head and tail), `9237fcb34d82…` (a head, often without the
//! `1220` the lists leave out), or a bare run of hex digits (a head). One pure place decides what
//! is well formed and what an abbreviation matches; an abbreviation is never sent to a scan as
//! typed: it is matched among the loaded updates and in the local index first.

use super::format::UPDATE_ID_PREFIX;

/// Shortest head an abbreviation takes (shorter ones would match most of the history).
pub const MIN_HEAD: usize = 4;

/// An update id as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdPattern {
    /// A whole id (68 hex characters, lower case; 64 get the `1220` back).
    Whole(String),
    /// An abbreviation: the ids starting with `head` (with or without `1220`) and ending with
    /// `tail` (empty: any). Lower case.
    Part { head: String, tail: String },
}

fn is_hex(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_hexdigit())
}

impl IdPattern {
    /// Reads `text`, or says why it is no update id (hex digits, `1220` and 64 more; `…` or
    /// `...` marks an abbreviation).
    pub fn parse(text: &str) -> Result<IdPattern, String> {
        let text = text.trim();
        let shown = crate::api::sanitize_line(text, 300);
        let normal = text.replace("...", "…").to_ascii_lowercase();
        let malformed = || {
            Err(format!(
                "{shown:?} is not an update id (hex digits: {UPDATE_ID_PREFIX} and 64 more, or an abbreviation as the screen shows it, like 1220d17b…9f1e or 9237fcb34d82…)"
            ))
        };
        if normal.is_empty() {
            return Err("no update id given".into());
        }
        let (head, tail) = match normal.split_once('…') {
            Some((head, tail)) => (head, tail.trim_start_matches('…')),
            None => (normal.as_str(), ""),
        };
        if !is_hex(head) || !is_hex(tail) || (tail.contains('…')) {
            return malformed();
        }
        let marked = normal.contains('…');
        if !marked {
            match head.len() {
                68 => return Ok(IdPattern::Whole(head.to_owned())),
                64 => return Ok(IdPattern::Whole(format!("{UPDATE_ID_PREFIX}{head}"))),
                n if n > 68 => return malformed(),
                _ => {}
            }
        }
        if head.len() < MIN_HEAD {
            return Err(format!(
                "{shown:?} is too short an abbreviation of an update id: give at least {MIN_HEAD} hex digits before the …"
            ));
        }
        if head.len() + tail.len() > 68 {
            return malformed();
        }
        Ok(IdPattern::Part {
            head: head.to_owned(),
            tail: tail.to_owned(),
        })
    }

    /// Whether the update id `id` is the one given (an abbreviation: one of those it names).
    pub fn matches(&self, id: &str) -> bool {
        let id = id.to_ascii_lowercase();
        match self {
            IdPattern::Whole(whole) => *whole == id,
            IdPattern::Part { head, tail } => {
                let starts = id.starts_with(head.as_str())
                    || id
                        .strip_prefix(UPDATE_ID_PREFIX)
                        .is_some_and(|rest| rest.starts_with(head.as_str()));
                starts && id.ends_with(tail.as_str()) && id.len() >= head.len() + tail.len()
            }
        }
    }

    /// The whole id, when given whole.
    pub fn whole(&self) -> Option<&str> {
        match self {
            IdPattern::Whole(id) => Some(id),
            IdPattern::Part { .. } => None,
        }
    }

    /// The index search term that finds it (`id:HEAD…TAIL`: the index checks head and tail).
    pub fn search_term(&self) -> String {
        match self {
            IdPattern::Whole(id) => format!("id:{id}"),
            IdPattern::Part { head, tail } if tail.is_empty() => format!("id:{head}"),
            IdPattern::Part { head, tail } => format!("id:{head}…{tail}"),
        }
    }
}

/// An update id argument as given on the command line: a whole id (lower case, `1220` put
/// back), or a well-formed abbreviation kept as typed (completed later from the local index),
/// or why it is no update id (a usage error: no scan is asked).
pub fn update_id_arg(text: &str) -> Result<String, String> {
    match IdPattern::parse(text)? {
        IdPattern::Whole(id) => Ok(id),
        IdPattern::Part { .. } => Ok(text.trim().to_owned()),
    }
}

/// The ids of `ids` the pattern names, sorted, each once.
pub fn matching<'a>(pattern: &IdPattern, ids: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut found: Vec<String> = ids
        .into_iter()
        .filter(|id| pattern.matches(id))
        .map(str::to_owned)
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// What to say of an abbreviation naming several ids: how many, and a few of them.
pub fn ambiguous(text: &str, found: &[String]) -> String {
    let few: Vec<String> = found
        .iter()
        .take(3)
        .map(|id| match id.get(..16) {
            Some(head) if id.len() > 16 => format!("{head}…"),
            _ => id.clone(),
        })
        .collect();
    format!(
        "{:?} is ambiguous: {} matches ({}{}); give more of the id",
        crate::api::sanitize_line(text, 80),
        found.len(),
        few.join(", "),
        if found.len() > few.len() { ", …" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(hash: &str) -> String {
        format!("1220{hash}")
    }

    #[test]
    fn a_whole_id_is_68_hex_digits_or_the_64_after_1220() {
        let hash = "ab".repeat(32);
        assert_eq!(
            IdPattern::parse(&id(&hash)),
            Ok(IdPattern::Whole(id(&hash)))
        );
        assert_eq!(IdPattern::parse(&hash), Ok(IdPattern::Whole(id(&hash))));
        assert_eq!(
            IdPattern::parse(&id(&hash).to_uppercase()),
            Ok(IdPattern::Whole(id(&hash)))
        );
        assert!(IdPattern::parse(&format!("{hash}ab12345")).is_err());
    }

    #[test]
    fn an_ellipsis_marks_an_abbreviation() {
        let part = |head: &str, tail: &str| {
            Ok(IdPattern::Part {
                head: head.into(),
                tail: tail.into(),
            })
        };
        assert_eq!(IdPattern::parse("9237fcb34d82…"), part("9237fcb34d82", ""));
        assert_eq!(
            IdPattern::parse("9237fcb34d82..."),
            part("9237fcb34d82", "")
        );
        assert_eq!(IdPattern::parse("1220d17b…9f1e"), part("1220d17b", "9f1e"));
        assert_eq!(
            IdPattern::parse("1220D17B...9F1E"),
            part("1220d17b", "9f1e")
        );
        assert_eq!(IdPattern::parse(" 9237fcb3 "), part("9237fcb3", ""));
        // A whole-length run with an ellipsis is still an abbreviation.
        let hash = "ab".repeat(32);
        assert_eq!(IdPattern::parse(&format!("{hash}…")), part(&hash, ""));
    }

    #[test]
    fn what_is_not_hex_is_no_update_id() {
        for text in ["zz", "x…", "no-such-update", "…9f1e", "12…", "ab…cd…ef", ""] {
            assert!(IdPattern::parse(text).is_err(), "{text}");
        }
        let err = IdPattern::parse("zz").unwrap_err();
        assert!(err.contains("is not an update id"), "{err}");
        let err = IdPattern::parse("12…").unwrap_err();
        assert!(err.contains("too short"), "{err}");
    }

    #[test]
    fn an_abbreviation_matches_head_and_tail_with_or_without_1220() {
        let one = id(&format!("9237fcb34d82{}9f1e", "0".repeat(48)));
        let two = id(&format!("d17b{}9f1e", "1".repeat(56)));
        let ids = [one.as_str(), two.as_str()];
        let find = |text: &str| matching(&IdPattern::parse(text).unwrap(), ids);
        assert_eq!(find("9237fcb34d82…"), vec![one.clone()]);
        assert_eq!(find("12209237…"), vec![one.clone()]);
        assert_eq!(find("1220d17b…9f1e"), vec![two.clone()]);
        assert_eq!(find("d17b…9f1e"), vec![two.clone()]);
        assert_eq!(find("d17b…9f1f"), Vec::<String>::new());
        assert_eq!(find(&one), vec![one.clone()]);
        let both = find("1220…9f1e");
        assert_eq!(both.len(), 2);
        let said = ambiguous("1220…9f1e", &both);
        assert!(said.contains("ambiguous: 2 matches"), "{said}");
    }
}
