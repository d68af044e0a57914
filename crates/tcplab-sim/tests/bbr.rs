//! BBR v1 (tcp/cc/bbr.rs) and pacing: known answers on a clean single-flow path.

use tcplab_sim::sim::Simulation;
use tcplab_sim::tcp::cc::bbr::{Bbr, Mode};
use tcplab_sim::tcp::cc::CongestionControl;
use tcplab_sim::time::SimTime;

/// One BBR flow (Linux's defaults) through a 100 Mbit/s access hop onto a `rate` bottleneck
/// with `delay` one way and a `limit`-packet drop-tail buffer.
fn path(rate: &str, delay: &str, limit: u32, duration: &str, extra: &str) -> String {
    format!(
        r#"
duration = "{duration}"
seed = 1
[network.path]
hops = [
  {{ rate = "100Mbit/s", delay = "0ms", queue = {{ limit = 10000 }} }},
  {{ rate = "{rate}", delay = "{delay}", queue = {{ limit = {limit} }} }},
]
[[flows]]
profile = "linux"
cc = "bbr"
{extra}
"#
    )
}

fn sim(text: &str) -> Simulation {
    let sc = tcplab_sim::load(text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    Simulation::new(&sc)
}

fn bbr(s: &Simulation) -> &Bbr {
    match &s.sender(0).expect("native sender").cc {
        CongestionControl::Bbr(b) => b,
        other => panic!("not BBR: {other:?}"),
    }
}

#[test]
fn explore() {
    let mut s = sim(&path("10Mbit/s", "20ms", 1000, "30s", ""));
    let mut last = None;
    for ms in (0..30_000).step_by(10) {
        s.run_until(SimTime::from_ms(ms));
        let b = bbr(&s);
        let snd = s.sender(0).unwrap();
        let key = (b.mode(), b.cycle_index());
        if last != Some(key) || ms % 1000 == 0 {
            println!(
                "{ms} ms mode {:?} idx {} round {} bw {} minrtt {:?} cwnd {} pg {} rate {:?}",
                b.mode(),
                b.cycle_index(),
                b.round(),
                b.btl_bw(),
                b.min_rtt(),
                snd.core.win.cwnd,
                b.pacing_gain(),
                snd.pacing_rate_bps()
            );
            last = Some(key);
        }
    }
    println!("{:?}", bbr(&s).transitions());
    let r = s.run();
    println!("{:?}", r.flows[0]);
    println!("{:?}", r.links);
}
