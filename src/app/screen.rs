//! The screen's arrangement as the app sees it: each pane's drawing area after a resize or a
//! zoom, the fields overlay (`v`) sized to the body, and the mouse (wheel, tab clicks).

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use super::{App, Overlay, draw};
use crate::msg::{Command, Tabs};
use crate::panes::{Out, PaneId};
use crate::ui::fields::FieldsView;

impl App {
    /// Tells every pane its drawing area (after a resize or a zoom).
    pub(super) fn resize_panes(&mut self) {
        let body = crate::ui::layout::areas(self.size, self.zoomed).body;
        for id in PaneId::ALL {
            self.pane_mut(id).set_area(body);
        }
    }

    /// Zooms in or out (`+`): the focused pane gets the whole screen.
    pub(super) fn set_zoom(&mut self, on: bool) {
        self.zoomed = on;
        self.resize_panes();
    }

    /// `v` where the pane has no value cursor of its own: the fields of its selection, whole.
    pub(super) fn show_fields(&mut self, out: &mut Out) {
        match self.pane(self.focus).fields(&self.sh) {
            Some((title, fields)) if !fields.is_empty() => {
                let mut view = FieldsView::new(title, fields);
                view.set_area(crate::ui::layout::areas(self.size, self.zoomed).body);
                self.overlay = Some(Overlay::Fields(view));
            }
            _ => out.info(format!(
                "v shows a field whole: select something in the {} pane first",
                self.focus.title()
            )),
        }
    }

    pub(super) fn on_mouse(&mut self, m: MouseEvent, out: &mut Out) {
        let areas = crate::ui::layout::areas(self.size, self.zoomed);
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let cmd = if m.kind == MouseEventKind::ScrollDown {
                    Command::Down
                } else {
                    Command::Up
                };
                if self.overlay.is_some() {
                    return;
                }
                for _ in 0..3 {
                    let focus = self.focus;
                    let (pane, sh) = self.split(focus, out);
                    pane.on_command(cmd, sh, out);
                }
                self.dirty = true;
            }
            MouseEventKind::Down(MouseButton::Left) if m.row == areas.tabs.y => {
                if let Some(p) = draw::tab_at(self, m.column) {
                    self.focus = p;
                    self.dirty = true;
                }
            }
            _ => {}
        }
    }
}
