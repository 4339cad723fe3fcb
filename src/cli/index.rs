//! `cantonscope index …`: its commands, their flags and exit codes.

use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};

use super::values::{parse_request_rate, parse_timeout};
use super::{parse_from, parse_time};

/// Exit codes of the `index` commands (shown in their help).
pub const INDEX_EXIT_CODES: &str = "\
Exit codes:
  0  done (sync: up to --until or the verified head; --follow: stopped by SIGTERM;
     verify: every stored update of the range is what the scans agree on)
  1  the profile's scan answered an error
  2  usage or configuration: a bad query, no index, an index that is damaged, of a newer
     schema or of another network, another sync writing the index, an index that cannot
     grow (a full disk, a file size limit); show: no update of the index matches the id,
     or several do (listed)
  3  connection, TLS or timeout talking to the profile's scan
  4  a response could not be decoded
  5  sync: stopped at a divergence: the scans disagree on an update and no version has
     f + 1 (and --verify) scans; the update, the field and the scans are named, and the
     page holding it is not written. Also: the history was rewritten under the index.
     verify: a stored update differs from what --verify scans agree on (another digest,
     missing from the index, or kept where the scans have none; the first is named), or
     the scans disagree among themselves with no version held by enough of them.
     rounds: a scan's activity totals differ from the index's figures of a whole round,
     or no root hash of a round is served by f + 1 scans
  6  sync, verify: not enough scans to verify with (fewer than --verify answered);
     verify: nothing differs but stored updates have fewer than --verify scans serving
     them yet (outcome unchecked: the scans trail the index; verify again later)
  130 interrupted (Ctrl-C); every page committed before stays";

/// `cantonscope index …`
#[derive(Debug, Clone, Args)]
#[command(after_help = INDEX_EXIT_CODES)]
pub struct IndexArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: IndexCommand,
    /// The index: an SQLite file, or a postgres:// URL (a team's index) [default:
    /// $CANTONSCOPE_INDEX, the profile's `index`, else <data dir>/index/<profile or
    /// "default">.sqlite].
    #[arg(long, global = true, value_name = "PATH|URL", value_parser = super::values::index_location)]
    pub index: Option<String>,
}

/// How many scans must agree on a page before it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyArg {
    /// This many scans (1: unverified, recorded as such).
    Scans(usize),
    /// f + 1 of the network.
    Quorum,
}

fn parse_verify(text: &str) -> Result<VerifyArg, String> {
    if text.trim().eq_ignore_ascii_case("quorum") {
        return Ok(VerifyArg::Quorum);
    }
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=100).contains(&n) => Ok(VerifyArg::Scans(n)),
        _ => Err(format!(
            "expected a number of scans (1..=100) or quorum, got {text:?}"
        )),
    }
}

/// Value of `--progress`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    /// One JSON object a line on stderr, after every page.
    Json,
}

/// The flags of `index sync` and `index verify` on how they walk the scans' pages.
#[derive(Debug, Clone, Args)]
pub struct WalkArgs {
    /// Progress as JSON lines on stderr (default: a line on stderr when it is a terminal).
    #[arg(long, value_name = "FORMAT")]
    pub progress: Option<ProgressArg>,
    /// Updates per page (1..=1000).
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub page_size: u16,
    /// Request budget per scan, requests per second [default: scan_request_rate of the
    /// profile, else 10].
    #[arg(long, value_name = "N", value_parser = parse_request_rate)]
    pub request_rate: Option<f64>,
    /// Timeout of each request.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_timeout)]
    pub timeout: Duration,
}

/// `cantonscope index …` commands.
#[derive(Debug, Clone, Subcommand)]
pub enum IndexCommand {
    /// Walk POST /v2/updates into the index, each page verified by --verify scans; resumes
    /// where the last sync stopped.
    #[command(after_help = INDEX_EXIT_CODES)]
    Sync {
        /// Start at this record time (RFC 3339, a span back from now such as -30d, a time of
        /// day) or `begin` [default: after the newest update of the index, else begin].
        #[arg(long, value_name = "begin|TIME", allow_hyphen_values = true, value_parser = parse_from)]
        from: Option<String>,
        /// Stop after this record time (inclusive) [default: the head].
        #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_time)]
        until: Option<String>,
        /// At the head, keep following new updates (SIGTERM commits the page in hand, exit 0).
        /// Scans that go away are waited for (backoff with jitter, a try at least every 10 s;
        /// the bodies from another scan while the profile's is down): only a signal or a
        /// permanent fault (history rewritten 5, another network or a full disk 2) ends it.
        #[arg(long, conflicts_with = "until")]
        follow: bool,
        /// How many scans must agree on every update of a page before it is written: a number,
        /// or quorum (f + 1 of the network). 1 writes unverified ranges. When scans disagree,
        /// every scan is asked and a version is kept only when f + 1 (and at least N) hold it;
        /// its divergence record's kept_by names every scan that served it.
        #[arg(long, value_name = "N|quorum", default_value = "2", value_parser = parse_verify)]
        verify: VerifyArg,
        /// Do not keep the updates' bodies (only their summaries, keys and digests).
        #[arg(long)]
        no_bodies: bool,
        /// Keep the updates alone: do not walk POST /v0/events for their verdicts, traffic
        /// summaries and app activity records.
        #[arg(long, conflicts_with = "events")]
        no_events: bool,
        /// Only the events: walk POST /v0/events over the updates the index keeps without
        /// their events (no body is fetched again), verified as --verify says; resumable.
        #[arg(long, conflicts_with_all = ["follow", "from", "until"])]
        events: bool,
        // --progress, --page-size, --request-rate, --timeout (as `index verify`).
        #[command(flatten)]
        walk: WalkArgs,
        /// A --from TIME range of an hour or more is split into this many time chunks, walked
        /// side by side (each scan still within its request budget).
        #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
        chunks: u16,
    },
    /// Re-check the stored updates against the scans now: every page of the range the index
    /// covers is asked of --verify scans (verifiers in rotation, a disagreement put to every
    /// scan, as sync does) and each stored digest compared with the one they agree on. Prints
    /// a JSON report, records when each range was verified and by which scans (shown by
    /// `index status`); never changes a stored update.
    #[command(after_help = INDEX_EXIT_CODES)]
    Verify {
        /// Only updates recorded at or after this time [default: the start of the index].
        #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_time)]
        from: Option<String>,
        /// Only updates recorded at or before this time [default: the end of the index].
        #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_time)]
        until: Option<String>,
        /// How many scans must agree on an update for it to be the reference: a number, or
        /// quorum (f + 1 of the network). When scans disagree, every scan is asked and a version
        /// is kept only when f + 1 (and at least N) hold it. A range is complete when every
        /// stored update of it was compared; the outcome is agree only when every range is.
        #[arg(long, value_name = "N|quorum", default_value = "2", value_parser = parse_verify)]
        verify: VerifyArg,
        // --progress, --page-size, --request-rate, --timeout (as `index sync`).
        #[command(flatten)]
        walk: WalkArgs,
    },
    /// Remove every update recorded before TIME (and its keys) from the index; takes the
    /// writer lock, so not while a sync runs.
    #[command(after_help = INDEX_EXIT_CODES)]
    Prune {
        /// Keep updates recorded at or after this time (RFC 3339, -90d, …).
        #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_time)]
        before: String,
    },
    /// Give back the room that prunes and page splits left, as JSON (the bytes before and
    /// after, the seconds). SQLite: the file written again with its pages full (VACUUM),
    /// which needs about twice the bytes in use free (it says so before it starts);
    /// PostgreSQL: the indexes built again beside the old ones (REINDEX CONCURRENTLY; in
    /// place before server 12, holding searches back), then the tables vacuumed. Searches go
    /// on meanwhile; Ctrl-C stops it, what was not done left as it was; takes the writer
    /// lock, so not while a sync runs.
    #[command(after_help = INDEX_EXIT_CODES)]
    Compact,
    /// The index as JSON: its range per migration, update count, size on disk, gaps, the
    /// scans that confirmed each range, divergences, the last sync, a sync running, the last
    /// verify of each range. Times are RFC 3339. With --output table: a summary that fits a
    /// screen (sizes in kB/MB/GB; the divergences as their count, first, last and scans; the
    /// newest chunks and verifications); the JSON keeps every divergence.
    #[command(after_help = INDEX_EXIT_CODES)]
    Status {
        /// With --output table, also list every divergence, one row each.
        #[arg(long)]
        divergences: bool,
    },
    /// One kept update read from the index alone: its body as the scan served it and each
    /// events part (verdict, traffic summary, app activity records) as the scans that agreed
    /// on it served it (the verdict without its scan-local finalization_time), with the scans
    /// that confirmed each; "not synced yet" when the update's events are not kept yet, "none
    /// served" when the scans served none. --output table: the same, for reading.
    #[command(after_help = INDEX_EXIT_CODES)]
    Show {
        /// The update id: whole, a unique prefix (with or without 1220), or as the screen
        /// shows it (1220d17b…9f1e, 9237fcb34d82…).
        #[arg(value_name = "ID")]
        id: String,
    },
    /// Totals (and with --daily a series by UTC day) computed from the index: updates,
    /// transfers (AmuletRules_Transfer, nested ones too) and their volume (the sum of their
    /// outputs, Amulet), active parties (acting in an exercise), validators (a license, faucet
    /// coupon or liveness record created for them), vote requests (DsoRules_RequestVote) and
    /// results (DsoRules_CloseVoteRequest), traffic cost (the kept events' traffic summaries).
    /// The first run counts every day from the kept bodies into a per-day summary kept in the
    /// index (resumable; beside a running sync); later runs count only the days written since.
    /// --output table|json|csv.
    #[command(after_help = INDEX_EXIT_CODES)]
    Stats {
        /// A row per day that has updates, besides the totals.
        #[arg(long)]
        daily: bool,
        /// From this day on (YYYY-MM-DD, or a time as --until of sync takes it: its UTC day)
        /// [default: the first day of the index].
        #[arg(long, value_name = "DATE", allow_hyphen_values = true, value_parser = super::values::parse_day)]
        from: Option<i64>,
        /// Up to this day, inclusive [default: the last day of the index].
        #[arg(long, value_name = "DATE", allow_hyphen_values = true, value_parser = super::values::parse_day)]
        until: Option<i64>,
    },
    /// Per mining round, computed from the kept events alone (the CIP-104 app activity
    /// records' total weight, records and active providers, the heaviest providers, the
    /// traffic cost of the round's verdicts, its time span), beside what each scan serves for
    /// it on /v0/internal/reward-accounting-process/rounds/{n}/activity-totals and
    /// .../root-hash: agree, differ or not served (undetermined, cannot provide, 404, 501 are
    /// states) per scan. A round is closed two rounds before the newest the index holds, and
    /// compared only when the index holds it whole; a root hash no f + 1 scans serve, or a
    /// scan's totals other than the index's, is a divergence (exit 5); so is, with --tree, a
    /// reward tree that differs or whose leaves do not fit. Without a scan (none configured,
    /// none reachable, --no-scans) the figures alone, saying the scans were not asked.
    /// --output table|json|csv.
    #[command(after_help = INDEX_EXIT_CODES)]
    Rounds {
        /// The first round [default: the oldest the index holds].
        #[arg(long, value_name = "N")]
        from: Option<i64>,
        /// The last round [default: the newest the index holds].
        #[arg(long, value_name = "N")]
        until: Option<i64>,
        /// One provider's history: the rounds this party has app activity in, and its part.
        #[arg(long, value_name = "PARTY")]
        party: Option<String>,
        /// Do not ask the scans (the index's figures alone).
        #[arg(long)]
        no_scans: bool,
        /// Also walk each round's reward tree on every scan that serves a root hash
        /// (.../batches/{hash} from the root, each batch's hash recomputed as Splice's
        /// CryptoHash does): verified (N batches), differs at batch H (a divergence), or
        /// unverifiable, per scan; and its leaves against the index: every rewarded provider
        /// has app activity kept in the round, the allowances sum to the scan's own served
        /// total. Every batch of every tree is asked: bound the rounds with --from/--until.
        #[arg(long, conflicts_with = "no_scans")]
        tree: bool,
        /// Request budget per scan, requests per second [default: scan_request_rate of the
        /// profile, else 10].
        #[arg(long, value_name = "N", value_parser = parse_request_rate)]
        request_rate: Option<f64>,
        /// Timeout of each request.
        #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_timeout)]
        timeout: Duration,
    },
    /// Every validator ever licensed: the kept history's (each ValidatorLicense created, its
    /// liveness activity records and faucet coupons) and the scan's current licences
    /// (/v0/admin/validator/licenses, every page) together. Per validator: its first licence,
    /// whether the scan lists a licence of it now (unknown offline or with --no-scan), its
    /// newest activity (time and round), the rounds since (against the newest round the index
    /// or the scan knows) and its activities kept. --output table|json|csv.
    #[command(after_help = INDEX_EXIT_CODES)]
    Validators {
        /// The order: last (newest activity first), rounds-since (most rounds since the last
        /// activity first), party, first (first licensed first).
        #[arg(long, value_enum, default_value = "last")]
        sort: crate::model::index::validators::ValidatorSort,
        /// Do not ask the scan (the kept history alone; the licences' currency unknown).
        #[arg(long)]
        no_scan: bool,
        /// Timeout of each request to the scan.
        #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_timeout)]
        timeout: Duration,
    },
    /// The updates matching every term, newest first, as JSON Lines (the History export's row
    /// fields). Terms: party:P template:T choice:C (exact; party:HINT every party HINT::…,
    /// template:Module:Entity in every package), contract:PREFIX id:PREFIX (with or without
    /// 1220), is:KIND (an update exercising the choices of a kind: transfer, tap, liveness,
    /// faucet-coupon, status-report, sv-reward, vote, vote-request, activity-marker, unlock;
    /// reward: any of sv-reward, faucet-coupon, liveness, activity-marker).
    #[command(after_help = INDEX_EXIT_CODES)]
    Search {
        /// The terms (all must match).
        #[arg(required = true, value_name = "TERM")]
        query: Vec<String>,
        /// Only updates recorded at or after this time.
        #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_time)]
        from: Option<String>,
        /// Only updates recorded at or before this time.
        #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_time)]
        until: Option<String>,
        /// At most this many rows.
        #[arg(long, value_name = "N", default_value_t = 100)]
        limit: usize,
        /// Print only the number of matching updates.
        #[arg(long)]
        count: bool,
    },
}
