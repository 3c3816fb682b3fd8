//! The reference burst waveforms of DVB-RCS2 linear modulation (ETSI EN
//! 301 545-2, Annex A, Table A-1): for each waveform id, the modulation,
//! the code rate, the payload a burst carries and the burst's length in
//! symbols (preamble, postamble and pilots included). Ids 3–12 are the
//! short bursts (536 symbols), 13–22 the long ones (1 616 symbols).
//!
//! Source: the table as SNS3 ships it (`data/dvbRcs2Waveforms.txt` of the
//! sns3-satellite module, which transcribes EN 301 545-2 Table A-1); we
//! could not read the standard's table itself. Waveforms 1 and 2 (logon
//! and control bursts) and the Es/N₀ each waveform needs are not in that
//! file and are not offered here: the return link's waveform is fixed per
//! beam and its bursts are not lost to the channel.

/// One reference waveform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waveform {
    pub id: u32,
    /// Bits per symbol: 2 QPSK, 3 8PSK, 4 16QAM.
    pub bits: u32,
    /// Code rate, numerator and denominator.
    pub rate: (u32, u32),
    /// Payload bytes per burst.
    pub payload_bytes: u32,
    /// Burst length, symbols.
    pub burst_symbols: u32,
}

const fn wf(
    id: u32,
    bits: u32,
    rate: (u32, u32),
    payload_bytes: u32,
    burst_symbols: u32,
) -> Waveform {
    Waveform {
        id,
        bits,
        rate,
        payload_bytes,
        burst_symbols,
    }
}

#[rustfmt::skip]
pub const WAVEFORMS: &[Waveform] = &[
    wf(3, 2, (1, 3), 38, 536),
    wf(4, 2, (1, 2), 59, 536),
    wf(5, 2, (2, 3), 85, 536),
    wf(6, 2, (3, 4), 96, 536),
    wf(7, 2, (5, 6), 108, 536),
    wf(8, 3, (2, 3), 115, 536),
    wf(9, 3, (3, 4), 130, 536),
    wf(10, 3, (5, 6), 144, 536),
    wf(11, 4, (3, 4), 175, 536),
    wf(12, 4, (5, 6), 194, 536),
    wf(13, 2, (1, 3), 123, 1616),
    wf(14, 2, (1, 2), 188, 1616),
    wf(15, 2, (2, 3), 264, 1616),
    wf(16, 2, (3, 4), 298, 1616),
    wf(17, 2, (5, 6), 333, 1616),
    wf(18, 3, (2, 3), 355, 1616),
    wf(19, 3, (3, 4), 400, 1616),
    wf(20, 3, (5, 6), 444, 1616),
    wf(21, 4, (3, 4), 539, 1616),
    wf(22, 4, (5, 6), 599, 1616),
];

/// The waveform with id `id`.
pub fn by_id(id: u32) -> Option<&'static Waveform> {
    WAVEFORMS.iter().find(|w| w.id == id)
}

impl Waveform {
    /// Payload bits per burst (per timeslot).
    pub fn bits_per_slot(&self) -> u32 {
        self.payload_bytes * 8
    }
    /// "QPSK 1/2" and the like.
    pub fn describe(&self) -> String {
        let m = match self.bits {
            2 => "QPSK",
            3 => "8PSK",
            _ => "16QAM",
        };
        format!("{m} {}/{}", self.rate.0, self.rate.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_annex_as() {
        // Id, payload bytes, burst symbols of every reference waveform, as
        // EN 301 545-2 Table A-1 gives them (through SNS3's transcription).
        #[rustfmt::skip]
        let t = [
            (3, 38, 536), (4, 59, 536), (5, 85, 536), (6, 96, 536), (7, 108, 536),
            (8, 115, 536), (9, 130, 536), (10, 144, 536), (11, 175, 536), (12, 194, 536),
            (13, 123, 1616), (14, 188, 1616), (15, 264, 1616), (16, 298, 1616), (17, 333, 1616),
            (18, 355, 1616), (19, 400, 1616), (20, 444, 1616), (21, 539, 1616), (22, 599, 1616),
        ];
        let got: Vec<(u32, u32, u32)> = WAVEFORMS
            .iter()
            .map(|w| (w.id, w.payload_bytes, w.burst_symbols))
            .collect();
        assert_eq!(got, t);
        assert_eq!(by_id(14).unwrap().bits_per_slot(), 1504);
        assert_eq!(by_id(14).unwrap().describe(), "QPSK 1/2");
        assert!(by_id(2).is_none() && by_id(23).is_none());
    }

    #[test]
    fn payload_grows_with_modulation_and_code_rate() {
        // Within each burst length, more bits per symbol × code rate carry more.
        for len in [536, 1616] {
            let mut w: Vec<&Waveform> = WAVEFORMS
                .iter()
                .filter(|w| w.burst_symbols == len)
                .collect();
            w.sort_by(|a, b| (a.bits * a.rate.0 * b.rate.1).cmp(&(b.bits * b.rate.0 * a.rate.1)));
            assert!(w
                .windows(2)
                .all(|p| p[0].payload_bytes <= p[1].payload_bytes));
        }
    }
}
