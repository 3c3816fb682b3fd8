//! The DVB-RCS2 return link of a GEO broadband beam (ETSI EN 301 545-2):
//! the reference burst waveforms (`waveform.rs`), the MF-TDMA superframe
//! plan (`superframe.rs`), Return Link Encapsulation (`rle.rs`), the
//! gateway's allocation of each superframe among the capacity categories
//! CRA, RBDC, VBDC and FCA by weighted max-min fairness (`scheduler.rs`),
//! and the terminals' queues, requests and bursts (`return_link.rs`).
pub mod return_link;
pub mod rle;
pub mod scheduler;
pub mod superframe;
pub mod waveform;

pub use return_link::{ReturnConfig, ReturnEnv, ReturnLink, TermConfig};
pub use superframe::Superframe;
