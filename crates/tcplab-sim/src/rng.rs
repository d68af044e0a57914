//! Per-component random streams.
//!
//! Every random component (a loss module, a traffic source) draws from its own generator seeded
//! from (scenario seed, component name). Adding a flow or a link therefore does not perturb the
//! draws of any other component, and a run is reproducible on any machine: PCG is portable and
//! the derivation below uses only integer arithmetic.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// A seeded, portable random stream for one component.
#[derive(Clone, Debug)]
pub struct Stream(Pcg64Mcg);

/// FNV-1a over the component's stable name: the same name gives the same stream everywhere.
fn fnv1a(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// SplitMix64 finalizer, used to spread (seed, name) over the generator's state.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Stream {
    pub fn new(seed: u64, component: &str) -> Self {
        let a = splitmix(seed ^ fnv1a(component));
        let b = splitmix(a ^ 0x5851_f42d_4c95_7f2d);
        let state = ((a as u128) << 64) | b as u128;
        Stream(Pcg64Mcg::from_seed(state.to_le_bytes()))
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        self.0.random::<f64>()
    }

    /// True with probability p.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_independent_and_reproducible() {
        let a1: Vec<f64> = (0..5)
            .map({
                let mut s = Stream::new(1, "link:a");
                move |_| s.uniform()
            })
            .collect();
        let a2: Vec<f64> = (0..5)
            .map({
                let mut s = Stream::new(1, "link:a");
                move |_| s.uniform()
            })
            .collect();
        let b: Vec<f64> = (0..5)
            .map({
                let mut s = Stream::new(1, "link:b");
                move |_| s.uniform()
            })
            .collect();
        let c: Vec<f64> = (0..5)
            .map({
                let mut s = Stream::new(2, "link:a");
                move |_| s.uniform()
            })
            .collect();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert_ne!(a1, c);
    }
}
