//! The Update pane's commands from the keymap and `y` (copy).

use crate::msg::Command;
use crate::ui::safe::sanitize;
use crate::ui::text_input::TextInput;
use crate::ui::tree::HSCROLL_STEP;

use super::{Content, Focus, Out, Shared, UpdatePane};

impl UpdatePane {
    /// `y`: the selected id, or the JSON under the cursor.
    pub(super) fn copy(&self, out: &mut Out) {
        if self.focus == Focus::Details
            && let Some(d) = self.details()
        {
            d.copy(out);
            return;
        }
        if let Some(e) = self.selected_event_id() {
            out.copy("event id", sanitize(e).into_owned());
        } else if let Some(u) = &self.update_id {
            out.copy("update id", sanitize(u).into_owned());
        }
    }

    /// A command from the keymap (see [`Pane::on_command`](super::Pane::on_command)).
    pub(super) fn command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        if self.save.is_some() {
            return match cmd {
                Command::Cancel | Command::Back => {
                    self.close_save_prompt();
                    true
                }
                Command::Confirm => {
                    let text = self.save.as_ref().map(TextInput::text).unwrap_or_default();
                    self.submit_save(&text, sh, out);
                    true
                }
                _ => false,
            };
        }
        if out.whole_value(&mut self.whole_value, cmd) {
            return true;
        }
        if self.lifecycle.is_some() {
            return self.lifecycle_command(cmd, sh, out);
        }
        match cmd {
            Command::Refresh => {
                self.refresh(sh, out);
                true
            }
            Command::Copy => {
                self.copy(out);
                true
            }
            Command::Save => {
                self.open_save_prompt(out);
                true
            }
            Command::FollowContract => {
                self.follow_contract(sh, out);
                true
            }
            Command::Back => self.back(sh, out),
            _ if self.content.is_none() => false,
            Command::TreeNarrower | Command::TreeWider => {
                if matches!(self.content, Some(Content::Tx(_))) {
                    if !self.split.step(cmd == Command::TreeWider, 50) {
                        out.info("the split is at its end");
                    }
                    true
                } else {
                    false
                }
            }
            Command::SwitchFocus => match self.focus {
                Focus::Details => self.focus_tree(),
                Focus::Tree if matches!(self.content, Some(Content::Tx(_))) => {
                    self.focus = Focus::Details;
                    true
                }
                Focus::Tree => false,
            },
            Command::ShowValue => {
                self.show_value(out);
                true
            }
            Command::ScrollLeft | Command::ScrollRight => {
                let width = usize::from(self.areas(self.area).details.width);
                let step = HSCROLL_STEP.cast_signed();
                let delta = if cmd == Command::ScrollRight {
                    step
                } else {
                    -step
                };
                match self.details_mut() {
                    Some(d) => {
                        d.scroll_sideways(delta, width);
                        true
                    }
                    None => false,
                }
            }
            // Backspace on a root (nothing above it in the tree): back, as Esc.
            Command::Parent if self.focus == Focus::Tree && !self.tree_has_parent() => {
                self.back(sh, out)
            }
            _ => match self.focus {
                Focus::Tree if matches!(self.content, Some(Content::Tx(_))) => {
                    self.tree_command(cmd)
                }
                _ => self.details_command(cmd, sh, out),
            },
        }
    }
}
