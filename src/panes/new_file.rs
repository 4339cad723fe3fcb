//! Saving to a file the user names without ever losing one: every save and export of the
//! explorer writes a new file ([`Effect::CreateFile`]); when the path exists the runtime
//! answers [`FILE_EXISTS`], nothing is written, the status line says `<path> exists: not
//! replaced`, and the pane asks again with [`EXISTS_NOTE`] at its path. Saving again to that
//! same path replaces the file ([`Effect::WriteFile`]).
//!
//! ```text
//! save to x ─► CreateFile x ─┬─ Ok ───────────► saved
//!                            └─ FILE_EXISTS ──► "x exists: not replaced", ask again
//!                                                 ↵ on x ─► WriteFile x (replaces)
//! ```

use std::path::{Path, PathBuf};

use crate::msg::{Effect, FILE_EXISTS, RequestId};

use super::Out;

/// What the pane shows at its path field when the file exists.
pub const EXISTS_NOTE: &str = "this file exists: ↵ again replaces it, or change the name";

/// The one path the user was told exists (a pane keeps one per save it offers).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct NewFile {
    told: Option<PathBuf>,
}

impl NewFile {
    /// Whether a write to `path` replaces the file: the user was told it exists and saved to it
    /// again.
    pub fn replaces(&self, path: &Path) -> bool {
        self.told.as_deref() == Some(path)
    }

    /// The write of `contents` to `path`: a new file, or the file replaced when the user saved
    /// to it again after being told it exists.
    pub fn write(&self, id: RequestId, path: PathBuf, contents: Vec<u8>) -> Effect {
        if self.replaces(&path) {
            Effect::WriteFile { id, path, contents }
        } else {
            Effect::CreateFile { id, path, contents }
        }
    }

    /// The answer to a [`NewFile::write`] to `path`. Returns whether the file existed and was
    /// left alone: the warning is in the status line and the next write to `path` replaces it
    /// (the caller asks again, with [`EXISTS_NOTE`] at its path). Any other answer forgets.
    pub fn refused(&mut self, path: &Path, result: &Result<usize, String>, out: &mut Out) -> bool {
        if matches!(result, Err(e) if e == FILE_EXISTS) {
            out.warn(format!("{} exists: not replaced", path.display()));
            self.told = Some(path.to_path_buf());
            true
        } else {
            self.told = None;
            false
        }
    }

    /// The user walked away (Esc): a later save to the same path asks again.
    pub fn forget(&mut self) {
        self.told = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::PaneId;

    #[test]
    fn a_new_file_until_told_then_that_path_only_replaces() {
        let mut f = NewFile::default();
        let id = RequestId::new(PaneId::History, 1);
        let (a, b) = (PathBuf::from("a.json"), PathBuf::from("b.json"));
        assert!(matches!(
            f.write(id, a.clone(), vec![1]),
            Effect::CreateFile { .. }
        ));
        let mut out = Out::default();
        assert!(f.refused(&a, &Err(FILE_EXISTS.into()), &mut out));
        assert_eq!(out.events.len(), 1, "the status line says so");
        assert!(matches!(
            f.write(id, a.clone(), vec![1]),
            Effect::WriteFile { .. }
        ));
        assert!(matches!(f.write(id, b, vec![1]), Effect::CreateFile { .. }));
        assert!(!f.refused(&a, &Ok(1), &mut out));
        assert!(matches!(
            f.write(id, a.clone(), vec![1]),
            Effect::CreateFile { .. }
        ));
        assert!(f.refused(&a, &Err(FILE_EXISTS.into()), &mut out));
        f.forget();
        assert!(!f.replaces(&a));
        assert!(!f.refused(&a, &Err("denied".into()), &mut out));
    }
}
