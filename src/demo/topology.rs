//! The demo network's topology, its static shape: parties (DSO, SVs, validators, users),
//! participants and who hosts whom, the two synchronizers, the Daml packages and the Splice
//! templates used.
//!
//! A network has [`NUM_SVS`] SVs, or up to [`MAX_SVS`] when the demo serves more scans (one SV
//! per scan). The first [`NUM_SVS`] are the *active* SVs ([`Network::active_svs`]): they run
//! the generated activity (SV rewards, status reports, votes, development fund). The SVs beyond
//! them are members of the DSO from its bootstrap, listed in every `DsoRules` contract with
//! their own party, participant and reward weight, and otherwise idle. Their identities come
//! from a random stream of their own, so a network of more SVs generates the same history
//! (update ids, times, events) as one of [`NUM_SVS`]; only the SV list of the `DsoRules`
//! contracts grows.

use std::collections::HashMap;
use std::sync::Arc;

use super::util::{Rng, sha256_hex};

pub type PartyIdx = u16;

/// The SVs of every demo network (the active ones).
pub const NUM_SVS: usize = 4;
/// The most SVs a demo network has (13, as MainNet): one per scan.
pub const MAX_SVS: usize = 13;
pub const NUM_VALIDATORS: usize = 24;
pub const NUM_USERS: usize = 60;
/// Users `0..LOCAL_USERS` are hosted on the demo ledger participant (validator 0's).
pub const LOCAL_USERS: usize = 12;

/// Synchronizer index: 0 = the global synchronizer, 1 = the app synchronizer.
pub type SyncIdx = u8;
pub const GLOBAL: SyncIdx = 0;
pub const APP: SyncIdx = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartyKind {
    Dso,
    Sv,
    Validator,
    User,
}

#[derive(Clone, Debug)]
pub struct Party {
    pub id: String,
    pub name: String,
    pub kind: PartyKind,
    /// Indexes into `Network::participants`; first is the primary host.
    pub participants: Vec<usize>,
    /// Users: the validator party operating their wallet.
    pub validator: Option<PartyIdx>,
    /// Users that sign externally (TransferCommand senders; their transactions carry a hash).
    pub external: bool,
    /// Hosted on the demo ledger participant.
    pub local: bool,
}

#[derive(Clone, Debug)]
pub struct Participant {
    /// `PAR::name::1220…`
    pub id: String,
}

impl Participant {
    /// The participant's uid (`name::1220…`, without the `PAR::` prefix).
    pub fn uid(&self) -> &str {
        self.id.strip_prefix("PAR::").unwrap_or(&self.id)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pkg {
    Amulet,
    DsoGovernance,
    Wallet,
    WalletPayments,
    AmuletNameService,
    Util,
}

pub const PACKAGES: [(Pkg, &str, &str); 6] = [
    (Pkg::Amulet, "splice-amulet", "0.1.14"),
    (Pkg::DsoGovernance, "splice-dso-governance", "0.1.19"),
    (Pkg::Wallet, "splice-wallet", "0.1.14"),
    (Pkg::WalletPayments, "splice-wallet-payments", "0.1.14"),
    (
        Pkg::AmuletNameService,
        "splice-amulet-name-service",
        "0.1.15",
    ),
    (Pkg::Util, "splice-util", "0.1.4"),
];

#[derive(Clone, Debug)]
pub struct Package {
    pub id: String,
    pub name: &'static str,
    pub version: &'static str,
    pub bytes: Arc<[u8]>,
}

macro_rules! templates {
    ($($v:ident => ($pkg:ident, $q:literal)),* $(,)?) => {
        /// The Splice templates the demo ledger uses.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Tpl { $($v),* }
        impl Tpl {
            pub const ALL: &'static [Tpl] = &[$(Tpl::$v),*];
            /// `Module.Path:Entity`
            pub fn qualified(self) -> &'static str { match self { $(Tpl::$v => $q),* } }
            pub fn package(self) -> Pkg { match self { $(Tpl::$v => Pkg::$pkg),* } }
        }
    };
}

templates! {
    Amulet => (Amulet, "Splice.Amulet:Amulet"),
    LockedAmulet => (Amulet, "Splice.Amulet:LockedAmulet"),
    ValidatorRewardCoupon => (Amulet, "Splice.Amulet:ValidatorRewardCoupon"),
    AppRewardCoupon => (Amulet, "Splice.Amulet:AppRewardCoupon"),
    SvRewardCoupon => (Amulet, "Splice.Amulet:SvRewardCoupon"),
    UnclaimedDevelopmentFundCoupon => (Amulet, "Splice.Amulet:UnclaimedDevelopmentFundCoupon"),
    DevelopmentFundCoupon => (Amulet, "Splice.Amulet:DevelopmentFundCoupon"),
    FeaturedAppRight => (Amulet, "Splice.Amulet:FeaturedAppRight"),
    FeaturedAppActivityMarker => (Amulet, "Splice.Amulet:FeaturedAppActivityMarker"),
    ValidatorRight => (Amulet, "Splice.Amulet:ValidatorRight"),
    AmuletRules => (Amulet, "Splice.AmuletRules:AmuletRules"),
    TransferPreapproval => (Amulet, "Splice.AmuletRules:TransferPreapproval"),
    OpenMiningRound => (Amulet, "Splice.Round:OpenMiningRound"),
    SummarizingMiningRound => (Amulet, "Splice.Round:SummarizingMiningRound"),
    IssuingMiningRound => (Amulet, "Splice.Round:IssuingMiningRound"),
    ClosedMiningRound => (Amulet, "Splice.Round:ClosedMiningRound"),
    ValidatorLicense => (Amulet, "Splice.ValidatorLicense:ValidatorLicense"),
    ValidatorFaucetCoupon => (Amulet, "Splice.ValidatorLicense:ValidatorFaucetCoupon"),
    ValidatorLivenessActivityRecord => (Amulet, "Splice.ValidatorLicense:ValidatorLivenessActivityRecord"),
    ExternalPartyAmuletRules => (Amulet, "Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules"),
    TransferCommand => (Amulet, "Splice.ExternalPartyAmuletRules:TransferCommand"),
    DsoBootstrap => (DsoGovernance, "Splice.DsoBootstrap:DsoBootstrap"),
    DsoRules => (DsoGovernance, "Splice.DsoRules:DsoRules"),
    SvNodeState => (DsoGovernance, "Splice.DSO.SvState:SvNodeState"),
    VoteRequest => (DsoGovernance, "Splice.DsoRules:VoteRequest"),
    SvRewardState => (DsoGovernance, "Splice.DSO.SvState:SvRewardState"),
    SvStatusReport => (DsoGovernance, "Splice.DSO.SvState:SvStatusReport"),
    WalletAppInstall => (Wallet, "Splice.Wallet.Install:WalletAppInstall"),
    AmuletPriceVote => (DsoGovernance, "Splice.DSO.AmuletPrice:AmuletPriceVote"),
}

impl Pkg {
    pub fn name(self) -> &'static str {
        PACKAGES
            .iter()
            .find(|(p, _, _)| *p == self)
            .map_or("splice-amulet", |(_, n, _)| n)
    }
}

#[derive(Clone, Debug)]
pub struct SvInfo {
    pub party: PartyIdx,
    pub name: String,
    pub participant: usize,
    pub initial_weight: i64,
    pub sequencer_id: String,
    pub p2p_url: String,
}

/// Everything static about the network; built once per seed.
#[derive(Debug)]
pub struct Network {
    pub seed: u64,
    pub parties: Vec<Party>,
    /// foldhash: a lookup per created contract while the history is generated.
    pub party_index: HashMap<String, PartyIdx, foldhash::fast::RandomState>,
    pub participants: Vec<Participant>,
    /// The participant serving the demo ledger API.
    pub ledger_participant: usize,
    pub dso: PartyIdx,
    pub svs: Vec<SvInfo>,
    pub validators: Vec<PartyIdx>,
    pub users: Vec<PartyIdx>,
    pub synchronizers: [String; 2],
    pub packages: Vec<Package>,
    template_ids: Vec<String>,
    /// Ledger API users known at start.
    pub ledger_users: Vec<String>,
    /// Base64 topology blobs per synchronizer: (domain parameters, sequencer state, mediator state).
    pub bootstrapping: [(String, String, String); 2],
}

const SV_NAMES: [&str; NUM_SVS] = [
    "Aurora-Node-1",
    "Boreal-Ops-2",
    "Cirrus-Labs-1",
    "Dorado-Systems-3",
];

/// Names of the SVs beyond the active ones, for demo networks of more scans.
const EXTRA_SV_NAMES: [&str; MAX_SVS - NUM_SVS] = [
    "Eridani-Node-1",
    "Fornax-Ops-1",
    "Gemini-Labs-2",
    "Hydra-Systems-1",
    "Indus-Node-2",
    "Lyra-Ops-1",
    "Mensa-Labs-1",
    "Norma-Systems-2",
    "Orion-Node-3",
];

/// Initial reward weights of the SVs beyond the active ones.
const EXTRA_SV_WEIGHTS: [i64; MAX_SVS - NUM_SVS] = [
    5_000, 2_500, 10_000, 1_250, 5_000, 2_500, 7_500, 1_250, 2_500,
];

const VALIDATOR_WORDS: [&str; NUM_VALIDATORS] = [
    "acme",
    "bluefin",
    "copper",
    "driftwood",
    "ember",
    "fjord",
    "granite",
    "harbor",
    "ironwood",
    "juniper",
    "kestrel",
    "lumen",
    "meridian",
    "nimbus",
    "onyx",
    "pinnacle",
    "quartz",
    "redwood",
    "sierra",
    "tundra",
    "umber",
    "vertex",
    "willow",
    "zephyr",
];

const USER_NAMES: [&str; 30] = [
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory",
    "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "xena", "yusuf",
    "zara", "amara", "bruno", "chen", "dmitri", "elif", "farah", "goran", "hana",
];

fn pseudo_bytes(rng: &mut Rng, header: &str, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + header.len());
    out.extend_from_slice(header.as_bytes());
    while out.len() < len {
        out.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    out
}

impl Network {
    /// The network of `seed` with its [`NUM_SVS`] SVs.
    pub fn new(seed: u64) -> Network {
        Network::with_svs(seed, NUM_SVS)
    }

    /// The network of `seed` with `svs` SVs (at least [`NUM_SVS`], at most [`MAX_SVS`]): the
    /// network of [`Network::new`] plus the SVs beyond the active ones.
    pub fn with_svs(seed: u64, num_svs: usize) -> Network {
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::STANDARD;
        let mut rng = Rng::new(seed ^ 0x00c0_ffee);
        let mut parties: Vec<Party> = Vec::new();
        let mut participants: Vec<Participant> = Vec::new();
        let party = |parties: &mut Vec<Party>, name: &str, kind, fp: String| {
            parties.push(Party {
                id: format!("{name}::{fp}"),
                name: name.to_string(),
                kind,
                participants: Vec::new(),
                validator: None,
                external: false,
                local: false,
            });
            (parties.len() - 1) as PartyIdx
        };

        let dso_fp = rng.fingerprint();
        let dso = party(&mut parties, "DSO", PartyKind::Dso, dso_fp.clone());
        let mut svs = Vec::new();
        for (i, name) in SV_NAMES.iter().enumerate() {
            let fp = rng.fingerprint();
            let p = party(&mut parties, name, PartyKind::Sv, fp.clone());
            participants.push(Participant {
                id: format!("PAR::{name}::{fp}"),
            });
            let part = participants.len() - 1;
            parties[p as usize].participants.push(part);
            parties[dso as usize].participants.push(part);
            let slug = name.to_ascii_lowercase();
            svs.push(SvInfo {
                party: p,
                name: name.to_string(),
                participant: part,
                initial_weight: [10_000, 10_000, 5_000, 2_500][i],
                sequencer_id: format!("SEQ::{name}::{}", rng.fingerprint()),
                p2p_url: format!("https://sequencer-p2p.{slug}.demo.cantonscope.invalid:443"),
            });
        }
        let mut validators = Vec::new();
        for w in VALIDATOR_WORDS {
            let name = format!("{w}-validator-1");
            let fp = rng.fingerprint();
            let p = party(&mut parties, &name, PartyKind::Validator, fp.clone());
            participants.push(Participant {
                id: format!("PAR::{name}::{fp}"),
            });
            parties[p as usize]
                .participants
                .push(participants.len() - 1);
            validators.push(p);
        }
        let ledger_participant = parties[validators[0] as usize].participants[0];
        let mut users = Vec::new();
        for i in 0..NUM_USERS {
            let base = USER_NAMES[i % USER_NAMES.len()];
            let name = if i < USER_NAMES.len() {
                base.to_string()
            } else {
                format!("{base}-{}", i / USER_NAMES.len() + 1)
            };
            let fp = rng.fingerprint();
            let p = party(&mut parties, &name, PartyKind::User, fp);
            let v = if i < LOCAL_USERS {
                0
            } else {
                1 + (i % (NUM_VALIDATORS - 1))
            };
            let vparty = validators[v];
            let host = parties[vparty as usize].participants[0];
            let pu = &mut parties[p as usize];
            pu.participants.push(host);
            pu.validator = Some(vparty);
            pu.external = i % 5 == 2;
            // Some parties are hosted on several participants.
            if i % 7 == 3 {
                let other = validators[(v + 5) % NUM_VALIDATORS];
                let other_host = parties[other as usize].participants[0];
                parties[p as usize].participants.push(other_host);
            }
            users.push(p);
        }
        for p in &mut parties {
            p.local = p.participants.contains(&ledger_participant);
        }
        let extra = num_svs.clamp(NUM_SVS, MAX_SVS) - NUM_SVS;
        add_extra_svs(seed, extra, dso, &mut parties, &mut participants, &mut svs);
        let party_index = parties
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id.clone(), i as PartyIdx))
            .collect();

        let synchronizers = [
            format!("global-domain::{}", rng.fingerprint()),
            format!("app-synchronizer::{}", rng.fingerprint()),
        ];

        let mut packages = Vec::new();
        for (i, (pkg, name, version)) in PACKAGES.iter().enumerate() {
            let _ = pkg;
            let len = 4096 + 1024 * i;
            let header = format!("DALF\u{1}{name}-{version}\u{0}");
            let bytes = pseudo_bytes(&mut rng, &header, len);
            packages.push(Package {
                id: sha256_hex(&bytes),
                name,
                version,
                bytes: Arc::from(bytes),
            });
        }
        let template_ids = Tpl::ALL
            .iter()
            .map(|t| {
                let pkg = t.package();
                let idx = PACKAGES.iter().position(|(p, _, _)| *p == pkg).unwrap_or(0);
                format!("{}:{}", packages[idx].id, t.qualified())
            })
            .collect();

        let mut boot = |tag: &str, sync: &str| {
            let p = b64.encode(pseudo_bytes(&mut rng, &format!("{tag}-params:{sync}"), 96));
            let s = b64.encode(pseudo_bytes(
                &mut rng,
                &format!("{tag}-sequencers:{sync}"),
                640,
            ));
            let m = b64.encode(pseudo_bytes(
                &mut rng,
                &format!("{tag}-mediators:{sync}"),
                480,
            ));
            (p, s, m)
        };
        let bootstrapping = [
            boot("global", &synchronizers[0]),
            boot("app", &synchronizers[1]),
        ];

        let ledger_users = [
            "participant_admin",
            "ledger-api-user",
            "validator-operator",
            "wallet-ui",
            "alice",
            "bob",
            "auditor",
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect();

        Network {
            seed,
            parties,
            party_index,
            participants,
            ledger_participant,
            dso,
            svs,
            validators,
            users,
            synchronizers,
            packages,
            template_ids,
            ledger_users,
            bootstrapping,
        }
    }

    pub fn party(&self, p: PartyIdx) -> &Party {
        &self.parties[p as usize]
    }

    pub fn party_id(&self, p: PartyIdx) -> &str {
        &self.parties[p as usize].id
    }

    pub fn lookup_party(&self, id: &str) -> Option<PartyIdx> {
        self.party_index.get(id).copied()
    }

    pub fn template_id(&self, t: Tpl) -> &str {
        let i = Tpl::ALL.iter().position(|x| *x == t).unwrap_or(0);
        &self.template_ids[i]
    }

    pub fn package_name(&self, t: Tpl) -> &'static str {
        t.package().name()
    }

    pub fn sync_id(&self, s: SyncIdx) -> &str {
        &self.synchronizers[usize::from(s.min(1))]
    }

    pub fn dso_id(&self) -> &str {
        self.party_id(self.dso)
    }

    /// The SVs that run the generated activity: the first [`NUM_SVS`].
    pub fn active_svs(&self) -> &[SvInfo] {
        &self.svs[..NUM_SVS.min(self.svs.len())]
    }

    pub fn sv_index_of(&self, p: PartyIdx) -> Option<usize> {
        self.svs.iter().position(|s| s.party == p)
    }

    /// The primary participant hosting a party.
    pub fn host(&self, p: PartyIdx) -> &Participant {
        let part = self.parties[p as usize].participants.first().copied();
        &self.participants[part.unwrap_or(0)]
    }

    pub fn package_by_id(&self, id: &str) -> Option<&Package> {
        self.packages.iter().find(|p| p.id == id)
    }
}

/// Appends `extra` SVs beyond the active ones (parties after every other party, so no index
/// moves), each with its own participant, which also hosts the DSO party. Their fingerprints
/// come from a stream of their own: the rest of the network does not change.
fn add_extra_svs(
    seed: u64,
    extra: usize,
    dso: PartyIdx,
    parties: &mut Vec<Party>,
    participants: &mut Vec<Participant>,
    svs: &mut Vec<SvInfo>,
) {
    let mut rng = Rng::new(seed ^ 0x5e7e_2a15_0000_00c0);
    for (name, weight) in EXTRA_SV_NAMES.iter().zip(EXTRA_SV_WEIGHTS).take(extra) {
        let fp = rng.fingerprint();
        participants.push(Participant {
            id: format!("PAR::{name}::{fp}"),
        });
        let part = participants.len() - 1;
        parties.push(Party {
            id: format!("{name}::{fp}"),
            name: (*name).to_string(),
            kind: PartyKind::Sv,
            participants: vec![part],
            validator: None,
            external: false,
            local: false,
        });
        let party = (parties.len() - 1) as PartyIdx;
        parties[dso as usize].participants.push(part);
        let slug = name.to_ascii_lowercase();
        svs.push(SvInfo {
            party,
            name: (*name).to_string(),
            participant: part,
            initial_weight: weight,
            sequencer_id: format!("SEQ::{name}::{}", rng.fingerprint()),
            p2p_url: format!("https://sequencer-p2p.{slug}.demo.cantonscope.invalid:443"),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_has_the_promised_shape() {
        let n = Network::new(42);
        assert_eq!(n.svs.len(), 4);
        assert!(n.validators.len() >= 20);
        assert!(n.users.len() >= 50);
        for p in &n.parties {
            let (_, fp) = p.id.split_once("::").unwrap();
            assert_eq!(fp.len(), 68);
            assert!(fp.starts_with("1220"));
            assert!(!p.participants.is_empty());
        }
        assert!(n.parties.iter().filter(|p| p.local).count() > 5);
        assert!(n.parties.iter().any(|p| p.participants.len() > 1));
        assert!(
            n.template_id(Tpl::Amulet)
                .ends_with(":Splice.Amulet:Amulet")
        );
        assert_eq!(
            n.template_id(Tpl::Amulet).split(':').next().unwrap().len(),
            64
        );
        let same = Network::new(42);
        assert_eq!(same.parties[5].id, n.parties[5].id);
    }

    #[test]
    fn more_svs_add_to_the_network_without_changing_it() {
        let base = Network::new(42);
        let big = Network::with_svs(42, MAX_SVS);
        assert_eq!(big.svs.len(), MAX_SVS);
        assert_eq!(Network::with_svs(42, 1).svs.len(), NUM_SVS);
        assert_eq!(Network::with_svs(42, 99).svs.len(), MAX_SVS);
        // Every party and participant of the base network is unchanged, at the same index.
        for (a, b) in base.parties.iter().zip(&big.parties) {
            assert_eq!(a.id, b.id);
            assert_eq!(a.local, b.local);
        }
        for (a, b) in base.participants.iter().zip(&big.participants) {
            assert_eq!(a.id, b.id);
        }
        assert_eq!(base.synchronizers, big.synchronizers);
        assert_eq!(
            base.template_id(Tpl::DsoRules),
            big.template_id(Tpl::DsoRules)
        );
        assert_eq!(big.active_svs().len(), NUM_SVS);
        for (a, b) in base.svs.iter().zip(big.active_svs()) {
            assert_eq!(
                (a.party, &a.name, a.initial_weight),
                (b.party, &b.name, b.initial_weight)
            );
        }
        // The extra SVs: distinct names and parties, each on its own participant, which also
        // hosts the DSO.
        let names: std::collections::BTreeSet<&str> =
            big.svs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.len(), MAX_SVS);
        for sv in &big.svs[NUM_SVS..] {
            let party = big.party(sv.party);
            assert_eq!(party.kind, PartyKind::Sv);
            assert!(party.id.starts_with(&format!("{}::1220", sv.name)));
            assert_eq!(big.lookup_party(&party.id), Some(sv.party));
            assert_eq!(party.participants, [sv.participant]);
            assert!(big.party(big.dso).participants.contains(&sv.participant));
            assert!(!party.local);
        }
        // The same for the same seed.
        assert_eq!(
            Network::with_svs(42, MAX_SVS).party_id(big.svs[12].party),
            big.party_id(big.svs[12].party)
        );
    }
}
