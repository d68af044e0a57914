//! `profile = "linux"`: Linux 6.6's defaults field by field, overrides, and the errors of the
//! new options (docs/tcp-family.md).

use crate::common;
use common::*;
use tcplab_sim::scenario::{
    AckKind, Algorithm, CcOptions, FlowSpec, HyStart, TcpSpec, Variant, WindowGrowth,
};
use tcplab_sim::tcp::recovery::SackRecovery;

/// growth, abc_limit and hystart as a flow's `cc` table gives them (AIMD's or CUBIC's).
fn slow_start(f: &FlowSpec) -> (Option<WindowGrowth>, Option<u32>, Option<HyStart>) {
    match &f.cc.as_ref().unwrap().options {
        CcOptions::Aimd(o) => (o.growth, o.abc_limit, o.hystart),
        CcOptions::Cubic(o) => (o.growth, o.abc_limit, o.hystart),
        o => panic!("no slow-start options: {o:?}"),
    }
}
use tcplab_sim::time::SimTime;

fn flow(extra: &str, sets: &[(&str, &str)]) -> FlowSpec {
    let text = one_hop(&format!("profile = \"linux\"\n{extra}"), &[], "1s");
    let sets: Vec<(String, String)> = sets.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    tcplab_sim::load(&text, &sets).unwrap().flows[0].clone()
}

fn error(flow: &str) -> String {
    tcplab_sim::load(&one_hop(flow, &[], "1s"), &[])
        .unwrap_err()
        .to_string()
}

#[test]
fn every_linux_default() {
    // one_hop writes mss = 1000 itself: the profile leaves a given field alone.
    let f = flow("", &[]);
    assert_eq!(f.mss, 1000);
    assert_eq!(f.tcp.variant, Variant::Sack);
    let sack = f.tcp.options_of::<SackRecovery>().unwrap();
    assert_eq!((sack.prr, sack.rack), (Some(true), Some(true)));
    let cc = f.cc.as_ref().unwrap();
    assert_eq!(cc.algorithm, Some(Algorithm::Cubic));
    let (growth, abc_limit, hystart) = slow_start(&f);
    assert_eq!((growth, abc_limit), (Some(WindowGrowth::Abc), Some(65535)));
    assert_eq!(hystart, Some(HyStart::Linux));
    assert_eq!(f.initial_window, 10);
    assert!(f.timestamps);
    assert_eq!(f.header(), 52);
    assert_eq!(f.initial_rto.0, SimTime::from_secs(1));
    assert_eq!(
        (f.min_rto.0, f.rto_granularity.0),
        (SimTime::from_ms(200), SimTime::from_ms(200))
    );
    assert_eq!(f.max_rto.0, SimTime::from_secs(120));
    assert_eq!(f.ack, AckKind::Linux);
    assert_eq!(
        (f.sack, f.dsack, f.limited_transmit, f.idle_restart),
        (Some(true), true, true, true)
    );
    assert_eq!(f.dupthresh, 3);
    assert!(f.frto);
    // Without one_hop's mss line the profile's 1448 applies.
    let text = one_hop("profile = \"linux\"", &[], "1s").replace("mss = 1000\n", "");
    assert_eq!(tcplab_sim::load(&text, &[]).unwrap().flows[0].mss, 1448);
}

#[test]
fn each_field_overrides_only_itself() {
    let f = flow("cc = \"aimd\"\ntcp = \"newreno\"\nack = \"delayed\"", &[]);
    assert_eq!(f.cc.as_ref().unwrap().algorithm, Some(Algorithm::Aimd));
    assert_eq!(slow_start(&f).0, Some(WindowGrowth::Abc));
    assert_eq!(slow_start(&f).2, None);
    let off = flow("cc = { hystart = \"off\" }", &[]);
    assert_eq!(slow_start(&off).2, Some(HyStart::Off));
    // NewReno, without the profile's prr and rack (or any option).
    assert_eq!(f.tcp, TcpSpec::new(Variant::Newreno));
    assert_eq!(f.ack, AckKind::Delayed);
    assert_eq!(f.initial_window, 10);
    let f = flow("", &[("flows.0.tcp.rack", "false"), ("flows.0.min_rto", "1s")]);
    let sack = f.tcp.options_of::<SackRecovery>().unwrap();
    assert_eq!((sack.prr, sack.rack), (Some(true), Some(false)));
    assert_eq!(f.min_rto.0, SimTime::from_secs(1));
    let f = flow("cc = { growth = \"per_ack\" }", &[]);
    assert_eq!(
        (slow_start(&f).0, slow_start(&f).1),
        (Some(WindowGrowth::PerAck), None)
    );
}

#[test]
fn bad_input_is_one_line_naming_the_field() {
    let cases = [
        ("ack = \"linuxx\"", "flows[0].ack: unknown variant `linuxx`, expected one of `immediate`, `delayed`, `bsd43`, `every`, `linux` (did you mean `linux`?)"),
        ("profile = \"bsd\"", "flows[0].profile: unknown variant `bsd`, expected `ns2` or `linux`"),
        ("tcp = { variant = \"reno\", rack = true }", "flows[0].tcp.rack: not an option of reno (options of reno: guard)"),
        ("tcp = { variant = \"fack\", rack = true }", "flows[0].tcp.rack: not an option of fack (fack has no options)"),
        ("tcp = { variant = \"sack\", rack = \"yes\" }", "flows[0].tcp.rack: invalid type: string \"yes\", expected a boolean"),
        ("tcp = \"reno\"\ndsack = true", "flows[0].dsack: true, but the receiver sends no SACK blocks (expected sack = true, or dsack = false)"),
        ("profile = \"linux\"\nsack = false", "flows[0].dsack: true, but the receiver sends no SACK blocks (expected sack = true, or dsack = false)"),
        ("profile = \"linux\"\nsack = false\ndsack = false", "flows[0].tcp.rack: RACK-TLP needs a SACK receiver (RFC 8985 Sec. 4), but sack = false"),
        ("profile = \"ns2\"\ntcp = \"sack\"\nack = \"immediate\"\ndsack = true", "flows[0].dsack: the ns2 profile's sinks send no D-SACK blocks (leave dsack out)"),
    ];
    for (flow, want) in cases {
        let got = error(flow);
        assert_eq!(got, want, "{flow}");
        assert!(!got.contains('\n'));
    }
}

/// The profile runs end to end on a lossy path, deterministically, and its RACK-TLP and
/// quick ACKs are in use: fewer timeouts than the same Linux-like sender without RACK-TLP.
#[test]
fn a_linux_flow_runs_on_a_lossy_path() {
    let text = |tcp: &str| {
        format!(
            r#"
duration = "30s"
seed = 3
[network.path]
hops = [{{ rate = "10Mbit/s", delay = "20ms", queue = {{ limit = 1000 }}, loss = {{ model = "bernoulli", p = 0.03 }} }}]
[[flows]]
profile = "linux"
tcp = {tcp}
"#
        )
    };
    let rack = run(&text("{ variant = \"sack\" }"));
    let json = |r: &tcplab_sim::RunResult| serde_json::to_string(r).unwrap();
    assert_eq!(
        json(&rack),
        json(&run(&text("{ variant = \"sack\" }"))),
        "deterministic"
    );
    let plain = run(&text("{ variant = \"sack\", rack = false }"));
    let (a, b) = (&rack.flows[0], &plain.flows[0]);
    assert!(
        a.timeouts < b.timeouts,
        "rack {} vs dupthresh {} timeouts",
        a.timeouts,
        b.timeouts
    );
}
