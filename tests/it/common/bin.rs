//! The real binary, for tests that run it as a user would.

use std::path::Path;
use std::process::{Command, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_cantonscope");

/// The binary with a clean environment: no user config, no `CANTONSCOPE_*` variables, its home,
/// data dir and log file in the test's temp dir `dir`, stdin closed.
pub fn bin(dir: &Path) -> Command {
    let mut command = Command::new(BIN);
    command.env_clear();
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    command
        .env("XDG_CONFIG_HOME", dir.join("no-config"))
        .env("CANTONSCOPE_DATA_DIR", dir.join("data"))
        .env("HOME", dir)
        .arg("--log-file")
        .arg(dir.join("cantonscope.log"))
        .stdin(Stdio::null());
    command
}

/// A tokio runtime for a demo network the binary talks to.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}
