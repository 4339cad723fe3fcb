use std::cell::Cell as Counter;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::*;
use crate::msg::Command;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Name,
    Count,
    Note,
    Extra,
}

#[derive(Debug)]
struct Row {
    name: &'static str,
    count: i64,
    group: u8,
}

impl TableRow for Row {
    type Col = Col;
    /// Counts the cells formatted.
    type Ctx = Counter<usize>;

    fn cell(&self, col: Col, _width: u16, calls: &Counter<usize>, _: &Theme) -> Cell<'_> {
        calls.set(calls.get() + 1);
        match col {
            Col::Name => Cell::new(self.name, Style::default()),
            Col::Count => Cell::new(self.count.to_string(), Style::default()),
            Col::Note => Cell::new("note", Style::default()),
            Col::Extra => Cell::new("extra", Style::default()),
        }
    }

    fn sort_key(&self, col: Col) -> SortKey<'_> {
        match col {
            Col::Name => SortKey::Text(Cow::Borrowed(self.name)),
            Col::Count => SortKey::Int(i128::from(self.count)),
            _ => SortKey::Missing,
        }
    }

    fn sort_group(&self) -> u8 {
        self.group
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.name)
    }
}

fn columns() -> Columns<Col> {
    columns_folding(false)
}

/// The test columns; with `fold`, the count and the note fold below 70 columns.
fn columns_folding(fold: bool) -> Columns<Col> {
    let folds = |c: Column<Col>| if fold { c.folds() } else { c };
    let cols = Columns::new(vec![
        Column::new(Col::Name, "Name", Width::fill(10)),
        folds(
            Column::new(Col::Count, "Count", Width::Fixed(6))
                .right()
                .descending_first()
                .priority(5),
        ),
        folds(Column::new(Col::Note, "Note", Width::Fixed(8)).priority(2)),
        Column::new(
            Col::Extra,
            "Extra",
            Width::Wide {
                narrow: 0,
                wide: 7,
                from: 60,
            },
        )
        .priority(1),
    ]);
    if fold { cols.fold_below(70) } else { cols }
}

fn rows() -> Vec<Row> {
    [
        ("acme", 3, 0),
        ("zephyr", 7, 0),
        ("bogus", 100, 1),
        ("beta", 7, 0),
        ("Zed", 1, 0),
    ]
    .into_iter()
    .map(|(name, count, group)| Row { name, count, group })
    .collect()
}

fn ids(layout: &[Placed<Col>]) -> Vec<(Col, u16, u16)> {
    layout.iter().map(|p| (p.id, p.x, p.width)).collect()
}

fn names(t: &DataTable<Col>, rows: &[Row]) -> Vec<&'static str> {
    t.ordered(rows).map(|r| r.name).collect()
}

fn key(t: &mut DataTable<Col>, rows: &[Row], code: KeyCode) {
    t.on_key(&KeyEvent::new(code, KeyModifiers::NONE), rows);
}

#[test]
fn the_lowest_priority_columns_are_dropped_first_as_the_width_shrinks() {
    let c = columns();
    // Wide enough for everything: the fill takes the rest.
    assert_eq!(
        ids(&c.layout(80)),
        vec![
            (Col::Name, 0, 56),
            (Col::Count, 57, 6),
            (Col::Note, 64, 8),
            (Col::Extra, 73, 7),
        ]
    );
    // Below 60 the wide-only column is hidden; the note goes when the name would get
    // less than its minimum, then the count. The name is never dropped.
    assert_eq!(
        ids(&c.layout(40)),
        vec![(Col::Name, 0, 24), (Col::Count, 25, 6), (Col::Note, 32, 8)]
    );
    assert_eq!(
        ids(&c.layout(25)),
        vec![(Col::Name, 0, 18), (Col::Count, 19, 6)]
    );
    assert_eq!(ids(&c.layout(12)), vec![(Col::Name, 0, 12)]);
    assert_eq!(ids(&c.layout(0)), vec![(Col::Name, 0, 0)]);
    // Fills share by weight, the last one taking the remainder.
    let shared = Columns::new(vec![
        Column::new(Col::Count, "#", Width::Fixed(6)),
        Column::new(Col::Name, "Id", Width::Fill { min: 1, weight: 2 }),
        Column::new(Col::Note, "URL", Width::Fill { min: 1, weight: 3 }),
    ]);
    assert_eq!(
        ids(&shared.layout(78)),
        vec![(Col::Count, 0, 6), (Col::Name, 7, 28), (Col::Note, 36, 42)]
    );
    // Fixed columns that do not fit are cut at the edge.
    let fixed = Columns::new(vec![
        Column::new(Col::Name, "a", Width::Fixed(10)),
        Column::new(Col::Count, "b", Width::Fixed(10)),
        Column::new(Col::Note, "c", Width::Fixed(10)),
    ]);
    assert_eq!(
        ids(&fixed.layout(15)),
        vec![(Col::Name, 0, 10), (Col::Count, 11, 4)]
    );
}

#[test]
fn sort_cycles_columns_reverses_and_keeps_groups_and_the_selection() {
    let rows = rows();
    let mut t = DataTable::new(columns());
    t.set_rows(&rows);
    assert_eq!(
        names(&t, &rows),
        vec!["acme", "zephyr", "bogus", "beta", "Zed"],
        "unsorted: as given"
    );
    assert!(t.on_command(Command::Sort, &rows));
    assert_eq!(t.sort(), Some((Col::Name, false)));
    // Byte order; the group-1 row last whatever the direction.
    assert_eq!(
        names(&t, &rows),
        vec!["Zed", "acme", "beta", "zephyr", "bogus"]
    );
    assert_eq!(
        t.selected_row(&rows).map(|r| r.name),
        Some("acme"),
        "the selection follows its row"
    );
    t.on_command(Command::Down, &rows);
    assert_eq!(t.selected_row(&rows).map(|r| r.name), Some("beta"));
    t.on_command(Command::SortReverse, &rows);
    assert_eq!(
        names(&t, &rows),
        vec!["zephyr", "beta", "acme", "Zed", "bogus"]
    );
    assert_eq!(t.selected_row(&rows).map(|r| r.name), Some("beta"));
    // Count sorts descending first; ties by the first column, ascending.
    t.on_command(Command::Sort, &rows);
    assert_eq!(t.sort(), Some((Col::Count, true)));
    assert_eq!(
        names(&t, &rows),
        vec!["beta", "zephyr", "acme", "Zed", "bogus"]
    );
    t.on_command(Command::SortReverse, &rows);
    assert_eq!(
        names(&t, &rows),
        vec!["Zed", "acme", "beta", "zephyr", "bogus"]
    );
    // Every column is sortable here: Note, Extra, then Name again.
    for want in [Col::Note, Col::Extra, Col::Name] {
        t.on_command(Command::Sort, &rows);
        assert_eq!(t.sort().map(|s| s.0), Some(want));
    }
    let mut header = Buffer::empty(Rect::new(0, 0, 80, 1));
    let (calls, theme) = (Counter::new(0), Theme::default());
    t.columns()
        .render_header::<Row>(header.area, &mut header, &Draw::new(&calls, &theme, true));
    let text: String = header
        .content()
        .iter()
        .map(ratatui::buffer::Cell::symbol)
        .collect();
    assert!(text.starts_with("Name ▲ "), "{text}");
}

#[test]
fn decimals_and_numbers_compare_exactly() {
    let d = |units, scale| SortKey::Decimal { units, scale };
    assert_eq!(d(15, 1).cmp_key(&d(150, 2)), Ordering::Equal);
    assert_eq!(
        d(12_345_670_000_000_001, 10).cmp_key(&d(12_345_670_000_000_002, 10)),
        Ordering::Less
    );
    assert_eq!(SortKey::Int(2).cmp_key(&d(19, 1)), Ordering::Greater);
    assert_eq!(SortKey::Missing.cmp_key(&d(-5, 0)), Ordering::Less);
    assert_eq!(
        SortKey::Float(0.5).cmp_key(&SortKey::Int(1)),
        Ordering::Less
    );
    assert_eq!(
        cmp_decimal((i128::MAX, 0), (1, 30)),
        Ordering::Greater,
        "out of range when rescaled: the integer parts decide"
    );
}

#[test]
fn the_filter_matches_live_keeps_keys_and_esc_clears_it() {
    let rows = rows();
    let mut t = DataTable::new(columns());
    t.set_viewport(10);
    assert!(
        !t.on_command(Command::Filter, &rows[..0]),
        "no rows: no input to type into unseen"
    );
    assert!(!t.is_filtering());
    t.set_rows(&rows);
    assert!(t.on_command(Command::Filter, &rows));
    assert!(t.is_filtering());
    assert_eq!(t.scroll().viewport(), 9, "the bar takes a row");
    for c in "re:^(acme|zeph)".chars() {
        key(&mut t, &rows, KeyCode::Char(c));
    }
    assert_eq!(names(&t, &rows), vec!["acme", "zephyr"]);
    // A bad regular expression keeps the last good filter and says why; Enter keeps it open.
    key(&mut t, &rows, KeyCode::Char('['));
    assert!(t.filter_error().is_some_and(|e| e.contains("regular")));
    assert_eq!(names(&t, &rows), vec!["acme", "zephyr"]);
    key(&mut t, &rows, KeyCode::Enter);
    assert!(t.is_filtering());
    key(&mut t, &rows, KeyCode::Backspace);
    key(&mut t, &rows, KeyCode::Down);
    assert_eq!(t.selected_row(&rows).map(|r| r.name), Some("zephyr"));
    key(&mut t, &rows, KeyCode::Enter);
    assert!(!t.is_filtering());
    assert_eq!(t.filter_text(), Some("re:^(acme|zeph)"));
    // Substrings are case-insensitive unless they have capitals.
    t.on_command(Command::Filter, &rows);
    for _ in 0..20 {
        key(&mut t, &rows, KeyCode::Backspace);
    }
    key(&mut t, &rows, KeyCode::Char('z'));
    assert_eq!(names(&t, &rows), vec!["zephyr", "Zed"]);
    key(&mut t, &rows, KeyCode::Backspace);
    key(&mut t, &rows, KeyCode::Char('Z'));
    assert_eq!(names(&t, &rows), vec!["Zed"]);
    t.on_paste("edx", &rows);
    assert_eq!(t.filter_text(), Some("Zedx"));
    assert!(names(&t, &rows).is_empty());
    key(&mut t, &rows, KeyCode::Enter);
    // Drawn: a message instead of rows, and the bar.
    let mut buf = Buffer::empty(Rect::new(0, 0, 60, 5));
    let (calls, theme) = (Counter::new(0), Theme::default());
    t.render(buf.area, &mut buf, &rows, &Draw::new(&calls, &theme, true));
    let text: String = buf
        .content()
        .iter()
        .map(ratatui::buffer::Cell::symbol)
        .collect();
    assert!(text.contains("no row matches the filter"), "{text}");
    assert!(text.contains("filter Zedx · 0 of 5 match"), "{text}");
    // Esc clears the applied filter.
    assert!(t.on_command(Command::Back, &rows));
    assert_eq!(t.order().len(), 5);
    assert!(!t.on_command(Command::Back, &rows), "nothing left to clear");
    // Esc while typing clears too.
    t.on_command(Command::Filter, &rows);
    key(&mut t, &rows, KeyCode::Char('b'));
    assert_eq!(t.order().len(), 2);
    key(&mut t, &rows, KeyCode::Esc);
    assert!(!t.is_filtering() && t.filter_text().is_none());
    assert_eq!(t.order().len(), 5);
}

#[test]
fn only_the_visible_rows_are_formatted() {
    let rows: Vec<Row> = (0..100_000)
        .map(|i| Row {
            name: "row",
            count: i,
            group: 0,
        })
        .collect();
    let mut t = DataTable::new(columns());
    t.set_rows(&rows);
    t.on_command(Command::Bottom, &rows);
    let calls = Counter::new(0);
    let area = Rect::new(0, 0, 80, 11);
    let mut buf = Buffer::empty(area);
    let theme = Theme::default();
    t.render(area, &mut buf, &rows, &Draw::new(&calls, &theme, true));
    // A header and ten rows of four columns.
    assert_eq!(calls.get(), 10 * 4);
    let last: String = (0..80).map(|x| buf[(x, 10)].symbol()).collect();
    assert!(last.contains("99999"), "{last}");
    assert_eq!(
        buf[(0, 10)].bg,
        Theme::default().selection.bg.unwrap_or_default()
    );
}

#[test]
fn cells_are_sanitised_aligned_and_rest_cells_span_the_row() {
    struct Evil;
    impl TableRow for Evil {
        type Col = Col;
        type Ctx = ();
        fn cell(&self, col: Col, _: u16, (): &(), _: &Theme) -> Cell<'_> {
            match col {
                Col::Name => Cell::new("a\u{1b}[2Jb", Style::default()),
                Col::Count => Cell::new("42", Style::default()),
                _ => Cell::Rest("spans the rest".into(), Style::default()),
            }
        }
        fn filter_text(&self) -> Cow<'_, str> {
            Cow::Borrowed("")
        }
    }
    let mut t = DataTable::new(columns());
    let rows = [Evil];
    t.set_rows(&rows);
    let mut buf = Buffer::empty(Rect::new(0, 0, 40, 2));
    let theme = Theme::default();
    t.render(buf.area, &mut buf, &rows, &Draw::new(&(), &theme, false));
    let line: String = (0..40).map(|x| buf[(x, 1)].symbol()).collect();
    assert_eq!(line, format!("a␛b{}42 spans t…", " ".repeat(26)));
}

#[test]
fn a_narrow_table_folds_a_column_that_reads_the_same_on_every_row_in_view() {
    let c = columns_folding(true);
    let rows = rows();
    let all: Vec<&Row> = rows.iter().collect();
    let calls = Counter::new(0);
    // The note reads the same everywhere: hidden, said once; the counts differ: kept. Its room
    // goes to the name (the fill), not to a column the width had dropped.
    let (cols, notes) = c.folded(40, &all, &calls);
    assert_eq!(notes, vec![(Col::Note, "note note".to_string())]);
    assert_eq!(
        ids(&cols.layout(40)),
        vec![(Col::Name, 0, 33), (Col::Count, 34, 6)]
    );
    // Two rows of the same count: that folds too.
    let same: Vec<&Row> = vec![&rows[1], &rows[3]];
    let (_, notes) = c.folded(40, &same, &calls);
    assert_eq!(
        notes.iter().map(|(c, _)| *c).collect::<Vec<_>>(),
        vec![Col::Count, Col::Note]
    );
    // One row says nothing about the others; a wide table keeps its columns.
    assert!(c.folded(40, &all[..1], &calls).1.is_empty());
    let (cols, notes) = c.folded(80, &all, &calls);
    assert!(notes.is_empty());
    assert_eq!(ids(&cols.layout(80)), ids(&columns().layout(80)));
}

/// `set_text` writes exactly the cells `Buffer::set_stringn` writes, on its fast paths (ASCII,
/// the app's one-cell symbols) and on the slow one (wide, combining, other scripts, control
/// pictures), cut at every width and at the buffer's right edge, over cells already written.
#[test]
fn set_text_writes_what_set_stringn_writes() {
    use crate::ui::safe::{is_one_cell, safe_line};
    use ratatui::style::{Color, Style};

    let mut texts: Vec<String> = [
        "",
        "plain ascii 123",
        "a → b",
        "1220abcd…",
        "Alice · Bob – 3 — 4",
        "↑↓←→•▲▼▸▾✓✗",
        "├── └─ │ ┌┐└┘ ═",
        "日本語 wide",
        "e\u{301}combining",
        "a→\u{301}b",
        "👍🏽 emoji",
        "zero\u{200b}width",
        "tab\there\x1b[31mred\n",
        "Ελληνικά кириллица",
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    texts.extend(
        (0x2500u32..=0x257f)
            .filter_map(char::from_u32)
            .map(|c| format!("x{c}{c}y")),
    );
    // What the table really hands over: the text made safe first.
    let safe: Vec<String> = texts
        .iter()
        .map(|t| safe_line(t, 40).into_owned())
        .collect();
    texts.extend(safe);

    let style = Style::default().fg(Color::Yellow);
    let area = Rect::new(0, 0, 12, 1);
    for text in &texts {
        for x in [0u16, 5, 11] {
            for max in 0..=14usize {
                let mut fast = Buffer::filled(area, ratatui::buffer::Cell::new("#"));
                let mut slow = fast.clone();
                super::columns::set_text(&mut fast, x, 0, text, max, style);
                slow.set_stringn(x, 0, text, max, style);
                assert_eq!(fast, slow, "{text:?} at x={x} in {max} columns");
            }
        }
    }
    // The fast path takes the app's symbols and leaves the rest to set_stringn.
    for one in ["a → b", "1220abcd…", "Alice · Bob – 3 — 4", "├── └─"] {
        assert!(one.chars().all(is_one_cell), "{one:?}");
    }
    for other in ["日本語", "e\u{301}", "👍", "\u{200b}", "␛", "Ελ"] {
        assert!(!other.chars().all(is_one_cell), "{other:?}");
    }
}
