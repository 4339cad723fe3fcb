//! Party arguments given as a name (`judy`, `harbor-validator-1`) instead of a whole party id
//! (`name::1220…`). Scan has no list of all parties, so a name is completed only where a source
//! names it uniquely: the validator licenses (`/v0/admin/validator/licenses`, for validators)
//! and the ANS entries (`/v0/ans-entries`, whose names are `judy.unverified.cns` and the like).
//! Otherwise it is a usage error that says how to get the whole id: asking with the name would
//! answer an empty list, which reads as "this party has nothing".

use crate::api::ApiClient;
use crate::api::scan;
use crate::model::format::short_party;

/// Pages of validator licenses read at most (1,000 each).
const MAX_LICENSE_PAGES: usize = 20;
/// ANS entries read per name.
const ANS_PAGE: u32 = 100;

/// What completed a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completed {
    /// As typed.
    pub given: String,
    /// The whole party id.
    pub party: String,
    /// Where it came from (`the validator license`, `the ANS entry judy.unverified.cns`).
    pub source: String,
}

/// `texts` with every name completed to a whole party id (`validators`: only validator licenses
/// name one), or the usage error to print. Ids with `::` pass unchanged; the completions are
/// returned to be told on stderr.
pub async fn complete(
    client: &ApiClient,
    texts: &[String],
    validators: bool,
) -> Result<(Vec<String>, Vec<Completed>), String> {
    let names: Vec<&String> = texts.iter().filter(|t| !t.contains("::")).collect();
    if names.is_empty() {
        return Ok((texts.to_vec(), Vec::new()));
    }
    let licensed = licensed_validators(client).await;
    let mut out = Vec::with_capacity(texts.len());
    let mut told = Vec::new();
    for text in texts {
        if text.contains("::") {
            out.push(text.clone());
            continue;
        }
        let mut found: Vec<(String, String)> = licensed
            .iter()
            .filter(|id| short_party(id) == text.as_str())
            .map(|id| (id.clone(), "its validator license".to_owned()))
            .collect();
        if !validators {
            for entry in ans_named(client, text).await {
                if !found.iter().any(|(id, _)| *id == entry.user) {
                    found.push((entry.user, format!("the ANS entry {}", entry.name)));
                }
            }
        }
        match found.as_slice() {
            [(party, source)] => {
                out.push(party.clone());
                told.push(Completed {
                    given: text.clone(),
                    party: party.clone(),
                    source: source.clone(),
                });
            }
            [] => {
                let sources = if validators {
                    "no validator license names it"
                } else {
                    "no validator license or ANS entry names it"
                };
                return Err(format!(
                    "{:?} is not a party id (NAME::FINGERPRINT, with `::`) and {sources}: give the \
                     whole id (the explorer copies one with y; `cantonscope scan dso` lists the SVs)",
                    crate::api::json::sanitize_line(text, 60)
                ));
            }
            many => {
                return Err(format!(
                    "{:?} is not a party id, and it names {} parties: {}; give the whole id",
                    crate::api::json::sanitize_line(text, 60),
                    many.len(),
                    many.iter()
                        .map(|(id, _)| crate::api::json::sanitize_line(id, 90))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }
    Ok((out, told))
}

/// Every licensed validator's party (an unreadable list is no source: the error says so when
/// nothing else names the party).
async fn licensed_validators(client: &ApiClient) -> Vec<String> {
    let mut out = Vec::new();
    let mut after = None;
    for _ in 0..MAX_LICENSE_PAGES {
        let Ok(page) = client.send(&scan::validator_licenses(after, 1000)).await else {
            break;
        };
        out.extend(page.validator_licenses.iter().filter_map(|c| {
            let payload: serde_json::Value = serde_json::from_str(c.payload.get()).ok()?;
            payload["validator"].as_str().map(str::to_owned)
        }));
        match page.next_page_token {
            Some(next) if Some(next) != after && !page.validator_licenses.is_empty() => {
                after = Some(next);
            }
            _ => break,
        }
    }
    out
}

/// The ANS entries that name `text`: the name itself, or it followed by a `.` suffix
/// (`judy.unverified.cns`).
async fn ans_named(client: &ApiClient, text: &str) -> Vec<scan::AnsEntry> {
    let Ok(page) = client.send(&scan::ans_entries(text, ANS_PAGE)).await else {
        return Vec::new();
    };
    page.entries
        .into_iter()
        .filter(|e| {
            e.name == text
                || e.name
                    .strip_prefix(text)
                    .is_some_and(|rest| rest.starts_with('.'))
        })
        .collect()
}
