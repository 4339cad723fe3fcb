//! The runtime: the only place that touches the terminal and spawns tasks. Terminal events,
//! ticks and fetch results become [`Action`]s on one channel; the loop drains the channel, runs
//! `App::update` for each action, runs the returned effects, and draws once — only when the
//! state changed. Idle means no bytes written to the terminal.

pub mod fetch;
pub mod index;
pub mod rewrite_check;
pub mod terminal;

use std::collections::HashMap;
use std::io::{self, Write};
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream};
use futures_util::StreamExt;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::task::AbortHandle;

pub use crate::api::redact_userinfo;
use crate::app::App;
use crate::msg::{Action, Effect, Fetched, RequestId};
use crate::ui::osc52::{Multiplexer, osc52_sequence};

pub use fetch::Clients;

/// How often the clock ticks (polling and ages are driven by ticks).
const TICK: Duration = Duration::from_millis(250);

fn now_micros() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

/// Runs the explorer until the user quits. The terminal is restored on every exit path.
pub async fn run(
    mut app: App,
    clients: Clients,
    config_dir: Option<std::path::PathBuf>,
) -> io::Result<()> {
    let mut terminal = terminal::enter()?;
    let _guard = terminal::RestoreGuard;
    let (tx, mut rx) = unbounded_channel::<Action>();

    let input_tx = tx.clone();
    let input = tokio::spawn(async move {
        let mut events = EventStream::new();
        while let Some(ev) = events.next().await {
            let action = match ev {
                Ok(Event::Key(k)) => Action::Key(k),
                Ok(Event::Mouse(m)) => Action::Mouse(m),
                Ok(Event::Resize(w, h)) => Action::Resize(w, h),
                Ok(Event::Paste(s)) => Action::Paste(s),
                Ok(_) => continue,
                Err(e) => {
                    tracing::warn!("terminal input error: {e}");
                    break;
                }
            };
            if input_tx.send(action).is_err() {
                break;
            }
        }
        // The terminal is gone (EOF or an I/O error): no key can reach the app any more, so
        // leave instead of polling forever.
        tracing::warn!("terminal input ended; quitting");
        let _ = input_tx.send(Action::Command(crate::msg::Command::Quit));
    });
    let tick_tx = tx.clone();
    let ticker = tokio::spawn(async move {
        let mut interval = tokio::time::interval(TICK);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            interval.tick().await;
            if tick_tx.send(Action::Tick(now_micros())).is_err() {
                break;
            }
        }
    });

    let (files_tx, files_rx) = unbounded_channel::<FileOp>();
    let file_task = tokio::spawn(run_file_ops(files_rx, tx.clone()));
    let mut runner = Runner {
        clients,
        tx: tx.clone(),
        running: HashMap::new(),
        files: files_tx,
        mux: Multiplexer::detect(),
        config_dir,
    };
    // Before the first frame: from then on a signal ends the explorer the way `q` does.
    let mut terminated = std::pin::pin!(termination());
    let size = terminal.size()?;
    let mut effects = app.update(Action::Resize(size.width, size.height));
    effects.extend(app.update(Action::Tick(now_micros())));
    effects.extend(app.start());
    let mut quit = runner.run_all(effects);
    terminal.draw(|f| crate::app::draw::draw(&app, f))?;
    app.take_dirty();

    while !quit {
        let action = tokio::select! {
            action = rx.recv() => action,
            signal = &mut terminated => {
                tracing::info!("{signal}: quitting");
                None
            }
        };
        let Some(action) = action else {
            break;
        };
        let mut effects = runner.note(&action);
        effects.extend(app.update(action));
        // Coalesce: take everything already queued, then draw once.
        while let Ok(more) = rx.try_recv() {
            runner.note(&more);
            effects.extend(app.update(more));
        }
        quit = runner.run_all(effects) || app.should_quit();
        if !quit {
            redraw_if_dirty(&mut app, &mut terminal)?;
        }
    }
    input.abort();
    ticker.abort();
    for (_, h) in runner.running.drain() {
        h.abort();
    }
    drop(runner);
    if tokio::time::timeout(Duration::from_secs(5), file_task)
        .await
        .is_err()
    {
        tracing::warn!("file writes still running at exit were abandoned");
    }
    Ok(())
}

/// Resolves when the process is asked to end by a signal (SIGTERM from `kill`, SIGHUP when the
/// terminal or tmux pane goes away), so the loop ends and the terminal is restored. Ctrl-C is a
/// key in raw mode, not a signal. The handlers are installed when this is called, not when the
/// future is first polled: a signal that arrives right after the first frame is drawn still
/// restores the terminal. Never resolves where signals cannot be listened to.
fn termination() -> impl std::future::Future<Output = &'static str> {
    #[cfg(unix)]
    let streams = {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) {
            (Ok(term), Ok(hup)) => Some((term, hup)),
            _ => None,
        }
    };
    async move {
        #[cfg(unix)]
        if let Some((mut term, mut hup)) = streams {
            return tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = hup.recv() => "SIGHUP",
            };
        }
        std::future::pending().await
    }
}

/// A file operation for the writer task.
enum FileOp {
    Write {
        id: RequestId,
        path: std::path::PathBuf,
        contents: Vec<u8>,
        mode: WriteMode,
    },
    Remove(std::path::PathBuf),
    /// A file kept between runs, replaced whole (`Effect::KeepFile`).
    Keep {
        path: std::path::PathBuf,
        contents: Vec<u8>,
    },
    Truncate {
        id: RequestId,
        path: std::path::PathBuf,
        len: u64,
    },
}

impl FileOp {
    fn write(id: RequestId, path: std::path::PathBuf, contents: Vec<u8>, mode: WriteMode) -> Self {
        FileOp::Write {
            id,
            path,
            contents,
            mode,
        }
    }
}

/// How a write treats an existing file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum WriteMode {
    /// Create or truncate.
    Replace,
    /// Append to it.
    Append,
    /// Only create: an existing file is an error ([`crate::msg::FILE_EXISTS`]).
    New,
}

/// Writes `contents` to a new file at `path`, never replacing one (`Effect::CreateFile`):
/// `Err(FILE_EXISTS)` when the path exists. Returns the bytes written.
pub fn create_new_file(path: &std::path::Path, contents: &[u8]) -> Result<usize, String> {
    use std::io::Write as _;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut f| f.write_all(contents).and_then(|()| f.flush()))
        .map(|()| contents.len())
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                crate::msg::FILE_EXISTS.to_owned()
            } else {
                e.to_string()
            }
        })
}

/// Runs file operations in order, answering writes with `Action::Written`.
async fn run_file_ops(
    mut rx: tokio::sync::mpsc::UnboundedReceiver<FileOp>,
    tx: UnboundedSender<Action>,
) {
    use tokio::io::AsyncWriteExt;
    while let Some(op) = rx.recv().await {
        match op {
            FileOp::Write {
                id,
                path,
                contents,
                mode,
            } => {
                let n = contents.len();
                let result = match mode {
                    WriteMode::Append => {
                        match tokio::fs::OpenOptions::new().append(true).open(&path).await {
                            Ok(mut f) => match f.write_all(&contents).await {
                                Ok(()) => f.flush().await,
                                Err(e) => Err(e),
                            },
                            Err(e) => Err(e),
                        }
                        .map(|()| n)
                        .map_err(|e| e.to_string())
                    }
                    WriteMode::Replace => tokio::fs::write(&path, contents)
                        .await
                        .map(|()| n)
                        .map_err(|e| e.to_string()),
                    WriteMode::New => {
                        let p = path.clone();
                        tokio::task::spawn_blocking(move || create_new_file(&p, &contents))
                            .await
                            .unwrap_or_else(|e| Err(e.to_string()))
                    }
                };
                let _ = tx.send(Action::Written {
                    id,
                    path: path.display().to_string(),
                    result,
                });
            }
            FileOp::Remove(path) => {
                if let Err(e) = tokio::fs::remove_file(&path).await {
                    tracing::info!("could not remove {}: {e}", path.display());
                }
            }
            FileOp::Keep { path, contents } => {
                let shown = path.display().to_string();
                let written = tokio::task::spawn_blocking(move || {
                    crate::config::state::write_atomically(&path, &contents)
                })
                .await;
                if let Ok(Err(e)) = written {
                    tracing::warn!("could not keep {shown}: {e}");
                }
            }
            FileOp::Truncate { id, path, len } => {
                let result = match tokio::fs::OpenOptions::new().write(true).open(&path).await {
                    Ok(f) => f.set_len(len).await,
                    Err(e) => Err(e),
                };
                let _ = tx.send(Action::Written {
                    id,
                    path: path.display().to_string(),
                    result: result
                        .map(|()| usize::try_from(len).unwrap_or(usize::MAX))
                        .map_err(|e| e.to_string()),
                });
            }
        }
    }
}

/// Draws the app if its state changed since the last draw; returns whether it drew. The only
/// place the event loop draws, so an idle explorer writes nothing to the terminal.
pub fn redraw_if_dirty<B: ratatui::backend::Backend>(
    app: &mut App,
    terminal: &mut ratatui::Terminal<B>,
) -> Result<bool, B::Error> {
    if !app.take_dirty() {
        return Ok(false);
    }
    terminal.draw(|f| crate::app::draw::draw(app, f))?;
    Ok(true)
}

struct Runner {
    clients: Clients,
    tx: UnboundedSender<Action>,
    running: HashMap<RequestId, AbortHandle>,
    /// File operations, run one after another by one task (a streamed export's appends must
    /// land in order); awaited briefly on quit so a save right before `q` lands.
    files: UnboundedSender<FileOp>,
    mux: Multiplexer,
    config_dir: Option<std::path::PathBuf>,
}

impl Runner {
    /// Bookkeeping for an incoming action (finished requests leave the running set).
    fn note(&mut self, action: &Action) -> Vec<Effect> {
        if let Action::Fetched(reply) = action {
            self.running.remove(&reply.id);
        }
        Vec::new()
    }

    /// Runs effects; returns whether to quit.
    fn run_all(&mut self, effects: Vec<Effect>) -> bool {
        let mut quit = false;
        for e in effects {
            quit |= self.run(e);
        }
        quit
    }

    /// Queues a file operation for the writer task (file effects run in the order issued).
    fn file_op(&self, op: FileOp) {
        let _ = self.files.send(op);
    }

    fn run(&mut self, effect: Effect) -> bool {
        match effect {
            Effect::Fetch { id, request } => {
                let clients = self.clients.clone();
                let tx = self.tx.clone();
                let handle = tokio::spawn(async move {
                    let started = Instant::now();
                    let result = fetch::execute(&clients, &request).await;
                    let elapsed_ms =
                        u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
                    if let Err(e) = &result {
                        tracing::warn!(request = ?request.describe(), "request failed: {e}");
                    }
                    let _ = tx.send(Action::Fetched(Box::new(Fetched {
                        id,
                        request,
                        result,
                        elapsed_ms,
                    })));
                });
                self.running.insert(id, handle.abort_handle());
            }
            Effect::Cancel(id) => {
                if let Some(h) = self.running.remove(&id) {
                    h.abort();
                }
            }
            Effect::Notify { text, mode } => {
                let seq = crate::ui::notify::notify_sequence(&text, mode, self.mux);
                let mut out = io::stdout();
                let _ = out.write_all(seq.as_bytes());
                let _ = out.flush();
                tracing::info!("announced: {}", crate::ui::notify::notify_text(&text));
            }
            Effect::Copy(text) => match osc52_sequence(&text, self.mux) {
                Ok(seq) => {
                    let mut out = io::stdout();
                    let _ = out.write_all(seq.as_bytes());
                    let _ = out.flush();
                }
                Err(e) => tracing::warn!("copy failed: {e}"),
            },
            Effect::WriteFile { id, path, contents } => {
                self.file_op(FileOp::write(id, path, contents, WriteMode::Replace));
            }
            Effect::CreateFile { id, path, contents } => {
                self.file_op(FileOp::write(id, path, contents, WriteMode::New));
            }
            Effect::AppendFile { id, path, contents } => {
                self.file_op(FileOp::write(id, path, contents, WriteMode::Append));
            }
            Effect::RemoveFile(path) => self.file_op(FileOp::Remove(path)),
            Effect::KeepFile { path, contents } => self.file_op(FileOp::Keep { path, contents }),
            Effect::TruncateFile { id, path, len } => {
                self.file_op(FileOp::Truncate { id, path, len });
            }
            Effect::ReadFile { id, path } => {
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let result = read_file_limited(&path).await;
                    let _ = tx.send(Action::FileRead {
                        id,
                        path: path.display().to_string(),
                        result,
                    });
                });
            }
            Effect::LoadTheme(name) => {
                let tx = self.tx.clone();
                let dir = self.config_dir.clone();
                tokio::task::spawn_blocking(move || {
                    let result = crate::ui::theme::Theme::read_source(&name, dir.as_deref())
                        .map(Box::new)
                        .map_err(|e| e.to_string());
                    let _ = tx.send(Action::ThemeLoaded(result));
                });
            }
            Effect::Quit => return true,
        }
        false
    }
}

/// Largest file `Effect::ReadFile` reads (request bodies, not archives).
pub const MAX_READ_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a file for `Effect::ReadFile`, refusing files over [`MAX_READ_FILE_BYTES`].
async fn read_file_limited(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let meta = tokio::fs::metadata(path).await.map_err(|e| e.to_string())?;
    if meta.len() > MAX_READ_FILE_BYTES {
        return Err(format!(
            "file too large ({} bytes, at most {MAX_READ_FILE_BYTES})",
            meta.len()
        ));
    }
    tokio::fs::read(path).await.map_err(|e| e.to_string())
}

/// Why `--offline` cannot start without an index.
pub const OFFLINE_WITHOUT_INDEX: &str = "--offline reads the local history index, and this profile has none: start one with `cantonscope index sync --from -30d --follow` (in a tmux pane), or name one with --index PATH, $CANTONSCOPE_INDEX or the profile's `index`";

/// Why `--offline` cannot open the explorer: no index, or an SQLite index named that does not
/// exist (offline there is nothing else to read; headless says the same), else `None`.
pub fn offline_refusal(settings: &crate::config::Settings) -> Option<String> {
    if !settings.offline {
        return None;
    }
    let Some(index) = settings.explorer_index() else {
        return Some(OFFLINE_WITHOUT_INDEX.to_owned());
    };
    match crate::store::Location::parse(&index) {
        crate::store::Location::Sqlite(path) if !path.exists() => Some(format!(
            "--offline: {}",
            crate::store::StoreError::Missing(path.display().to_string())
        )),
        _ => None,
    }
}

/// Builds the app and its clients from resolved settings (no terminal involved), so tests and
/// the binary start the explorer the same way.
pub fn build(settings: &crate::config::Settings, now: i64) -> Result<(App, Clients), String> {
    use crate::config::values::{HistoryStart, TimeZone};
    use crate::panes::{AppContext, StartFrom};

    let keymap = crate::config::keymap::KeyMap::from_config(&settings.keys)
        .map_err(|e| format!("[keys]: {e}"))?;
    let no_color = crate::ui::theme::no_color_env();
    // NO_COLOR selects `mono` unless a theme other than the default was asked for.
    let requested = if no_color && settings.theme == "dark" {
        None
    } else {
        Some(settings.theme.as_str())
    };
    let theme_name = crate::ui::theme::resolve_theme_name(requested, no_color).to_string();
    let theme = crate::ui::theme::Theme::load(&theme_name, settings.config_dir().as_deref())
        .map_err(|e| e.to_string())?;
    // crossterm drops every colour under NO_COLOR by itself; a theme asked for by name wins
    // over NO_COLOR, so its colours must reach the terminal.
    if no_color && theme_name != crate::ui::theme::NO_COLOR_THEME {
        crossterm::style::Colored::set_ansi_color_disabled(false);
    }
    let mut scan_urls: Vec<String> = Vec::new();
    if let Some(u) = &settings.scan_url {
        scan_urls.push(u.as_str().to_string());
    }
    scan_urls.extend(
        settings
            .extra_scan_urls
            .iter()
            .map(|u| u.as_str().to_string()),
    );
    let index = settings.explorer_index();
    if let Some(refusal) = offline_refusal(settings) {
        return Err(refusal);
    }
    let start = match settings.from {
        HistoryStart::Recent => StartFrom::Recent { window_secs: 600 },
        HistoryStart::Begin => StartFrom::Begin,
        HistoryStart::Now => StartFrom::Now,
        HistoryStart::At(t) => StartFrom::Time(t.timestamp_micros()),
    };
    let state_file = settings
        .data_path()
        .map(|dir| crate::config::state::state_path(&dir, settings.profile.as_deref()));
    let ctx = AppContext {
        profile: settings
            .profile
            .clone()
            .unwrap_or_else(|| "(no profile)".into()),
        // The context's URLs are for display only (the clients hold the real ones): any
        // `user:password@` in them never reaches the screen.
        scan_urls: scan_urls.iter().map(|u| redact_userinfo(u)).collect(),
        validator_url: settings
            .validator_url
            .as_ref()
            .map(|u| redact_userinfo(u.as_str())),
        ledger_url: settings
            .ledger_url
            .as_ref()
            .map(|u| redact_userinfo(u.as_str())),
        has_token: settings.token.is_some(),
        read_only: settings.read_only,
        refresh_ms: u64::try_from(settings.refresh.as_millis())
            .unwrap_or(2000)
            .max(100),
        network_interval_ms: u64::try_from(settings.network.health_interval.as_millis())
            .unwrap_or(30_000),
        fork_check_ms: u64::try_from(settings.network.fork_check.as_millis()).unwrap_or(60_000),
        notify: settings.network.notify,
        sv: settings.sv.clone(),
        data_dir: settings.data_path(),
        index: index
            .as_deref()
            .map(|i| crate::store::Location::parse(i).describe()),
        export_dir: settings.export_dir.clone(),
        state: state_file
            .as_deref()
            .map(crate::config::state::ProfileState::read)
            .unwrap_or_default(),
        state_file,
        offline: settings.offline,
        start,
        lag: settings.network.lag,
        traffic: settings.network.traffic,
        governance_every: i64::try_from(settings.network.governance_interval.as_micros())
            .unwrap_or(i64::MAX),
        node_metrics: settings.node.is_configured() && !settings.offline,
        node_metrics_ms: u64::try_from(settings.node.refresh.as_millis()).unwrap_or(15_000),
        node_rules: settings.node.rules.clone(),
    };
    // The clients get the real URLs, credentials included; only the context is redacted.
    let api = crate::api::ApiClient::new(crate::api::ApiConfig {
        scan_url: scan_urls.first().cloned(),
        validator_url: settings
            .validator_url
            .as_ref()
            .map(|u| u.as_str().to_string()),
        ledger_url: settings.ledger_url.as_ref().map(|u| u.as_str().to_string()),
        token: settings.token.clone(),
        ..crate::api::ApiConfig::default()
    })
    .map_err(|e| e.to_string())?
    .with_max_response_mib(settings.max_response_mib);
    let mut clients = Clients::new(api.clone(), &scan_urls);
    clients.index =
        index.map(|i| index::IndexSource::new(crate::store::Location::parse(&i), settings.offline));
    if !scan_urls.is_empty() {
        clients.network = Some(std::sync::Arc::new(
            crate::every_scan::session::NetworkSession::new(
                api,
                settings.clone(),
                // None for the built-in demo: its ports change every run.
                settings.data_path(),
            ),
        ));
    }
    if settings.node.is_configured() {
        clients.node = Some(std::sync::Arc::new(settings.node.sources()));
    }
    let mut app = App::new(ctx, theme, keymap, now);
    app.sh.local_time = settings.time_zone == TimeZone::Local;
    app.loader
        .set_memory_budget_mib(settings.history_memory_mib);
    Ok((app, clients))
}

#[cfg(test)]
mod tests {
    use super::{Action, FileOp, RequestId, WriteMode, redact_userinfo, run_file_ops};
    use tokio::sync::mpsc::unbounded_channel;

    #[tokio::test]
    async fn file_operations_run_in_order_and_answer_writes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("export.jsonl");
        let (files, rx) = unbounded_channel();
        let (tx, mut actions) = unbounded_channel();
        let task = tokio::spawn(run_file_ops(rx, tx));
        for (i, chunk) in ["a\n", "b\n", "c\n"].iter().enumerate() {
            let _ = files.send(FileOp::Write {
                id: RequestId::new(crate::msg::PaneId::History, i as u64 + 1),
                path: path.clone(),
                contents: chunk.as_bytes().to_vec(),
                mode: if i > 0 {
                    WriteMode::Append
                } else {
                    WriteMode::Replace
                },
            });
        }
        // A new file is written once; the second try finds it and replaces nothing.
        let fresh = dir.path().join("sweep.json");
        for seq in [5, 6] {
            let _ = files.send(FileOp::Write {
                id: RequestId::new(crate::msg::PaneId::Network, seq),
                path: fresh.clone(),
                contents: format!("{seq}").into_bytes(),
                mode: WriteMode::New,
            });
        }
        let missing = dir.path().join("no-such-dir").join("x");
        let _ = files.send(FileOp::Write {
            id: RequestId::new(crate::msg::PaneId::History, 9),
            path: missing,
            contents: b"x".to_vec(),
            mode: WriteMode::Append,
        });
        drop(files);
        task.await.expect("writer ends when its sender is gone");
        assert_eq!(std::fs::read_to_string(&path).expect("file"), "a\nb\nc\n");
        assert_eq!(std::fs::read_to_string(&fresh).expect("file"), "5");
        let mut answers = Vec::new();
        while let Ok(Action::Written { id, result, .. }) = actions.try_recv() {
            answers.push((id.seq, result));
        }
        let exists = Err(crate::msg::FILE_EXISTS.to_owned());
        assert_eq!(answers.len(), 6);
        assert_eq!(
            answers[..5],
            [(1, Ok(2)), (2, Ok(2)), (3, Ok(2)), (5, Ok(1)), (6, exists)]
        );
        assert!(answers[5].0 == 9 && answers[5].1.is_err());

        let (files, rx) = unbounded_channel();
        let (tx, _actions) = unbounded_channel();
        let task = tokio::spawn(run_file_ops(rx, tx));
        let _ = files.send(FileOp::Remove(path.clone()));
        // Kept files are replaced whole, in order, their folder made: the last one stays.
        let kept = dir.path().join("state").join("main.json");
        for contents in ["first", "second"] {
            let _ = files.send(FileOp::Keep {
                path: kept.clone(),
                contents: contents.as_bytes().to_vec(),
            });
        }
        drop(files);
        task.await.expect("writer ends");
        assert!(!path.exists(), "removed");
        assert_eq!(std::fs::read_to_string(&kept).expect("kept"), "second");
    }

    #[tokio::test]
    async fn a_truncate_runs_in_order_with_appends_and_answers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("range.csv");
        std::fs::write(&path, "whole\nhalf a r").expect("file");
        let (files, rx) = unbounded_channel();
        let (tx, mut actions) = unbounded_channel();
        let task = tokio::spawn(run_file_ops(rx, tx));
        let id = |n| RequestId::new(crate::msg::PaneId::History, n);
        let _ = files.send(FileOp::Truncate {
            id: id(1),
            path: path.clone(),
            len: 6,
        });
        let _ = files.send(FileOp::Write {
            id: id(2),
            path: path.clone(),
            contents: b"next\n".to_vec(),
            mode: WriteMode::Append,
        });
        drop(files);
        task.await.expect("writer ends");
        assert_eq!(
            std::fs::read_to_string(&path).expect("file"),
            "whole\nnext\n"
        );
        let mut answers = Vec::new();
        while let Ok(Action::Written { id, result, .. }) = actions.try_recv() {
            answers.push((id.seq, result));
        }
        assert_eq!(answers, [(1, Ok(6)), (2, Ok(5))]);
    }

    #[test]
    fn credentials_in_urls_are_redacted_for_display() {
        assert_eq!(
            redact_userinfo("https://ops:s3cret@scan.example.com/api?x=1"),
            "https://***@scan.example.com/api?x=1"
        );
        assert_eq!(
            redact_userinfo("http://127.0.0.1:5012/sv2"),
            "http://127.0.0.1:5012/sv2"
        );
        assert_eq!(
            redact_userinfo("https://host/path@not-userinfo"),
            "https://host/path@not-userinfo"
        );
        assert_eq!(redact_userinfo("no scheme"), "no scheme");
    }
}

#[cfg(test)]
mod credential_tests {
    use super::{build, fetch::execute};
    use crate::config::Settings;
    use crate::demo::{DemoConfig, start};
    use crate::msg::{Request, Response};

    /// With the scan and validator behind basic auth, the explorer's clients send the real
    /// `user:password` of the URLs, while everything the app displays is redacted.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn credentials_in_urls_reach_the_server_and_never_the_screen() {
        let demo = start(DemoConfig {
            basic_auth: Some("ops:s3cret".into()),
            ..DemoConfig::default()
        })
        .await
        .expect("demo");
        let with_userinfo = |url: &str| url.replacen("http://", "http://ops:s3cret@", 1);
        let mut settings = Settings::default();
        settings
            .use_demo(
                &[with_userinfo(&demo.scan_url)],
                &with_userinfo(&demo.validator_url),
                &demo.ledger_url,
                &demo.token,
            )
            .expect("settings");
        let (app, clients) = build(&settings, 0).expect("app builds");
        // The demo's scan list is never kept on disk (its ports change every run).
        let session = clients.network.as_ref().expect("a network session");
        assert_eq!(session.data_dir(), None);

        let shown = format!("{:?} {:?} {:?}", app.sh.ctx, clients.main, clients.scans);
        assert!(!shown.contains("s3cret"), "credentials displayed: {shown}");
        assert!(app.sh.ctx.scan_urls[0].contains("***@"), "{shown}");

        let updates = Request::api(crate::api::scan::updates(
            &crate::api::scan::UpdatesRequest::from_begin(1),
        ));
        let answer = execute(&clients, &updates).await;
        assert!(
            matches!(answer.as_ref().ok().and_then(Response::answer::<crate::api::scan::UpdatesPage>), Some(p) if p.transactions.len() == 1),
            "updates through the main client: {answer:?}"
        );
        let probe = execute(
            &clients,
            &Request::api(crate::api::validator::amulet_rules()),
        )
        .await;
        assert!(
            probe
                .as_ref()
                .ok()
                .and_then(Response::answer::<crate::api::validator::AmuletRules>)
                .is_some(),
            "{probe:?}"
        );
        let status = execute(&clients, &Request::on_scan(0, crate::api::scan::status())).await;
        assert!(
            status
                .as_ref()
                .ok()
                .and_then(Response::answer::<crate::api::scan::NodeStatus>)
                .is_some(),
            "{status:?}"
        );

        // Without the credentials the same server refuses: the check above is not vacuous.
        let mut open = Settings::default();
        open.use_demo(
            std::slice::from_ref(&demo.scan_url),
            &demo.validator_url,
            &demo.ledger_url,
            &demo.token,
        )
        .expect("settings");
        let (_, anonymous) = build(&open, 0).expect("app builds");
        let refused = execute(&anonymous, &updates).await;
        assert!(refused.is_err(), "{refused:?}");
    }
}
