//! The pure state machines the App owns that speak the message vocabulary ([`crate::msg`]): the
//! history loader (the one writer of the loaded history: discover, seek, forward, poll, earlier,
//! with pacing, back-off and the memory budget), the Status dashboard's node poller and its
//! verdict. They take replies and the clock and return requests as data; they do no I/O.
//!
//! They sit above `model` (whose data types they fill) and `msg`, below `panes` and `app`, so no
//! top-level modules import each other in a loop.

pub mod dashboard;
pub mod health;
pub mod index;
pub mod loader;
pub mod node_metrics;
pub mod node_poll;
pub mod range_export;
pub mod timeline;
