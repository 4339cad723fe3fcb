//! App state, actions and effects (in progress).
pub mod action;
pub mod effect;
