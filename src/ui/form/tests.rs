use super::*;
use crate::ui::theme::Theme;
use crossterm::event::KeyModifiers;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn typed(f: &mut Form, s: &str) {
    for c in s.chars() {
        f.handle_key(&key(KeyCode::Char(c)));
    }
}

fn form() -> Form {
    Form::new(vec![
        Form::with_candidates(
            Form::field("Party", "", "party id"),
            ["bob::1", "alice::1", "alice::2", "carol::alice"],
        ),
        Form::field("Nonce", "", "0"),
    ])
}

fn text(buf: &Buffer) -> String {
    let w = buf.area.width as usize;
    buf.content()
        .chunks(w)
        .map(|row| {
            row.iter()
                .map(ratatui::buffer::Cell::symbol)
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn tab_cycles_through_matches_prefix_first_then_moves_on() {
    let mut f = form();
    typed(&mut f, "ali");
    assert_eq!(f.matches(), vec!["alice::1", "alice::2", "carol::alice"]);
    f.handle_key(&key(KeyCode::Tab));
    assert_eq!(f.value(0), "alice::1");
    f.handle_key(&key(KeyCode::Tab));
    assert_eq!(f.value(0), "alice::2");
    // Shift-Tab during a completion goes back.
    f.handle_key(&key(KeyCode::BackTab));
    assert_eq!(f.value(0), "alice::1");
    f.handle_key(&key(KeyCode::Tab));
    f.handle_key(&key(KeyCode::Tab));
    f.handle_key(&key(KeyCode::Tab));
    assert_eq!(f.value(0), "alice::1");
    // Typing ends the cycle; a unique complete match moves on.
    f.handle_key(&key(KeyCode::Backspace));
    f.handle_key(&key(KeyCode::Char('1')));
    f.handle_key(&key(KeyCode::Tab));
    assert_eq!(f.active(), 1);
    // No candidates: Tab goes to the next field (wrapping); Shift-Tab back.
    f.handle_key(&key(KeyCode::Tab));
    assert_eq!(f.active(), 0);
    f.handle_key(&key(KeyCode::BackTab));
    assert_eq!(f.active(), 1);
}

#[test]
fn completion_prefers_the_party_name_over_its_fingerprint() {
    let pool = ["yusuf-2::1220ab", "ayusuf::1220cd", "yusuf::1220ef"];
    let mut f = Form::new(vec![Field::text("Party", "yu", "").candidates(pool)]);
    f.handle_key(&key(KeyCode::Tab));
    assert_eq!(f.value(0), "yusuf::1220ef");
    let mut f = Form::new(vec![
        Field::list("Ids", &[], "", ("id", "ids"), 0).candidates(pool),
    ]);
    typed(&mut f, "yu");
    f.handle_key(&key(KeyCode::Tab));
    assert_eq!(f.value(0), "yusuf::1220ef");
}

#[test]
fn enter_submits_esc_cancels_and_errors_focus_the_field() {
    let mut f = form();
    assert_eq!(f.handle_key(&key(KeyCode::Down)), FormOutcome::Consumed);
    assert_eq!(f.active(), 1);
    assert_eq!(f.handle_key(&key(KeyCode::Down)), FormOutcome::Consumed);
    assert_eq!(f.active(), 1, "↓ stops at the last field");
    assert_eq!(f.handle_key(&key(KeyCode::Enter)), FormOutcome::Submitted);
    f.set_error(0, "required");
    assert_eq!(f.active(), 0);
    assert_eq!(f.error(0), Some("required"));
    assert_eq!(f.height(), 4);
    assert_eq!(f.handle_key(&key(KeyCode::Up)), FormOutcome::Consumed);
    assert_eq!(f.active(), 0, "↑ stops at the first field");
    assert_eq!(f.handle_key(&key(KeyCode::Esc)), FormOutcome::Cancelled);
    f.paste("x\u{1b}y");
    assert_eq!(f.value(0), "xy");
    let mut open = Some(form());
    assert_eq!(
        form_key(&mut open, &key(KeyCode::Esc)),
        Some(FormOutcome::Cancelled)
    );
    assert!(open.is_none(), "Esc closes the form");
    assert_eq!(form_key(&mut open, &key(KeyCode::Esc)), None);
}

#[test]
fn a_list_takes_ids_one_at_a_time_and_shows_them_all() {
    let pool = ["alice::1", "albert::3", "bob::2", "carol::4"];
    let mut f = Form::new(vec![
        Field::list(
            "Owners",
            &["bob::2".to_string()],
            "owners",
            ("owner", "owners"),
            1,
        )
        .candidates(pool),
        Field::text("Migration", "1", ""),
    ]);
    // Completion leaves out the ids already listed and cycles.
    typed(&mut f, "al");
    f.handle_key(&key(KeyCode::Tab));
    assert_eq!(f.value(0), "bob::2 albert::3");
    f.handle_key(&key(KeyCode::Tab));
    assert_eq!(f.value(0), "bob::2 alice::1");
    assert_eq!(f.cycle().map(|(c, i)| (c.len(), i)), Some((2, 1)));
    // A separator adds the entry to the list; a word matching nothing gets a note.
    typed(&mut f, " zz");
    assert_eq!(
        f.get(0).map(Field::items),
        Some(&["bob::2".to_string(), "alice::1".to_string()][..])
    );
    f.handle_key(&key(KeyCode::Tab));
    assert_eq!(f.note(), Some("no known id matches \"zz\""));
    assert_eq!(f.active(), 0, "the list keeps the focus");
    // Backspace in an empty entry takes the last id back; Ctrl-k there empties the list.
    f.handle_key(&key(KeyCode::Backspace));
    f.handle_key(&key(KeyCode::Backspace));
    f.handle_key(&key(KeyCode::Backspace));
    assert_eq!(f.value(0), "bob::2 alice::1");
    assert_eq!(f.ids(0), vec!["bob::2", "alice::1"]);
    f.handle_key(&ctrl('a'));
    f.handle_key(&ctrl('k'));
    f.handle_key(&ctrl('k'));
    assert_eq!(f.value(0), "");
    // Paste splits; Enter adds the entry and submits.
    f.paste("carol::4, bob::2 alice::1");
    assert_eq!(f.get(0).map(|x| x.items().len()), Some(2));
    assert_eq!(f.handle_key(&key(KeyCode::Enter)), FormOutcome::Submitted);
    assert_eq!(f.ids(0), vec!["carol::4", "bob::2", "alice::1"]);
    // Drawn as a dialog: a count with the names, never one long line.
    let mut buf = Buffer::empty(Rect::new(0, 0, 60, 12));
    f.render_dialog(buf.area, &mut buf, &Theme::default(), "Query", "help");
    let screen = text(&buf);
    assert!(screen.contains("3 owners: carol, bob, alice"), "{screen}");
    assert!(
        screen.contains("Enter run · Esc close · ↑/↓ field · Tab complete"),
        "{screen}"
    );
    f.set_text(0, "");
    assert!(f.ids(0).is_empty());
}

#[test]
fn a_list_in_a_section_form_shows_the_count_before_the_entry() {
    let ids: Vec<String> = (0..30).map(|i| format!("p{i}::1220")).collect();
    let f = Form::new(vec![
        Field::text("party", "a::1", ""),
        Field::list("more parties", &ids, "", ("party", "parties"), 0),
    ]);
    let mut buf = Buffer::empty(Rect::new(0, 0, 80, 4));
    let used = f.render_section(buf.area, &mut buf, &Theme::default(), "look up");
    assert_eq!(used, 3);
    let screen = text(&buf);
    assert!(screen.contains("›party"), "{screen}");
    assert!(screen.contains("30 parties: p0, p1"), "{screen}");
    assert!(screen.contains("Enter look up · ↑/↓ field"), "{screen}");
}

#[test]
fn choices_switch_with_arrows_space_and_letters() {
    let mut f = Form::new(vec![Field::choice("Match", &["at_or_before", "exact"], 0)]);
    f.handle_key(&key(KeyCode::Char(' ')));
    assert_eq!((f.choice(0), f.value(0).as_str()), (1, "exact"));
    f.handle_key(&key(KeyCode::Right));
    assert_eq!(f.choice(0), 0);
    f.handle_key(&key(KeyCode::Char('e')));
    assert_eq!(f.choice(0), 1);
    f.handle_key(&key(KeyCode::Char('a')));
    assert_eq!(f.choice(0), 0);
    assert_eq!(f.handle_key(&key(KeyCode::Enter)), FormOutcome::Submitted);
}

#[test]
fn multi_line_fields_keep_enter_and_arrows_for_their_text() {
    let mut f = Form::new(vec![
        Field::text("file", "", ""),
        Field::multi_line("body", "{", ""),
    ]);
    f.handle_key(&key(KeyCode::Down));
    assert_eq!(f.active(), 1);
    assert_eq!(f.handle_key(&key(KeyCode::Enter)), FormOutcome::Consumed);
    typed(&mut f, "}");
    assert_eq!(f.value(1), "{\n}");
    // ↑ moves the cursor up a line first, then to the field above.
    f.handle_key(&key(KeyCode::Up));
    assert_eq!(f.active(), 1);
    f.handle_key(&key(KeyCode::Up));
    assert_eq!(f.active(), 0);
    f.set_active(1);
    assert_eq!(f.handle_key(&ctrl('s')), FormOutcome::Submitted);
}

#[test]
fn tiny_areas_do_not_panic() {
    let mut f = form();
    f.set_note(Some("note".into()));
    for (w, h) in [(0, 0), (1, 1), (3, 1), (10, 2), (80, 1)] {
        let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
        f.render(buf.area, &mut buf, &Theme::default());
        f.render_section(buf.area, &mut buf, &Theme::default(), "go");
        f.render_dialog(buf.area, &mut buf, &Theme::default(), "t", "h");
    }
}

#[test]
fn required_fields_mark_the_first_empty_one() {
    let mut f = form();
    typed(&mut f, "alice::1");
    assert_eq!(
        f.required([(0, "enter a party"), (1, "enter a nonce")]),
        None
    );
    assert_eq!(f.error(0), None);
    assert_eq!(f.error(1), Some("enter a nonce"));
    f.handle_key(&key(KeyCode::Char('7')));
    assert_eq!(
        f.required([(0, "enter a party"), (1, "enter a nonce")]),
        Some(["alice::1".to_string(), "7".to_string()])
    );
}
