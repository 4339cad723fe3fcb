//! The README documents the real thing: its keys table is the default keymap, and its pane
//! captures are real screens of the explorer. Run with `UPDATE_README=1` to rewrite the table.

use cantonscope::app::with_pane_names;
use cantonscope::config::keymap::KeyMap;
use cantonscope::msg::Tabs;
use cantonscope::ui::help::markdown_tables;

const START: &str = "<!-- keys:start (generated from the keymap; tests/it/readme.rs) -->\n";
const END: &str = "<!-- keys:end -->";

#[test]
fn readme_keys_table_is_the_default_keymap() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).expect("README.md");
    let table = markdown_tables(&with_pane_names(KeyMap::defaults()));
    let (Some(a), Some(b)) = (readme.find(START), readme.find(END)) else {
        panic!("README.md lacks the keys markers {START:?} … {END:?}");
    };
    let current = &readme[a + START.len()..b];
    if current != table {
        if std::env::var_os("UPDATE_README").is_some() {
            let updated = format!("{}{}{}", &readme[..a + START.len()], table, &readme[b..]);
            std::fs::write(path, updated).expect("write README.md");
        } else {
            panic!(
                "README keys table is stale; run UPDATE_README=1 cargo test --test it readme::\n{table}"
            );
        }
    }
    for cmd in ["`?`", "`:`", "`/`", "`f`", "`y`", "`q/Ctrl-c`"] {
        assert!(table.contains(cmd), "{cmd} in the keys table");
    }
}

#[test]
fn readme_shows_a_capture_of_every_pane() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    for pane in cantonscope::panes::PaneId::ALL {
        let file = format!("assets/screens/{}.txt", pane.title().to_lowercase());
        assert!(readme.contains(&file), "README links {file}");
        let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{path} exists"));
        assert!(
            text.contains(pane.title()),
            "{file} shows the {} pane",
            pane.title()
        );
    }
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
fn readme_shows_how_to_pass_the_demo_token_headless() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    for needle in [
        "cantonscope serve-demo --listen 127.0.0.1:7575",
        "\"token\":",
        "CANTONSCOPE_TOKEN=$TOKEN cantonscope --ledger-url $URL ledger end",
        "--token-file demo.jwt",
    ] {
        assert!(readme.contains(needle), "README lacks {needle:?}");
    }
}
