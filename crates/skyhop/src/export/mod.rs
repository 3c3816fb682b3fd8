//! Exports of a run's observations that need the plan's names: the packet
//! log as a table ([`packet_table`]) and as pcap files ([`pcap`]). They sit
//! above the scenario's plan; the observers they read (`crate::observe`)
//! know nothing of it.

mod packet_table;
pub mod pcap;

pub use packet_table::{link_dirs_by_name, packet_table, PacketTable};
