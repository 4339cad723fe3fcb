//! The headless commands (`cantonscope scan …`, `validator …`, `ledger …`; `network …` and
//! `governance …` are their own modules): build the call from
//! the parsed command line, send it with the API client, print the server's body to stdout as
//! pretty JSON (lossless: the server's own text re-indented, every field and number kept, with
//! bidi, zero-width and C1 characters written as `\uXXXX` escapes; see [`json_text::pretty`]), and
//! report failures on stderr as one line with the exit code of [`ApiError::exit_code`]:
//! 0 success, 1 the server answered an error, 2 usage or configuration, 3 connection / TLS /
//! timeout, 4 the response could not be decoded.
//!
//! Nothing here writes to the terminal except through the `out` / `err` writers it is given.

pub mod check;
pub mod governance;
pub mod ids;
pub mod index;
pub mod network;
pub mod node;
pub mod parties;
pub mod rewards;
pub mod table;
pub mod updates;

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use serde_json::json;

use crate::api::Call;
use crate::api::{ApiClient, ApiConfig, ApiError, ledger, scan, validator};
use crate::cli::{EncodingArg, LedgerCommand, MatchArg, PageArgs, ScanCommand, ValidatorCommand};
use crate::config::Settings;
use crate::model::json_text;

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: the server answered with an error.
pub const EXIT_SERVER: i32 = 1;
/// Exit code: usage or configuration error.
pub const EXIT_USAGE: i32 = 2;
/// Exit code: connection, TLS or timeout.
pub const EXIT_CONNECT: i32 = 3;
/// Exit code: the response could not be decoded.
pub const EXIT_DECODE: i32 = 4;

/// One headless command.
#[derive(Debug, Clone, Copy)]
pub enum ApiCommand<'a> {
    /// `cantonscope scan …`
    Scan(&'a ScanCommand),
    /// `cantonscope validator …`
    Validator(&'a ValidatorCommand),
    /// `cantonscope ledger …`
    Ledger(&'a LedgerCommand),
}

/// The API client configuration for these settings.
pub fn api_config(settings: &Settings) -> ApiConfig {
    ApiConfig {
        scan_url: settings
            .scan_url
            .as_ref()
            .map(|url| url.as_str().to_owned()),
        validator_url: settings
            .validator_url
            .as_ref()
            .map(|url| url.as_str().to_owned()),
        ledger_url: settings
            .ledger_url
            .as_ref()
            .map(|url| url.as_str().to_owned()),
        token: settings.token.clone(),
        ..ApiConfig::default()
    }
}

/// The client configuration of a command that sends every request once, bounded by `timeout`
/// (`check`, `network …`).
pub fn api_config_once(settings: &Settings, timeout: Duration) -> ApiConfig {
    ApiConfig {
        request_timeout: timeout,
        connect_timeout: timeout.min(ApiConfig::default().connect_timeout),
        retries: 0,
        ..api_config(settings)
    }
}

/// The API client of `config`; when there is none, `say` says why on `err` and the exit code
/// is the error.
fn client_or_exit(
    config: ApiConfig,
    err: &mut dyn Write,
    say: fn(&mut dyn Write, &str),
) -> Result<ApiClient, i32> {
    ApiClient::new(config).map_err(|error| {
        say(err, &error.to_string());
        error.exit_code()
    })
}

/// The scans of `net` as findings and reports name them: their URLs without user info.
fn redacted_entries(net: &crate::every_scan::Network) -> Vec<crate::model::network::ScanEntry> {
    net.entries()
        .map(|e| crate::model::network::ScanEntry {
            url: crate::api::redact_userinfo(&e.url),
            ..e.clone()
        })
        .collect()
}

/// What a command that needs a scan says when none is configured; `why` (`"; …"`, or empty)
/// what it needs the scan for.
pub(crate) fn no_scan_configured(why: &str) -> String {
    format!(
        "no scan configured: give --scan-url (or $CANTONSCOPE_SCAN_URL, or scan_url in the \
         profile){why}"
    )
}

/// Says `line` on `err` as `cantonscope: <line>` (the diagnostics of `check`, `network …` and
/// `governance …`).
fn say(err: &mut dyn Write, line: &str) {
    let _ = writeln!(err, "cantonscope: {line}");
    let _ = err.flush();
}

/// Run one headless command: the response goes to `out`, diagnostics to `err`. Returns the
/// process exit code.
pub async fn run(
    command: ApiCommand<'_>,
    settings: &Settings,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    if let Some(line) = read_only_refusal(command, settings) {
        write_line(err, &line);
        return EXIT_USAGE;
    }
    let client = match ApiClient::new(api_config(settings)) {
        Ok(client) => client.with_max_response_mib(settings.max_response_mib),
        Err(error) => return report(&error, err),
    };
    let result = match command {
        ApiCommand::Scan(command) => {
            run_scan(&client, command, settings.network.request_rate, out, err).await
        }
        ApiCommand::Validator(command) => run_validator(&client, command, out).await,
        ApiCommand::Ledger(command) => run_ledger(&client, command, out, err).await,
    };
    match result {
        Ok(()) => EXIT_OK,
        Err(Failure::Api(error)) => report(&error, err),
        // Local problems (an unreadable input file, an unwritable output) count as usage.
        Err(Failure::Usage(message) | Failure::Output(message)) => {
            write_line(err, &format!("cantonscope: {message}"));
            EXIT_USAGE
        }
        Err(Failure::Server(message)) => {
            write_line(err, &format!("cantonscope: {message}"));
            EXIT_SERVER
        }
        Err(Failure::Differs) => EXIT_SERVER,
    }
}

/// The refusal of a command that changes the ledger (`ledger delete-user`, `ledger execute`)
/// when the settings are read-only (`--read-only` or the profile's `read_only = true`, as the
/// explorer's Ledger pane reads them): checked before any file is read or request sent.
fn read_only_refusal(command: ApiCommand<'_>, settings: &Settings) -> Option<String> {
    let name = match command {
        ApiCommand::Ledger(LedgerCommand::DeleteUser { .. }) => "ledger delete-user",
        ApiCommand::Ledger(LedgerCommand::Execute { .. }) => "ledger execute",
        _ => return None,
    };
    let source = settings.read_only_source()?;
    Some(format!(
        "cantonscope: {name} changes the ledger and is refused: read-only (set by {source})"
    ))
}

/// Why a headless command failed.
enum Failure {
    /// The call failed.
    Api(ApiError),
    /// A local input (a file argument) is unusable.
    Usage(String),
    /// Writing the output failed.
    Output(String),
    /// The server misbehaved (a cursor that does not move, an unreadable time).
    Server(String),
    /// A check found a difference (`scan reward-round`: a batch whose hash differs), said in
    /// the output.
    Differs,
}

impl From<ApiError> for Failure {
    fn from(error: ApiError) -> Self {
        Failure::Api(error)
    }
}

/// Applies `ops` to the network's findings kept at `path` at `now` (µs); the book after, or
/// `None` with a warning on `err` when the file could not be written.
pub fn keep_findings(
    path: &std::path::Path,
    ops: &[crate::model::findings::FindingOp],
    now: i64,
    err: &mut dyn Write,
) -> Option<crate::model::findings::FindingsBook> {
    match crate::every_scan::findings::update(path, ops, now) {
        Ok((book, _)) => Some(book),
        Err(e) => {
            let _ = writeln!(
                err,
                "cantonscope: warning: the findings could not be kept in {}: {e}",
                path.display()
            );
            None
        }
    }
}

/// The one stderr line for an API error, with the HTTP status when the message lacks it.
pub fn error_line(error: &ApiError) -> String {
    let mut line = format!("cantonscope: {error}");
    if let Some(status) = error.status()
        && !line.contains(&format!("HTTP {status}"))
    {
        line.push_str(&format!(" (HTTP {status})"));
    }
    line
}

fn report(error: &ApiError, err: &mut dyn Write) -> i32 {
    write_line(err, &error_line(error));
    error.exit_code()
}

fn write_line(err: &mut dyn Write, line: &str) {
    // Nothing sensible is left to do when stderr itself is gone.
    let _ = writeln!(err, "{line}");
    let _ = err.flush();
}

fn walk_failure(error: updates::WalkError) -> Failure {
    match error {
        updates::WalkError::Api(e) => Failure::Api(e),
        updates::WalkError::Server(m) => Failure::Server(m),
        updates::WalkError::Output(m) => Failure::Output(m),
    }
}

fn encoding(arg: EncodingArg) -> scan::ValueEncoding {
    match arg {
        EncodingArg::CompactJson => scan::ValueEncoding::CompactJson,
        EncodingArg::ProtobufJson => scan::ValueEncoding::ProtobufJson,
    }
}

/// Where `page` starts (`None`: the ledger begin).
fn page_after(page: &PageArgs) -> Option<scan::UpdatesAfter> {
    match (page.after_migration_id, &page.after_record_time) {
        (Some(migration_id), Some(record_time)) => Some(scan::UpdatesAfter {
            after_migration_id: migration_id,
            after_record_time: record_time.clone(),
        }),
        _ => None,
    }
}

/// The one page `page` asks for (10 items unless told).
fn page_request(page: &PageArgs) -> scan::UpdatesRequest {
    let page_size = page.page_size.unwrap_or(10);
    let mut request = match page_after(page) {
        Some(a) => {
            scan::UpdatesRequest::after(page_size, a.after_migration_id, a.after_record_time)
        }
        None => scan::UpdatesRequest::from_begin(page_size),
    };
    request.encoding = encoding(page.encoding);
    request
}

/// Send a call and print its body as pretty JSON.
async fn print_call<T: Send + 'static>(
    client: &ApiClient,
    call: &Call<T>,
    out: &mut dyn Write,
) -> Result<T, Failure> {
    let response = client.send_raw(call).await?;
    let pretty = json_text::pretty_bytes(&response.body).map_err(|error| {
        Failure::Api(ApiError::Decode {
            endpoint: call.endpoint(),
            path: ".".to_owned(),
            detail: error.to_string(),
        })
    })?;
    write_out(out, &pretty)?;
    Ok(response.typed)
}

/// `texts` with every name (no `::`) completed to its party where a source names it uniquely
/// (told on stderr), else a usage error with a hint: asking with a name answers an empty list.
async fn complete_parties(
    client: &ApiClient,
    texts: &[String],
    validators: bool,
    err: &mut dyn Write,
) -> Result<Vec<String>, Failure> {
    let (parties, told) = parties::complete(client, texts, validators)
        .await
        .map_err(Failure::Usage)?;
    for c in told {
        write_line(
            err,
            &format!(
                "cantonscope: {} is {} (from {})",
                crate::api::json::sanitize_line(&c.given, 60),
                crate::api::json::sanitize_line(&c.party, 200),
                c.source
            ),
        );
    }
    Ok(parties)
}

fn write_out(out: &mut dyn Write, text: &str) -> Result<(), Failure> {
    write_text(out, text).map_err(Failure::Output)
}

/// Writes `text` and a newline to `out`, flushed. A reader that stopped reading (`| head`) is
/// not an error of ours; any other failure is said in one line.
fn write_text(out: &mut dyn Write, text: &str) -> Result<(), String> {
    match out
        .write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
    {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(error) => Err(format!("cannot write the output: {error}")),
    }
}

async fn run_scan(
    client: &ApiClient,
    command: &ScanCommand,
    rate: f64,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Failure> {
    match command {
        ScanCommand::Updates {
            page,
            all,
            from,
            until,
            request_rate,
            limit,
        } => {
            if *all {
                let walk = updates::WalkRequest {
                    page_size: page.page_size.unwrap_or(100),
                    from: from.clone(),
                    after: page_after(page),
                    until: until.clone(),
                    rate: request_rate.unwrap_or(rate),
                    encoding: encoding(page.encoding),
                    limit: *limit,
                };
                let stats = updates::walk(client, &walk, out, err)
                    .await
                    .map_err(walk_failure)?;
                if stats.malformed > 0 {
                    write_line(
                        err,
                        &format!(
                            "cantonscope: warning: {} of {} updates do not match the expected \
                             shape (written as sent)",
                            stats.malformed, stats.updates
                        ),
                    );
                }
                return Ok(());
            }
            let page = print_call(client, &scan::updates(&page_request(page)), out).await?;
            let malformed = page.malformed_count();
            if malformed > 0 {
                write_line(
                    err,
                    &format!(
                        "cantonscope: warning: {malformed} of {} updates in this page do not \
                         match the expected shape (printed as sent)",
                        page.transactions.len()
                    ),
                );
            }
        }
        ScanCommand::Events { page } => {
            print_call(client, &scan::events(&page_request(page)), out).await?;
        }
        ScanCommand::Event { update_id } => {
            let call = scan::event(update_id, &scan::ValueEncoding::CompactJson);
            print_call(client, &call, out).await?;
        }
        ScanCommand::UpdateByHash { hash } => {
            let call = scan::update_by_hash(hash, &scan::ValueEncoding::CompactJson);
            print_call(client, &call, out).await?;
        }
        ScanCommand::RewardRound { round } => {
            let (report, verified) = rewards::reward_round(client, *round).await?;
            write_out(
                out,
                &json_text::pretty(&report.to_string())
                    .map_err(|e| Failure::Output(e.to_string()))?,
            )?;
            if verified == Some(false) {
                return Err(Failure::Differs);
            }
        }
        ScanCommand::Status => {
            print_call(client, &scan::status(), out).await?;
        }
        ScanCommand::BftSequencers => {
            print_call(client, &scan::bft_sequencers(), out).await?;
        }
        ScanCommand::Dso => {
            print_call(client, &scan::dso(), out).await?;
        }
        ScanCommand::Holdings {
            migration_id,
            record_time,
            record_time_match,
            parties,
        } => {
            // As the explorer does: the current migration, now, the newest snapshot at or
            // before it.
            let migration_id = if let Some(m) = migration_id {
                *m
            } else {
                let limiter = crate::every_scan::limiter::Limiter::new(rate);
                updates::newest_migration(client, &limiter)
                    .await
                    .map_err(walk_failure)?
            };
            let now = record_time.as_deref().is_none_or(|t| t == "now");
            let record_time = match record_time {
                Some(t) if t != "now" => t.clone(),
                _ => {
                    crate::model::format::format_time_micros(chrono::Utc::now().timestamp_micros())
                }
            };
            let record_time_match = match record_time_match {
                Some(MatchArg::Exact) => scan::RecordTimeMatch::Exact,
                Some(MatchArg::AtOrBefore) => scan::RecordTimeMatch::AtOrBefore,
                None if now => scan::RecordTimeMatch::AtOrBefore,
                None => scan::RecordTimeMatch::Exact,
            };
            let parties = complete_parties(client, parties, false, err).await?;
            let request = scan::HoldingsSummaryRequest {
                migration_id,
                record_time,
                record_time_match: Some(record_time_match),
                owner_party_ids: parties,
            };
            print_call(client, &scan::holdings_summary(&request), out).await?;
        }
        ScanCommand::ValidatorFaucets { validators } => {
            let validators = complete_parties(client, validators, true, err).await?;
            print_call(client, &scan::validator_faucets(&validators), out).await?;
        }
        ScanCommand::ValidatorLicenses { limit, after, all } => {
            if *all {
                let licenses = scan::every_validator_license(client).await?;
                let doc = serde_json::json!({ "validator_licenses": licenses });
                write_out(
                    out,
                    &json_text::pretty(&doc.to_string())
                        .map_err(|e| Failure::Output(e.to_string()))?,
                )?;
            } else {
                print_call(client, &scan::validator_licenses(*after, *limit), out).await?;
            }
        }
        ScanCommand::RewardWeight {
            sv,
            effective_before,
        } => {
            let request = scan::RewardWeightRequest {
                sv_party: sv.clone(),
                effective_before: effective_before.clone(),
            };
            print_call(client, &scan::previous_sv_reward_weight(&request), out).await?;
        }
        ScanCommand::Bootstrapping { domain_id_prefix } => {
            let call = scan::bootstrapping_transactions(domain_id_prefix);
            print_call(client, &call, out).await?;
        }
        ScanCommand::ParticipantId { domain, party } => {
            print_call(client, &scan::participant_ids(domain, party), out).await?;
        }
        ScanCommand::TrafficStatus { member, domain } => {
            let domain = if let Some(d) = domain {
                d.clone()
            } else {
                let rounds = client
                    .send(&scan::open_and_issuing_mining_rounds(
                        &scan::MiningRoundsRequest::default(),
                    ))
                    .await?;
                rounds
                    .open_mining_rounds
                    .values()
                    .find_map(|r| r.domain_id.clone())
                    .ok_or_else(|| {
                        Failure::Server(
                            "no open mining round names its synchronizer: pass --domain".into(),
                        )
                    })?
            };
            let member = scan::participant_member_id(member);
            print_call(client, &scan::member_traffic_status(&domain, &member), out).await?;
        }
    }
    Ok(())
}

/// What `scan status` adds to its table, after the fields of the scan's `/status` (its JSON
/// stays the scan's answer as sent): the head of the scan's verdict ingestion
/// (`/v0/events/latest-record-time`), the newest update of its history, and how far the first
/// trails the second in seconds, the verdict ingestion lag (measured as `network health`
/// measures them). A value that cannot be read says why.
pub async fn status_table_fields(
    settings: &Settings,
) -> serde_json::Map<String, serde_json::Value> {
    use crate::every_scan::{Network, ScanBudget};
    use crate::model::format::format_time_micros;
    let mut fields = serde_json::Map::new();
    let (Ok(client), Some(url)) = (
        ApiClient::new(api_config(settings)),
        settings.scan_url.as_ref(),
    ) else {
        return fields;
    };
    let entry = crate::model::network::ScanEntry {
        sv_name: String::new(),
        url: url.as_str().to_owned(),
        listed: false,
        pinned: false,
        own: true,
        counted: true,
    };
    let budget = ScanBudget {
        rate: settings.network.request_rate,
        ..ScanBudget::default()
    };
    let net = Network::new(&client, vec![entry], budget);
    let now = chrono::Utc::now().timestamp_micros();
    let heads = crate::every_scan::health::verdict_heads(&net, 0, now).await;
    let unknown = |e: &str| json!(format!("unknown: {e}"));
    fields.insert(
        "latest_event_record_time".into(),
        match &heads.verdict_head {
            Ok(Some(t)) => json!(format_time_micros(*t)),
            Ok(None) => json!("not served (a scan older than Splice 0.8)"),
            Err(e) => unknown(e),
        },
    );
    fields.insert(
        "head_record_time".into(),
        match &heads.head {
            Ok(Some(h)) => json!(format_time_micros(h.record_time)),
            Ok(None) => json!("none (an empty history)"),
            Err(e) => unknown(e),
        },
    );
    fields.insert(
        "verdict_ingestion_lag_s".into(),
        heads
            .lag()
            .map_or_else(|| json!("unknown"), |lag| json!(network::seconds(lag))),
    );
    fields
}

async fn run_validator(
    client: &ApiClient,
    command: &ValidatorCommand,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    match command {
        ValidatorCommand::DevFundCoupons => {
            print_call(client, &validator::dev_fund_coupons(), out).await?;
        }
        ValidatorCommand::AmuletRules => {
            print_call(client, &validator::amulet_rules(), out).await?;
        }
        ValidatorCommand::TransferStatus { sender, nonce } => {
            let call = validator::transfer_command_status(sender, *nonce);
            print_call(client, &call, out).await?;
        }
    }
    Ok(())
}

async fn run_ledger(
    client: &ApiClient,
    command: &LedgerCommand,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Failure> {
    match command {
        LedgerCommand::Parties {
            party,
            parties,
            identity_provider_id,
        } => {
            let call = ledger::parties(party, parties, identity_provider_id.as_deref());
            print_call(client, &call, out).await?;
        }
        LedgerCommand::DeleteUser { user_id, yes } => {
            if !yes {
                return Err(Failure::Usage(
                    "ledger delete-user deletes the user and all its rights: confirm with --yes"
                        .to_owned(),
                ));
            }
            print_call(client, &ledger::delete_user(user_id), out).await?;
        }
        LedgerCommand::Package {
            package_id,
            out: out_path,
            force,
        } => {
            // Checked before asking, and again when writing (create_new), so nothing is lost.
            if !force && out_path.exists() {
                return Err(Failure::Usage(format!(
                    "{} exists: not replaced (--force replaces it)",
                    out_path.display()
                )));
            }
            let call = ledger::package(package_id);
            let package = client.send(&call).await?;
            write_file(out_path, &package.bytes, *force)?;
            let summary = package_summary(
                package_id,
                package.bytes.len(),
                package.package_hash.as_deref(),
                out_path,
            );
            write_out(out, &summary)?;
        }
        LedgerCommand::End => {
            print_call(client, &ledger::ledger_end(), out).await?;
        }
        LedgerCommand::Trees {
            begin_exclusive,
            end_inclusive,
            parties,
            limit,
            descending,
        } => {
            let mut request =
                ledger::GetUpdatesRequest::for_parties(*begin_exclusive, *end_inclusive, parties);
            if *descending {
                request.descending_order = Some(true);
            }
            match print_call(client, &ledger::update_trees(&request, *limit, None), out).await {
                Err(Failure::Api(removed @ ApiError::EndpointNotServed { .. })) => {
                    // Canton 3.5+: the same range from POST /v2/updates, as trees.
                    let flat =
                        ledger::updates(&ledger::ledger_effects_request(&request), *limit, None);
                    let items = match client.send(&flat).await {
                        Err(ApiError::EndpointNotServed { .. }) => return Err(removed.into()),
                        other => other?,
                    };
                    write_line(
                        err,
                        "cantonscope: note: this node does not serve POST /v2/updates/trees; \
                         the trees are read from POST /v2/updates (ledger effects)",
                    );
                    let trees = ledger::as_tree_items(items);
                    let text = serde_json::to_string(&trees)
                        .map_err(|e| Failure::Output(format!("cannot write the trees: {e}")))?;
                    let pretty = json_text::pretty(&text)
                        .map_err(|e| Failure::Output(format!("cannot write the trees: {e}")))?;
                    write_out(out, &pretty)?;
                }
                other => {
                    other?;
                }
            }
        }
        LedgerCommand::Execute { body } => {
            let request = read_execute_request(body)?;
            print_call(client, &ledger::execute_and_wait(&request), out).await?;
        }
    }
    Ok(())
}

/// Read and check the request body of `ledger execute`: valid JSON with the required fields.
fn read_execute_request(path: &Path) -> Result<ledger::ExecuteRequest, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| Failure::Usage(format!("cannot read {}: {error}", path.display())))?;
    let mut deserializer = serde_json::Deserializer::from_str(&text);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let at = error.path().to_string();
        let inner = error.into_inner();
        let place = if at == "." {
            String::new()
        } else {
            format!(" at {at}")
        };
        Failure::Usage(format!(
            "{} is not a valid executeAndWaitForTransaction request{place}: {}",
            path.display(),
            crate::api::sanitize_line(&inner.to_string(), 200)
        ))
    })
}

/// Write `bytes` to `path` (creating or truncating it).
/// Writes `bytes` to `path`; an existing file only when `replace`.
fn write_file(path: &Path, bytes: &[u8], replace: bool) -> Result<(), Failure> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if replace {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    options
        .open(path)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(|error| Failure::Usage(format!("cannot write {}: {error}", path.display())))
}

/// Summary printed by `ledger package`.
fn package_summary(package_id: &str, bytes: usize, hash: Option<&str>, out_path: &Path) -> String {
    let summary = json!({
        "package_id": package_id,
        "bytes": bytes,
        "canton_package_hash": hash,
        "out": out_path.display().to_string(),
    });
    let text = serde_json::to_string_pretty(&summary).unwrap_or_default();
    json_text::escape_unsafe(&text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_line_adds_the_status() {
        let error = ApiError::NotFound {
            endpoint: "scan GET /v0/events/{update_id}",
            message: "no such update".to_owned(),
        };
        let line = error_line(&error);
        assert!(
            line.contains("no such update") && line.contains("HTTP 404"),
            "{line}"
        );
        assert_eq!(error.exit_code(), EXIT_SERVER);
    }

    #[test]
    fn package_summary_shape() {
        let summary = package_summary("abc", 10, Some("h"), Path::new("/tmp/p.dar"));
        let value: serde_json::Value = serde_json::from_str(&summary).expect("json");
        assert_eq!(value["bytes"], 10);
        assert_eq!(value["canton_package_hash"], "h");
    }
}
