//! The runtime: the only place that touches the terminal and spawns tasks. Terminal events,
//! ticks and fetch results become [`Action`]s on one channel; the loop drains the channel, runs
//! `App::update` for each action, runs the returned effects, and draws once — only when the
//! state changed. Idle means no bytes written to the terminal.

pub mod fetch;
mod files;
pub mod index;
pub mod rewrite_check;
mod setup;
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
use files::{FileOp, WriteMode, read_file_limited, run_file_ops};
pub use files::{MAX_READ_FILE_BYTES, create_new_file};
pub use setup::{OFFLINE_WITHOUT_INDEX, build, offline_refusal};

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

#[cfg(test)]
mod tests {
    use super::redact_userinfo;

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
