//! ui (in progress)
