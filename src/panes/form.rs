//! The form kit lives in [`crate::ui::form`]; this re-export keeps the panes that still name
//! `panes::form` building until they import it from `ui::form`.

pub use crate::ui::form::*;
