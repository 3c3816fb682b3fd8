//! The DVB-S forward link of the satellite–3G study (N. Celandroni, E. Ferro,
//! G. Giambene, M. Marandola, "Satellite-3G Hybrid Networks: Impact of ACM
//! and ARQ on TCP Performance", 2007): MPEG2-TS framing (`framing.rs`),
//! adaptive coding and modulation (`acm.rs`), selective-repeat ARQ with low
//! persistency (`sr_arq.rs`, sans-IO) and the link layer joining them with
//! the return path (`dvbs.rs`).
pub mod acm;
#[allow(clippy::module_inception)]
pub mod dvbs;
pub mod framing;
pub mod spec;
pub mod sr_arq;

pub use dvbs::{DvbsCounters, DvbsLink};
pub use spec::{DvbsParams, DvbsSpec};
