//! Congestion control: how the window grows and how much it shrinks — one of the four seams
//! of DESIGN.md, apart from loss recovery (`recovery/`), which detects and repairs losses. The
//! split is Linux's (`tcp_congestion_ops`: `ssthresh`, `cong_avoid`, `pkts_acked`,
//! `cwnd_event` vs the recovery state machine) and ns-3's (`TcpCongestionOps`: `GetSsThresh`,
//! `IncreaseWindow`, `PktsAcked` vs `TcpRecoveryOps`, both over one `TcpSocketState`).
//!
//! # Who owns what
//!
//! `cwnd` and `ssthresh` live in [`Window`] (`SenderCore::win`), which both seams see, like ns-3's
//! `TcpSocketState`. A loss recovery legitimately sets `cwnd` itself (Reno's inflation and
//! deflation, Tahoe's one segment, rate halving, Eq. 15 of FACK), but two things only come
//! from the congestion control:
//!
//! * **window growth**: [`Controller::on_ack`] on every ACK of new data;
//! * **the ssthresh after a loss**: a recovery that declares a loss *asks*
//!   [`Controller::ssthresh_after_loss`] (and FACK, for the bound of its Eq. 15,
//!   [`Controller::reduce`]); it never computes one itself. After a retransmit timeout
//!   [`Controller::on_timeout`] says what the window becomes.
//!
//! A controller returns values or changes the [`Window`] it is handed (neqo's
//! `WindowAdjustment::reduce_cwnd` returns the new window too); it never sends, and it sees no
//! sequence numbers: the sender hands it an [`Ack`] or a [`Loss`], the facts it may use.
//!
//! # The hooks, and how CUBIC and BBR use them
//!
//! | hook | called | AIMD (`aimd.rs`) | CUBIC (RFC 9438, `cubic/`) | BBR v1 (`bbr/`) |
//! |------|--------|------------------|------------------------|-----------|
//! | `initial_window` | once | IW, initial ssthresh (RFC 5681 Sec. 3.1) | the same | IW, no ssthresh; Startup, pacing at 2.885 x IW / 1 ms |
//! | `on_ack` | every ACK of new data, with `now`, bytes acked, the RTT sample, bytes in flight, and whether the recovery set cwnd | slow start / `u` per RTT, unless the recovery set the window | track min RTT from `ack.rtt`; outside recovery set cwnd to W_cubic(t) (Sec. 4.2, t = `ack.now` - the epoch start, K from W_max and the cwnd at the epoch start) or the Reno-friendly W_est (Sec. 4.3, fed by `ack.acked`) | nothing: it works in `cong_control` |
//! | `ssthresh_after_loss` | a recovery declares a loss | `d` x FlightSize or `d` x cwnd, >= 2 SMSS | record W_max = `loss.window` (fast convergence, Sec. 4.7: W_max = cwnd (1 + beta) / 2 when below the last W_max), the epoch restarts at `loss.now`; return max(beta x cwnd, 2 SMSS), beta = 0.7 (Sec. 4.6) | save cwnd for the restore after recovery, return the window (BBR v1 keeps its model) |
//! | `reduce` | FACK's Eq. 15 bound | `d` x window | beta x window | the window (no decrease) |
//! | `on_timeout` | a retransmit timeout | ssthresh as after a loss (held on a repeated timeout, RFC 5681 Sec. 3.1), cwnd = LW = 1 SMSS | the same with beta, and reset W_max and the epoch (Sec. 4.8) | cwnd = 1 segment, keep the model, full-bandwidth detection restarts |
//! | `on_idle` | the sender restarts after an idle period > RTO | cwnd = min(IW, cwnd) (RFC 5681 Sec. 4.1) | the same, and shift the epoch by the idle time (Linux's `CA_EVENT_TX_START`) | the same, and in ProbeBW pace at BtlBw |
//! | `pacing_rate_bps` | the send loop (`state.rs`: `Pacing`) | None | None (or cwnd / srtt with pacing) | pacing_gain x BtlBw |
//! | `cong_control` | every ACK, with a delivery-rate sample, if `wants_delivery_rate` | - | - | model update, mode, cwnd and pacing rate on every ACK, also in recovery (Linux's `bbr_main`) |
//!
//! Slow start's early exits (HyStart, HyStart++) are `slow_start.rs`, for any controller with a
//! slow start: AIMD and CUBIC both take the option `hystart`.
//!
//! # Adding a controller
//!
//! One file with a struct that implements [`Controller`] and [`FromOptions`] (its options
//! type, their checks, and how it is built from them), and one line in the `controllers!`
//! list below. The list generates the rest (`registry.rs`): the [`CongestionControl`] enum and
//! its dispatch, the scenario's names ([`Algorithm`]), its `cc` table ([`CcSpec`]: the short
//! form, the table form, their validation and the JSON schema). CUBIC (`cubic/`) was added
//! so, with no change to any recovery: each of them keeps asking `ssthresh_after_loss` and gets
//! beta x cwnd instead of d x FlightSize. See docs/architecture.md, "How to add a congestion
//! control".

#[macro_use]
mod registry;
pub mod slow_start;

pub use super::ecn::EcnAck;
use super::rate::RateSample;
use crate::rng::Stream;
use crate::time::SimTime;
pub(crate) use registry::invalid;
pub use registry::{CcSpec, FromOptions, NoOptions, Setup, ALL_OPTIONS};

/// The window state both seams see and change (ns-3's `TcpSocketState`, reduced to what they
/// share). The sender keeps it in `SenderCore::win`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// The congestion window, bytes (RFC 5681 cwnd).
    pub cwnd: u64,
    /// The slow-start threshold, bytes.
    pub ssthresh: u64,
}

/// What a controller learns from an ACK of new data (the sender's, after the loss recovery has
/// seen it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    pub now: SimTime,
    /// Bytes this ACK newly acknowledged.
    pub acked: u64,
    /// The RTT sample it gave (Karn's rule and RFC 7323 RTTM already applied), if any.
    pub rtt: Option<SimTime>,
    /// Bytes in flight after it (RFC 5681 FlightSize: snd_max - snd_una).
    pub flight: u64,
    /// The loss recovery set cwnd on this ACK (inflation, deflation, rate halving, the end of
    /// a recovery): a window-based controller must not grow it (RFC 5681 Sec. 3.2, RFC 6582).
    pub recovering: bool,
}

/// What a controller learns from a loss event (a recovery's fast retransmit or a timeout).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loss {
    pub now: SimTime,
    /// The window in use when the loss was detected: min(cwnd, rwnd) (BSD's
    /// `min(snd_wnd, snd_cwnd)`), before the recovery changed anything.
    pub window: u64,
    /// RFC 5681 FlightSize at that moment: snd_max - snd_una.
    pub flight_size: u64,
}

/// The loss-recovery state, as Linux's `icsk_ca_state` tells it to a congestion control
/// (reduced to what BBR reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// No recovery in progress.
    Open,
    /// Fast recovery (a loss recovery's `in_recovery`).
    Recovery,
    /// After a retransmit timeout, until everything sent before it is acknowledged.
    Loss,
}

/// What [`Controller::cong_control`] learns from every ACK (Linux's `tcp_cong_control`
/// arguments: the rate sample and the connection's state). Only built for a controller that
/// asks for it ([`Controller::wants_delivery_rate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub now: SimTime,
    /// The delivery-rate sample of this ACK (`tcp/rate.rs`).
    pub rs: RateSample,
    /// Bytes delivered so far (`tp->delivered`), and when that count last grew.
    pub delivered: u64,
    pub delivered_time: SimTime,
    /// Bytes in flight before and after this ACK (RFC 6675 pipe with a scoreboard, else
    /// FlightSize; Linux's `tcp_packets_in_flight`).
    pub prior_in_flight: u64,
    pub in_flight: u64,
    /// The sender's smoothed RTT, if it has one.
    pub srtt: Option<SimTime>,
    pub state: CaState,
    /// How long until pacing lets the next segment leave (0 when not held back).
    pub edt_wait: SimTime,
}

/// A fraction with six decimal places, for exact integer arithmetic on byte counts: `d` = 0.7
/// is 700000 millionths and 0.7 x 21000 bytes is exactly 14700 (in f64 it is 14699.99...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Millionths(pub u64);

impl Millionths {
    pub const ONE: Millionths = Millionths(1_000_000);
    pub const HALF: Millionths = Millionths(500_000);

    /// The nearest number of millionths (None for negative, NaN or huge values).
    pub fn from_f64(x: f64) -> Option<Millionths> {
        let m = (x * 1e6).round();
        (m.is_finite() && (0.0..=1e15).contains(&m)).then_some(Millionths(m as u64))
    }

    /// floor(self x n).
    pub fn of(self, n: u64) -> u64 {
        (n as u128 * self.0 as u128 / 1_000_000) as u64
    }

    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
}

/// The interface every congestion controller implements. The sender calls it through
/// [`CongestionControl`], an enum over the controllers (static dispatch).
pub trait Controller {
    /// cwnd and ssthresh when the connection opens (RFC 5681 Sec. 3.1: IW, and an ssthresh
    /// "arbitrarily high").
    fn initial_window(&self) -> Window;

    /// Every ACK of new data, after the loss recovery saw it: grow the window, or leave it to
    /// the recovery when `ack.recovering`.
    fn on_ack(&mut self, w: &mut Window, ack: &Ack);

    /// A loss recovery declared a loss (a fast retransmit, or FACK's threshold): the new
    /// ssthresh. The recovery stores it and sets cwnd by its own rule.
    fn ssthresh_after_loss(&mut self, loss: &Loss) -> u64;

    /// This controller's multiplicative decrease applied to `window`, unfloored: FACK's
    /// bounding parameter ("at most half the window before the loss", Mathis et al. 1997
    /// App. A, with the controller's factor for the half).
    fn reduce(&self, window: u64) -> u64;

    /// The retransmit timer expired; `repeated` if the same segment had timed out before (the
    /// timer is backed off). Returns the window after the timeout.
    fn on_timeout(&mut self, w: Window, loss: &Loss, repeated: bool) -> Window;

    /// The sender resumes after an idle period longer than the RTO (RFC 5681 Sec. 4.1).
    fn on_idle(&mut self, _w: &mut Window) {}

    /// The rate the send loop paces at, payload bits per second; None for window-limited
    /// bursts (AIMD, CUBIC).
    fn pacing_rate_bps(&self) -> Option<u64> {
        None
    }

    /// Does this controller read delivery-rate samples? Then the sender keeps the rate
    /// sampler and calls [`Controller::cong_control`] on every ACK.
    fn wants_delivery_rate(&self) -> bool {
        false
    }

    /// Every ACK (new or duplicate), after the loss recovery and the RTO bookkeeping, before
    /// the send loop: Linux's `cong_control` hook, which sets cwnd and the pacing rate itself,
    /// also during a recovery. Returns true to mark what is in flight application-limited
    /// (BBR's ProbeRTT).
    fn cong_control(&mut self, _w: &mut Window, _d: &Delivery) -> bool {
        false
    }

    /// The flow's own random stream, for a controller that draws (BBR's ProbeBW phase).
    fn seed(&mut self, _rng: Stream) {}

    /// Every ACK of a flow that uses ECN, before the response to its ECE: what a controller
    /// that counts marks reads (DCTCP's alpha, RFC 8257 Sec. 3.3).
    fn on_ecn_ack(&mut self, _e: &EcnAck) {}

    /// The congestion estimate a controller that counts marks keeps (DCTCP's alpha, RFC 8257
    /// Sec. 3.3), for the flow's time-average `ecn_alpha_mean`; None for the others.
    fn ecn_estimate(&self) -> Option<f64> {
        None
    }

    /// An ACK carried ECE and no reduction's window is outstanding (RFC 3168 Sec. 6.1.2: at
    /// most once per window of data, the sender in `ecn.rs` decides): the response, without
    /// a retransmission. Returns whether it reduced the window. The default is Linux's
    /// `tcp_enter_cwr` for every controller with an `ssthresh` hook (Reno, CUBIC): ssthresh
    /// as after a loss, and cwnd = ssthresh (at once, where Linux gets there by PRR over the
    /// round trip).
    fn on_ecn_echo(&mut self, w: &mut Window, loss: &Loss) -> bool {
        w.ssthresh = self.ssthresh_after_loss(loss);
        w.cwnd = w.ssthresh;
        true
    }

    /// Does the window grow while a CE response's round is out? Linux holds a controller's
    /// growth in TCP_CA_CWR (PRR instead of `cong_avoid`), except one with its own
    /// `cong_control` that grows there (Prague).
    fn grows_in_cwr(&self) -> bool {
        false
    }
}

// The registry: one line per controller, `Variant(module::Type) = "name"`, `boxed` for a
// large state (CUBIC's and BBR's inline would make every sender, AIMD's included, as large as
// theirs: 384 bytes instead of 56), after its doc comment (registry.rs says what it
// generates). The first is the default.
controllers! {
    /// Additive increase, multiplicative decrease (Jacobson & Karels 1988), with their d and u.
    Aimd(aimd::Aimd) = "aimd",
    /// CUBIC (RFC 9438): W_cubic(t) = C (t - K)^3 + W_max, beta 0.7, the Reno-friendly region.
    Cubic(cubic::Cubic) = "cubic" boxed,
    /// BBR v1 as Linux ships it (tcp_bbr.c): a model of bottleneck bandwidth and round-trip
    /// propagation time from delivery-rate samples, paced sending; no options.
    Bbr(bbr::Bbr) = "bbr" boxed,
    /// DCTCP (RFC 8257): Reno, and on ECE cwnd x (1 - alpha / 2), alpha the EWMA (weight g)
    /// of the fraction of bytes marked per window; its flows use ECN.
    Dctcp(dctcp::Dctcp) = "dctcp",
    /// TCP Prague, experimental (draft-briscoe-iccrg-prague-congestion-control; the L4S
    /// team's Linux tcp_prague.c): ECT(1) and AccECN feedback, DCTCP's alpha per round trip
    /// (g = 1/16), cwnd x (1 - alpha / 2) once per round trip with marks, additive increase
    /// over unmarked packets, pacing, Reno on loss, optional RTT independence.
    Prague(prague::Prague) = "prague" boxed,
    /// No congestion control: the window is the receiver's (4.3BSD before Jacobson).
    None(none::NoControl) = "none",
    #[cfg(test)]
    /// A fixed window of `segments` (a test of the registry: one file and this line).
    Fixed(fixed::Fixed) = "fixed",
}

impl Algorithm {
    /// The algorithm of a table without `algorithm` (and of a flow without `cc`, except
    /// tcp = "bsd43"): the first of the list.
    pub const DEFAULT: Algorithm = Algorithm::Aimd;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millionths_are_exact_on_byte_counts() {
        let d = Millionths::from_f64(0.7).unwrap();
        assert_eq!(d, Millionths(700_000));
        assert_eq!(d.of(21_000), 14_700);
        assert_eq!(Millionths::HALF.of(21_001), 10_500); // floor, as integer halving
        assert_eq!(Millionths::from_f64(0.875).unwrap().of(16_000), 14_000);
        assert_eq!(Millionths::from_f64(-0.1), None);
        assert_eq!(Millionths::from_f64(f64::NAN), None);
        assert_eq!(Millionths::ONE.of(u64::MAX / 4), u64::MAX / 4);
    }
}
