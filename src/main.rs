//! The `cantonscope` binary: parse the command line, load the settings, set up file logging, and
//! dispatch to the library (explorer, demo network, headless API commands). No logic lives here.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use cantonscope::cli::{Cli, Command, IndexCommand, OutputFormat, ScanCommand};
use cantonscope::config::{self, Settings};
use cantonscope::demo::{DemoConfig, DemoHandle};
use cantonscope::headless::{self, ApiCommand, EXIT_USAGE, table};

/// mimalloc instead of glibc's malloc: an index sync allocates and frees many short strings and
/// buffers per update on several threads (decode, summary, keys), where glibc's malloc and free
/// were about 11% of the sync's CPU profile.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Usage errors exit with 2 (clap's default); --help and --version exit with 0.
    let mut cli = Cli::parse();
    // Generated from the command line's definition: no settings needed.
    let generated = match &cli.command {
        Some(Command::Completions { shell }) => Some(cantonscope::cli::completions(*shell)),
        Some(Command::Man) => Some(cantonscope::cli::man_page()),
        _ => None,
    };
    if let Some(text) = generated {
        // A reader that stops early (`| head`) is no failure.
        return match std::io::stdout().lock().write_all(&text) {
            Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
                fail(&format!("cantonscope: {error}"), 1)
            }
            _ => ExitCode::SUCCESS,
        };
    }
    let mut settings = match config::load(&cli.overrides()) {
        Ok(settings) => settings,
        Err(error) => return fail(&format!("cantonscope: {error}"), EXIT_USAGE),
    };
    let tui = cli.tui_args();
    settings.offline = tui.offline;
    if let Some(index) = tui.index {
        settings.index = Some(index);
    }
    // An update id given abbreviated is completed from the local index before any scan is asked.
    if let Some(command) = cli.command.as_mut()
        && let Err(error) = headless::ids::resolve_command_ids(command, &settings)
    {
        return fail(&format!("cantonscope: {error}"), EXIT_USAGE);
    }
    if let Err(error) = config::init_logging(&settings) {
        return fail(&format!("cantonscope: {error}"), EXIT_USAGE);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("cantonscope")
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail(&format!("cantonscope: cannot start: {error}"), 1),
    };
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "start");
    let table = cli.command.as_ref().and_then(|command| {
        use std::io::IsTerminal;
        let wanted = cli
            .global
            .output
            .unwrap_or(if std::io::stdout().is_terminal() {
                OutputFormat::Table
            } else {
                OutputFormat::Json
            });
        match wanted {
            OutputFormat::Table => table::view_for(command),
            OutputFormat::Csv => table::csv_for(command),
            _ => None,
        }
    });
    // (`index rounds` writes its csv itself.)
    let rounds = matches!(&cli.command, Some(Command::Index(a)) if matches!(a.command, IndexCommand::Rounds { .. } | IndexCommand::Validators { .. }));
    if cli.global.output == Some(OutputFormat::Csv) && table.is_none() && !rounds {
        return fail(
            "cantonscope: --output csv is for `index stats`, `index rounds` and `index validators` only",
            EXIT_USAGE,
        );
    }

    match &cli.command {
        None => run_tui(&runtime, settings, None, None),
        Some(Command::Open(args)) => run_tui(&runtime, settings, None, Some(args.locator.clone())),
        Some(Command::Demo(args)) => {
            let demo = DemoConfig {
                seed: args.seed,
                rate: args.rate,
                faults: args.faults.faults(args.scans, true),
                stagger: false,
                ..DemoConfig::default()
            }
            .with_total_scans(args.scans);
            run_demo_tui(&runtime, settings, demo)
        }
        Some(Command::ServeDemo(args)) => {
            let demo = DemoConfig {
                listen: args.listen,
                seed: args.seed,
                rate: args.rate,
                basic_auth: args.basic_auth.clone(),
                faults: args.faults.faults(args.scans, false),
                stagger: !args.no_stagger,
                ..DemoConfig::default()
            }
            .with_total_scans(args.scans);
            match runtime.block_on(cantonscope::demo::serve_forever(demo)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => fail(&format!("cantonscope: serve-demo: {error}"), 1),
            }
        }
        Some(Command::Scan(command)) => output_with(
            table,
            |out| headless(&runtime, ApiCommand::Scan(command), &settings, out),
            || {
                if matches!(command, ScanCommand::Status) {
                    runtime.block_on(headless::status_table_fields(&settings))
                } else {
                    serde_json::Map::new()
                }
            },
        ),
        Some(Command::Validator(command)) => output(table, |out| {
            headless(&runtime, ApiCommand::Validator(command), &settings, out)
        }),
        Some(Command::Ledger(command)) => output(table, |out| {
            headless(&runtime, ApiCommand::Ledger(command), &settings, out)
        }),
        Some(Command::Check(args)) => {
            use std::io::IsTerminal;
            let format = match cli.global.output {
                Some(OutputFormat::Prometheus) => headless::check::CheckOutput::Prometheus,
                // (csv is refused above)
                Some(OutputFormat::Json | OutputFormat::Csv) => headless::check::CheckOutput::Json,
                Some(OutputFormat::Table) => headless::check::CheckOutput::Table,
                None if std::io::stdout().is_terminal() => headless::check::CheckOutput::Table,
                None => headless::check::CheckOutput::Json,
            };
            let mut err = std::io::stderr().lock();
            let mut out = std::io::stdout().lock();
            exit_code(runtime.block_on(headless::check::run(
                args, &settings, format, &mut out, &mut err,
            )))
        }
        _ if cli.global.output == Some(OutputFormat::Prometheus) => fail(
            "cantonscope: --output prometheus is for `check` only",
            EXIT_USAGE,
        ),
        Some(Command::Index(args))
            if cli.global.output == Some(OutputFormat::Csv)
                && matches!(
                    args.command,
                    IndexCommand::Rounds { .. } | IndexCommand::Validators { .. }
                ) =>
        {
            let view = if matches!(args.command, IndexCommand::Rounds { .. }) {
                table::INDEX_ROUNDS
            } else {
                headless::index::INDEX_VALIDATORS
            };
            output_csv(&view, |out| {
                let mut err = std::io::stderr().lock();
                runtime.block_on(headless::index::run(args, &settings, out, &mut err))
            })
        }
        Some(Command::Governance(command)) => output(table, |out| {
            let mut err = std::io::stderr().lock();
            runtime.block_on(headless::governance::run(command, &settings, out, &mut err))
        }),
        Some(Command::Network(args)) => output(table, |out| {
            let mut err = std::io::stderr().lock();
            runtime.block_on(headless::network::run(args, &settings, out, &mut err))
        }),
        Some(Command::Node(args)) => output(table, |out| {
            let mut err = std::io::stderr().lock();
            runtime.block_on(headless::node::run(args, &settings, out, &mut err))
        }),
        Some(Command::Index(args)) => output(table, |out| {
            let mut err = std::io::stderr().lock();
            runtime.block_on(headless::index::run(args, &settings, out, &mut err))
        }),
        Some(Command::Completions { .. } | Command::Man) => ExitCode::SUCCESS,
    }
}

/// The explorer, on the configured nodes or (with `demo`) on the in-process demo network, whose
/// handle must stay alive while the explorer runs.
fn run_tui(
    runtime: &tokio::runtime::Runtime,
    settings: Settings,
    demo: Option<DemoHandle>,
    open: Option<cantonscope::model::locator::Locator>,
) -> ExitCode {
    if let Some(refusal) = cantonscope::runtime::offline_refusal(&settings) {
        if let Some(handle) = demo {
            runtime.block_on(handle.shutdown());
        }
        return fail(&format!("cantonscope: {refusal}"), EXIT_USAGE);
    }
    if demo.is_none() && !settings.offline && settings.has_no_nodes() {
        return no_nodes(runtime, settings);
    }
    {
        use std::io::IsTerminal;
        if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
            return fail(
                "cantonscope: the explorer needs a terminal (stdin and stdout must be a TTY); \
                 in scripts use the headless commands (cantonscope scan|validator|ledger|network ...)",
                EXIT_USAGE,
            );
        }
    }
    // What the settings name but cannot be used (a theme, a key binding) is a configuration
    // error, found before the terminal is taken.
    let built = {
        let _context = runtime.enter();
        cantonscope::runtime::build(&settings, chrono::Utc::now().timestamp_micros())
    };
    let (mut app, clients) = match built {
        Ok(built) => built,
        Err(error) => {
            if let Some(handle) = demo {
                runtime.block_on(handle.shutdown());
            }
            return fail(&format!("cantonscope: {error}"), EXIT_USAGE);
        }
    };
    app.open_at = open;
    let result = runtime
        .block_on(cantonscope::runtime::run(
            app,
            clients,
            settings.config_dir(),
        ))
        .map_err(|e| format!("terminal error: {e}"));
    if let Some(handle) = demo {
        runtime.block_on(handle.shutdown());
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(&format!("cantonscope: {error}"), 1),
    }
}

/// No node configured: say how to configure one, and offer the demo network.
fn no_nodes(runtime: &tokio::runtime::Runtime, settings: Settings) -> ExitCode {
    use std::io::IsTerminal;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "cantonscope: no node configured.\n\
         Configure one with a profile in config.toml (see assets/config.example.toml), with\n\
         --scan-url/--validator-url/--ledger-url, or CANTONSCOPE_SCAN_URL and friends.\n\
         To try the built-in demo network: cantonscope demo"
    );
    if settings.profile.is_none() && !settings.profiles.is_empty() {
        let _ = writeln!(
            err,
            "The config file has profiles ({}) but none is selected: pass --profile NAME or set \
             default_profile.",
            settings.profiles.join(", ")
        );
    }
    if !std::io::stdin().is_terminal() {
        return exit_code(EXIT_USAGE);
    }
    let _ = write!(err, "Start the demo network now? [Y/n] ");
    let _ = err.flush();
    drop(err);
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err()
        || !matches!(answer.trim(), "" | "y" | "Y" | "yes")
    {
        return exit_code(EXIT_USAGE);
    }
    let demo = DemoConfig {
        rate: 1.0,
        ..DemoConfig::default()
    };
    run_demo_tui(runtime, settings, demo)
}

/// Starts the demo network `demo`, points the settings at it and runs the explorer on it.
fn run_demo_tui(
    runtime: &tokio::runtime::Runtime,
    mut settings: Settings,
    demo: DemoConfig,
) -> ExitCode {
    let handle = match runtime.block_on(cantonscope::demo::start(demo)) {
        Ok(handle) => handle,
        Err(error) => return fail(&format!("cantonscope: cannot start the demo: {error}"), 1),
    };
    if let Err(error) = settings.use_demo(
        &handle.scan_urls,
        &handle.validator_url,
        &handle.ledger_url,
        &handle.token,
    ) {
        return fail(&format!("cantonscope: {error}"), 1);
    }
    if let Err(error) = settings.use_demo_metrics(&handle.metrics_urls) {
        return fail(&format!("cantonscope: {error}"), 1);
    }
    run_tui(runtime, settings, Some(handle), None)
}

fn headless(
    runtime: &tokio::runtime::Runtime,
    command: ApiCommand<'_>,
    settings: &Settings,
    out: &mut dyn Write,
) -> i32 {
    let mut err = std::io::stderr().lock();
    runtime.block_on(headless::run(command, settings, out, &mut err))
}

/// Runs a headless command with stdout as asked: the JSON as the command writes it, or (with a
/// table view) that JSON read as a table once the command is done.
fn output(table: Option<table::View>, run: impl FnOnce(&mut dyn Write) -> i32) -> ExitCode {
    output_with(table, run, serde_json::Map::new)
}

/// [`output`], where the table (only) shows the fields `extra` measures after the command
/// succeeded besides those of its JSON (`scan status`: the verdict ingestion lag).
fn output_with(
    table: Option<table::View>,
    run: impl FnOnce(&mut dyn Write) -> i32,
    extra: impl FnOnce() -> serde_json::Map<String, serde_json::Value>,
) -> ExitCode {
    let Some(view) = table else {
        return exit_code(run(&mut std::io::stdout().lock()));
    };
    let mut json = Vec::new();
    let code = run(&mut json);
    let json = String::from_utf8_lossy(&json);
    let extra = if code == 0 {
        extra()
    } else {
        serde_json::Map::new()
    };
    let text = table::render_with(&view, &json, extra);
    // A reader that stops early (`| head`) is no failure.
    let _ = std::io::stdout()
        .lock()
        .write_all(text.as_deref().unwrap_or(&json).as_bytes());
    exit_code(code)
}

/// A command's JSON as CSV ([`table::render_csv`]; the JSON itself when it is not of that
/// shape: an error's).
fn output_csv(view: &table::View, run: impl FnOnce(&mut dyn Write) -> i32) -> ExitCode {
    let mut json = Vec::new();
    let code = run(&mut json);
    let json = String::from_utf8_lossy(&json);
    let text = table::render_csv(view, &json);
    let _ = std::io::stdout()
        .lock()
        .write_all(text.as_deref().unwrap_or(&json).as_bytes());
    exit_code(code)
}

fn fail(message: &str, code: i32) -> ExitCode {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{message}");
    exit_code(code)
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
