//! The vocabulary every layer shares: [`Action`] (what happened), [`Effect`] (what to do),
//! [`Request`] / [`Response`] (fetches and their results) and [`Command`] (named user intents).
//!
//! A leaf module: it knows the API's data types and nothing of the app, the panes, the UI or the
//! config, so each of those imports it and none of them import each other through it.

pub mod action;
pub mod command;
pub mod effect;
pub mod pane;
pub mod tabs;

pub use action::{Action, ThemeSource};
pub use command::{Command, UnknownCommand};
pub use effect::{
    Effect, FILE_EXISTS, Fetched, KeptBody, Owner, Request, RequestId, RequestIds, Response,
    UNEXPECTED_INDEX_ANSWER,
};
pub use pane::PaneId;
pub use tabs::Tabs;
