//! One pane driven and drawn on its own, without the app: its effects read back, its screen
//! rendered with the default theme.

use cantonscope::api::ApiError;
use cantonscope::msg::{Effect, Fetched, Request, RequestId, Response};
use cantonscope::panes::{Out, Pane, RenderCtx, Shared};
use cantonscope::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// A finished fetch as the app hands it to the pane that sent it (taking no time).
pub fn fetched(id: RequestId, request: &Request, result: &Result<Response, ApiError>) -> Fetched {
    Fetched {
        id,
        request: request.clone(),
        result: result.clone(),
        elapsed_ms: 0,
    }
}

/// The fetches in `out`.
pub fn fetches(out: &Out) -> Vec<(RequestId, Request)> {
    out.effects
        .iter()
        .filter_map(|e| match e {
            Effect::Fetch { id, request } => Some((*id, request.clone())),
            _ => None,
        })
        .collect()
}

/// The id of the first fetch in `out` (asserts there is one).
pub fn sent(out: &Out) -> RequestId {
    out.effects
        .iter()
        .find_map(|e| match e {
            Effect::Fetch { id, .. } => Some(*id),
            _ => None,
        })
        .expect("a fetch")
}

/// The pane, focused, rendered into a `w`x`h` buffer (its area left as it is).
pub fn render(pane: &impl Pane, sh: &Shared, w: u16, h: u16) -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
    pane.render(
        buf.area,
        &mut buf,
        RenderCtx::new(sh, &Theme::default(), true),
    );
    buf
}

/// The pane, focused, sized to and drawn on a `w`x`h` test terminal.
pub fn draw(pane: &mut impl Pane, sh: &Shared, w: u16, h: u16) -> Terminal<TestBackend> {
    pane.set_area(Rect::new(0, 0, w, h));
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    let theme = Theme::default();
    terminal
        .draw(|f| pane.render(f.area(), f.buffer_mut(), RenderCtx::new(sh, &theme, true)))
        .expect("draw");
    terminal
}
