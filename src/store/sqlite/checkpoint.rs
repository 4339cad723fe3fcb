//! The writer's WAL copied into the index file on a thread of its own. SQLite's automatic
//! checkpoint runs in the committing thread: every 64 MiB of WAL the one writer stopped to copy
//! it into the file and sync it, 7–8 µs of its 40–45 an update (measured by stage), while the
//! sync's other core waited for it. Here a commit that leaves 64 MiB or more in the WAL wakes
//! a thread with its own connection, which copies it (`PASSIVE`: alongside the writer's next
//! pages, never blocking them); SQLite starts the WAL over at the first commit after a copy
//! that caught up. A writer that outruns it copies the WAL itself at four times that
//! (256 MiB), after the thread's copy under way (SQLite refuses a second checkpoint while one
//! runs), so the WAL stays bounded even on a slow disk.

use std::cell::Cell;
use std::ffi::c_int;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::thread;

use rusqlite::hooks::Wal;
use rusqlite::{Connection, OpenFlags};

/// WAL pages (4 KiB) that wake the checkpointer: 64 MiB (128 KiB in unit tests).
pub(super) const WAKE_AT: c_int = if cfg!(test) { 32 } else { 16_384 };
/// WAL pages at which the writer copies the WAL itself: 256 MiB.
pub(super) const BOUND: c_int = 4 * WAKE_AT;

thread_local! {
    /// The WAL's pages after this thread's last commit (SQLite's WAL hook runs in the
    /// committing thread).
    static WAL_PAGES: Cell<c_int> = const { Cell::new(0) };
}

/// The WAL's pages after this thread's last commit of a writer.
#[cfg(test)]
pub(super) fn wal_pages() -> c_int {
    WAL_PAGES.with(Cell::get)
}

// The signature SQLite's WAL hook takes (rusqlite's `wal_hook`).
#[allow(clippy::unnecessary_wraps)]
fn note_pages(_: &Wal, pages: c_int) -> rusqlite::Result<()> {
    WAL_PAGES.with(|p| p.set(pages));
    Ok(())
}

/// The thread copying a writer's WAL; dropped, it ends (its connection, the last, copies what
/// is left, as the writer's own close would).
pub(super) struct Checkpointer {
    wake: Option<mpsc::SyncSender<()>>,
    /// Held by whichever copies: the writer at the bound waits here for the thread's copy.
    copying: Arc<Mutex<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts the thread for the writer `conn` of the index at `path`, replacing SQLite's
    /// automatic checkpoint; `None` (the automatic checkpoint kept) when it cannot.
    pub(super) fn start(conn: &Connection, path: &Path) -> Option<Checkpointer> {
        let other = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .ok()?;
        let (wake, woken) = mpsc::sync_channel::<()>(1);
        let copying = Arc::new(Mutex::new(()));
        let theirs = Arc::clone(&copying);
        let thread = thread::Builder::new()
            .name("index-checkpoint".into())
            .spawn(move || {
                for () in woken {
                    let _copying = theirs.lock().unwrap_or_else(PoisonError::into_inner);
                    // Busy (another copy under way) or failed: the next wake tries again, and
                    // the writer's bound keeps the WAL from growing meanwhile.
                    let _ = other.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                }
            })
            .ok()?;
        WAL_PAGES.with(|p| p.set(0));
        conn.wal_hook(Some(note_pages));
        Some(Checkpointer {
            wake: Some(wake),
            copying,
            thread: Some(thread),
        })
    }

    /// After a commit of `conn`: wakes the thread when the WAL has grown past [`WAKE_AT`]
    /// pages (unless it is still copying), copies the WAL here past [`BOUND`], once the
    /// thread's copy under way has ended (a second checkpoint would be refused as busy).
    pub(super) fn after_commit(&self, conn: &Connection) -> rusqlite::Result<()> {
        let pages = WAL_PAGES.with(Cell::get);
        if pages >= BOUND {
            let _copying = self.copying.lock().unwrap_or_else(PoisonError::into_inner);
            conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        } else if pages >= WAKE_AT
            && let Some(wake) = &self.wake
        {
            let _ = wake.try_send(());
        }
        Ok(())
    }
}

/// Copies the whole WAL of `conn` into the file and cuts it to nothing (`TRUNCATE`), once the
/// thread's copy under way (if any) has ended: whether a reader in an older snapshot kept it
/// from being cut (SQLite's `busy`).
pub(super) fn truncate(conn: &Connection, with: Option<&Checkpointer>) -> rusqlite::Result<bool> {
    let _copying = with.map(|c| c.copying.lock().unwrap_or_else(PoisonError::into_inner));
    let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
    Ok(busy != 0)
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        drop(self.wake.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
