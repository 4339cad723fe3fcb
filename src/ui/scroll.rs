//! Cursor and scroll position over a list of rows ([`ScrollState`], kept in `model`), and the
//! views that scroll through one ([`Scrolled`]), shared by every scrollable widget in `ui/`.
//!
//! Drawing only reads: movement methods update the cursor and the stored offset (using the
//! viewport height last given with [`ScrollState::set_viewport`]); renderers call
//! [`ScrollState::visible_offset`] with the height they actually got, which clamps the stored
//! offset so the cursor is always on screen even if the viewport changed since.

pub use crate::model::scroll::ScrollState;

/// A view whose cursor and scroll position are a [`ScrollState`] over its visible rows (a JSON
/// view, a tree, the help list): the moves are written once, here. Only the view changes the
/// row count; through `scroll_mut` the cursor moves.
pub trait Scrolled {
    /// The cursor/scroll state.
    fn scroll(&self) -> &ScrollState;
    /// The cursor/scroll state, to move the cursor or resize the viewport.
    fn scroll_mut(&mut self) -> &mut ScrollState;

    /// Sets the viewport height used for paging (call on resize).
    fn set_viewport(&mut self, rows: usize) {
        self.scroll_mut().set_viewport(rows);
    }

    /// Moves the cursor up by `n` rows.
    fn up(&mut self, n: usize) {
        self.scroll_mut().up(n);
    }

    /// Moves the cursor down by `n` rows.
    fn down(&mut self, n: usize) {
        self.scroll_mut().down(n);
    }

    /// One page up.
    fn page_up(&mut self) {
        self.scroll_mut().page_up();
    }

    /// One page down.
    fn page_down(&mut self) {
        self.scroll_mut().page_down();
    }

    /// First row.
    fn top(&mut self) {
        self.scroll_mut().top();
    }

    /// Last row.
    fn bottom(&mut self) {
        self.scroll_mut().bottom();
    }

    /// Mouse wheel.
    fn scroll_by(&mut self, delta: isize) {
        self.scroll_mut().scroll_by(delta);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list of `len` rows shown `viewport` rows at a time.
    fn scrolled(len: usize, viewport: usize) -> ScrollState {
        let mut s = ScrollState::new(len);
        s.set_viewport(viewport);
        s
    }

    #[test]
    fn cursor_stays_visible_while_moving() {
        let mut s = scrolled(100, 10);
        s.down(15);
        assert_eq!(s.cursor(), 15);
        assert_eq!(s.visible_range(10), 6..16);
        // moving back up inside the window does not scroll
        s.up(5);
        assert_eq!(s.visible_range(10), 6..16);
        s.up(10);
        assert_eq!(s.visible_range(10), 0..10);
    }

    #[test]
    fn paging_and_ends() {
        let mut s = scrolled(50, 10);
        s.page_down();
        assert_eq!(s.cursor(), 9);
        s.bottom();
        assert_eq!(s.cursor(), 49);
        assert_eq!(s.visible_range(10), 40..50);
        s.top();
        assert_eq!(s.visible_range(10), 0..10);
    }

    #[test]
    fn shrinking_len_clamps_cursor_and_empty_is_safe() {
        let mut s = ScrollState::new(10);
        s.bottom();
        s.set_len(3);
        assert_eq!(s.cursor(), 2);
        s.set_len(0);
        assert_eq!(s.cursor(), 0);
        assert_eq!(s.visible_range(5), 0..0);
        s.down(3);
        s.page_up();
        assert_eq!(s.cursor(), 0);
    }

    #[test]
    fn render_height_differs_from_stored_viewport() {
        let mut s = scrolled(100, 50);
        s.down(40);
        // the screen shrank to 5 rows: the cursor is still shown
        assert!(s.visible_range(5).contains(&40));
        assert_eq!(s.visible_range(0), 0..0);
    }

    #[test]
    fn wheel_scroll_drags_cursor() {
        let mut s = scrolled(100, 10);
        s.scroll_by(20);
        assert_eq!(s.offset(), 20);
        assert_eq!(s.cursor(), 20);
        s.scroll_by(-100);
        assert_eq!(s.offset(), 0);
        assert_eq!(s.cursor(), 9);
    }
}
