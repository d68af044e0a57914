//! DCTCP (RFC 8257; Alizadeh et al., SIGCOMM 2010): Reno's window growth and loss response,
//! and a response to ECN marks in proportion to their extent.
//!
//! * **alpha** (RFC 8257 Sec. 3.3): over each window of data (until snd_una passes the
//!   snd_nxt of the last update, DCTCP.WindowEnd; `ecn.rs` keeps it), the bytes cumulatively
//!   acknowledged and those acknowledged by ACKs with ECE; at the window's end
//!   alpha = (1 - g) alpha + g M, M = marked / acknowledged (unchanged if nothing was
//!   acknowledged). g = 1/16 (`g`), alpha starts at 1 (`alpha`), Linux's defaults
//!   (`dctcp_shift_g` = 4, `dctcp_alpha_on_init` = DCTCP_MAX_ALPHA). Linux counts segments in
//!   1/1024 units of alpha; this follows the RFC's bytes and a real alpha.
//! * **the response to ECE** (Sec. 3.3 step 9): cwnd = cwnd (1 - alpha / 2), at least 2 SMSS
//!   (Linux's `dctcp_ssthresh`: max(cwnd - cwnd alpha / 2, 2)), with ssthresh the same; at
//!   most once per window of data, and only when an ACK carried ECE (the sender's rule,
//!   `ecn.rs`: RFC 3168 Sec. 6.1.2). The alpha used is the one after this ACK's update, as in
//!   Linux (`in_ack_event` runs before `tcp_fastretrans_alert` enters CWR).
//! * **loss** (Sec. 3.5: "in the same way as conventional TCP"): ssthresh = max(cwnd / 2,
//!   2 SMSS), Linux's `dctcp_react_to_loss` since 5.1 (before it, Linux used the alpha
//!   reduction for losses too); a timeout: cwnd = 1 SMSS.
//! * **growth**: Reno's (AIMD with d = 1/2, u = 1), per ACK or by bytes (`growth`,
//!   `abc_limit`).
//!
//! Its flows use ECN whatever `ecn` says (Linux's TCP_CONG_NEEDS_ECN), and its receiver
//! echoes each segment's CE state (RFC 8257 Sec. 3.2, `ecn.rs`). Without an ECN-capable
//! receiver no mark is ever echoed and it is Reno, which is what Linux falls back to
//! (`dctcp_init`: `dctcp_reno`).

use super::aimd::{Aimd, AimdConfig, Growth, SsthreshRule, WindowGrowth};
use super::slow_start::HyStart;
use super::{invalid, Ack, Controller, EcnAck, FromOptions, Loss, Millionths, Setup, Window};
use crate::error::Error;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// DCTCP's options: `cc = { algorithm = "dctcp", g = 0.0625, alpha = 1 }`, each optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DctcpOptions {
    /// The weight of a new window's marked fraction in alpha, 0 < g <= 1 (RFC 8257 Sec. 3.3;
    /// default 1/16, Linux's dctcp_shift_g = 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub g: Option<f64>,
    /// alpha's initial value, 0 <= alpha <= 1 (default 1, Linux's dctcp_alpha_on_init).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Reno's growth per ACK (default) or by bytes acknowledged (RFC 3465).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub growth: Option<WindowGrowth>,
    /// RFC 3465's L in segments, with growth = "abc" only (default 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub abc_limit: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    reno: Aimd,
    mss: u64,
    g: f64,
    /// DCTCP.Alpha, the estimate of the fraction of bytes marked.
    pub alpha: f64,
    /// DCTCP.BytesAcked and DCTCP.BytesMarked of the current window.
    acked: u64,
    marked: u64,
}

impl FromOptions for Dctcp {
    type Options = DctcpOptions;
    const NEEDS_ECN: bool = true;

    fn validate(o: &DctcpOptions, at: &str) -> Result<(), Error> {
        if let Some(g) = o.g.filter(|g| !(*g > 0.0 && *g <= 1.0)) {
            return Err(invalid(
                format!("{at}.g"),
                format!("{g} is not a valid EWMA weight (expected 0 < g <= 1)"),
            ));
        }
        if let Some(a) = o.alpha.filter(|a| !(0.0..=1.0).contains(a)) {
            return Err(invalid(
                format!("{at}.alpha"),
                format!("{a} is not a valid initial alpha (expected 0 <= alpha <= 1)"),
            ));
        }
        Growth::validate(o.growth, o.abc_limit, at)
    }

    fn build(o: &DctcpOptions, f: &Setup) -> Dctcp {
        Dctcp {
            reno: Aimd::new(AimdConfig {
                mss: f.mss,
                initial_window: f.initial_window,
                initial_ssthresh: f.initial_ssthresh,
                d: Millionths::HALF,
                u: Millionths::ONE,
                growth: Growth::of(o.growth, o.abc_limit),
                // dctcp_react_to_loss halves cwnd (not FlightSize).
                base: SsthreshRule::Cwnd,
                hystart: HyStart::Off,
            }),
            mss: f.mss,
            g: o.g.unwrap_or(1.0 / 16.0),
            alpha: o.alpha.unwrap_or(1.0),
            acked: 0,
            marked: 0,
        }
    }
}

impl Controller for Dctcp {
    fn initial_window(&self) -> Window {
        self.reno.initial_window()
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        self.reno.on_ack(w, ack);
    }

    fn ssthresh_after_loss(&mut self, loss: &Loss) -> u64 {
        self.reno.ssthresh_after_loss(loss)
    }

    fn reduce(&self, window: u64) -> u64 {
        self.reno.reduce(window)
    }

    fn on_timeout(&mut self, w: Window, loss: &Loss, repeated: bool) -> Window {
        self.reno.on_timeout(w, loss, repeated)
    }

    fn on_idle(&mut self, w: &mut Window) {
        self.reno.on_idle(w);
    }

    /// RFC 8257 Sec. 3.3 steps 1-8. The bytes marked are the ACK's `ce_bytes`: with classic
    /// feedback all of its bytes when it carries ECE (RFC 8257's rule), with AccECN the CE
    /// bytes the AccECN option reports (Linux's DCTCP reads `tp->delivered_ce`, exact with
    /// AccECN, in packets).
    fn on_ecn_ack(&mut self, e: &EcnAck) {
        self.acked += e.acked;
        self.marked += e.ce_bytes;
        if e.window_end {
            if self.acked > 0 {
                // AccECN's CE bytes count at their arrival, so a window's may exceed what
                // its ACKs covered: at most all of it.
                let m = (self.marked as f64 / self.acked as f64).min(1.0);
                self.alpha = (1.0 - self.g) * self.alpha + self.g * m;
            }
            self.acked = 0;
            self.marked = 0;
        }
    }

    fn ecn_estimate(&self) -> Option<f64> {
        Some(self.alpha)
    }

    /// RFC 8257 Sec. 3.3 step 9: cwnd x (1 - alpha / 2), at least 2 SMSS.
    fn on_ecn_echo(&mut self, w: &mut Window, _: &Loss) -> bool {
        let cut = (w.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
        w.ssthresh = cut.max(2 * self.mss);
        w.cwnd = w.ssthresh;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    const MSS: u64 = 1000;

    fn dctcp(o: DctcpOptions) -> Dctcp {
        let setup = Setup {
            mss: MSS,
            initial_window: 10 * MSS,
            initial_ssthresh: u64::MAX / 4,
            rwnd: 1 << 30,
        };
        Dctcp::build(&o, &setup)
    }

    fn ecn_ack(acked: u64, ece: bool, window_end: bool) -> EcnAck {
        EcnAck {
            acked,
            ece,
            ce_bytes: if ece { acked } else { 0 },
            window_end,
            ..Default::default()
        }
    }

    #[test]
    fn alpha_is_the_ewma_of_the_marked_fraction_once_per_window() {
        // alpha0 = 1, g = 1/16. Window 1: 8 segments acknowledged, 4 with ECE: M = 1/2,
        // alpha = 15/16 + 1/32 = 31/32. Window 2: nothing marked: alpha = 31/32 x 15/16.
        let mut d = dctcp(DctcpOptions::default());
        for k in 0..8 {
            d.on_ecn_ack(&ecn_ack(MSS, k % 2 == 0, false));
            assert_eq!(d.alpha, 1.0, "alpha changes only at the window's end");
        }
        d.on_ecn_ack(&ecn_ack(0, false, true));
        assert_eq!(d.alpha, 31.0 / 32.0);
        d.on_ecn_ack(&ecn_ack(4 * MSS, false, false));
        d.on_ecn_ack(&ecn_ack(4 * MSS, false, true));
        assert_eq!(d.alpha, 31.0 / 32.0 * 15.0 / 16.0);
        // A window in which nothing was acknowledged leaves alpha alone.
        d.on_ecn_ack(&ecn_ack(0, true, true));
        assert_eq!(d.alpha, 31.0 / 32.0 * 15.0 / 16.0);
        // g = 1/2 and alpha0 = 0: one fully marked window gives 1/2.
        let mut d = dctcp(DctcpOptions {
            g: Some(0.5),
            alpha: Some(0.0),
            ..Default::default()
        });
        d.on_ecn_ack(&ecn_ack(3 * MSS, true, true));
        assert_eq!(d.alpha, 0.5);
    }

    #[test]
    fn the_ece_response_scales_with_alpha_and_a_loss_halves() {
        let mut d = dctcp(DctcpOptions {
            alpha: Some(0.25),
            ..Default::default()
        });
        let loss = Loss {
            now: SimTime::ZERO,
            window: 64 * MSS,
            flight_size: 64 * MSS,
        };
        let mut w = Window {
            cwnd: 64 * MSS,
            ssthresh: u64::MAX / 4,
        };
        // 64000 x (1 - 0.25 / 2) = 56000.
        assert!(d.on_ecn_echo(&mut w, &loss));
        assert_eq!((w.cwnd, w.ssthresh), (56_000, 56_000));
        // alpha = 1 halves; never below 2 SMSS.
        d.alpha = 1.0;
        let mut small = Window {
            cwnd: 3 * MSS,
            ssthresh: 3 * MSS,
        };
        d.on_ecn_echo(&mut small, &loss);
        assert_eq!(small.cwnd, 2 * MSS);
        // Loss: Reno's halving of cwnd, whatever alpha is (dctcp_react_to_loss).
        d.alpha = 0.0;
        assert_eq!(d.ssthresh_after_loss(&loss), 32 * MSS);
    }

    #[test]
    fn options_are_checked_by_name() {
        let bad = DctcpOptions {
            g: Some(0.0),
            ..Default::default()
        };
        let e = Dctcp::validate(&bad, "flows[0].cc").unwrap_err().to_string();
        assert!(e.contains("flows[0].cc.g") && e.contains("0 < g <= 1"), "{e}");
        let bad = DctcpOptions {
            alpha: Some(1.5),
            ..Default::default()
        };
        let e = Dctcp::validate(&bad, "flows[0].cc").unwrap_err().to_string();
        assert!(e.contains("flows[0].cc.alpha"), "{e}");
    }
}
