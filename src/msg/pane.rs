//! Which pane: the tab order, titles, and the owner of every request a pane sends.

use crate::msg::tabs::tabs;

tabs! {
    /// Which pane, in tab order (number keys follow it); the title is the tab's label.
    #[derive(Hash, PartialOrd, Ord, Default)]
    pub enum PaneId {
        #[default]
        History => "History",
        Update => "Update",
        Verdict => "Verdict",
        Status => "Status",
        Holdings => "Holdings",
        Validators => "Validators",
        Network => "Network",
        Proxy => "Proxy",
        Ledger => "Ledger",
        Governance => "Governance",
    }
}
