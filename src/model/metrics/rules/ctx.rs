//! What [`evaluate`](super::evaluate) works with: the scrapes, what was kept from before, the rows
//! made so far; how a sample is found, a counter's increase kept, an age or a level judged.

use super::{AlertRules, MAX_POINTS, MINUTE, POINT_SPACING, RuleId, SECOND};
use crate::model::format::human_age;
use crate::model::metrics::{
    AlertState, Level, RuleState, Sample, SampleSet, Scrape, Severity, series_key,
};

pub(super) struct Ctx<'a> {
    pub(super) rules: &'a AlertRules,
    pub(super) scrapes: &'a [Scrape],
    pub(super) prev: Option<&'a SampleSet>,
    pub(super) now: i64,
    pub(super) next: SampleSet,
    pub(super) rows: Vec<RuleState>,
}

/// A sample and the endpoint that exported it.
pub(super) type Found<'a> = (&'a str, &'a Sample);

pub(super) fn row(
    id: RuleId,
    subject: Option<String>,
    state: AlertState,
    value: Option<String>,
    threshold: String,
) -> RuleState {
    RuleState {
        id,
        title: id.title().to_owned(),
        subject,
        state,
        value,
        threshold,
        since_us: None,
        source: id.source(),
        expression: id.expression().to_owned(),
    }
}

pub(super) fn not_determined(why: impl Into<String>) -> AlertState {
    AlertState::NotDetermined { why: why.into() }
}

pub(super) fn firing(severity: Severity) -> AlertState {
    AlertState::Firing { severity }
}

/// A threshold or window as the rules write it: `90s`, `5m`, `2h`, `2400s`.
pub fn span(us: i64) -> String {
    let s = us / SECOND;
    if s >= 3600 && s % 3600 == 0 {
        format!("{}h", s / 3600)
    } else if s >= 60 && s % 60 == 0 && s < 2400 {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}

/// A threshold with its `for`: `> 90s for 5m`.
pub(super) fn above_for(threshold: i64, for_us: i64) -> String {
    if for_us > 0 {
        format!("> {} for {}", span(threshold), span(for_us))
    } else {
        format!("> {}", span(threshold))
    }
}

/// A µs timestamp from a value in µs, ms or s, by its size; `None` for CantonTimestamp's minimum
/// and anything before 2000 (no value yet).
pub(super) fn epoch_micros_any(value: f64) -> Option<i64> {
    const Y2000_S: f64 = 946_684_800.0;
    if !value.is_finite() {
        return None;
    }
    let micros = if value >= Y2000_S * 1e5 {
        value
    } else if value >= Y2000_S * 1e2 {
        value * 1e3
    } else {
        value * 1e6
    };
    (Y2000_S * 1e6..1e17)
        .contains(&micros)
        .then_some(micros as i64)
}

/// A µs timestamp of a value known to be µs; `None` when it is not a time yet (0, negative, the
/// minimum, NaN).
pub(super) fn micros_of(value: f64, scale_to_micros: f64) -> Option<i64> {
    let micros = value * scale_to_micros;
    (micros.is_finite() && micros > 946_684_800e6 && micros < 1e17).then_some(micros as i64)
}

pub(super) fn percent(value: f64) -> String {
    if value >= 10.0 || value == 0.0 {
        format!("{value:.0} %")
    } else {
        format!("{value:.1} %")
    }
}

pub(super) fn count(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value:.2}")
    }
}

/// The labels of a sample as `k=v, …` without `skip`.
pub(super) fn labels_text(sample: &Sample, skip: &[&str]) -> String {
    sample
        .labels
        .iter()
        .filter(|(name, _)| !skip.contains(&name.as_str()))
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first label of `names` the sample has.
pub(super) fn label_any<'s>(sample: &'s Sample, names: &[&str]) -> Option<&'s str> {
    names.iter().find_map(|name| sample.label(name))
}

pub(super) const CONNECTION_LABELS: [&str; 4] = ["scan_connection", "connection", "scan", "url"];
pub(super) const REQUEST_LABELS: [&str; 4] = ["request", "request_name", "method", "endpoint"];
pub(super) const STATUS_LABELS: [&str; 3] = ["status_code", "status", "code"];

impl<'a> Ctx<'a> {
    /// Every sample named `name` of the endpoints that answered.
    pub(super) fn find(&self, name: &str) -> Vec<Found<'a>> {
        let mut out = Vec::new();
        for scrape in self.scrapes {
            if let Ok(samples) = &scrape.result {
                out.extend(
                    samples
                        .iter()
                        .filter(|s| s.name == name)
                        .map(|s| (scrape.endpoint.as_str(), s)),
                );
            }
        }
        out
    }

    /// The row of a rule whose metric no endpoint that answered exports.
    pub(super) fn missing(&mut self, id: RuleId, threshold: String) {
        let down: Vec<&str> = self
            .scrapes
            .iter()
            .filter(|s| s.result.is_err())
            .map(|s| s.endpoint.as_str())
            .collect();
        let state = if self.scrapes.is_empty() {
            not_determined("no metrics endpoint configured")
        } else if down.is_empty() {
            AlertState::NotExported
        } else {
            not_determined(format!(
                "not exported by those that answered; unreachable: {}",
                down.join(", ")
            ))
        };
        self.rows.push(row(id, None, state, None, threshold));
    }

    /// An age rule's row: fires when `now - time > threshold + for`, since `time + threshold +
    /// for`.
    pub(super) fn age_row(
        &mut self,
        id: RuleId,
        subject: Option<String>,
        time_us: i64,
        threshold: i64,
        for_us: i64,
        severity: Severity,
    ) {
        let age = self.now - time_us;
        let fires = age > threshold + for_us;
        let mut r = row(
            id,
            subject,
            if fires {
                firing(severity)
            } else {
                AlertState::Ok
            },
            Some(human_age(age)),
            above_for(threshold, for_us),
        );
        if fires {
            r.since_us = Some(time_us + threshold + for_us);
        }
        self.rows.push(r);
    }

    /// How much a counter series grew within `window` before now, and records its point for the
    /// next run. `Err`: why it cannot say.
    pub(super) fn increase(
        &mut self,
        endpoint: &str,
        sample: &Sample,
        window: i64,
    ) -> Result<f64, String> {
        let key = series_key(endpoint, sample);
        let before: Vec<(i64, f64)> = self
            .prev
            .and_then(|p| p.counters.get(&key))
            .map(|points| {
                points
                    .iter()
                    .copied()
                    .filter(|(at, _)| *at < self.now)
                    .collect()
            })
            .unwrap_or_default();
        self.record(&key, &before, sample.value);
        if !sample.value.is_finite() {
            return Err(format!("{} is {}", sample.name, sample.value));
        }
        let start = self.now - window;
        let inside: Vec<(i64, f64)> = before
            .iter()
            .copied()
            .filter(|(at, _)| *at >= start)
            .collect();
        let mut points = if inside.is_empty() {
            // A series first seen after a run inside the window started from zero since.
            match self.prev {
                Some(prev) if before.is_empty() && prev.at_us >= start && prev.at_us < self.now => {
                    vec![(prev.at_us, 0.0)]
                }
                _ => {
                    return Err(match (before.last(), self.prev) {
                        (Some((at, _)), _) => format!(
                            "the earlier sample is {} old, older than the {} window",
                            human_age(self.now - at),
                            human_age(window)
                        ),
                        (None, Some(prev)) if prev.at_us < start => format!(
                            "the previous run is {} old, older than the {} window",
                            human_age(self.now - prev.at_us),
                            human_age(window)
                        ),
                        _ => format!("no earlier sample within {}", human_age(window)),
                    });
                }
            }
        } else {
            inside
        };
        points.push((self.now, sample.value));
        let mut total = 0.0;
        for pair in points.windows(2) {
            let (a, b) = (pair[0].1, pair[1].1);
            if !a.is_finite() {
                continue;
            }
            // A counter that went down was reset: it counted `b` since.
            total += if b >= a { b - a } else { b };
        }
        Ok(total)
    }

    /// Keeps a counter point: the earlier points within the longest window (one a minute), and
    /// this one.
    pub(super) fn record(&mut self, key: &str, before: &[(i64, f64)], value: f64) {
        if self.next.counters.contains_key(key) {
            return;
        }
        let keep_from = self.now - self.rules.longest_window() - 5 * MINUTE;
        let mut points: Vec<(i64, f64)> = before
            .iter()
            .copied()
            .filter(|(at, _)| *at >= keep_from)
            .collect();
        // The newest kept point stands for its minute only when a minute has passed since the
        // one before it.
        if points.len() >= 2 {
            let n = points.len();
            if points[n - 1].0 - points[n - 2].0 < POINT_SPACING {
                points.pop();
            }
        }
        points.push((self.now, value));
        if points.len() > MAX_POINTS {
            let drop = points.len() - MAX_POINTS;
            points.drain(..drop);
        }
        self.next.counters.insert(key.to_owned(), points);
    }

    /// A level series (a round number, a block height): when it last changed.
    pub(super) fn level(&mut self, key: &str, value: f64) -> Level {
        let prev = self.prev.and_then(|p| p.levels.get(key)).copied();
        let level = match prev {
            Some(p) if p.value.to_bits() == value.to_bits() => p,
            Some(_) => Level {
                value,
                since_us: self.now,
                changed: true,
            },
            None => Level {
                value,
                since_us: self.now,
                changed: false,
            },
        };
        self.next.levels.insert(key.to_owned(), level);
        level
    }

    /// A level's row: fires when unchanged for longer than `window`.
    pub(super) fn level_row(
        &mut self,
        id: RuleId,
        subject: Option<String>,
        key: &str,
        value: f64,
        what: &str,
        window: i64,
    ) {
        let level = self.level(key, value);
        let age = self.now - level.since_us;
        let threshold = format!("no new {what} in {}", span(window));
        let value_text = format!("{what} {}", count(value));
        let mut r = if age > window {
            let mut r = row(
                id,
                subject,
                firing(Severity::Critical),
                Some(format!("{value_text}, unchanged {}", human_age(age))),
                threshold,
            );
            r.since_us = Some(level.since_us + window);
            r
        } else if level.changed {
            row(
                id,
                subject,
                AlertState::Ok,
                Some(format!("{value_text}, new {} ago", human_age(age))),
                threshold,
            )
        } else {
            row(
                id,
                subject,
                not_determined(format!(
                    "{value_text} seen for {}; no change seen yet",
                    human_age(age)
                )),
                Some(value_text),
                threshold,
            )
        };
        if !value.is_finite() {
            r.state = not_determined(format!("{what} is {value}"));
        }
        self.rows.push(r);
    }
}
