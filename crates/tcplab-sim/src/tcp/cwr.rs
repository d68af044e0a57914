//! The ECE response's reduction spread over a round trip, as Linux's CWR state does it
//! (`cwr_reduction = "prr"`, the linux profile's): Proportional Rate Reduction (RFC 6937) in
//! Linux's packet units. With `"immediate"` (the default) the sender sets cwnd = ssthresh on
//! the ECE instead (`ecn.rs`).
//!
//! The rules, each Linux's (net/ipv4/tcp_input.c):
//! * **entry** (`tcp_enter_cwr` -> `tcp_init_cwnd_reduction`, from `tcp_try_to_open` on an ACK
//!   with FLAG_ECE in the Open or Disorder state): high_seq = snd_nxt, prior_cwnd = cwnd,
//!   prr_delivered = prr_out = 0, ssthresh = the controller's `ssthresh` (here its
//!   `on_ecn_echo`, whose cwnd the sender puts back to prior_cwnd). cwnd is not changed here.
//! * **every ACK in CWR** (`tcp_cong_control` -> `tcp_cwnd_reduction(sk, acked_sacked,
//!   rs->losses, flag)`, the entering ACK included, instead of `cong_avoid`: no growth), with
//!   newly_acked_sacked the segments the ACK delivered (cumulatively or by SACK,
//!   `tcp_newly_delivered`; without SACK a duplicate ACK counts 1 and a cumulative ACK
//!   max(segments - duplicate ACKs before it, 1), `tcp_add_reno_sack`,
//!   `tcp_remove_reno_sacks`), and in_flight Linux's `tcp_packets_in_flight` (RFC 6675's pipe
//!   with a scoreboard, else FlightSize):
//!   - nothing delivered: no change (`newly_acked_sacked <= 0` returns);
//!   - prr_delivered += newly_acked_sacked; delta = ssthresh - in_flight;
//!   - delta < 0: sndcnt = ceil(ssthresh x prr_delivered / prior_cwnd) - prr_out (the
//!     proportional part);
//!   - else: sndcnt = min(delta, max(prr_delivered - prr_out, newly_acked_sacked) + 1 if
//!     snd_una advanced and nothing was newly lost) (the slow-start reduction bound);
//!   - sndcnt = max(sndcnt, 1 if prr_out = 0); cwnd = in_flight + sndcnt.
//! * **prr_out** counts every segment sent while in CWR, new or retransmitted (tcp_output.c,
//!   `tcp_write_xmit` and `tcp_xmit_retransmit_queue`).
//! * **the end** (`tcp_fastretrans_alert`, state D: "CWR is to be held something *above*
//!   high_seq is ACKed"): on the ACK with snd_una > high_seq, before the window may grow on
//!   that same ACK, `tcp_end_cwnd_reduction` sets cwnd = ssthresh.
//!
//! Units: Linux counts segments. Here prior_cwnd and ssthresh are the byte values over the
//! SMSS (rounded down), in_flight in segments (rounded up), and cwnd = the bytes in flight +
//! sndcnt SMSS, which lets the send loop (`state.rs`, whole segments only) send sndcnt
//! segments as Linux's would.
//!
//! What is not Linux's: a loss found during CWR starts the recovery (`recovery/`) with its own
//! counters and its own recovery point (snd_max then), keeping the CWR's ssthresh, where
//! `tcp_enter_recovery` keeps the CWR's prr counters, prior_cwnd and high_seq (it skips
//! `tcp_init_cwnd_reduction` while `tcp_in_cwnd_reduction`); so newly_lost is always 0 here.
//! A retransmit timeout ends CWR (`tcp_enter_loss`), as here. A controller that sets its
//! own window (Linux's `cong_control`: BBR, Prague) gets no PRR (`tcp_cong_control` calls its
//! hook instead, `tcp_end_cwnd_reduction` returns early); so here neither.

use super::ecn::SenderEcn;
use super::segment::Segment;
use super::state::SenderCore;

/// The counters of one CWR episode (Linux's `prior_cwnd`, `prr_delivered`, `prr_out`), in
/// segments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CwrPrr {
    /// cwnd when the reduction began, segments (at least 1).
    pub prior_cwnd: u64,
    /// Segments delivered since (acknowledged or SACKed).
    pub delivered: u64,
    /// Segments sent since.
    pub out: u64,
}

impl CwrPrr {
    /// `tcp_init_cwnd_reduction`, with cwnd `prior_cwnd` bytes.
    pub fn new(prior_cwnd: u64, mss: u64) -> Self {
        CwrPrr {
            prior_cwnd: (prior_cwnd / mss).max(1),
            delivered: 0,
            out: 0,
        }
    }

    /// `tcp_cwnd_reduction` for an ACK that delivered `newly_acked_sacked` segments: the new
    /// cwnd in bytes, or None (no change) when it delivered nothing. `una_advanced`: the ACK
    /// moved snd_una (FLAG_SND_UNA_ADVANCED); `in_flight` and `ssthresh` in bytes.
    pub fn step(
        &mut self,
        newly_acked_sacked: u64,
        una_advanced: bool,
        in_flight: u64,
        ssthresh: u64,
        mss: u64,
    ) -> Option<u64> {
        if newly_acked_sacked == 0 {
            return None;
        }
        self.delivered += newly_acked_sacked;
        let ssthresh_pkts = (ssthresh / mss) as i64;
        let delta = ssthresh_pkts - in_flight.div_ceil(mss) as i64;
        let mut sndcnt = if delta < 0 {
            let target = (ssthresh_pkts as u128 * self.delivered as u128).div_ceil(self.prior_cwnd as u128);
            target as i64 - self.out as i64
        } else {
            let mut s = (self.delivered as i64 - self.out as i64).max(newly_acked_sacked as i64);
            if una_advanced {
                s += 1;
            }
            delta.min(s)
        };
        if self.out == 0 {
            sndcnt = sndcnt.max(1);
        }
        Some((in_flight as i64 + sndcnt * mss as i64).max(0) as u64)
    }
}

impl SenderEcn {
    /// Segments just sent (`out`): a CWR episode counts them in prr_out.
    #[inline]
    pub fn cwr_sent(&mut self, out: &[Segment]) {
        if let Some(p) = &mut self.cwr {
            p.out += out.iter().filter(|s| s.len > 0).count() as u64;
        }
    }
}

impl SenderCore {
    /// The CWR episode's step for an ACK that advanced snd_una by `acked` bytes (0: a
    /// duplicate ACK), with `sacked_before` bytes SACKed before it: what it delivered (the
    /// module's rules), then `tcp_cwnd_reduction`.
    pub(super) fn cwr_step(&mut self, acked: u64, sacked_before: u64) {
        let Some(mut p) = self.ecn.cwr else { return };
        let mss = self.mss();
        let delivered = match &self.sb {
            Some(sb) => (acked + sb.sacked_bytes())
                .saturating_sub(sacked_before)
                .div_ceil(mss),
            None if acked == 0 => 1,
            None => acked.div_ceil(mss).saturating_sub(self.dupacks as u64).max(1),
        };
        if let Some(cwnd) = p.step(delivered, acked > 0, self.in_flight(), self.win.ssthresh, mss) {
            self.win.cwnd = cwnd;
        }
        self.ecn.cwr = Some(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// One episode by hand: cwnd 10 segments, ssthresh 5, every ACK delivering one segment
    /// and the sender sending what cwnd allows. While in flight (after the ACK) exceeds 5,
    /// the proportional part: sndcnt = ceil(5 x delivered / 10) - out = 1, 0, 1, 0, ..., one
    /// segment per two ACKs (cwnd 10, 9, 9, 8, ...); on the 9th ACK in flight is 5 = ssthresh
    /// and the bound gives min(delta = 0, ...) = 0: cwnd 5; on the 10th, in flight 4, it gives
    /// min(1, max(10 - 4, 1) + 1) = 1: cwnd 5 = ssthresh, 5 sent for 10 delivered.
    #[test]
    fn the_proportional_part_sends_one_segment_per_two_acks() {
        let mut p = CwrPrr::new(10 * MSS, MSS);
        let mut in_flight = 10 * MSS;
        let mut cwnds = vec![];
        for _ in 0..10 {
            in_flight -= MSS; // the ACK delivered one
            let cwnd = p.step(1, true, in_flight, 5 * MSS, MSS).unwrap();
            let sent = (cwnd.saturating_sub(in_flight)) / MSS;
            p.out += sent;
            in_flight += sent * MSS;
            cwnds.push(cwnd / MSS);
        }
        assert_eq!(cwnds, [10, 9, 9, 8, 8, 7, 7, 6, 5, 5]);
        assert_eq!((p.delivered, p.out), (10, 5));
    }

    #[test]
    fn below_ssthresh_the_slow_start_bound_applies() {
        // In flight 2 below ssthresh 5 (delta 3): max(prr_delivered - prr_out, 1) + 1 when
        // snd_una advanced, at most delta.
        let mut p = CwrPrr {
            prior_cwnd: 10,
            delivered: 4,
            out: 3,
        };
        // delivered 5, out 3: max(2, 1) + 1 = 3 = delta -> cwnd 2 + 3.
        assert_eq!(p.step(1, true, 2 * MSS, 5 * MSS, MSS), Some(5 * MSS));
        // A SACK (snd_una did not move): max(6 - 3, 1) = 3, no +1; delta 5 - 4 = 1.
        assert_eq!(p.step(1, false, 4 * MSS, 5 * MSS, MSS), Some(5 * MSS));
        // Nothing delivered: no change at all, not even to the counters.
        assert_eq!(p.step(0, true, 4 * MSS, 5 * MSS, MSS), None);
        assert_eq!(p.delivered, 6);
    }

    #[test]
    fn the_first_ack_may_always_send_one() {
        // sndcnt = max(sndcnt, prr_out ? 0 : 1): ceil(5 x 1 / 10) = 1 anyway; with ssthresh 0
        // (a degenerate controller) the floor of one segment still holds while nothing was
        // sent.
        let mut p = CwrPrr::new(10 * MSS, MSS);
        assert_eq!(p.step(1, true, 9 * MSS, 0, MSS), Some(10 * MSS));
        p.out = 1;
        // Then the proportional part may go negative: cwnd below what is in flight.
        assert_eq!(p.step(1, true, 9 * MSS, 0, MSS), Some(8 * MSS));
    }

    #[test]
    fn units_are_whole_segments() {
        // prior_cwnd 10.9 segments counts 10; ssthresh 5.5 counts 5; in flight 9.2 counts 10.
        let mut p = CwrPrr::new(10_900, MSS);
        assert_eq!(p.prior_cwnd, 10);
        // ceil(5 x 1 / 10) - 0 = 1: cwnd = 9200 + 1000.
        assert_eq!(p.step(1, true, 9_200, 5_500, MSS), Some(10_200));
    }
}
