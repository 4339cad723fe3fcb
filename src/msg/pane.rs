//! Which pane: the tab order, titles, and the owner of every request a pane sends.

/// Which pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum PaneId {
    #[default]
    History,
    Update,
    Verdict,
    Status,
    Holdings,
    Validators,
    Network,
    Proxy,
    Ledger,
}

impl PaneId {
    /// Every pane, in tab order (number keys follow it).
    pub const ALL: [PaneId; 9] = [
        PaneId::History,
        PaneId::Update,
        PaneId::Verdict,
        PaneId::Status,
        PaneId::Holdings,
        PaneId::Validators,
        PaneId::Network,
        PaneId::Proxy,
        PaneId::Ledger,
    ];

    /// The tab title.
    pub fn title(self) -> &'static str {
        match self {
            PaneId::History => "History",
            PaneId::Update => "Update",
            PaneId::Verdict => "Verdict",
            PaneId::Status => "Status",
            PaneId::Holdings => "Holdings",
            PaneId::Validators => "Validators",
            PaneId::Network => "Network",
            PaneId::Proxy => "Proxy",
            PaneId::Ledger => "Ledger",
        }
    }

    /// Position in tab order.
    pub fn index(self) -> usize {
        PaneId::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
}
