//! BBR's bandwidth model: BtlBw, a windowed running max of the delivery rate over rounds
//! (Kathleen Nichols' filter, Linux's `lib/minmax.c`), full-bandwidth detection, and the
//! ACK-aggregation allowance. RTprop and ProbeRTT are in `mod.rs` (`update_min_rtt`).

use super::{Bbr, ACK_EPOCH_RESET_SEGMENTS, BW_RTTS, EXTRA_ACKED_MAX, EXTRA_ACKED_WIN_RTTS, FULL_BW_CNT, FULL_BW_THRESH, UNIT};
use crate::tcp::cc::Delivery;

/// Kathleen Nichols' windowed running max of three samples (Linux's `lib/minmax.c`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct MaxFilter {
    s: [(u64, u64); 3], // (round, value)
}

impl MaxFilter {
    pub(super) fn get(&self) -> u64 {
        self.s[0].1
    }

    pub(super) fn reset(&mut self, t: u64, v: u64) -> u64 {
        self.s = [(t, v); 3];
        v
    }

    pub(super) fn running_max(&mut self, win: u64, t: u64, v: u64) -> u64 {
        let val = (t, v);
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].1 {
            self.s[2] = val;
            self.s[1] = val;
        } else if v >= self.s[2].1 {
            self.s[2] = val;
        }
        let dt = t - self.s[0].0;
        if dt > win {
            self.s = [self.s[1], self.s[2], val];
            if t - self.s[0].0 > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = val;
        }
        self.s[0].1
    }
}

impl Bbr {
    /// A new round, and BtlBw's running max over 10 rounds (`bbr_update_bw`).
    pub(super) fn update_bw(&mut self, d: &Delivery) {
        self.round_start = false;
        let (Some(delivered), interval) = (d.rs.delivered, d.rs.interval) else {
            return;
        };
        if d.rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = d.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let bw = (delivered as u128 * 1_000_000_000 / interval.ns() as u128) as u64;
        if !d.rs.is_app_limited || bw >= self.bw.get() {
            self.bw.running_max(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`: the extra acked over 5-round windows.
    pub(super) fn update_ack_aggregation(&mut self, d: &Delivery, cwnd: u64) {
        if d.rs.acked_sacked == 0 || d.rs.delivered.is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx = 1 - self.extra_acked_win_idx;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch = d.delivered_time - self.ack_epoch_stamp.min(d.delivered_time);
        let mut expected = (self.bw.get() as u128 * epoch.ns() as u128 / 1_000_000_000) as u64;
        if self.ack_epoch_acked <= expected
            || self.ack_epoch_acked + d.rs.acked_sacked >= ACK_EPOCH_RESET_SEGMENTS * self.cfg.mss
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = d.delivered_time;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + d.rs.acked_sacked).min(0xfffff * self.cfg.mss);
        let extra = (self.ack_epoch_acked - expected.min(self.ack_epoch_acked)).min(cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    /// The ACK-aggregation allowance, at most 100 ms of BtlBw (`bbr_ack_aggregation_cwnd`).
    pub(super) fn ack_aggregation_cwnd(&self) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        let max = (self.bw.get() as u128 * EXTRA_ACKED_MAX.ns() as u128 / 1_000_000_000) as u64;
        self.extra_acked[0].max(self.extra_acked[1]).min(max)
    }

    /// `bbr_check_full_bw_reached`: 3 rounds in a row without 25% growth of BtlBw.
    pub(super) fn check_full_bw_reached(&mut self, d: &Delivery) {
        if self.full_bw_reached || !self.round_start || d.rs.is_app_limited {
            return;
        }
        let thresh = (self.full_bw as u128 * FULL_BW_THRESH as u128 / UNIT as u128) as u64;
        if self.bw.get() >= thresh {
            self.full_bw = self.bw.get();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }
}
