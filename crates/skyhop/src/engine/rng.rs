//! Per-component random streams.
//!
//! Every random process draws from its own generator, seeded from the run
//! seed and the component's stable name (e.g. `"link:wu:forward"`), so adding
//! or removing a component never changes another component's draws.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// A seeded random stream. PCG-64 (MCG variant): reproducible across
/// platforms and crate versions by its documented algorithm.
#[derive(Clone, Debug)]
pub struct RngStream(Pcg64Mcg);

/// 64-bit FNV-1a: a stable, platform-independent hash of a component name.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finaliser, to spread nearby seeds over the whole state space.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl RngStream {
    /// The stream of component `name` in the run with seed `seed`.
    pub fn derive(seed: u64, name: &str) -> RngStream {
        let a = splitmix64(seed);
        let b = splitmix64(fnv1a(name.as_bytes()) ^ a);
        let state = ((a as u128) << 64) | b as u128;
        RngStream(Pcg64Mcg::new(state | 1))
    }
    /// Uniform in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.0.gen::<f64>()
    }
    /// True with probability `p`. A certain outcome (`p <= 0` or `p >= 1`)
    /// draws nothing, so the stream's later draws do not depend on how many
    /// certain outcomes came before (a loss probability of exactly 0 or 1
    /// stays exact and costs no draw). Every Bernoulli trial of the engine
    /// is this one.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.uniform() < p
        }
    }
    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U is in (0, 1], so the log is finite.
        -mean * (1.0 - self.uniform()).ln()
    }
    pub fn inner(&mut self) -> &mut Pcg64Mcg {
        &mut self.0
    }
}

impl SeedableRng for RngStream {
    type Seed = [u8; 16];
    fn from_seed(seed: Self::Seed) -> Self {
        RngStream(Pcg64Mcg::from_seed(seed))
    }
}

impl rand::RngCore for RngStream {
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest)
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        self.0.try_fill_bytes(dest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        let mut a = RngStream::derive(7, "link:wu:forward");
        let mut b = RngStream::derive(7, "link:wu:forward");
        for _ in 0..100 {
            assert_eq!(a.uniform().to_bits(), b.uniform().to_bits());
        }
    }
    #[test]
    fn different_names_or_seeds_give_different_streams() {
        let x = RngStream::derive(7, "link:wu:forward").uniform();
        assert_ne!(x, RngStream::derive(7, "link:wu:reverse").uniform());
        assert_ne!(x, RngStream::derive(8, "link:wu:forward").uniform());
    }
}
