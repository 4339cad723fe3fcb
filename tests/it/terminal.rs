//! The real binary in a real terminal (a pseudo-terminal from util-linux `script`): whatever
//! ends it, the terminal is given back as it was found.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::bin::BIN;

/// Leaves the alternate screen; shows the cursor; turns mouse reporting off.
const RESTORED: [&str; 3] = ["\x1b[?1049l", "\x1b[?25h", "\x1b[?1000l"];

/// The explorer on its demo network with `args`, in a 100x30 pseudo-terminal, with `env` set;
/// its output collects in the returned buffer.
fn explorer_in_a_pty(
    dir: &std::path::Path,
    args: &str,
    env: &[(&str, &str)],
) -> (Child, Arc<Mutex<Vec<u8>>>) {
    let command = format!(
        "stty cols 100 rows 30; exec {BIN} demo {args} --log-file {}",
        dir.join("cantonscope.log").display()
    );
    let mut child = Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .env_remove("NO_COLOR")
        .envs(env.iter().copied())
        .env("TERM", "xterm-256color")
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("CANTONSCOPE_DATA_DIR", dir.join("data"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("util-linux script runs");
    let out = Arc::new(Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().expect("stdout");
    let sink = Arc::clone(&out);
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    (child, out)
}

fn text(out: &Arc<Mutex<Vec<u8>>>) -> String {
    String::from_utf8_lossy(&out.lock().unwrap()).into_owned()
}

/// The process `script` runs the explorer in (its only child).
fn explorer_pid(script: &Child) -> String {
    let path = format!("/proc/{0}/task/{0}/children", script.id());
    let children = std::fs::read_to_string(&path).expect("children of script");
    children
        .split_whitespace()
        .next()
        .expect("a child")
        .to_owned()
}

fn wait_for(what: &str, deadline: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn first_frame(out: &Arc<Mutex<Vec<u8>>>) {
    wait_for("the first frame", Duration::from_secs(60), || {
        let t = text(out);
        t.contains("\x1b[?1049h") && t.contains("History")
    });
}

fn end(mut script: Child) {
    let pid = explorer_pid(&script);
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    wait_for("the explorer to end", Duration::from_secs(20), || {
        script.try_wait().expect("wait").is_some()
    });
}

/// Whether the output sets a foreground or background colour (SGR 30–49 or 90–107).
fn has_colour(out: &str) -> bool {
    out.split("\x1b[").skip(1).any(|seq| {
        let params = seq.split('m').next().unwrap_or_default();
        params.len() < 24
            && params
                .split(';')
                .next()
                .and_then(|p| p.parse::<u32>().ok())
                .is_some_and(|p| (30..=49).contains(&p) || (90..=107).contains(&p))
    })
}

#[test]
fn no_color_gives_mono_unless_a_theme_is_named() {
    for (args, coloured) in [("", false), ("--theme light", true)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let (script, out) = explorer_in_a_pty(dir.path(), args, &[("NO_COLOR", "1")]);
        first_frame(&out);
        std::thread::sleep(Duration::from_millis(500));
        let shown = text(&out);
        end(script);
        assert_eq!(has_colour(&shown), coloured, "NO_COLOR=1 demo {args}");
        // Either way the selected row and the focused tab stand out (reverse or bold).
        assert!(
            shown.contains("\x1b[1m") || shown.contains("\x1b[7m"),
            "NO_COLOR=1 demo {args}: no emphasis at all"
        );
    }
}

#[test]
fn a_signal_ends_the_explorer_and_restores_the_terminal() {
    for signal in ["TERM", "HUP"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut script, out) = explorer_in_a_pty(dir.path(), "", &[]);
        first_frame(&out);
        let drawn = out.lock().unwrap().len();
        let pid = explorer_pid(&script);
        let kill = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .expect("kill runs");
        assert!(kill.success());
        let mut status = None;
        wait_for("the explorer to end", Duration::from_secs(20), || {
            status = script.try_wait().expect("wait");
            status.is_some()
        });
        let after = String::from_utf8_lossy(&out.lock().unwrap()[drawn..]).into_owned();
        for sequence in RESTORED {
            assert!(
                after.contains(sequence),
                "SIG{signal}: {sequence:?} not written after the signal: {after:?}"
            );
        }
        let log = std::fs::read_to_string(dir.path().join("cantonscope.log")).unwrap_or_default();
        assert!(log.contains(&format!("SIG{signal}: quitting")), "{log}");
    }
}

#[test]
fn a_theme_that_does_not_exist_is_a_configuration_error_before_the_screen_is_taken() {
    let dir = tempfile::tempdir().expect("tempdir");
    let command = format!("exec {BIN} demo --theme neon");
    let output = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("CANTONSCOPE_DATA_DIR", dir.path().join("data"))
        .stdin(Stdio::null())
        .output()
        .expect("util-linux script runs");
    let shown = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{shown}");
    assert!(shown.contains("unknown theme \"neon\""), "{shown}");
    assert!(
        !shown.contains("\x1b[?1049h"),
        "the screen was taken: {shown:?}"
    );
}
