//! Drawing the Status pane's cards: one per node (health, identity or rate, latency, timing,
//! the last error) and one for the loaded history (lag, migration, updates per minute).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Sparkline, SparklineBar, Widget};

use crate::api::scan::NodeStatus;
use crate::panes::Shared;
use crate::ui::format::{
    age_label, group_thousands, human_duration, human_interval_ms, human_uptime,
};
use crate::ui::layout::fit_line;
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

use super::card_rows::{CardRows, bold, card_frame};
use super::{Card, NO_TOKEN_TEXT, NodeHealth, NodeKind, NodeState, StatusPane, health_style};
use crate::feed::dashboard::{LagLevel, Level};
use crate::model::governance::Urgency;

/// `in 19h 59m`, or `passed 5m ago`.
fn deadline_words(left: i64) -> String {
    if left >= 0 {
        format!("in {}", human_duration(left))
    } else {
        format!("passed {} ago", human_duration(-left))
    }
}

/// The latency sparkline's full scale is at least this (ms).
pub const LATENCY_FLOOR_MS: u64 = 50;

impl StatusPane {
    pub(super) fn render_card(
        &self,
        card: Card,
        area: Rect,
        buf: &mut Buffer,
        sh: &Shared,
        theme: &Theme,
        selected: bool,
    ) {
        let title = match self.card_title(card, sh) {
            t if t.is_empty() => t,
            t => format!(" {t} "),
        };
        let border = if selected {
            theme.border_focused
        } else {
            theme.border
        };
        let Some(inner) = card_frame(area, buf, &title, border, theme) else {
            return;
        };
        let mut rows = CardRows {
            area: inner,
            buf,
            y: 0,
        };
        self.render_body(card, &mut rows, sh, theme);
    }

    /// The card's title, whole.
    pub(super) fn card_title(&self, card: Card, sh: &Shared) -> String {
        match card {
            Card::History => {
                let scan = sh.ctx.scan_urls.first().map_or("", String::as_str);
                format!("history · {scan}")
            }
            Card::Rounds => "mining rounds · scan 1".to_string(),
            Card::Traffic => "traffic · this validator on the global synchronizer".to_string(),
            Card::Governance => "governance · open vote requests · scan 1".to_string(),
            Card::MyNode => "my node · alert rules over its metrics".to_string(),
            Card::Node(i) => match sh.health.nodes.nodes().get(i) {
                Some(n) => format!("{} · {}", n.kind.name(), n.url),
                None => String::new(),
            },
        }
    }

    /// The card's lines as drawn, each whole (on a row as wide as a line can be): what `v`
    /// lists for the selected card.
    pub(super) fn card_lines(&self, card: Card, sh: &Shared) -> Vec<Line<'static>> {
        const WIDE: u16 = 2000;
        const TALL: u16 = 40;
        let theme = Theme::default();
        let area = Rect::new(0, 0, WIDE, TALL);
        let mut buf = Buffer::empty(area);
        let mut rows = CardRows {
            area,
            buf: &mut buf,
            y: 0,
        };
        self.render_body(card, &mut rows, sh, &theme);
        let used = rows.y;
        (0..used)
            .map(|y| {
                let text: String = (0..WIDE).map(|x| buf[(x, y)].symbol()).collect();
                Line::raw(text.trim_end().to_owned())
            })
            .collect()
    }

    fn render_body(&self, card: Card, rows: &mut CardRows<'_>, sh: &Shared, theme: &Theme) {
        let rows = &mut *rows;
        match card {
            Card::History => self.render_history(rows, sh, theme),
            Card::Rounds => self.render_rounds(rows, sh, theme),
            Card::Traffic => self.render_traffic(rows, sh, theme),
            Card::Governance => self.render_governance(rows, sh, theme),
            Card::MyNode => self.render_my_node(rows, sh, theme),
            Card::Node(i) => {
                if let Some(n) = sh.health.nodes.nodes().get(i) {
                    self.render_node(n, rows, sh, theme);
                }
            }
        }
    }

    fn render_history(&self, rows: &mut CardRows<'_>, sh: &Shared, theme: &Theme) {
        let st = &self.history;
        let Some(newest) = st.newest else {
            rows.line(Line::styled("no updates loaded yet", theme.muted));
            self.render_index_days(rows, sh, theme);
            return;
        };
        if sh.history_at_head {
            self.render_lag_line(rows, newest, sh, theme);
        } else {
            rows.line(Line::from(vec![
                Span::styled("loaded up to ", theme.muted),
                Span::styled(
                    format!("{} {}", sh.format_time(newest), sh.zone_label()),
                    theme.time,
                ),
                Span::styled(
                    "  not at the head (browsing the past; f follows)",
                    theme.muted,
                ),
            ]));
        }
        self.render_history_rest(rows, theme);
        self.render_index_days(rows, sh, theme);
    }

    /// The local index's updates per UTC day over the last days up to its newest update (read
    /// by the app's index feed), the newest day's count in the label: what the index holds
    /// beyond the loaded window.
    fn render_index_days(&self, rows: &mut CardRows<'_>, sh: &Shared, theme: &Theme) {
        let days = &sh.index.per_day;
        if !self.index_row || sh.index.reach.is_none() || days.is_empty() {
            return;
        }
        let newest = days.last().copied().unwrap_or(0);
        let label = format!(
            "index/day {} · {} d ",
            group_thousands(i64::try_from(newest).unwrap_or(i64::MAX)),
            days.len()
        );
        let data: Vec<Option<u64>> = days.iter().copied().map(Some).collect();
        rows.sparkline_with(&label, &data, theme, " ", theme.muted, 1);
    }

    fn render_lag_line(&self, rows: &mut CardRows<'_>, newest: i64, sh: &Shared, theme: &Theme) {
        let lag = sh.now - newest;
        let lag_style = match self.lag.level(lag) {
            LagLevel::Fine => theme.muted,
            LagLevel::Amber => theme.status_warn,
            LagLevel::Red => theme.status_err,
        };
        rows.line(Line::from(vec![
            Span::styled("newest ", theme.muted),
            Span::styled(
                format!("{} {}", sh.format_time(newest), sh.zone_label()),
                theme.time,
            ),
            Span::styled("  lag ", theme.muted),
            Span::styled(
                if lag < 0 {
                    format!("-{}", human_duration(-lag))
                } else {
                    human_duration(lag)
                },
                lag_style,
            ),
        ]));
    }

    fn render_history_rest(&self, rows: &mut CardRows<'_>, theme: &Theme) {
        let st = &self.history;
        rows.line(Line::from(vec![
            Span::styled("migration ", theme.muted),
            Span::raw(st.migration_id.map_or("-".into(), |m| m.to_string())),
            Span::styled(" · ", theme.muted),
            Span::raw(group_thousands(st.loaded as i64)),
            Span::styled(" updates loaded", theme.muted),
        ]));
        let avg = st
            .average_per_minute()
            .map_or("-".into(), |a| format!("{a:.1}"));
        let known = st.per_minute().iter().flatten().count();
        rows.line(Line::from(vec![
            Span::styled("updates/min ", theme.muted),
            Span::styled(
                st.recent_rate.map_or("-".into(), |v| format!("{v:.0}")),
                theme.accent,
            ),
            Span::styled(
                format!(" by record time · avg {avg} over {known} min"),
                theme.muted,
            ),
        ]));
        let data = st.per_minute();
        // Minutes before the oldest loaded update are unknown: blank.
        rows.sparkline_with("", &data, theme, " ", theme.muted, 1);
    }

    /// Updates per minute of the last 30 minutes of record time, each minute a bar as wide as
    /// fits, in the room left below the cards or in the empty places of their last row.
    pub(super) fn render_chart(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let data = self.history.per_minute();
        let peak = data.iter().flatten().max().copied().unwrap_or(0);
        let title = format!(
            " updates per minute · last {} min of record time · peak {peak} ",
            data.len()
        );
        let Some(inner) = card_frame(area, buf, &title, theme.border, theme) else {
            return;
        };
        if data.is_empty() {
            buf.set_stringn(
                inner.x,
                inner.y,
                "no updates loaded yet",
                usize::from(inner.width),
                theme.muted,
            );
            return;
        }
        let per = (usize::from(inner.width) / data.len()).max(1);
        let bars: Vec<SparklineBar> = data
            .iter()
            .flat_map(|v| std::iter::repeat_n(SparklineBar::from(*v), per))
            .collect();
        // Right-aligned: the newest minute at the right edge.
        let skip = bars.len().saturating_sub(usize::from(inner.width));
        let w = u16::try_from(bars.len() - skip).unwrap_or(inner.width);
        let inner = Rect::new(inner.x + inner.width - w, inner.y, w, inner.height);
        Sparkline::default()
            .data(bars.into_iter().skip(skip).collect::<Vec<_>>())
            .max(peak.max(1))
            .style(theme.sparkline)
            .absent_value_symbol(" ")
            .absent_value_style(theme.muted)
            .render(inner, buf);
    }

    /// Open requests, how many need my SV's vote, the next deadline (amber under a day, red
    /// under two hours), and the age of the answer.
    fn render_my_node(&self, rows: &mut CardRows<'_>, sh: &Shared, theme: &Theme) {
        use crate::model::metrics::{AlertState, Severity};
        let node = &sh.health.node;
        let Some(at) = node.at else {
            match &node.error {
                Some(e) => rows.wrapped_cut(&format!("error: {e}"), theme.status_err, 2),
                None => rows.line(Line::styled("waiting for the first scrape", theme.muted)),
            }
            return;
        };
        let count =
            |f: &dyn Fn(&AlertState) -> bool| node.rows.iter().filter(|r| f(&r.state)).count();
        let firing = count(&|s| s.is_firing());
        let mut head = vec![if firing > 0 {
            Span::styled(
                format!("{firing} firing"),
                match node.worst() {
                    Some(Severity::Critical) => theme.status_err.patch(bold()),
                    _ => theme.status_warn.patch(bold()),
                },
            )
        } else {
            Span::styled("nothing fires", theme.status_ok)
        }];
        for (n, what) in [
            (count(&|s| *s == AlertState::Ok), "ok"),
            (
                count(&|s| matches!(s, AlertState::NotDetermined { .. })),
                "not determined",
            ),
            (count(&|s| *s == AlertState::NotExported), "not exported"),
        ] {
            if n > 0 {
                head.push(Span::styled(format!(" · {n} {what}"), theme.muted));
            }
        }
        if !node.unreachable.is_empty() {
            head.push(Span::styled(
                format!(" · {} unreachable", node.unreachable.len()),
                theme.status_err,
            ));
        }
        head.push(Span::styled(
            format!(" · read {} ago", human_duration(sh.now - at)),
            theme.muted,
        ));
        rows.line(Line::from(head));
        // Firing rows first (critical, then warnings), then the others in the rules' order.
        let rank = |s: &AlertState| match s {
            AlertState::Firing {
                severity: Severity::Critical,
            } => 0,
            AlertState::Firing { .. } => 1,
            _ => 2,
        };
        let mut ordered: Vec<_> = node.rows.iter().collect();
        ordered.sort_by_key(|r| rank(&r.state));
        for r in ordered {
            let (mark, style) = match &r.state {
                AlertState::Firing {
                    severity: Severity::Critical,
                } => ("✗", theme.status_err),
                AlertState::Firing { .. } => ("!", theme.status_warn),
                AlertState::Ok => ("✓", theme.status_ok),
                AlertState::Info => ("i", theme.accent),
                AlertState::NotExported | AlertState::NotDetermined { .. } => ("·", theme.muted),
            };
            let mut spans = vec![
                Span::styled(format!("{mark} "), style),
                Span::styled(
                    r.title.clone(),
                    if r.state.is_firing() {
                        style
                    } else {
                        Style::default()
                    },
                ),
            ];
            if let Some(subject) = &r.subject {
                spans.push(Span::styled(
                    format!(" · {}", safe_line(subject, 60)),
                    theme.muted,
                ));
            }
            let value = match &r.state {
                AlertState::NotExported => "not exported".to_owned(),
                AlertState::NotDetermined { why } => format!("not determined: {why}"),
                _ => r.value.clone().unwrap_or_default(),
            };
            spans.push(Span::raw(format!("  {}", safe_line(&value, 80))));
            if r.threshold != "-" {
                spans.push(Span::styled(format!("  {}", r.threshold), theme.muted));
            }
            if let Some(since) = r.since_us {
                spans.push(Span::styled(
                    format!("  since {}", sh.format_time(since)),
                    theme.time,
                ));
            }
            spans.push(Span::styled(
                format!("  ({})", r.source.as_str()),
                theme.muted,
            ));
            rows.line(Line::from(spans));
        }
    }

    fn render_governance(&self, rows: &mut CardRows<'_>, sh: &Shared, theme: &Theme) {
        let g = self.governance();
        let me = sh.health.dso.my_sv();
        let Some(summary) = g.summary(sh.health.dso.info.as_deref(), me, sh.now) else {
            match &g.error {
                Some(e) => rows.wrapped_cut(&format!("error: {e}"), theme.status_err, 2),
                None => rows.line(Line::styled("waiting for the first answer", theme.muted)),
            }
            return;
        };
        let urgency = |left: i64| match Urgency::of(left) {
            Urgency::Urgent => theme.status_err,
            Urgency::Soon => theme.status_warn,
            Urgency::Calm => Style::default(),
        };
        let mut first = vec![
            Span::styled(summary.open.to_string(), theme.accent.patch(bold())),
            Span::styled(
                if summary.open == 1 {
                    " open request"
                } else {
                    " open requests"
                },
                theme.muted,
            ),
        ];
        match (summary.needs_my_vote, me) {
            (Some(n), Some(me)) => {
                let who = me
                    .name
                    .as_deref()
                    .or(me.party.as_deref())
                    .unwrap_or("my SV");
                let style = match summary.my_next_deadline {
                    Some(left) if n > 0 => urgency(left).patch(bold()),
                    _ => theme.status_ok,
                };
                first.push(Span::styled(" · ", theme.muted));
                let verb = if n == 1 { "needs" } else { "need" };
                first.push(Span::styled(format!("{n} {verb} my vote"), style));
                first.push(Span::styled(
                    format!(" ({})", safe_line(who, 40)),
                    theme.muted,
                ));
            }
            _ => first.push(Span::styled(" · my SV unknown", theme.muted)),
        }
        rows.line(Line::from(first));
        match &summary.next_deadline {
            Some((left, action)) => rows.line(Line::from(vec![
                Span::styled("next deadline ", theme.muted),
                Span::styled(deadline_words(*left), urgency(*left)),
                Span::styled(format!(" · {}", safe_line(action, 200)), theme.muted),
            ])),
            None => rows.line(Line::styled("nothing to vote on", theme.muted)),
        }
        if let Some(left) = summary.my_next_deadline {
            rows.line(Line::from(vec![
                Span::styled("my next vote closes ", theme.muted),
                Span::styled(deadline_words(left), urgency(left)),
            ]));
        }
        let age = g.at.map_or_else(String::new, |at| {
            format!(
                "read {} ago · every {}",
                human_duration(sh.now - at),
                human_duration(sh.ctx.governance_every)
            )
        });
        match &g.error {
            Some(e) => rows.wrapped_cut(&format!("error: {e}"), theme.status_err, 1),
            None => rows.line(Line::styled(age, theme.muted)),
        }
    }

    /// The verdict line above the cards: the overall level and why.
    pub(super) fn render_verdict(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme) {
        if sh.ctx.offline {
            // No node is asked: no verdict on nodes, one line saying why.
            let line = Line::from(vec![
                Span::styled(" OFFLINE ", theme.status_warn.patch(bold())),
                Span::raw(" "),
                Span::styled(
                    "--offline: no node is asked; the history below comes from the local index",
                    theme.status_warn,
                ),
            ]);
            buf.set_line(area.x, area.y, &line, area.width);
            return;
        }
        let v = self.verdict(sh);
        let style = match v.level {
            Level::Checking => theme.muted,
            Level::Healthy => theme.status_ok,
            Level::Degraded => theme.status_warn,
            Level::Stalled => theme.status_err,
            Level::Down => theme.status_err,
        };
        let head = vec![
            Span::styled(format!(" {} ", v.level.label()), style.patch(bold())),
            Span::raw(" "),
        ];
        let reasons = Span::styled(v.reasons.join(" · "), style);
        let width = usize::from(area.width);
        let used = |spans: &[Span<'_>]| spans.iter().map(Span::width).sum::<usize>();
        let spans = match self.network_part(sh) {
            None => {
                let mut spans = head;
                spans.push(reasons);
                spans
            }
            Some(part) => {
                let net_style = if !part.quorum_ok {
                    theme.status_err
                } else if part.all_well {
                    theme.status_ok
                } else {
                    theme.status_warn
                };
                let names: Vec<Span<'static>> = part
                    .named
                    .iter()
                    .map(|n| Span::styled(safe_line(n, 60).into_owned(), net_style))
                    .collect();
                let sep = || Span::styled(" · ", theme.muted);
                // Widest first: my nodes' reasons, the network's summary, every scan that is not
                // healthy by name; then without the summary; then the scans named first (so a
                // narrow screen never hides which scans fail), my nodes' reasons after them.
                let mut full = head.clone();
                full.push(reasons.clone());
                full.push(sep());
                full.push(Span::styled(part.summary.clone(), net_style));
                for name in &names {
                    full.push(sep());
                    full.push(name.clone());
                }
                let mut short = head.clone();
                short.push(reasons.clone());
                for name in &names {
                    short.push(sep());
                    short.push(name.clone());
                }
                if used(&full) <= width || names.is_empty() {
                    full
                } else if used(&short) <= width {
                    short
                } else {
                    // The names first, as many as fit; the rest counted (Enter shows them all
                    // in the Network pane).
                    let mut spans = head;
                    let total = names.len();
                    for (i, name) in names.into_iter().enumerate() {
                        let left = total - i - 1;
                        let more = if left > 0 {
                            format!(" · +{left} more (Enter)").len()
                        } else {
                            0
                        };
                        if i > 0 && used(&spans) + 3 + name.width() + more > width {
                            spans.push(Span::styled(
                                format!(" · +{} more (Enter)", total - i),
                                theme.muted,
                            ));
                            break;
                        }
                        if i > 0 {
                            spans.push(sep());
                        }
                        spans.push(name);
                    }
                    spans.push(sep());
                    spans.push(reasons);
                    spans
                }
            }
        };
        let line = Line::from(spans);
        let line = fit_line(line, usize::from(area.width));
        buf.set_line(area.x, area.y, &line, area.width);
    }

    fn render_node(&self, n: &NodeState, rows: &mut CardRows<'_>, sh: &Shared, theme: &Theme) {
        if !n.polled {
            rows.line(Line::styled("NOT POLLED", theme.status_warn));
            rows.wrapped(NO_TOKEN_TEXT, theme.muted);
            return;
        }
        let health = n.health();
        // Line 1: health and what the node says.
        let mut l1 = vec![Span::styled(
            health.label(),
            health_style(health, theme).patch(bold()),
        )];
        let detail: String = match (health, n.kind) {
            (NodeHealth::Unknown, _) => "waiting for the first answer".into(),
            (NodeHealth::Down, _) => format!(
                "{} failed attempt{} in a row",
                n.failures,
                if n.failures == 1 { "" } else { "s" }
            ),
            (_, NodeKind::Scan(_)) => match &n.status {
                Some(NodeStatus::Success(s)) => {
                    format!("success · {}", if s.active { "active" } else { "inactive" })
                }
                Some(NodeStatus::NotInitialized(ni)) => format!(
                    "not initialized · {}",
                    if ni.active { "active" } else { "inactive" }
                ),
                Some(NodeStatus::Failed(f)) => format!("failed: {}", f.error),
                Some(NodeStatus::Unknown { kind, .. }) => format!("unknown status \"{kind}\""),
                None => String::new(),
            },
            (_, NodeKind::Ledger) => match n.ledger_end {
                Some(Some(off)) => format!("ledger end {}", group_thousands(off)),
                Some(None) => "ledger end: none (empty ledger)".into(),
                None => String::new(),
            },
            (_, NodeKind::Validator) => "reachable".into(),
        };
        l1.push(Span::raw("  "));
        l1.push(Span::raw(detail));
        if let NodeKind::Scan(_) = n.kind
            && let Some((o, h)) = sh.health.network.scan_at(&n.url)
            && let Some(Ok(_)) = o.verdict_head
        {
            // From the last network measurement: the head of its verdict ingestion
            // (`/v0/events/latest-record-time`) behind its newest update; "—" on a scan
            // without the endpoint (nothing when it could not be read).
            l1.push(Span::styled(" · verdict ingestion lag ", theme.muted));
            l1.push(Span::styled(age_label(h.verdict_lag), theme.json_number));
        }
        rows.line(Line::from(l1));

        // Line 2: identity (scans) or rate (ledger).
        match n.kind {
            NodeKind::Scan(_) => match &n.status {
                Some(NodeStatus::Success(s)) => {
                    let ports: Vec<String> =
                        s.ports.iter().map(|(k, v)| format!("{k} {v}")).collect();
                    let mut spans = vec![
                        Span::styled("id ", theme.muted),
                        Span::styled(s.id.as_str(), theme.id),
                        Span::styled(" · up ", theme.muted),
                        Span::raw(human_uptime(&s.uptime)),
                    ];
                    if !ports.is_empty() {
                        spans.push(Span::styled(" · ports ", theme.muted));
                        spans.push(Span::raw(ports.join(", ")));
                    }
                    let mut line = Line::from(spans);
                    if health == NodeHealth::Down {
                        // As of the last answer: dimmed while the node is down.
                        line = line.style(theme.muted);
                    }
                    rows.line(line);
                }
                _ => rows.line(Line::styled("id - · up -", theme.muted)),
            },
            NodeKind::Ledger => {
                let rates: Vec<Option<u64>> = n.interval_rates().map(Some).collect();
                let label = match n.rate {
                    Some(r) if r >= 1.0 => format!("rate {r:.1} offsets/s "),
                    Some(r) => format!("rate {:.1} offsets/min ", r * 60.0),
                    None => "rate - ".into(),
                };
                // At least one offset per second full scale (milli-offsets).
                rows.sparkline_with(&label, &rates, theme, "×", theme.status_err, 1000);
            }
            NodeKind::Validator => {}
        }

        // Latency with its sparkline.
        let latencies: Vec<Option<u64>> = n.latencies().collect();
        let peak = latencies.iter().flatten().max().copied();
        let label = match (n.last_latency(), peak) {
            (Some(ms), Some(max)) => format!("latency {ms} ms (max {max}) "),
            _ => "latency - ".into(),
        };
        // 50 ms full scale at least: sub-millisecond noise stays low.
        rows.sparkline_with(
            &label,
            &latencies,
            theme,
            "×",
            theme.status_err,
            LATENCY_FLOOR_MS,
        );

        // Timing: last success and the next attempt.
        let age = |t: i64| human_duration(sh.now - t);
        let mut timing = vec![Span::styled("last ok ", theme.muted)];
        match n.last_ok_at {
            Some(t) => timing.push(Span::raw(format!("{} ago", age(t)))),
            None => timing.push(Span::styled("never", theme.status_warn)),
        }
        if n.failures > 0 {
            if n.in_flight().is_some() {
                timing.push(Span::styled(" · retrying…", theme.status_warn));
            } else {
                let wait = (n.next_due() - sh.now).max(0);
                timing.push(Span::styled(
                    format!(" · retry in {}", human_duration(wait + 999_999)),
                    theme.status_warn,
                ));
            }
        } else {
            timing.push(Span::styled(
                format!(
                    " · every {}",
                    human_interval_ms(sh.health.nodes.refresh_ms())
                ),
                theme.muted,
            ));
        }
        rows.line(Line::from(timing));

        // The last error (red while down, muted once recovered).
        match &n.last_error {
            Some((t, text)) => {
                let style = if health == NodeHealth::Down {
                    theme.status_err
                } else {
                    theme.muted
                };
                if health == NodeHealth::Down {
                    // Why it is down matters most: up to two rows.
                    rows.wrapped_cut(&format!("error {} ago: {text}", age(*t)), style, 2);
                } else {
                    rows.line(Line::from(vec![
                        Span::styled(format!("recovered · last error {} ago: ", age(*t)), style),
                        Span::styled(text.as_str(), style),
                    ]));
                }
            }
            None => rows.line(Line::styled("no errors", theme.muted)),
        }
    }
}
