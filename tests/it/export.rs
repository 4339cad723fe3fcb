//! The History pane's export (`e`): the dialog (path, format inferred from the extension or
//! switched with Tab, Esc cancels), exports with and without a filter against the demo network
//! (the file holds exactly the rows the pane shows, in history order), CSV quoting and formula
//! neutralising, JSON Lines escaping, chunked progress with a frozen snapshot, cancelling, path
//! errors, and snapshots of the dialog at 80x24 and 120x40.

use std::path::Path;

use cantonscope::api::scan::UpdatesPage;
use cantonscope::config::HistoryStart;
use cantonscope::config::keymap::KeyContext;
use cantonscope::model::export::{CHUNK_ROWS, CSV_HEADER, ExportFormat, csv_field};
use cantonscope::model::history::Placement;
use cantonscope::model::summary::{format_time_micros, parse_time_micros};
use cantonscope::msg::Command;
use cantonscope::msg::Effect;
use cantonscope::panes::history::HistoryPane;
use cantonscope::panes::{AppContext, AppEvent, Level, Out, Pane, RenderCtx, Shared};
use cantonscope::ui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::{Map, Value, json};

use crate::common::{Harness, Options, assert_snapshot, buffer_text, pane, stable, toast};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A minimal RFC 4180 reader: records of fields, quotes and doubled quotes honoured.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                c => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => quoted = true,
            ',' => record.push(std::mem::take(&mut field)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            c => field.push(c),
        }
    }
    assert!(!quoted, "unterminated quoted field");
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    records
}

/// Empties the dialog's path input (Backspace is plain editing in the text input).
fn clear_path(h: &mut Harness) {
    let len = h
        .app
        .history
        .export_dialog()
        .map_or(0, |d| d.path().chars().count());
    for _ in 0..len {
        h.key(KeyCode::Backspace);
    }
    assert_eq!(
        h.app
            .history
            .export_dialog()
            .map(cantonscope::panes::export::ExportDialog::path),
        Some(String::new())
    );
}

/// Opens the dialog with `e`, types `path` and presses Enter.
fn export_to(h: &mut Harness, path: &Path) {
    h.key(KeyCode::Char('e'));
    assert!(h.app.history.is_export_dialog_open(), "e opens the dialog");
    clear_path(h);
    h.type_text(&path.display().to_string());
    h.key(KeyCode::Enter);
}

/// The update ids the History pane shows, in order.
fn shown_ids(h: &Harness) -> Vec<String> {
    let sh = &h.app.sh;
    let pane = &h.app.history;
    let rows = pane.row_count(sh);
    // Walk the rows through the public selection API on a clone of nothing: read the history
    // through the filter text instead (the pane keeps its view private).
    let filter = pane
        .filter_text()
        .map(|t| cantonscope::model::history::Filter::parse(t).expect("filter parses"));
    let mut view = cantonscope::model::history::FilteredView::default();
    view.set(filter.flatten(), &sh.history);
    assert_eq!(
        view.len(&sh.history),
        rows,
        "the rebuilt view matches the pane"
    );
    (0..rows)
        .filter_map(|r| view.index(r))
        .filter_map(|i| sh.history.get(i))
        .map(|s| s.update_id().to_string())
        .collect()
}

/// Masks the default file name's time stamp and the header's age of the newest update (days
/// and hours when the history starts at ledger begin).
fn mask_stamp(screen: &str) -> String {
    let s = regex::Regex::new(r"cantonscope-export-\d{8}T\d{6}Z")
        .expect("regex")
        .replace_all(screen, "cantonscope-export-<stamp>");
    regex::Regex::new(r"\([^()]*ago\)")
        .expect("regex")
        .replace_all(&s, "(<age>)")
        .into_owned()
}

// ---------------------------------------------------------------------------------------------
// Against the demo network
// ---------------------------------------------------------------------------------------------

#[test]
fn e_exports_every_shown_row_to_json_lines_in_history_order() {
    let mut h = Harness::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("all.jsonl");
    assert!(
        h.screen(120, 40).contains("e export"),
        "the footer offers e export"
    );
    let ids = shown_ids(&h);
    assert!(
        ids.len() > 10,
        "the demo loads recent history: {}",
        ids.len()
    );

    export_to(&mut h, &path);
    assert!(!h.app.history.is_export_dialog_open());
    assert_eq!(
        h.app.history.export_progress(),
        None,
        "small exports finish at once"
    );
    let bytes = std::fs::read(&path).expect("the file was written");
    assert_eq!(
        toast(&h),
        format!(
            "exported {} rows as JSON Lines to {} ({} bytes)",
            ids.len(),
            path.display(),
            cantonscope::ui::format::group_thousands(bytes.len())
        )
    );
    let text = String::from_utf8(bytes).expect("utf-8");
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is a JSON object"))
        .collect();
    assert_eq!(rows.len(), ids.len(), "one line per shown row");
    let exported: Vec<String> = rows
        .iter()
        .map(|r| r["update_id"].as_str().expect("update_id").to_string())
        .collect();
    assert_eq!(exported, ids, "the rows in history order");
    let mut last = (i64::MIN, i64::MIN);
    for r in &rows {
        let keys: Vec<&str> = r
            .as_object()
            .expect("object")
            .keys()
            .map(std::string::String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "record_time",
                "update_id",
                "migration_id",
                "kind",
                "root_action",
                "parties"
            ]
        );
        let t = parse_time_micros(r["record_time"].as_str().expect("time")).expect("RFC 3339");
        assert!(
            r["record_time"].as_str().is_some_and(|s| s.ends_with('Z')),
            "UTC"
        );
        let pos = (r["migration_id"].as_i64().expect("migration"), t);
        assert!(pos > last, "ascending ledger order");
        last = pos;
        assert!(
            ["transaction", "assign", "unassign"].contains(&r["kind"].as_str().expect("kind")),
            "{r}"
        );
        assert!(!r["root_action"].as_str().expect("root").is_empty());
        assert!(r["parties"].is_array());
    }
    // The summary shown in the pane is the exported root action.
    let first = h.app.sh.history.get(0).expect("first");
    assert_eq!(
        rows[0]["root_action"],
        first.root_label(&h.app.sh.history.summarizer.interner)
    );
    assert!(
        rows.iter()
            .any(|r| r["parties"].as_array().is_some_and(|p| !p.is_empty())),
        "parties are exported"
    );
}

#[test]
fn filtered_export_to_csv_holds_only_the_matching_rows() {
    let mut h = Harness::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let all = h.app.history.row_count(&h.app.sh);
    // Filter like a user: `/`, type, Enter keeps the filter.
    h.key(KeyCode::Char('/'));
    h.type_text("choice:transfer");
    h.key(KeyCode::Enter);
    let ids = shown_ids(&h);
    assert!(!ids.is_empty() && ids.len() < all, "{} of {all}", ids.len());

    h.key(KeyCode::Char('e'));
    // Tab switches to CSV and the extension follows.
    h.key(KeyCode::Tab);
    let dialog = h.app.history.export_dialog().expect("dialog");
    assert_eq!(dialog.format(), ExportFormat::Csv);
    assert!(dialog.path().ends_with(".csv"), "{}", dialog.path());
    assert_eq!(dialog.rows(), ids.len());
    clear_path(&mut h);
    let path = dir.path().join("filtered.csv");
    h.type_text(&path.display().to_string());
    h.key(KeyCode::Enter);

    let text = std::fs::read_to_string(&path).expect("written");
    assert!(
        text.starts_with(&format!("{CSV_HEADER}\r\n")),
        "header first"
    );
    assert!(text.ends_with("\r\n"), "CRLF line ends");
    let records = parse_csv(&text);
    assert_eq!(records[0].join(","), CSV_HEADER);
    assert_eq!(records.len() - 1, ids.len(), "one record per matching row");
    for (rec, id) in records[1..].iter().zip(&ids) {
        assert_eq!(rec.len(), 6, "{rec:?}");
        assert_eq!(&rec[1], id);
        assert!(parse_time_micros(&rec[0]).is_some(), "{rec:?}");
        assert!(rec[2].parse::<i64>().is_ok(), "{rec:?}");
        assert!(!rec[4].is_empty(), "{rec:?}");
        assert!(rec[5].split(';').all(|p| p.contains("::")), "{rec:?}");
    }
}

#[test]
fn the_palette_filter_is_exported_too_and_the_format_follows_the_extension() {
    let mut h = Harness::start();
    let dir = tempfile::tempdir().expect("tempdir");
    h.palette("filter choice:re:^AmuletRules");
    let ids = shown_ids(&h);
    assert!(!ids.is_empty());
    h.key(KeyCode::Char('e'));
    clear_path(&mut h);
    let path = dir.path().join("rules.json");
    h.type_text(&dir.path().join("rules.csv").display().to_string());
    assert_eq!(
        h.app
            .history
            .export_dialog()
            .map(cantonscope::panes::export::ExportDialog::format),
        Some(ExportFormat::Csv),
        ".csv means CSV"
    );
    for _ in 0..3 {
        h.key(KeyCode::Backspace);
    }
    h.type_text("json");
    assert_eq!(
        h.app
            .history
            .export_dialog()
            .map(cantonscope::panes::export::ExportDialog::format),
        Some(ExportFormat::JsonLines),
        ".json means JSON Lines"
    );
    h.key(KeyCode::Enter);
    let text = std::fs::read_to_string(&path).expect("written");
    let exported: Vec<String> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON");
            v["update_id"].as_str().expect("id").to_string()
        })
        .collect();
    assert_eq!(exported, ids, "exactly the rows the filter shows");
}

/// The explorer on the demo as the profile `profile` with the data directory `data` and, when
/// given, the profile's `export_dir`.
fn as_profile(profile: &str, data: &Path, export_dir: Option<&Path>) -> Harness {
    let (profile, data) = (profile.to_owned(), data.to_owned());
    let export_dir = export_dir.map(Path::to_owned);
    Harness::start_with(Options {
        tweak: Box::new(move |s| {
            s.embedded_demo = false;
            s.profile = Some(profile);
            s.data_dir = Some(data);
            s.export_dir = export_dir;
        }),
        ..Options::default()
    })
}

/// The export dialog's format and path as `e` opens it (closed again with Esc).
fn opened_with(h: &mut Harness) -> (ExportFormat, String) {
    h.key(KeyCode::Char('e'));
    let dialog = h.app.history.export_dialog().expect("e opens the dialog");
    let opened = (dialog.format(), dialog.path());
    h.key(KeyCode::Esc);
    opened
}

#[test]
fn the_last_export_format_is_kept_per_profile_and_export_dir_is_where_files_go() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (data, exports) = (dir.path().join("data"), dir.path().join("exports"));
    std::fs::create_dir(&exports).expect("folder");
    let mut h = as_profile("main", &data, Some(&exports));
    // A first run: JSON Lines, in the profile's export_dir.
    let (format, path) = opened_with(&mut h);
    assert_eq!(format, ExportFormat::JsonLines);
    assert!(path.starts_with(&exports.display().to_string()), "{path}");
    // CSV chosen and exported: the file lands in export_dir, and `e` opens with CSV again.
    h.key(KeyCode::Char('e'));
    h.key(KeyCode::Tab);
    h.key(KeyCode::Enter);
    let written: Vec<_> = std::fs::read_dir(&exports)
        .expect("listed")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    assert!(
        written[0].extension().is_some_and(|e| e == "csv"),
        "{written:?}"
    );
    let text = std::fs::read_to_string(&written[0]).expect("read");
    assert!(text.starts_with(CSV_HEADER), "a CSV file");
    let (format, path) = opened_with(&mut h);
    assert_eq!(format, ExportFormat::Csv);
    assert!(path.ends_with(".csv"), "{path}");
    // `X` (from the server) opens with it too.
    h.key(KeyCode::Char('X'));
    let range = h
        .app
        .history
        .range_dialog_mut()
        .expect("X opens its dialog");
    assert_eq!(range.format(), ExportFormat::Csv);
    assert!(range.field(0).starts_with(&exports.display().to_string()));
    h.key(KeyCode::Esc);
    drop(h);

    // The next run of the profile remembers; another profile does not, nor is the config
    // file involved (the state is kept under the data directory).
    let mut h = as_profile("main", &data, None);
    let (format, path) = opened_with(&mut h);
    assert_eq!(format, ExportFormat::Csv, "remembered across runs");
    assert!(
        !path.contains('/'),
        "without export_dir, the current directory: {path}"
    );
    assert!(data.join("state").join("main.json").is_file());
    let mut other = as_profile("other", &data, None);
    assert_eq!(opened_with(&mut other).0, ExportFormat::JsonLines);
    drop(other);

    // Back to JSON Lines: remembered in turn.
    h.key(KeyCode::Char('e'));
    h.key(KeyCode::Tab);
    clear_path(&mut h);
    let back = dir.path().join("back.jsonl");
    h.type_text(&back.display().to_string());
    h.key(KeyCode::Enter);
    assert!(back.is_file());
    drop(h);
    let mut h = as_profile("main", &data, None);
    assert_eq!(opened_with(&mut h).0, ExportFormat::JsonLines);
}

#[test]
fn esc_cancels_the_dialog_and_writes_nothing() {
    let mut h = Harness::start();
    let dir = tempfile::tempdir().expect("tempdir");
    h.key(KeyCode::Char('e'));
    assert!(h.app.history.is_export_dialog_open());
    assert_eq!(h.app.key_context(), KeyContext::TextInput);
    let footer = h.screen(120, 40);
    assert!(
        footer.contains("enter confirm") || footer.contains("Enter confirm"),
        "{footer}"
    );
    clear_path(&mut h);
    h.type_text(&dir.path().join("never.csv").display().to_string());
    h.key(KeyCode::Esc);
    assert!(!h.app.history.is_export_dialog_open());
    assert_eq!(h.app.key_context(), KeyContext::List);
    assert!(!dir.path().join("never.csv").exists());
    assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
    // Keys go back to the list: q in a text input would have been typed.
    h.key(KeyCode::Char('j'));
    assert!(!h.quit);
}

#[test]
fn bad_paths_are_explained() {
    let mut h = Harness::start();
    // Empty: the dialog stays open with a message.
    h.key(KeyCode::Char('e'));
    clear_path(&mut h);
    h.key(KeyCode::Enter);
    let dialog = h.app.history.export_dialog().expect("still open");
    assert_eq!(dialog.validation(), Some("enter a file name"));
    assert!(h.screen(80, 24).contains("enter a file name"));
    // A folder.
    h.type_text("/tmp/");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.app.history.export_dialog().and_then(|d| d.validation()),
        Some("that names a folder: add a file name")
    );
    // A folder that does not exist: the write fails and says why.
    clear_path(&mut h);
    let path = "/nonexistent-cantonscope-dir/out.csv";
    h.type_text(path);
    h.key(KeyCode::Enter);
    assert!(!h.app.history.is_export_dialog_open());
    let level = h.app.toast.as_ref().map(|t| t.level);
    assert_eq!(level, Some(Level::Error));
    let text = toast(&h);
    assert!(
        text.starts_with(&format!("export failed: could not write {path}:"))
            && text.contains("No such file"),
        "{text}"
    );
    let logged = h.app.errors.latest().expect("in the error log");
    assert!(logged.message.contains(path), "{}", logged.message);
}

#[test]
fn nothing_to_export_says_so() {
    let mut h = Harness::start();
    h.palette("filter no-such-thing-anywhere-xyz");
    assert_eq!(h.app.history.row_count(&h.app.sh), 0);
    h.key(KeyCode::Char('e'));
    assert!(!h.app.history.is_export_dialog_open());
    assert_eq!(
        toast(&h),
        "nothing to export: no loaded update matches the filter"
    );
}

/// The demo from ledger begin: the loaded rows do not depend on the wall clock (the recent
/// window's contents do), but their times do: at some times of day they cross midnight and the
/// Time column shows dates, so the snapshots' names carry [`Harness::days_suffix`].
fn begin_harness() -> Harness {
    Harness::start_with(Options {
        tweak: Box::new(|s| s.from = HistoryStart::Begin),
        ..Options::default()
    })
}

#[test]
fn dialog_snapshot_80x24() {
    let mut h = begin_harness();
    h.palette("filter choice:transfer");
    h.key(KeyCode::Char('e'));
    assert_snapshot!(
        format!("dialog_snapshot_80x24{}", h.days_suffix()),
        mask_stamp(&stable(&h.screen(80, 24)))
    );
}

#[test]
fn dialog_snapshot_120x40() {
    let mut h = begin_harness();
    h.key(KeyCode::Char('e'));
    h.key(KeyCode::Tab);
    assert_snapshot!(
        format!("dialog_snapshot_120x40{}", h.days_suffix()),
        mask_stamp(&stable(&h.screen(120, 40)))
    );
}

#[test]
fn dialog_with_a_validation_message_at_80x24() {
    let mut h = begin_harness();
    h.key(KeyCode::Char('e'));
    clear_path(&mut h);
    h.key(KeyCode::Enter);
    assert_snapshot!(
        format!(
            "dialog_with_a_validation_message_at_80x24{}",
            h.days_suffix()
        ),
        mask_stamp(&stable(&h.screen(80, 24)))
    );
}

// ---------------------------------------------------------------------------------------------
// Pure pane tests: many summaries, hostile strings
// ---------------------------------------------------------------------------------------------

fn t0() -> i64 {
    parse_time_micros("2026-11-22T10:00:00Z").expect("time")
}

fn tx_item(n: u64, t: i64, template: &str, choice: &str, parties: &[&str]) -> Value {
    let id = format!("1220{n:064x}");
    let mut events = Map::new();
    events.insert(
        format!("{id}:0"),
        json!({
            "event_type": "exercised_event",
            "event_id": format!("{id}:0"),
            "contract_id": format!("00{n:016x}ca10"),
            "template_id": format!("a1b2:{template}"),
            "package_name": "splice-amulet",
            "choice": choice,
            "choice_argument": {},
            "child_event_ids": [],
            "exercise_result": {},
            "consuming": false,
            "acting_parties": parties,
            "interface_id": null
        }),
    );
    json!({
        "update_id": id,
        "migration_id": 3,
        "workflow_id": "",
        "record_time": format_time_micros(t),
        "synchronizer_id": "global-domain::1220b1431ef2",
        "effective_at": format_time_micros(t),
        "root_event_ids": [format!("{id}:0")],
        "events_by_id": Value::Object(events)
    })
}

fn page(items: Vec<Value>) -> UpdatesPage {
    serde_json::from_value(json!({ "transactions": items })).expect("page decodes")
}

struct Pure {
    sh: Shared,
    pane: HistoryPane,
    out: Out,
    /// The files the pane wrote (path → contents), as the runtime's ordered writer would.
    fs: std::collections::BTreeMap<String, Vec<u8>>,
}

impl Pure {
    /// A pane over `n` loaded transactions, one millisecond apart from `t0() + 1 h`.
    fn with_rows(n: usize) -> Pure {
        let mut sh = Shared::new(AppContext::default(), t0() + 86_400_000_000);
        let base = t0() + 3_600_000_000;
        let p = page(vec![tx_item(
            0,
            base,
            "Splice.AmuletRules:AmuletRules",
            "AmuletRules_Transfer",
            &["alice::1220aa", "bob::1220bb"],
        )]);
        sh.history.add_page(&p.transactions, Placement::Append);
        let proto = sh.history.get(0).expect("summary").clone();
        for i in 1..n {
            let s = proto.with_id_and_time(&format!("1220{i:064x}"), base + i as i64 * 1000);
            sh.history.push_summary(s);
        }
        let mut pane = HistoryPane::new(&sh);
        pane.set_area(Rect::new(0, 0, 80, 24));
        Pure {
            sh,
            pane,
            out: Out::default(),
            fs: Default::default(),
        }
    }

    fn cmd(&mut self, cmd: Command) {
        let mut out = Out::default();
        self.pane.on_command(cmd, &mut self.sh, &mut out);
        self.absorb(out);
    }

    fn key(&mut self, code: KeyCode) {
        let mut out = Out::default();
        self.pane.on_key(
            &KeyEvent::new(code, KeyModifiers::NONE),
            &mut self.sh,
            &mut out,
        );
        self.absorb(out);
    }

    fn type_text(&mut self, s: &str) {
        for c in s.chars() {
            self.key(KeyCode::Char(c));
        }
    }

    fn tick(&mut self) {
        self.sh.now += 250_000;
        let mut out = Out::default();
        self.pane.on_tick(&mut self.sh, &mut out);
        self.absorb(out);
    }

    fn absorb(&mut self, mut out: Out) {
        self.out.effects.append(&mut out.effects);
        self.out.events.append(&mut out.events);
    }

    /// Opens the dialog, sets the path and starts the export.
    fn start_export(&mut self, path: &str) {
        self.cmd(Command::Export);
        assert!(self.pane.is_export_dialog_open());
        for _ in 0..200 {
            self.key(KeyCode::Backspace);
        }
        self.type_text(path);
        self.key(KeyCode::Enter);
    }

    /// Runs the pending file effects in order (answering each write to the pane, as the
    /// runtime does) and returns the files they touched that exist afterwards.
    fn written(&mut self) -> Vec<(String, Vec<u8>)> {
        let mut touched: Vec<String> = Vec::new();
        let mut others = Vec::new();
        // The effects, and those the answers bring (a cancelled export's file goes once it
        // was created), until none is left.
        while !self.out.effects.is_empty() {
            let effects = std::mem::take(&mut self.out.effects);
            for e in effects {
                self.run_file_effect(e, &mut touched, &mut others);
            }
        }
        self.out.effects = others;
        touched.dedup();
        touched
            .into_iter()
            .filter_map(|p| self.fs.get(&p).map(|c| (p, c.clone())))
            .collect()
    }

    /// One effect as the runtime's ordered writer runs it (a new file is refused when the
    /// path is taken), answered to the pane; any other effect is kept in `others`.
    fn run_file_effect(&mut self, e: Effect, touched: &mut Vec<String>, others: &mut Vec<Effect>) {
        let (id, n) = match e {
            Effect::CreateFile { id, path, contents } => {
                let p = path.display().to_string();
                if self.fs.contains_key(&p) {
                    let mut out = Out::default();
                    let exists = Err(cantonscope::msg::FILE_EXISTS.to_owned());
                    assert!(self.pane.on_written(id, &exists, &mut out));
                    self.absorb(out);
                    return;
                }
                let n = contents.len();
                self.fs.insert(p.clone(), contents);
                touched.push(p);
                (id, n)
            }
            Effect::WriteFile { id, path, contents } => {
                let p = path.display().to_string();
                let n = contents.len();
                self.fs.insert(p.clone(), contents);
                touched.push(p);
                (id, n)
            }
            Effect::AppendFile { id, path, contents } => {
                let p = path.display().to_string();
                let n = contents.len();
                self.fs
                    .get_mut(&p)
                    .expect("appends follow a write")
                    .extend_from_slice(&contents);
                touched.push(p);
                (id, n)
            }
            Effect::RemoveFile(path) => {
                let p = path.display().to_string();
                self.fs.remove(&p);
                touched.push(p);
                return;
            }
            other => {
                others.push(other);
                return;
            }
        };
        let mut out = Out::default();
        assert!(
            self.pane.on_written(id, &Ok(n), &mut out),
            "the export claims its writes"
        );
        self.absorb(out);
    }

    fn messages(&mut self) -> Vec<String> {
        std::mem::take(&mut self.out.events)
            .into_iter()
            .filter_map(|e| match e {
                AppEvent::Message(_, m) | AppEvent::Error(_, m) => Some(m),
                _ => None,
            })
            .collect()
    }

    fn render(&self, w: u16, h: u16) -> Buffer {
        pane::render(&self.pane, &self.sh, w, h)
    }
}

#[test]
fn a_big_export_runs_in_chunks_with_progress_from_a_frozen_snapshot() {
    let total = CHUNK_ROWS * 2 + 20_000;
    let mut p = Pure::with_rows(total);
    p.start_export("big.jsonl");
    // Enter encodes the first chunk; the rest follows on ticks.
    assert_eq!(p.pane.export_progress(), Some((CHUNK_ROWS, total)));
    // It streams: the first chunk is already on its way to the file (memory stays at a chunk).
    let files = p.written();
    assert_eq!(files.len(), 1);
    assert_eq!(
        std::str::from_utf8(&files[0].1)
            .expect("utf-8")
            .lines()
            .count(),
        CHUNK_ROWS
    );
    let screen = buffer_text(&p.render(80, 24));
    assert!(screen.contains("exporting 33%"), "{screen}");
    assert!(screen.contains("20,000 / 60,000 rows"), "{screen}");
    assert!(screen.contains("export 33%"), "title: {screen}");
    // The tab keeps counting rows (the progress is in the title).
    assert_eq!(p.pane.tab_count(&p.sh), Some(p.sh.history.len()));
    assert_snapshot!("progress_80x24", screen);

    // New updates arrive at both ends meanwhile: the export keeps what was shown.
    let older = page(vec![tx_item(
        900_001,
        t0(),
        "Splice.Amulet:Amulet",
        "Archive",
        &["carol::1220cc"],
    )]);
    assert_eq!(
        p.sh.history
            .add_page(&older.transactions, Placement::Prepend),
        1
    );
    let newer = page(vec![tx_item(
        900_002,
        t0() + 86_000_000_000,
        "Splice.Amulet:Amulet",
        "Archive",
        &["carol::1220cc"],
    )]);
    assert_eq!(
        p.sh.history
            .add_page(&newer.transactions, Placement::Append),
        1
    );
    // The UI keeps working while exporting.
    p.cmd(Command::Up);
    p.tick();
    assert_eq!(p.pane.export_progress(), Some((2 * CHUNK_ROWS, total)));
    p.tick();
    assert_eq!(p.pane.export_progress(), None);
    let files = p.written();
    assert_eq!(files.len(), 1);
    let (path, contents) = &files[0];
    assert_eq!(path, "big.jsonl");
    let text = std::str::from_utf8(contents).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), total);
    let first: Value = serde_json::from_str(lines[0]).expect("json");
    let last: Value = serde_json::from_str(lines[total - 1]).expect("json");
    assert_eq!(first["update_id"], format!("1220{:064x}", 0));
    assert_eq!(last["update_id"], format!("1220{:064x}", total - 1));
    assert_eq!(first["parties"], json!(["alice::1220aa", "bob::1220bb"]));
    assert_eq!(first["root_action"], "AmuletRules_Transfer");
    assert!(!text.contains("carol"), "later arrivals are not exported");
    let bytes = contents.len();
    let done = format!(
        "exported 60,000 rows as JSON Lines to big.jsonl ({} bytes)",
        cantonscope::ui::format::group_thousands(bytes)
    );
    assert!(p.messages().contains(&done), "{done}");
    // Nothing more happens on later ticks.
    p.tick();
    assert!(p.written().is_empty());
}

#[test]
fn esc_cancels_a_running_export_and_nothing_is_written() {
    let total = CHUNK_ROWS + 10;
    let mut p = Pure::with_rows(total);
    p.start_export("cancelled.csv");
    assert_eq!(p.pane.export_progress(), Some((CHUNK_ROWS, total)));
    // e again while running: it says so instead of opening a second dialog.
    p.cmd(Command::Export);
    assert!(!p.pane.is_export_dialog_open());
    p.messages();
    p.cmd(Command::Back);
    assert_eq!(p.pane.export_progress(), None);
    assert_eq!(
        p.messages(),
        ["export cancelled at 20,000 of 20,010 rows; the partial file was removed"]
    );
    p.tick();
    p.tick();
    assert!(p.written().is_empty());
    assert!(
        p.fs.is_empty(),
        "the partial file is gone: {:?}",
        p.fs.keys()
    );
    assert!(!buffer_text(&p.render(80, 24)).contains("exporting"));
}

/// A file that exists is refused by the first chunk, and nothing follows it: no chunk is
/// appended to the file, and a cancel before that answer came removes nothing. Before, the
/// first chunk replaced the file, and a cancel removed it.
#[test]
fn a_file_that_exists_is_never_appended_to_or_removed() {
    let total = CHUNK_ROWS * 2 + 10;
    let mut p = Pure::with_rows(total);
    p.fs.insert("keep.jsonl".into(), b"precious\n".to_vec());
    p.start_export("keep.jsonl");
    // Ticks before the answer encode nothing more.
    p.tick();
    p.tick();
    assert_eq!(p.pane.export_progress(), Some((CHUNK_ROWS, total)));
    assert!(p.written().is_empty());
    assert_eq!(p.fs["keep.jsonl"], b"precious\n");
    assert_eq!(p.pane.export_progress(), None);
    assert!(
        p.messages()
            .contains(&"keep.jsonl exists: not replaced".to_owned()),
        "the status line says so"
    );
    assert_eq!(
        p.pane.export_dialog().and_then(|d| d.validation()),
        Some(cantonscope::panes::new_file::EXISTS_NOTE)
    );

    // Esc, e to the same file and Esc again while its first chunk is on its way: kept.
    p.key(KeyCode::Esc);
    p.start_export("keep.jsonl");
    p.cmd(Command::Back);
    assert_eq!(p.pane.export_progress(), None);
    p.tick();
    p.written();
    assert_eq!(p.fs["keep.jsonl"], b"precious\n", "not removed");
}

#[test]
fn reloading_the_history_cancels_the_export() {
    let total = CHUNK_ROWS + 10;
    let mut p = Pure::with_rows(total);
    p.start_export("reload.jsonl");
    assert!(p.pane.export_progress().is_some());
    let mut out = Out::default();
    // A time far outside the loaded range reloads the history.
    p.pane.goto_time(t0() - 86_400_000_000, &mut p.sh, &mut out);
    p.absorb(out);
    assert_eq!(p.pane.export_progress(), None);
    assert!(
        p.messages()
            .iter()
            .any(|m| m == "export cancelled: the history is being reloaded")
    );
    p.tick();
    assert!(p.written().is_empty());
    assert!(
        p.fs.is_empty(),
        "the partial file is gone: {:?}",
        p.fs.keys()
    );
}

#[test]
fn server_strings_are_neutralised_in_csv_and_escaped_in_json_lines() {
    let mut sh = Shared::new(AppContext::default(), t0());
    let hostile = page(vec![
        tx_item(
            1,
            t0(),
            "Evil:Tpl",
            "=HYPERLINK(\"http://x\",\"click\")",
            &["@SUM(1+1)::1220", "x,y\"z::1220"],
        ),
        tx_item(
            2,
            t0() + 1,
            "Evil:Tpl",
            "+cmd|' /C calc'!A0",
            &["-2+3::1220"],
        ),
        tx_item(
            3,
            t0() + 2,
            "Evil:Tpl",
            "ok\u{1b}[31mred\nline",
            &["p::1220"],
        ),
    ]);
    sh.history
        .add_page(&hostile.transactions, Placement::Append);
    let mut pane = HistoryPane::new(&sh);
    pane.set_area(Rect::new(0, 0, 120, 40));
    let mut p = Pure {
        sh,
        pane,
        out: Out::default(),
        fs: Default::default(),
    };
    p.start_export("hostile.csv");
    let files = p.written();
    let text = String::from_utf8(files[0].1.clone()).expect("utf-8");
    assert!(!text.contains('\u{1b}'), "no raw escape in the CSV");
    let records = parse_csv(&text);
    assert_eq!(records.len(), 4, "{text:?}");
    assert_eq!(records[1][4], "'=HYPERLINK(\"http://x\",\"click\")");
    assert_eq!(records[1][5], "'@SUM(1+1)::1220;x,y\"z::1220");
    assert_eq!(records[2][4], "'+cmd|' /C calc'!A0");
    assert_eq!(records[2][5], "'-2+3::1220");
    assert_eq!(records[3][4], "ok\u{FFFD}[31mred\nline");
    // No field of the file starts a formula.
    for rec in &records[1..] {
        for f in rec {
            assert!(!f.starts_with(['=', '+', '-', '@']), "{f:?}");
        }
    }

    // The same rows as JSON Lines keep the server's text exactly, escaped by serde_json.
    p.start_export("hostile.jsonl");
    let files = p.written();
    let text = String::from_utf8(files[0].1.clone()).expect("utf-8");
    assert!(!text.contains('\u{1b}'), "escaped as \\u001b");
    assert_eq!(
        text.lines().count(),
        3,
        "newlines inside strings are escaped"
    );
    let third: Value = serde_json::from_str(text.lines().nth(2).expect("line")).expect("json");
    assert_eq!(third["root_action"], "ok\u{1b}[31mred\nline");
    let first: Value = serde_json::from_str(text.lines().next().expect("line")).expect("json");
    assert_eq!(first["parties"], json!(["@SUM(1+1)::1220", "x,y\"z::1220"]));
}

#[test]
fn csv_fields_neutralise_formulas_and_quote_separators() {
    assert_eq!(csv_field("=1+1"), "'=1+1");
    assert_eq!(csv_field("@A1"), "'@A1");
    assert_eq!(csv_field("+41"), "'+41");
    assert_eq!(csv_field("-41"), "'-41");
    assert_eq!(csv_field("\r=1"), "\"'\r=1\"");
    assert_eq!(csv_field("a,b"), "\"a,b\"");
    assert_eq!(csv_field("a\"b"), "\"a\"\"b\"");
    assert_eq!(csv_field("a\u{7}b\u{9b}c"), "a\u{FFFD}b\u{FFFD}c");
    assert_eq!(
        csv_field("AmuletRules_Transfer +1"),
        "AmuletRules_Transfer +1"
    );
}

#[test]
fn tiny_sizes_with_the_dialog_and_progress_never_panic() {
    let mut p = Pure::with_rows(CHUNK_ROWS + 5);
    p.cmd(Command::Export);
    for (w, hgt) in [
        (1, 1),
        (0, 5),
        (5, 0),
        (3, 3),
        (20, 4),
        (40, 10),
        (2, 30),
        (80, 5),
    ] {
        p.pane.set_area(Rect::new(0, 0, w, hgt));
        let _ = p.render(w, hgt);
    }
    p.key(KeyCode::Enter);
    assert!(p.pane.export_progress().is_some());
    for (w, hgt) in [(1, 1), (0, 5), (5, 0), (3, 3), (20, 4), (40, 10), (2, 30)] {
        p.pane.set_area(Rect::new(0, 0, w, hgt));
        let _ = p.render(w, hgt);
    }
}

#[test]
fn the_dialog_draws_over_the_pane_in_a_terminal() {
    // The dialog is drawn by the pane's render (only reads): a TestBackend frame works too.
    let mut p = Pure::with_rows(3);
    p.cmd(Command::Export);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    terminal
        .draw(|f| {
            p.pane.render(
                f.area(),
                f.buffer_mut(),
                RenderCtx::new(&p.sh, &Theme::default(), true),
            );
        })
        .expect("draw");
    let text = buffer_text(terminal.backend().buffer());
    assert!(text.contains("Export 3 updates"), "{text}");
    assert!(text.contains("● JSON Lines"), "{text}");
    assert!(text.contains("3 loaded, oldest first"), "{text}");
    assert_eq!(p.pane.hints(), [Command::Confirm, Command::Cancel]);
}

/// Operator habits: `e`'s dialog has one field, the path, and its cursor never leaves it: ←/→
/// move in the path and never switch the format; Tab, Shift-Tab, ↑, ↓ and Ctrl-T switch it (the
/// extension follows); the dialog's last line and its Format line name those keys.
#[test]
fn e_switches_its_format_with_tab_arrows_up_down_and_ctrl_t_while_left_right_edit_the_path() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('e'));
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("Enter export · Tab/↑/↓ ^T format · ←/→ in the path · Esc cancel"),
        "{screen}"
    );
    assert!(screen.contains("(Tab or Ctrl-T switches)"), "{screen}");
    let state = |h: &Harness| {
        let d = h.app.history.export_dialog().expect("the dialog is open");
        (d.format(), d.path())
    };
    let (format, path) = state(&h);
    assert_eq!(format, ExportFormat::JsonLines);
    assert!(path.ends_with(".jsonl"), "{path}");
    // ← moves the cursor: a letter typed lands before the extension's last letter.
    h.key(KeyCode::Left);
    h.key(KeyCode::Char('x'));
    let (format, edited) = state(&h);
    assert_eq!(
        format,
        ExportFormat::JsonLines,
        "← does not switch the format"
    );
    assert!(edited.ends_with(".jsonxl"), "{edited}");
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Right);
    assert_eq!(state(&h), (ExportFormat::JsonLines, path.clone()));
    // Tab, ↓, ↑, Shift-Tab and Ctrl-T each switch it.
    let mut want = ExportFormat::JsonLines;
    for (code, modifiers) in [
        (KeyCode::Tab, KeyModifiers::NONE),
        (KeyCode::Down, KeyModifiers::NONE),
        (KeyCode::Up, KeyModifiers::NONE),
        (KeyCode::BackTab, KeyModifiers::SHIFT),
        (KeyCode::Char('t'), KeyModifiers::CONTROL),
    ] {
        h.key_mod(code, modifiers);
        want = if want == ExportFormat::Csv {
            ExportFormat::JsonLines
        } else {
            ExportFormat::Csv
        };
        let (format, path) = state(&h);
        assert_eq!(format, want, "{code:?}");
        let ext = if want == ExportFormat::Csv {
            ".csv"
        } else {
            ".jsonl"
        };
        assert!(path.ends_with(ext), "{code:?}: {path}");
    }
    assert!(h.screen(80, 24).contains("○ JSON Lines  ● CSV"));
    h.key(KeyCode::Esc);
    assert!(h.app.history.export_dialog().is_none());
}
