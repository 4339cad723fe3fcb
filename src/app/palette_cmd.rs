//! The `:` command palette's commands: their completion entries, and what each one does.

use crate::msg::{Command, Tabs};
use crate::panes::{Out, PaneId};
use crate::ui::palette::{Palette, PaletteCommand, PaletteEntry};
use crate::ui::theme::Theme;

use super::App;

/// The commands the palette offers.
pub fn entries() -> Vec<PaletteEntry> {
    let panes = PaneId::ALL
        .iter()
        .map(|p| p.title().to_lowercase())
        .collect();
    vec![
        PaletteEntry::new("event", "open an update by its id").arg("update_id"),
        PaletteEntry::new(
            "hash",
            "open the update of a prepared transaction's hash (tries every scan)",
        )
        .arg("hash"),
        PaletteEntry::new(
            "bft",
            "check an update on every scan (BFT consensus; default: the selected one)",
        )
        .optional_arg("update_id"),
        PaletteEntry::new(
            "sweep",
            "compare the history of every scan from the oldest loaded update (begin: from the beginning; from TIME: RFC 3339, -2h, yesterday 14:00; cancel: stop; save [FILE])",
        )
        .optional_arg("begin|from|cancel|save")
        .optional_arg("time|file")
        .rest(),
        PaletteEntry::new(
            "time",
            "go to a record time in the history (RFC 3339, -2h, yesterday 14:00)",
        )
        .arg("when")
        .rest(),
        PaletteEntry::new(
            "load",
            "load a span of history in the background (1h, 6h, 24h, 90m, 2d)",
        )
        .arg_with_values(
            "span",
            crate::panes::history::SPAN_CHOICES
                .iter()
                .map(|s| (*s).to_string())
                .collect(),
        ),
        PaletteEntry::new("theme", "switch the colour theme").arg_with_values(
            "name",
            Theme::names().iter().map(|s| s.to_string()).collect(),
        ),
        PaletteEntry::new("filter", "filter the history (empty clears)")
            .optional_arg("text")
            .rest(),
        PaletteEntry::new("pane", "go to a pane").arg_with_values("name", panes),
        PaletteEntry::new("follow", "follow the live tail"),
        PaletteEntry::new("errors", "show the error log"),
        PaletteEntry::new("help", "show the keys"),
        PaletteEntry::new("quit", "quit cantonscope"),
    ]
}

/// Parses a palette line (as typed after `:`).
pub fn parse(line: &str) -> Result<PaletteCommand, String> {
    Palette::new(entries()).parse(line.trim_start_matches(':'))
}

/// Runs a parsed palette command.
pub fn run(app: &mut App, cmd: PaletteCommand, out: &mut Out) {
    let arg = cmd.args.join(" ");
    match cmd.name.as_str() {
        "event" => match resolve_update_id(&app.sh.history, arg.trim(), "event") {
            Ok(update_id) => out.events.push(crate::panes::AppEvent::OpenUpdate {
                update_id,
                event_id: None,
            }),
            // The open update stays open.
            Err(e) => out.error(e),
        },
        "hash" => {
            out.owner = PaneId::Network;
            app.panes.network.lookup_hash(arg.trim(), &mut app.sh, out);
        }
        "bft" => match arg.trim() {
            "" => app.on_command(Command::Consensus, out),
            id => match resolve_update_id(&app.sh.history, id, "bft") {
                Ok(update_id) => app.open_check(&update_id, out),
                Err(e) => out.error(e),
            },
        },
        "sweep" => {
            app.focus = PaneId::Network;
            out.owner = PaneId::Network;
            let net = &mut app.panes.network;
            let arg = arg.trim();
            let (word, rest) = arg.split_once(' ').unwrap_or((arg, ""));
            match word {
                "cancel" | "stop" if !net.sweep_state().is_running() => {
                    out.info("no sweep is running");
                }
                "cancel" | "stop" => net.cancel_sweep(out),
                "save" if rest.trim().is_empty() => net.open_sweep_save(&app.sh, out),
                "save" => net.save_sweep(rest, &mut app.sh, out),
                "" | "begin" | "from" => {
                    let text = if word == "begin" { "begin" } else { rest };
                    match crate::panes::network::SweepFrom::parse(
                        text,
                        app.sh.now,
                        app.sh.local_time,
                    ) {
                        Ok(from) => net.start_sweep(from, &mut app.sh, out),
                        Err(e) => out.error(format!("sweep: {e}")),
                    }
                }
                _ => out.error(format!(
                    "sweep: {:?} is not begin, from <time>, save or cancel",
                    crate::ui::safe::safe_line(arg, 40)
                )),
            }
        }
        "time" => match crate::model::when::parse_when(&arg, app.sh.now, app.sh.local_time) {
            Some(t) if t > app.sh.now => out.error(format!(
                "time: {} is in the future (it is {} now)",
                app.sh.format_time(t),
                app.sh.format_time(app.sh.now)
            )),
            Some(t) => {
                app.focus = PaneId::History;
                out.owner = PaneId::History;
                app.panes.history.goto_time(t, &app.sh, out);
            }
            None => out.error(format!(
                "not a time: {:?} (use RFC 3339, -2h or yesterday 14:00)",
                crate::ui::safe::safe_line(arg.trim(), 60)
            )),
        },
        "load" => match crate::panes::history::parse_span(&arg) {
            Ok(secs) => {
                app.focus = PaneId::History;
                out.owner = PaneId::History;
                app.panes.history.load_span(secs, &app.sh, out);
            }
            Err(e) => out.error(format!("not a span: {e}")),
        },
        "theme" => out
            .effects
            .push(super::Effect::LoadTheme(arg.trim().to_string())),
        "filter" => {
            app.focus = PaneId::History;
            out.owner = PaneId::History;
            app.panes.history.set_filter(&arg, &app.sh, out);
        }
        "pane" => {
            match PaneId::ALL
                .iter()
                .find(|p| p.title().eq_ignore_ascii_case(arg.trim()))
            {
                Some(p) => app.focus = *p,
                None => out.error(format!(
                    "no pane named {:?}",
                    crate::ui::safe::safe_line(&arg, 40)
                )),
            }
        }
        "follow" => {
            app.focus = PaneId::History;
            app.on_command(Command::FollowTail, out);
        }
        "errors" => app.on_command(Command::ErrorLog, out),
        "help" => app.on_command(Command::Help, out),
        "quit" => app.on_command(Command::Quit, out),
        other => out.error(format!("unknown command {other:?}")),
    }
}

/// The update id `text` names: itself when it is a whole id (64 hex digits after an optional
/// `1220`-style multihash prefix, or any id of a loaded update), else the one loaded update id
/// it is a prefix of (case-insensitive). Several matches are "ambiguous: N matches"; none is
/// "not found among the N loaded updates".
pub fn resolve_update_id(
    history: &crate::model::history::History,
    text: &str,
    command: &str,
) -> Result<String, String> {
    if text.is_empty() {
        return Err(format!(
            "{command}: give an update id or a unique prefix of a loaded one"
        ));
    }
    if history.find_update(text).is_some() || text.len() >= 64 {
        return Ok(text.to_string());
    }
    let lower = text.to_ascii_lowercase();
    let mut found: Vec<&str> = history
        .iter()
        .map(|s| &*s.update_id)
        .filter(|id| id.to_ascii_lowercase().starts_with(&lower))
        .collect();
    found.sort_unstable();
    found.dedup();
    match found.as_slice() {
        [one] => Ok((*one).to_string()),
        [] => Err(format!(
            "{command} {}: not found among the {} loaded updates (give the whole id to fetch it)",
            crate::ui::safe::safe_line(text, 40),
            history.len()
        )),
        many => Err(format!(
            "{command} {}: ambiguous: {} matches",
            crate::ui::safe::safe_line(text, 40),
            many.len()
        )),
    }
}
