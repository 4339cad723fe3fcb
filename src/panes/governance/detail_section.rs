//! The Detail section's side of the pane: choosing what it shows (an open request or a past
//! result), looking up its updates, its lines, and its keys (scrolling, Back, Copy, Enter).

use ratatui::text::Line;

use super::{
    DetailOf, DetailView, GovSection, GovernancePane, Target, UpdateLookup, detail, past, prices,
};
use crate::msg::Command;
use crate::panes::{AppEvent, Out, Shared};
use crate::ui::theme::Theme;

impl GovernancePane {
    /// The past result shown in Detail (when Detail shows one), as the scan sent it.
    pub fn chosen_result(&self) -> Option<&crate::api::scan::VoteResult> {
        if self.detail_of != DetailOf::Result {
            return None;
        }
        self.results.raw.get(self.chosen_result?)
    }

    /// Opens the result selected in Results in Detail.
    pub(super) fn open_result(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let Some(i) = self.results.selected_raw() else {
            return false;
        };
        self.chosen_result = Some(i);
        self.show_detail(DetailOf::Result, sh, out);
        true
    }

    /// Shows the request or result chosen in Detail, looking up its updates.
    fn show_detail(&mut self, of: DetailOf, sh: &mut Shared, out: &mut Out) {
        self.detail_of = of;
        self.scroll = 0;
        self.section = GovSection::Detail;
        self.look_up(sh, out);
    }

    /// The updates of the request or result shown in Detail: the loaded history is read now,
    /// the local index asked when it lacks them.
    pub(super) fn look_up(&mut self, sh: &mut Shared, out: &mut Out) {
        let target = match self.detail_of {
            DetailOf::Open => self.chosen().map(|r| Target {
                contract_id: r.key.clone(),
                close: false,
            }),
            DetailOf::Result => self.chosen_result().and_then(|r| {
                let t = r.request.tracking_cid.as_deref().filter(|t| !t.is_empty());
                t.map(|t| Target {
                    contract_id: t.to_owned(),
                    close: true,
                })
            }),
        };
        self.lookup.start(target, sh, out);
    }

    /// The look-up of the updates of the request or result shown in Detail.
    pub fn lookup(&self) -> &UpdateLookup {
        &self.lookup
    }

    /// The lines of Detail on a screen `width` columns wide.
    pub(super) fn detail_lines(
        &self,
        sh: &Shared,
        theme: &Theme,
        width: u16,
    ) -> Vec<Line<'static>> {
        let view = DetailView {
            lookup: &self.lookup,
            dso: sh.health.dso.info.as_deref(),
            width,
            sh,
            theme,
        };
        match self.detail_of {
            DetailOf::Open => match self.chosen() {
                Some(r) => detail::detail_lines(r, self.chosen_request(), view),
                None => Vec::new(),
            },
            DetailOf::Result => match self
                .chosen_result
                .and_then(|i| Some((self.results.raw.get(i)?, self.results.rows.get(i)?)))
            {
                Some((result, row)) => past::result_lines(result, row, &self.results.raw, view),
                None => Vec::new(),
            },
        }
    }

    /// Opens the selected request in Detail.
    pub(super) fn open_detail(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let Some(key) = self.selected().map(|r| r.key.clone()) else {
            return false;
        };
        self.chosen = Some(key);
        self.show_detail(DetailOf::Open, sh, out);
        true
    }

    fn detail_viewport(&self) -> usize {
        usize::from(self.area.height.saturating_sub(3)).max(1)
    }

    /// The first line of Detail (or Price votes) that can be shown with the last line at the
    /// bottom.
    fn detail_last_scroll(&self, sh: &Shared) -> usize {
        let dso = sh.health.dso.info.as_deref();
        let theme = Theme::default();
        let len = match self.section {
            GovSection::PriceVotes => self.prices.done().map_or(0, |v| {
                prices::price_lines(v, dso, u16::MAX, sh, &theme).len()
            }),
            // (The count of lines does not depend on the width.)
            _ => self.detail_lines(sh, &theme, u16::MAX).len(),
        };
        len.saturating_sub(self.detail_viewport())
    }

    pub(super) fn detail_command(&mut self, cmd: Command, sh: &Shared, out: &mut Out) -> bool {
        let page = self.detail_viewport();
        let last = self.detail_last_scroll(sh);
        match cmd {
            Command::Back => {
                self.section = match self.detail_of {
                    DetailOf::Open => GovSection::Open,
                    DetailOf::Result => GovSection::Results,
                }
            }
            Command::Copy if self.detail_of == DetailOf::Result => {
                match self.chosen_result().map(|r| r.request.key().to_owned()) {
                    Some(k) if !k.is_empty() => out.copy("request's tracking id", k),
                    _ => return false,
                }
            }
            Command::Up => self.scroll = self.scroll.saturating_sub(1),
            Command::Down => self.scroll = (self.scroll + 1).min(last),
            Command::PageUp => self.scroll = self.scroll.saturating_sub(page),
            Command::PageDown => self.scroll = (self.scroll + page).min(last),
            Command::Top => self.scroll = 0,
            Command::Bottom => self.scroll = last,
            // The request's update (a past result's: the one that closed it).
            Command::Select => match self.lookup.link(sh) {
                Ok(update_id) => out.events.push(AppEvent::OpenUpdate {
                    update_id,
                    event_id: None,
                }),
                Err(why) => out.info(format!("the request's update: {why}")),
            },
            Command::Copy => match self.chosen() {
                Some(r) => out.copy("request's contract id", r.contract_id.clone()),
                None => return false,
            },
            _ => return false,
        }
        true
    }
}
