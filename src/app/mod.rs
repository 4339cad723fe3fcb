//! app (in progress)
