//! Saving the open update's body to a file (`s`): the path prompt, then the body re-indented
//! ([`crate::model::json_text::pretty`]) as the server sent it. An existing file is never
//! replaced without a second ↵ on the same name ([`crate::panes::new_file`]).

use std::path::PathBuf;

use crate::msg::RequestId;
use crate::panes::new_file::{EXISTS_NOTE, NewFile};
use crate::ui::form::file_safe;
use crate::ui::text_input::TextInput;

use super::{Out, Shared, UpdatePane};

/// The save's side of the pane: the write in flight and the path the user was told exists.
#[derive(Debug, Default)]
pub(super) struct Saving {
    /// The write in flight, its path and the update it saves.
    writing: Option<(RequestId, PathBuf, Option<String>)>,
    file: NewFile,
}

impl UpdatePane {
    /// `s`: the path prompt, prefilled with `./<update id>.json`.
    pub(super) fn open_save_prompt(&mut self, out: &mut Out) {
        let (Some(id), Some(_)) = (&self.update_id, &self.body) else {
            out.warn("nothing to save: no update loaded");
            return;
        };
        let name = file_safe(id, 128, false);
        self.save_prompt(&format!("./{name}.json"), None);
    }

    fn save_prompt(&mut self, path: &str, note: Option<String>) {
        let mut input = TextInput::single_line().with_text(path);
        input.set_validation(note);
        self.save = Some(input);
        self.apply_viewports();
    }

    /// Rows of the save prompt: its line, and one for a message under it (0: closed).
    pub(super) fn prompt_rows(&self) -> u16 {
        self.save.as_ref().map_or(0, TextInput::desired_height)
    }

    /// Esc in the prompt: closes it; a later save to a file that exists asks again.
    pub(super) fn close_save_prompt(&mut self) {
        self.save = None;
        self.saving.file.forget();
        self.apply_viewports();
    }

    /// Enter in the prompt: writes the body (re-indented) to `path`.
    pub(super) fn submit_save(&mut self, path: &str, sh: &mut Shared, out: &mut Out) {
        let path = path.trim().to_string();
        if path.is_empty() {
            if let Some(input) = &mut self.save {
                input.set_validation(Some("enter a file name".into()));
            }
            self.apply_viewports();
            return;
        }
        let Some(body) = &self.body else {
            self.save = None;
            return;
        };
        let mut contents = match crate::model::json_text::pretty(body.raw.get()) {
            Ok(contents) => contents,
            Err(e) => {
                out.error(format!("cannot save this update: {e}"));
                self.save = None;
                self.apply_viewports();
                return;
            }
        };
        contents.push('\n');
        let id = out.next_id(sh);
        let path = PathBuf::from(path);
        out.effects.push(
            self.saving
                .file
                .write(id, path.clone(), contents.into_bytes()),
        );
        self.saving.writing = Some((id, path, self.update_id.clone()));
        self.save = None;
        self.apply_viewports();
    }

    /// A write finished: when it is the save's and the file existed, the prompt comes back
    /// saying so (the App reports any other outcome: `saved N bytes to …` or the error).
    pub(super) fn on_save_written(
        &mut self,
        id: RequestId,
        result: &Result<usize, String>,
        out: &mut Out,
    ) -> bool {
        let Some((_, path, update)) = self.saving.writing.take_if(|(w, ..)| *w == id) else {
            return false;
        };
        if !self.saving.file.refused(&path, result, out) {
            return false;
        }
        // Asked again only over the update it was saving (the warning stays either way).
        if self.update_id == update && self.save.is_none() {
            self.save_prompt(&path.display().to_string(), Some(EXISTS_NOTE.into()));
        } else {
            self.saving.file.forget();
        }
        true
    }
}
