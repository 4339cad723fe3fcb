//! verdict pane (in progress)
