//! The distributions traffic draws from. Transcendental functions come from `libm` (a pure
//! Rust port of musl's), so draws are bit-identical on every machine.

use crate::rng::Stream;
use crate::time::SimTime;

/// Pareto with the given mean and shape a > 1: scale x_m = mean (a - 1) / a, and
/// x = x_m / U^(1/a) by inversion (U uniform in (0, 1]).
pub fn pareto(rng: &mut Stream, mean: f64, shape: f64) -> f64 {
    let xm = mean * (shape - 1.0) / shape;
    let u = 1.0 - rng.uniform(); // (0, 1]
    xm / libm::pow(u, 1.0 / shape)
}

/// Exponential with the given mean, by inversion: -mean ln U.
pub fn exponential(rng: &mut Stream, mean: f64) -> f64 {
    let u = 1.0 - rng.uniform(); // (0, 1]
    -mean * libm::log(u)
}

/// A duration in nanoseconds from a float number of nanoseconds (rounded, saturating).
pub fn ns(x: f64) -> SimTime {
    if x >= u64::MAX as f64 {
        SimTime::MAX
    } else {
        SimTime(x.round().max(0.0) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pareto_scale_and_mean() {
        let mut r = Stream::new(1, "t");
        let n = 400_000;
        let xs: Vec<f64> = (0..n).map(|_| pareto(&mut r, 48_000.0, 1.2)).collect();
        // Never below x_m = 8000; P(X > 2 x_m) = 2^-1.2 = 0.4353.
        assert!(xs.iter().all(|&x| x >= 8000.0));
        let above = xs.iter().filter(|&&x| x > 16_000.0).count() as f64 / n as f64;
        assert!((above - 0.4353).abs() < 0.005, "{above}");
        // Shape 3 has a finite variance: the sample mean converges (mean 10, sd of mean ~0.01).
        let m: f64 = (0..n).map(|_| pareto(&mut r, 10.0, 3.0)).sum::<f64>() / n as f64;
        assert!((m - 10.0).abs() < 0.1, "{m}");
    }

    #[test]
    fn exponential_mean() {
        let mut r = Stream::new(2, "t");
        let n = 200_000;
        let m: f64 = (0..n).map(|_| exponential(&mut r, 0.5)).sum::<f64>() / n as f64;
        assert!((m - 0.5).abs() < 0.005, "{m}");
    }
}
