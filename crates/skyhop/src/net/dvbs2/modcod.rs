//! The MODCODs of DVB-S2 (ETSI EN 302 307-1) and the additions of DVB-S2X
//! (ETSI EN 302 307-2), with what a BBFRAME of each carries and how long
//! its physical-layer frame is.
//!
//! A BBFRAME of a MODCOD carries K_bch bits: an 80-bit BBHEADER and a data
//! field of DFL = K_bch − 80 bits. After coding it is a FECFRAME of 64 800
//! bits (normal) or 16 200 (short), mapped onto S slots of 90 symbols
//! (S = 64 800/(90 η) for η bits per symbol; 128APSK's 9 257 1/7 symbols
//! are padded to 103 slots, EN 302 307-2 §5.5.2.3), preceded by a 90-symbol
//! PLHEADER and, with pilots, followed every 16 slots by a 36-symbol pilot
//! block: ⌊(S − 1)/16⌋ blocks. The spectral efficiency of the tables is
//! DFL over those symbols, without pilots.
//!
//! Sources and what they give:
//! - DVB-S2 normal frames: K_bch from EN 302 307-1 Table 5a; ideal Es/N₀
//!   for quasi-error-free operation (PER 10⁻⁷, AWGN) and the spectral
//!   efficiency from its Table 13 (the test below checks each efficiency
//!   equals DFL over the symbols, to the table's six decimals).
//! - DVB-S2 short frames: K_bch from Table 5b. Table 13 gives Es/N₀ for
//!   normal frames only; we did not find the short frames' thresholds in
//!   the material we could read, so a short frame uses its MODCOD's
//!   normal-frame threshold (short LDPC codes need a few tenths of a dB
//!   more: `threshold_offset_db` adds a margin for that).
//! - DVB-S2X normal frames: ideal Es/N₀ and spectral efficiency from EN
//!   302 307-2 Table 20a as transcribed in public link-budget code (we
//!   could not read the standard's table itself); DFL here is derived from
//!   the efficiency (DFL = η_s × symbols, an integer multiple of 8 bits to
//!   within 0.06 bit, checked below for every row). Short S2X frames are
//!   not offered.

/// FECFRAME length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameSize {
    /// 64 800 bits.
    Normal,
    /// 16 200 bits.
    Short,
}

impl FrameSize {
    pub fn fec_bits(self) -> u32 {
        match self {
            FrameSize::Normal => 64_800,
            FrameSize::Short => 16_200,
        }
    }
}

/// Which standard defines a MODCOD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standard {
    S2,
    S2x,
}

/// One MODCOD.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Modcod {
    /// As scenarios write it: "QPSK 1/2", "16APSK-L 8/15".
    pub name: &'static str,
    pub standard: Standard,
    /// Bits per symbol of the constellation.
    pub bits: u32,
    /// K_bch of a normal frame (the BBFRAME's length in bits).
    pub kbch_normal: u32,
    /// K_bch of a short frame (`None`: not defined).
    pub kbch_short: Option<u32>,
    /// Ideal Es/N₀ for quasi-error-free reception (normal frames), dB.
    pub esn0_db: f64,
    /// The table's spectral efficiency (normal frames, no pilots), bit/symbol.
    pub table_efficiency: f64,
}

/// The BBHEADER, bits.
pub const BBHEADER_BITS: u32 = 80;
/// The PLHEADER, symbols.
pub const PLHEADER_SYMBOLS: u32 = 90;
/// A pilot block, symbols, one per 16 slots.
pub const PILOT_BLOCK_SYMBOLS: u32 = 36;

impl Modcod {
    /// K_bch of `frame` (None: not defined for short frames).
    pub fn kbch(&self, frame: FrameSize) -> Option<u32> {
        match frame {
            FrameSize::Normal => Some(self.kbch_normal),
            FrameSize::Short => self.kbch_short,
        }
    }
    /// The data field of a BBFRAME, bits (K_bch − 80).
    pub fn dfl_bits(&self, frame: FrameSize) -> Option<u32> {
        self.kbch(frame).map(|k| k - BBHEADER_BITS)
    }
    /// Slots of 90 symbols of the FECFRAME.
    pub fn slots(&self, frame: FrameSize) -> u32 {
        let symbols = frame.fec_bits() / self.bits;
        let s = (frame.fec_bits() as f64 / self.bits as f64 / 90.0).ceil() as u32;
        debug_assert!(s * 90 >= symbols);
        s
    }
    /// Symbols of the physical-layer frame: PLHEADER, slots and pilots.
    pub fn symbols(&self, frame: FrameSize, pilots: bool) -> u32 {
        let s = self.slots(frame);
        let p = if pilots {
            (s - 1) / 16 * PILOT_BLOCK_SYMBOLS
        } else {
            0
        };
        PLHEADER_SYMBOLS + 90 * s + p
    }
    /// Data-field bits per symbol.
    pub fn efficiency(&self, frame: FrameSize, pilots: bool) -> Option<f64> {
        Some(self.dfl_bits(frame)? as f64 / self.symbols(frame, pilots) as f64)
    }
}

const fn s2(
    name: &'static str,
    bits: u32,
    kn: u32,
    ks: Option<u32>,
    esn0: f64,
    eff: f64,
) -> Modcod {
    Modcod {
        name,
        standard: Standard::S2,
        bits,
        kbch_normal: kn,
        kbch_short: ks,
        esn0_db: esn0,
        table_efficiency: eff,
    }
}

const fn s2x(name: &'static str, bits: u32, kn: u32, esn0: f64, eff: f64) -> Modcod {
    Modcod {
        name,
        standard: Standard::S2x,
        bits,
        kbch_normal: kn,
        kbch_short: None,
        esn0_db: esn0,
        table_efficiency: eff,
    }
}

/// Every MODCOD, DVB-S2's 28 then DVB-S2X's additions.
#[rustfmt::skip]
pub const MODCODS: &[Modcod] = &[
    // EN 302 307-1: Table 5a/5b (K_bch), Table 13 (Es/N0, efficiency).
    s2("QPSK 1/4", 2, 16_008, Some(3_072), -2.35, 0.490_243),
    s2("QPSK 1/3", 2, 21_408, Some(5_232), -1.24, 0.656_448),
    s2("QPSK 2/5", 2, 25_728, Some(6_312), -0.30, 0.789_412),
    s2("QPSK 1/2", 2, 32_208, Some(7_032), 1.00, 0.988_858),
    s2("QPSK 3/5", 2, 38_688, Some(9_552), 2.23, 1.188_304),
    s2("QPSK 2/3", 2, 43_040, Some(10_632), 3.10, 1.322_253),
    s2("QPSK 3/4", 2, 48_408, Some(11_712), 4.03, 1.487_473),
    s2("QPSK 4/5", 2, 51_648, Some(12_432), 4.68, 1.587_196),
    s2("QPSK 5/6", 2, 53_840, Some(13_152), 5.18, 1.654_663),
    s2("QPSK 8/9", 2, 57_472, Some(14_232), 6.20, 1.766_451),
    s2("QPSK 9/10", 2, 58_192, None, 6.42, 1.788_612),
    s2("8PSK 3/5", 3, 38_688, Some(9_552), 5.50, 1.779_991),
    s2("8PSK 2/3", 3, 43_040, Some(10_632), 6.62, 1.980_636),
    s2("8PSK 3/4", 3, 48_408, Some(11_712), 7.91, 2.228_124),
    s2("8PSK 5/6", 3, 53_840, Some(13_152), 9.35, 2.478_562),
    s2("8PSK 8/9", 3, 57_472, Some(14_232), 10.69, 2.646_012),
    s2("8PSK 9/10", 3, 58_192, None, 10.98, 2.679_207),
    s2("16APSK 2/3", 4, 43_040, Some(10_632), 8.97, 2.637_201),
    s2("16APSK 3/4", 4, 48_408, Some(11_712), 10.21, 2.966_728),
    s2("16APSK 4/5", 4, 51_648, Some(12_432), 11.03, 3.165_623),
    s2("16APSK 5/6", 4, 53_840, Some(13_152), 11.61, 3.300_184),
    s2("16APSK 8/9", 4, 57_472, Some(14_232), 12.89, 3.523_143),
    s2("16APSK 9/10", 4, 58_192, None, 13.13, 3.567_342),
    s2("32APSK 3/4", 5, 48_408, Some(11_712), 12.73, 3.703_295),
    s2("32APSK 4/5", 5, 51_648, Some(12_432), 13.64, 3.951_571),
    s2("32APSK 5/6", 5, 53_840, Some(13_152), 14.28, 4.119_540),
    s2("32APSK 8/9", 5, 57_472, Some(14_232), 15.69, 4.397_854),
    s2("32APSK 9/10", 5, 58_192, None, 16.05, 4.453_027),
    // EN 302 307-2 Table 20a (normal frames; K_bch from the efficiency).
    s2x("QPSK 2/9", 2, 14_208, -2.85, 0.434_841),
    s2x("QPSK 13/45", 2, 18_528, -2.03, 0.567_805),
    s2x("QPSK 9/20", 2, 28_968, 0.22, 0.889_135),
    s2x("QPSK 11/20", 2, 35_448, 1.45, 1.088_581),
    s2x("8APSK-L 5/9", 3, 35_808, 4.73, 1.647_211),
    s2x("8APSK-L 26/45", 3, 37_248, 5.13, 1.713_601),
    s2x("8PSK 23/36", 3, 41_208, 6.12, 1.896_173),
    s2x("8PSK 25/36", 3, 44_808, 7.02, 2.062_148),
    s2x("8PSK 13/18", 3, 46_608, 7.49, 2.145_136),
    s2x("16APSK-L 1/2", 4, 32_208, 5.97, 1.972_253),
    s2x("16APSK-L 8/15", 4, 34_368, 6.55, 2.104_850),
    s2x("16APSK-L 5/9", 4, 35_808, 6.84, 2.193_247),
    s2x("16APSK 26/45", 4, 37_248, 7.51, 2.281_645),
    s2x("16APSK 3/5", 4, 38_688, 7.80, 2.370_043),
    s2x("16APSK-L 3/5", 4, 38_688, 7.41, 2.370_043),
    s2x("16APSK 28/45", 4, 40_128, 8.10, 2.458_441),
    s2x("16APSK 23/36", 4, 41_208, 8.38, 2.524_739),
    s2x("16APSK-L 2/3", 4, 43_008, 8.43, 2.635_236),
    s2x("16APSK 25/36", 4, 44_808, 9.27, 2.745_734),
    s2x("16APSK 13/18", 4, 46_608, 9.71, 2.856_231),
    s2x("16APSK 7/9", 4, 50_208, 10.65, 3.077_225),
    s2x("16APSK 77/90", 4, 55_248, 11.99, 3.386_618),
    s2x("32APSK-L 2/3", 5, 43_008, 11.10, 3.289_502),
    s2x("32APSK 32/45", 5, 45_888, 11.75, 3.510_192),
    s2x("32APSK 11/15", 5, 47_328, 12.17, 3.620_536),
    s2x("32APSK 7/9", 5, 50_208, 13.05, 3.841_226),
    s2x("64APSK-L 32/45", 6, 45_888, 13.98, 4.206_428),
    s2x("64APSK 11/15", 6, 47_328, 14.81, 4.338_659),
    s2x("64APSK 7/9", 6, 50_208, 15.47, 4.603_122),
    s2x("64APSK 4/5", 6, 51_648, 15.87, 4.735_354),
    s2x("64APSK 5/6", 6, 53_808, 16.55, 4.933_701),
    s2x("128APSK 3/4", 7, 48_408, 17.73, 5.163_248),
    s2x("128APSK 7/9", 7, 50_208, 18.53, 5.355_556),
    s2x("256APSK-L 29/45", 8, 41_568, 16.98, 5.065_690),
    s2x("256APSK-L 2/3", 8, 43_008, 17.24, 5.241_514),
    s2x("256APSK-L 31/45", 8, 44_448, 18.10, 5.417_338),
    s2x("256APSK 32/45", 8, 45_888, 18.59, 5.593_162),
    s2x("256APSK-L 11/15", 8, 47_328, 18.84, 5.768_987),
    s2x("256APSK 3/4", 8, 48_408, 19.57, 5.900_855),
];

/// The index of the MODCOD named `name` (exactly as the tables write it).
pub fn by_name(name: &str) -> Option<usize> {
    MODCODS.iter().position(|m| m.name == name)
}

/// Every MODCOD's name, for error messages.
pub fn names() -> impl Iterator<Item = &'static str> {
    MODCODS.iter().map(|m| m.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dvb_s2s_table_13_efficiencies_are_its_data_fields_over_its_symbols() {
        let s2: Vec<&Modcod> = MODCODS
            .iter()
            .filter(|m| m.standard == Standard::S2)
            .collect();
        assert_eq!(s2.len(), 28);
        for m in &s2 {
            let e = m.efficiency(FrameSize::Normal, false).unwrap();
            assert_eq!((e * 1e6).round() / 1e6, m.table_efficiency, "{}", m.name);
        }
        // Hand-worked: QPSK 1/4 carries 16 008 − 80 = 15 928 bits in
        // 90 + 360 × 90 = 32 490 symbols; 32APSK 9/10 58 112 in 13 050.
        let q = &MODCODS[by_name("QPSK 1/4").unwrap()];
        assert_eq!(
            (
                q.dfl_bits(FrameSize::Normal),
                q.symbols(FrameSize::Normal, false)
            ),
            (Some(15_928), 32_490)
        );
        let a = &MODCODS[by_name("32APSK 9/10").unwrap()];
        assert_eq!(
            (
                a.dfl_bits(FrameSize::Normal),
                a.symbols(FrameSize::Normal, false)
            ),
            (Some(58_112), 13_050)
        );
    }

    #[test]
    fn dvb_s2s_thresholds_are_table_13s() {
        #[rustfmt::skip]
        let table13 = [
            -2.35, -1.24, -0.30, 1.00, 2.23, 3.10, 4.03, 4.68, 5.18, 6.20, 6.42,
            5.50, 6.62, 7.91, 9.35, 10.69, 10.98,
            8.97, 10.21, 11.03, 11.61, 12.89, 13.13,
            12.73, 13.64, 14.28, 15.69, 16.05,
        ];
        let got: Vec<f64> = MODCODS.iter().take(28).map(|m| m.esn0_db).collect();
        assert_eq!(got, table13);
    }

    #[test]
    fn dvb_s2x_efficiencies_round_trip_through_whole_data_fields() {
        let s2x: Vec<&Modcod> = MODCODS
            .iter()
            .filter(|m| m.standard == Standard::S2x)
            .collect();
        assert_eq!(s2x.len(), 39);
        for m in s2x {
            let dfl = m.dfl_bits(FrameSize::Normal).unwrap();
            assert_eq!(dfl % 8, 0, "{}: whole bytes", m.name);
            let exact = m.table_efficiency * m.symbols(FrameSize::Normal, false) as f64;
            assert!(
                (exact - dfl as f64).abs() < 0.06,
                "{}: {exact} vs {dfl}",
                m.name
            );
            let e = m.efficiency(FrameSize::Normal, false).unwrap();
            assert_eq!((e * 1e6).round() / 1e6, m.table_efficiency, "{}", m.name);
        }
    }

    #[test]
    fn frames_have_the_standards_slots_and_pilots() {
        let slots = |n: &str, f| MODCODS[by_name(n).unwrap()].slots(f);
        assert_eq!(slots("QPSK 1/2", FrameSize::Normal), 360);
        assert_eq!(slots("8PSK 3/5", FrameSize::Normal), 240);
        assert_eq!(slots("16APSK 2/3", FrameSize::Normal), 180);
        assert_eq!(slots("32APSK 3/4", FrameSize::Normal), 144);
        assert_eq!(slots("64APSK 4/5", FrameSize::Normal), 120);
        assert_eq!(slots("128APSK 3/4", FrameSize::Normal), 103);
        assert_eq!(slots("256APSK 3/4", FrameSize::Normal), 90);
        assert_eq!(slots("QPSK 1/2", FrameSize::Short), 90);
        // Pilots: 22 blocks of 36 symbols in a normal QPSK frame, 5 in a short one.
        let q = &MODCODS[by_name("QPSK 1/2").unwrap()];
        assert_eq!(q.symbols(FrameSize::Normal, true), 90 + 32_400 + 22 * 36);
        assert_eq!(q.symbols(FrameSize::Short, true), 90 + 8_100 + 5 * 36);
        // Short QPSK 1/2: 7 032 − 80 bits in 8 190 symbols.
        assert!((q.efficiency(FrameSize::Short, false).unwrap() - 6_952.0 / 8_190.0).abs() < 1e-15);
        assert_eq!(
            MODCODS[by_name("QPSK 9/10").unwrap()].dfl_bits(FrameSize::Short),
            None
        );
    }

    #[test]
    fn names_are_unique() {
        let mut n: Vec<&str> = names().collect();
        n.sort_unstable();
        n.dedup();
        assert_eq!(n.len(), MODCODS.len());
    }
}
