//! The book (`docs/`, mdBook) documents the real thing: its keys table is the default keymap, its
//! command-line reference is the binary's `--help`, its pane captures are real screens, and every
//! link of the book and of the README leads to a file (and heading) of the repository.
//!
//! `UPDATE_BOOK=1 cargo test --test it book::` rewrites the generated parts (the keys table of
//! `docs/src/keys.md`, the whole of `docs/src/cli.md`) instead of failing on a difference.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use cantonscope::app::with_pane_names;
use cantonscope::config::keymap::KeyMap;
use cantonscope::msg::Tabs;
use cantonscope::ui::help::markdown_tables;
use clap::CommandFactory;

const KEYS_START: &str = "<!-- keys:start (generated from the keymap; tests/it/book.rs) -->\n";
const KEYS_END: &str = "<!-- keys:end -->";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn updating() -> bool {
    std::env::var_os("UPDATE_BOOK").is_some()
}

/// Every Markdown file of the book's sources, relative to the repository (sorted).
fn chapters() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("docs/src") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                let rel = path.strip_prefix(root()).expect("inside the repository");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("docs/src"), &mut out);
    out.sort();
    out
}

/// The lines of `text` outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push(line);
        }
    }
    out
}

/// A heading's anchor as GitHub and mdBook make it: the text without its Markdown (code marks,
/// emphasis, link targets), lowercased, whitespace to `-`, other punctuation dropped.
fn anchor(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // [text](target) reads as its text.
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](").map(|m| open + m) else {
            break;
        };
        let Some(close) = rest[mid..].find(')').map(|c| mid + c) else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..mid]);
        rest = &rest[close + 1..];
    }
    text.push_str(rest);
    text.trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated one also as `-1`, `-2`…).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in prose(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = anchor(&line[hashes + 1..]);
            let mut id = base.clone();
            let mut n = 0;
            while out.contains(&id) {
                n += 1;
                id = format!("{base}-{n}");
            }
            out.insert(id);
        }
    }
    out
}

/// The targets of the Markdown links of `text` (`[…](target)`), code spans and blocks left out.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        // Code spans are no links: drop what is between backticks.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        for (i, _) in plain.match_indices("](") {
            let rest = &plain[i + 2..];
            let end = rest
                .find(')')
                .unwrap_or_else(|| panic!("a closed link: {line}"));
            out.push(rest[..end].to_string());
        }
    }
    out
}

/// The files an mdBook `{{#include path}}` pulls in.
fn includes(text: &str) -> Vec<String> {
    text.match_indices("{{#include ")
        .map(|(i, m)| {
            let rest = &text[i + m.len()..];
            let end = rest.find("}}").expect("a closed include");
            // mdBook allows `path:start:end` or `path:anchor`.
            rest[..end]
                .trim()
                .split(':')
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

/// `rel` (a file of the repository) joined with `target`, without leaving the repository:
/// `None` when the path climbs above its root.
fn resolve(rel: &str, target: &str) -> Option<PathBuf> {
    let mut parts: Vec<String> = Path::new(rel)
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    for c in Path::new(target).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

/// Everything wrong with the links of one Markdown file (`rel`, relative to the repository).
fn link_problems(rel: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for target in links(text) {
        if target.contains("://") || target.starts_with('/') || target.starts_with("mailto:") {
            out.push(format!("{rel}: links outside the repository: {target}"));
            continue;
        }
        let (path, fragment) = match target.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (target.as_str(), None),
        };
        if path.is_empty() {
            // An anchor of this very file.
            if let Some(fragment) = fragment
                && !anchors(text).contains(fragment)
            {
                out.push(format!("{rel}: no heading #{fragment} here: {target}"));
            }
            continue;
        }
        let Some(file) = resolve(rel, path) else {
            out.push(format!("{rel}: links above the repository: {target}"));
            continue;
        };
        let full = root().join(&file);
        if !full.exists() {
            out.push(format!("{rel}: links to a missing file: {target}"));
            continue;
        }
        if let Some(fragment) = fragment {
            if full.extension().is_none_or(|e| e != "md") {
                out.push(format!(
                    "{rel}: an anchor in a file without headings: {target}"
                ));
                continue;
            }
            let heads = anchors(&std::fs::read_to_string(&full).expect("a Markdown file"));
            if !heads.contains(fragment) {
                out.push(format!(
                    "{rel}: no heading #{fragment} in {}: {target}",
                    file.display()
                ));
            }
        }
    }
    for include in includes(text) {
        match resolve(rel, &include) {
            Some(f) if root().join(&f).is_file() => {}
            _ => out.push(format!("{rel}: includes a missing file: {include}")),
        }
    }
    // The repository alone explains it: no notes from outside it, linked or not.
    for outside in ["../shared", "STYLE.md"] {
        if text.contains(outside) {
            out.push(format!(
                "{rel}: names {outside}, which is not in the repository"
            ));
        }
    }
    out
}

#[test]
fn book_links_resolve_in_the_repository() {
    let mut files = vec!["README.md".to_string()];
    files.extend(chapters());
    let mut problems = Vec::new();
    let mut count = 0;
    for rel in &files {
        let text = read(rel);
        count += links(&text).len();
        problems.extend(link_problems(rel, &text));
    }
    assert!(count > 50, "the README and the book link ({count} links)");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn book_link_check_finds_what_is_wrong() {
    let text = "# A `b` c: d\n\n## Again\n\n## Again\n\n[x](#a-b-c-d) [y](#again-1) \
                [z](#nope) [w](missing.md) [v](../../../../etc) [u](https://example.com) \
                `[not](a link)`\n```\n[nor](this)\n```\n";
    let found = link_problems("docs/src/t.md", text);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found[0].contains("#nope"));
    assert!(found[1].contains("missing.md"));
    assert!(found[2].contains("above the repository"));
    assert!(found[3].contains("outside the repository"));
    assert_eq!(
        anchor("View locators: \"look at this\""),
        "view-locators-look-at-this"
    );
    assert_eq!(anchor("The sweep's JSON"), "the-sweeps-json");
    assert_eq!(
        anchor("[The local index](x.md) (headless)"),
        "the-local-index-headless"
    );
}

#[test]
fn book_summary_lists_every_chapter() {
    let summary = read("docs/src/SUMMARY.md");
    let listed: BTreeSet<String> = links(&summary)
        .into_iter()
        .map(|l| format!("docs/src/{l}"))
        .collect();
    let files: BTreeSet<String> = chapters()
        .into_iter()
        .filter(|f| f != "docs/src/SUMMARY.md")
        .collect();
    let missing: Vec<_> = listed.difference(&files).collect();
    assert!(
        missing.is_empty(),
        "SUMMARY.md lists missing files: {missing:?}"
    );
    let unlisted: Vec<_> = files.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "chapters not in SUMMARY.md: {unlisted:?}"
    );
    // Plain mdBook: nothing to install, nothing fetched.
    let toml = read("docs/book.toml");
    assert!(
        !toml.contains("[preprocessor"),
        "docs/book.toml needs no preprocessor"
    );
    assert!(
        toml.match_indices("[output.")
            .all(|(i, _)| toml[i..].starts_with("[output.html]")),
        "docs/book.toml needs no renderer but mdBook's HTML"
    );
    assert!(!toml.contains("command ="), "docs/book.toml runs no plugin");
}

#[test]
fn book_keys_table_is_the_default_keymap() {
    let rel = "docs/src/keys.md";
    let page = read(rel);
    let table = markdown_tables(&with_pane_names(KeyMap::defaults()));
    let (Some(a), Some(b)) = (page.find(KEYS_START), page.find(KEYS_END)) else {
        panic!("{rel} lacks the keys markers {KEYS_START:?} … {KEYS_END:?}");
    };
    let current = &page[a + KEYS_START.len()..b];
    if current != table {
        if updating() {
            let updated = format!("{}{}{}", &page[..a + KEYS_START.len()], table, &page[b..]);
            std::fs::write(root().join(rel), updated).expect("write docs/src/keys.md");
        } else {
            panic!(
                "the keys table of {rel} is stale; run UPDATE_BOOK=1 cargo test --test it book::\n{table}"
            );
        }
    }
    for cmd in ["`?`", "`:`", "`/`", "`f`", "`y`", "`q/Ctrl-c`"] {
        assert!(table.contains(cmd), "{cmd} in the keys table");
    }
}

/// Every command's words (`[]` for the root, `["scan", "status"]`…), as clap defines them.
fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, path: &[String], out: &mut Vec<Vec<String>>) {
        out.push(path.to_vec());
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let mut next = path.to_vec();
            next.push(sub.get_name().to_string());
            walk(sub, &next, out);
        }
    }
    let mut out = Vec::new();
    walk(&cantonscope::cli::Cli::command(), &[], &mut out);
    out
}

/// `cantonscope … --help` as the binary prints it, with nothing from the environment: no
/// `[env: …=value]` of a variable set here, no colours, and clap's fixed 100-column wrap.
fn help_of(path: &[String]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cantonscope"))
        .args(path)
        .arg("--help")
        .env_clear()
        .env("COLUMNS", "100")
        .output()
        .expect("run cantonscope --help");
    assert!(
        out.status.success(),
        "cantonscope {} --help: {}",
        path.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// The command-line reference page, from the binary's `--help` of every command.
fn cli_reference() -> String {
    let mut page = String::from(
        "# Command-line reference\n\n\
         Every command's `--help`, as the binary prints it. Generated: a test \
         (`tests/it/book.rs`) fails\nwhen this page and the binary differ, and \
         `UPDATE_BOOK=1 cargo test --test it book::` writes it\nagain. What the commands \
         are for: [Headless commands](headless.md) and the chapters it links.\n",
    );
    for path in command_paths() {
        let words = if path.is_empty() {
            "cantonscope".to_string()
        } else {
            format!("cantonscope {}", path.join(" "))
        };
        let help = help_of(&path);
        assert!(!help.contains("```"), "{words} --help holds a code fence");
        page.push_str(&format!(
            "\n## `{words}`\n\n```text\n{}\n```\n",
            help.trim_end()
        ));
    }
    page
}

#[test]
fn book_cli_reference_is_the_help_of_every_command() {
    let rel = "docs/src/cli.md";
    let page = cli_reference();
    let current = std::fs::read_to_string(root().join(rel)).unwrap_or_default();
    if current != page {
        if updating() {
            std::fs::write(root().join(rel), &page).expect("write docs/src/cli.md");
        } else {
            let first = current
                .lines()
                .zip(page.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(current.lines().count().min(page.lines().count()));
            panic!(
                "{rel} is not the binary's --help (first difference at line {}: {:?}); \
                 run UPDATE_BOOK=1 cargo test --test it book::",
                first + 1,
                page.lines().nth(first)
            );
        }
    }
    for words in [
        "## `cantonscope`",
        "## `cantonscope scan status`",
        "## `cantonscope check`",
    ] {
        assert!(page.contains(words), "{rel} has {words}");
    }
}

#[test]
fn book_shows_a_capture_of_every_pane() {
    let screens = read("docs/src/screens.md");
    for pane in cantonscope::panes::PaneId::ALL {
        let file = format!("assets/screens/{}.txt", pane.title().to_lowercase());
        assert!(
            screens.contains(&format!("{{{{#include ../../{file}}}}}")),
            "docs/src/screens.md shows {file}"
        );
        let text = read(&file);
        assert!(
            text.contains(pane.title()),
            "{file} shows the {} pane",
            pane.title()
        );
    }
}

#[test]
fn book_shows_how_to_pass_the_demo_token_headless() {
    let page = read("docs/src/headless.md");
    for needle in [
        "cantonscope serve-demo --listen 127.0.0.1:7575",
        "\"token\":",
        "CANTONSCOPE_TOKEN=$TOKEN cantonscope --ledger-url $URL ledger end",
        "--token-file demo.jwt",
    ] {
        assert!(
            page.contains(needle),
            "docs/src/headless.md lacks {needle:?}"
        );
    }
}
