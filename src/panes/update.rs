//! update pane (in progress)
