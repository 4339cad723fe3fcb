//! The BFT sequencers section: this SV's sequencers, one per synchronizer serial.

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::NetworkPane;
use crate::api::scan::SynchronizerBftSequencer;
use crate::msg::{Effect, Request};
use crate::panes::form::{Load, paragraph};
use crate::panes::{Out, RenderCtx, Shared};
use crate::ui::layout::heading;
use crate::ui::load::Waiting;
use crate::ui::table::{Cell, Column, Columns, DataTable, Draw, SortKey, TableRow, Width};
use crate::ui::theme::Theme;

/// The columns of the BFT sequencers table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqCol {
    Serial,
    Id,
    Url,
}

impl TableRow for SynchronizerBftSequencer {
    type Col = SeqCol;
    type Ctx = ();

    fn cell(&self, col: SeqCol, _width: u16, (): &(), theme: &Theme) -> Cell<'_> {
        match col {
            SeqCol::Serial => Cell::new(self.serial_id.to_string(), theme.muted),
            SeqCol::Id => Cell::new(self.id.as_str(), theme.id),
            SeqCol::Url => Cell::new(self.p2p_url.as_str(), theme.accent),
        }
    }

    fn sort_key(&self, col: SeqCol) -> SortKey<'_> {
        match col {
            SeqCol::Serial => SortKey::Int(self.serial_id.into()),
            SeqCol::Id => SortKey::Text(Cow::Borrowed(&self.id)),
            SeqCol::Url => SortKey::Text(Cow::Borrowed(&self.p2p_url)),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!("{} {} {}", self.serial_id, self.id, self.p2p_url))
    }
}

pub(super) fn seq_table() -> DataTable<SeqCol> {
    DataTable::new(Columns::new(vec![
        Column::new(SeqCol::Serial, "Serial", Width::Fixed(6)).priority(1),
        Column::new(SeqCol::Id, "Id", Width::Fill { min: 1, weight: 2 }),
        Column::new(SeqCol::Url, "P2P URL", Width::Fill { min: 1, weight: 3 }),
    ]))
}

const SEQUENCERS_WAITING: Waiting = Waiting {
    idle: "Press r to load the BFT sequencers of this SV.",
    loading: "loading BFT sequencers…",
};

impl NetworkPane {
    pub(super) fn load_sequencers(&mut self, sh: &mut Shared, out: &mut Out) {
        if let Load::Loading(old) = self.sequencers {
            out.effects.push(Effect::Cancel(old));
        }
        self.sequencers =
            Load::Loading(out.fetch(sh, Request::api(crate::api::scan::bft_sequencers())));
    }

    pub(super) fn render_sequencers(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { theme, focused, .. } = cx;
        let Some(seqs) = self
            .sequencers
            .or_draw(area, buf, theme, &SEQUENCERS_WAITING)
        else {
            return;
        };
        if seqs.is_empty() {
            paragraph(
                area,
                buf,
                "This SV has no BFT sequencer configured (the scan returned an empty list).",
                theme.muted,
            );
            return;
        }
        let line = format!(
            "{} BFT sequencer{} of this SV (one per synchronizer serial)",
            seqs.len(),
            if seqs.len() == 1 { "" } else { "s" }
        );
        let table = heading(buf, area, &line, theme.muted);
        let draw = Draw::new(&(), theme, focused);
        self.seq_table.render(table, buf, seqs, &draw);
    }
}
