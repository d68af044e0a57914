//! TCP endpoints: one shared sender (`sender.rs`) over its state (`state.rs`), the variants'
//! loss recovery (`recovery/`, one file each), the congestion control (`cc/`, one file each),
//! the receiver and its ACK policy, the retransmit-timer estimator, the segment type, Mathis'
//! instruments, and the endpoint interface every implementation (these and `ns2/`) offers.
//!
//! Module graph (a DAG): sender -> recovery -> state -> cc; sender -> {state, cc};
//! recovery -> cc. The congestion control depends on nothing else in `tcp`.

pub mod accecn;
pub mod cc;
pub mod cwr;
pub mod ecn;
pub mod endpoint;
mod frto;
pub mod handshake;
pub mod instruments;
pub mod linux_ack;
pub mod ns2;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod rto;
pub mod sack;
pub mod segment;
pub mod sender;
pub mod state;

use crate::net::packet::NodeId;
use crate::scenario::{AckCounting, AckKind, EcnSetting, Estimator, FlowSpec};
use crate::time::SimTime;
use cc::CongestionControl;
use endpoint::{AnyReceiver, AnySender, TcpSender};
use receiver::{AckPolicy, Receiver};
use recovery::LossRecovery;
use rto::{Jacobson88, Rfc793, RtoEstimator, RttEstimator, TickClock, VarianceGain};
use sender::Sender;
use state::SenderConfig;

/// BSD's slow timer: the default tick of the coarse-clock estimators.
pub const BSD_SLOW_TICK: SimTime = SimTime::from_ms(500);
/// BSD's fast timer, which sends delayed ACKs.
pub const BSD_FAST_TICK: SimTime = SimTime::from_ms(200);
/// 4.3BSD sends a window update once 35% of the window has been consumed (Jacobson Fig 9).
pub const BSD_ACK_FRACTION: f64 = 0.35;

/// The retransmit-timer estimator a flow's spec describes.
pub fn estimator_for(f: &FlowSpec) -> RtoEstimator {
    let (initial, min, max) = (f.initial_rto.0, f.min_rto.0, f.max_rto.0);
    let clock = |tick: SimTime| TickClock {
        tick_ns: tick.ns(),
        phase_ns: f.clock_phase.0.ns() % tick.ns().max(1),
    };
    let tick = f.clock_tick.map_or(BSD_SLOW_TICK, |t| t.0);
    match f.estimator() {
        Estimator::Rfc6298 => {
            RtoEstimator::Rfc6298(RttEstimator::new(initial, min, max, f.rto_granularity.0))
        }
        Estimator::Jacobson88 => RtoEstimator::Jacobson88(Jacobson88::new(
            clock(tick),
            VarianceGain::Four,
            initial,
            min,
            max,
            f.backoff,
        )),
        Estimator::Sigcomm88 => RtoEstimator::Jacobson88(Jacobson88::new(
            clock(tick),
            VarianceGain::Two,
            initial,
            min,
            max,
            f.backoff,
        )),
        Estimator::Rfc793 => {
            let c = (tick > SimTime::ZERO).then(|| clock(tick));
            RtoEstimator::Rfc793(Rfc793::new(c, initial, min, max, f.backoff))
        }
    }
}

/// The sender a flow's spec describes: the shared machinery configured, plus its variant.
pub fn sender_for(f: &FlowSpec, flow: u32, node: NodeId, peer: NodeId) -> Sender {
    let cfg = SenderConfig {
        mss: f.mss,
        header_bytes: f.header(),
        rwnd: f.rwnd.0,
        total_bytes: f.bytes.map(|b| b.0),
        timestamps: f.timestamps,
        dupthresh: f.dupthresh,
        limited_transmit: f.limited_transmit,
        idle_restart: f.idle_restart,
        frto: f.frto,
        rto_restart_on_retransmit: f.rto_restart_on_retransmit,
        sack: f.tcp.variant.uses_sack(),
    };
    let recovery = LossRecovery::build(f.tcp.options());
    let reads_delivered = recovery.reads_delivered();
    let mut s = Sender::new(flow, node, peer, cfg, recovery, cc_for(f), estimator_for(f));
    // ECN (ecn.rs, accecn.rs); a controller that needs it marks retransmissions ECT too
    // (Linux's tcp_ecn_send with tcp_ca_needs_ecn). With the handshake the SYN-ACK decides.
    let (needs, l4s) = (f.algorithm().needs_ecn(), f.algorithm().l4s());
    if f.handshake {
        s = s.with_handshake(f.ecn_asked(), needs, l4s);
    } else {
        s.core.ecn = match f.ecn_mode() {
            EcnSetting::Off => ecn::SenderEcn::default(),
            EcnSetting::Classic => ecn::SenderEcn::classic(needs, l4s),
            EcnSetting::Accecn => ecn::SenderEcn::accecn(needs, l4s, f.mss),
        };
    }
    // How an ECE response reaches ssthresh (cwr.rs); kept through the SYN-ACK.
    s.core.ecn.prr_cwr = f.cwr_reduction == Some(crate::scenario::CwrReduction::Prr);
    if let Some(sb) = &mut s.core.sb {
        // The recovery may read the segments each ACK delivers (RACK: RFC 8985 Sec. 6.2
        // steps 2-3); so does the SACK-enhanced F-RTO (RFC 5682 Sec. 3 step 3b: was
        // never-retransmitted data acknowledged?).
        sb.log_delivered = reads_delivered || f.frto;
        sb.count_delivered = f.ack_counting == AckCounting::Delivered;
    }
    s
}

/// The congestion control a flow's spec describes (`cc`, or the variant's default).
pub fn cc_for(f: &FlowSpec) -> CongestionControl {
    let mss = f.mss as u64;
    let setup = cc::Setup {
        mss,
        initial_window: f.initial_window as u64 * mss,
        initial_ssthresh: f.initial_ssthresh.map_or(u64::MAX / 4, |s| s.0),
        rwnd: f.rwnd.0,
    };
    CongestionControl::build(f.algorithm(), f.cc.as_ref(), &setup)
}

/// The receiver a flow's spec describes.
pub fn receiver_for(f: &FlowSpec) -> Receiver {
    let timeout = f.delack_timeout.0;
    let policy = match f.ack {
        AckKind::Immediate => AckPolicy::Immediate,
        AckKind::Delayed => AckPolicy::Delayed { timeout },
        AckKind::Every => AckPolicy::Every {
            k: f.ack_every.unwrap_or(2),
            timeout,
        },
        AckKind::Bsd43 => AckPolicy::Bsd43 {
            threshold: ((f.rwnd.0 as f64 * BSD_ACK_FRACTION).ceil() as u64).max(1),
            tick: BSD_FAST_TICK,
        },
        AckKind::Linux => AckPolicy::Linux(linux_ack::LinuxAck::new(f.mss as u64, f.rwnd.0, f.min_rto.0)),
    };
    let mut r = Receiver::new(f.header(), policy);
    let (needs, l4s) = (f.algorithm().needs_ecn(), f.algorithm().l4s());
    // DCTCP's receiver echoes the CE state (RFC 8257 Sec. 3.2); Prague's, over classic
    // feedback, is RFC 3168's (tcp_prague.c has no receiver-side CE state machine).
    let dctcp = needs && !l4s;
    if f.handshake {
        r = r.with_handshake(handshake::Listener {
            supports: f.ecn_accepted(),
            dctcp,
            l4s,
            timestamps: f.timestamps,
            agreed: None,
        });
    } else {
        match f.ecn_mode() {
            EcnSetting::Off => {}
            // The receiver's echo is its congestion control's: DCTCP's exact one, or RFC 3168's.
            EcnSetting::Classic => {
                r = r.with_ecn(if dctcp {
                    ecn::EcnFeedback::Dctcp
                } else {
                    ecn::EcnFeedback::Classic
                })
            }
            EcnSetting::Accecn => {
                r.ecn = ecn::ReceiverEcn::accecn(r.linux_acks(), l4s, f.timestamps);
            }
        }
    }
    if f.sack_receiver() {
        // RFC 2018: 4 blocks fit the 40-byte option space, 3 beside the timestamp option.
        let r = r.with_sack(if f.timestamps { 3 } else { 4 });
        if f.dsack {
            r.with_dsack()
        } else {
            r
        }
    } else {
        r
    }
}

/// The two endpoints a flow's spec describes: the RFC sender and receiver, or ns-2's agent
/// and sink with `profile = "ns2"`. `trace_limit` turns the window trace on.
pub fn endpoints_for(
    f: &FlowSpec,
    flow: u32,
    src: NodeId,
    dst: NodeId,
    trace_limit: Option<usize>,
) -> (AnySender, AnyReceiver) {
    let (mut s, r) = match ns2_endpoints_for(f) {
        Some((s, r)) => (AnySender::Ns2(Box::new(s)), AnyReceiver::Ns2(Box::new(r))),
        None => (
            AnySender::Native(sender_for(f, flow, src, dst)),
            AnyReceiver::Native(receiver_for(f)),
        ),
    };
    if let Some(limit) = trace_limit {
        s.instruments_mut().enable_trace(limit);
        if let AnySender::Ns2(n) = &mut s {
            n.vars = Some(Vec::new());
            n.trace_limit = limit;
        }
    }
    (s, r)
}

/// The ns-2 agent and sink of a flow with `profile = "ns2"` (None for native flows).
fn ns2_endpoints_for(f: &FlowSpec) -> Option<(ns2::Ns2Sender, ns2::Ns2Sink)> {
    use crate::scenario::Profile;
    if f.profile != Some(Profile::Ns2) {
        return None;
    }
    let variant = f
        .tcp
        .variant
        .ns2_agent()
        .unwrap_or_else(|| panic!("scenario not validated: no ns2 model of {}", f.tcp.variant.name()));
    let tick = f.clock_tick.map_or(SimTime::from_ms(10), |t| t.0).ns().max(1);
    let cfg = ns2::agent::Ns2Config {
        variant,
        packet_size: f.mss,
        header: f.header(),
        window: (f.rwnd.0 / f.mss as u64).min(u32::MAX as u64) as u32,
        window_init: f.initial_window,
        singledup: f.limited_transmit,
        partial_ack: f.partial_ack.unwrap_or(false),
        tick_ns: tick,
        boot_ns: f.clock_phase.0.ns() % tick,
        rto_init: f.initial_rto.0,
        min_rto: f.min_rto.0,
        max_rto: f.max_rto.0,
        ecn: f.ecn_mode() == EcnSetting::Classic,
    };
    let mut sink = ns2::Ns2Sink::new(f.sack_receiver(), f.mss);
    sink.ecn = cfg.ecn;
    Some((ns2::Ns2Sender::new(cfg), sink))
}
