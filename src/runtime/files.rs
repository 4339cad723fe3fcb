//! The file effects: one writer task runs the writes, appends, truncations, removals and kept
//! files in the order the app issued them (a streamed export's appends land in order) and
//! answers writes with `Action::Written`; `Effect::ReadFile`'s read of a file of bounded size.

use tokio::sync::mpsc::UnboundedSender;

use crate::msg::{Action, RequestId};

/// A file operation for the writer task.
pub(super) enum FileOp {
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
    pub(super) fn write(
        id: RequestId,
        path: std::path::PathBuf,
        contents: Vec<u8>,
        mode: WriteMode,
    ) -> Self {
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
pub(super) enum WriteMode {
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
pub(super) async fn run_file_ops(
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

/// Largest file `Effect::ReadFile` reads (request bodies, not archives).
pub const MAX_READ_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a file for `Effect::ReadFile`, refusing files over [`MAX_READ_FILE_BYTES`].
pub(super) async fn read_file_limited(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let meta = tokio::fs::metadata(path).await.map_err(|e| e.to_string())?;
    if meta.len() > MAX_READ_FILE_BYTES {
        return Err(format!(
            "file too large ({} bytes, at most {MAX_READ_FILE_BYTES})",
            meta.len()
        ));
    }
    tokio::fs::read(path).await.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::{Action, FileOp, RequestId, WriteMode, run_file_ops};
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
}
