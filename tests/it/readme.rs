//! The README documents the real thing: its keys table is the default keymap, and its pane
//! captures are real screens of the explorer. Run with `UPDATE_README=1` to rewrite the table.

use cantonscope::app::with_pane_names;
use cantonscope::config::keymap::KeyMap;
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
