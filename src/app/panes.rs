//! Every pane of the explorer in one struct, the list written once (the [`panes!`] invocation
//! below): construction, and lookup by [`PaneId`] as `&dyn Pane` / `&mut dyn Pane`. The fields
//! stay public so the app (and tests) reach a pane's own methods (`panes.history.goto_time`).

use crate::panes::governance::GovernancePane;
use crate::panes::history::HistoryPane;
use crate::panes::holdings::HoldingsPane;
use crate::panes::ledger::LedgerPane;
use crate::panes::network::NetworkPane;
use crate::panes::proxy::ProxyPane;
use crate::panes::status::StatusPane;
use crate::panes::update::UpdatePane;
use crate::panes::validators::ValidatorsPane;
use crate::panes::verdict::VerdictPane;
use crate::panes::{Pane, PaneId, Shared};

/// Declares [`Panes`] from one list of `PaneId variant => field: type = constructor`.
macro_rules! panes {
    ($($id:ident => $field:ident: $ty:ty = $new:expr),* $(,)?) => {
        /// The panes, one field each.
        pub struct Panes {
            $(pub $field: $ty,)*
        }

        impl Panes {
            /// Every pane, fresh.
            pub fn new(sh: &Shared) -> Self {
                Panes { $($field: ($new)(sh),)* }
            }

            /// The pane with this id.
            pub fn get(&self, id: PaneId) -> &dyn Pane {
                match id { $(PaneId::$id => &self.$field,)* }
            }

            /// The pane with this id, mutably.
            pub fn get_mut(&mut self, id: PaneId) -> &mut dyn Pane {
                match id { $(PaneId::$id => &mut self.$field,)* }
            }
        }
    };
}

panes! {
    History => history: HistoryPane = HistoryPane::new,
    Update => update_pane: UpdatePane = |_: &Shared| UpdatePane::new(),
    Verdict => verdict: VerdictPane = |_: &Shared| VerdictPane::new(),
    Status => status: StatusPane = StatusPane::new,
    Holdings => holdings: HoldingsPane = HoldingsPane::new,
    Validators => validators: ValidatorsPane = ValidatorsPane::new,
    Network => network: NetworkPane = NetworkPane::new,
    Proxy => proxy: ProxyPane = ProxyPane::new,
    Ledger => ledger: LedgerPane = LedgerPane::new,
    Governance => governance: GovernancePane = GovernancePane::new,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panes::AppContext;

    #[test]
    fn every_id_finds_its_own_pane() {
        let sh = Shared::new(AppContext::default(), 0);
        let mut panes = Panes::new(&sh);
        for id in PaneId::ALL {
            assert_eq!(panes.get(id).id(), id);
            assert_eq!(panes.get_mut(id).id(), id);
        }
    }
}
