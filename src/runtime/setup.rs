//! Building the explorer from resolved settings: the app (its context, theme, keys, start) and
//! the clients it fetches with, without a terminal, so tests and the binary start it the same
//! way; and why `--offline` cannot start.

use crate::api::redact_userinfo;
use crate::app::App;
use crate::runtime::fetch::Clients;
use crate::runtime::index::IndexSource;

/// Why `--offline` cannot start without an index.
pub const OFFLINE_WITHOUT_INDEX: &str = "--offline reads the local history index, and this profile has none: start one with `cantonscope index sync --from -30d --follow` (in a tmux pane), or name one with --index PATH, $CANTONSCOPE_INDEX or the profile's `index`";

/// Why `--offline` cannot open the explorer: no index, or an SQLite index named that does not
/// exist (offline there is nothing else to read; headless says the same), else `None`.
pub fn offline_refusal(settings: &crate::config::Settings) -> Option<String> {
    if !settings.offline {
        return None;
    }
    let Some(index) = settings.explorer_index() else {
        return Some(OFFLINE_WITHOUT_INDEX.to_owned());
    };
    match crate::store::Location::parse(&index) {
        crate::store::Location::Sqlite(path) if !path.exists() => Some(format!(
            "--offline: {}",
            crate::store::StoreError::Missing(path.display().to_string())
        )),
        _ => None,
    }
}

/// Builds the app and its clients from resolved settings (no terminal involved), so tests and
/// the binary start the explorer the same way.
pub fn build(settings: &crate::config::Settings, now: i64) -> Result<(App, Clients), String> {
    use crate::config::values::{HistoryStart, TimeZone};
    use crate::panes::{AppContext, StartFrom};

    let keymap = crate::config::keymap::KeyMap::from_config(&settings.keys)
        .map_err(|e| format!("[keys]: {e}"))?;
    let no_color = crate::ui::theme::no_color_env();
    // NO_COLOR selects `mono` unless a theme other than the default was asked for.
    let requested = if no_color && settings.theme == "dark" {
        None
    } else {
        Some(settings.theme.as_str())
    };
    let theme_name = crate::ui::theme::resolve_theme_name(requested, no_color).to_string();
    let theme = crate::ui::theme::Theme::load(&theme_name, settings.config_dir().as_deref())
        .map_err(|e| e.to_string())?;
    // crossterm drops every colour under NO_COLOR by itself; a theme asked for by name wins
    // over NO_COLOR, so its colours must reach the terminal.
    if no_color && theme_name != crate::ui::theme::NO_COLOR_THEME {
        crossterm::style::Colored::set_ansi_color_disabled(false);
    }
    let mut scan_urls: Vec<String> = Vec::new();
    if let Some(u) = &settings.scan_url {
        scan_urls.push(u.as_str().to_string());
    }
    scan_urls.extend(
        settings
            .extra_scan_urls
            .iter()
            .map(|u| u.as_str().to_string()),
    );
    let index = settings.explorer_index();
    if let Some(refusal) = offline_refusal(settings) {
        return Err(refusal);
    }
    let start = match settings.from {
        HistoryStart::Recent => StartFrom::Recent { window_secs: 600 },
        HistoryStart::Begin => StartFrom::Begin,
        HistoryStart::Now => StartFrom::Now,
        HistoryStart::At(t) => StartFrom::Time(t.timestamp_micros()),
    };
    let state_file = settings
        .data_path()
        .map(|dir| crate::config::state::state_path(&dir, settings.profile.as_deref()));
    let ctx = AppContext {
        profile: settings
            .profile
            .clone()
            .unwrap_or_else(|| "(no profile)".into()),
        // The context's URLs are for display only (the clients hold the real ones): any
        // `user:password@` in them never reaches the screen.
        scan_urls: scan_urls.iter().map(|u| redact_userinfo(u)).collect(),
        validator_url: settings
            .validator_url
            .as_ref()
            .map(|u| redact_userinfo(u.as_str())),
        ledger_url: settings
            .ledger_url
            .as_ref()
            .map(|u| redact_userinfo(u.as_str())),
        has_token: settings.token.is_some(),
        read_only: settings.read_only,
        refresh_ms: u64::try_from(settings.refresh.as_millis())
            .unwrap_or(2000)
            .max(100),
        network_interval_ms: u64::try_from(settings.network.health_interval.as_millis())
            .unwrap_or(30_000),
        fork_check_ms: u64::try_from(settings.network.fork_check.as_millis()).unwrap_or(60_000),
        notify: settings.network.notify,
        sv: settings.sv.clone(),
        data_dir: settings.data_path(),
        index: index
            .as_deref()
            .map(|i| crate::store::Location::parse(i).describe()),
        export_dir: settings.export_dir.clone(),
        state: state_file
            .as_deref()
            .map(crate::config::state::ProfileState::read)
            .unwrap_or_default(),
        state_file,
        offline: settings.offline,
        start,
        lag: settings.network.lag,
        traffic: settings.network.traffic,
        governance_every: i64::try_from(settings.network.governance_interval.as_micros())
            .unwrap_or(i64::MAX),
        node_metrics: settings.node.is_configured() && !settings.offline,
        node_metrics_ms: u64::try_from(settings.node.refresh.as_millis()).unwrap_or(15_000),
        node_rules: settings.node.rules.clone(),
    };
    // The clients get the real URLs, credentials included; only the context is redacted.
    let api = crate::api::ApiClient::new(crate::api::ApiConfig {
        scan_url: scan_urls.first().cloned(),
        validator_url: settings
            .validator_url
            .as_ref()
            .map(|u| u.as_str().to_string()),
        ledger_url: settings.ledger_url.as_ref().map(|u| u.as_str().to_string()),
        token: settings.token.clone(),
        ..crate::api::ApiConfig::default()
    })
    .map_err(|e| e.to_string())?
    .with_max_response_mib(settings.max_response_mib);
    let mut clients = Clients::new(api.clone(), &scan_urls);
    clients.index =
        index.map(|i| IndexSource::new(crate::store::Location::parse(&i), settings.offline));
    if !scan_urls.is_empty() {
        clients.network = Some(std::sync::Arc::new(
            crate::every_scan::session::NetworkSession::new(
                api,
                settings.clone(),
                // None for the built-in demo: its ports change every run.
                settings.data_path(),
            ),
        ));
    }
    if settings.node.is_configured() {
        clients.node = Some(std::sync::Arc::new(settings.node.sources()));
    }
    let mut app = App::new(ctx, theme, keymap, now);
    app.sh.local_time = settings.time_zone == TimeZone::Local;
    app.loader
        .set_memory_budget_mib(settings.history_memory_mib);
    app.loader.set_unpaced(settings.offline);
    Ok((app, clients))
}

#[cfg(test)]
mod credential_tests {
    use super::build;
    use crate::config::Settings;
    use crate::demo::{DemoConfig, start};
    use crate::msg::{Request, Response};
    use crate::runtime::fetch::execute;

    /// With the scan and validator behind basic auth, the explorer's clients send the real
    /// `user:password` of the URLs, while everything the app displays is redacted.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn credentials_in_urls_reach_the_server_and_never_the_screen() {
        let demo = start(DemoConfig {
            basic_auth: Some("ops:s3cret".into()),
            ..DemoConfig::default()
        })
        .await
        .expect("demo");
        let with_userinfo = |url: &str| url.replacen("http://", "http://ops:s3cret@", 1);
        let mut settings = Settings::default();
        settings
            .use_demo(
                &[with_userinfo(&demo.scan_url)],
                &with_userinfo(&demo.validator_url),
                &demo.ledger_url,
                &demo.token,
            )
            .expect("settings");
        let (app, clients) = build(&settings, 0).expect("app builds");
        // The demo's scan list is never kept on disk (its ports change every run).
        let session = clients.network.as_ref().expect("a network session");
        assert_eq!(session.data_dir(), None);

        let shown = format!("{:?} {:?} {:?}", app.sh.ctx, clients.main, clients.scans);
        assert!(!shown.contains("s3cret"), "credentials displayed: {shown}");
        assert!(app.sh.ctx.scan_urls[0].contains("***@"), "{shown}");

        let updates = Request::api(crate::api::scan::updates(
            &crate::api::scan::UpdatesRequest::from_begin(1),
        ));
        let answer = execute(&clients, &updates).await;
        assert!(
            matches!(answer.as_ref().ok().and_then(Response::answer::<crate::api::scan::UpdatesPage>), Some(p) if p.transactions.len() == 1),
            "updates through the main client: {answer:?}"
        );
        let probe = execute(
            &clients,
            &Request::api(crate::api::validator::amulet_rules()),
        )
        .await;
        assert!(
            probe
                .as_ref()
                .ok()
                .and_then(Response::answer::<crate::api::validator::AmuletRules>)
                .is_some(),
            "{probe:?}"
        );
        let status = execute(&clients, &Request::on_scan(0, crate::api::scan::status())).await;
        assert!(
            status
                .as_ref()
                .ok()
                .and_then(Response::answer::<crate::api::scan::NodeStatus>)
                .is_some(),
            "{status:?}"
        );

        // Without the credentials the same server refuses: the check above is not vacuous.
        let mut open = Settings::default();
        open.use_demo(
            std::slice::from_ref(&demo.scan_url),
            &demo.validator_url,
            &demo.ledger_url,
            &demo.token,
        )
        .expect("settings");
        let (_, anonymous) = build(&open, 0).expect("app builds");
        let refused = execute(&anonymous, &updates).await;
        assert!(refused.is_err(), "{refused:?}");
    }
}
