//! Rain on an Earth–space path: its specific attenuation (ITU-R P.838-3),
//! the attenuation exceeded for a percentage of the year from the site's
//! rain statistics (ITU-R P.618-13 §2.2.1.1), and a seeded time series of
//! it (ITU-R P.1853-1 §2.2.1). `normal.rs` holds the Q function and its
//! inverse that the recommendations use.

pub mod normal;
pub mod p1853;
pub mod p618;
pub mod p838;

pub use p1853::{Lognormal, Synthesiser};
pub use p618::RainPath;
