//! Config layering (defaults ← file ← env ← flags), file errors with file and line, profiles,
//! durations, token-source precedence, config lookup, and the shipped example file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use cantonscope::api::{Secret, TokenSource};
use cantonscope::config::{
    self, ConfigError, Env, HistoryStart, LoadedFile, Origin, Overrides, Settings, TimeZone,
    parse_duration, resolve,
};

const FILE: &str = r#"
default_profile = "main"
log_level = "debug"

[profiles.main]
scan_url = "https://scan.file.example.com/"
scan_urls = ["https://scan2.file.example.com", "https://scan.file.example.com"]
validator_url = "https://validator.file.example.com"
ledger_url = "https://ledger.file.example.com"
token_file = "main.jwt"
refresh = "5s"
theme = "light"
time_zone = "local"
from = "begin"
read_only = true

[profiles.other]
scan_url = "https://scan.other.example.com"
token_command = "print-token"

[keys]
quit = "q"
"#;

fn file(text: &str) -> LoadedFile {
    LoadedFile {
        path: PathBuf::from("/etc/cs/config.toml"),
        text: text.to_owned(),
    }
}

fn env(pairs: &[(&str, &str)]) -> Env {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

fn url(text: &str) -> config::BaseUrl {
    text.parse().expect("valid URL")
}

fn scan(settings: &Settings) -> Option<&str> {
    settings.scan_url.as_ref().map(config::BaseUrl::as_str)
}

#[test]
fn defaults_without_file_env_or_flags() {
    let settings = resolve(None, &Env::new(), &Overrides::default()).expect("resolves");
    assert_eq!(settings, Settings::default());
    assert_eq!(settings.refresh, Duration::from_secs(2));
    assert_eq!(settings.theme, "dark");
    assert_eq!(settings.time_zone, TimeZone::Utc);
    assert_eq!(settings.from, HistoryStart::Recent);
    assert_eq!(settings.token, None);
    assert!(settings.has_no_nodes());
    assert!(!settings.read_only);
}

#[test]
fn file_values_fill_the_profile() {
    let settings = resolve(Some(&file(FILE)), &Env::new(), &Overrides::default()).expect("ok");
    assert_eq!(settings.profile.as_deref(), Some("main"));
    assert_eq!(settings.profiles, ["main", "other"]);
    assert_eq!(scan(&settings), Some("https://scan.file.example.com"));
    // the primary is not repeated among the extra scans
    assert_eq!(
        settings.extra_scan_urls,
        [url("https://scan2.file.example.com")]
    );
    assert_eq!(settings.scan_urls().len(), 2);
    assert_eq!(settings.refresh, Duration::from_secs(5));
    assert_eq!(settings.theme, "light");
    assert_eq!(settings.time_zone, TimeZone::Local);
    assert_eq!(settings.from, HistoryStart::Begin);
    assert!(settings.read_only);
    assert_eq!(settings.log_level, "debug");
    assert_eq!(settings.keys["quit"].as_slice(), ["q".to_owned()]);
    // relative paths are relative to the config file's directory
    assert_eq!(
        settings.token,
        Some(TokenSource::File(PathBuf::from("/etc/cs/main.jwt")))
    );
    assert_eq!(settings.token_origin, Origin::File);
}

/// One row: which layers are present and which URL wins.
struct Row {
    name: &'static str,
    file: bool,
    env: Option<&'static str>,
    flag: Option<&'static str>,
    want: Option<&'static str>,
}

#[test]
fn url_layering_table() {
    let rows = [
        Row {
            name: "nothing",
            file: false,
            env: None,
            flag: None,
            want: None,
        },
        Row {
            name: "file",
            file: true,
            env: None,
            flag: None,
            want: Some("https://scan.file.example.com"),
        },
        Row {
            name: "env over default",
            file: false,
            env: Some("http://env:1"),
            flag: None,
            want: Some("http://env:1"),
        },
        Row {
            name: "env over file",
            file: true,
            env: Some("http://env:1"),
            flag: None,
            want: Some("http://env:1"),
        },
        Row {
            name: "flag over env",
            file: false,
            env: Some("http://env:1"),
            flag: Some("http://flag:2"),
            want: Some("http://flag:2"),
        },
        Row {
            name: "flag over file and env",
            file: true,
            env: Some("http://env:1"),
            flag: Some("http://flag:2"),
            want: Some("http://flag:2"),
        },
        Row {
            name: "flag over file",
            file: true,
            env: None,
            flag: Some("http://flag:2"),
            want: Some("http://flag:2"),
        },
        Row {
            name: "empty env is unset",
            file: true,
            env: Some(""),
            flag: None,
            want: Some("https://scan.file.example.com"),
        },
    ];
    for row in rows {
        let loaded = file(FILE);
        let env = row.env.map_or_else(Env::new, |value| {
            env(&[
                ("CANTONSCOPE_SCAN_URL", value),
                ("CANTONSCOPE_VALIDATOR_URL", value),
                ("CANTONSCOPE_LEDGER_URL", value),
            ])
        });
        let flags = Overrides {
            scan_url: row.flag.map(url),
            validator_url: row.flag.map(url),
            ledger_url: row.flag.map(url),
            ..Overrides::default()
        };
        let settings = resolve(row.file.then_some(&loaded), &env, &flags).expect(row.name);
        assert_eq!(scan(&settings), row.want, "scan_url: {}", row.name);
        let want_validator = row.want.map(|want| want.replace("scan.", "validator."));
        assert_eq!(
            settings
                .validator_url
                .as_ref()
                .map(|u| u.as_str().to_owned()),
            want_validator,
            "validator_url: {}",
            row.name
        );
        let want_ledger = row.want.map(|want| want.replace("scan.", "ledger."));
        assert_eq!(
            settings.ledger_url.as_ref().map(|u| u.as_str().to_owned()),
            want_ledger,
            "ledger_url: {}",
            row.name
        );
    }
}

#[test]
fn other_keys_layering_table() {
    // (name, file?, flags, refresh, theme, from, read_only)
    let flags_all = Overrides {
        refresh: Some(Duration::from_millis(500)),
        theme: Some("mono".to_owned()),
        from: Some(HistoryStart::Now),
        read_only: true,
        ..Overrides::default()
    };
    let rows: [(&str, bool, Overrides, Duration, &str, HistoryStart, bool); 4] = [
        (
            "defaults",
            false,
            Overrides::default(),
            Duration::from_secs(2),
            "dark",
            HistoryStart::Recent,
            false,
        ),
        (
            "file",
            true,
            Overrides::default(),
            Duration::from_secs(5),
            "light",
            HistoryStart::Begin,
            true,
        ),
        (
            "flags over defaults",
            false,
            flags_all.clone(),
            Duration::from_millis(500),
            "mono",
            HistoryStart::Now,
            true,
        ),
        (
            "flags over file",
            true,
            flags_all,
            Duration::from_millis(500),
            "mono",
            HistoryStart::Now,
            true,
        ),
    ];
    for (name, with_file, flags, refresh, theme, from, read_only) in rows {
        let loaded = file(FILE);
        let settings = resolve(with_file.then_some(&loaded), &Env::new(), &flags).expect(name);
        assert_eq!(settings.refresh, refresh, "{name}");
        assert_eq!(settings.theme, theme, "{name}");
        assert_eq!(settings.from, from, "{name}");
        assert_eq!(settings.read_only, read_only, "{name}");
    }
}

#[test]
fn no_color_only_when_no_theme_is_chosen() {
    let no_color = env(&[("NO_COLOR", "1")]);
    let settings = resolve(None, &no_color, &Overrides::default()).expect("ok");
    assert_eq!(settings.theme, "mono");
    // the file names a theme: it wins over NO_COLOR
    let settings = resolve(Some(&file(FILE)), &no_color, &Overrides::default()).expect("ok");
    assert_eq!(settings.theme, "light");
    // a flag wins too
    let flags = Overrides {
        theme: Some("high-contrast".to_owned()),
        ..Overrides::default()
    };
    let settings = resolve(None, &no_color, &flags).expect("ok");
    assert_eq!(settings.theme, "high-contrast");
}

#[test]
fn token_source_precedence() {
    let token_env = env(&[("CANTONSCOPE_TOKEN", "eyJ.secret.sig\n")]);
    let flag = Overrides {
        token_file: Some(PathBuf::from("flag.jwt")),
        ..Overrides::default()
    };
    // file only: token_file of the profile
    let settings = resolve(Some(&file(FILE)), &Env::new(), &Overrides::default()).expect("ok");
    assert_eq!(
        settings.token,
        Some(TokenSource::File("/etc/cs/main.jwt".into()))
    );
    // token_command of another profile
    let other = Overrides {
        profile: Some("other".to_owned()),
        ..Overrides::default()
    };
    let settings = resolve(Some(&file(FILE)), &Env::new(), &other).expect("ok");
    assert_eq!(
        settings.token,
        Some(TokenSource::Command("print-token".to_owned()))
    );
    // env over file (value trimmed)
    let settings = resolve(Some(&file(FILE)), &token_env, &Overrides::default()).expect("ok");
    assert_eq!(
        settings.token,
        Some(TokenSource::Literal(Secret::new("eyJ.secret.sig")))
    );
    assert_eq!(settings.token_origin, Origin::Env);
    // flag over env and file
    let settings = resolve(Some(&file(FILE)), &token_env, &flag).expect("ok");
    assert_eq!(settings.token, Some(TokenSource::File("flag.jwt".into())));
    assert_eq!(settings.token_origin, Origin::Flag);
    // the token never shows in Debug output
    let settings = resolve(None, &token_env, &Overrides::default()).expect("ok");
    let debug = format!("{settings:?}");
    assert!(!debug.contains("secret"), "{debug}");
    // both token keys in one profile is an error
    let both = "[profiles.p]\ntoken_file = \"a\"\ntoken_command = \"b\"\n";
    let err = resolve(Some(&file(both)), &Env::new(), &Overrides::default()).expect_err("both");
    assert!(
        err.to_string()
            .contains("only one of token_file and token_command"),
        "{err}"
    );
    assert!(
        err.to_string().starts_with("/etc/cs/config.toml:3:"),
        "{err}"
    );
}

#[test]
fn unknown_key_names_file_and_line() {
    let text =
        "default_profile = \"a\"\n\n[profiles.a]\nscan_url = \"http://x\"\nrefrsh = \"2s\"\n";
    let err = resolve(Some(&file(text)), &Env::new(), &Overrides::default()).expect_err("typo");
    let ConfigError::Parse {
        path,
        line,
        message,
        ..
    } = &err
    else {
        panic!("expected a parse error, got {err:?}");
    };
    assert_eq!(path, Path::new("/etc/cs/config.toml"));
    assert_eq!(*line, 5, "{err}");
    assert!(message.contains("refrsh"), "{message}");
    let shown = err.to_string();
    assert!(shown.starts_with("/etc/cs/config.toml:5:"), "{shown}");

    // unknown top-level key
    let err = resolve(
        Some(&file("\n\nthme = \"x\"\n")),
        &Env::new(),
        &Overrides::default(),
    )
    .expect_err("typo");
    assert!(
        err.to_string().starts_with("/etc/cs/config.toml:3:"),
        "{err}"
    );
}

#[test]
fn bad_values_name_file_and_line() {
    let rows = [
        ("[profiles.a]\nrefresh = \"2 parsecs\"\n", 2, "parsecs"),
        (
            "[profiles.a]\n\nscan_url = \"scan.example.com\"\n",
            3,
            "http",
        ),
        ("[profiles.a]\ntime_zone = \"mars\"\n", 2, "mars"),
        ("[profiles.a]\nfrom = \"yesterday\"\n", 2, "yesterday"),
        ("[profiles.a]\nread_only = \"yes\"\n", 2, ""),
        ("default_profile = [\n", 1, ""),
    ];
    for (text, want_line, needle) in rows {
        let err = resolve(Some(&file(text)), &Env::new(), &Overrides::default()).expect_err(text);
        let ConfigError::Parse { line, message, .. } = &err else {
            panic!("expected a parse error for {text:?}, got {err:?}");
        };
        assert_eq!(*line, want_line, "{text:?}: {err}");
        assert!(message.contains(needle), "{text:?}: {message}");
    }
}

#[test]
fn invalid_env_and_flag_values() {
    let err = resolve(
        None,
        &env(&[("CANTONSCOPE_LEDGER_URL", "ledger:7575")]),
        &Overrides::default(),
    )
    .expect_err("bad env URL");
    assert!(
        err.to_string().starts_with("$CANTONSCOPE_LEDGER_URL:"),
        "{err}"
    );
    let flags = Overrides {
        refresh: Some(Duration::from_millis(10)),
        ..Overrides::default()
    };
    let err = resolve(None, &Env::new(), &flags).expect_err("too fast");
    assert!(err.to_string().contains("--refresh"), "{err}");
    let err = resolve(
        Some(&file("log_level = \"loud\"\n")),
        &Env::new(),
        &Overrides::default(),
    )
    .expect_err("bad level");
    assert!(err.to_string().contains("log_level"), "{err}");
    let err = resolve(
        Some(&file("[profiles.a]\n\nrefresh = \"10ms\"\n")),
        &Env::new(),
        &Overrides::default(),
    )
    .expect_err("too fast in the file");
    assert!(
        err.to_string().starts_with("/etc/cs/config.toml:3:"),
        "{err}"
    );
    assert!(err.to_string().contains("too short"), "{err}");
}

#[test]
fn unknown_profile_lists_the_available_ones() {
    let flags = Overrides {
        profile: Some("mainet".to_owned()),
        ..Overrides::default()
    };
    let err = resolve(Some(&file(FILE)), &Env::new(), &flags).expect_err("unknown");
    let shown = err.to_string();
    assert!(shown.contains("\"mainet\""), "{shown}");
    assert!(shown.contains("available profiles: main, other"), "{shown}");

    let err = resolve(
        Some(&file("default_profile = \"gone\"\n[profiles.here]\n")),
        &Env::new(),
        &Overrides::default(),
    )
    .expect_err("unknown default");
    assert!(err.to_string().contains("default_profile"), "{err}");
    assert!(err.to_string().contains("here"), "{err}");

    // --profile without any config file
    let err = resolve(None, &Env::new(), &flags).expect_err("no file");
    assert!(err.to_string().contains("no config file"), "{err}");
}

#[test]
fn profile_selection_without_default_profile() {
    let one = "[profiles.only]\nscan_url = \"http://only\"\n";
    let settings = resolve(Some(&file(one)), &Env::new(), &Overrides::default()).expect("ok");
    assert_eq!(settings.profile.as_deref(), Some("only"));
    let two =
        "[profiles.a]\nscan_url = \"http://a\"\n[profiles.default]\nscan_url = \"http://d\"\n";
    let settings = resolve(Some(&file(two)), &Env::new(), &Overrides::default()).expect("ok");
    assert_eq!(scan(&settings), Some("http://d"));
    let two = "[profiles.a]\nscan_url = \"http://a\"\n[profiles.b]\nscan_url = \"http://b\"\n";
    let settings = resolve(Some(&file(two)), &Env::new(), &Overrides::default()).expect("ok");
    assert_eq!(settings.profile, None);
    assert!(settings.has_no_nodes());
}

#[test]
fn durations() {
    let rows = [
        ("2s", Some(2_000u64)),
        ("500ms", Some(500)),
        ("1m", Some(60_000)),
        ("1m30s", Some(90_000)),
        ("1h", Some(3_600_000)),
        ("0.25s", Some(250)),
        ("10", None),
        ("ms", None),
        ("1 fortnight", None),
        ("-1s", None),
        ("", None),
    ];
    for (text, want) in rows {
        let got = parse_duration(text).ok().map(|d| d.as_millis());
        assert_eq!(got, want.map(u128::from), "{text:?}");
    }
}

#[test]
fn config_lookup_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let xdg = dir.path().join("xdg");
    let flag_file = dir.path().join("flag.toml");
    let env_file = dir.path().join("env.toml");
    std::fs::create_dir_all(xdg.join("cantonscope")).expect("mkdir");
    std::fs::write(&flag_file, "[profiles.flag]\nscan_url = \"http://flag\"\n").expect("write");
    std::fs::write(&env_file, "[profiles.env]\nscan_url = \"http://env\"\n").expect("write");
    std::fs::write(
        xdg.join("cantonscope/config.toml"),
        "[profiles.xdg]\nscan_url = \"http://xdg\"\n",
    )
    .expect("write");
    let xdg_text = xdg.to_str().expect("utf-8 temp path");
    let env_text = env_file.to_str().expect("utf-8 temp path");

    let full = env(&[
        ("XDG_CONFIG_HOME", xdg_text),
        ("CANTONSCOPE_CONFIG", env_text),
    ]);
    let with_flag = Overrides {
        config: Some(flag_file.clone()),
        ..Overrides::default()
    };
    let settings = config::load_with_env(&with_flag, &full).expect("flag file");
    assert_eq!(scan(&settings), Some("http://flag"));
    assert_eq!(settings.config_path.as_deref(), Some(flag_file.as_path()));
    let settings = config::load_with_env(&Overrides::default(), &full).expect("env file");
    assert_eq!(scan(&settings), Some("http://env"));
    let xdg_only = env(&[("XDG_CONFIG_HOME", xdg_text)]);
    let settings = config::load_with_env(&Overrides::default(), &xdg_only).expect("xdg file");
    assert_eq!(scan(&settings), Some("http://xdg"));

    // a missing file found by the default lookup is not an error
    let empty_xdg = env(&[(
        "XDG_CONFIG_HOME",
        dir.path().join("none").to_str().expect("utf-8"),
    )]);
    let settings = config::load_with_env(&Overrides::default(), &empty_xdg).expect("defaults");
    assert_eq!(settings.config_path, None);
    // ... but a missing file named explicitly is
    let missing = Overrides {
        config: Some(dir.path().join("missing.toml")),
        ..Overrides::default()
    };
    let err = config::load_with_env(&missing, &empty_xdg).expect_err("missing");
    assert!(matches!(err, ConfigError::Read { .. }), "{err:?}");
    let missing_env = env(&[(
        "CANTONSCOPE_CONFIG",
        dir.path().join("missing.toml").to_str().expect("utf-8"),
    )]);
    assert!(config::load_with_env(&Overrides::default(), &missing_env).is_err());
}

#[test]
fn example_file_parses_and_resolves() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/config.example.toml");
    let text = std::fs::read_to_string(&path).expect("example file");
    let loaded = LoadedFile {
        path: path.clone(),
        text,
    };
    let settings = resolve(Some(&loaded), &Env::new(), &Overrides::default()).expect("example");
    assert_eq!(settings.profile.as_deref(), Some("demo"));
    assert_eq!(scan(&settings), Some("http://127.0.0.1:7575"));
    let sv = Overrides {
        profile: Some("mainnet-sv".to_owned()),
        ..Overrides::default()
    };
    let settings = resolve(Some(&loaded), &Env::new(), &sv).expect("sv profile");
    assert_eq!(scan(&settings), Some("https://scan.sv.example.com"));
    assert_eq!(settings.extra_scan_urls.len(), 2);
    assert!(settings.read_only);
    assert!(matches!(settings.token, Some(TokenSource::Command(_))));
    // the example's [keys] table is valid for the keymap
    assert_eq!(settings.keys.len(), 2);
    cantonscope::config::keymap::KeyMap::from_config(&settings.keys).expect("valid keys");
}

#[test]
fn bad_key_bindings_are_load_errors_with_the_line() {
    let rows = [
        ("[keys]\nquit = \"q\"\njump = \"j\"\n", 3, "jump"),
        (
            "[keys]\nquit = \"q\"\n\nhelp = \"ctrl-nosuchkey\"\n",
            4,
            "nosuchkey",
        ),
        ("[keys]\n\"nowhere.quit\" = \"q\"\n", 2, "nowhere"),
    ];
    for (text, want_line, needle) in rows {
        let err = resolve(Some(&file(text)), &Env::new(), &Overrides::default()).expect_err(text);
        let ConfigError::Parse { line, message, .. } = &err else {
            panic!("expected a parse error for {text:?}, got {err:?}");
        };
        assert_eq!(*line, want_line, "{text:?}: {err}");
        assert!(message.contains(needle), "{text:?}: {message}");
    }
    // valid overrides load, both forms
    let ok = "[keys]\nquit = \"ctrl-q\"\ndown = [\"j\", \"down\"]\n";
    let settings = resolve(Some(&file(ok)), &Env::new(), &Overrides::default()).expect("valid");
    assert_eq!(settings.keys.len(), 2);
}

#[test]
fn config_dir_follows_the_file_then_xdg() {
    let settings = resolve(Some(&file(FILE)), &Env::new(), &Overrides::default()).expect("ok");
    assert_eq!(settings.config_dir(), Some(PathBuf::from("/etc/cs")));
    let xdg = env(&[("XDG_CONFIG_HOME", "/home/u/.cfg")]);
    assert_eq!(
        config::paths::config_dir_with_env(&xdg),
        Some(PathBuf::from("/home/u/.cfg/cantonscope"))
    );
    // a relative XDG_CONFIG_HOME is ignored, as the XDG spec says
    let relative = env(&[("XDG_CONFIG_HOME", "cfg")]);
    assert_ne!(
        config::paths::config_dir_with_env(&relative),
        Some(PathBuf::from("cfg/cantonscope"))
    );
}

/// The settings of a config file at /etc/cs/config.toml holding `text` (no env, no flags).
fn resolve_file(
    text: &str,
) -> Result<cantonscope::config::Settings, cantonscope::config::ConfigError> {
    use cantonscope::config::{self as cfg, LoadedFile, Overrides};
    cfg::resolve(
        Some(&LoadedFile {
            path: "/etc/cs/config.toml".into(),
            text: text.to_owned(),
        }),
        &cfg::Env::new(),
        &Overrides::default(),
    )
}

/// The Status dashboard's lag thresholds come from the profile; amber past red is an error
/// naming the file and the line.
#[test]
fn status_lag_thresholds_per_profile() {
    let s =
        resolve_file("[profiles.main]\nlag_warn = \"20s\"\nlag_error = \"2m\"\n").expect("valid");
    assert_eq!(s.network.lag.warn, 20_000_000);
    assert_eq!(s.network.lag.error, 120_000_000);
    let d = resolve_file("[profiles.main]\n").expect("valid");
    assert_eq!(d.network.lag.warn, 60_000_000);
    assert_eq!(d.network.lag.error, 300_000_000);
    let e = resolve_file("[profiles.main]\nlag_warn = \"10m\"\nlag_error = \"2m\"\n")
        .expect_err("amber after red")
        .to_string();
    assert!(e.starts_with("/etc/cs/config.toml:2:"), "{e}");
    assert!(e.contains("lag_warn") && e.contains("lag_error"), "{e}");
}

/// How often governance is read comes from the profile (default 45 s, 10 s to 1 h); out of
/// range is an error naming the file, the line and the key.
#[test]
fn governance_interval_per_profile() {
    let s = resolve_file("[profiles.main]\ngovernance_interval = \"30s\"\n").expect("valid");
    assert_eq!(
        s.network.governance_interval,
        std::time::Duration::from_secs(30)
    );
    let d = resolve_file("[profiles.main]\n").expect("valid");
    assert_eq!(
        d.network.governance_interval,
        std::time::Duration::from_secs(45)
    );
    for bad in ["5s", "2h"] {
        let e = resolve_file(&format!(
            "[profiles.main]\ngovernance_interval = \"{bad}\"\n"
        ))
        .expect_err("out of range")
        .to_string();
        assert!(e.starts_with("/etc/cs/config.toml:2:"), "{e}");
        assert!(
            e.contains("governance_interval") && e.contains("out of range"),
            "{e}"
        );
    }
}

/// The traffic card's thresholds come from the profile; red above amber or a share outside
/// 1–99 is an error naming the file, the line and the key.
#[test]
fn traffic_thresholds_per_profile() {
    let s =
        resolve_file("[profiles.main]\ntraffic_warn_percent = 40\ntraffic_error_percent = 10\n")
            .expect("valid");
    assert_eq!((s.network.traffic.warn, s.network.traffic.error), (40, 10));
    let d = resolve_file("[profiles.main]\n").expect("valid");
    assert_eq!((d.network.traffic.warn, d.network.traffic.error), (20, 5));
    let e =
        resolve_file("[profiles.main]\ntraffic_warn_percent = 10\ntraffic_error_percent = 30\n")
            .expect_err("red above amber")
            .to_string();
    assert!(e.starts_with("/etc/cs/config.toml:3:"), "{e}");
    assert!(
        e.contains("traffic_error_percent") && e.contains("30 > 10"),
        "{e}"
    );
    for bad in ["0", "100", "-5"] {
        let e = resolve_file(&format!("[profiles.main]\ntraffic_warn_percent = {bad}\n"))
            .expect_err("out of range")
            .to_string();
        assert!(
            e.contains("expected a percentage from 1 to 99"),
            "{bad}: {e}"
        );
    }
}

/// A key binding that hides another command's key is an error naming both, with file and line.
#[test]
fn a_key_that_shadows_another_is_a_config_error() {
    use cantonscope::config::{self as cfg, LoadedFile, Overrides};
    let e = cfg::resolve(
        Some(&LoadedFile {
            path: "/etc/cs/config.toml".into(),
            text: "log_level = \"info\"\n\n[keys]\nhelp = \"f1\"\ncopy = \"j\"\n".to_owned(),
        }),
        &cfg::Env::new(),
        &Overrides::default(),
    )
    .expect_err("j is down in lists")
    .to_string();
    assert!(e.starts_with("/etc/cs/config.toml:5:"), "{e}");
    assert!(e.contains("copy") && e.contains("down"), "{e}");
}

/// The profile's `sv` key ("my SV": an SV name or party id, trimmed) and
/// `network_health_interval` (default 30 s, at least 5 s) come from the selected profile only;
/// bad values are errors naming the file, the line and the key.
#[test]
fn my_sv_and_network_health_interval_per_profile() {
    let rows: [(&str, &str, Option<&str>, Duration); 5] = [
        (
            "defaults",
            "[profiles.main]\n",
            None,
            Duration::from_secs(30),
        ),
        (
            "an SV name",
            "[profiles.main]\nsv = \"Delta-SV\"\n",
            Some("Delta-SV"),
            Duration::from_secs(30),
        ),
        (
            "a party, trimmed, and a minute",
            "[profiles.main]\nsv = \" Delta-SV::1220ab \"\nnetwork_health_interval = \"1m\"\n",
            Some("Delta-SV::1220ab"),
            Duration::from_secs(60),
        ),
        (
            "the shortest interval",
            "[profiles.main]\nnetwork_health_interval = \"5s\"\n",
            None,
            Duration::from_secs(5),
        ),
        (
            "another profile's keys do not apply",
            "default_profile = \"a\"\n[profiles.a]\n[profiles.b]\nsv = \"Delta-SV\"\nnetwork_health_interval = \"10s\"\n",
            None,
            Duration::from_secs(30),
        ),
    ];
    for (what, text, sv, interval) in rows {
        let s = resolve_file(text).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(s.sv.as_deref(), sv, "{what}");
        assert_eq!(s.network.health_interval, interval, "{what}");
    }
    let default = resolve(None, &Env::new(), &Overrides::default()).expect("defaults");
    assert_eq!(default.sv, None);
    assert_eq!(default.network.health_interval, Duration::from_secs(30));

    let errors = [
        (
            "[profiles.main]\nsv = \"  \"\n",
            2,
            "sv of profile \"main\": expected an SV name",
        ),
        (
            "[profiles.main]\n\nnetwork_health_interval = \"4s\"\n",
            3,
            "network_health_interval of profile \"main\": 4s is too short (at least 5s)",
        ),
        (
            "[profiles.main]\nnetwork_health_interval = \"soon\"\n",
            2,
            "soon",
        ),
        ("[profiles.main]\nsv = 7\n", 2, "string"),
        ("[profiles.main]\nmy_sv = \"Delta-SV\"\n", 2, "my_sv"),
    ];
    for (text, want_line, needle) in errors {
        let err = resolve_file(text).expect_err(text);
        let ConfigError::Parse { line, message, .. } = &err else {
            panic!("expected a parse error for {text:?}, got {err:?}");
        };
        assert_eq!(*line, want_line, "{text:?}: {err}");
        assert!(message.contains(needle), "{text:?}: {message}");
    }
}

/// Issue 35: `fork_check` (0s turns the head check off; too short is an error naming the key)
/// and `notify` (bell, osc, off; anything else is an error).
#[test]
fn fork_check_and_notify_are_read_and_checked() {
    use cantonscope::config::NotifyMode;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    let load = |text: &str| {
        std::fs::write(&path, text).expect("write");
        cantonscope::config::load_with_env(
            &cantonscope::config::Overrides {
                config: Some(path.clone()),
                ..Default::default()
            },
            &cantonscope::config::Env::default(),
        )
    };
    let s = load("[profiles.default]\nfork_check = \"0s\"\nnotify = \"osc\"\n").expect("loads");
    assert_eq!(s.network.fork_check, std::time::Duration::ZERO);
    assert_eq!(s.network.notify, NotifyMode::Osc);
    let s = load("[profiles.default]\n").expect("loads");
    assert_eq!(s.network.fork_check, std::time::Duration::from_secs(60));
    assert_eq!(s.network.notify, NotifyMode::Bell);
    let e = load("[profiles.default]\nfork_check = \"1s\"\n").expect_err("too short");
    assert!(e.to_string().contains("fork_check"), "{e}");
    let e = load("[profiles.default]\nnotify = \"loud\"\n").expect_err("unknown");
    assert!(
        e.to_string().contains("config.toml:2") && e.to_string().contains("`bell`"),
        "{e}"
    );
}

/// My node: `metrics`, `metrics_refresh`, `prometheus`, `[profiles.X.alerts]`; the traffic
/// thresholds come from the profile's own keys; bad values name the file and line.
#[test]
fn my_node_keys() {
    let text = r#"
[profiles.sv]
traffic_warn_percent = 30
metrics = [
  { name = "participant", url = "http://user:pw@127.0.0.1:10013/metrics" },
  { name = "sv-app", url = "http://127.0.0.1:10014/metrics", token_file = "sv.jwt" },
]
metrics_refresh = "30s"
prometheus = "http://prometheus.sv:9090"

[profiles.sv.alerts]
sequencer_client_delay = "2m"
sequencer_client_delay_for = "0s"
rounds_not_advancing = "45m"
scan_disagreement_percent = 25
"#;
    let flags = Overrides {
        profile: Some("sv".to_owned()),
        ..Overrides::default()
    };
    let settings = resolve(Some(&file(text)), &env(&[]), &flags).expect("valid");
    let node = &settings.node;
    assert_eq!(node.endpoints.len(), 2);
    assert_eq!(node.endpoints[0].name, "participant");
    assert_eq!(
        node.endpoints[0].url.as_str(),
        "http://user:pw@127.0.0.1:10013/metrics"
    );
    // The password never shows in Debug.
    assert!(!format!("{settings:?}").contains("pw@"));
    assert_eq!(
        node.endpoints[1].token,
        Some(TokenSource::File(PathBuf::from("/etc/cs/sv.jwt")))
    );
    assert_eq!(node.refresh, Duration::from_secs(30));
    assert_eq!(
        node.prometheus.as_ref().map(config::BaseUrl::as_str),
        Some("http://prometheus.sv:9090")
    );
    assert_eq!(node.rules.sequencer_delay_us, 120_000_000);
    assert_eq!(node.rules.sequencer_delay_for_us, 0);
    assert_eq!(node.rules.rounds_window_us, 45 * 60_000_000);
    assert!((node.rules.disagreement_percent - 25.0).abs() < f64::EPSILON);
    assert_eq!(node.rules.traffic_warn_percent, 30);
    assert_eq!(node.rules.traffic_error_percent, 5);
    // Defaults.
    let settings = resolve(None, &env(&[]), &Overrides::default()).expect("valid");
    assert_eq!(settings.node.refresh, Duration::from_secs(15));
    assert!(!settings.node.is_configured());
    assert_eq!(settings.node.rules.ingestion_lag_us, 20 * 60_000_000);

    for (bad, says) in [
        (
            "[profiles.sv.alerts]\nsequencer_delay = \"1m\"\n",
            "unknown field",
        ),
        (
            "[profiles.sv]\nmetrics = [{ name = \"a\", url = \"ftp://x\" }]\n",
            "http",
        ),
        (
            "[profiles.sv]\nmetrics = [{ name = \"a\", url = \"http://x\", user = \"u\" }]\n",
            "unknown field",
        ),
        (
            "[profiles.sv]\nmetrics = [{ name = \"a\", url = \"http://x\" }, { name = \"a\", url = \"http://y\" }]\n",
            "two endpoints",
        ),
        ("[profiles.sv]\nmetrics_refresh = \"100ms\"\n", "too short"),
        (
            "[profiles.sv.alerts]\nrounds_not_advancing = \"0s\"\n",
            "longer than 0s",
        ),
        (
            "[profiles.sv.alerts]\nscan_disagreement_percent = 150\n",
            "below 100",
        ),
    ] {
        let error = resolve(Some(&file(bad)), &env(&[]), &flags).expect_err(bad);
        let message = error.to_string();
        assert!(message.contains(says), "{bad}: {message}");
        assert!(message.starts_with("/etc/cs/config.toml:"), "{message}");
    }
}

#[test]
fn export_dir_is_relative_to_the_config_file_and_an_empty_one_is_refused() {
    let settings = resolve(
        Some(&file("[profiles.main]\nexport_dir = \"exports\"\n")),
        &Env::new(),
        &Overrides::default(),
    )
    .expect("resolves");
    assert_eq!(settings.export_dir, Some(PathBuf::from("/etc/cs/exports")));
    let err = resolve(
        Some(&file("[profiles.main]\nexport_dir = \"\"\n")),
        &Env::new(),
        &Overrides::default(),
    )
    .expect_err("an empty folder");
    assert!(err.to_string().contains("export_dir"), "{err}");
    let settings = resolve(None, &Env::new(), &Overrides::default()).expect("resolves");
    assert_eq!(
        settings.export_dir, None,
        "the current directory by default"
    );
}
