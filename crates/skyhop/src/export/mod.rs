//! Exports of a run's observations that need the plan's names: the packet
//! log as a table ([`packet_table`]) and as pcap files ([`pcap`]), observed
//! runs with the command line's semantics ([`observe`]) and a link's
//! channel sampled over time ([`channel`]). They sit above the scenario's
//! plan and the world; the observers they read (`crate::observe`) know
//! nothing of either.

pub mod channel;
pub mod observe;
mod packet_table;
pub mod pcap;

pub use channel::sample_channel;
pub use observe::{check_memory, option_error, Observe, ObservedRun, Observer};
pub use packet_table::{link_dirs_by_name, packet_table, PacketTable};
