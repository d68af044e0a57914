//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02; Linux's
//! `net/ipv4/tcp_rate.c`): every transmission is stamped with the connection's `delivered`
//! count and `delivered_time` at that moment, and with the start of its send flight
//! (`first_tx`); when an ACK delivers segments (cumulatively or by SACK), the most recently
//! sent of them gives one sample: the bytes delivered since it was sent, over the longer of the
//! send and the ACK intervals. Kept only for congestion controls that read it (BBR), so the
//! other senders pay nothing.
//!
//! Units: bytes (Linux counts packets); a segment is delivered once, when it is wholly
//! acknowledged or SACKed.

use crate::time::SimTime;
use std::collections::VecDeque;

/// One transmission's stamps (the draft's per-packet state, Linux's `tcp_skb_cb.tx`).
#[derive(Clone, Copy, Debug)]
struct TxRecord {
    start: u64,
    end: u64,
    /// `C.delivered` when it was (last) sent.
    delivered: u64,
    /// `C.delivered_time` when it was sent.
    delivered_time: SimTime,
    /// `C.first_sent_time` when it was sent: the start of its send flight.
    first_tx: SimTime,
    /// When it was (last) sent.
    sent: SimTime,
    /// The connection was application-limited when it was sent.
    app_limited: bool,
    /// Sent more than once.
    retransmitted: bool,
    /// SACKed (already counted as delivered).
    sacked: bool,
}

/// The sample one ACK gives (Linux's `struct rate_sample`, in bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Bytes this ACK newly delivered (acknowledged or SACKed): `acked_sacked`.
    pub acked_sacked: u64,
    /// `C.delivered` stamped on the most recently sent segment it delivered.
    pub prior_delivered: u64,
    /// Bytes delivered over `interval`, if the sample is valid (Linux: `delivered` >= 0 and
    /// `interval_us` > 0): None when nothing was delivered or the interval is shorter than
    /// the minimum RTT (draft Sec. 3.3, "ack compression").
    pub delivered: Option<u64>,
    /// max(send interval, ACK interval).
    pub interval: SimTime,
    /// The segment that gave it was sent while application-limited.
    pub is_app_limited: bool,
    /// RTT of the most recently sent, never retransmitted segment it delivered.
    pub rtt: Option<SimTime>,
}

/// The connection's delivery-rate state (the draft's `C.*`) and its transmissions in flight.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    recs: VecDeque<TxRecord>,
    /// `C.delivered`: bytes delivered so far.
    pub delivered: u64,
    /// `C.delivered_time`: when `delivered` last grew.
    pub delivered_time: SimTime,
    first_tx: SimTime,
    /// `C.app_limited`: the `delivered` count up to which samples are app-limited (0: none).
    app_limited: u64,
    /// The lowest RTT sample seen (Linux's `tcp_min_rtt`, unwindowed here).
    min_rtt: Option<SimTime>,
}

impl RateSampler {
    /// A segment [start, end) goes out at `now` (draft Sec. 3.2, `OnPacketSent`);
    /// `nothing_in_flight`: no data was outstanding, so a new send flight starts.
    pub fn on_send(&mut self, start: u64, end: u64, now: SimTime, nothing_in_flight: bool) {
        if nothing_in_flight {
            self.first_tx = now;
            self.delivered_time = now;
        }
        let rec = TxRecord {
            start,
            end,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_tx: self.first_tx,
            sent: now,
            app_limited: self.app_limited != 0,
            retransmitted: false,
            sacked: false,
        };
        let i = self.recs.partition_point(|r| r.end <= start);
        match self.recs.get_mut(i) {
            Some(r) if r.start <= start => {
                *r = TxRecord {
                    retransmitted: true,
                    start: r.start,
                    end: r.end,
                    // A SACKed segment sent again (go-back-N after a timeout) was delivered
                    // already: its bytes are in `delivered` once.
                    sacked: r.sacked,
                    ..rec
                }
            }
            _ => self.recs.push_back(rec),
        }
    }

    /// The sender has no more data to send and the window is not full: samples taken until
    /// what is in flight now is delivered are application-limited (draft Sec. 3.4).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// An ACK arrived at `now` with cumulative ACK `ack` and SACK blocks `sack`: the segments
    /// it delivers update `C.delivered`, and the most recently sent of them gives the sample
    /// (draft Sec. 3.3, `UpdateRateSample` and `GenerateRateSample`).
    pub fn on_ack(&mut self, now: SimTime, ack: u64, sack: impl Iterator<Item = (u64, u64)>) -> RateSample {
        let mut rs = RateSample::default();
        // The most recently sent delivered segment's stamps.
        let mut best: Option<TxRecord> = None;
        let mut deliver = |r: &TxRecord, delivered: &mut u64, rs: &mut RateSample| {
            *delivered += r.end - r.start;
            rs.acked_sacked += r.end - r.start;
            if best
                .is_none_or(|b| r.delivered > b.delivered || (r.delivered == b.delivered && r.sent > b.sent))
            {
                best = Some(*r);
            }
        };
        while let Some(front) = self.recs.front() {
            if front.end > ack {
                break;
            }
            let r = self.recs.pop_front().expect("front exists");
            if !r.sacked {
                deliver(&r, &mut self.delivered, &mut rs);
            }
        }
        for (s, e) in sack {
            let i = self.recs.partition_point(|r| r.end <= s);
            for r in self.recs.range_mut(i..) {
                if r.start >= e {
                    break;
                }
                if !r.sacked && r.start >= s && r.end <= e {
                    r.sacked = true;
                    deliver(r, &mut self.delivered, &mut rs);
                }
            }
        }
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let Some(b) = best else { return rs };
        self.delivered_time = now;
        // The next send flight starts where this segment's did (draft: C.first_sent_time =
        // P.sent_time).
        self.first_tx = b.sent;
        rs.prior_delivered = b.delivered;
        rs.is_app_limited = b.app_limited;
        if !b.retransmitted {
            let rtt = now.saturating_sub(b.sent);
            rs.rtt = Some(rtt);
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        let send_elapsed = b.sent.saturating_sub(b.first_tx);
        let ack_elapsed = now.saturating_sub(b.delivered_time);
        rs.interval = send_elapsed.max(ack_elapsed);
        let too_short = self.min_rtt.is_some_and(|m| rs.interval < m);
        if rs.interval > SimTime::ZERO && !too_short {
            rs.delivered = Some(self.delivered - b.delivered);
        }
        rs
    }

    /// A timeout changes nothing here: a SACKed segment was counted in `delivered` when it was
    /// SACKed and is not counted again when the cumulative ACK covers it, whatever the sender
    /// does with its scoreboard (RFC 2018 Sec. 8 lets it forget the SACKs in case the receiver
    /// reneged; tcplab's receivers never renege, and Linux keeps SACKED_ACKED unless it detects
    /// reneging). Clearing the marks here counted those bytes twice: after every timeout of a
    /// SACK recovery the next sample delivered a whole window's worth over one ACK interval
    /// (BBR read 48 times the link's rate at 5% loss and its window grew past 1000 segments).
    pub fn on_timeout(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    /// Ten 1000-byte segments sent back to back at t = 0, ACKed one by one every 10 ms from
    /// t = 100 ms: the first ACK delivers 1000 bytes over 100 ms (the ACK interval from the
    /// flight's start), the tenth 10000 bytes over 190 ms.
    #[test]
    fn samples_are_bytes_over_the_longer_interval() {
        let mut r = RateSampler::default();
        for k in 0..10 {
            r.on_send(k * 1000, (k + 1) * 1000, SimTime::ZERO, k == 0);
        }
        let s = r.on_ack(ms(100), 1000, std::iter::empty());
        assert_eq!(
            (s.delivered, s.interval, s.rtt),
            (Some(1000), ms(100), Some(ms(100)))
        );
        for k in 2..10 {
            r.on_ack(ms(90 + 10 * k), k * 1000, std::iter::empty());
        }
        let s = r.on_ack(ms(190), 10_000, std::iter::empty());
        assert_eq!(
            (s.delivered, s.interval, s.prior_delivered),
            (Some(10_000), ms(190), 0)
        );
        assert_eq!(r.delivered, 10_000);
    }

    /// A SACKed segment is delivered once: the cumulative ACK that later covers it adds
    /// only the hole.
    #[test]
    fn sacked_bytes_count_once() {
        let mut r = RateSampler::default();
        for k in 0..3 {
            r.on_send(k * 1000, (k + 1) * 1000, SimTime::ZERO, k == 0);
        }
        let s = r.on_ack(ms(100), 0, [(1000, 3000)].into_iter());
        assert_eq!((s.acked_sacked, r.delivered), (2000, 2000));
        let s = r.on_ack(ms(110), 3000, std::iter::empty());
        assert_eq!((s.acked_sacked, r.delivered), (1000, 3000));
    }

    /// Segment 2 SACKed, a timeout, go-back-N resends 1..3, then one cumulative ACK: the
    /// connection has delivered 3000 bytes, each counted once.
    #[test]
    fn a_timeout_does_not_count_sacked_bytes_twice() {
        let mut r = RateSampler::default();
        for k in 0..3 {
            r.on_send(k * 1000, (k + 1) * 1000, SimTime::ZERO, k == 0);
        }
        let s = r.on_ack(ms(100), 0, [(1000, 2000)].into_iter());
        assert_eq!((s.acked_sacked, r.delivered), (1000, 1000));
        r.on_timeout();
        for k in [0, 1, 2] {
            r.on_send(k * 1000, (k + 1) * 1000, ms(1100), false);
        }
        let s = r.on_ack(ms(1200), 3000, std::iter::empty());
        assert_eq!((s.acked_sacked, r.delivered), (2000, 3000));
    }
}
