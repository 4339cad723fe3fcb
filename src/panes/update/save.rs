//! Saving the open update's body to a file (`s`): the path prompt, then the body re-indented
//! ([`crate::model::json_text::pretty`]) as the server sent it.

use std::path::PathBuf;

use crate::msg::Effect;
use crate::ui::form::file_safe;
use crate::ui::text_input::TextInput;

use super::{Out, Shared, UpdatePane};

impl UpdatePane {
    /// `s`: the path prompt, prefilled with `./<update id>.json`.
    pub(super) fn open_save_prompt(&mut self, out: &mut Out) {
        let (Some(id), Some(_)) = (&self.update_id, &self.body) else {
            out.warn("nothing to save: no update loaded");
            return;
        };
        let name = file_safe(id, 128, false);
        self.save = Some(TextInput::single_line().with_text(&format!("./{name}.json")));
        self.apply_viewports();
    }

    /// Enter in the prompt: writes the body (re-indented) to `path`.
    pub(super) fn submit_save(&mut self, path: String, sh: &mut Shared, out: &mut Out) {
        let path = path.trim().to_string();
        if path.is_empty() {
            if let Some(input) = &mut self.save {
                input.set_validation(Some("enter a file name".into()));
            }
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
        out.effects.push(Effect::WriteFile {
            id,
            path: PathBuf::from(path),
            contents: contents.into_bytes(),
        });
        self.save = None;
        self.apply_viewports();
    }
}
