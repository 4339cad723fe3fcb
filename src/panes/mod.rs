//! panes (in progress)
