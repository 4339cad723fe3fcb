//! Lists of ids typed by the user: splitting, checking, the completion order, and drawing a
//! list as a count with the names (one line) or in columns.

use std::cmp::Ordering;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use unicode_width::UnicodeWidthStr;

use crate::model::format::short_party;
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::theme::Theme;

/// The order completion offers ids in: part by part between `::`, so a party's name decides
/// before its fingerprint (`yusuf::1220…` before `yusuf-2::1220…`, although `-` sorts before
/// `:`), then the whole text.
pub fn id_order(a: &str, b: &str) -> Ordering {
    a.split("::").cmp(b.split("::")).then_with(|| a.cmp(b))
}

/// The completion of `word` from `candidates` (case-insensitive, every field of every form
/// alike): the candidates that start with it first, then those that only contain it; each group
/// in [`id_order`], without duplicates.
pub fn matching<'a, S: AsRef<str>>(candidates: &'a [S], word: &str) -> Vec<&'a str> {
    let needle = word.trim().to_lowercase();
    let mut prefix = Vec::new();
    let mut inner = Vec::new();
    for c in candidates {
        let c = c.as_ref();
        let lower = c.to_lowercase();
        if lower.starts_with(&needle) {
            prefix.push(c);
        } else if lower.contains(&needle) {
            inner.push(c);
        }
    }
    for group in [&mut prefix, &mut inner] {
        group.sort_by(|a, b| id_order(a, b));
        group.dedup();
    }
    prefix.extend(inner);
    prefix
}

/// Whether `c` separates the ids of a list (white space, `,` or `;`).
pub fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ',' || c == ';'
}

/// The ids of a list typed by the user (separated by spaces, commas or semicolons), without
/// duplicates, in order.
pub fn split_ids(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in text.split(is_separator).filter(|s| !s.is_empty()) {
        if !out.iter().any(|o| o == id) {
            out.push(id.to_string());
        }
    }
    out
}

/// Whether `id` looks like a Canton party id (`hint::fingerprint`).
pub fn looks_like_party(id: &str) -> bool {
    matches!(id.split_once("::"), Some((hint, fp)) if !hint.is_empty() && !fp.is_empty())
}

/// `3 parties: alice, bob, carol` for a list of ids (their names before `::`), cut to `width`
/// with the count kept in front, so a long list shows how many it holds, not only its tail.
pub fn id_list_summary(ids: &[String], noun: (&str, &str), width: usize) -> String {
    let n = ids.len();
    let head = format!("{n} {}", if n == 1 { noun.0 } else { noun.1 });
    if n == 0 {
        return head;
    }
    let names: Vec<&str> = ids.iter().map(|i| short_party(i)).collect();
    let mut out = format!("{head}: ");
    for (i, name) in names.iter().enumerate() {
        let more = format!("… +{}", n - i);
        let sep = if i > 0 { ", " } else { "" };
        let after = if i + 1 < n {
            format!("… +{}", n - i - 1).width() + 2
        } else {
            0
        };
        if out.width() + sep.len() + name.width() + after > width {
            if i == 0 {
                // The first name is always shown, cut if need be.
                let room = width.saturating_sub(out.width() + after);
                out.push_str(&safe_line(name, room));
                if i + 1 < n {
                    out.push_str(&format!(", … +{}", n - 1));
                }
            } else {
                out.push_str(&format!("{sep}{more}"));
            }
            break;
        }
        out.push_str(sep);
        out.push_str(name);
    }
    sanitize(&out).into_owned()
}

/// Draws a list of ids as a count line and the ids in columns (as many as `area` holds, then
/// `+N more`); returns the rows used.
pub fn render_id_list(
    ids: &[String],
    noun: (&str, &str),
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
) -> u16 {
    if area.width == 0 || area.height == 0 || ids.is_empty() {
        return 0;
    }
    let n = ids.len();
    let head = format!("{n} {}:", if n == 1 { noun.0 } else { noun.1 });
    buf.set_stringn(area.x, area.y, &head, usize::from(area.width), theme.muted);
    let (col_w, per_row) = id_columns(ids, area.width);
    let rows = usize::from(area.height - 1);
    let shown = (per_row * rows).min(n);
    let shown = if shown < n {
        shown.saturating_sub(1)
    } else {
        shown
    };
    for (k, id) in ids.iter().take(shown).enumerate() {
        let x = area.x + ((k % per_row) * col_w) as u16;
        let y = area.y + 1 + (k / per_row) as u16;
        let text = safe_line(id, col_w - 2).into_owned();
        buf.set_stringn(x, y, &text, col_w - 2, theme.party);
    }
    if shown < n {
        let k = shown;
        let x = area.x + ((k % per_row) * col_w) as u16;
        let y = area.y + 1 + (k / per_row) as u16;
        buf.set_stringn(x, y, format!("+{} more", n - shown), col_w, theme.muted);
    }
    let used = shown + usize::from(shown < n);
    1 + used.div_ceil(per_row) as u16
}

/// The column width and columns per row of [`render_id_list`] at `width`.
fn id_columns(ids: &[String], width: u16) -> (usize, usize) {
    let col_w = ids
        .iter()
        .map(|i| i.width())
        .max()
        .unwrap_or(1)
        .clamp(8, 24)
        + 2;
    (col_w, (usize::from(width) / col_w).max(1))
}

/// Rows [`render_id_list`] needs to show every id at `width` (the count line and the columns).
pub fn id_list_rows(ids: &[String], width: u16) -> u16 {
    if ids.is_empty() {
        return 0;
    }
    let (_, per_row) = id_columns(ids, width);
    u16::try_from(1 + ids.len().div_ceil(per_row)).unwrap_or(u16::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_prefers_prefixes_and_the_party_name_over_its_fingerprint() {
        let pool = [
            "yusuf-2::1220ab",
            "ayusuf::1220cd",
            "yusuf::1220ef",
            "bob::1",
        ];
        assert_eq!(
            matching(&pool, "yu"),
            vec!["yusuf::1220ef", "yusuf-2::1220ab", "ayusuf::1220cd"]
        );
    }

    #[test]
    fn long_id_lists_read_as_a_count_and_names() {
        let ids: Vec<String> = (0..40).map(|i| format!("v{i}::1220{i:04}")).collect();
        let s = id_list_summary(&ids, ("party", "parties"), 40);
        assert!(s.starts_with("40 parties: v0, v1"), "{s}");
        assert!(s.contains("… +"), "{s}");
        assert!(UnicodeWidthStr::width(s.as_str()) <= 40, "{s}");
        let mut buf = Buffer::empty(Rect::new(0, 0, 60, 4));
        let rows = render_id_list(&ids, ("id", "ids"), buf.area, &mut buf, &Theme::default());
        assert_eq!(rows, 4);
        assert_eq!(
            id_list_rows(&ids, 60),
            1 + 40 / 4,
            "a count line and four ids a row"
        );
        let text: String = buf
            .content()
            .iter()
            .map(ratatui::buffer::Cell::symbol)
            .collect();
        assert!(text.contains("40 ids:") && text.contains("more"), "{text}");
    }

    #[test]
    fn ids_split_and_check() {
        assert_eq!(
            split_ids(" a::1, b::2;a::1\tc::3 "),
            vec!["a::1", "b::2", "c::3"]
        );
        assert!(looks_like_party("a::1") && !looks_like_party("a::") && !looks_like_party("a"));
    }
}
