//! Linux's receiver-side ACK policy (`ack = "linux"`), modelled on net/ipv4/tcp_input.c,
//! tcp_output.c and tcp_timer.c of Linux 6.6 (read, not copied):
//!
//! * **quick-ACK mode** (`tcp_incr_quickack`, `tcp_in_quickack_mode`): the first data of a
//!   connection, data after an idle gap longer than the receiver's RTO, and duplicate data
//!   (`tcp_enter_quickack_mode`) allow up to rcv_wnd / (2 rcv_mss) immediate ACKs, at least 2,
//!   at most TCP_MAX_QUICKACKS = 16; every ACK sent uses one (`tcp_dec_quickack_mode`), and
//!   leaving the mode resets ato to TCP_ATO_MIN.
//! * **ACK every second full segment** (`__tcp_ack_snd_check`): at once when more than one
//!   receive MSS of data is unacknowledged, in quick-ACK mode, or when out-of-order data is
//!   queued (or a gap was just filled); otherwise a delayed ACK.
//! * **the ato estimator** (`tcp_event_data_recv`): starts at TCP_ATO_MIN = 40 ms; with m the
//!   time since the last in-order data, ato = ato/2 + 20 ms if m <= 20 ms, ato = ato/2 + m
//!   (at most the RTO) if m < ato; a missed delayed ACK doubles it (`tcp_delack_timer_handler`,
//!   at most the RTO).
//! * **the delayed-ACK timeout** (`tcp_send_delayed_ack`): ato, at most TCP_DELACK_MAX =
//!   200 ms (`icsk_delack_max`); a timer already running is kept if earlier, and an ACK is
//!   sent at once if it would fire within ato/4.
//!
//! Not modelled: SACK compression (`tcp_comp_sack_delay_ns`, 1 ms: after three immediate
//! duplicate ACKs for one rcv_nxt, Linux delays further SACKs by min(1 ms, RTT/20)); the
//! receiver-side RTT bound of the delayed ACK (`srtt_us` of a socket that sends no data); the
//! window-update condition of `__tcp_ack_snd_check` (the window is assumed not to shrink);
//! pingpong (interactive) mode; the jiffies clock (times are exact). The receiver simulates no
//! handshake and so has no RTT sample: its RTO, which caps ato and detects an idle gap, is the
//! flow's `min_rto` (what Linux's RTO is for a short round trip).

use crate::time::SimTime;

/// TCP_ATO_MIN = HZ / 25 (and TCP_DELACK_MIN).
pub const ATO_MIN: SimTime = SimTime::from_ms(40);
/// TCP_DELACK_MAX = HZ / 5 (the default `icsk_delack_max`).
pub const DELACK_MAX: SimTime = SimTime::from_ms(200);
/// TCP_MAX_QUICKACKS.
pub const MAX_QUICKACKS: u32 = 16;
/// The receive window Linux 6.x opens a connection with (about 64 KB: tcp_rmem[1] = 131072,
/// half of it as window), which sets the first quick-ACK count.
pub const INITIAL_RCV_WND: u64 = 65535;

/// The state `inet_connection_sock.icsk_ack` keeps for delayed ACKs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinuxAck {
    /// Receive MSS (full-sized segments' payload).
    rcv_mss: u64,
    /// The receive window for the quick-ACK count after the first data.
    rcv_wnd: u64,
    /// The receiver's RTO (caps ato; a longer gap is idle).
    rto: SimTime,
    /// icsk_ack.quick: immediate ACKs left.
    pub quick: u32,
    /// icsk_ack.ato; zero before the first data.
    pub ato: SimTime,
    /// icsk_ack.lrcvtime: when in-order data last arrived.
    lrcvtime: SimTime,
}

impl LinuxAck {
    pub fn new(rcv_mss: u64, rcv_wnd: u64, rto: SimTime) -> Self {
        LinuxAck {
            rcv_mss: rcv_mss.max(1),
            rcv_wnd,
            rto,
            quick: 0,
            ato: SimTime::ZERO,
            lrcvtime: SimTime::ZERO,
        }
    }

    /// tcp_incr_quickack(sk, TCP_MAX_QUICKACKS), with the window `rcv_wnd`.
    fn incr_quickack(&mut self, rcv_wnd: u64) {
        let q = (rcv_wnd / (2 * self.rcv_mss)).max(2).min(MAX_QUICKACKS as u64) as u32;
        self.quick = self.quick.max(q);
    }

    /// tcp_enter_quickack_mode(sk, max): at most `max` quick ACKs (ECN's CE and
    /// retransmission rules use 2).
    pub fn enter_quickack(&mut self, max: u32) {
        let q = (self.rcv_wnd / (2 * self.rcv_mss)).max(2).min(max as u64) as u32;
        self.quick = self.quick.max(q);
        self.ato = ATO_MIN;
    }

    /// tcp_enter_quickack_mode: duplicate (or out-of-window) data.
    pub fn enter_quickack_mode(&mut self) {
        self.incr_quickack(self.rcv_wnd);
        self.ato = ATO_MIN;
    }

    /// tcp_event_data_recv: in-order data arrived at `now`.
    pub fn on_data(&mut self, now: SimTime) {
        if self.ato == SimTime::ZERO {
            // The first data: quick ACKs for the initial window.
            self.incr_quickack(INITIAL_RCV_WND.min(self.rcv_wnd));
            self.ato = ATO_MIN;
        } else {
            let m = now - self.lrcvtime;
            if m <= SimTime(ATO_MIN.ns() / 2) {
                self.ato = SimTime(self.ato.ns() / 2 + ATO_MIN.ns() / 2);
            } else if m < self.ato {
                self.ato = SimTime(self.ato.ns() / 2 + m.ns()).min(self.rto);
            } else if m > self.rto {
                // An idle gap: the sender restarts its window; ACK it quickly.
                self.incr_quickack(self.rcv_wnd);
            }
        }
        self.lrcvtime = now;
    }

    /// __tcp_ack_snd_check: ACK at once? `unacked` in-order bytes not yet acknowledged.
    pub fn ack_now(&self, unacked: u64) -> bool {
        unacked > self.rcv_mss || self.quick > 0
    }

    /// tcp_send_delayed_ack: the delayed-ACK deadline given the one already set, or None to
    /// ACK now (the running timer would fire within ato/4).
    pub fn delayed_deadline(&self, now: SimTime, running: Option<SimTime>) -> Option<SimTime> {
        let ato = self.ato.min(DELACK_MAX);
        let at = now + ato;
        match running {
            Some(t) if t <= now + SimTime(ato.ns() / 4) => None,
            Some(t) => Some(t.min(at)),
            None => Some(at),
        }
    }

    /// tcp_event_ack_sent -> tcp_dec_quickack_mode: an ACK of data went out.
    pub fn on_ack_sent(&mut self) {
        if self.quick > 0 {
            self.quick -= 1;
            if self.quick == 0 {
                self.ato = ATO_MIN;
            }
        }
    }

    /// tcp_delack_timer_handler: the delayed-ACK timer fired ("Delayed ACK missed: inflate
    /// ATO").
    pub fn on_delack_timer(&mut self) {
        self.ato = SimTime(2 * self.ato.ns()).min(self.rto);
    }
}
