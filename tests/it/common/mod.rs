//! What the test modules share. Here: a headless driver for the whole explorer ([`Harness`]):
//! the in-process demo network, a real [`App`] and its real API clients. Every `Fetch` effect
//! goes over HTTP to the demo server and comes back as an `Action::Fetched`; file writes really
//! happen; copies and quits are recorded. Drawing goes through ratatui's `TestBackend`.
//!
//! - [`screen`]: screens as text, masks for volatile parts, [`assert_snapshot!`];
//! - [`pane`]: one pane driven and drawn on its own, without the app;
//! - [`http`]: plain HTTP against a fresh demo network;
//! - [`migrated`]: an index made of an older schema, migrated in place, asked the same;
//! - [`fixtures`]: API payloads several tests share, from `tests/fixtures/`.
#![allow(dead_code)]

pub mod bin;
pub mod fixtures;
pub mod http;
pub mod migrated;
pub mod pane;
pub mod requests;
pub mod screen;

pub use fixtures::{fixture, fixture_text};
pub(crate) use screen::assert_snapshot;
pub use screen::{buffer_text, screen_text, stable, stable_hms, untrimmed_text};

use std::time::Instant;

use cantonscope::app::App;
use cantonscope::config::Settings;
use cantonscope::demo::{DemoConfig, DemoHandle};
use cantonscope::msg::Command;
use cantonscope::msg::{Action, Effect, Fetched};
use cantonscope::runtime::Clients;
use cantonscope::runtime::fetch::execute;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

/// The explorer driven headless against the demo network.
pub struct Harness {
    pub rt: tokio::runtime::Runtime,
    pub demo: Option<DemoHandle>,
    pub app: App,
    pub clients: Clients,
    /// The app's clock (µs since the epoch); [`Harness::tick`] moves it.
    pub now: i64,
    /// Texts copied through OSC 52, in order.
    pub copied: Vec<String>,
    /// New findings announced (the bell, a desktop notification), in order.
    pub announced: Vec<String>,
    /// Whether the app asked to quit.
    pub quit: bool,
    /// Requests that went out (described), in order.
    pub requests: Vec<String>,
}

/// What [`Options::prepare`] runs: given the demo network, the explorer's clock and the settings.
pub type Prepare = Box<dyn FnOnce(&DemoHandle, i64, &mut Settings)>;

/// Options for [`Harness::start_with`].
pub struct Options {
    pub seed: u64,
    pub scans: usize,
    /// New demo updates per second (0: a static ledger).
    pub rate: f64,
    pub read_only: bool,
    /// Configure the ledger token (the demo's).
    pub token: bool,
    /// Set up the settings further (theme, keys, `from`).
    pub tweak: Box<dyn FnOnce(&mut Settings)>,
    /// Set up the demo network further (more scans, faults).
    pub demo: Box<dyn FnOnce(DemoConfig) -> DemoConfig>,
    /// Faults of the demo network (e.g. a participant without `/v2/updates/trees`).
    pub faults: cantonscope::demo::DemoFaults,
    /// Runs once the demo network is up, before the explorer is built (e.g. syncing a local
    /// index from it), at the explorer's clock; may set up the settings further.
    pub prepare: Prepare,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seed: 42,
            scans: 1,
            rate: 0.0,
            read_only: false,
            token: true,
            tweak: Box::new(|_| {}),
            demo: Box::new(|c| c),
            faults: cantonscope::demo::DemoFaults::default(),
            prepare: Box::new(|_, _, _| {}),
        }
    }
}

impl Harness {
    /// The demo network (seed 42, static) and the explorer on it, started and settled.
    pub fn start() -> Harness {
        Harness::start_with(Options::default())
    }

    pub fn start_with(opts: Options) -> Harness {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let demo = rt
            .block_on(cantonscope::demo::start((opts.demo)(DemoConfig {
                seed: opts.seed,
                scans: opts.scans,
                rate: opts.rate,
                faults: opts.faults,
                ..DemoConfig::default()
            })))
            .expect("demo starts");
        let mut settings = Settings::default();
        let token = if opts.token {
            demo.token.clone()
        } else {
            String::new()
        };
        settings
            .use_demo(
                &demo.scan_urls,
                &demo.validator_url,
                &demo.ledger_url,
                &token,
            )
            .expect("demo settings");
        if !opts.token {
            settings.token = None;
        }
        settings.read_only = opts.read_only;
        settings.theme = "dark".into();
        (opts.tweak)(&mut settings);
        // A static ledger gets a clock a few seconds after its newest update, so the recent
        // window (and every snapshot) is the same whenever the ledger was generated.
        let now = if opts.rate == 0.0 {
            cantonscope::demo::generate(opts.seed)
                .updates()
                .last()
                .map(|u| u.record_time + 4_000_000)
                .expect("a generated ledger")
        } else {
            chrono::Utc::now().timestamp_micros()
        };
        (opts.prepare)(&demo, now, &mut settings);
        let (app, clients) = {
            let _guard = rt.enter();
            cantonscope::runtime::build(&settings, now).expect("app builds")
        };
        let mut h = Harness {
            rt,
            demo: Some(demo),
            app,
            clients,
            now,
            copied: Vec::new(),
            announced: Vec::new(),
            quit: false,
            requests: Vec::new(),
        };
        h.act(Action::Resize(120, 40));
        let effects = h.app.start();
        h.run(effects);
        h
    }

    /// The explorer on nodes that run elsewhere (e.g. a `serve-demo` child process, so that
    /// this process's memory is the explorer's alone), built from `settings` at clock `now`,
    /// started and settled.
    pub fn connect(settings: &Settings, now: i64) -> Harness {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let (app, clients) = {
            let _guard = rt.enter();
            cantonscope::runtime::build(settings, now).expect("app builds")
        };
        let mut h = Harness {
            rt,
            demo: None,
            app,
            clients,
            now,
            copied: Vec::new(),
            announced: Vec::new(),
            quit: false,
            requests: Vec::new(),
        };
        h.act(Action::Resize(120, 40));
        let effects = h.app.start();
        h.run(effects);
        h
    }

    /// Applies one action and runs every effect it (transitively) produced.
    pub fn act(&mut self, action: Action) {
        let effects = self.app.update(action);
        self.run(effects);
    }

    /// Runs effects until none are left (fetches complete one after another).
    pub fn run(&mut self, effects: Vec<Effect>) {
        let mut queue: std::collections::VecDeque<Effect> = effects.into();
        let mut guard = 0;
        while let Some(effect) = queue.pop_front() {
            guard += 1;
            assert!(guard < 10_000, "effects never settle");
            let more = match effect {
                Effect::Fetch { id, request } => {
                    self.requests.push(request.describe());
                    let started = Instant::now();
                    let result = self.rt.block_on(execute(&self.clients, &request));
                    let elapsed_ms = started.elapsed().as_millis() as u32;
                    self.app.update(Action::Fetched(Box::new(Fetched {
                        id,
                        request,
                        result,
                        elapsed_ms,
                    })))
                }
                Effect::Cancel(_) => Vec::new(),
                Effect::Copy(text) => {
                    self.copied.push(text);
                    Vec::new()
                }
                Effect::Notify { text, .. } => {
                    self.announced.push(text);
                    Vec::new()
                }
                Effect::WriteFile { id, path, contents } => {
                    let n = contents.len();
                    let result = std::fs::write(&path, contents)
                        .map(|()| n)
                        .map_err(|e| e.to_string());
                    self.app.update(Action::Written {
                        id,
                        path: path.display().to_string(),
                        result,
                    })
                }
                Effect::CreateFile { id, path, contents } => {
                    let result = cantonscope::runtime::create_new_file(&path, &contents);
                    self.app.update(Action::Written {
                        id,
                        path: path.display().to_string(),
                        result,
                    })
                }
                Effect::AppendFile { id, path, contents } => {
                    use std::io::Write as _;
                    let n = contents.len();
                    let result = std::fs::OpenOptions::new()
                        .append(true)
                        .open(&path)
                        .and_then(|mut f| f.write_all(&contents))
                        .map(|()| n)
                        .map_err(|e| e.to_string());
                    self.app.update(Action::Written {
                        id,
                        path: path.display().to_string(),
                        result,
                    })
                }
                Effect::KeepFile { path, contents } => {
                    cantonscope::config::state::write_atomically(&path, &contents)
                        .expect("the state file is written");
                    Vec::new()
                }
                Effect::RemoveFile(path) => {
                    let _ = std::fs::remove_file(path);
                    Vec::new()
                }
                Effect::TruncateFile { id, path, len } => {
                    let result = std::fs::OpenOptions::new()
                        .write(true)
                        .open(&path)
                        .and_then(|f| f.set_len(len))
                        .map(|()| len as usize)
                        .map_err(|e| e.to_string());
                    self.app.update(Action::Written {
                        id,
                        path: path.display().to_string(),
                        result,
                    })
                }
                Effect::ReadFile { id, path } => {
                    let result = std::fs::read(&path).map_err(|e| e.to_string());
                    self.app.update(Action::FileRead {
                        id,
                        path: path.display().to_string(),
                        result,
                    })
                }
                Effect::LoadTheme(name) => {
                    let result = cantonscope::ui::theme::Theme::read_source(&name, None)
                        .map(Box::new)
                        .map_err(|e| e.to_string());
                    self.app.update(Action::ThemeLoaded(result))
                }
                Effect::Quit => {
                    self.quit = true;
                    Vec::new()
                }
            };
            queue.extend(more);
        }
    }

    /// Stops the demo network (its nodes go down).
    pub fn stop_demo(&mut self) -> std::net::SocketAddr {
        let demo = self.demo.take().expect("demo running");
        let addr: std::net::SocketAddr = demo
            .scan_url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .and_then(|a| a.parse().ok())
            .expect("demo address");
        self.rt.block_on(demo.shutdown());
        addr
    }

    /// Starts the demo network again on `addr` (same seed: the same ledger).
    pub fn restart_demo(&mut self, addr: std::net::SocketAddr) {
        let demo = self
            .rt
            .block_on(cantonscope::demo::start(DemoConfig {
                listen: addr,
                ..DemoConfig::default()
            }))
            .expect("demo restarts");
        self.demo = Some(demo);
    }

    /// Moves the clock by `secs` seconds and ticks (polls run).
    pub fn tick(&mut self, secs: f64) {
        self.now += (secs * 1e6) as i64;
        self.act(Action::Tick(self.now));
    }

    /// Runs a keymap command.
    pub fn cmd(&mut self, cmd: Command) {
        self.act(Action::Command(cmd));
    }

    /// Presses a key (through the keymap, as a user would).
    pub fn key(&mut self, code: KeyCode) {
        self.key_mod(code, KeyModifiers::NONE);
    }

    pub fn key_mod(&mut self, code: KeyCode, modifiers: KeyModifiers) {
        self.act(Action::Key(KeyEvent {
            code,
            modifiers,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }));
    }

    /// Types text, one key per character.
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.key(KeyCode::Char(c));
        }
    }

    /// Runs a palette line (`event <id>`, `theme light`, ...).
    pub fn palette(&mut self, line: &str) {
        self.act(Action::Palette(line.to_string()));
    }

    /// Draws the whole screen at `w`x`h` and returns the buffer.
    pub fn draw(&mut self, w: u16, h: u16) -> Buffer {
        if self.app.size.width != w || self.app.size.height != h {
            self.act(Action::Resize(w, h));
        }
        let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        terminal
            .draw(|f| cantonscope::app::draw::draw(&self.app, f))
            .expect("draw");
        terminal.backend().buffer().clone()
    }

    /// The screen as text, one line per row.
    pub fn screen(&mut self, w: u16, h: u16) -> String {
        buffer_text(&self.draw(w, h))
    }

    /// `"_two_days"` when the loaded History rows span two UTC days, else `""`: a snapshot
    /// name's suffix. The demo's history ends at the wall clock, so at some times of day the
    /// same rows cross midnight, and the Time column then shows dates (a layout of its own).
    pub fn days_suffix(&self) -> &'static str {
        let day = |t: i64| t.div_euclid(86_400_000_000);
        let loaded = &self.app.sh.history;
        match (loaded.first(), loaded.last()) {
            (Some(a), Some(b)) if day(a.record_time()) != day(b.record_time()) => "_two_days",
            _ => "",
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if let Some(demo) = self.demo.take() {
            self.rt.block_on(demo.shutdown());
        }
    }
}

/// The toast's text (empty without one).
pub fn toast(h: &Harness) -> String {
    h.app
        .toast
        .as_ref()
        .map(|t| t.text.clone())
        .unwrap_or_default()
}

/// How many requests went out whose description contains `what`.
pub fn count(h: &Harness, what: &str) -> usize {
    h.requests.iter().filter(|r| r.contains(what)).count()
}

/// Empties the focused text input: 200 Backspaces.
pub fn clear_input(h: &mut Harness) {
    for _ in 0..200 {
        h.key(KeyCode::Backspace);
    }
}
