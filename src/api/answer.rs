//! [`Answer`]: the typed answer of any call, as the app's replies carry it. One line of
//! `answers!` registers an answer type; a call whose answer is registered can be asked by any
//! pane (`Request::api(call)`) and its reply picked by type (`Response::answer::<T>`), with no
//! endpoint named anywhere between the pane and `api/`. [`Call::into_answer`] lives here, so
//! `call.rs` (which every answer type's module uses) needs no answer type.

use std::sync::Arc;

use super::call::Call;
use super::ledger::{
    EmptyResponse, ExecuteResponse, JsGetUpdateTreesResponse, LedgerEnd, Package,
    ParticipantIdResponse, PartiesResponse,
};
use super::scan::{
    AmuletPriceVotes, BftSequencers, BootstrappingTransactions, DsoInfo, EventHistoryItem,
    HoldingsSummaryResponse, MemberTrafficStatusResponse, NodeStatus, OpenAndIssuingMiningRounds,
    ParticipantIds, RewardWeightResponse, ScanAmuletRules, UpdateItem, UpdatesPage,
    ValidatorFaucets, VoteRequestLookup, VoteRequests, VoteResultsCount, VoteResultsPage,
};
use super::validator::{AmuletRules, DevFundCoupons, TransferCommandStatusResponse};

/// An answer type of [`Answer`]: how to find it in one.
pub trait Answered: Sized {
    /// The answer when `answer` holds this type.
    fn pick(answer: &Answer) -> Option<&Arc<Self>>;
}

/// Declares [`Answer`] with one variant per answer type (shared, so a reply is cheap to clone
/// and a pane may keep the answer), `From` each type, and [`Answered`] for each. A type appears
/// once: two endpoints with the same answer type share its variant.
macro_rules! answers {
    ($( $variant:ident($answer:ty), )*) => {
        /// The typed answer of a call.
        #[derive(Debug, Clone)]
        pub enum Answer {
            $( $variant(Arc<$answer>), )*
        }

        $(
            impl From<$answer> for Answer {
                fn from(answer: $answer) -> Self {
                    Answer::$variant(Arc::new(answer))
                }
            }

            impl Answered for $answer {
                fn pick(answer: &Answer) -> Option<&Arc<Self>> {
                    match answer {
                        Answer::$variant(a) => Some(a),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }
        )*
    };
}

answers! {
    Updates(UpdatesPage),
    Event(EventHistoryItem),
    Update(UpdateItem),
    Status(NodeStatus),
    MiningRounds(OpenAndIssuingMiningRounds),
    Holdings(HoldingsSummaryResponse),
    ValidatorFaucets(ValidatorFaucets),
    BftSequencers(BftSequencers),
    Bootstrapping(BootstrappingTransactions),
    ParticipantIds(ParticipantIds),
    RewardWeight(RewardWeightResponse),
    TrafficStatus(MemberTrafficStatusResponse),
    ScanAmuletRules(ScanAmuletRules),
    AmuletRules(AmuletRules),
    DevFundCoupons(DevFundCoupons),
    TransferStatus(TransferCommandStatusResponse),
    LedgerEnd(LedgerEnd),
    LedgerParticipantId(ParticipantIdResponse),
    Parties(PartiesResponse),
    Empty(EmptyResponse),
    Package(Package),
    Trees(Vec<JsGetUpdateTreesResponse>),
    Executed(ExecuteResponse),
    Dso(DsoInfo),
    VoteRequests(VoteRequests),
    VoteRequestLookup(VoteRequestLookup),
    VoteResults(VoteResultsPage),
    VoteResultsCount(VoteResultsCount),
    AmuletPriceVotes(AmuletPriceVotes),
}

impl Answer {
    /// The answer as `T`, when it is one.
    pub fn get<T: Answered>(&self) -> Option<&T> {
        T::pick(self).map(|a| &**a)
    }

    /// The shared answer as `T` (for a pane that keeps it).
    pub fn shared<T: Answered>(&self) -> Option<&Arc<T>> {
        T::pick(self)
    }
}

impl<T> Call<T> {
    /// The call as the app's requests carry it: its typed answer wrapped in [`Answer`].
    pub fn into_answer(self) -> Call<Answer>
    where
        T: Into<Answer> + 'static,
    {
        self.map(Into::into)
    }
}
