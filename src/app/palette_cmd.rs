//! The `:` command palette's commands: their completion entries, and what each one does.

use crate::msg::Command;
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
            "time",
            "go to a record time in the history (RFC 3339, -2h, yesterday 14:00)",
        )
        .arg("when")
        .optional_arg("hh:mm"),
        PaletteEntry::new("theme", "switch the colour theme").arg_with_values(
            "name",
            Theme::names().iter().map(|s| s.to_string()).collect(),
        ),
        PaletteEntry::new("filter", "filter the history (empty clears)").optional_arg("text"),
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
        "event" => out.events.push(crate::panes::AppEvent::OpenUpdate {
            update_id: arg.trim().to_string(),
            event_id: None,
        }),
        "hash" => {
            out.owner = PaneId::Network;
            app.network.lookup_hash(arg.trim(), &mut app.sh, out);
        }
        "time" => match crate::model::when::parse_when(&arg, app.sh.now, app.sh.local_time) {
            Some(t) => {
                app.focus = PaneId::History;
                out.owner = PaneId::History;
                app.history.goto_time(t, &app.sh, out);
            }
            None => out.error(format!(
                "not a time: {:?} (use RFC 3339, -2h or yesterday 14:00)",
                crate::ui::safe::safe_line(arg.trim(), 60)
            )),
        },
        "theme" => out
            .effects
            .push(super::Effect::LoadTheme(arg.trim().to_string())),
        "filter" => {
            app.focus = PaneId::History;
            out.owner = PaneId::History;
            app.history.set_filter(&arg, &app.sh, out);
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
