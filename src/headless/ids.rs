//! Update ids given to headless commands as the screen shows them (`9237fcb34d82…`,
//! `1220d17b…9f1e`): an abbreviation is completed from the local index before any scan is
//! asked, and never sent as typed. Without an index, or when it names several updates, the
//! command is a usage error that says why.

use crate::cli::{Command, NetworkCommand, ScanCommand};
use crate::config::Settings;
use crate::model::id_pattern::{IdPattern, ambiguous, matching};
use crate::model::index::query::Query;
use crate::store::{Location, open_reader};

/// Most candidates read from the index for one abbreviation.
const CANDIDATES: usize = 1000;

/// `command` with every update id it takes whole: an abbreviation completed from the local
/// index (`index`: its location, `None` without one), or why it cannot be.
pub fn resolve_command_ids(command: &mut Command, settings: &Settings) -> Result<(), String> {
    let slot = match command {
        // `open` a locator holding an abbreviation: the view of the whole id.
        Command::Open(args) => {
            if let Some(text) = args.locator.abbreviated() {
                let whole = resolve_update_id(text, settings.explorer_index().as_deref())?;
                args.locator = args.locator.with_update_id(&whole);
            }
            return Ok(());
        }
        Command::Scan(ScanCommand::Event { update_id }) => update_id,
        Command::Network(args) => match &mut args.command {
            NetworkCommand::CheckUpdate { update_id, .. } => update_id,
            _ => return Ok(()),
        },
        _ => return Ok(()),
    };
    *slot = resolve_update_id(slot, settings.explorer_index().as_deref())?;
    Ok(())
}

/// The whole update id `text` names: itself when whole, else the one update of the local index
/// an abbreviation names.
pub fn resolve_update_id(text: &str, index: Option<&str>) -> Result<String, String> {
    let pattern = IdPattern::parse(text)?;
    if let Some(whole) = pattern.whole() {
        return Ok(whole.to_owned());
    }
    let shown = crate::api::sanitize_line(text, 80);
    let Some(index) = index else {
        return Err(format!(
            "{shown:?} is not a whole update id (68 hex characters; Scan cannot look an update up by a prefix of its id), and there is no local index to complete it from (--index, or `cantonscope index sync`)"
        ));
    };
    let location = Location::parse(index);
    let cannot = |why: String| {
        format!(
            "{shown:?} is not a whole update id, and the local index {} cannot complete it: {why}",
            location.describe()
        )
    };
    let mut store = open_reader(&location).map_err(|e| cannot(e.to_string()))?;
    let query = Query::parse(&[pattern.search_term()]).map_err(cannot)?;
    let rows = store
        .search(&query, None, None, CANDIDATES)
        .map_err(|e| cannot(e.to_string()))?;
    let found = matching(&pattern, rows.iter().map(|r| r.update_id.as_str()));
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(format!(
            "{shown:?} is not a whole update id, and no update of the local index {} matches it",
            location.describe()
        )),
        many => Err(ambiguous(text, many)),
    }
}
