//! The local history index (issue 19), run as the real binary over real HTTP against in-process
//! demo networks, each test with its own index file: a sync equals `scan updates --all` (the
//! same ids, once each), search answers equal the History filter over the same updates, a
//! diverging scan stops the sync at exactly that update (exit 5, not written, shown by `index
//! status`, not passed by the next sync), a quorum outvotes an odd scan, a second writer is
//! refused naming the first, a sync killed with SIGKILL resumes to the same index, another
//! network's index and a damaged file are refused with a message, and too few scans to verify
//! with is exit 6.

use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use cantonscope::api::scan::UpdateItem;
use cantonscope::demo::{DemoConfig, DemoFaults, DemoHandle, DemoTime};
use cantonscope::model::format::{format_time_micros, parse_time_micros};
use cantonscope::model::history::Filter;
use cantonscope::model::summary::Summarizer;
use serde_json::Value;

use crate::common::bin::{bin, runtime};

/// A demo network that lives as long as the test binary.
pub(crate) struct Demo {
    _runtime: tokio::runtime::Runtime,
    pub(crate) handle: DemoHandle,
}

pub(crate) fn start(config: DemoConfig) -> Demo {
    let rt = runtime();
    let handle = rt
        .block_on(cantonscope::demo::start(config))
        .expect("demo starts");
    Demo {
        _runtime: rt,
        handle,
    }
}

/// Four scans at the head (f = 1), the second (Boreal-Ops-2) diverging from two hours before
/// the head.
pub(crate) fn one_of_four_diverging() -> Demo {
    start(
        DemoConfig {
            stagger: false,
            seed: 23,
            faults: DemoFaults {
                diverging: Some((1, DemoTime::BeforeHead(Duration::from_secs(2 * 3_600)))),
                ..DemoFaults::default()
            },
            ..DemoConfig::default()
        }
        .with_total_scans(4),
    )
}

/// Four scans at the head, the default ledger.
pub(crate) fn four() -> &'static Demo {
    static DEMO: OnceLock<Demo> = OnceLock::new();
    DEMO.get_or_init(|| {
        start(
            DemoConfig {
                stagger: false,
                ..DemoConfig::default()
            }
            .with_total_scans(4),
        )
    })
}

/// The start of the range the tests sync: three hours before now (the demo's history ends about
/// now), as RFC 3339, the same for every test of the run.
pub(crate) fn from() -> &'static str {
    static FROM: OnceLock<String> = OnceLock::new();
    FROM.get_or_init(|| {
        format_time_micros(chrono::Utc::now().timestamp_micros() - 3 * 3_600_000_000)
    })
}

pub(crate) fn run(dir: &Path, scan_url: &str, args: &[&str]) -> Output {
    bin(dir)
        .arg("--scan-url")
        .arg(scan_url)
        .args(args)
        .output()
        .expect("binary runs")
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `index --index INDEX COMMAND`: INDEX a file or a postgres:// URL.
pub(crate) fn index_args<'a>(
    index: &'a (impl AsRef<Path> + ?Sized),
    command: &'a str,
) -> Vec<&'a str> {
    let index = index.as_ref().to_str().expect("utf-8");
    vec!["index", "--index", index, command]
}

/// The binary started with `args` against `scan_url`, its stdout to `stdout` and its stderr
/// piped: a sync read line by line while it runs.
pub(crate) fn spawn(
    dir: &Path,
    scan_url: &str,
    args: &[&str],
    stdout: Stdio,
) -> std::process::Child {
    bin(dir)
        .arg("--scan-url")
        .arg(scan_url)
        .args(args)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

/// A running sync stopped with SIGTERM: it exits 0; what it printed.
pub(crate) fn terminated(child: std::process::Child) -> Output {
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(0));
    output
}

/// `index sync` with `extra` flags: its exit code, stdout JSON and stderr.
pub(crate) fn sync(
    dir: &Path,
    scan_url: &str,
    index: &(impl AsRef<Path> + ?Sized),
    extra: &[&str],
) -> (i32, Value, String) {
    let mut args = index_args(index, "sync");
    args.extend_from_slice(&["--request-rate", "1000", "--page-size", "97"]);
    args.extend_from_slice(extra);
    let output = run(dir, scan_url, &args);
    let stdout = text(&output.stdout);
    let value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (
        output.status.code().unwrap_or(-1),
        value,
        text(&output.stderr),
    )
}

/// The updates `scan updates --all --from FROM` prints.
pub(crate) fn history(dir: &Path, scan_url: &str) -> Vec<Value> {
    history_from(dir, scan_url, from())
}

/// The updates `scan updates --all --from <from>` prints.
pub(crate) fn history_from(dir: &Path, scan_url: &str, from: &str) -> Vec<Value> {
    let output = run(
        dir,
        scan_url,
        &[
            "scan",
            "updates",
            "--all",
            "--request-rate",
            "1000",
            "--from",
            from,
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    text(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

pub(crate) fn ids(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l["update_id"].as_str().expect("an id").to_owned())
        .collect()
}

pub(crate) fn status(dir: &Path, index: &(impl AsRef<Path> + ?Sized)) -> Value {
    let output = run(dir, "http://127.0.0.1:9", &index_args(index, "status"));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("status JSON")
}

/// `index search` of `terms` from the test's start: the update ids, newest first.
fn search(dir: &Path, index: &Path, terms: &[&str]) -> Vec<String> {
    search_ids(dir, index, terms, &["--limit", "1000000", "--from", from()])
}

/// `index search TERMS EXTRA…`: the update ids, newest first (each row with the History
/// export's fields).
pub(crate) fn search_ids(dir: &Path, index: &Path, terms: &[&str], extra: &[&str]) -> Vec<String> {
    let mut args = index_args(index, "search");
    args.extend_from_slice(terms);
    args.extend_from_slice(extra);
    let output = run(dir, "http://127.0.0.1:9", &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    text(&output.stdout)
        .lines()
        .map(|l| {
            let row: Value = serde_json::from_str(l).expect("a JSON line");
            for field in [
                "record_time",
                "migration_id",
                "kind",
                "root_action",
                "parties",
            ] {
                assert!(row.get(field).is_some(), "{field} in {row}");
            }
            row["update_id"].as_str().expect("id").to_owned()
        })
        .collect()
}

/// The ids (newest first) of `lines` the History filter `filter` keeps.
pub(crate) fn filtered(lines: &[Value], filter: &str) -> Vec<String> {
    let mut summarizer = Summarizer::default();
    let summaries: Vec<_> = lines
        .iter()
        .map(|l| {
            let item: UpdateItem = serde_json::from_value(l.clone()).expect("an item");
            summarizer.summarize(&item)
        })
        .collect();
    let mut filter = Filter::parse(filter).expect("filter").expect("some");
    filter.prepare(&summarizer);
    let mut out: Vec<String> = summaries
        .iter()
        .filter(|s| filter.matches(s))
        .map(|s| s.update_id().to_string())
        .collect();
    out.reverse();
    out
}

pub(crate) fn temp() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = dir.path().join("index.sqlite");
    (dir, index)
}

/// An index synced from the shared demo over the tests' range: its folder, its file, the
/// sync's JSON and the range's updates as `scan updates --all` prints them.
pub(crate) fn synced() -> (tempfile::TempDir, PathBuf, Value, Vec<Value>) {
    let url = &four().handle.scan_url;
    let (dir, index) = temp();
    let (code, out, err) = sync(dir.path(), url, &index, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    let lines = history(dir.path(), url);
    (dir, index, out, lines)
}

#[test]
fn a_sync_equals_scan_updates_all_and_search_equals_the_history_filter() {
    let url = &four().handle.scan_url;
    let (dir, index, out, lines) = synced();
    assert!(
        lines.len() > 500,
        "a range of several pages: {}",
        lines.len()
    );
    assert_eq!(
        out["counters"]["updates_written"].as_u64(),
        Some(lines.len() as u64),
        "{out}"
    );
    // The same updates, once each, with their digests.
    let mut store =
        cantonscope::store::open_reader(&cantonscope::store::Location::Sqlite(index.clone()))
            .expect("index opens");
    let kept = store.digests().expect("digests");
    assert_eq!(
        kept.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(),
        ids(&lines)
    );
    for (line, (id, digest)) in lines.iter().zip(&kept) {
        let expected = cantonscope::model::index::digest_of(&line.to_string()).expect("digest");
        assert_eq!(
            *digest,
            cantonscope::model::index::digest_hex(&expected),
            "{id}"
        );
    }
    // Bodies open from the index as the scan sent them, packed with the one dictionary the
    // sync trained once it had written 200 bodies: those before it (a page or so of each of
    // the 4 chunks walked at once) are packed without one.
    for (line, (id, _)) in lines.iter().zip(&kept) {
        let body = store.body(id).expect("read").expect("a body");
        assert_eq!(serde_json::from_str::<Value>(&body).expect("json"), *line);
    }
    drop(store);
    let (dictionaries, named) = dictionaries(&index);
    assert_eq!(dictionaries.len(), 1, "one dictionary");
    let plain = named.iter().filter(|n| n.is_none()).count();
    assert!(
        plain < cantonscope::model::index::pack::DICTIONARY_SAMPLES + 4 * 97,
        "{plain}"
    );
    assert!(named.iter().flatten().all(|n| *n == dictionaries[0]));
    assert!(plain < lines.len() / 2, "{plain} of {}", lines.len());

    // Status: the range, verified by two or more scans, nothing running.
    let st = status(dir.path(), &index);
    assert_eq!(st["updates"].as_u64(), Some(lines.len() as u64));
    assert!(st["size_bytes"].as_u64().unwrap_or(0) > 0);
    assert!(st["sync_running"].is_null());
    assert_eq!(st["gaps"], Value::Array(Vec::new()));
    // Three hours are walked as four time chunks side by side, with no gap between them.
    let chunks = st["chunks"].as_array().expect("chunks");
    assert_eq!(chunks.len(), 4, "{st}");
    for chunk in chunks {
        assert_eq!(chunk["state"], "done");
        assert_eq!(chunk["verify"], 2);
        assert!(
            chunk["scans"].as_array().expect("scans").len() >= 2,
            "{chunk}"
        );
    }
    assert_eq!(st["last_sync"]["outcome"], "done");

    // Search: the History filter over the same updates (exact through `re:^…$`).
    let party = lines
        .iter()
        .rev()
        .find_map(|l| {
            l["events_by_id"]
                .as_object()?
                .values()
                .find_map(|e| e["signatories"].as_array()?.first()?.as_str())
                .filter(|p| !p.starts_with("DSO::"))
                .map(str::to_owned)
        })
        .expect("a party");
    let re = |s: &str| format!("^{}$", regex::escape(s));
    let found = search(dir.path(), &index, &[&format!("party:{party}")]);
    assert!(!found.is_empty());
    assert_eq!(found, filtered(&lines, &format!("party:re:{}", re(&party))));
    let choice = "AmuletRules_Transfer";
    let found = search(dir.path(), &index, &[&format!("choice:{choice}")]);
    assert!(!found.is_empty());
    assert_eq!(
        found,
        filtered(&lines, &format!("choice:re:{}", re(choice)))
    );
    let both = search(
        dir.path(),
        &index,
        &[&format!("choice:{choice}"), &format!("party:{party}")],
    );
    assert_eq!(
        both,
        filtered(
            &lines,
            &format!("choice:re:{} party:re:{}", re(choice), re(&party))
        )
    );
    // A party by its hint alone: every party `hint::…` (the DSO's too, in nearly every
    // update), alone and with another term.
    let (hint, _) = party.split_once("::").expect("hint::fingerprint");
    for hint in [hint, "DSO"] {
        let found = search(dir.path(), &index, &[&format!("party:{hint}")]);
        assert!(!found.is_empty(), "{hint}");
        let hinted = format!("party:re:^{}::", regex::escape(hint));
        assert_eq!(found, filtered(&lines, &hinted), "{hint}");
        let with_choice = search(
            dir.path(),
            &index,
            &[&format!("choice:{choice}"), &format!("party:{hint}")],
        );
        assert_eq!(
            with_choice,
            filtered(&lines, &format!("choice:re:{} {hinted}", re(choice))),
            "{hint}"
        );
    }
    // A template by its name, whichever package: every template id ending in it.
    let name = "Splice.Amulet:Amulet";
    let found_by_name = search(dir.path(), &index, &[&format!("template:{name}")]);
    assert!(!found_by_name.is_empty());
    assert_eq!(
        found_by_name,
        filtered(&lines, &format!("template:re::{}$", regex::escape(name)))
    );
    let term = format!("choice:{choice}");
    let mut args = index_args(&index, "search");
    args.extend_from_slice(&[&term, "--count", "--from", from()]);
    let output = run(dir.path(), url, &args);
    assert_eq!(text(&output.stdout).trim(), found.len().to_string());
    // An update by a prefix of its id, with and without its 1220.
    let id = &kept[5].0;
    assert_eq!(
        search(dir.path(), &index, &[&format!("id:{}", &id[..20])]),
        vec![id.clone()]
    );
    assert_eq!(
        search(dir.path(), &index, &[&format!("id:{}", &id[4..24])]),
        vec![id.clone()]
    );
    // A contract by a prefix: its creating update is found, and every update found names it.
    let (creator, contract) = lines
        .iter()
        .find_map(|l| {
            let c = l["events_by_id"].as_object()?.values().find_map(|e| {
                (e["event_type"] == "created_event").then(|| e["contract_id"].as_str())
            })??;
            Some((l["update_id"].as_str()?.to_owned(), c.to_owned()))
        })
        .expect("a created contract");
    let found = search(
        dir.path(),
        &index,
        &[&format!("contract:{}", &contract[..24])],
    );
    assert!(found.contains(&creator), "{found:?}");
    for id in &found {
        let line = lines
            .iter()
            .find(|l| l["update_id"] == id.as_str())
            .expect("line");
        assert!(line.to_string().contains(&contract[..24]), "{id}");
    }
    // Bare words and regular expressions are refused naming the fielded terms.
    for bad in ["alice", "party:re:^a"] {
        let mut args = index_args(&index, "search");
        args.push(bad);
        let output = run(dir.path(), url, &args);
        assert_eq!(output.status.code(), Some(2));
        assert!(text(&output.stderr).contains("party:P template:T choice:C"));
    }

    // Syncing again from the same start re-reads and writes nothing twice.
    let (code, out, err) = sync(dir.path(), url, &index, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["counters"]["updates_written"], 0, "{out}");
    assert_eq!(
        out["counters"]["updates_known"].as_u64(),
        Some(lines.len() as u64)
    );
}

#[test]
fn a_diverging_scan_stops_the_sync_at_that_update_which_is_not_written() {
    // Two scans: no version can have the 2 scans --verify needs once they differ.
    let demo = start(
        DemoConfig {
            stagger: false,
            seed: 19,
            faults: DemoFaults {
                diverging: Some((1, DemoTime::BeforeHead(Duration::from_secs(2 * 3_600)))),
                ..DemoFaults::default()
            },
            ..DemoConfig::default()
        }
        .with_total_scans(2),
    );
    let (dir, index) = temp();
    let urls = &demo.handle.scan_urls;
    // The first update where the two scans' histories differ (a reassignment's offset is each
    // scan's own).
    let honest = history(dir.path(), &urls[0]);
    let other = history(dir.path(), &urls[1]);
    let without_offset = |v: &Value| {
        let mut v = v.clone();
        if let Some(map) = v.as_object_mut() {
            map.remove("offset");
        }
        v
    };
    let at = honest
        .iter()
        .zip(&other)
        .position(|(a, b)| without_offset(a) != without_offset(b))
        .expect("the scans differ");
    let diverged = honest[at]["update_id"].as_str().expect("id").to_owned();
    let (code, out, err) = sync(dir.path(), &urls[0], &index, &["--from", from()]);
    assert_eq!(code, 5, "{out} {err}");
    assert!(err.contains(&diverged), "{err}");
    assert!(err.contains("workflow_id"), "the field is named: {err}");
    assert!(
        err.contains("Aurora-Node-1") && err.contains("Boreal-Ops-2"),
        "{err}"
    );
    assert_eq!(out["divergence"]["update_id"], diverged.as_str());
    // Everything before it is in the index, it and what follows are not.
    let mut store =
        cantonscope::store::open_reader(&cantonscope::store::Location::Sqlite(index.clone()))
            .expect("index opens");
    let kept: Vec<String> = store
        .digests()
        .expect("digests")
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    drop(store);
    // (The range is walked in time chunks side by side: the ones after the divergence stop at
    // their own first difference, and may keep what the scans agreed on before it.)
    assert_eq!(kept[..at], ids(&honest[..at]));
    assert!(!kept.contains(&diverged));
    let agreed: BTreeSet<String> = ids(&honest).into_iter().collect();
    assert!(kept.iter().all(|id| agreed.contains(id)));
    let st = status(dir.path(), &index);
    assert_eq!(st["divergences"][0]["update_id"], diverged.as_str());
    assert_eq!(st["divergences"][0]["resolved"], false);
    // The next sync does not pass it.
    let (code, _, err) = sync(dir.path(), &urls[0], &index, &[]);
    assert_eq!(code, 5, "{err}");
    assert!(err.contains(&diverged), "{err}");
}

#[test]
fn a_quorum_outvotes_an_odd_scan_and_records_it() {
    // Four scans (f = 1): the three honest ones keep their version; the odd one is named.
    let demo = one_of_four_diverging();
    let (dir, index) = temp();
    let url = &demo.handle.scan_urls[0];
    let (code, out, err) = sync(dir.path(), url, &index, &["--from", from()]);
    assert_eq!(code, 0, "{out} {err}");
    let lines = history(dir.path(), url);
    assert_eq!(
        out["counters"]["updates_written"].as_u64(),
        Some(lines.len() as u64)
    );
    let odd = out["counters"]["odd_scan_updates"].as_u64().unwrap_or(0);
    // The verifiers rotate: the diverging scan is asked for some pages only.
    let st = status(dir.path(), &index);
    let recorded = st["divergences"].as_array().expect("divergences");
    assert_eq!(recorded.len() as u64, odd);
    assert!(odd > 0, "{out}");
    for d in recorded {
        assert_eq!(d["resolved"], true);
        assert_eq!(d["detail"]["odd_scans"][0], "Boreal-Ops-2");
    }
    // Issue 35: the index's divergences are findings of the network: `network health` names
    // the odd scan's diverged history (found by the index sync) and never calls it healthy.
    let output = crate::common::bin::bin(dir.path())
        .args(["--scan-url", url, "network", "health"])
        .output()
        .expect("runs");
    let health: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let scan = health["scans"]
        .as_array()
        .expect("scans")
        .iter()
        .find(|s| s["sv_name"] == "Boreal-Ops-2")
        .expect("the odd scan");
    assert!(
        scan["diverged_history"]
            .as_array()
            .is_some_and(|d| d.iter().any(|f| f["found_by"] == "index sync")),
        "{scan}"
    );
    assert_ne!(scan["state"], "healthy", "{scan}");
}

/// The profile's own scan is the odd one: from the update where it differs, the page kept is
/// another scan's (of the version the quorum has), so the index is the one a sync from an
/// honest scan writes, and the profile's scan is named.
#[test]
fn a_sync_from_the_odd_scan_keeps_the_quorums_version_from_another_scan() {
    let demo = one_of_four_diverging();
    let (dir, index) = temp();
    let urls = &demo.handle.scan_urls;
    let (code, out, err) = sync(dir.path(), &urls[1], &index, &["--from", from()]);
    assert_eq!(code, 0, "{out} {err}");
    let honest = dir.path().join("honest.sqlite");
    let (code, _, err) = sync(dir.path(), &urls[0], &honest, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    let (kept_odd, kept_honest) = (kept(&index), kept(&honest));
    assert_eq!(kept_odd.len(), history(dir.path(), &urls[0]).len());
    assert!(
        kept_odd == kept_honest,
        "the same updates, the same digests"
    );
    let odd = out["counters"]["odd_scan_updates"].as_u64().unwrap_or(0);
    assert!(odd > 0, "{out}");
    let st = status(dir.path(), &index);
    for d in st["divergences"].as_array().expect("divergences") {
        assert_eq!(d["detail"]["odd_scans"][0], "Boreal-Ops-2", "{d}");
    }
}

#[test]
fn a_second_sync_is_refused_naming_the_first() {
    let demo = four();
    let (dir, index) = temp();
    let _held =
        cantonscope::store::lock::WriterLock::acquire(&index, "pid 4242 on elsewhere since noon")
            .expect("the lock");
    let (code, _, err) = sync(
        dir.path(),
        &demo.handle.scan_url,
        &index,
        &["--from", from()],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("another sync is writing"), "{err}");
    assert!(err.contains("pid 4242 on elsewhere since noon"), "{err}");
}

/// The update ids and digests an index keeps, in ledger order.
pub(crate) fn kept(index: &Path) -> Vec<(String, String)> {
    let mut store =
        cantonscope::store::open_reader(&cantonscope::store::Location::Sqlite(index.to_owned()))
            .expect("index opens");
    store.digests().expect("digests")
}

#[test]
fn syncs_killed_at_random_moments_resume_to_the_index_of_a_straight_sync() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let straight = dir.path().join("straight.sqlite");
    let (code, _, err) = sync(dir.path(), url, &straight, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    let kills = kill_syncs_at_random_moments(dir.path(), url, &index, 12, 0x9e37_79b9_7f4a_7c15);
    assert!(kills > 0);
    // The lock went with the killed process; the last committed page is read again.
    let (code, out, err) = sync(dir.path(), url, &index, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out["counters"]["updates_known"].as_u64().unwrap_or(0) > 0,
        "the last committed page is read again: {out}"
    );
    let resumed = kept(&index);
    let unique: BTreeSet<&String> = resumed.iter().map(|(id, _)| id).collect();
    assert_eq!(unique.len(), resumed.len(), "no update twice");
    let reference = kept(&straight);
    // The straight sync ended at the head when it ran; the demo is still.
    assert_eq!(resumed, reference, "the same ids and digests, none missing");
    assert_eq!(
        resumed.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(),
        ids(&history(dir.path(), url))
    );
}

/// Runs `index sync --from FROM` (then `index sync`) `rounds` times into `index`, each killed
/// with SIGKILL at a pseudo-random moment (after 0-2 progress lines and 0-39 ms; the first
/// round once it has started, checking that another process sees it running); stops early when
/// a sync finishes. Returns how many were killed.
pub(crate) fn kill_syncs_at_random_moments(
    dir: &Path,
    url: &str,
    index: &(impl AsRef<Path> + ?Sized),
    rounds: u64,
    seed: u64,
) -> usize {
    // Pseudo-random moments, printed so a failure can be replayed.
    let mut state: u64 = seed ^ u64::from(std::process::id());
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let mut kills = 0;
    for round in 0..rounds {
        let mut args = index_args(index, "sync");
        args.extend_from_slice(&["--request-rate", "1000", "--page-size", "31"]);
        if round == 0 {
            args.extend_from_slice(&["--from", from()]);
        }
        args.extend_from_slice(&["--progress", "json"]);
        let mut child = spawn(dir, url, &args, Stdio::null());
        // The first round reads at least one progress line before it asks `index status`: a
        // sync that has not started yet has no heartbeat (or no index) to see.
        let pages = if round == 0 { next(3).max(1) } else { next(3) };
        let pause = next(40);
        eprintln!("round {round}: kill after {pages} pages and {pause} ms");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let mut finished = false;
        for _ in 0..pages {
            if lines.next().is_none() {
                finished = true;
                break;
            }
        }
        if round == 0 && !finished {
            // While it runs, another process sees it from its heartbeat.
            let st = status(dir, index);
            assert_eq!(
                st["sync_running"]["pid"].as_u64(),
                Some(u64::from(child.id())),
                "{st}"
            );
        }
        std::thread::sleep(Duration::from_millis(pause));
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        child.kill().expect("kill");
        child.wait().expect("wait");
        kills += 1;
    }
    kills
}

#[test]
fn history_rewritten_under_the_index_is_refused() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let recent = format_time_micros(chrono::Utc::now().timestamp_micros() - 1_800_000_000);
    let (code, _, err) = sync(dir.path(), url, &index, &["--from", &recent]);
    assert_eq!(code, 0, "{err}");
    // The index's copy of the newest update differs from what the scans serve now.
    let (newest, _) = kept(&index).pop().expect("an update");
    {
        let conn = rusqlite::Connection::open(&index).expect("open");
        conn.execute(
            // An id kept as bytes (schema 13) or as text.
            "UPDATE updates SET digest = zeroblob(32) WHERE update_id IN (?1, unhex(?1))",
            [&newest],
        )
        .expect("update");
    }
    let (code, _, err) = sync(dir.path(), url, &index, &[]);
    assert_eq!(code, 5, "{err}");
    assert!(
        err.contains("history was rewritten under the index"),
        "{err}"
    );
    assert!(err.contains(&newest), "{err}");
}

#[test]
fn a_lagging_scans_missing_updates_are_dont_know_and_other_scans_verify_them() {
    let demo = start(
        DemoConfig {
            stagger: false,
            seed: 31,
            faults: DemoFaults {
                lagging: Some((1, Duration::from_secs(3_600))),
                ..DemoFaults::default()
            },
            ..DemoConfig::default()
        }
        .with_total_scans(4),
    );
    let (dir, index) = temp();
    let url = &demo.handle.scan_urls[0];
    let (code, out, err) = sync(dir.path(), url, &index, &["--from", from()]);
    assert_eq!(code, 0, "{out} {err}");
    let lines = history(dir.path(), url);
    assert_eq!(
        kept(&index)
            .into_iter()
            .map(|(id, _)| id)
            .collect::<Vec<_>>(),
        ids(&lines)
    );
    assert_eq!(out["counters"]["odd_scan_updates"], 0);
    assert_eq!(out["counters"]["unconfirmed_at_head"], 0);
    assert_eq!(
        status(dir.path(), &index)["divergences"],
        Value::Array(Vec::new())
    );
}

#[test]
fn another_networks_index_and_a_damaged_file_are_refused() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let recent = format_time_micros(chrono::Utc::now().timestamp_micros() - 1_800_000_000);
    let (code, _, err) = sync(dir.path(), url, &index, &["--from", &recent]);
    assert_eq!(code, 0, "{err}");
    {
        let conn = rusqlite::Connection::open(&index).expect("open");
        conn.execute(
            "UPDATE meta SET value = 'DSO::12209999' WHERE key = 'dso_party'",
            [],
        )
        .expect("update");
    }
    let (code, _, err) = sync(dir.path(), url, &index, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("index of another network"), "{err}");
    assert!(err.contains("DSO::12209999"), "{err}");

    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, vec![0x5a; 8192]).expect("junk");
    for command in ["status", "sync"] {
        let output = run(dir.path(), url, &index_args(&junk, command));
        assert_eq!(output.status.code(), Some(2), "{command}");
        let err = text(&output.stderr);
        assert!(
            err.contains("is not a cantonscope index or is damaged"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let output = run(
        dir.path(),
        url,
        &index_args(&dir.path().join("none.sqlite"), "status"),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("start one with `cantonscope index sync`"));
}

#[test]
fn too_few_scans_to_verify_with_is_exit_6_and_verify_1_is_recorded_unverified() {
    let demo = start(DemoConfig {
        seed: 7,
        ..DemoConfig::default()
    });
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let recent = format_time_micros(chrono::Utc::now().timestamp_micros() - 1_800_000_000);
    let (code, _, err) = sync(dir.path(), url, &index, &["--from", &recent]);
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("not enough scans to verify with"), "{err}");
    let (code, out, err) = sync(
        dir.path(),
        url,
        &index,
        &["--from", &recent, "--verify", "1", "--no-bodies"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out["counters"]["updates_written"].as_u64().unwrap_or(0) > 0);
    let st = status(dir.path(), &index);
    let done: Vec<&Value> = st["chunks"]
        .as_array()
        .expect("chunks")
        .iter()
        .filter(|c| c["updates"].as_u64().unwrap_or(0) > 0)
        .collect();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0]["verify"], 1);
    assert_eq!(st["bodies"], 0);
    // No index of the terms by id (schema 15 made one for its bodies; 16 reads them without).
    let by_id: i64 = rusqlite::Connection::open(&index)
        .expect("opens")
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'terms_id'",
            [],
            |r| r.get(0),
        )
        .expect("the schema");
    assert_eq!(by_id, 0);
}

#[test]
fn follow_keeps_at_the_head_and_sigterm_ends_it_with_exit_0() {
    let mut f = Follower::start(37);
    // Pages keep coming after the catch-up: the sync follows the head.
    for _ in 0..6 {
        let before = f.written;
        // (A line said between pages, such as an older scan not serving the events.)
        let line = std::iter::repeat_with(|| f.next())
            .find(|l| l.get("said").is_none())
            .expect("a line");
        assert!(f.written > before, "{line}");
    }
    f.stop_and_check();
}

/// Takes scans of `demo` away (503) or back while the demo, and its history, runs on:
/// `scans_down` is `true`, `false` or the scans' numbers (`[0]`: the first).
pub(crate) fn scans_down(demo: &Demo, scans_down: Value) {
    let url = demo.handle.faults_url.clone();
    let status = runtime().block_on(async move {
        reqwest::Client::new()
            .post(url)
            .json(&serde_json::json!({ "scans_down": scans_down }))
            .send()
            .await
            .expect("POST /demo/faults")
            .status()
    });
    assert!(status.is_success(), "{status}");
}

/// A `index sync --follow --progress json` of the last 10 minutes of three scans at the head.
pub(crate) struct Follower {
    pub(crate) demo: Demo,
    pub(crate) dir: tempfile::TempDir,
    pub(crate) index: PathBuf,
    recent: String,
    child: std::process::Child,
    /// Its stderr, line by line (each awaited at most a minute: a follower that says nothing
    /// fails the test instead of hanging it).
    lines: std::sync::mpsc::Receiver<String>,
    /// Updates written, as its progress said last.
    written: u64,
}

impl Follower {
    pub(crate) fn start(seed: u64) -> Follower {
        Follower::start_with(seed, 3)
    }

    /// [`Follower::start`] of `scans` scans.
    pub(crate) fn start_with(seed: u64, scans: usize) -> Follower {
        let demo = start(
            DemoConfig {
                stagger: false,
                seed,
                rate: 20.0,
                ..DemoConfig::default()
            }
            .with_total_scans(scans),
        );
        let (dir, index) = temp();
        let recent = format_time_micros(chrono::Utc::now().timestamp_micros() - 600_000_000);
        let mut args = index_args(&index, "sync");
        args.extend_from_slice(&[
            "--request-rate",
            "1000",
            "--from",
            &recent,
            "--follow",
            "--progress",
            "json",
        ]);
        let mut child = spawn(dir.path(), &demo.handle.scan_url, &args, Stdio::piped());
        let (tx, lines) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut follower = Follower {
            demo,
            dir,
            index,
            recent,
            child,
            lines,
            written: 0,
        };
        // Following at the head.
        follower.writes(3);
        follower
    }

    /// Its next line on stderr: JSON, or `{"said": line}`.
    pub(crate) fn next(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .expect("a line from the follower");
        let value =
            serde_json::from_str(&line).unwrap_or_else(|_| serde_json::json!({ "said": line }));
        self.written = value["written"].as_u64().unwrap_or(self.written);
        value
    }

    /// Reads on until it wrote `more` updates more.
    pub(crate) fn writes(&mut self, more: u64) {
        let until = self.written + more;
        while self.written < until {
            self.next();
        }
    }

    /// What `index status` says of the running sync's command once `ok` holds (it is
    /// written with the heartbeat, every 5 s).
    fn running_once(&self, ok: impl Fn(&str) -> bool) -> String {
        (0..40)
            .find_map(|_| {
                let st = status(self.dir.path(), &self.index);
                let command = st["sync_running"]["command"].as_str().map(str::to_owned);
                if command.as_deref().is_some_and(&ok) {
                    return command;
                }
                std::thread::sleep(Duration::from_millis(500));
                None
            })
            .expect("index status shows the running sync")
    }

    /// SIGTERM: exit 0, stopped, and the index keeps the history from the start, in order,
    /// without a gap.
    pub(crate) fn stop_and_check(self) {
        let output = terminated(self.child);
        let result: Value = serde_json::from_slice(&output.stdout).expect("result JSON");
        assert_eq!(result["outcome"], "stopped");
        let st = status(self.dir.path(), &self.index);
        assert!(st["sync_running"].is_null(), "{st}");
        assert_eq!(st["last_sync"]["outcome"], "stopped");
        let kept: Vec<String> = kept(&self.index).into_iter().map(|(id, _)| id).collect();
        assert!(kept.len() as u64 >= self.written);
        let history = ids(&history_from(
            self.dir.path(),
            &self.demo.handle.scan_url,
            &self.recent,
        ));
        assert_eq!(kept, history[..kept.len()]);
    }
}

/// A sync asks a page's first verifier beside the profile's scan while pages come full (one
/// round trip a page, not two: measured in the book), but not at the head: there a still
/// network's pages are empty, and the other SVs' scans are not asked for them. The follower's
/// polls go to the profile's scan alone.
#[test]
fn at_the_head_a_follower_asks_the_verifiers_nothing_for_its_empty_pages() {
    let demo = start(
        DemoConfig {
            stagger: false,
            seed: 43,
            ..DemoConfig::default()
        }
        .with_total_scans(4),
    );
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let total = history(dir.path(), url).len() as u64;
    let mut args = index_args(&index, "sync");
    args.extend_from_slice(&[
        "--request-rate",
        "1000",
        "--page-size",
        "97",
        "--no-events",
        "--from",
        from(),
        "--follow",
        "--progress",
        "json",
    ]);
    let mut child = spawn(dir.path(), url, &args, Stdio::piped());
    let stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut lines = stderr.lines();
    // Caught up: every update of the range written, verified by the verifiers.
    let mut written = 0;
    while written < total {
        let line = lines.next().expect("a progress line").expect("text");
        let value: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        written = value["written"].as_u64().unwrap_or(written);
    }
    let asked = |scan: usize| -> u64 {
        demo.handle
            .requests(scan)
            .iter()
            .map(|(_, stats)| stats.total)
            .sum()
    };
    let verifiers = |asked: &dyn Fn(usize) -> u64| (1..4).map(asked).sum::<u64>();
    // A moment for the last page's verifiers, then three polls (one every 2 s).
    std::thread::sleep(Duration::from_millis(1_500));
    let (profile_before, verifiers_before) = (asked(0), verifiers(&asked));
    assert!(verifiers_before > 0, "the pages were verified");
    std::thread::sleep(Duration::from_secs(6));
    let (profile_after, verifiers_after) = (asked(0), verifiers(&asked));
    assert!(
        profile_after >= profile_before + 2,
        "the follower polls its scan"
    );
    assert_eq!(
        verifiers_after, verifiers_before,
        "no verifier asked for an empty page"
    );
    terminated(child);
    assert_eq!(kept(&index).len() as u64, total);
}

#[test]
fn a_follower_waits_for_scans_that_went_away_and_catches_up_when_they_are_back() {
    let mut f = Follower::start(38);
    // Every scan goes away: the follower waits, says since when, and tries again.
    scans_down(&f.demo, Value::Bool(true));
    let waiting = loop {
        if let Some(w) = f.next()["waiting_for_scans_since"].as_str() {
            break w.to_owned();
        }
    };
    assert!(parse_time_micros(&waiting).is_some(), "{waiting}");
    let written = f.written;
    let mut tries = 1;
    while tries < 3 {
        let line = f.next();
        if line["waiting_for_scans_since"] == waiting.as_str() {
            assert!(
                line["retry_in_s"].as_f64().expect("retry_in_s") <= 10.0,
                "{line}"
            );
            tries += 1;
        }
    }
    assert_eq!(
        f.written, written,
        "nothing written while the scans are down"
    );
    // `index status` shows the running sync waiting.
    let command = f.running_once(|c| c.contains("waiting for scans since"));
    assert!(command.contains(&waiting), "{command} / {waiting}");
    // The scans come back: the follower catches up without a restart.
    scans_down(&f.demo, Value::Bool(false));
    loop {
        let line = f.next();
        if line.get("waiting_for_scans_since") == Some(&Value::Null) {
            assert!(line["scans_back_after_s"].as_f64().is_some(), "{line}");
            break;
        }
    }
    f.writes(3);
    assert_eq!(f.running_once(|c| !c.contains("waiting")), "index sync");
    f.stop_and_check();
}

#[test]
fn a_follower_takes_the_bodies_from_another_scan_while_its_own_is_down() {
    let mut f = Follower::start(39);
    scans_down(&f.demo, serde_json::json!([0]));
    // It says so once and goes on writing, verified, without waiting.
    // (Lines about the events, which say where the events come from, aside.)
    let said = loop {
        let line = f.next();
        assert!(line.get("waiting_for_scans_since").is_none(), "{line}");
        if let Some(said) = line["said"].as_str().filter(|s| !s.contains("events")) {
            break said.to_owned();
        }
    };
    assert!(
        said.contains("the bodies come from Boreal-Ops-2")
            || said.contains("the bodies come from Cirrus-Labs-1"),
        "{said}"
    );
    f.writes(3);
    scans_down(&f.demo, Value::Bool(false));
    let said = loop {
        if let Some(said) = f.next()["said"].as_str().filter(|s| !s.contains("events")) {
            break said.to_owned();
        }
    };
    assert!(said.contains("answers again"), "{said}");
    f.writes(2);
    f.stop_and_check();
}

#[test]
fn until_bounds_the_range_and_a_down_verifier_is_skipped_for_another() {
    let demo = start(
        DemoConfig {
            stagger: false,
            seed: 41,
            faults: DemoFaults {
                down: Some((1, cantonscope::demo::DownMode::Refused)),
                ..DemoFaults::default()
            },
            ..DemoConfig::default()
        }
        .with_total_scans(4),
    );
    let (dir, index) = temp();
    let url = &demo.handle.scan_urls[0];
    let lines = history(dir.path(), url);
    let until = lines[lines.len() / 2]["record_time"]
        .as_str()
        .expect("time")
        .to_owned();
    let (code, out, err) = sync(
        dir.path(),
        url,
        &index,
        &["--from", from(), "--until", &until],
    );
    assert_eq!(code, 0, "{out} {err}");
    let kept: Vec<String> = kept(&index).into_iter().map(|(id, _)| id).collect();
    assert_eq!(kept, ids(&lines[..=lines.len() / 2]));
    // The down scan confirmed nothing.
    let st = status(dir.path(), &index);
    let scans = st["chunks"][0]["scans"].as_array().expect("scans");
    assert!(scans.len() >= 2, "{st}");
    assert!(!scans.iter().any(|s| s == "Boreal-Ops-2"), "{st}");
}

#[test]
fn prune_drops_what_is_older_and_a_later_sync_does_not_bring_it_back() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let (code, _, err) = sync(dir.path(), url, &index, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    let lines = history(dir.path(), url);
    let cut = lines.len() - 40;
    let before = lines[cut]["record_time"].as_str().expect("time").to_owned();
    let mut args = index_args(&index, "prune");
    args.extend_from_slice(&["--before", &before]);
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let result: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(result["removed"].as_u64(), Some(cut as u64));
    let expected = ids(&lines[cut..]);
    let now: Vec<String> = kept(&index).into_iter().map(|(id, _)| id).collect();
    assert_eq!(now, expected);
    // The next sync reads the last page again (it reaches before the cut) and keeps the cut.
    let (code, _, err) = sync(dir.path(), url, &index, &[]);
    assert_eq!(code, 0, "{err}");
    let now: Vec<String> = kept(&index).into_iter().map(|(id, _)| id).collect();
    assert_eq!(now, expected);
    let st = status(dir.path(), &index);
    assert_eq!(st["updates"].as_u64(), Some(expected.len() as u64));
    assert_eq!(st["gaps"], Value::Array(Vec::new()));
}

#[test]
fn a_first_sync_without_index_flag_creates_the_default_index_in_the_data_dir() {
    let dir = tempfile::tempdir().expect("tempdir");
    let url = &four().handle.scan_url;
    // A fresh machine: the data dir has no `index/` yet.
    let until = format_time_micros(parse_time_micros(from()).expect("from") + 600_000_000);
    let output = run(
        dir.path(),
        url,
        &[
            "index",
            "sync",
            "--from",
            from(),
            "--until",
            &until,
            "--verify",
            "1",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let default = dir.path().join("data").join("index").join("default.sqlite");
    assert!(default.exists(), "{}", default.display());
    let status = run(dir.path(), url, &["index", "status"]);
    assert_eq!(status.status.code(), Some(0), "{}", text(&status.stderr));
}

/// `index search TERM… --count` over the whole index (no time bounds: a one-term count is the
/// count kept with its key).
pub(crate) fn count_all(dir: &Path, index: &Path, terms: &[&str]) -> u64 {
    let mut args = index_args(index, "search");
    args.extend_from_slice(terms);
    args.push("--count");
    let output = run(dir, "http://127.0.0.1:9", &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    text(&output.stdout).trim().parse().expect("a count")
}

#[test]
fn pruned_keys_leave_the_counts_and_the_counts_equal_the_searches() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &["--from", from(), "--verify", "1"],
    );
    assert_eq!(code, 0, "{err}");
    let terms = ["choice:AmuletRules_Transfer"];
    let all = search(dir.path(), &index, &terms);
    assert!(all.len() > 10, "{}", all.len());
    assert_eq!(count_all(dir.path(), &index, &terms), all.len() as u64);
    // Contract-id prefixes: a contract of one update is counted from its term (its count and
    // newest update), so the prune must leave both right.
    let prefixes: Vec<String> = crate::index_prefix::prefixes(&index)
        .into_iter()
        .map(|p| format!("contract:{p}"))
        .collect();
    let counted = |word: &str| {
        let found = search(dir.path(), &index, &[word]);
        assert_eq!(
            count_all(dir.path(), &index, &[word]),
            found.len() as u64,
            "{word}"
        );
        found.len()
    };
    let before_prune: Vec<usize> = prefixes.iter().map(|w| counted(w)).collect();
    let kept_ids: Vec<String> = kept(&index).into_iter().map(|(id, _)| id).collect();
    let lines = history(dir.path(), url);
    let cut = kept_ids.len() / 2;
    let before = lines
        .iter()
        .find(|l| l["update_id"] == kept_ids[cut].as_str())
        .and_then(|l| l["record_time"].as_str())
        .expect("a time")
        .to_owned();
    let mut args = index_args(&index, "prune");
    args.extend_from_slice(&["--before", &before]);
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let left = search(dir.path(), &index, &terms);
    assert!(!left.is_empty() && left.len() < all.len(), "{}", left.len());
    assert_eq!(left, all[..left.len()].to_vec(), "the newest stay");
    assert_eq!(count_all(dir.path(), &index, &terms), left.len() as u64);
    let after_prune: Vec<usize> = prefixes.iter().map(|w| counted(w)).collect();
    assert!(
        before_prune.iter().zip(&after_prune).any(|(b, a)| a < b),
        "{before_prune:?} {after_prune:?}"
    );
}

/// Turns an index into the schema 1 of the cantonscope before it (its `terms` and
/// `keys` tables, as that version created them).
/// The ids of an SQLite index's body dictionaries, and the dictionary each kept body names
/// (in ledger order; `None`: packed without one).
fn dictionaries(index: &Path) -> (Vec<u32>, Vec<Option<u32>>) {
    use cantonscope::model::index::pack::body_dictionary_id;
    let conn = rusqlite::Connection::open(index).expect("the index opens");
    let ids: Vec<u32> = conn
        .prepare("SELECT id FROM dictionaries ORDER BY added_at")
        .expect("dictionaries")
        .query_map([], |r| r.get(0))
        .expect("ids")
        .collect::<Result<_, _>>()
        .expect("ids");
    let named = conn
        .prepare("SELECT body FROM updates ORDER BY migration_id, record_time, seq")
        .expect("bodies")
        .query_map([], |r| r.get::<_, Vec<u8>>(0))
        .expect("bodies")
        .map(|b| body_dictionary_id(&b.expect("a body")))
        .collect();
    (ids, named)
}

/// The text of each contract term of an SQLite index, by id: what a body that names its
/// contracts (schema 15) is read with.
pub fn contract_terms_of(conn: &rusqlite::Connection) -> HashMap<i64, String> {
    conn.prepare("SELECT id, value FROM terms WHERE kind = 4")
        .expect("terms")
        .query_map([], |r| {
            let value = match r.get_ref(1)? {
                rusqlite::types::ValueRef::Blob(b) => hex::encode(b),
                other => other.as_str()?.to_owned(),
            };
            Ok((r.get(0)?, value))
        })
        .expect("terms")
        .collect::<Result<_, _>>()
        .expect("terms")
}

/// A kept body's text: its zstd frame unpacked by `unpack`, the contracts it names put back
/// from `terms` ([`contract_terms_of`]; a body of schema 14 or before names none).
pub fn kept_text(
    packed: &[u8],
    unpack: impl FnOnce(&[u8]) -> Vec<u8>,
    terms: &HashMap<i64, String>,
) -> Vec<u8> {
    use cantonscope::model::index::pack::{contract_terms, contracts_back};
    let (ids, frame) = contract_terms(packed).expect("a kept body");
    let text = unpack(frame);
    if ids.is_empty() {
        return text;
    }
    let contracts: Vec<String> = ids.iter().map(|id| terms[id].clone()).collect();
    contracts_back(String::from_utf8(text).expect("UTF-8"), &contracts)
        .expect("its contracts")
        .into_bytes()
}

/// An index as schema 3 kept it: its bodies packed without a dictionary, no dictionaries.
fn to_schema_3(index: &Path) {
    let conn = rusqlite::Connection::open(index).expect("the index opens");
    let dictionaries: Vec<Vec<u8>> = conn
        .prepare("SELECT dictionary FROM dictionaries")
        .expect("dictionaries")
        .query_map([], |r| r.get(0))
        .expect("dictionaries")
        .collect::<Result<_, _>>()
        .expect("dictionaries");
    let bodies: Vec<(i64, Vec<u8>)> = conn
        .prepare("SELECT seq, body FROM updates")
        .expect("bodies")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("bodies")
        .collect::<Result<_, _>>()
        .expect("bodies");
    let terms = contract_terms_of(&conn);
    for (seq, packed) in bodies {
        let unpack = |frame: &[u8]| match cantonscope::model::index::pack::body_dictionary_id(frame)
        {
            None => zstd::stream::decode_all(frame).expect("plain"),
            Some(id) => {
                let dictionary = dictionaries
                    .iter()
                    .find(|d| cantonscope::model::index::pack::dictionary_id(d) == Some(id))
                    .expect("its dictionary");
                zstd::bulk::Decompressor::with_dictionary(dictionary)
                    .expect("zstd")
                    .decompress(frame, 1 << 24)
                    .expect("unpacked")
            }
        };
        let text = kept_text(&packed, unpack, &terms);
        let plain = zstd::bulk::compress(&text, 1).expect("packed");
        conn.execute(
            "UPDATE updates SET body = ?1 WHERE seq = ?2",
            rusqlite::params![plain, seq],
        )
        .expect("repacked");
    }
    crate::common::migrated::times_from_1970(&conn);
    conn.execute_batch(
        "DROP TABLE dictionaries; DROP TABLE hub_bits;
         ALTER TABLE terms DROP COLUMN last_migration; ALTER TABLE terms DROP COLUMN last_time; ALTER TABLE terms DROP COLUMN last_seq;
         UPDATE meta SET value = '3' WHERE key = 'schema_version';",
    )
    .expect("schema 3");
}

#[test]
fn chunks_walked_side_by_side_train_one_dictionary_and_every_body_reads_back() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    // Pages of 300: each of the 4 chunks' first page alone has enough bodies to train from.
    let mut args = index_args(&index, "sync");
    args.extend_from_slice(&["--request-rate", "1000", "--page-size", "300"]);
    args.extend_from_slice(&["--from", from(), "--verify", "1", "--chunks", "4"]);
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let (ids, named) = dictionaries(&index);
    assert_eq!(ids.len(), 1, "one dictionary: {ids:?}");
    assert!(named.iter().flatten().all(|n| *n == ids[0]));
    let location = cantonscope::store::Location::Sqlite(index.clone());
    let mut store = cantonscope::store::open_reader(&location).expect("index opens");
    for (id, _) in store.digests().expect("digests") {
        assert!(store.body(&id).expect("read").is_some(), "{id}");
    }
}

#[test]
fn each_network_migration_gets_a_body_dictionary_of_its_own() {
    use cantonscope::model::index::pack::{
        DICTIONARIES_KEY, body_dictionary_id, dictionaries_by_migration,
    };
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    // The demo's network migrated once: its first update of migration 1, and two hours of
    // updates either side of it (about 450 each), synced in pages of 100.
    let output = run(
        dir.path(),
        url,
        &[
            "scan",
            "updates",
            "--page-size",
            "1",
            "--after-migration-id",
            "0",
            "--after-record-time",
            "9999-12-31T00:00:00Z",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let page: Value = serde_json::from_str(&text(&output.stdout)).expect("a page");
    let first = &page["transactions"][0];
    assert_eq!(first["migration_id"], 1);
    let at = parse_time_micros(first["record_time"].as_str().expect("a time")).expect("a time");
    let hours = |h: i64| format_time_micros(at + h * 3_600_000_000);
    let (from, until) = (hours(-2), hours(2));
    let mut args = index_args(&index, "sync");
    args.extend_from_slice(&["--request-rate", "1000", "--verify", "1", "--no-events"]);
    args.extend_from_slice(&["--from", &from, "--until", &until, "--page-size", "100"]);
    // One chunk: the pages written in ledger order.
    args.extend_from_slice(&["--chunks", "1"]);
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let conn = rusqlite::Connection::open(&index).expect("the index opens");
    let kept_by_migration = || -> String {
        conn.query_row(
            "SELECT value FROM meta WHERE key = ?1",
            [DICTIONARIES_KEY],
            |r| r.get(0),
        )
        .expect("the dictionaries by migration")
    };
    let kept = kept_by_migration();
    let own = dictionaries_by_migration(Some(&kept));
    assert_eq!(
        own.keys().copied().collect::<Vec<i64>>(),
        vec![0, 1],
        "{kept}"
    );
    assert_ne!(own[&0], own[&1], "{kept}");
    let ids: BTreeSet<u32> = conn
        .prepare("SELECT id FROM dictionaries")
        .expect("dictionaries")
        .query_map([], |r| r.get(0))
        .expect("ids")
        .collect::<Result<_, _>>()
        .expect("ids");
    assert_eq!(
        ids,
        own.values().copied().collect(),
        "the index keeps those two"
    );
    // Each migration's bodies are packed apart (the page where the network migrated holds
    // both): until the sync has 200 of a migration's bodies, with the index's newest
    // dictionary (none yet for the first), then with the migration's own.
    let bodies: Vec<(i64, Vec<u8>)> = conn
        .prepare("SELECT migration_id, body FROM updates ORDER BY seq")
        .expect("bodies")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("bodies")
        .collect::<Result<_, _>>()
        .expect("bodies");
    for (migration, meanwhile) in [(0, None), (1, Some(own[&0]))] {
        let named: Vec<Option<u32>> = bodies
            .iter()
            .filter(|(m, _)| *m == migration)
            .map(|(_, body)| body_dictionary_id(body))
            .collect();
        let from = named
            .iter()
            .position(|d| *d == Some(own[&migration]))
            .unwrap_or(named.len());
        assert!(
            from > 0 && named.len() > from,
            "migration {migration}: {named:?}"
        );
        assert!(named[..from].iter().all(|d| *d == meanwhile), "{named:?}");
        assert!(
            named[from..].iter().all(|d| *d == Some(own[&migration])),
            "{named:?}"
        );
    }
    // A later sync (an hour more of migration 1, in pages of 50) packs with the dictionary
    // the index keeps for it: none trained again.
    let mut args = index_args(&index, "sync");
    args.extend_from_slice(&["--request-rate", "1000", "--verify", "1", "--no-events"]);
    let later = hours(3);
    args.extend_from_slice(&["--page-size", "50", "--until", &later]);
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(kept_by_migration(), kept);
    let count: i64 = conn
        .query_row("SELECT count(*) FROM dictionaries", [], |r| r.get(0))
        .expect("dictionaries");
    assert_eq!(count, 2);
    let newer: Vec<Option<u32>> = conn
        .prepare("SELECT body FROM updates WHERE record_time + 1798761600000000 > ?1") // kept from 2027
        .expect("bodies")
        .query_map([at + 2 * 3_600_000_000], |r| r.get::<_, Vec<u8>>(0))
        .expect("bodies")
        .map(|b| body_dictionary_id(&b.expect("a body")))
        .collect();
    assert!(
        newer.len() > 50,
        "{} updates in the later hour",
        newer.len()
    );
    assert!(newer.iter().all(|d| *d == Some(own[&1])), "{newer:?}");
    // Every body opens as the scan served it.
    let location = cantonscope::store::Location::Sqlite(index.clone());
    let mut store = cantonscope::store::open_reader(&location).expect("index opens");
    for (id, _) in store.digests().expect("digests") {
        let body = store.body(&id).expect("read").expect("a body");
        let item: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(item["update_id"], id.as_str());
    }
}

#[test]
fn a_schema_3_index_is_migrated_and_keeps_its_bodies_while_new_ones_get_a_dictionary() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let bodies = |index: &Path| {
        let location = cantonscope::store::Location::Sqlite(index.to_owned());
        let mut store = cantonscope::store::open_reader(&location).expect("index opens");
        store
            .digests()
            .expect("digests")
            .into_iter()
            .map(|(id, _)| store.body(&id).expect("read").expect("a body"))
            .collect::<Vec<String>>()
    };
    // An hour of the history, then as schema 3 kept it.
    let until = format_time_micros(parse_time_micros(from()).expect("a time") + 3_600_000_000);
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &["--from", from(), "--until", &until, "--verify", "1"],
    );
    assert_eq!(code, 0, "{err}");
    let old = bodies(&index);
    to_schema_3(&index);

    // Readers refuse it with what to do.
    let mut args = index_args(&index, "search");
    args.push("choice:AmuletRules_Transfer");
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("older cantonscope (schema 3)"));

    // The next sync migrates it and goes on to the head (two hours more), its bodies packed
    // with a dictionary trained from its first pages; the bodies kept before read the same.
    let (code, _, err) = sync(dir.path(), url, &index, &["--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("migrated the index from schema 3 to schema 21"),
        "{err}"
    );
    assert_eq!(status(dir.path(), &index)["schema_version"], 21);
    let now = bodies(&index);
    assert_eq!(
        now[..old.len()],
        old[..],
        "the bodies kept before read the same"
    );
    let (ids, named) = dictionaries(&index);
    assert!(
        now.len() - old.len() >= cantonscope::model::index::pack::DICTIONARY_SAMPLES,
        "{} new",
        now.len() - old.len()
    );
    assert_eq!(ids.len(), 1);
    assert!(named[..old.len()].iter().all(Option::is_none));
    let new = &named[old.len()..];
    let plain = new.iter().take_while(|n| n.is_none()).count();
    assert!(
        plain < cantonscope::model::index::pack::DICTIONARY_SAMPLES,
        "{plain}"
    );
    assert!(new[plain..].iter().all(|n| *n == Some(ids[0])), "{new:?}");
}

fn to_schema_1(index: &Path) {
    let conn = rusqlite::Connection::open(index).expect("the index opens");
    crate::common::migrated::times_from_1970(&conn);
    conn.execute_batch(
        "BEGIN;
         CREATE TABLE terms_v1 (id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, value TEXT NOT NULL,
                                UNIQUE (kind, value));
         INSERT INTO terms_v1 (id, kind, value) SELECT id, kind, value FROM terms;
         CREATE TABLE keys_v1 (term INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (term, seq))
                WITHOUT ROWID;
         INSERT INTO keys_v1 (term, seq) SELECT term, seq FROM keys;
         DROP TABLE keys;
         DROP TABLE terms;
         DROP TABLE hubs;
         DROP TABLE pairs;
         DROP TABLE hub_bits;
         ALTER TABLE terms_v1 RENAME TO terms;
         ALTER TABLE keys_v1 RENAME TO keys;
         DELETE FROM meta WHERE key = 'next_term';
         UPDATE meta SET value = '1' WHERE key = 'schema_version';
         COMMIT;",
    )
    .expect("schema 1");
}

#[test]
fn a_schema_1_index_is_refused_by_readers_and_migrated_by_the_next_sync() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &["--from", from(), "--verify", "1"],
    );
    assert_eq!(code, 0, "{err}");
    let choice = ["choice:AmuletRules_Transfer"];
    let transfers = search(dir.path(), &index, &choice);
    let kept_before = kept(&index);
    to_schema_1(&index);

    // Readers refuse it with what to do, never misread it.
    let mut args = index_args(&index, "search");
    args.push(choice[0]);
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(2));
    let err = text(&output.stderr);
    assert!(err.contains("older cantonscope (schema 1)"), "{err}");
    assert!(err.contains("index sync"), "{err}");

    // The next sync migrates it (and says so), then goes on from where it was.
    let (code, _, err) = sync(dir.path(), url, &index, &["--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("migrated the index from schema 1 to schema 21"),
        "{err}"
    );
    let st = status(dir.path(), &index);
    assert_eq!(st["schema_version"], 21);
    // The same answers as before (updates the sync added since are newer).
    let known: BTreeSet<&str> = kept_before.iter().map(|(id, _)| id.as_str()).collect();
    let now = search(dir.path(), &index, &choice);
    let old: Vec<String> = now
        .iter()
        .filter(|id| known.contains(id.as_str()))
        .cloned()
        .collect();
    assert_eq!(old, transfers);
    assert_eq!(count_all(dir.path(), &index, &choice), now.len() as u64);
    let kept_now = kept(&index);
    assert_eq!(kept_now[..kept_before.len()], kept_before[..]);
}

/// The binary under `sh` with its files limited to `kib` KiB (RLIMIT_FSIZE; SIGXFSZ ignored,
/// so a write past the limit fails with EFBIG as a write to a full disk fails with ENOSPC).
fn run_limited(dir: &Path, kib: u64, scan_url: &str, args: &[&str]) -> Output {
    let inner = bin(dir);
    let mut command = std::process::Command::new("sh");
    command.env_clear();
    for (key, value) in inner.get_envs() {
        if let Some(value) = value {
            command.env(key, value);
        }
    }
    command
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {} && exec \"$0\" \"$@\"",
            kib * 2
        ))
        .arg(inner.get_program())
        .args(inner.get_args())
        .arg("--scan-url")
        .arg(scan_url)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs")
}

#[test]
fn a_full_disk_stops_the_sync_with_a_message_and_a_later_sync_resumes_to_the_same_index() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let straight = dir.path().join("straight.sqlite");
    let (code, _, err) = sync(dir.path(), url, &straight, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    // The index may not grow past 1 MiB: a few pages fit, then every write fails.
    let mut args = index_args(&index, "sync");
    args.extend_from_slice(&[
        "--request-rate",
        "1000",
        "--page-size",
        "97",
        "--from",
        from(),
    ]);
    let output = run_limited(dir.path(), 1024, url, &args);
    let err = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot grow: the disk is full or the file may not be larger"),
        "{err}"
    );
    assert!(err.contains("run the command again"), "{err}");
    // What was committed reads back whole.
    let st = status(dir.path(), &index);
    let partial = st["updates"].as_u64().expect("updates");
    assert!((partial as usize) < kept(&straight).len(), "{st}");
    // With room again, the next sync goes on to the index of a straight sync.
    let (code, _, err) = sync(dir.path(), url, &index, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(kept(&index), kept(&straight));
}

/// The digest the sync computes from an item's text (without a `serde_json::Value`) equals the
/// digest of the decoded value, on every update of a demo history exactly as the scan sent it:
/// the digests kept in existing indexes stay comparable (`index verify`, re-reads).
#[test]
fn the_digest_of_the_text_equals_the_one_of_the_value_on_the_demo_history() {
    use cantonscope::api::scan::{self, UpdatesRequest};
    use cantonscope::api::{ApiClient, ApiConfig};
    use cantonscope::model::index::{digest_of, digest_value};

    let demo = four();
    let client = ApiClient::new(ApiConfig {
        scan_url: Some(demo.handle.scan_url.clone()),
        ..ApiConfig::default()
    })
    .expect("client");
    #[derive(serde::Deserialize)]
    struct Page {
        transactions: Vec<Box<serde_json::value::RawValue>>,
    }
    let rt = runtime();
    let mut checked = 0;
    let mut request = UpdatesRequest::from_begin(1000);
    loop {
        let resp = rt
            .block_on(client.send_raw(&scan::updates(&request)))
            .expect("a page of updates");
        let page: Page = serde_json::from_slice(&resp.body).expect("a JSON page");
        for raw in &page.transactions {
            let text = raw.get();
            let mut value: Value = serde_json::from_str(text).expect("json");
            assert_eq!(digest_of(text), Ok(digest_value(&mut value)), "{text}");
            // Whitespace and key order do not count.
            assert_eq!(digest_of(&format!("{value:#}")), digest_of(text));
        }
        checked += page.transactions.len();
        match resp.typed.next_after() {
            Some(after) if page.transactions.len() == 1000 => {
                request =
                    UpdatesRequest::after(1000, after.after_migration_id, after.after_record_time);
            }
            _ => break,
        }
    }
    assert!(checked > 1000, "the whole demo history: {checked}");
}
