//! Screens as text and what makes them comparable: buffers to strings, masks for the volatile
//! parts (clock, ages, ports, latencies), and the snapshot assertion.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

/// `insta::assert_snapshot!(name, value)` with the snapshot file where it has always been:
/// `tests/snapshots/<module>__<name>.snap`, `<module>` being the test module (`pane_history`), as
/// when every module was its own test binary. insta would otherwise name it after the whole module
/// path (`it__pane_history__…`) next to the module's file.
macro_rules! assert_snapshot {
    ($name:expr, $value:expr $(,)?) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../snapshots");
        settings.set_prepend_module_to_snapshot(false);
        let _bound = settings.bind_to_scope();
        let module = module_path!().rsplit("::").next().unwrap_or_default();
        insta::assert_snapshot!(format!("{module}__{}", $name), $value);
    }};
}
pub(crate) use assert_snapshot;

/// A buffer as text, trailing spaces trimmed.
pub fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        for x in 0..area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Replaces volatile parts of a screen (clock, ages, latencies, URLs with ports) so snapshots are
/// stable across runs.
pub fn stable(screen: &str) -> String {
    let re = [
        (r"127\.0\.0\.1:\d+", "127.0.0.1:PORT"),
        // The Network pane's hosts, shortened to the part that tells them apart.
        (r"…:\d+", "…:PORT"),
        (
            r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?( UTC|Z)?",
            "<time>",
        ),
        (r"\b\d{2}:\d{2}:\d{2}\.\d{3}\b", "<hh:mm:ss>"),
        (r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}\b", "<yyyy-mm-dd hh:mm>"),
        // The History title's loaded range (`14:02–14:12`, `11-21 23:50–11-22 00:10`), also
        // when an overlay cuts it (`14:02–14:`).
        (
            r"(\d{2}-\d{2} )?\d{2}:\d{2}–((\d{2}-\d{2} )?\d{2}:\d{2}\b|[\d:-]*)",
            "<range>",
        ),
        (
            r"browsing \d{2}-\d{2} \d{2}:\d{2}\b",
            "browsing <mm-dd hh:mm>",
        ),
        (r"\(\d+[smhd] ago\)", "(<age>)"),
        // The header's newest update at 80 to 120 columns: its age without "ago".
        (
            r"\(\d+[smhd]( \d+[smhd])?\)( · (LIVE|PAUSED|OFFLINE|CONNECTING|BROWSING))",
            "(<age>)$2",
        ),
        (r"\b\d+(ms| ms)\b", "<ms>"),
        (r"\bup \d+[smhd]( \d+[smhd])?", "up <uptime>"),
        (r"\b\d+[smhd] ago\b", "<age> ago"),
        (r"latency [^│]*", "latency <latency> "),
        (r"[ ▁▂▃▄▅▆▇█]*[▁▂▃▄▅▆▇█][ ▁▂▃▄▅▆▇█]*", " <spark> "),
        (
            r"updates/min \d+ last minute · avg [\d.]+ over \d+ min",
            "updates/min <n> last minute · avg <n> over <n> min",
        ),
        (
            r"current round [\d,]+ · opened \d{2}:\d{2}:\d{2}",
            "current round <n> · opened <hh:mm:ss>",
        ),
        (
            r"open [\d,· ]+ next opens \d{2}:\d{2}:\d{2}",
            "open <rounds> next opens <hh:mm:ss>",
        ),
        (r"issuing [\d,· ]+", "issuing <rounds> "),
        (
            r"updates/min [\d-]+ by record time · avg [\d.-]+ over \d+ min",
            "updates/min <n> by record time · avg <n> over <n> min",
        ),
        (r"\blag \d+[smhd]( \d+[smhd])?", "lag <lag>"),
        (r"newest \d{2}:\d{2}:\d{2}", "newest <hh:mm:ss>"),
        // A time of day cut off by an overlay (History shows times without dates when the
        // loaded rows are of one day).
        (r"(?m)^│\d{1,2}(:[\d:.]*)?([┌│└])", "│<cut time>${2}"),
        // A date cut off by an overlay (the demo's ledger is dated today).
        (r"\b\d{4}-\d{2}-\d{2}\b", "<date>"),
        // … also when the overlay leaves only its start (`2026-11`, `2026-11-2`).
        (r"\b20\d{2}-[\d-]*", "<date>"),
    ];
    // A loaded range with dates (it spans midnight) is 12 characters wider than one without:
    // the title's border after it is drawn as for the short one, so a snapshot does not depend
    // on the time of day it runs.
    let dated =
        regex::Regex::new(r"\d{2}-\d{2} \d{2}:\d{2}–\d{2}-\d{2} \d{2}:\d{2}\b([^─│\n]*)(─*)")
            .expect("regex");
    let mut s = dated
        .replace_all(screen, |c: &regex::Captures| {
            let border = c[2].chars().count();
            let border = if border > 0 { border + 12 } else { 0 };
            format!("00:00–00:00{}{}", &c[1], "─".repeat(border))
        })
        .into_owned();
    // The chart's peak: its border after the number is drawn as for a one-digit peak.
    let peak = regex::Regex::new(r"of record time · peak (\d+) (─*)").expect("regex");
    s = peak
        .replace_all(&s, |c: &regex::Captures| {
            let border = c[2].chars().count() + c[1].len() - 1;
            format!("of record time · peak <n> {}", "─".repeat(border))
        })
        .into_owned();
    for (pat, rep) in re {
        s = regex::Regex::new(pat)
            .expect("regex")
            .replace_all(&s, rep)
            .into_owned();
    }
    s
}

/// [`stable`] plus bare `hh:mm:ss` clocks (the header's short clock).
pub fn stable_hms(screen: &str) -> String {
    let s = stable(screen);
    regex::Regex::new(r"\b\d{2}:\d{2}:\d{2}\b")
        .expect("regex")
        .replace_all(&s, "<hh:mm:ss>")
        .into_owned()
}

/// A buffer as text, one line per row, trailing spaces kept.
pub fn untrimmed_text(buf: &Buffer) -> String {
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

/// A test terminal's screen as text, one line per row, trailing spaces kept.
pub fn screen_text(t: &Terminal<TestBackend>) -> String {
    untrimmed_text(t.backend().buffer())
}
