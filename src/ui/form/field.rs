//! A form field: what it holds (text, a list of ids, a choice), its input and its completion
//! candidates.

use super::{is_separator, matching, split_ids};
use crate::ui::text_input::{InputMode, TextInput};

/// Most completion candidates kept per field.
const MAX_CANDIDATES: usize = 5_000;

/// What a field holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// Text (the input's own mode: single- or multi-line).
    Text,
    /// A list of ids. `noun` names one and many (`("owner", "owners")`); `rows` is how the list
    /// is shown: 0 as a count with names in front of the entry, 1 as that line under the field
    /// (always reserved), more as the ids in columns (up to `rows` rows, when there are ids).
    List {
        noun: (&'static str, &'static str),
        rows: u16,
    },
    /// One of `options`.
    Choice {
        options: &'static [&'static str],
        selected: usize,
    },
}

/// One labelled field.
#[derive(Debug, Clone)]
pub struct Field {
    pub label: &'static str,
    /// The text, or the entry of a list.
    pub input: TextInput,
    /// Values Tab completes to.
    pub candidates: Vec<String>,
    pub(super) kind: Kind,
    /// The ids of a list.
    pub(super) items: Vec<String>,
    /// The placeholder of an empty list (another one asks for more once there are ids).
    pub(super) placeholder: String,
}

impl Field {
    pub(super) fn with(
        label: &'static str,
        input: TextInput,
        kind: Kind,
        placeholder: &str,
    ) -> Self {
        Field {
            label,
            input,
            candidates: Vec::new(),
            kind,
            items: Vec::new(),
            placeholder: placeholder.to_string(),
        }
    }

    /// A single-line text field starting with `text`, showing `placeholder` while empty.
    pub fn text(label: &'static str, text: &str, placeholder: &str) -> Self {
        let input = TextInput::single_line()
            .with_placeholder(placeholder)
            .with_text(text);
        Self::with(label, input, Kind::Text, placeholder)
    }

    /// A multi-line text field (Enter adds a line, Ctrl-s submits).
    pub fn multi_line(label: &'static str, text: &str, placeholder: &str) -> Self {
        let input = TextInput::multi_line()
            .with_placeholder(placeholder)
            .with_text(text);
        Self::with(label, input, Kind::Text, placeholder)
    }

    /// A list of ids starting with `items` (see [`Kind::List`]).
    pub fn list(
        label: &'static str,
        items: &[String],
        placeholder: &str,
        noun: (&'static str, &'static str),
        rows: u16,
    ) -> Self {
        let mut f = Self::with(
            label,
            TextInput::single_line(),
            Kind::List { noun, rows },
            placeholder,
        );
        f.set_items(items.iter().cloned());
        f
    }

    /// A choice between `options`, `selected` first.
    pub fn choice(label: &'static str, options: &'static [&'static str], selected: usize) -> Self {
        let selected = selected.min(options.len().saturating_sub(1));
        Self::with(
            label,
            TextInput::single_line(),
            Kind::Choice { options, selected },
            "",
        )
    }

    /// Sets the completion candidates (deduplicated, sorted, bounded).
    #[must_use]
    pub fn candidates<'a>(mut self, candidates: impl IntoIterator<Item = &'a str>) -> Self {
        self.set_candidates(candidates);
        self
    }

    /// Replaces the completion candidates.
    pub fn set_candidates<'a>(&mut self, candidates: impl IntoIterator<Item = &'a str>) {
        let mut c: Vec<String> = candidates
            .into_iter()
            .filter(|s| !s.is_empty())
            .take(MAX_CANDIDATES)
            .map(str::to_string)
            .collect();
        c.sort();
        c.dedup();
        self.candidates = c;
    }

    /// What the field holds.
    pub fn kind(&self) -> &Kind {
        &self.kind
    }

    /// The ids of a list field (without its entry).
    pub fn items(&self) -> &[String] {
        &self.items
    }

    pub(super) fn is_list(&self) -> bool {
        matches!(self.kind, Kind::List { .. })
    }

    pub(super) fn is_multi_line(&self) -> bool {
        self.kind == Kind::Text && self.input.mode() == InputMode::MultiLine
    }

    /// Replaces the ids of a list.
    pub(super) fn set_items(&mut self, items: impl IntoIterator<Item = String>) {
        self.items.clear();
        for id in items {
            if !id.is_empty() && !self.items.contains(&id) {
                self.items.push(id);
            }
        }
        self.refresh_placeholder();
    }

    pub(super) fn refresh_placeholder(&mut self) {
        if !self.is_list() {
            return;
        }
        if self.items.is_empty() {
            self.input.set_placeholder(self.placeholder.clone());
        } else if self.candidates.is_empty() {
            self.input.set_placeholder("add another id");
        } else {
            self.input.set_placeholder("add another id (Tab completes)");
        }
    }

    /// Moves the ids typed in the entry to the list (all of them when `all`, else every one
    /// followed by a separator, the last staying in the entry for editing).
    pub(super) fn commit(&mut self, all: bool) {
        let text = self.input.text();
        let ends_with_separator = text.chars().last().is_some_and(is_separator);
        let mut words = split_ids(&text);
        let keep = if all || ends_with_separator {
            None
        } else {
            words.pop()
        };
        if words.is_empty() && keep.as_deref() == Some(text.as_str()) {
            return;
        }
        for w in words {
            if !self.items.contains(&w) {
                self.items.push(w);
            }
        }
        self.input.set_text(keep.as_deref().unwrap_or(""));
        self.refresh_placeholder();
    }

    /// The value: trimmed text, the ids of a list (and its entry) joined by spaces, or the
    /// chosen option.
    pub fn value(&self) -> String {
        match &self.kind {
            Kind::Text => self.input.text().trim().to_string(),
            Kind::List { .. } => self.ids().join(" "),
            Kind::Choice { options, selected } => {
                options.get(*selected).copied().unwrap_or("").to_string()
            }
        }
    }

    /// The ids of the field: a list's ids and what its entry holds, or the ids of the text.
    pub fn ids(&self) -> Vec<String> {
        let mut out = self.items.clone();
        for id in split_ids(&self.input.text()) {
            if !out.contains(&id) {
                out.push(id);
            }
        }
        out
    }

    /// What Tab completes in this field: the entry or the whole text.
    pub(super) fn typed(&self) -> String {
        self.input.text().trim().to_string()
    }

    /// The candidates matching what was typed (ids already in a list are not offered again).
    pub(super) fn fresh_matches(&self) -> Vec<&str> {
        matching(&self.candidates, &self.typed())
            .into_iter()
            .filter(|c| !self.items.iter().any(|i| i == c))
            .collect()
    }
}
