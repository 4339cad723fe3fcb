//! status pane (in progress)
