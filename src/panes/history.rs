//! history pane (in progress)
