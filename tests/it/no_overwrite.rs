//! No file of the user's is replaced silently: the History export (`e`), the export from the
//! server (`X`, a file without its `.progress.json`), the Ledger package download and the Update
//! pane's save each refuse a file that exists — it keeps its content, the status line says
//! `<path> exists: not replaced` and the dialog or prompt comes back with `this file exists: ↵
//! again replaces it` — and ↵ again on the same name replaces it. The real app on the demo
//! network, files in a temporary folder.

use std::path::Path;

use cantonscope::model::summary::format_time_micros;
use cantonscope::msg::Command;
use cantonscope::panes::ledger::Section;
use cantonscope::panes::new_file::EXISTS_NOTE;
use crossterm::event::{KeyCode, KeyModifiers};

use crate::common::{Harness, Options, clear_input, toast};

const PRECIOUS: &str = "precious\n";

/// A folder with `name` holding [`PRECIOUS`]; the folder and the file's path.
fn existing(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(name);
    std::fs::write(&path, PRECIOUS).expect("write");
    (dir, path)
}

/// The first attempt left the file alone and said so, in the status line and on screen.
fn refused(h: &mut Harness, path: &Path) {
    let now = std::fs::read(path).expect("file");
    assert!(
        now == PRECIOUS.as_bytes(),
        "the file keeps its content, not {} bytes of something else",
        now.len()
    );
    assert_eq!(
        toast(h),
        format!("{} exists: not replaced", path.display()),
        "the status line says so"
    );
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("this file exists: ↵ again replaces it"),
        "{screen}"
    );
}

/// JSON Lines rows of `path`: each an update with an id.
fn json_lines(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).expect("file");
    assert!(!text.contains("precious"), "replaced by the export");
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            assert!(v["update_id"].is_string(), "{l}");
        })
        .count()
}

#[test]
fn the_history_export_refuses_a_file_that_exists_until_enter_again() {
    let mut h = Harness::start();
    let (_dir, path) = existing("exist.jsonl");
    h.key(KeyCode::Char('e'));
    clear_input(&mut h);
    h.type_text(&path.display().to_string());
    h.key(KeyCode::Enter);
    refused(&mut h, &path);
    // The dialog is still open, on the same path, saying why.
    let dialog = h.app.history.export_dialog().expect("the dialog is back");
    assert_eq!(dialog.path(), path.display().to_string());
    assert_eq!(dialog.validation(), Some(EXISTS_NOTE));
    assert_eq!(h.app.history.export_progress(), None);

    // Esc, then the same file again: asked again.
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('e'));
    clear_input(&mut h);
    h.type_text(&path.display().to_string());
    h.key(KeyCode::Enter);
    refused(&mut h, &path);

    // Enter again replaces it.
    h.key(KeyCode::Enter);
    assert!(!h.app.history.is_export_dialog_open());
    let rows = h.app.history.row_count(&h.app.sh);
    assert_eq!(json_lines(&path), rows);
    assert!(
        toast(&h).starts_with(&format!("exported {rows} rows as JSON Lines to")),
        "{}",
        toast(&h)
    );
}

#[test]
fn the_export_from_the_server_refuses_a_file_without_its_sidecar_until_enter_again() {
    const HOUR: i64 = 3_600_000_000;
    let mut h = Harness::start();
    let (_dir, path) = existing("exist.jsonl");
    let sidecar = path.with_file_name("exist.jsonl.progress.json");
    let (from, until) = (h.now - 2 * HOUR, h.now - HOUR);
    crate::history_reach::ask_range_export(&mut h, &path, from, until);
    refused(&mut h, &path);
    assert!(
        !sidecar.exists(),
        "no sidecar for a file that is not the export's"
    );
    assert!(!h.app.history.is_range_exporting());
    let d = h
        .app
        .history
        .range_dialog_mut()
        .expect("the dialog is back");
    assert_eq!(d.field(0), path.display().to_string());
    assert_eq!(d.field(1), format_time_micros(from));

    // Enter again replaces it.
    h.key(KeyCode::Enter);
    assert!(h.app.history.is_range_exporting(), "{}", toast(&h));
    for _ in 0..200 {
        if !h.app.history.is_range_exporting() {
            break;
        }
        h.tick(0.25);
    }
    assert!(!h.app.history.is_range_exporting(), "{}", toast(&h));
    let want = cantonscope::demo::generate(42)
        .updates()
        .iter()
        .filter(|u| u.record_time >= from && u.record_time <= until)
        .count();
    assert!(want > 0);
    assert_eq!(json_lines(&path), want);
    let side: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sidecar).expect("sidecar")).expect("json");
    assert_eq!(side["complete"], true);
    assert_eq!(side["updates"], want);
}

#[test]
fn the_package_download_refuses_a_file_that_exists_until_enter_again() {
    let mut h = Harness::start_with(Options::default());
    h.cmd(Command::Pane9);
    h.app.ledger.set_section(Section::Package);
    let (_dir, path) = existing("pkg.dalf");
    h.cmd(Command::Select);
    h.key(KeyCode::Down);
    h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.type_text(&path.display().to_string());
    h.key(KeyCode::Enter);
    refused(&mut h, &path);
    let screen = h.screen(120, 40);
    assert!(screen.contains("not saved"), "{screen}");
    assert!(!screen.contains("saved to"), "{screen}");

    // Enter again (the form is back with the same id and file) replaces it.
    h.key(KeyCode::Enter);
    let got = h.app.ledger.package.result().expect("downloaded").clone();
    let bytes = std::fs::read(&path).expect("file");
    assert_eq!(bytes.len(), got.size);
    assert_ne!(bytes, PRECIOUS.as_bytes());
    assert!(h.screen(120, 40).contains("saved to"));
    assert!(toast(&h).starts_with("saved "), "{}", toast(&h));
}

#[test]
fn the_update_save_refuses_a_file_that_exists_until_enter_again() {
    let mut h = Harness::start();
    h.key(KeyCode::Enter);
    let id = h.app.update_pane.update_id().expect("an update").to_owned();
    let (_dir, path) = existing("update.json");
    h.cmd(Command::Save);
    clear_input(&mut h);
    h.type_text(&path.display().to_string());
    h.key(KeyCode::Enter);
    refused(&mut h, &path);
    assert!(h.app.update_pane.save_prompt_open(), "the prompt is back");

    // Enter again replaces it.
    h.key(KeyCode::Enter);
    assert!(!h.app.update_pane.save_prompt_open());
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("file")).expect("JSON");
    assert_eq!(saved["update"]["update_id"], id.as_str());
    assert!(toast(&h).starts_with("saved "), "{}", toast(&h));
}
