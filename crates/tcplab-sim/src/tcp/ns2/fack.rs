//! ns-2's `Agent/TCP/Fack` and `Agent/TCP/SackRH`, with their array scoreboards (one
//! node per packet from the first unacknowledged one to the highest SACKed one).

use super::agent::{Action, Ns2Sender};
use crate::tcp::instruments::LossSignal;
use crate::tcp::segment::Segment;
use crate::time::SimTime;
use std::collections::VecDeque;

const NUMDUPACKS: i64 = 3;

#[derive(Clone, Copy, Default)]
struct Node {
    seq: i64,
    sack: bool,
    retran: bool,
    snd_nxt: i64,
    sack_cnt: i64,
}

impl Node {
    fn new(seq: i64) -> Self {
        Node {
            seq,
            ..Default::default()
        }
    }
}

/// ns-2's ScoreBoard (FACK) and ScoreBoardRH (SackRH).
#[derive(Default)]
struct Board {
    nodes: VecDeque<Node>,
    /// Sequence number of the last node removed by a cumulative ACK: the array slot just
    /// before the first one, which ns-2 reads as "the last node" when the board is empty.
    last_removed: i64,
    retran_sacked: i64,
}

impl Board {
    fn clear(&mut self) {
        self.nodes.clear();
    }
    fn node(&mut self, seq: i64) -> Option<&mut Node> {
        let first = self.nodes.front()?.seq;
        if seq < first {
            return None;
        }
        self.nodes.get_mut((seq - first) as usize)
    }
    fn tail_seq(&self) -> i64 {
        self.nodes.back().map_or(self.last_removed, |n| n.seq)
    }
    fn pop_acked(&mut self, last_ack: i64, rh_id: i64) -> i64 {
        let mut decr = 0;
        while let Some(n) = self.nodes.front() {
            if n.seq > last_ack {
                break;
            }
            let n = self.nodes.pop_front().unwrap_or_default();
            self.last_removed = n.seq;
            if n.retran {
                decr += 1;
                self.retran_sacked = rh_id;
            }
        }
        decr
    }
    fn extend_to(&mut self, right: i64) {
        let tail = self.tail_seq();
        if right > tail {
            for s in tail + 1..right {
                self.nodes.push_back(Node::new(s));
            }
        }
    }
    fn sack(&mut self, l: i64, r: i64, rh_id: i64) -> i64 {
        let mut decr = 0;
        for n in self.nodes.iter_mut() {
            if n.seq >= r {
                break;
            }
            if n.seq >= l {
                n.sack = true;
                if n.retran {
                    n.retran = false;
                    n.snd_nxt = 0;
                    decr += 1;
                    self.retran_sacked = rh_id;
                }
            }
        }
        decr
    }

    /// ScoreBoard::UpdateScoreBoard (FACK).
    fn update_fack(&mut self, last_ack: i64, blocks: &[(i64, i64)]) -> i64 {
        let mut decr = 0;
        if self.nodes.front().is_some_and(|n| n.seq <= last_ack) {
            decr += self.pop_acked(last_ack, 0);
        }
        if self.nodes.is_empty() && !blocks.is_empty() {
            self.nodes.push_back(Node::new(last_ack + 1));
        }
        for &(l, r) in blocks {
            self.extend_to(r);
            decr += self.sack(l, r, 0);
        }
        decr
    }

    /// ScoreBoard::CheckSndNxt (FACK): a retransmission SACKed past is lost again.
    fn check_snd_nxt_fack(&mut self, blocks: &[(i64, i64)]) -> bool {
        let mut force = false;
        for &(_, r) in blocks {
            for n in self.nodes.iter_mut() {
                if n.seq >= r {
                    break;
                }
                if n.retran && n.snd_nxt < r {
                    n.retran = false;
                    n.snd_nxt = 0;
                    force = true;
                }
            }
        }
        force
    }

    fn next_retran(&self, min_sack_cnt: i64) -> i64 {
        self.nodes
            .iter()
            .find(|n| !n.sack && !n.retran && n.sack_cnt >= min_sack_cnt)
            .map_or(-1, |n| n.seq)
    }

    fn mark_retran(&mut self, seq: i64, snd_nxt: i64) {
        if let Some(n) = self.node(seq) {
            n.retran = true;
            n.snd_nxt = snd_nxt;
        }
    }

    /// ScoreBoardRH::UpdateScoreBoard.
    fn update_rh(&mut self, last_ack: i64, blocks: &[(i64, i64)], rh_id: i64) -> i64 {
        if blocks.is_empty() && self.nodes.is_empty() {
            return 0;
        }
        if self.nodes.is_empty() {
            self.nodes.push_back(Node::new(last_ack + 1));
        }
        let mut decr = 0;
        if self.nodes.front().is_some_and(|n| n.seq <= last_ack) {
            decr += self.pop_acked(last_ack, rh_id);
        }
        let mut sack_max = 0;
        for &(l, r) in blocks {
            sack_max = sack_max.max(r);
            self.extend_to(r);
            decr += self.sack(l, r, rh_id);
        }
        for n in self.nodes.iter_mut() {
            if n.seq >= sack_max {
                break;
            }
            if !n.sack {
                n.sack_cnt += 1;
            }
        }
        // CheckSndNxt
        for n in self.nodes.iter_mut() {
            if n.seq >= sack_max {
                break;
            }
            if n.retran && n.snd_nxt < sack_max {
                n.retran = false;
                n.snd_nxt = 0;
                n.sack_cnt = 1;
                decr += 1;
            }
        }
        decr
    }

    fn fack(&self, last_ack: i64) -> i64 {
        self.nodes.back().map_or(last_ack, |n| n.seq)
    }

    fn new_holes(&self) -> i64 {
        self.nodes.iter().filter(|n| !n.sack && n.sack_cnt == 1).count() as i64
    }

    fn timeout_rh(&mut self, snd_nxt: i64) {
        if self.nodes.is_empty() {
            return;
        }
        self.extend_to(snd_nxt);
        for n in self.nodes.iter_mut() {
            if !n.sack {
                n.retran = false;
                n.snd_nxt = 0;
                n.sack_cnt = NUMDUPACKS;
            }
        }
    }
}

#[derive(Default)]
pub(super) struct FackState {
    board: Board,
    fack: i64,
    retran_data: i64,
    pub(super) wintrim: f64,
    timeout: bool,
    init: bool,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Rh {
    #[default]
    Incr,
    Exact,
    Est,
    EstRepair,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Hole {
    #[default]
    None,
    Counting,
    /// RHEH_NEW_HOLE: three duplicate ACKs on the first hole
    Found,
    Retransmitted,
}

#[derive(Default)]
pub(super) struct RhState {
    board: Board,
    fack: i64,
    retran_data: i64,
    num_dupacks: i64,
    state: Rh,
    prior_cwnd: f64,
    prior_max_seq: i64,
    rh_id: i64,
    rh_max: i64,
    hole: Hole,
    num_retrans: i64,
    retran_flag: bool,
    init: bool,
}

impl RhState {
    fn clear(&mut self) {
        self.rh_id = 0;
        self.prior_max_seq = 0;
        self.num_dupacks = 0;
        self.hole = Hole::None;
        self.num_retrans = 0;
        self.retran_flag = false;
        self.prior_cwnd = 0.0;
    }
    fn compute_fack(&mut self, last_ack: i64) {
        self.fack = match self.state {
            Rh::Incr | Rh::Exact => self.board.fack(last_ack),
            _ => last_ack + self.num_dupacks + 1,
        };
    }
}

impl Ns2Sender {
    fn fack_init(&mut self) {
        if !self.fk.init {
            self.fk.init = true;
            self.fk.fack = -1;
        }
    }

    /// FackTcpAgent::oldack: a duplicate (or SACK-carrying) ACK.
    fn fack_oldack(&mut self, now: SimTime, ack: i64, ts_ecr: SimTime) {
        self.last_ack = ack;
        self.highest_ack = ack;
        self.fk.fack = self.fk.fack.max(self.highest_ack);
        self.maxseq = self.maxseq.max(self.highest_ack);
        if self.t_seqno < self.last_ack + 1 {
            self.t_seqno = self.last_ack + 1;
        }
        self.newtimer(now, ack);
        if self.rtt_active && ack >= self.rtt_seq {
            self.rtt_active = false;
            self.backoff = 1;
        }
        self.rtt_update(now, ts_ecr);
    }

    pub(super) fn recv_fack(
        &mut self,
        now: SimTime,
        ack: i64,
        blocks: &[(i64, i64)],
        ts_ecr: SimTime,
        out: &mut Vec<Segment>,
    ) {
        self.fack_init();
        let maxsack = blocks.iter().map(|b| b.1).max().unwrap_or(-1) - 1;
        if !self.fastrecov {
            if ack > self.last_ack && blocks.is_empty() {
                self.recv_newack_helper(now, ack);
                self.fk.fack = self.last_ack;
                self.fk.timeout = false;
                self.fk.board.clear();
                self.fk.retran_data = 0;
                self.fk.wintrim = 0.0;
            } else if ack < self.last_ack {
            } else {
                self.fk.retran_data -= self.fk.board.update_fack(self.highest_ack, blocks);
                self.fack_oldack(now, ack, ts_ecr);
                if maxsack > self.fk.fack {
                    self.fk.fack = maxsack;
                }
                if self.fk.fack >= self.t_seqno {
                    self.t_seqno = self.fk.fack + 1;
                }
                self.dupacks = self.fk.fack - self.last_ack - 1;
                if self.dupacks >= NUMDUPACKS {
                    self.signal_loss(LossSignal::FastRetransmit);
                    self.recover = self.t_seqno;
                    self.last_action = Action::Dupack;
                    // slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART)
                    self.slowdown(false);
                    self.reset_rtx_timer(now, true, false);
                    self.fastrecov = true;
                    let (s, t) = (self.last_ack + 1, self.t_seqno);
                    self.fk.board.mark_retran(s, t);
                    self.fk.retran_data += 1;
                    self.output(now, s, out);
                }
            }
            if self.dupacks == 0 {
                self.fack_send_much(now, 0, out);
            }
        } else {
            self.fack_oldack(now, ack, ts_ecr);
            if maxsack > self.fk.fack {
                self.fk.fack = maxsack;
            }
            if self.fk.fack >= self.t_seqno {
                self.t_seqno = self.fk.fack + 1;
            }
            self.fk.retran_data -= self.fk.board.update_fack(self.highest_ack, blocks);
            self.fk.timeout |= self.fk.board.check_snd_nxt_fack(blocks);
            self.opencwnd();
            if blocks.is_empty() && self.last_ack >= self.recover {
                self.fastrecov = false;
                self.fk.timeout = false;
                self.fk.board.clear();
                self.fk.retran_data = 0;
                self.fk.wintrim = 0.0;
                self.dupacks = 0;
            }
            self.fack_send_much(now, 0, out);
        }
    }

    pub(super) fn fack_send_much(&mut self, now: SimTime, maxburst: u32, out: &mut Vec<Segment>) {
        self.fack_init();
        let mut win = self.window();
        let mut n = 0;
        while self.t_seqno <= self.fk.fack + win - self.fk.retran_data && !self.fk.timeout {
            let mut x = self.fk.board.next_retran(0);
            if x == -1 {
                if self.fastrecov && self.t_seqno > self.highest_ack + self.cfg.window as i64 {
                    break;
                }
                x = self.t_seqno;
                self.t_seqno += 1;
            } else {
                let t = self.t_seqno;
                self.fk.board.mark_retran(x, t);
                self.fk.retran_data += 1;
                win = self.window();
            }
            self.output_advance(now, x, out);
            n += 1;
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
    }

    pub(super) fn fack_timeout(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.fk.timeout = false;
        if self.highest_ack > self.last_ack {
            self.last_ack = self.highest_ack;
        }
        self.fk.retran_data = 0;
        self.last_action = Action::Timeout;
        let idle = self.highest_ack == self.maxseq;
        if idle {
            self.cwnd = self.cfg.window_init as f64;
        } else {
            self.slowdown(false);
        }
        self.fk.board.clear();
        self.reset_rtx_timer(now, true, !idle);
        self.fk.fack = self.last_ack;
        self.t_seqno = self.last_ack + 1;
        self.fack_send_much(now, 0, out);
        self.record(now);
    }

    // ---- SackRH ----

    fn rh_init(&mut self) {
        if !self.rh.init {
            self.rh.init = true;
            self.rh.fack = -1;
        }
    }

    /// SackRHTcpAgent::newack, called on every ACK: the timer restarts on each one.
    fn rh_newack(&mut self, now: SimTime, ack: i64) {
        // SackRH arms the timer before the sample updates the RTO (ns-2's order).
        self.newtimer(now, ack);
        self.take_ack(now, ack);
    }

    fn rh_boundparms(&mut self) {
        let p = self.rh.prior_cwnd;
        if self.cwnd > p / 2.0 {
            self.cwnd = p / 2.0;
        }
        self.ssthresh = self.cwnd as i64;
        if (self.ssthresh as f64) < p / 4.0 {
            self.ssthresh = (p / 4.0) as i64;
        }
    }

    pub(super) fn recv_rh(&mut self, now: SimTime, ack: i64, blocks: &[(i64, i64)], out: &mut Vec<Segment>) {
        self.rh_init();
        let sackpresent = !blocks.is_empty();
        let old_ack = self.last_ack;
        self.rh_newack(now, ack);
        let old_fack = self.rh.fack;
        let old_retran_data = self.rh.retran_data;
        let id = self.rh.rh_id;
        self.rh.retran_data -= self.rh.board.update_rh(self.last_ack, blocks, id);
        if !sackpresent && old_ack == self.last_ack {
            self.rh.num_dupacks += 1;
            if self.rh.hole == Hole::Counting && self.rh.num_dupacks == NUMDUPACKS {
                self.rh.hole = Hole::Found;
            }
        }
        let la = self.last_ack;
        self.rh.compute_fack(la);
        // 7.8 reordering exit
        if !self.rh.retran_flag
            && ((self.rh.state == Rh::Exact && !sackpresent)
                || (self.rh.state == Rh::Est && self.last_ack > old_ack))
        {
            self.rh.state = Rh::Incr;
            self.cwnd = self.rh.prior_cwnd;
            self.rh.clear();
            self.rh.compute_fack(la);
        }
        // 7.10 completion of RH_EXACT
        if self.rh.state == Rh::Exact
            && (self.rh.fack >= self.rh.prior_max_seq || self.rh.board.retran_sacked == self.rh.rh_id)
        {
            self.rh_boundparms();
            self.rh.state = Rh::Incr;
            self.rh.clear();
        }
        // 7.11 completion of RH_EST*
        if matches!(self.rh.state, Rh::Est | Rh::EstRepair) && self.last_ack >= self.rh.prior_max_seq {
            self.rh.retran_data = 0;
            self.cwnd = (self.rh.prior_cwnd - self.rh.num_retrans as f64) / 2.0;
            self.rh_boundparms();
            self.rh.state = Rh::Incr;
            self.rh.clear();
            self.rh.compute_fack(la);
        }
        // 7.12
        if self.rh.state == Rh::Est && self.cwnd <= self.rh.prior_cwnd / 2.0 {
            self.rh.state = Rh::EstRepair;
        }
        // 7.9 partial ACKs while estimating
        if matches!(self.rh.state, Rh::Est | Rh::EstRepair) && self.last_ack > old_ack {
            self.rh.retran_data = 0;
            self.rh.num_dupacks -= self.last_ack - old_ack - 1;
            self.rh.hole = if self.rh.num_dupacks >= NUMDUPACKS {
                Hole::Found
            } else {
                Hole::Counting
            };
            self.rh.compute_fack(la);
        }
        // 7.4 entering RH_EXACT
        if self.rh.state == Rh::Incr && self.rh.board.new_holes() != 0 {
            self.rh.state = Rh::Exact;
            self.rh.prior_cwnd = self.cwnd;
            self.rh.prior_max_seq = self.t_seqno;
            self.rh.rh_max += 1;
            self.rh.rh_id = self.rh.rh_max;
        }
        // 7.5 entering RH_EST
        if self.rh.state == Rh::Incr && self.rh.num_dupacks > 0 {
            self.rh.state = Rh::Est;
            self.rh.hole = Hole::Counting;
            self.rh.prior_cwnd = self.cwnd;
            self.rh.prior_max_seq = self.t_seqno;
            self.rh.rh_max += 1;
            self.rh.rh_id = self.rh.rh_max;
        }
        if self.rh.state == Rh::Exact && self.rh.num_dupacks > 0 {
            self.rh.state = Rh::Est;
            self.rh.hole = Hole::Counting;
            self.rh.rh_max += 1;
            self.rh.rh_id = self.rh.rh_max;
        }
        match self.rh.state {
            Rh::Incr => {
                if self.t_seqno - old_fack + old_retran_data + 1 >= self.cwnd as i64 {
                    self.opencwnd();
                }
            }
            Rh::Exact => {
                let d = (self.rh.fack - old_fack) + self.rh.board.new_holes();
                self.cwnd -= d as f32 as f64 / 2.0;
            }
            Rh::Est => self.cwnd -= 0.5,
            Rh::EstRepair => {}
        }
        self.rh_send_much(now, 0, out);
    }

    pub(super) fn rh_send_much(&mut self, now: SimTime, maxburst: u32, out: &mut Vec<Segment>) {
        self.rh_init();
        let wnd = self.cfg.window as i64;
        let mut n = 0;
        let mut found = true;
        while self.cwnd as i64 >= self.t_seqno - self.rh.fack + self.rh.retran_data && found {
            found = false;
            let mut x = self.rh.board.next_retran(NUMDUPACKS);
            if x == -1 {
                if matches!(self.rh.state, Rh::Est | Rh::EstRepair) && self.rh.hole == Hole::Found {
                    self.rh_first_retransmission();
                    x = self.last_ack + 1;
                    self.rh.hole = Hole::Retransmitted;
                    self.rh.num_retrans += 1;
                    self.rh.retran_data += 1;
                    self.rh.retran_flag = true;
                    found = true;
                } else if self.t_seqno <= self.last_ack + wnd {
                    found = true;
                    x = self.t_seqno;
                    self.t_seqno += 1;
                }
            } else if x <= self.last_ack + wnd {
                found = true;
                self.rh_first_retransmission();
                let t = self.t_seqno;
                self.rh.board.mark_retran(x, t);
                self.rh.retran_data += 1;
                self.rh.retran_flag = true;
            }
            if found {
                self.output_advance(now, x, out);
                n += 1;
            }
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
    }

    /// The loss of a rate-halving episode is confirmed by its first retransmission (a hole
    /// that fills without one was reordering, and RH undoes the reduction): that is when the
    /// instruments see the window reduction.
    fn rh_first_retransmission(&mut self) {
        if !self.rh.retran_flag && self.rh.state != Rh::Incr {
            self.signal_loss(LossSignal::FastRetransmit);
        }
    }

    pub(super) fn rh_timeout(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.rh.state != Rh::Incr {
            self.cwnd = self.rh.prior_cwnd;
            self.rh.clear();
            self.rh.state = Rh::Incr;
        }
        self.slowdown(false);
        self.rh.retran_data = 0;
        let t = self.t_seqno;
        self.rh.board.timeout_rh(t);
        let la = self.last_ack;
        self.rh.compute_fack(la);
        if self.t_seqno > self.rh.fack + 1 {
            self.t_seqno = self.rh.fack + 1;
        }
        self.reset_rtx_timer(now, true, true);
        self.last_action = Action::Timeout;
        self.rh_send_much(now, 0, out);
        self.record(now);
    }
}
