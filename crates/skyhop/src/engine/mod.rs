//! The discrete-event core: time, the event queue, random streams.
pub mod queue;
pub mod rng;
pub mod time;

pub use queue::EventQueue;
pub use rng::RngStream;
pub use time::{Dur, Time};
