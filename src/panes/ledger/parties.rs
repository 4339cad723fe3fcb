//! Parties section: `GET /v2/parties/{party}` with extra `parties` and an
//! `identity-provider-id`; a table of the party details (is-local, identity provider, resource
//! version, annotations of the local metadata) and the full record of the selected row.

use std::borrow::Cow;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;

use crate::api::ledger::{PartiesResponse, PartyDetails};
use crate::msg::Command;
use crate::msg::{Fetched, Request, RequestId, Response};
use crate::panes::{Out, Shared};
use crate::ui::safe::safe_line;
use crate::ui::table::{Cell, Column, Columns, DataTable, Draw, SortKey, TableRow, Width};
use crate::ui::theme::Theme;

use super::SectionView;
use super::common::{FORM_HINTS, SectionState, kv_line, put, split_list};
use crate::ui::explain::{Note, Tone, explain_failure};
use crate::ui::form::{Field, Form, form_or_table_key, form_or_table_paste};
use crate::ui::load::accept;

/// The Parties section.
#[derive(Debug)]
pub struct Parties {
    form: Option<Form>,
    /// The last query (party, more parties, identity provider id), to refill the form.
    query: (String, String, String),
    pending: Option<RequestId>,
    /// The parties asked for in the current answer.
    requested: Vec<String>,
    details: Vec<PartyDetails>,
    error: Option<Vec<Note>>,
    answered: bool,
    table: DataTable<PartyCol>,
}

impl Default for Parties {
    fn default() -> Self {
        Parties {
            form: None,
            query: Default::default(),
            pending: None,
            requested: Vec::new(),
            details: Vec::new(),
            error: None,
            answered: false,
            table: DataTable::new(PartyCol::columns()),
        }
    }
}

/// The columns of the party details table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartyCol {
    Party,
    Local,
    IdentityProvider,
    Version,
    Annotations,
}

impl PartyCol {
    /// Party and annotations share what is left (3 : 2); the identity provider column widens
    /// from 100 columns on.
    fn columns() -> Columns<PartyCol> {
        Columns::new(vec![
            Column::new(PartyCol::Party, "party", Width::Fill { min: 8, weight: 3 }),
            Column::new(PartyCol::Local, "local", Width::Fixed(5)).priority(3),
            Column::new(
                PartyCol::IdentityProvider,
                "identity provider",
                Width::Wide {
                    narrow: 10,
                    wide: 18,
                    from: 100,
                },
            )
            .priority(2),
            Column::new(PartyCol::Version, "version", Width::Fixed(7)).priority(1),
            Column::new(
                PartyCol::Annotations,
                "annotations",
                Width::Fill { min: 0, weight: 2 },
            )
            .priority(4),
        ])
    }
}

/// Text, or missing (sorted first) when absent.
fn text_key(s: Option<&str>) -> SortKey<'_> {
    s.map_or(SortKey::Missing, |s| SortKey::Text(Cow::Borrowed(s)))
}

fn resource_version(d: &PartyDetails) -> Option<&str> {
    d.local_metadata
        .as_ref()
        .and_then(|m| m.resource_version.as_deref())
}

impl TableRow for PartyDetails {
    type Col = PartyCol;
    type Ctx = ();

    fn cell(&self, col: PartyCol, _width: u16, (): &(), theme: &Theme) -> Cell<'_> {
        match col {
            PartyCol::Party => Cell::new(self.party.as_str(), theme.party),
            PartyCol::Local if self.is_local => Cell::new("yes", theme.status_ok),
            PartyCol::Local => Cell::new("no", theme.muted),
            PartyCol::IdentityProvider => Cell::new(
                or_dash(self.identity_provider_id.as_deref()),
                Style::default(),
            ),
            PartyCol::Version => Cell::new(or_dash(resource_version(self)), theme.muted),
            PartyCol::Annotations => Cell::new(annotations(self), theme.accent),
        }
    }

    fn sort_key(&self, col: PartyCol) -> SortKey<'_> {
        match col {
            PartyCol::Party => SortKey::Text(Cow::Borrowed(&self.party)),
            PartyCol::Local => SortKey::Int(i128::from(self.is_local)),
            PartyCol::IdentityProvider => text_key(self.identity_provider_id.as_deref()),
            PartyCol::Version => text_key(resource_version(self)),
            PartyCol::Annotations => SortKey::Text(Cow::Owned(annotations(self))),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!(
            "{} {} {}",
            self.party,
            self.identity_provider_id.as_deref().unwrap_or(""),
            annotations(self)
        ))
    }
}

fn annotations(d: &PartyDetails) -> String {
    d.local_metadata
        .as_ref()
        .map(|m| {
            m.annotations
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

fn or_dash(s: Option<&str>) -> &str {
    match s {
        Some(v) if !v.is_empty() => v,
        _ => "-",
    }
}

impl Parties {
    /// Whether the form is open.
    pub fn form_open(&self) -> bool {
        self.form.is_some()
    }

    /// Whether an answer arrived (the table, possibly empty, is shown).
    pub fn answered(&self) -> bool {
        self.answered
    }

    /// The party ids of the answer, in order.
    pub fn party_ids(&self) -> Vec<&str> {
        self.details.iter().map(|d| d.party.as_str()).collect()
    }

    /// Parties asked for that the answer does not list (unknown to the participant).
    pub fn unknown(&self) -> Vec<&str> {
        self.requested
            .iter()
            .filter(|r| !self.details.iter().any(|d| &d.party == *r))
            .map(String::as_str)
            .collect()
    }

    fn open_form(&mut self, sh: &Shared) {
        let (p, m, i) = &self.query;
        let parties = sh.history.parties();
        self.form = Some(Form::new(vec![
            Field::text("party", p, "party id (Tab completes from the history)")
                .candidates(parties.iter().copied()),
            Field::list(
                "more parties",
                &split_list(m),
                "optional, comma separated",
                ("party", "parties"),
                0,
            )
            .candidates(parties),
            Field::text("identity provider", i, "optional identity-provider-id"),
        ]));
    }

    fn submit(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(form) = &mut self.form else { return };
        let Some([party]) = form.required([(0, "a party id is required")]) else {
            return;
        };
        let more = form.ids(1);
        let idp = form.value(2);
        self.query = (party.clone(), more.join(", "), idp.clone());
        self.form = None;
        self.send(&party, &more, &idp, sh, out);
    }

    fn send(&mut self, party: &str, more: &[String], idp: &str, sh: &mut Shared, out: &mut Out) {
        let mut requested = vec![party.to_owned()];
        requested.extend(more.iter().cloned());
        self.requested = requested;
        self.pending = Some(out.fetch(
            sh,
            Request::api(crate::api::ledger::parties(
                party,
                more,
                (!idp.is_empty()).then_some(idp),
            )),
        ));
    }

    /// The ledger under the section was replaced: the last query, if any, is asked again (the
    /// parties known to the new ledger may differ).
    pub fn ledger_replaced(&mut self, sh: &mut Shared, out: &mut Out) {
        if !self.requested.is_empty() {
            let (p, m, i) = self.query.clone();
            self.send(&p, &split_list(&m), &i, sh, out);
        }
    }

    fn selected(&self) -> Option<&PartyDetails> {
        self.table.selected_row(&self.details)
    }
}

impl SectionView for Parties {
    fn wants_raw_keys(&self) -> bool {
        self.form.is_some() || self.table.is_filtering()
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        if form_or_table_key(&mut self.form, &mut self.table, &self.details, key) {
            self.submit(sh, out);
        }
    }

    fn on_paste(&mut self, text: &str) {
        form_or_table_paste(&mut self.form, &mut self.table, &self.details, text);
    }

    fn sort_by_letter(&mut self, letter: char) -> bool {
        self.form.is_none() && self.table.sort_by_letter(letter, &self.details)
    }

    fn sort_letters(&self) -> Option<String> {
        let hint = self.table.columns().letter_hint();
        (self.form.is_none() && !self.details.is_empty() && !hint.is_empty()).then_some(hint)
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        match cmd {
            Command::Edit => {
                self.open_form(sh);
                true
            }
            Command::Refresh => {
                // Nothing asked yet: only the ledger end is refreshed (by the pane).
                if !self.requested.is_empty() {
                    let (p, m, i) = self.query.clone();
                    self.send(&p, &split_list(&m), &i, sh, out);
                }
                true
            }
            Command::Copy => {
                if let Some(d) = self.selected() {
                    out.copy("party id", d.party.clone());
                }
                true
            }
            _ => self.table.on_command(cmd, &self.details),
        }
    }

    fn on_fetched(&mut self, reply: &Fetched, _sh: &mut Shared, out: &mut Out) {
        let Some(answer) = accept(
            &mut self.pending,
            reply,
            "the parties request",
            Response::answer::<crate::api::ledger::PartiesResponse>,
        ) else {
            return;
        };
        self.answered = true;
        match answer {
            Ok(r) => {
                let PartiesResponse { party_details, .. } = r;
                self.details = party_details.clone();
                self.error = None;
                self.table.reset_rows(&self.details);
            }
            Err(failure) => {
                self.details.clear();
                self.table.reset_rows(&self.details);
                self.error = Some(explain_failure(&failure, None));
                out.error(format!("parties: {failure}"));
            }
        }
    }

    fn set_rows(&mut self, rows: usize) {
        self.table.set_viewport(rows.saturating_sub(6).max(1));
    }

    fn render(&self, area: Rect, buf: &mut Buffer, _sh: &Shared, theme: &Theme, focused: bool) {
        let intro = [
            Note::new(
                Tone::Plain,
                "GET /v2/parties/{party}: details of parties known to the participant.",
            ),
            Note::new(
                Tone::Muted,
                "Press i to enter a party (Tab completes party ids seen in the history), more parties and an identity provider id.",
            ),
        ];
        let state = SectionState {
            form: self.form.as_ref(),
            submit: "look up",
            pending: self.pending.is_some().then_some("looking up parties…"),
            error: self.error.as_deref(),
            answered: self.answered,
            intro: &intro,
        };
        if let Some(rest) = state.render(area, buf, theme) {
            render_table(self, rest, buf, theme, focused);
        }
    }

    /// The selected party's row, every column whole.
    fn fields(&self, _sh: &Shared) -> Vec<crate::ui::fields::Field> {
        self.table
            .selected_fields(&self.details, &())
            .unwrap_or_default()
    }

    fn hints(&self) -> Vec<Command> {
        if self.form.is_some() {
            FORM_HINTS.to_vec()
        } else if self.table.is_filtering() {
            vec![Command::Confirm, Command::Cancel]
        } else {
            vec![
                Command::Edit,
                Command::Down,
                Command::Copy,
                Command::Refresh,
                Command::NextSection,
            ]
        }
    }
}

fn render_table(p: &Parties, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let unknown = p.unknown();
    let mut summary = format!(
        "{} of {} requested parties known",
        p.details.len(),
        p.requested.len()
    );
    if !unknown.is_empty() {
        summary.push_str(&format!(" · not known: {}", unknown.join(", ")));
    }
    put(
        area,
        0,
        buf,
        &Line::styled(safe_line(&summary, width).into_owned(), theme.accent),
    );
    if p.details.is_empty() {
        return;
    }
    // Detail rows of the selected party at the bottom.
    let detail_rows: u16 = 4;
    let table_rows = area.height.saturating_sub(2 + detail_rows + 1).max(1);
    let table = Rect::new(
        area.x,
        area.y + 1,
        area.width,
        (1 + table_rows).min(area.height.saturating_sub(1)),
    );
    let draw = Draw::new(&(), theme, focused);
    p.table.render(table, buf, &p.details, &draw);
    let y0 = 2 + table_rows + 1;
    if let Some(d) = p.selected()
        && y0 < area.height
    {
        let lw = 11;
        let ann = annotations(d);
        let rows = [
            kv_line("party", &d.party, theme.party, lw, area.width, theme),
            kv_line(
                "local",
                if d.is_local {
                    "yes: hosted here, same identity provider as the user"
                } else {
                    "no"
                },
                Style::default(),
                lw,
                area.width,
                theme,
            ),
            kv_line(
                "idp",
                match d.identity_provider_id.as_deref() {
                    Some(v) if !v.is_empty() => v,
                    _ => "(default identity provider)",
                },
                Style::default(),
                lw,
                area.width,
                theme,
            ),
            kv_line(
                "annotations",
                if ann.is_empty() { "-" } else { &ann },
                theme.accent,
                lw,
                area.width,
                theme,
            ),
        ];
        for (k, l) in rows.iter().enumerate() {
            put(area, y0 + k as u16, buf, l);
        }
    }
}
