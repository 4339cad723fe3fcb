//! The Rounds view's reward tree (`T`): the selected round's tree walked on every scan that
//! serves a root hash (by the runtime, `Request::RoundTree`), each batch's hash recomputed and
//! its leaves' providers checked against the index's kept activity
//! ([`crate::model::reward_tree`]); what the detail says of it, per scan. Pure: the walk is
//! asked by the app, drawn from this state only.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::scans::Tone;
use crate::model::reward_tree::{RoundTrees, TreeOutcome, short};
use crate::msg::RequestId;
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

/// What the view knows of one round's reward tree.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeState {
    /// Walked by this request.
    Asked(RequestId),
    /// Every scan's walk, its leaves judged.
    Answered(Box<RoundTrees>),
    /// The request failed.
    Failed(String),
    /// No scan is asked, and why (`--offline`, no scan configured).
    NotAsked(String),
}

impl TreeState {
    /// The walks answered, judged: `compare` is the index's count of active providers when it
    /// holds the whole round (else only each scan's own sums are checked).
    pub fn answered(mut trees: RoundTrees, compare: Option<i64>) -> TreeState {
        trees.judge(compare);
        TreeState::Answered(Box::new(trees))
    }

    /// How many lines the detail gives it: a heading, then one per scan.
    pub fn rows(&self) -> usize {
        match self {
            TreeState::Answered(t) => 1 + t.scans.len() + usize::from(t.kept_failed().is_some()),
            _ => 1,
        }
    }

    /// The detail's lines: the round's verdict over the scans, then each scan's walk and
    /// leaves. `tone` styles a line by how it reads.
    pub fn lines(
        &self,
        width: usize,
        theme: &Theme,
        tone: &dyn Fn(Tone) -> Style,
    ) -> Vec<Line<'static>> {
        let say =
            |text: String, style: Style| Line::styled(safe_line(&text, width).into_owned(), style);
        let trees = match self {
            TreeState::Asked(_) => {
                return vec![say(
                    "Reward tree: walking it on every scan…".into(),
                    theme.muted,
                )];
            }
            TreeState::Failed(e) => {
                return vec![say(
                    format!("Reward tree: could not be walked: {e}"),
                    theme.status_err,
                )];
            }
            TreeState::NotAsked(why) => {
                return vec![say(
                    format!("Reward tree: not walked ({why}): no scan is asked"),
                    theme.muted,
                )];
            }
            TreeState::Answered(t) => t,
        };
        let (verdict, diverges) = trees.verdict();
        let head_tone = if diverges {
            Tone::Diverges
        } else if trees
            .scans
            .iter()
            .any(|s| s.outcome == TreeOutcome::Verified)
        {
            Tone::Agree
        } else {
            Tone::Quiet
        };
        let mut lines = vec![say(format!("Reward tree: {verdict}"), tone(head_tone))];
        if let Some(e) = trees.kept_failed() {
            lines.push(say(
                format!("  the index could not be read for the providers: {e}"),
                theme.status_warn,
            ));
        }
        let name_w = trees
            .scans
            .iter()
            .map(|s| s.scan.chars().count())
            .max()
            .unwrap_or(0)
            .clamp(4, 20);
        for s in &trees.scans {
            let mut text = s.said(&short);
            if let Some(l) = &s.leaves {
                text = format!("{text} · leaves: {}", l.said());
            }
            let t = if s.diverges() {
                Tone::Diverges
            } else if s.outcome == TreeOutcome::Verified {
                Tone::Agree
            } else if s.outcome == TreeOutcome::Unverifiable {
                Tone::Doubt
            } else {
                Tone::Quiet
            };
            let name = safe_line(&s.scan, name_w);
            let rest = width.saturating_sub(name_w + 2);
            lines.push(Line::from(vec![
                Span::styled(format!("  {name:<name_w$}"), theme.accent),
                Span::styled(format!(" {}", safe_line(&text, rest)), tone(t)),
            ]));
        }
        lines
    }
}
