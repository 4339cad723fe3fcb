//! API payloads shared by several tests, kept as JSON files in `tests/fixtures/`.

use std::path::Path;

/// The text of `tests/fixtures/<name>`.
pub fn fixture_text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `tests/fixtures/<name>`, parsed.
pub fn fixture(name: &str) -> serde_json::Value {
    serde_json::from_str(&fixture_text(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}
