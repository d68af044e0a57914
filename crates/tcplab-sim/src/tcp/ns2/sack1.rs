//! ns-2's `Agent/TCP/Sack1` (tcp-sack1.cc) beside the agent every variant shares (`agent.rs`):
//! its scoreboard (the sink's SACK blocks kept as a set of SACKed packets, ns-2's
//! `ScoreBoard`), its ACK processing (fast recovery by `pipe`, with or without `partial_ack_`)
//! and its send loop (`sack_send_much`: the next hole before new data).

use super::agent::Ns2Sender;
use crate::tcp::segment::Segment;
use crate::time::SimTime;
use std::collections::BTreeSet;

/// ns-2's reassembly-queue scoreboard of Sack1, as a set of SACKed packets.
#[derive(Default)]
pub(super) struct Scoreboard {
    pub(super) sacked: BTreeSet<i64>,
    pub(super) h_seqno: i64,
    pub(super) sack_min: i64,
    pub(super) changed: bool,
}

impl Scoreboard {
    pub(super) fn new() -> Self {
        Scoreboard {
            sacked: BTreeSet::new(),
            h_seqno: -1,
            sack_min: -1,
            changed: false,
        }
    }
    pub(super) fn clear(&mut self) {
        self.sacked.clear();
        self.h_seqno = -1;
    }
    pub(super) fn update(&mut self, last_ack: i64, blocks: &[(i64, i64)]) {
        let old = self.sacked.len();
        self.changed = false;
        if self.sack_min <= last_ack {
            self.sack_min = last_ack + 1;
            if !self.sacked.is_empty() {
                let min = self.sack_min;
                self.sacked.retain(|&s| s >= min);
                self.changed = true;
            }
        }
        for &(l, r) in blocks {
            for s in l..r {
                self.sacked.insert(s);
            }
        }
        self.changed = self.changed || old != self.sacked.len();
    }
    /// First unSACKed packet at or above `seq`, and whether SACKed data lies above it.
    pub(super) fn nexthole(&self, seq: i64) -> (i64, bool) {
        let mut h = seq;
        while self.sacked.contains(&h) {
            h += 1;
        }
        let above = self.sacked.range(h + 1..).next().is_some();
        (h, above)
    }
    pub(super) fn next_retran(&mut self) -> i64 {
        if self.h_seqno < self.sack_min {
            self.h_seqno = self.sack_min;
        }
        let (seq, above) = self.nexthole(self.h_seqno);
        if seq <= 0 || !above {
            return -1;
        }
        if seq > self.h_seqno {
            self.h_seqno = seq;
        }
        seq
    }
    pub(super) fn next_unacked(&self, seq: i64) -> i64 {
        self.nexthole(seq).0
    }
    pub(super) fn mark_retran(&mut self, s: i64) {
        if s >= self.h_seqno {
            self.h_seqno = s + 1;
        }
    }
}

impl Ns2Sender {
    pub(super) fn sack_send_much(&mut self, now: SimTime, maxburst: u32, out: &mut Vec<Segment>) {
        let mut win = self.window();
        let wnd = self.cfg.window as i64;
        let mut n = 0;
        let mut found = true;
        while ((!self.fastrecov && self.t_seqno <= self.last_ack + win)
            || (self.fastrecov && self.pipe < self.cwnd as i64))
            && found
        {
            found = false;
            let mut x = self.sb.next_retran();
            if x == -1 {
                if (!self.fastrecov && self.t_seqno <= self.highest_ack + win)
                    || (self.fastrecov && self.t_seqno <= self.highest_ack + wnd)
                {
                    found = true;
                    x = self.t_seqno;
                    self.t_seqno += 1;
                }
            } else if self.recover > 0 && x <= self.highest_ack + wnd {
                found = true;
                self.sb.mark_retran(x);
                win = self.window();
            }
            if found {
                self.output_advance(now, x, out);
                n += 1;
                self.pipe += 1;
            }
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
    }

    pub(super) fn recv_sack1(
        &mut self,
        now: SimTime,
        ack: i64,
        blocks: &[(i64, i64)],
        out: &mut Vec<Segment>,
    ) {
        let valid = ack >= self.last_ack;
        if !self.fastrecov {
            if ack > self.last_ack {
                self.firstpartial = false;
                self.recv_newack_helper(now, ack);
                self.timeout_flag = false;
                self.sb.clear();
                self.initial_window_check();
            } else if ack < self.last_ack {
            } else if !self.timeout_flag {
                self.sb.update(self.highest_ack, blocks);
                if self.sb.changed {
                    self.count_dupack(now, false, out);
                }
            }
            if valid && self.dupacks == 0 {
                self.send_much(now, 0, out);
            }
        } else {
            self.pipe -= 1;
            if ack >= self.recover {
                self.recover = 0;
                self.fastrecov = false;
                self.newack(now, ack);
                self.timeout_flag = false;
                self.sb.clear();
            } else if ack > self.highest_ack {
                self.highest_ack = ack;
                self.sb.update(self.highest_ack, blocks);
                if self.cfg.partial_ack {
                    self.partial_ack_action(now, out);
                    self.pipe += 1;
                    if !self.firstpartial {
                        self.newtimer(now, ack);
                        self.backoff = 1;
                        self.firstpartial = true;
                    }
                } else {
                    self.pipe -= 1;
                    self.newtimer(now, ack);
                    self.backoff = 1;
                }
            } else if !self.timeout_flag {
                self.sb.update(self.highest_ack, blocks);
                if self.sb.changed && self.dupacks > 0 {
                    self.dupacks += 1;
                }
            }
            if valid {
                self.send_much(now, 0, out);
            }
        }
    }

    fn partial_ack_action(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.next_pkt < self.highest_ack + 1 {
            self.next_pkt = self.highest_ack + 1;
        }
        for _ in 0..2 {
            let next = self.sb.next_unacked(self.next_pkt);
            if next > self.next_pkt {
                self.next_pkt = next;
            }
            if self.t_seqno < self.next_pkt {
                self.t_seqno = self.next_pkt;
            }
            self.output(now, self.next_pkt, out);
            self.sb.mark_retran(self.next_pkt);
            self.next_pkt += 1;
        }
    }
}
