//! Cursor and scroll position over a list of rows: the one state every scrollable list keeps
//! (the widgets in `ui/`, and the lists the app owns, as History's timeline).
//!
//! Drawing only reads: movement methods update the cursor and the stored offset (using the
//! viewport height last given with [`ScrollState::set_viewport`]); renderers call
//! [`ScrollState::visible_offset`] with the height they actually got, which clamps the stored
//! offset so the cursor is always on screen even if the viewport changed since. A movement
//! command moves it through `ScrollState::navigate` (beside the commands, in `msg`).

/// A cursor over `len` rows and the index of the first row on screen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScrollState {
    cursor: usize,
    offset: usize,
    len: usize,
    viewport: usize,
}

/// Page size used before any viewport height is known.
const DEFAULT_VIEWPORT: usize = 10;

impl ScrollState {
    /// A state over `len` rows, cursor on the first.
    pub fn new(len: usize) -> Self {
        Self {
            len,
            ..Self::default()
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The cursor row (0 when empty).
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The stored first visible row.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The viewport height used for paging (the last one given, or a default).
    pub fn viewport(&self) -> usize {
        if self.viewport == 0 {
            DEFAULT_VIEWPORT
        } else {
            self.viewport
        }
    }

    /// Changes the row count, keeping the cursor in range.
    pub fn set_len(&mut self, len: usize) {
        self.len = len;
        self.cursor = self.cursor.min(len.saturating_sub(1));
        self.keep_visible();
    }

    /// Sets the number of rows on screen (call on resize/layout).
    pub fn set_viewport(&mut self, rows: usize) {
        self.viewport = rows;
        self.keep_visible();
    }

    /// Puts the cursor on `row` (clamped).
    pub fn select(&mut self, row: usize) {
        self.cursor = row.min(self.len.saturating_sub(1));
        self.keep_visible();
    }

    /// Moves the cursor up by `n` rows.
    pub fn up(&mut self, n: usize) {
        self.select(self.cursor.saturating_sub(n));
    }

    /// Moves the cursor down by `n` rows.
    pub fn down(&mut self, n: usize) {
        self.select(self.cursor.saturating_add(n));
    }

    /// Moves one viewport up.
    pub fn page_up(&mut self) {
        self.up(self.viewport().saturating_sub(1).max(1));
    }

    /// Moves one viewport down.
    pub fn page_down(&mut self) {
        self.down(self.viewport().saturating_sub(1).max(1));
    }

    /// Cursor to the first row.
    pub fn top(&mut self) {
        self.select(0);
    }

    /// Cursor to the last row.
    pub fn bottom(&mut self) {
        self.select(self.len.saturating_sub(1));
    }

    /// Scrolls the view by `delta` rows (mouse wheel), dragging the cursor along when it would
    /// leave the screen.
    pub fn scroll_by(&mut self, delta: isize) {
        let max_offset = self.len.saturating_sub(self.viewport());
        self.offset = self.offset.saturating_add_signed(delta).min(max_offset);
        let last_visible = self.offset + self.viewport() - 1;
        if self.cursor < self.offset {
            self.cursor = self.offset.min(self.len.saturating_sub(1));
        } else if self.cursor > last_visible {
            self.cursor = last_visible.min(self.len.saturating_sub(1));
        }
    }

    /// The first row to draw in a viewport of `height` rows: the stored offset, moved just
    /// enough to show the cursor and to not leave blank rows below the last row.
    pub fn visible_offset(&self, height: usize) -> usize {
        if height == 0 || self.len == 0 {
            return 0;
        }
        let mut off = self.offset;
        if self.cursor < off {
            off = self.cursor;
        } else if self.cursor >= off + height {
            off = self.cursor + 1 - height;
        }
        off.min(self.len.saturating_sub(height))
    }

    /// The rows visible in a viewport of `height` rows.
    pub fn visible_range(&self, height: usize) -> std::ops::Range<usize> {
        let off = self.visible_offset(height);
        off..(off + height).min(self.len)
    }

    /// The same position seen upside down (for a list drawn last row first): row `i` becomes
    /// row `len - 1 - i`, and the rows on screen in a viewport of `height` rows stay the same
    /// rows.
    pub fn mirrored(&self, height: usize) -> ScrollState {
        let off = self.visible_offset(height);
        ScrollState {
            cursor: self.len.saturating_sub(1).saturating_sub(self.cursor),
            offset: self.len.saturating_sub(off + height),
            len: self.len,
            viewport: self.viewport,
        }
    }

    fn keep_visible(&mut self) {
        self.offset = self.visible_offset(self.viewport());
    }
}
