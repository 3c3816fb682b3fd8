//! The MF-TDMA structure of a DVB-RCS2 return link (ETSI EN 301 545-2
//! §7.3–7.4, as a fixed plan): a superframe of `frames` frames, each frame
//! `carriers` carriers wide and cut in time into timeslots of one burst of
//! the beam's waveform plus a guard time. A timeslot carries the
//! waveform's payload bytes.
//!
//! Time positions: in each superframe, slot `s` of frame `f` is position
//! `f × slots_per_frame + s`; a terminal transmits on one carrier at a
//! time, so it holds at most one timeslot per position.

use super::waveform::Waveform;
use crate::engine::time::{Dur, Time};

/// A superframe plan, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Superframe {
    pub frames: u32,
    pub frame_duration: Dur,
    pub carriers: u32,
    pub slots_per_frame: u32,
    /// A timeslot: burst plus guard symbols over the symbol rate.
    pub slot: Dur,
    pub payload_bytes: u32,
}

impl Superframe {
    /// The plan for `waveform` at `symbol_rate` (symbols/s) with `guard`
    /// symbols between bursts; `slots` per frame if given (checked to fit
    /// the frame), else as many as fit. Err: a message for the key named.
    pub fn new(
        waveform: &Waveform,
        symbol_rate: f64,
        guard_symbols: u32,
        frame_duration: Dur,
        frames: u32,
        carriers: u32,
        slots: Option<u32>,
    ) -> Result<Superframe, (&'static str, String)> {
        let symbols = (waveform.burst_symbols + guard_symbols) as f64;
        let slot = Dur((symbols / symbol_rate * 1e9).round() as u64);
        if slot.0 == 0 {
            return Err((
                "symbol_rate",
                "a timeslot would last less than a nanosecond".into(),
            ));
        }
        let fit = (frame_duration.0 / slot.0) as u32;
        let slots_per_frame = match slots {
            Some(0) => return Err(("slots_per_frame", "a frame needs at least one timeslot".into())),
            Some(s) if s > fit => {
                return Err((
                    "slots_per_frame",
                    format!(
                        "{s} timeslots of {} symbols ({} + {guard_symbols} guard) at {symbol_rate} baud last {:.3} ms, more than the {:.3} ms frame ({fit} fit)",
                        waveform.burst_symbols + guard_symbols,
                        waveform.burst_symbols,
                        s as f64 * slot.as_secs_f64() * 1e3,
                        frame_duration.as_secs_f64() * 1e3
                    ),
                ))
            }
            Some(s) => s,
            None if fit == 0 => {
                return Err((
                    "frame",
                    format!(
                        "a {:.3} ms frame holds no timeslot of {:.3} ms",
                        frame_duration.as_secs_f64() * 1e3,
                        slot.as_secs_f64() * 1e3
                    ),
                ))
            }
            None => fit,
        };
        if frames == 0 || carriers == 0 {
            return Err((
                if frames == 0 { "frames" } else { "carriers" },
                "must be at least 1".into(),
            ));
        }
        Ok(Superframe {
            frames,
            frame_duration,
            carriers,
            slots_per_frame,
            slot,
            payload_bytes: waveform.payload_bytes,
        })
    }

    pub fn duration(&self) -> Dur {
        Dur(self.frame_duration.0 * self.frames as u64)
    }
    /// Time positions per superframe (timeslots per carrier).
    pub fn positions(&self) -> u32 {
        self.frames * self.slots_per_frame
    }
    /// Timeslots per superframe, all carriers.
    pub fn capacity(&self) -> u32 {
        self.positions() * self.carriers
    }
    /// Start of superframe `n`.
    pub fn start(&self, n: u64) -> Time {
        Time(n * self.duration().0)
    }
    /// Start of time position `pos` of superframe `n`.
    pub fn slot_start(&self, n: u64, pos: u32) -> Time {
        let (f, s) = (pos / self.slots_per_frame, pos % self.slots_per_frame);
        self.start(n) + Dur(f as u64 * self.frame_duration.0 + s as u64 * self.slot.0)
    }
    /// The superframe holding `t`.
    pub fn index_at(&self, t: Time) -> u64 {
        t.0 / self.duration().0
    }
    /// The return capacity, payload bit/s.
    pub fn rate_bps(&self) -> f64 {
        self.capacity() as f64 * self.payload_bytes as f64 * 8.0 / self.duration().as_secs_f64()
    }
    /// Timeslots per superframe a rate needs (fractional).
    pub fn slots_for_rate(&self, bps: f64) -> f64 {
        bps * self.duration().as_secs_f64() / (self.payload_bytes as f64 * 8.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::rcs2::waveform::by_id;

    #[test]
    fn slots_fill_frames_of_the_plan() {
        // Waveform 14 (1 616 symbols, 188 bytes) with 184 guard symbols at
        // 360 kbaud: 1 800 symbols, 5 ms; a 50 ms frame holds 10.
        let w = by_id(14).unwrap();
        let sf = Superframe::new(w, 360_000.0, 184, Dur::from_millis(50), 2, 3, None).unwrap();
        assert_eq!(sf.slot, Dur::from_millis(5));
        assert_eq!(
            (sf.slots_per_frame, sf.positions(), sf.capacity()),
            (10, 20, 60)
        );
        assert_eq!(sf.duration(), Dur::from_millis(100));
        // Position 13 of superframe 2: frame 1, slot 3.
        assert_eq!(
            sf.slot_start(2, 13),
            Time::from_secs_f64(0.2 + 0.05 + 0.015)
        );
        // 60 × 1 504 bits per 100 ms.
        assert!((sf.rate_bps() - 902_400.0).abs() < 1e-6);
        assert_eq!(sf.index_at(Time::from_secs_f64(0.25)), 2);
    }

    #[test]
    fn slots_that_do_not_fit_a_frame_are_refused() {
        let w = by_id(14).unwrap();
        let e =
            Superframe::new(w, 360_000.0, 184, Dur::from_millis(50), 1, 1, Some(11)).unwrap_err();
        assert_eq!(e.0, "slots_per_frame");
        assert!(
            e.1.contains("55.000 ms, more than the 50.000 ms frame (10 fit)"),
            "{}",
            e.1
        );
        assert!(Superframe::new(w, 360_000.0, 184, Dur::from_millis(50), 1, 1, Some(10)).is_ok());
        assert_eq!(
            Superframe::new(w, 360_000.0, 184, Dur::from_millis(4), 1, 1, None)
                .unwrap_err()
                .0,
            "frame"
        );
    }
}
