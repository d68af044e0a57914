//! The first flow's sender state, event by event, as CSV on stdout: for comparing a run with
//! another simulator's trace (bench/ns3_compare.py --explain). A row each time cwnd, ssthresh,
//! the congestion state, the RTO, srtt, the pacing rate or (BBR) the mode or BtlBw changes.
//!
//! `cargo run --release -p tcplab-sim --example sender_state -- SCENARIO.toml`
//!
//! Columns: t_s, cwnd (bytes), ssthresh (bytes, -1 while "infinite"), state (open, recovery,
//! loss: after a timeout until `recover` is acknowledged, Linux's TCP_CA_Loss), rto_s (the
//! timer's value, backoff included), pacing_bps (0 without pacing), in_flight (bytes), timeouts
//! (so far), srtt_s, and for BBR: mode, pacing_gain and cwnd_gain (in 1/256), btl_bw (payload bytes/s),
//! min_rtt_s.

use std::io::Write;

use tcplab_sim::sim::Simulation;
use tcplab_sim::tcp::cc::CongestionControl;

mod common;

fn main() {
    let sc = common::scenario_from_args("sender_state");
    let mut s = Simulation::new(&sc);
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    writeln!(
        out,
        "t_s,cwnd,ssthresh,state,rto_s,pacing_bps,in_flight,timeouts,srtt_s,mode,pacing_gain,cwnd_gain,btl_bw,min_rtt_s"
    )
    .unwrap();
    let mut last = String::new();
    let (mut timeouts, mut loss_until) = (0u64, None::<u64>);
    while let Some(t) = s.next_event() {
        s.run_until(t);
        let Some(snd) = s.sender(0) else {
            eprintln!("flow 0 is not a native sender");
            std::process::exit(2);
        };
        let c = &snd.core;
        let n = c.inst.counters.timeouts;
        if n > timeouts {
            timeouts = n;
            loss_until = Some(c.recover);
        }
        if loss_until.is_some_and(|r| c.snd_una >= r) {
            loss_until = None;
        }
        let state = if snd.recovery.in_recovery() {
            "recovery"
        } else if loss_until.is_some() {
            "loss"
        } else {
            "open"
        };
        let ssthresh = if c.win.ssthresh >= u64::MAX / 8 {
            -1
        } else {
            c.win.ssthresh as i128
        };
        let bbr = match &snd.cc {
            CongestionControl::Bbr(b) => format!(
                "{:?},{},{},{},{}",
                b.mode(),
                b.pacing_gain(),
                b.cwnd_gain(),
                b.btl_bw(),
                b.min_rtt().map_or(0.0, |r| r.ns() as f64 * 1e-9)
            ),
            _ => ",,,,".to_string(),
        };
        let key = format!(
            "{},{},{},{:.6},{},{},{:?},{}",
            c.win.cwnd,
            ssthresh,
            state,
            c.rtt.rto().ns() as f64 * 1e-9,
            snd.pacing_rate_bps().unwrap_or(0),
            timeouts,
            c.rtt.srtt(),
            bbr
        );
        if key != last {
            writeln!(
                out,
                "{:.9},{},{},{},{:.6},{},{},{},{:.6},{}",
                t.ns() as f64 * 1e-9,
                c.win.cwnd,
                ssthresh,
                state,
                c.rtt.rto().ns() as f64 * 1e-9,
                snd.pacing_rate_bps().unwrap_or(0),
                c.in_flight(),
                timeouts,
                c.rtt.srtt().map_or(0.0, |r| r.ns() as f64 * 1e-9),
                bbr
            )
            .unwrap();
            last = key;
        }
    }
}
