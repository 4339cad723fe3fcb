//! One writer per index: an exclusive `flock` on `<index>.lock`, taken without waiting. The
//! kernel drops it when the process ends however it ends (`kill -9` included), so a crashed
//! sync never leaves the index locked. The file holds the holder's pid, host and start time,
//! so a second sync refuses naming the first.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, flock};

use super::StoreError;

/// The held lock (released when dropped, or when the process ends).
#[derive(Debug)]
pub struct WriterLock {
    _file: File,
    pub path: PathBuf,
}

/// This machine's name (for the lock file and the heartbeat).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_owned())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown host".to_owned())
}

impl WriterLock {
    /// Takes the lock of the index at `index` (the file `<index>.lock`), writing `holder` (who
    /// holds it) into it; refuses when another process holds it, naming that holder.
    pub fn acquire(index: &Path, holder: &str) -> Result<WriterLock, StoreError> {
        let mut name = index.as_os_str().to_owned();
        name.push(".lock");
        let path = PathBuf::from(name);
        let engine = |detail: String| StoreError::Engine {
            path: path.display().to_string(),
            detail,
        };
        // The default index lives in `<data dir>/index/`, which a first sync creates.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| engine(format!("cannot create {}: {e}", dir.display())))?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
            .map_err(|e| engine(format!("cannot open the lock file: {e}")))?;
        if flock(&file, FlockOperation::NonBlockingLockExclusive).is_err() {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let text = text.trim();
            return Err(StoreError::Busy {
                path: index.display().to_string(),
                holder: if text.is_empty() {
                    "a process holds its lock".to_owned()
                } else {
                    text.to_owned()
                },
            });
        }
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(holder.as_bytes()))
            .and_then(|()| file.flush())
            .map_err(|e| engine(format!("cannot write the lock file: {e}")))?;
        Ok(WriterLock { _file: file, path })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_naming_the_first_and_the_lock_goes_with_its_holder() {
        let dir = std::env::temp_dir().join(format!("cantonscope-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let index = dir.join("x.sqlite");
        let first = WriterLock::acquire(&index, "pid 1 on a since b").expect("first");
        let second = WriterLock::acquire(&index, "pid 2").expect_err("second");
        assert!(
            second.to_string().contains("pid 1 on a since b"),
            "{second}"
        );
        drop(first);
        WriterLock::acquire(&index, "pid 3").expect("free again");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
