//! Every retransmission timeout of every flow, as CSV on stdout, with the sender's state just
//! before it fired: for tracing why one simulator times out more than another
//! (bench/ns3_codel_cbr.py `--rto-events` writes the same from ns-3 and this one's input).
//!
//! `cargo run --release -p tcplab-sim --example rto_events -- SCENARIO.toml`
//!
//! Columns: t_s, flow, state before the timeout (open, recovery, loss: a timeout not yet
//! repaired), snd_una and snd_max (segments, from 0), the head segment's transmissions in the
//! current recovery (head_rtx: 1 if retransmitted since the recovery or timeout began),
//! sacked (segments SACKed above snd_una), cwnd (segments), rto_s (the timer's value before the
//! backoff), since_ack_s (time since snd_una last advanced), since_head_tx_s (time since the
//! head segment was last sent); then, tcplab's only: recover_minus_una (bytes; 0: the
//! cumulative ACK stands at `recover`, the last recovery point, exactly) and dupacks.

use std::io::Write;

use tcplab_sim::sim::Simulation;

mod common;

#[derive(Clone, Copy, Default)]
struct Snap {
    recovery: bool,
    snd_una: u64,
    snd_max: u64,
    head_rtx: bool,
    head_tx_ns: u64,
    sacked: usize,
    cwnd: u64,
    rto_ns: u64,
    timeouts: u64,
    recover: u64,
    dupacks: u32,
}

fn main() {
    let sc = common::scenario_from_args("rto_events");
    let mut s = Simulation::new(&sc);
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    writeln!(
        out,
        "t_s,flow,state,snd_una,snd_max,head_rtx,sacked,cwnd,rto_s,since_ack_s,since_head_tx_s,recover_minus_una,dupacks"
    )
    .unwrap();
    let n = (0..).take_while(|&i| s.sender(i).is_some()).count();
    let mut prev = vec![Snap::default(); n];
    let mut una_at = vec![0u64; n];
    let mut loss_until: Vec<Option<u64>> = vec![None; n];
    while let Some(t) = s.next_event() {
        s.run_until(t);
        for i in 0..n {
            let Some(snd) = s.sender(i) else { continue };
            let c = &snd.core;
            let mss = c.cfg.mss as u64;
            let p = prev[i];
            if c.inst.counters.timeouts > p.timeouts {
                let state = if p.recovery {
                    "recovery"
                } else if loss_until[i].is_some() {
                    "loss"
                } else {
                    "open"
                };
                writeln!(
                    out,
                    "{:.9},{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{},{}",
                    t.ns() as f64 * 1e-9,
                    i,
                    state,
                    p.snd_una / mss,
                    p.snd_max / mss,
                    p.head_rtx as u8,
                    p.sacked,
                    p.cwnd / mss,
                    p.rto_ns as f64 * 1e-9,
                    (t.ns() - una_at[i]) as f64 * 1e-9,
                    (t.ns() - p.head_tx_ns) as f64 * 1e-9,
                    p.recover as i64 - p.snd_una as i64,
                    p.dupacks,
                )
                .unwrap();
                loss_until[i] = Some(c.recover);
            }
            if loss_until[i].is_some_and(|r| c.snd_una >= r) {
                loss_until[i] = None;
            }
            if c.snd_una != p.snd_una {
                una_at[i] = t.ns();
            }
            let head = c.sb.as_ref().and_then(|sb| sb.segments().front().copied());
            prev[i] = Snap {
                recovery: snd.recovery.in_recovery(),
                snd_una: c.snd_una,
                snd_max: c.snd_max,
                head_rtx: head.is_some_and(|h| h.rtx),
                head_tx_ns: head.map_or(0, |h| h.xmit_ts.ns()),
                sacked: c
                    .sb
                    .as_ref()
                    .map_or(0, |sb| sb.segments().iter().filter(|g| g.sacked).count()),
                cwnd: c.win.cwnd,
                rto_ns: c.rtt.rto().ns(),
                timeouts: c.inst.counters.timeouts,
                recover: c.recover,
                dupacks: c.dupacks,
            };
        }
    }
}
