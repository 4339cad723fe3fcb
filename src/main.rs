//! The `cantonscope` binary (dispatch being wired).
fn main() {}
