//! `cantonscope scan …`: its commands and their flags.

use clap::{Args, Subcommand, ValueEnum};

use super::values::parse_request_rate;
use super::{parse_from, parse_time, parse_time_or_now, parse_timestamp};

/// Value of `--encoding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EncodingArg {
    /// Compact human-readable JSON.
    #[value(name = "compact_json")]
    CompactJson,
    /// Verbose JSON with type information.
    #[value(name = "protobuf_json")]
    ProtobufJson,
}

/// Value of `--match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatchArg {
    /// The record time must be a snapshot time.
    #[value(name = "exact")]
    Exact,
    /// The latest snapshot at or before the record time.
    #[value(name = "at_or_before")]
    AtOrBefore,
}

/// A page of the history as asked of a scan (`scan updates`, `scan events`): its size, where it
/// starts and the values' encoding.
#[derive(Debug, Clone, Args)]
pub struct PageArgs {
    /// Maximum number of items per page (servers accept 1..=1000) [default: 10; `scan updates
    /// --all`: 100].
    #[arg(long, value_name = "N")]
    pub page_size: Option<i32>,
    /// Start after this migration id (with --after-record-time).
    #[arg(long, value_name = "N", requires = "after_record_time")]
    pub after_migration_id: Option<i64>,
    /// Start after this record time (with --after-migration-id).
    #[arg(long, value_name = "TS", requires = "after_migration_id", value_parser = parse_timestamp)]
    pub after_record_time: Option<String>,
    /// Encoding of contract values.
    #[arg(long, value_enum, default_value = "compact_json")]
    pub encoding: EncodingArg,
}

/// `cantonscope scan …`
#[derive(Debug, Clone, Subcommand)]
pub enum ScanCommand {
    /// POST /v2/updates: a page of the update history, or with --all every page as JSON Lines.
    Updates {
        #[command(flatten)]
        page: PageArgs,
        /// Walk every page and write one update per line (JSON Lines) as they come.
        #[arg(long)]
        all: bool,
        /// With --all: start at this record time (`begin`: the ledger begin, the default).
        #[arg(long, value_name = "TS|begin", requires = "all", conflicts_with = "after_record_time", value_parser = parse_from, allow_hyphen_values = true)]
        from: Option<String>,
        /// With --all: stop after this record time (inclusive; default: the current head).
        #[arg(long, value_name = "TS", requires = "all", value_parser = parse_time, allow_hyphen_values = true)]
        until: Option<String>,
        /// With --all: pages per second at most [default: scan_request_rate of the profile,
        /// else 10].
        #[arg(long, value_name = "N", requires = "all", value_parser = parse_request_rate)]
        request_rate: Option<f64>,
        /// With --all: at most this many updates in all (default: every one up to --until or
        /// the head; --page-size is the page asked of the scan).
        #[arg(long, value_name = "N", requires = "all", value_parser = clap::value_parser!(u64).range(1..))]
        limit: Option<u64>,
    },
    /// POST /v0/events: a page of the event history — each update with its mediator verdict,
    /// traffic summary and app activity records (verdict-only events too: a rejected request,
    /// a wholly private transaction) — up to the scan's verdict ingestion head. Paged as
    /// `scan updates` is; an older scan (before Splice 0.8) answers 404.
    Events {
        #[command(flatten)]
        page: PageArgs,
    },
    /// GET /v0/events/{update_id}: the update, verdict, traffic summary and app activity.
    Event {
        /// The whole update id (68 hex characters; the 64 after `1220` also do), or an
        /// abbreviation as the explorer shows it (`1220d17b…9f1e`, `9237fcb34d82…`) that names
        /// one update of the local index.
        #[arg(value_parser = crate::model::id_pattern::update_id_arg)]
        update_id: String,
    },
    /// GET /v2/updates/hash/{hash}: the update of a prepared transaction's hash.
    UpdateByHash {
        /// The hash of the prepared transaction.
        hash: String,
    },
    /// CIP-0104 reward accounting of round N (SV internal endpoints, subject to change): the
    /// activity totals and the root hash as the scan states them (ok, undetermined, cannot
    /// provide, not found, not implemented), then every batch of the reward tree walked from
    /// the root, its hash recomputed from its contents (Splice's CryptoHash): verified (exit
    /// 0) or differs (exit 1). Point --scan-url at each SV's scan to compare them.
    RewardRound {
        /// The round number.
        round: i64,
    },
    /// GET /status: the node's health.
    Status,
    /// GET /v0/sv-bft-sequencers: this SV's BFT sequencers.
    BftSequencers,
    /// GET /v0/dso: the DSO as this scan's SV sees it: its party (sv_party_id), the DSO rules
    /// and their SVs, the voting threshold, the newest open round, the amulet rules.
    Dso,
    /// POST /v1/holdings/summary: holdings of owner parties at a snapshot.
    Holdings {
        /// Migration id [default: the scan's current (newest) migration].
        #[arg(long, value_name = "N")]
        migration_id: Option<i64>,
        /// Record time of the snapshot (RFC 3339, -2h, yesterday 14:00 UTC), or `now` [default: now].
        #[arg(long, value_name = "TS|now", value_parser = parse_time_or_now, allow_hyphen_values = true)]
        record_time: Option<String>,
        /// How the record time is matched [default: at_or_before for `now`, else exact].
        #[arg(long = "match", value_enum)]
        record_time_match: Option<MatchArg>,
        /// Owner party ids (at least one).
        #[arg(long = "party", value_name = "P", required = true, num_args = 1..)]
        parties: Vec<String>,
    },
    /// GET /v0/validators/validator-faucets: liveness statistics of validators.
    ValidatorFaucets {
        /// Validator party ids (at least one).
        #[arg(long = "validator", value_name = "V", required = true, num_args = 1..)]
        validators: Vec<String>,
    },
    /// GET /v0/admin/validator/licenses: the ValidatorLicense contracts the scan serves now
    /// (the validators the DSO approved), newest first, a page at a time (its
    /// next_page_token is the --after of the next page); with --all every page, as one list.
    ValidatorLicenses {
        /// The page size (the scan takes 1 to 1000).
        #[arg(long, value_name = "N", default_value_t = 1000)]
        limit: u32,
        /// The page after this one (a next_page_token).
        #[arg(long, value_name = "TOKEN", conflicts_with = "all")]
        after: Option<i64>,
        /// Every page, followed by its next_page_token, as one list.
        #[arg(long)]
        all: bool,
    },
    /// POST /v0/admin/sv/previous-sv-reward-weight: an SV's previous reward weight.
    RewardWeight {
        /// The SV party.
        #[arg(long, value_name = "P")]
        sv: String,
        /// Only weight changes that took effect strictly before this time.
        #[arg(long, value_name = "TS", value_parser = parse_time, allow_hyphen_values = true)]
        effective_before: Option<String>,
    },
    /// GET /v0/synchronizer-bootstrapping-transactions/{prefix}.
    Bootstrapping {
        /// A prefix of the synchronizer (domain) id.
        domain_id_prefix: String,
    },
    /// GET /v1/domains/{domain}/parties/{party}/participant-id: participants hosting a party.
    ParticipantId {
        /// The synchronizer (domain) id.
        #[arg(long, value_name = "D")]
        domain: String,
        /// The party id.
        #[arg(long, value_name = "P")]
        party: String,
    },
    /// GET /v0/domains/{domain}/members/{member}/traffic-status: a member's sequencer traffic.
    TrafficStatus {
        /// The member: `PAR::id::fingerprint`, `MED::…`, or a bare participant `id::fingerprint`.
        #[arg(long, value_name = "M")]
        member: String,
        /// The synchronizer (domain) id; default: the one the open mining rounds name (global).
        #[arg(long, value_name = "D")]
        domain: Option<String>,
    },
}
