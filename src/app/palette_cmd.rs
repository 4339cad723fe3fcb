//! The `:` command palette's commands: their completion entries, and what each one does.

use crate::model::id_pattern::IdPattern;
use crate::model::locator::Locator;
use crate::model::when::parse_when;
use crate::msg::{Command, Tabs};
use crate::panes::network::SweepFrom;
use crate::panes::{AppEvent, PaneId, SweepIntent};
use crate::ui::palette::{Palette, PaletteCommand, PaletteEntry};
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

use super::state::App;

/// The commands the palette offers.
pub fn entries() -> Vec<PaletteEntry> {
    let panes = PaneId::ALL
        .iter()
        .map(|p| p.title().to_lowercase())
        .collect();
    let mut entries = vec![
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
        PaletteEntry::new(
            "open",
            "go to the view a locator names (cs1:update/<id>, cs1:history?party=…; W copies this view's)",
        )
        .arg("locator"),
        PaletteEntry::new("theme", "switch the colour theme").arg_with_values(
            "name",
            Theme::names().iter().map(std::string::ToString::to_string).collect(),
        ),
        PaletteEntry::new("filter", "filter the history (empty clears)")
            .optional_arg("text")
            .rest(),
        PaletteEntry::new("pane", "go to a pane").arg_with_values("name", panes),
        PaletteEntry::new("follow", "follow the live tail"),
        PaletteEntry::new("errors", "show the error log"),
        PaletteEntry::new("rounds", "show the mining rounds the local index holds"),
        PaletteEntry::new("help", "show the keys"),
        PaletteEntry::new("quit", "quit cantonscope").aliases(&["q"]),
    ];
    // Every pane is a command of its own (`:governance`, `:gov`), after the commands when a
    // prefix is matched.
    entries.extend(PaneId::ALL.iter().enumerate().map(|(i, p)| {
        let name = p.title().to_lowercase();
        let aliases: &[&str] = match *p {
            PaneId::Network => &["net"],
            PaneId::Governance => &["gov"],
            _ => &[],
        };
        PaletteEntry::new(
            name,
            format!("go to the {} pane (key {})", p.title(), (i + 1) % 10),
        )
        .aliases(aliases)
        .secondary()
    }));
    entries
}

/// The pane `text` names: its title, or a unique prefix of one (any case).
fn pane_named(text: &str) -> Result<PaneId, String> {
    let lower = text.to_lowercase();
    if let Some(p) = PaneId::ALL
        .iter()
        .find(|p| p.title().to_lowercase() == lower)
    {
        return Ok(*p);
    }
    let found: Vec<PaneId> = PaneId::ALL
        .iter()
        .filter(|p| !lower.is_empty() && p.title().to_lowercase().starts_with(&lower))
        .copied()
        .collect();
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!("no pane named {:?}", safe_line(text, 40))),
        many => Err(format!(
            "ambiguous pane {:?}: {}",
            safe_line(text, 40),
            many.iter()
                .map(|p| p.title())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Parses a palette line (as typed after `:`).
pub fn parse(line: &str) -> Result<PaletteCommand, String> {
    Palette::new(entries()).parse(line.trim_start_matches(':'))
}

/// What a parsed palette command asks: the same intents ([`AppEvent`]) the panes and keys
/// send, delivered by the app (which keeps the back stack, so Esc returns from any of them);
/// or why it cannot be done. Reads the app, changes nothing.
pub fn intent(app: &App, cmd: &PaletteCommand) -> Result<AppEvent, String> {
    let arg = cmd.args.join(" ");
    let arg = arg.trim();
    Ok(match cmd.name.as_str() {
        "event" => {
            let view = Locator::Update {
                update_id: arg.to_owned(),
                verdict: false,
            };
            match resolve_update_id(&app.sh.history, arg, "event") {
                Ok(update_id) => AppEvent::OpenUpdate {
                    update_id,
                    event_id: None,
                },
                Err(e) => in_index(app, arg, e, view)?,
            }
        }
        "hash" => AppEvent::LookupHash(arg.to_owned()),
        "bft" => match arg {
            "" => AppEvent::Run(Command::Consensus),
            id => match resolve_update_id(&app.sh.history, id, "bft") {
                Ok(update_id) => AppEvent::CheckUpdate(update_id),
                Err(e) => in_index(app, id, e, Locator::NetworkCheck(id.to_owned()))?,
            },
        },
        "sweep" => {
            let (word, rest) = arg.split_once(' ').unwrap_or((arg, ""));
            AppEvent::Sweep(match word {
                "cancel" | "stop" => SweepIntent::Cancel,
                "save" if rest.trim().is_empty() => SweepIntent::Save(None),
                "save" => SweepIntent::Save(Some(rest.to_owned())),
                "" | "begin" | "from" => {
                    let text = if word == "begin" { "begin" } else { rest };
                    let from = SweepFrom::parse(text, app.sh.now, app.sh.local_time)
                        .map_err(|e| format!("sweep: {e}"))?;
                    SweepIntent::Start(from)
                }
                _ => {
                    return Err(format!(
                        "sweep: {:?} is not begin, from <time>, save or cancel",
                        safe_line(arg, 40)
                    ));
                }
            })
        }
        "time" => match parse_when(arg, app.sh.now, app.sh.local_time) {
            Some(t) if t > app.sh.now => {
                return Err(format!(
                    "time: {} is in the future (it is {} now)",
                    app.sh.format_time(t),
                    app.sh.format_time(app.sh.now)
                ));
            }
            Some(t) => AppEvent::GoToTime(t),
            None => {
                return Err(format!(
                    "not a time: {:?} (use RFC 3339, -2h or yesterday 14:00)",
                    safe_line(arg, 60)
                ));
            }
        },
        "load" => AppEvent::LoadSpan(
            crate::panes::history::parse_span(arg).map_err(|e| format!("not a span: {e}"))?,
        ),
        "theme" => AppEvent::LoadTheme(arg.to_owned()),
        "open" => AppEvent::Open(Locator::parse(arg).map_err(|e| format!("open: {e}"))?),
        "filter" => AppEvent::FilterHistory(cmd.args.join(" ")),
        "pane" => AppEvent::Focus(pane_named(arg)?),
        "follow" => AppEvent::FollowTail,
        "errors" => AppEvent::Run(Command::ErrorLog),
        "rounds" => AppEvent::Run(Command::Rounds),
        "help" => AppEvent::Run(Command::Help),
        "quit" => AppEvent::Run(Command::Quit),
        other => match PaneId::ALL
            .iter()
            .find(|p| p.title().eq_ignore_ascii_case(other))
        {
            Some(p) => AppEvent::Focus(*p),
            None => return Err(format!("unknown command {other:?}")),
        },
    })
}

/// An abbreviation `text` no loaded update matches (`resolve_update_id`'s error `e`): looked up
/// in the local index when there is a usable one, the view `then` opened on the one match; else
/// the error.
pub fn in_index(app: &App, text: &str, e: String, then: Locator) -> Result<AppEvent, String> {
    if e.contains("not found among")
        && app.sh.index.usable()
        && IdPattern::parse(text).is_ok_and(|p| p.whole().is_none())
    {
        Ok(AppEvent::FindUpdateInIndex {
            text: text.to_owned(),
            then,
        })
    } else {
        Err(e)
    }
}

/// The update id `text` names ([`IdPattern`]: `…` or `...` marks an abbreviation, matched as
/// head and tail): itself when it is a whole id (64 hex digits after an optional
/// `1220`-style multihash prefix, put back when left out, or any id of a loaded update), else
/// the one loaded update id it is a prefix of (case-insensitive), with or without the `1220`
/// the lists leave out. Several matches are "ambiguous: N matches"; none is
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
    if history.find_update(text).is_some() {
        return Ok(text.to_string());
    }
    // Text that is no update id names no loaded update either (and goes to no scan).
    let pattern = IdPattern::parse(text).ok();
    if let Some(whole) = pattern.as_ref().and_then(IdPattern::whole) {
        return Ok(whole.to_owned());
    }
    let found = match &pattern {
        Some(pattern) => {
            let ids: Vec<String> = history
                .iter()
                .map(|s| s.update_id())
                .filter(|id| pattern.matches(id))
                .map(|id| id.to_string())
                .collect();
            crate::model::id_pattern::matching(pattern, ids.iter().map(String::as_str))
        }
        None => Vec::new(),
    };
    match found.as_slice() {
        [one] => Ok(one.clone()),
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
