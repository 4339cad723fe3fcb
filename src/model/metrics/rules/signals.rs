//! Each signal's rule: what it reads from the scrapes and how it judges it.

use std::collections::BTreeMap;

use super::ctx::{
    CONNECTION_LABELS, Ctx, Found, REQUEST_LABELS, STATUS_LABELS, above_for, count,
    epoch_micros_any, firing, label_any, labels_text, micros_of, not_determined, percent, row,
    span,
};
use super::{RuleId, names};
use crate::model::metrics::{AlertState, Sample, Severity, series_key};

impl<'a> Ctx<'a> {
    pub(super) fn sequencer_delay(&mut self) {
        let id = RuleId::SequencerClientDelay;
        let (threshold, for_us) = (
            self.rules.sequencer_delay_us,
            self.rules.sequencer_delay_for_us,
        );
        let found = self.find(names::SEQUENCING_TIME);
        if found.is_empty() {
            return self.missing(id, above_for(threshold, for_us));
        }
        let per_endpoint = count_by_endpoint(&found);
        for (endpoint, sample) in found {
            let subject = subject_of(endpoint, sample, per_endpoint[endpoint], &[]);
            match micros_of(sample.value, 1.0) {
                Some(time) => self.age_row(
                    id,
                    Some(subject),
                    time,
                    threshold,
                    for_us,
                    Severity::Critical,
                ),
                None => self.rows.push(row(
                    id,
                    Some(subject),
                    not_determined("nothing sequenced yet"),
                    None,
                    above_for(threshold, for_us),
                )),
            }
        }
    }

    pub(super) fn mediator_lag(&mut self) {
        let id = RuleId::MediatorAckLag;
        let (threshold, for_us) = (self.rules.mediator_lag_us, self.rules.mediator_lag_for_us);
        let found = self.find(names::ACKNOWLEDGMENTS);
        if found.is_empty() {
            return self.missing(id, above_for(threshold, for_us));
        }
        let newest = found
            .iter()
            .filter(|(_, s)| s.label("member").is_some_and(|m| m.starts_with("MED::")))
            .filter_map(|(_, s)| micros_of(s.value, 1.0))
            .max();
        match newest {
            Some(time) => self.age_row(id, None, time, threshold, for_us, Severity::Critical),
            None => self.rows.push(row(
                id,
                None,
                not_determined("no acknowledgement of a mediator (member MED::…) yet"),
                None,
                above_for(threshold, for_us),
            )),
        }
    }

    pub(super) fn rounds(&mut self) {
        let id = RuleId::RoundsNotAdvancing;
        let window = self.rules.rounds_window_us;
        let open = self.find(names::OPEN_ROUND);
        let issuing = self.find(names::ISSUING_ROUND);
        if open.is_empty() && issuing.is_empty() {
            return self.missing(id, format!("no new round in {}", span(window)));
        }
        for (what, found) in [("open round", open), ("issuing round", issuing)] {
            let Some(newest) = found
                .iter()
                .map(|(_, s)| s.value)
                .filter(|v| v.is_finite())
                .reduce(f64::max)
            else {
                continue;
            };
            let subject = what.split(' ').next().map(str::to_owned);
            self.level_row(id, subject, &format!("rounds|{what}"), newest, what, window);
        }
    }

    pub(super) fn status_reports(&mut self) {
        let id = RuleId::StatusReportAge;
        let threshold = self.rules.status_report_age_us;
        let found = self.find(names::STATUS_REPORT);
        if found.is_empty() {
            return self.missing(id, above_for(threshold, 0));
        }
        let oldest = found
            .iter()
            .filter_map(|(endpoint, s)| {
                let who = s.label("report_publisher").unwrap_or(endpoint).to_owned();
                micros_of(s.value, 1.0).map(|t| (t, who))
            })
            .min();
        match oldest {
            Some((time, who)) => {
                self.age_row(id, None, time, threshold, 0, Severity::Warning);
                if let Some(last) = self.rows.last_mut()
                    && last.state.is_firing()
                {
                    last.value = last.value.take().map(|v| format!("{v} ({who})"));
                }
            }
            None => self.rows.push(row(
                id,
                None,
                not_determined("no status report yet"),
                None,
                above_for(threshold, 0),
            )),
        }
    }

    pub(super) fn disagreement(&mut self) {
        let id = RuleId::ScanDisagreement;
        let (limit, window) = (
            self.rules.disagreement_percent,
            self.rules.disagreement_window_us,
        );
        let threshold = format!("> {} over {}", percent(limit), span(window));
        let found = self.find(names::BFT_CONSENSUS);
        if found.is_empty() {
            return self.missing(id, threshold);
        }
        // connection → success → (disagreeing, all) increases, or why not.
        type Tally = BTreeMap<bool, Result<(f64, f64), String>>;
        let mut per_connection: BTreeMap<String, Tally> = BTreeMap::new();
        for (endpoint, sample) in found {
            let increase = self.increase(endpoint, sample, window);
            let excluded = label_any(sample, &REQUEST_LABELS)
                == Some("getOpenAndIssuingMiningRounds")
                || label_any(sample, &STATUS_LABELS) == Some("404");
            if excluded {
                continue;
            }
            let connection = label_any(sample, &CONNECTION_LABELS)
                .unwrap_or(endpoint)
                .to_owned();
            let success = sample.label("success") == Some("true");
            let disagrees = sample.label("consensus") == Some("disagree");
            let slot = per_connection
                .entry(connection)
                .or_default()
                .entry(success)
                .or_insert(Ok((0.0, 0.0)));
            match (slot.as_mut(), increase) {
                (Ok((bad, all)), Ok(by)) => {
                    *all += by;
                    if disagrees {
                        *bad += by;
                    }
                }
                (Ok(_), Err(why)) => *slot = Err(why),
                (Err(_), _) => {}
            }
        }
        for (connection, tally) in per_connection {
            let mut worst: Option<Severity> = None;
            let mut parts = Vec::new();
            let mut why = None;
            for (success, result) in tally.iter().rev() {
                let label = if *success { "successful" } else { "failed" };
                match result {
                    Ok((bad, all)) => {
                        let share = if *all > 0.0 { bad / all * 100.0 } else { 0.0 };
                        parts.push(format!("{} of {label}", percent(share)));
                        if share > limit {
                            let severity = if *success {
                                Severity::Critical
                            } else {
                                Severity::Warning
                            };
                            worst = worst.max(Some(severity));
                        }
                    }
                    Err(reason) => why = Some(reason.clone()),
                }
            }
            let state = match (worst, why) {
                (Some(severity), _) => firing(severity),
                (None, Some(why)) => not_determined(why),
                (None, None) => AlertState::Ok,
            };
            let value = (!parts.is_empty()).then(|| parts.join(", "));
            self.rows
                .push(row(id, Some(connection), state, value, threshold.clone()));
        }
    }

    /// The summed increase of `found` series within `window`, or why not.
    pub(super) fn summed_increase(
        &mut self,
        found: &[Found<'_>],
        window: i64,
    ) -> Result<f64, String> {
        let mut total = Ok(0.0);
        for (endpoint, sample) in found {
            let by = self.increase(endpoint, sample, window);
            total = match (total, by) {
                (Ok(sum), Ok(by)) => Ok(sum + by),
                (Err(why), _) | (Ok(_), Err(why)) => Err(why),
            };
        }
        total
    }

    pub(super) fn missed_confirmations(&mut self) {
        let id = RuleId::MissedConfirmations;
        let window = self.rules.missed_confirmations_window_us;
        let threshold = format!("> 0 in {}", span(window));
        let found = self.find(names::NON_RESPONSIVE);
        if found.is_empty() {
            return self.missing(id, threshold);
        }
        let dso: Vec<Found<'_>> = found
            .into_iter()
            .filter(|(_, s)| s.label("party").is_some_and(|p| p.starts_with("DSO::")))
            .collect();
        let state_value = match self.summed_increase(&dso, window) {
            Ok(by) if by > 0.0 => (
                firing(Severity::Warning),
                Some(format!("{} in {}", count(by), span(window))),
            ),
            Ok(by) => (AlertState::Ok, Some(count(by))),
            Err(why) => (not_determined(why), None),
        };
        self.rows
            .push(row(id, None, state_value.0, state_value.1, threshold));
    }

    pub(super) fn ingestion_lag(&mut self) {
        let id = RuleId::IngestionLag;
        let threshold = self.rules.ingestion_lag_us;
        let found = self.find(names::INGESTED);
        if found.is_empty() {
            return self.missing(id, above_for(threshold, 0));
        }
        // The oldest store of each endpoint.
        let mut oldest: BTreeMap<&str, (i64, String)> = BTreeMap::new();
        let mut unset: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        for (endpoint, sample) in &found {
            match micros_of(sample.value, 1e3) {
                Some(time) => {
                    let store = labels_text(sample, &[]);
                    let entry = oldest.entry(endpoint).or_insert((time, store.clone()));
                    if time < entry.0 {
                        *entry = (time, store);
                    }
                }
                None => {
                    unset.insert(endpoint);
                }
            }
        }
        for endpoint in &unset {
            if !oldest.contains_key(endpoint) {
                self.rows.push(row(
                    id,
                    Some((*endpoint).to_owned()),
                    not_determined("nothing ingested yet"),
                    None,
                    above_for(threshold, 0),
                ));
            }
        }
        for (endpoint, (time, store)) in oldest {
            let subject = if store.is_empty() {
                endpoint.to_owned()
            } else {
                format!("{endpoint} ({store})")
            };
            self.age_row(id, Some(subject), time, threshold, 0, Severity::Warning);
        }
    }

    pub(super) fn automation_failures(&mut self) {
        let id = RuleId::AutomationFailures;
        let window = self.rules.automation_failures_window_us;
        let threshold = format!("> 0 in {}", span(window));
        let found = self.find(names::TRIGGERS);
        if found.is_empty() {
            return self.missing(id, threshold);
        }
        let mut per_endpoint: BTreeMap<&str, Vec<Found<'_>>> = BTreeMap::new();
        for (endpoint, sample) in found {
            let entry = per_endpoint.entry(endpoint).or_default();
            if sample.label("outcome") == Some("failure") {
                entry.push((endpoint, sample));
            }
        }
        for (endpoint, failures) in per_endpoint {
            let (state, value) = match self.summed_increase(&failures, window) {
                Ok(by) if by > 0.0 => (
                    firing(Severity::Warning),
                    Some(format!("{} in {}", count(by), span(window))),
                ),
                Ok(by) => (AlertState::Ok, Some(count(by))),
                Err(why) => (not_determined(why), None),
            };
            self.rows.push(row(
                id,
                Some(endpoint.to_owned()),
                state,
                value,
                threshold.clone(),
            ));
        }
    }

    pub(super) fn acs_commitments(&mut self) {
        let id = RuleId::AcsCommitments;
        let threshold = self.rules.acs_commitment_age_us;
        let found = self.find(names::COMMITMENTS);
        if found.is_empty() {
            return self.missing(id, above_for(threshold, 0));
        }
        let per_endpoint = count_by_endpoint(&found);
        for (endpoint, sample) in found {
            let subject = subject_of(endpoint, sample, per_endpoint[endpoint], &[]);
            match epoch_micros_any(sample.value) {
                Some(time) => {
                    self.age_row(id, Some(subject), time, threshold, 0, Severity::Critical);
                }
                None => self.rows.push(row(
                    id,
                    Some(subject),
                    not_determined("no commitment checkpointed yet"),
                    None,
                    above_for(threshold, 0),
                )),
            }
        }
    }

    pub(super) fn traffic(&mut self) {
        let id = RuleId::Traffic;
        let (warn, error) = (
            self.rules.traffic_warn_percent,
            self.rules.traffic_error_percent,
        );
        let threshold = format!("< {warn} % left (red < {error} %)");
        let purchased = self.find(names::TRAFFIC_PURCHASED);
        let consumed = self.find(names::TRAFFIC_CONSUMED);
        if purchased.is_empty() {
            return self.missing(id, threshold);
        }
        let per_endpoint = count_by_endpoint(&purchased);
        for (endpoint, bought) in purchased {
            let used = consumed
                .iter()
                .find(|(e, s)| *e == endpoint && s.labels == bought.labels)
                .map(|(_, s)| s.value);
            let subject = subject_of(endpoint, bought, per_endpoint[endpoint], &[]);
            let (state, value) = match used {
                None => (not_determined("no extra_traffic_consumed beside it"), None),
                Some(_) if bought.value <= 0.0 || !bought.value.is_finite() => {
                    (not_determined("no extra traffic purchased"), None)
                }
                Some(used) => {
                    let left = (bought.value - used) / bought.value * 100.0;
                    let state = if left < f64::from(error) {
                        firing(Severity::Critical)
                    } else if left < f64::from(warn) {
                        firing(Severity::Warning)
                    } else {
                        AlertState::Ok
                    };
                    (
                        state,
                        Some(format!(
                            "{} left of {}",
                            percent(left.max(0.0)),
                            count(bought.value)
                        )),
                    )
                }
            };
            self.rows
                .push(row(id, Some(subject), state, value, threshold.clone()));
        }
    }

    pub(super) fn ordering(&mut self) {
        let id = RuleId::OrderingLayer;
        let window = self.rules.ordering_window_us;
        let found: Vec<Found<'a>> = names::ORDERING_HEIGHTS
            .iter()
            .flat_map(|name| self.find(name))
            .collect();
        if found.is_empty() {
            return self.missing(id, format!("no new height in {}", span(window)));
        }
        let per_endpoint = count_by_endpoint(&found);
        for (endpoint, sample) in found {
            let subject = subject_of(endpoint, sample, per_endpoint[endpoint], &[]);
            let key = series_key(endpoint, sample);
            self.level_row(id, Some(subject), &key, sample.value, "height", window);
        }
    }

    pub(super) fn votes(&mut self) {
        let id = RuleId::VotesNeedingAction;
        let found = self.find(names::VOTES);
        if found.is_empty() {
            return self.missing(id, "-".to_owned());
        }
        let waiting: f64 = found
            .iter()
            .filter(|(_, s)| s.label("state") == Some("action_needed"))
            .map(|(_, s)| s.value)
            .filter(|v| v.is_finite())
            .sum();
        self.rows.push(row(
            id,
            None,
            AlertState::Info,
            Some(count(waiting)),
            "-".to_owned(),
        ));
    }
}

/// How many of `found` each endpoint exported.
fn count_by_endpoint<'a>(found: &[Found<'a>]) -> BTreeMap<&'a str, usize> {
    let mut counts = BTreeMap::new();
    for (endpoint, _) in found {
        *counts.entry(*endpoint).or_insert(0) += 1;
    }
    counts
}

/// A row's subject: the endpoint, with the series' labels when it exports several.
fn subject_of(endpoint: &str, sample: &Sample, in_endpoint: usize, skip: &[&str]) -> String {
    let labels = labels_text(sample, skip);
    if in_endpoint > 1 && !labels.is_empty() {
        format!("{endpoint} ({labels})")
    } else {
        endpoint.to_owned()
    }
}
