//! Command-line definitions (clap).
