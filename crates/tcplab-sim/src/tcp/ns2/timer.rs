//! ns-2's RTT estimator and retransmit timer for the agents (tcp.cc: `rtt_update`,
//! `rtt_timeout`, `rtt_backoff`, `set_rtx_timer`, `reset_rtx_timer`, `newtimer`): BSD's fixed
//! point on a `tcpTick_` clock of a given phase, in ticks, with ns-2's bounds and backoff.

use super::agent::Ns2Sender;
use crate::time::SimTime;

impl Ns2Sender {
    pub(super) fn rtt_timeout(&self) -> u64 {
        let min = self.cfg.min_rto.ns();
        let mut t = if self.rtxcur < min {
            min * self.backoff
        } else {
            self.rtxcur * self.backoff
        };
        t = t.min(self.cfg.max_rto.ns());
        t.max(2 * self.cfg.tick_ns)
    }

    pub(super) fn set_rtx_timer(&mut self, now: SimTime) {
        self.timer = Some(now + SimTime::from_ns(self.rtt_timeout()));
    }

    /// rtt_update() for a segment sent at `sent`: the edges of the phased tick clock.
    pub(super) fn rtt_update(&mut self, now: SimTime, sent: SimTime) {
        let tick = self.cfg.tick_ns;
        let send = sent.ns() + self.cfg.boot_ns;
        let tao = now.ns() - sent.ns();
        self.inst.rtt_sample(SimTime(tao));
        let m = (((tao + send % tick) / tick) as i32).max(1);
        self.t_rtt = m;
        if self.t_srtt != 0 {
            let mut delta = (m - (self.t_srtt >> 3)) as i16 as i32;
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            if delta < 0 {
                delta = -delta;
            }
            delta -= self.t_rttvar >> 2;
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = m << 3;
            self.t_rttvar = m << 1;
        }
        let ticks = (((self.t_rttvar << 3) + self.t_srtt) >> 3) as u64;
        self.rtxcur = ticks * tick;
    }

    pub(super) fn rtt_backoff(&mut self) {
        if self.backoff < 64 {
            self.backoff <<= 1;
        }
        if self.backoff > 8 {
            self.t_rttvar += self.t_srtt >> 3;
            self.t_srtt = 0;
        }
    }

    /// reset_rtx_timer(mild, backoff).
    pub(super) fn reset_rtx_timer(&mut self, now: SimTime, mild: bool, backoff: bool) {
        if backoff {
            self.rtt_backoff();
        }
        self.set_rtx_timer(now);
        if !mild {
            self.t_seqno = self.highest_ack + 1;
        }
        self.rtt_active = false;
    }

    pub(super) fn newtimer(&mut self, now: SimTime, ack: i64) {
        if self.t_seqno > ack || ack < self.maxseq || self.cwnd < 1.0 {
            self.set_rtx_timer(now);
        } else {
            self.timer = None;
        }
    }
}
