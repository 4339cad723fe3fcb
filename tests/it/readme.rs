//! The README is the short way in: what cantonscope is, a real screen of it, the two commands
//! (the test command is the one `.ci/run` runs), a quick start for an SV and the way to the book
//! (`docs/`, checked by `tests/it/book.rs`, links included). Its capture is
//! `assets/screens/status.txt`; `UPDATE_BOOK=1 cargo test --test it readme::` copies it in again.

const CAPTURE: &str = "assets/screens/status.txt";
const CAPTURE_START: &str =
    "<!-- capture:start assets/screens/status.txt (tests/it/readme.rs) -->\n```text\n";
const CAPTURE_END: &str = "```\n<!-- capture:end -->";

fn read(rel: &str) -> String {
    std::fs::read_to_string(format!("{}/{rel}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn readme_links_stay_inside_the_repository() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let mut links = 0;
    for (i, _) in readme.match_indices("](") {
        let rest = &readme[i + 2..];
        let target = &rest[..rest.find(')').expect("a closed link")];
        links += 1;
        assert!(
            !target.contains("://") && !target.starts_with('/') && !target.contains(".."),
            "README links outside the repository: {target}"
        );
        let path = target.split('#').next().unwrap_or_default();
        assert!(
            path.is_empty() || root.join(path).exists(),
            "README links to a missing file: {target}"
        );
    }
    assert!(links > 0, "the README has in-repository links");
    // No reference to notes outside the repository, linked or not.
    assert!(!readme.contains("../shared") && !readme.contains("STYLE.md"));
}

#[test]
fn readme_states_the_two_commands_ci_runs() {
    let readme = read("README.md");
    let ci = read(".ci/run");
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test --locked"),
        ".ci/run runs cargo test --locked"
    );
    for command in ["cargo run --release -- demo", "cargo test --locked"] {
        assert!(
            readme.lines().any(|l| l.starts_with(command)),
            "the README states {command:?}"
        );
    }
}

#[test]
fn readme_is_short_and_its_quick_start_shorter() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md is {lines} lines; the book holds the rest"
    );
    let start = readme
        .find("\n## SV quick start\n")
        .expect("an SV quick start");
    let body = &readme[start + 1..];
    let body = &body[..body[3..].find("\n## ").map_or(body.len(), |e| e + 3)];
    // Its lines after the heading, blank ones included, up to the next heading.
    let quick = body.trim_end().lines().count() - 1;
    assert!(quick <= 30, "the SV quick start is {quick} lines");
    for needle in [
        "`?`",
        "`b`",
        "`S`",
        "`F`",
        "`W`",
        "governance needs-vote",
        "check",
    ] {
        assert!(body.contains(needle), "the quick start names {needle}");
    }
}

#[test]
fn readme_shows_a_capture_of_the_explorer() {
    let readme = read("README.md");
    let capture = read(CAPTURE);
    let (Some(a), Some(b)) = (readme.find(CAPTURE_START), readme.find(CAPTURE_END)) else {
        panic!("README.md lacks the capture markers {CAPTURE_START:?} … {CAPTURE_END:?}");
    };
    if readme[a + CAPTURE_START.len()..b] != capture {
        if std::env::var_os("UPDATE_BOOK").is_some() {
            let updated = format!(
                "{}{capture}{}",
                &readme[..a + CAPTURE_START.len()],
                &readme[b..]
            );
            std::fs::write(format!("{}/README.md", env!("CARGO_MANIFEST_DIR")), updated)
                .expect("write README.md");
        } else {
            panic!(
                "the README's capture is not {CAPTURE}; run UPDATE_BOOK=1 cargo test --test it readme::"
            );
        }
    }
    assert!(
        capture.contains("Status"),
        "{CAPTURE} shows the Status pane"
    );
}

#[test]
fn readme_quick_start_keys_are_the_default_keymap() {
    use cantonscope::app::with_pane_names;
    use cantonscope::config::keymap::KeyMap;
    use cantonscope::ui::help::markdown_tables;
    // The keys the quick start names do what it says they do.
    let table = markdown_tables(&with_pane_names(KeyMap::defaults()));
    for row in [
        "| `?` | show the keys",
        "| `b` | check on every scan",
        "| `S` | compare the history of every scan",
        "| `F` | search the whole local index",
        "| `W` | copy this view's locator",
        "| `0` | go to Governance",
        "| `7` | go to Network",
    ] {
        assert!(table.contains(row), "the keymap has {row:?}");
    }
}
