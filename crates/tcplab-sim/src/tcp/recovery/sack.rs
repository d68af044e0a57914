//! SACK-based loss recovery, RFC 6675 (conservative): on the DupThresh-th duplicate ACK that
//! carries new SACK information, RecoveryPoint = HighData, ssthresh = cwnd = the congestion
//! control's answer (max(FlightSize/2, 2 SMSS) for AIMD's defaults, Sec. 5 step 4.2),
//! retransmit the first unSACKed segment; then on every ACK, while cwnd - pipe >= 1
//! SMSS, send NextSeg: (1) the first lost hole, (2) new data, (3) a hole below SACKed data,
//! (4) once per recovery, the rescue retransmission of the highest unSACKed segment. Recovery
//! ends when the cumulative ACK reaches RecoveryPoint.
//!
//! With `rate_halving` (ns-2's SackRH, after Mathis & Mahdavi): cwnd is not cut at once but
//! lowered by half a segment per ACK during recovery (one segment sent per two ACKs) down to
//! the new ssthresh, which it becomes when recovery ends.
//!
//! With `prr` (Proportional Rate Reduction, RFC 6937 Sec. 3, as Linux runs it): on every ACK
//! in recovery, with DeliveredData = the bytes newly acknowledged cumulatively or by SACK,
//! prr_delivered += DeliveredData, and
//!   if pipe > ssthresh: sndcnt = ceil(prr_delivered x ssthresh / RecoverFS) - prr_out
//!   else:               sndcnt = min(ssthresh - pipe, max(prr_delivered - prr_out,
//!                                DeliveredData) + SMSS)      (the slow-start reduction bound)
//! cwnd = pipe + max(sndcnt, 0); prr_out counts what recovery sends (the fast retransmission
//! included). RecoverFS = snd.nxt - snd.una at the start. Recovery ends with cwnd = ssthresh.
//!
//! With `rack` (RFC 8985, `rack.rs`): RACK-TLP decides what is lost instead of DupThresh and
//! IsLost. A recovery starts when RACK marks a segment lost (RFC 8985 Sec. 6.2: "upon
//! detecting new losses ... the sender enters fast recovery"), which sends it at once as
//! step 4.3 does; pipe counts the unSACKed segments RACK has not marked lost, and NextSeg
//! sends (1) the first segment marked lost, then (2) new data. RFC 6675's rules 3 and 4 are
//! not used: they retransmit on a guess, and a retransmission RACK has not found lost is
//! still in flight (Sec. 9.2: RFC 6675's recovery "MUST NOT be used with RACK-TLP" as is;
//! Linux's `tcp_xmit_retransmit_queue` likewise sends only segments marked lost). Without
//! PRR, a lost retransmission found during recovery reduces the window once more (Sec. 9.3).

use super::exit::ExitGrowth;
use super::rack::Rack;
use super::{reduce, AckEvent, Ctx, Recovery, Validation};
use crate::error::Error;
use crate::tcp::cc::CongestionControl;
use crate::tcp::cc::Controller;
use crate::tcp::ns2::Ns2Variant;
use crate::tcp::segment::Segment;
use crate::tcp::state::{AckResult, LossSignal, SenderCore};
use crate::time::SimTime;

pub use super::sack_options::{PrrRules, Reentry, SackOptions};

#[derive(Clone, Debug, Default)]
pub struct SackRecovery {
    pub in_recovery: bool,
    pub rate_halving: bool,
    recovery_point: u64,
    rescue_rxt: Option<u64>,
    /// RFC 6937 state, with `prr` on.
    prr: Option<Prr>,
    /// RFC 8985 state, with `rack` on.
    pub rack: Option<Box<Rack>>,
    /// The growth on the ACK that ends the recovery (`recovery_exit_growth`).
    exit: ExitGrowth,
    /// `reentry = "rfc6675"`.
    reentry_rfc6675: bool,
}

/// A further congestion response outside the recovery's own entry (a lost retransmission,
/// RFC 8985 Sec. 9.3; a loss a probe repaired, Sec. 7.4): cwnd = ssthresh = the controller's
/// answer for the data actually in flight (RACK's pipe), as after a timeout
/// (`SenderCore::timeout_loss`): snd_max - snd_una counts the SACKed data and would raise
/// ssthresh instead of lowering it.
fn reduce_in_flight(core: &mut SenderCore, cc: &mut CongestionControl, now: SimTime) {
    let mut loss = core.loss(now);
    if let Some(sb) = &core.sb {
        loss.flight_size = sb.rack_pipe();
    }
    core.win.ssthresh = cc.ssthresh_after_loss(&loss);
    core.win.cwnd = core.win.ssthresh;
}

/// Payload bytes of segments sent (PRR's prr_out counts them).
fn payload(sent: &[Segment]) -> u64 {
    sent.iter().map(|s| s.len as u64).sum()
}

/// Proportional Rate Reduction's counters (RFC 6937 Sec. 3), bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Prr {
    delivered: u64,
    out: u64,
    recover_fs: u64,
    /// The scoreboard's SACKed bytes after the previous ACK (for DeliveredData).
    sacked: u64,
    /// ns-3's rules (`prr_rules = "ns3"`).
    ns3: bool,
}

impl SackRecovery {
    pub fn new(rate_halving: bool) -> Self {
        SackRecovery {
            rate_halving,
            ..Default::default()
        }
    }

    /// RFC 6675 recovery with PRR (RFC 6937) setting the window.
    pub fn prr() -> Self {
        SackRecovery {
            prr: Some(Prr::default()),
            ..Default::default()
        }
    }

    /// The recovery with PRR on or off and RACK-TLP (RFC 8985) on or off.
    pub fn with(prr: bool, rack: bool) -> Self {
        SackRecovery {
            prr: prr.then(Prr::default),
            rack: rack.then(Box::default),
            ..Default::default()
        }
    }

    /// PRR with ns-3 3.44's arithmetic (`prr_rules = "ns3"`; `prr_step`).
    fn ns3_prr(mut self) -> Self {
        if let Some(p) = &mut self.prr {
            p.ns3 = true;
        }
        self
    }

    /// Outside recovery: remember the SACKed bytes, so that the ACK that starts a recovery
    /// counts only what it SACKed itself as delivered.
    fn note_sacked(&mut self, core: &SenderCore) {
        if self.rack.is_some() {
            return; // with RACK, at the end of `on_any_ack`, after detection
        }
        self.note_sacked_now(core);
    }

    fn note_sacked_now(&mut self, core: &SenderCore) {
        if let (Some(p), Some(sb)) = (&mut self.prr, core.sb.as_ref()) {
            p.sacked = sb.sacked_bytes();
        }
    }

    /// RFC 6937's per-ACK step: DeliveredData from the cumulative advance `acked` and the
    /// change in SACKed bytes, then cwnd = pipe + sndcnt. `dupack`: a duplicate ACK (or the
    /// one that starts the recovery), for ns-3's rules.
    fn prr_step(&mut self, core: &mut SenderCore, acked: u64, dupack: bool) {
        let Some(p) = &mut self.prr else { return };
        let Some(sb) = core.sb.as_ref() else { return };
        let sacked = sb.sacked_bytes();
        let mut delivered = (acked + sacked).saturating_sub(p.sacked);
        let (mss, ssthresh) = (core.mss(), core.win.ssthresh);
        // ns-3 3.44, TcpPrrRecovery::DoRecovery (tcp-prr-recovery.cc lines 74-77), called
        // with isDupAck by TcpSocketBase::DupAck (tcp-socket-base.cc line 1782) for an ACK
        // with new SACK information and by EnterRecovery (line 1721): one SMSS more.
        if p.ns3 && dupack && p.delivered < p.recover_fs {
            delivered += mss;
        }
        p.sacked = sacked;
        p.delivered += delivered;
        let pipe = if self.rack.is_some() {
            sb.rack_pipe()
        } else {
            sb.pipe(&sb.lost_flags(core.cfg.dupthresh, mss))
        };
        let sndcnt = if pipe > ssthresh {
            // Proportional: the sending rate is ssthresh / RecoverFS of the delivery rate.
            let target = (p.delivered as u128 * ssthresh as u128).div_ceil(p.recover_fs.max(1) as u128);
            (target as u64).saturating_sub(p.out)
        } else {
            // Slow-start reduction bound (PRR-SSRB); ns-3 adds its SMSS only when the ACK
            // covers retransmitted data (`m_isRetransDataAcked`, tcp-prr-recovery.cc lines
            // 97-104), here: when snd_una advanced.
            let extra = if p.ns3 && acked == 0 { 0 } else { mss };
            let bound = p.delivered.saturating_sub(p.out).max(delivered) + extra;
            (ssthresh - pipe).min(bound)
        };
        core.win.cwnd = pipe + sndcnt;
    }

    fn enter(&mut self, cx: &mut Ctx<'_>) {
        let (core, now, out) = (&mut *cx.core, cx.now, &mut *cx.out);
        self.in_recovery = true;
        self.recovery_point = core.snd_max;
        self.rescue_rxt = None;
        core.recover = core.snd_max;
        reduce(core, cx.cc, now);
        if !self.rate_halving && self.prr.is_none() {
            core.win.cwnd = core.win.ssthresh;
        }
        if let Some(sb) = &mut core.sb {
            sb.clear_rtx();
        }
        core.signal_loss(LossSignal::FastRetransmit);
        // RFC 6675 Sec. 5 step 4.3: the first segment deemed lost goes out at once (snd_una
        // by DupThresh; with RACK, the first one it marked).
        let first = match &mut self.rack {
            Some(r) => {
                r.reset_tlp(); // RFC 8985 Sec. 7.1
                core.sb
                    .as_ref()
                    .and_then(|sb| sb.first_rack_lost())
                    .map_or(core.snd_una, |s| s.start)
            }
            None => core.snd_una,
        };
        let pipe_before = match (&self.prr, &core.sb) {
            (Some(p), Some(sb)) if p.ns3 => sb.pipe(&sb.lost_flags(core.cfg.dupthresh, core.mss())),
            _ => 0,
        };
        let before = out.len();
        core.send_segment(now, first, out);
        if let Some(p) = &mut self.prr {
            // RFC 6937: RecoverFS = snd.nxt - snd.una; the counters start at 0; the fast
            // retransmission is sent at once (as Linux does) and counts in prr_out. What this
            // ACK SACKed counts as delivered (`sacked` is the count before it).
            *p = Prr {
                recover_fs: core.snd_max - core.snd_una,
                out: payload(&out[before..]),
                delivered: 0,
                sacked: p.sacked,
                ns3: p.ns3,
            };
            if p.ns3 {
                // ns-3: RecoverFS = the bytes in flight (RFC 6675's pipe) before the fast
                // retransmission (TcpPrrRecovery::EnterRecovery, tcp-prr-recovery.cc line 64).
                p.recover_fs = pipe_before;
            }
            self.prr_step(core, 0, true);
        }
    }

    /// May a recovery start now (`reentry`)?
    fn may_start(&self, core: &SenderCore) -> bool {
        if self.reentry_rfc6675 {
            core.sack_recovery_allowed()
        } else {
            core.fast_retransmit_allowed()
        }
    }

    fn rate_halve(&self, core: &mut SenderCore) {
        if self.rate_halving {
            core.win.cwnd = core
                .win
                .cwnd
                .saturating_sub(core.mss() / 2)
                .max(core.win.ssthresh);
        }
    }

    /// RACK_detect_loss_and_arm_timer (RFC 8985 Sec. 6.2 step 5), and what a loss starts: a
    /// fast recovery, or, inside one and without PRR, a further reduction for a lost
    /// retransmission (Sec. 9.3).
    fn rack_detect(&mut self, cx: &mut Ctx<'_>) {
        let (core, now) = (&mut *cx.core, cx.now);
        let Some(r) = self.rack.as_deref_mut() else { return };
        let Some(sb) = core.sb.as_mut() else { return };
        let srtt = core.rtt.srtt();
        let reo_wnd = r.reo_wnd(self.in_recovery, sb.sacked_segments(), core.cfg.dupthresh, srtt);
        r.reo_wnd = reo_wnd;
        let found = r.detect_loss(sb, now, reo_wnd);
        if found.lost == 0 {
            return;
        }
        if !self.in_recovery && r.rto_recovery_point.is_none() {
            self.enter(cx);
        } else if self.in_recovery && found.lost_retransmission && self.prr.is_none() {
            reduce_in_flight(core, cx.cc, now);
            core.signal_loss(LossSignal::FastRetransmit);
        }
    }

    /// Sec. 7.2: (re)arms the loss-probe timer when data is outstanding, outside fast and RTO
    /// recovery, with nothing SACKed; disarms it otherwise.
    fn arm_pto(&mut self, core: &SenderCore, now: SimTime) {
        let in_recovery = self.in_recovery;
        let Some(r) = self.rack.as_deref_mut() else { return };
        let sacked = core.sb.as_ref().map_or(0, |sb| sb.sacked_segments());
        if in_recovery || r.rto_recovery_point.is_some() || sacked > 0 || core.snd_una >= core.snd_max {
            r.pto_deadline = None;
            return;
        }
        r.arm_pto(
            now,
            core.rtt.srtt(),
            core.flight_size(),
            core.mss(),
            core.rto_deadline,
        );
    }

    /// NextSeg with RACK's marks: the first lost segment, then new data, while cwnd exceeds
    /// RACK's pipe by a segment.
    fn send_rack_marked(&mut self, core: &mut SenderCore, now: SimTime, out: &mut Vec<Segment>) {
        let mss = core.mss();
        loop {
            if core.paced_out(now) {
                return;
            }
            let Some(sb) = core.sb.as_ref() else { return };
            if core.win.cwnd < sb.rack_pipe() + mss {
                return;
            }
            if let Some(seg) = sb.first_rack_lost() {
                core.send_segment(now, seg.start, out);
            } else if !core.send_new_segment(now, u64::MAX, out) {
                return;
            }
        }
    }

    fn send_in_recovery(&mut self, core: &mut SenderCore, now: SimTime, out: &mut Vec<Segment>) {
        let (dupthresh, mss) = (core.cfg.dupthresh, core.mss());
        if self.rack.is_some() {
            self.send_rack_marked(core, now, out);
            return;
        }
        loop {
            if core.paced_out(now) {
                return;
            }
            let Some(sb) = core.sb.as_ref() else { return };
            let lost = sb.lost_flags(dupthresh, mss);
            if core.win.cwnd < sb.pipe(&lost) + mss {
                return;
            }
            // NextSeg (RFC 6675 Sec. 4).
            let hole = sb.first_lost_hole(&lost);
            if let Some(seg) = hole {
                core.send_segment(now, seg.start, out);
                continue;
            }
            let below_sacked = sb.first_hole_below_sacked();
            let rescue = sb.highest_unsacked().filter(|s| !s.rtx);
            if core.send_new_segment(now, u64::MAX, out) {
                continue;
            }
            if let Some(seg) = below_sacked {
                core.send_segment(now, seg.start, out);
                continue;
            }
            match (rescue, self.rescue_rxt) {
                (Some(seg), r) if r.is_none_or(|r| r < core.snd_una) => {
                    self.rescue_rxt = Some(self.recovery_point);
                    core.send_segment(now, seg.start, out);
                }
                _ => return,
            }
        }
    }
}

impl Recovery for SackRecovery {
    type Options = SackOptions;
    const USES_SACK: bool = true;
    const NS2_AGENT: Option<Ns2Variant> = Some(Ns2Variant::Sack1);

    fn build(o: &SackOptions) -> Self {
        let mut r = SackRecovery::with(o.prr.unwrap_or(false), o.rack.unwrap_or(false));
        r.exit = ExitGrowth::new(o.recovery_exit_growth.unwrap_or_default());
        r.reentry_rfc6675 = o.reentry == Some(Reentry::Rfc6675);
        match o.prr_rules.unwrap_or_default() {
            PrrRules::Rfc6937 => r,
            PrrRules::Ns3 => r.ns3_prr(),
        }
    }

    fn validate(o: &SackOptions, v: &Validation<'_>) -> Result<(), Error> {
        if o.prr_rules.is_some_and(|r| r != PrrRules::Rfc6937) && o.prr != Some(true) {
            return Err(Error::Invalid {
                field: format!("{}.prr_rules", v.at),
                message: "PRR's rules need prr = true".into(),
            });
        }
        if o.reentry.is_some_and(|r| r != Reentry::Rfc6582) && o.rack == Some(true) {
            return Err(Error::Invalid {
                field: format!("{}.reentry", v.at),
                message: "applies to the DupThresh recovery (rack = false); RACK starts a recovery from its own marks".into(),
            });
        }
        if o.rack == Some(true) && v.sack == Some(false) {
            return Err(Error::Invalid {
                field: format!("{}.rack", v.at),
                message: "RACK-TLP needs a SACK receiver (RFC 8985 Sec. 4), but sack = false".into(),
            });
        }
        Ok(())
    }

    fn on_dupack(&mut self, cx: &mut Ctx<'_>) {
        let core = &mut *cx.core;
        if self.in_recovery {
            self.rate_halve(core);
            if self.rack.is_none() {
                self.prr_step(core, 0, true);
            }
        } else if self.rack.is_none() && core.dupacks == core.cfg.dupthresh && self.may_start(core) {
            self.enter(cx);
        } else {
            self.note_sacked(core);
        }
    }

    fn on_new_ack(&mut self, cx: &mut Ctx<'_>, newly_acked: u64) -> AckResult {
        let core = &mut *cx.core;
        if !self.in_recovery {
            self.note_sacked(core);
            return AckResult::GROW;
        }
        if core.snd_una >= self.recovery_point {
            core.win.cwnd = core.win.ssthresh;
            self.in_recovery = false;
            if let Some(r) = &mut self.rack {
                r.on_recovery_exit();
            }
            return self.exit.on_exit(core, newly_acked);
        }
        self.rate_halve(core);
        if self.rack.is_none() {
            self.prr_step(core, newly_acked, false);
        }
        AckResult::SET
    }

    /// The retransmit timer fired (the congestion control has set the window). Without RACK
    /// the sender goes back to snd_una (go-back-N over the unSACKed segments). With RACK, RFC
    /// 8985 Sec. 6.3: the segment at snd_una and every segment sent more than RACK.rtt +
    /// RACK.reo_wnd ago are marked lost, the segment at snd_una is retransmitted at once (RFC
    /// 6298 Sec. 5.4), and the RTO recovery, until snd_una reaches what was sent before the
    /// timeout, retransmits what RACK marks (now or on later ACKs) before new data, within
    /// cwnd against RACK's pipe, as a fast recovery does; snd_nxt stays at snd_max.
    fn on_timeout(&mut self, cx: &mut Ctx<'_>) {
        let (core, now) = (&mut *cx.core, cx.now);
        self.in_recovery = false;
        let Some(r) = &mut self.rack else { return };
        r.reset_tlp();
        r.reo_deadline = None;
        r.rto_recovery_point = Some(core.snd_max);
        let Some(sb) = &mut core.sb else { return };
        r.mark_losses_on_rto(sb, core.snd_una, now);
        core.snd_nxt = core.snd_max;
        if core.snd_una < core.snd_max {
            core.send_segment(now, core.snd_una, cx.out);
        }
    }

    /// A timeout F-RTO found spurious is undone (Linux's `tcp_undo_cwnd_reduction` with
    /// `unmark_loss`): RACK's marks are cleared and the RTO recovery ends.
    fn undo_timeout(&mut self, core: &mut SenderCore) {
        let Some(r) = &mut self.rack else { return };
        r.rto_recovery_point = None;
        if let Some(sb) = &mut core.sb {
            sb.segments_mut().for_each(|s| s.lost = false);
        }
    }

    /// Does the RTO recovery keep snd_nxt at snd_max and retransmit only what is marked lost
    /// (RACK, RFC 8985 Sec. 6.3), rather than go back to snd_una?
    fn marks_after_timeout(&self) -> bool {
        self.rack.is_some()
    }

    /// RACK reads the segments each ACK delivers (RFC 8985 Sec. 6.2 steps 2-3).
    fn reads_delivered(&self) -> bool {
        self.rack.is_some()
    }

    /// The RACK and loss-probe timers (RFC 8985), if RACK is on.
    fn deadline(&self) -> Option<SimTime> {
        self.rack.as_ref().and_then(|r| r.deadline())
    }

    /// RFC 8985's per-ACK steps, after the duplicate-ACK or new-ACK hook: RACK's RTT,
    /// reordering and D-SACK state (Sec. 6.2 steps 1-4), the probe episode (Sec. 7.4), loss
    /// detection (step 5) and what it starts, and the loss-probe timer (Sec. 7.2).
    fn on_any_ack(&mut self, cx: &mut Ctx<'_>, ev: AckEvent<'_>) {
        let (core, now) = (&mut *cx.core, cx.now);
        self.exit.note(core);
        let Some(r) = self.rack.as_deref_mut() else { return };
        let Some(sb) = core.sb.as_mut() else { return };
        if let Some(rtt) = ev.rtt {
            r.on_rtt_sample(rtt);
        }
        let ts_ecr = core.cfg.timestamps.then_some(ev.ack.ts_ecr);
        r.update(&mut sb.delivered, ts_ecr, now);
        sb.delivered.clear();
        let dsack = ev.ack.sack.dsack_block(ev.ack.ack);
        r.on_dsack(core.snd_una, core.snd_max, dsack.is_some());
        let mut leftover = false;
        if r.rto_recovery_point.is_some_and(|p| core.snd_una >= p) {
            r.rto_recovery_point = None;
            r.on_recovery_exit();
            // Segments RACK marked during the RTO recovery and not yet retransmitted start a
            // fast recovery (Linux: tcp_time_to_recover, "the loss is proven").
            leftover = sb.first_rack_lost().is_some();
        }
        // Sec. 7.4: a retransmitted probe repaired a loss: the congestion control reacts once
        // (Linux: the CWR reduction, cwnd = ssthresh).
        let dupack_without_sack = ev.acked == 0 && ev.ack.sack.is_empty();
        if r.tlp_process_ack(ev.ack.ack, dsack, dupack_without_sack) && !self.in_recovery {
            reduce_in_flight(core, cx.cc, now);
            core.signal_loss(LossSignal::FastRetransmit);
        }
        let was_in_recovery = self.in_recovery;
        self.rack_detect(cx);
        if leftover && !self.in_recovery {
            self.enter(cx);
        }
        let core = &mut *cx.core;
        if was_in_recovery && self.in_recovery {
            // PRR's step after RACK's marks (Linux: tcp_fastretrans_alert, then
            // tcp_cwnd_reduction); a recovery entered on this ACK took its first step.
            self.prr_step(core, ev.acked, ev.acked == 0);
        }
        if !self.in_recovery {
            self.note_sacked_now(core);
        }
        // Sec. 7.2: an ACK of new data restarts the loss-probe timer.
        if ev.acked > 0 {
            self.arm_pto(core, now);
        }
    }

    /// The RACK timer or the loss-probe timer may have expired.
    fn on_timer(&mut self, cx: &mut Ctx<'_>) {
        let now = cx.now;
        let Some(r) = self.rack.as_deref_mut() else { return };
        if r.reo_deadline.is_some_and(|d| d <= now) {
            self.rack_detect(cx);
            self.send(cx);
        }
        let (core, out) = (&mut *cx.core, &mut *cx.out);
        let Some(r) = self.rack.as_deref_mut() else { return };
        if r.pto_deadline.is_some_and(|d| d <= now) {
            r.pto_deadline = None;
            // Sec. 7.3: a probe if none is in flight and an RTT sample came since the last;
            // new data if the receiver's window allows, else the highest segment sent.
            if r.may_probe() {
                let before = out.len();
                if core.send_new_segment(now, u64::MAX, out) {
                    r.probe_sent(core.snd_max, false);
                } else if let Some(last) = core.sb.as_ref().and_then(|sb| sb.segments().back().copied()) {
                    core.send_segment(now, last.start, out);
                    r.probe_sent(core.snd_max, true);
                }
                if let Some(p) = &mut self.prr {
                    p.out += payload(&out[before..]);
                }
            }
            // "regardless of whether a loss probe was sent, the sender MUST re-arm the RTO
            // timer, not the PTO timer".
            core.rto_deadline = Some(core.rtt.deadline(now));
        }
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn send(&mut self, cx: &mut Ctx<'_>) {
        let (core, now, out) = (&mut *cx.core, cx.now, &mut *cx.out);
        if !self.in_recovery && self.rack.as_ref().is_some_and(|r| r.rto_recovery_point.is_some()) {
            // RFC 8985 Sec. 6.3's RTO recovery: what RACK marked lost, then new data.
            self.send_rack_marked(core, now, out);
            return;
        }
        if !self.in_recovery {
            let (w, high) = (core.win.cwnd, core.snd_max);
            core.send_allowed(now, w, out);
            // RFC 8985 Sec. 7.2: new data sent restarts the loss-probe timer.
            if self.rack.is_some() && core.snd_max > high {
                self.arm_pto(core, now);
            }
            return;
        }
        let before = out.len();
        self.send_in_recovery(core, now, out);
        if let Some(p) = &mut self.prr {
            p.out += payload(&out[before..]);
        }
    }
}
