//! The DVB-S2/S2X forward link of a GEO broadband beam: the MODCOD tables
//! of ETSI EN 302 307-1 and -2 with BBFRAME and PLFRAME sizes
//! (`modcod.rs`), Generic Stream Encapsulation of IP packets into BBFRAMEs
//! (`gse.rs`), adaptive coding and modulation per terminal from its Es/N₀
//! reports with margin, hysteresis and delay (`acm.rs`), and the carrier
//! the beam's terminals share frame by frame (`carrier.rs`).
//!
//! The DVB-S link of the 2007 study (E6) stays in `net/dvbs/`.
pub mod acm;
pub mod carrier;
pub mod gse;
pub mod modcod;

pub use carrier::{Carrier, CarrierConfig, ForwardEnv};
pub use modcod::{FrameSize, Modcod, MODCODS};
