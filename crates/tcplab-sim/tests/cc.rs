//! Known answers for the congestion-control seam: Jacobson & Karels' (1988, Sec. 3 and App. D)
//! decrease factor d and increase u as options of AIMD, every loss recovery taking its ssthresh
//! from the congestion control, the 4.3BSD window as the controller `none`, and the checks on
//! every new option. One hop, 100 ms RTT, MSS 1000, scripted drops (tests/common.rs). With
//! d = 1/2 and u = 1 the values are those of known_answers.rs and family.rs, unchanged.

use crate::common;
use common::*;
use tcplab_sim::RunResult;

/// The ssthresh of a window record once a loss (or the initial value given) has set it.
fn ss(w: &Window) -> u64 {
    w.ssthresh.expect("ssthresh set")
}

/// IW = ssthresh = 10 segments (congestion avoidance from the start), ACK every segment,
/// the 15th segment (seq 14000) lost, as known_answers.rs's CA10.
fn ca10(tcp: &str, cc: &str) -> RunResult {
    let flow = format!(
        "tcp = \"{tcp}\"\ncc = {cc}\nack = \"immediate\"\ninitial_window = 10\ninitial_ssthresh = 10000"
    );
    run(&one_hop(&flow, &[15], "3s"))
}

/// The window at the fast retransmit, the cwnd just before it, and FlightSize then (snd_max
/// before the third duplicate ACK: an inflated window may send more at that instant).
fn at_fast_retransmit(r: &RunResult) -> (Window, u64, u64) {
    let t_fr = retransmissions(r)[0].t;
    let c = cwnd(r);
    let at = *c.iter().find(|x| x.t >= t_fr).unwrap();
    let before = c.iter().rfind(|x| x.t < t_fr).unwrap().cwnd;
    let flight = snd_max_before(r, t_fr, 1000) - 14000;
    (at, before, flight)
}

#[test]
fn d_multiplies_flight_size_at_a_fast_retransmit_floored_at_two_segments() {
    // RFC 5681 Eq. 4 with Jacobson's d: ssthresh = max(d x FlightSize, 2 SMSS), exactly.
    let r = ca10("reno", "{ d = 0.5 }");
    let (at, _, flight) = at_fast_retransmit(&r);
    assert_eq!(ss(&at), flight / 2); // the default, as known_answers.rs
    for (d, num, den) in [("0.7", 7, 10), ("0.875", 7, 8)] {
        let r = ca10("reno", &format!("{{ d = {d} }}"));
        let (at, _, flight) = at_fast_retransmit(&r);
        assert_eq!(ss(&at), flight * num / den, "d = {d}, FlightSize {flight}");
        assert_eq!(at.cwnd, ss(&at) + 3000, "Reno: cwnd = ssthresh + 3 SMSS");
    }
    let r = ca10("reno", "{ d = 0.1 }");
    let (at, _, flight) = at_fast_retransmit(&r);
    assert!(flight / 10 < 2000);
    assert_eq!(ss(&at), 2000, "floored at 2 SMSS");
}

#[test]
fn with_the_cwnd_rule_d_multiplies_the_window() {
    for (d, num, den) in [("0.5", 1, 2), ("0.7", 7, 10), ("0.875", 7, 8)] {
        let r = ca10("reno", &format!("{{ d = {d}, ssthresh_rule = \"cwnd\" }}"));
        let (at, cwnd_before, _) = at_fast_retransmit(&r);
        assert_eq!(ss(&at), cwnd_before * num / den, "d = {d}, cwnd {cwnd_before}");
    }
}

#[test]
fn u_2_grows_two_segments_per_round_trip_per_ack() {
    // IW = ssthresh = 4 segments, no loss: per ACK cwnd += u x SMSS x SMSS / cwnd.
    // u = 1: 4000 -> 4250 -> 4485 -> 4707 -> 4919 (known_answers.rs); u = 2, by hand:
    // 2e6/4000 = 500, 2e6/4500 = 444, 2e6/4944 = 404, 2e6/5348 = 373.
    let flow = |u: &str| {
        format!("ack = \"immediate\"\ninitial_window = 4\ninitial_ssthresh = 4000\ncc = {{ u = {u} }}")
    };
    let first = |u: &str| -> Vec<u64> {
        let r = run(&one_hop(&flow(u), &[], "2.05s"));
        cwnd(&r).iter().take(5).map(|x| x.cwnd).collect()
    };
    assert_eq!(first("1"), [4000, 4250, 4485, 4707, 4919]);
    assert_eq!(first("2"), [4000, 4500, 4944, 5348, 5721]);
    // Over 20 round trips u = 2 gains twice what u = 1 does (each a little under u SMSS per
    // round: the per-ACK form and integer rounding shave it).
    let gain = |u: &str| {
        let r = run(&one_hop(&flow(u), &[], "2.05s"));
        (cwnd(&r).last().unwrap().cwnd - 4000) as f64 / 20.0
    };
    let (g1, g2) = (gain("1"), gain("2"));
    assert!((900.0..1000.0).contains(&g1), "u = 1: {g1}");
    assert!((1800.0..2000.0).contains(&g2), "u = 2: {g2}");
}

#[test]
fn u_2_with_byte_counting_adds_exactly_two_segments_per_window_acknowledged() {
    // RFC 3465 Sec. 2.1 with u: + u x SMSS once per cwnd of acknowledged bytes. One round trip
    // acknowledges one window, so cwnd steps 4, 6, 8, 10, 12 segments, one step per RTT.
    let flow = |u: &str| {
        format!("ack = \"immediate\"\ninitial_window = 4\ninitial_ssthresh = 4000\ncc = {{ u = {u}, growth = \"abc\" }}")
    };
    let steps = |u: &str| -> Vec<(u64, u64)> {
        let r = run(&one_hop(&flow(u), &[], "0.55s"));
        cwnd(&r).iter().map(|x| ((x.t / 0.1) as u64, x.cwnd)).collect()
    };
    assert_eq!(
        steps("1"),
        [(0, 4000), (1, 5000), (2, 6000), (3, 7000), (4, 8000), (5, 9000)]
    );
    assert_eq!(
        steps("2"),
        [
            (0, 4000),
            (1, 6000),
            (2, 8000),
            (3, 10000),
            (4, 12000),
            (5, 14000)
        ]
    );
}

/// Fall & Floyd's one-drop case (family.rs): IW = ssthresh = 20 segments, segment 24 dropped.
fn ff1(tcp: &str, cc: &str) -> RunResult {
    let flow = format!(
        "tcp = \"{tcp}\"\ncc = {cc}\nack = \"immediate\"\ninitial_window = 20\ninitial_ssthresh = 20000"
    );
    run(&one_hop(&flow, &[25], "2s"))
}

/// ssthresh at the first reduction, and at 1 s (after the recovery).
fn ssthresh_first_and_after(r: &RunResult) -> (u64, u64) {
    let c = cwnd(r);
    let first = c.iter().find(|x| x.ssthresh.is_some_and(|s| s != 20000)).unwrap();
    (ss(first), ss(c.iter().rfind(|x| x.t <= 1.0).unwrap()))
}

#[test]
fn every_recovery_takes_its_ssthresh_from_the_congestion_control() {
    // The flight at the loss is 21 segments (family.rs: 10500 at d = 1/2). With d = 0.7 every
    // recovery reduces to 0.7 x 21000 = 14700, and keeps it once the hole is repaired.
    for tcp in ["tahoe", "reno", "newreno", "sack", "sackrh"] {
        assert_eq!(
            ssthresh_first_and_after(&ff1(tcp, "\"aimd\"")),
            (10500, 10500),
            "{tcp}"
        );
        let r = ff1(tcp, "{ d = 0.7 }");
        assert_eq!(ssthresh_first_and_after(&r), (14700, 14700), "{tcp}");
        let f = &r.flows[0];
        assert_eq!((f.fast_retransmits, f.timeouts, f.ca_events), (1, 0, 1), "{tcp}");
    }
    // Tahoe: cwnd = 1 segment whatever d; Reno and NewReno: ssthresh + 3 SMSS.
    let at = |r: &RunResult| *cwnd(r).iter().find(|x| x.ssthresh == Some(14700)).unwrap();
    assert_eq!(at(&ff1("tahoe", "{ d = 0.7 }")).cwnd, 1000);
    assert_eq!(at(&ff1("reno", "{ d = 0.7 }")).cwnd, 17700);
    assert_eq!(at(&ff1("newreno", "{ d = 0.7 }")).cwnd, 17700);
    // SACK (RFC 6675): cwnd = ssthresh at once; SackRH lowers it to ssthresh by halves.
    assert_eq!(at(&ff1("sack", "{ d = 0.7 }")).cwnd, 14700);
}

#[test]
fn facks_bound_is_the_controllers_decrease_of_the_window_before_the_loss() {
    // d = 1/2: Eq. 15, what was sent in the lossy round, (21 - 1) / 2 = 10 segments; the bound
    // (half the window before the loss) does not engage.
    let r = ff1("fack", "\"aimd\"");
    assert_eq!(ssthresh_first_and_after(&r).1, 10000);
    // The window before the loss: cwnd when rate halving began (the last value before it fell).
    let c = cwnd(&r);
    let i = c.iter().position(|x| x.t > 0.2 && x.cwnd < 20000).unwrap();
    let prior = c[i - 1].cwnd;
    assert_eq!(prior, 21156); // family.rs: the bound at d = 1/2 is 10578
                              // d = 0.3: the bound, floor(0.3 x 21156) = 6346, is below what rate halving sent.
    let r = ff1("fack", "{ d = 0.3 }");
    assert_eq!(ssthresh_first_and_after(&r).1, prior * 3 / 10);
    let after: Vec<u64> = cwnd(&r)
        .iter()
        .filter(|x| x.t > 0.3 && x.t < 0.4)
        .map(|x| x.cwnd)
        .collect();
    // Rate halving had come down to what it sent (10 segments); the round's end bounds it.
    assert!(after.windows(2).any(|w| w == [10000, 6346]), "{after:?}");
    // At the loss, ssthresh is the controller's answer for the window before it (cwnd rule:
    // floor(0.3 x 21156)); rate halving then sets cwnd and ssthresh itself.
    let r = ff1("fack", "{ d = 0.3, ssthresh_rule = \"cwnd\" }");
    assert_eq!(ssthresh_first_and_after(&r).0, 6346);
    // d > 1/2 cannot raise it: rate halving still sent half (docs/tcp-family.md).
    assert_eq!(ssthresh_first_and_after(&ff1("fack", "{ d = 0.7 }")).1, 10000);
}

#[test]
fn a_timeout_takes_d_and_holds_ssthresh_when_it_repeats() {
    // IW = ssthresh = 10 segments, all lost, and the first retransmission too: two timeouts.
    // The first sets ssthresh = d x FlightSize = 0.7 x 10000, cwnd = 1 segment; the second
    // (backed off) keeps it (RFC 5681 Sec. 3.1).
    let flow = "ack = \"immediate\"\ninitial_window = 10\ninitial_ssthresh = 10000\ncc = { d = 0.7 }";
    let drops: Vec<u64> = (1..=11).collect();
    let r = run(&one_hop(flow, &drops, "3.5s"));
    assert_eq!(r.flows[0].timeouts, 2);
    let c = cwnd(&r);
    let at = |t: f64| *c.iter().rfind(|x| x.t <= t).unwrap();
    assert_eq!((at(1.0).cwnd, at(1.0).ssthresh), (1000, Some(7000)));
    assert_eq!((at(3.0).cwnd, at(3.0).ssthresh), (1000, Some(7000)));
}

#[test]
fn bsd43_has_no_window_unless_given_jacobsons() {
    // cc = "none" (bsd43's default): the receiver's 8-segment window at once (family.rs).
    let bsd = |cc: &str| {
        let flow = format!(
            "tcp = \"bsd43\"\n{cc}\nack = \"immediate\"\nrwnd = 8000\ninitial_rto = \"1s\"\nclock_tick = \"0\""
        );
        run(&one_hop(&flow, &[3], "2.5s"))
    };
    let at0 = |r: &RunResult| data_sent(r).iter().filter(|s| s.t == 0.0).count();
    let none = bsd("");
    assert_eq!(at0(&none), 8);
    let w = cwnd(&none)[0];
    assert_eq!((w.t, w.cwnd, w.ssthresh), (0.0, 8000, Some(8000)));
    assert_eq!(at0(&bsd("cc = \"none\"")), 8);
    // cc = "aimd": Jacobson's 1988 TCP, slow start from one segment, and still no fast
    // retransmit: the loss of segment 3 is repaired by the timer, ssthresh = FlightSize / 2.
    let jk = bsd("cc = \"aimd\"");
    assert_eq!(at0(&jk), 1);
    let f = &jk.flows[0];
    assert_eq!((f.fast_retransmits, f.timeouts), (0, 1));
    let t = retransmissions(&jk)[0].t;
    let flight = snd_max_before(&jk, t, 1000) - 2000;
    let at_rto = *cwnd(&jk).iter().find(|x| x.t >= t).unwrap();
    assert_eq!((at_rto.cwnd, ss(&at_rto)), (1000, (flight / 2).max(2000)));
}

#[test]
fn no_congestion_control_under_a_loss_recovery_keeps_the_receivers_window() {
    // Reno's recovery with cc = "none": the whole window at once, and after the repair the
    // window is the receiver's again (no reduction).
    let flow = "tcp = \"reno\"\ncc = \"none\"\nack = \"immediate\"\nrwnd = 12000";
    let r = run(&one_hop(flow, &[5], "1s"));
    assert_eq!(data_sent(&r).iter().filter(|s| s.t == 0.0).count(), 12);
    assert_eq!(r.flows[0].fast_retransmits, 1);
    let last = *cwnd(&r).last().unwrap();
    assert_eq!((last.cwnd, last.ssthresh), (12000, Some(12000)));
}

#[test]
fn set_reaches_into_the_short_forms() {
    // `--set flows.0.cc.d=0.7` on a flow without cc, and a recovery option on `tcp = "newreno"`.
    let flow = "tcp = \"newreno\"\nack = \"immediate\"\ninitial_window = 20\ninitial_ssthresh = 20000";
    let text = one_hop(flow, &[25], "2s");
    let sets = [
        ("flows.0.cc.d", "0.7"),
        ("flows.0.tcp.partial_deflation", "false"),
    ];
    let sets: Vec<(String, String)> = sets.iter().map(|(p, v)| (p.to_string(), v.to_string())).collect();
    let r = tcplab_sim::run_toml(&text, &sets).unwrap();
    assert_eq!(ssthresh_first_and_after(&r), (14700, 14700));
}

/// The message of a scenario that must fail, for the flow options given.
fn error(flow: &str) -> String {
    let text = one_hop(flow, &[], "1s");
    match tcplab_sim::run_toml(&text, &[]) {
        Ok(_) => panic!("accepted: {flow}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn every_option_is_checked_against_its_algorithm_and_range() {
    let cases = [
        ("cc = { d = 1.5 }", "flows[0].cc.d: 1.5 is not a valid decrease factor (expected 0 < d < 1, to 6 decimal places)"),
        ("cc = { d = 0.0 }", "flows[0].cc.d: 0 is not a valid decrease factor (expected 0 < d < 1, to 6 decimal places)"),
        ("cc = { d = 0.0000001 }", "flows[0].cc.d: 0.0000001 is not a valid decrease factor (expected 0 < d < 1, to 6 decimal places)"),
        ("cc = { d = nan }", "flows[0].cc.d: NaN is not a valid decrease factor (expected 0 < d < 1, to 6 decimal places)"),
        ("cc = { u = 0 }", "flows[0].cc.u: 0 is not a valid increase (expected 0 < u <= 1000 segments per round trip, to 6 decimal places)"),
        ("cc = { u = inf }", "flows[0].cc.u: inf is not a valid increase (expected 0 < u <= 1000 segments per round trip, to 6 decimal places)"),
        ("cc = { u = \"two\" }", "flows[0].cc.u: invalid type: string \"two\", expected f64"),
        ("cc = { growth = \"fast\" }", "flows[0].cc.growth: unknown variant `fast`, expected `per_ack` or `abc`"),
        ("cc = { abc_limit = 2 }", "flows[0].cc.abc_limit: applies only with growth = \"abc\" (set flows[0].cc.growth)"),
        ("cc = { growth = \"abc\", abc_limit = 0 }", "flows[0].cc.abc_limit: 0 (expected at least 1 segment)"),
        ("cc = { ssthresh_rule = \"rwnd\" }", "flows[0].cc.ssthresh_rule: unknown variant `rwnd`, expected `flight_size` or `cwnd` (did you mean `cwnd`?)"),
        ("cc = \"vegas\"", "flows[0].cc: unknown variant `vegas`, expected one of `aimd`, `cubic`, `bbr`, `dctcp`, `prague`, `none`"),
        ("cc = { algorithm = \"bbr\", d = 0.7 }", "flows[0].cc.d: not an option of bbr (bbr has no options)"),
        ("cc = 7", "flows[0].cc: invalid type: integer `7`, expected a congestion control (\"aimd\") or a table { algorithm = \"aimd\", <its options> }"),
        ("cc = { algorithm = \"none\", u = 2 }", "flows[0].cc.u: not an option of none (none has no options)"),
        ("tcp = \"bsd43\"\ncc = { d = 0.7 }", "flows[0].cc.d: not an option of none (none has no options)"),
        ("cc = { guard = true }", "flows[0].cc.guard: not an option of aimd (options of aimd: d, u, growth, abc_limit, ssthresh_rule, hystart; guard belongs to the loss recovery: flows[0].tcp.guard)"),
        ("tcp = { variant = \"reno\", partial_deflation = false }", "flows[0].tcp.partial_deflation: not an option of reno (options of reno: guard)"),
        ("tcp = { variant = \"tahoe\", d = 0.7 }", "flows[0].tcp.d: not an option of tahoe (tahoe has no options; d belongs to the congestion control: flows[0].cc.d)"),
        ("tcp = { variant = \"fack\", window = 3 }", "flows[0].tcp.window: not an option of fack (fack has no options)"),
        ("tcp = { partial_ack_timer = \"impatient\" }", "flows[0].tcp.partial_ack_timer: not an option of reno (options of reno: guard)"),
        ("tcp = { variant = \"newreno\", partial_ack_timer = \"eager\" }", "flows[0].tcp.partial_ack_timer: unknown variant `eager`, expected `impatient` or `slow_but_steady`"),
        ("tcp = { variant = \"reno\", guard = 1 }", "flows[0].tcp.guard: invalid type: integer `1`, expected a boolean"),
        ("window_growth = \"abc\"", "flows[0].window_growth: no longer a flow option: it is written flows[0].cc.growth (docs/tcp-family.md)"),
        ("partial_deflation = false", "flows[0].partial_deflation: no longer a flow option: it is written flows[0].tcp.partial_deflation, with tcp.variant = \"newreno\" (docs/tcp-family.md)"),
        ("profile = \"ns2\"\nack = \"immediate\"\ncc = \"aimd\"", "flows[0].cc: the ns2 profile's agents have ns-2's own window rules (leave cc out)"),
    ];
    for (flow, want) in cases {
        assert_eq!(error(flow), want, "{flow}");
    }
}

#[test]
fn the_schema_describes_each_algorithms_options() {
    let schema = tcplab_sim::scenario::json_schema();
    let v: serde_json::Value = serde_json::from_str(&schema).unwrap();
    let defs = &v["definitions"];
    let tcp = defs["TcpSpec"]["anyOf"].as_array().unwrap();
    let cc = defs["CcSpec"]["anyOf"].as_array().unwrap();
    assert_eq!((tcp.len(), cc.len()), (5, 7)); // a name, or one table shape per algorithm
    let props = |shape: &serde_json::Value| -> Vec<String> {
        let shape = shape
            .get("$ref")
            .and_then(|r| r.as_str())
            .map_or(shape, |r| &defs[r.trim_start_matches("#/definitions/")]);
        let mut p: Vec<String> = shape["properties"]
            .as_object()
            .map_or(vec![], |o| o.keys().cloned().collect());
        p.sort();
        p
    };
    let tables: Vec<Vec<String>> = tcp.iter().chain(cc).map(props).collect();
    assert!(tables.contains(&vec!["guard".into(), "variant".into()]));
    assert!(tables.contains(&vec![
        "partial_ack_timer".into(),
        "partial_deflation".into(),
        "rto_in_recovery".into(),
        "variant".into()
    ]));
    let aimd: Vec<String> = [
        "abc_limit",
        "algorithm",
        "d",
        "growth",
        "hystart",
        "ssthresh_rule",
        "u",
    ]
    .map(String::from)
    .into();
    assert!(tables.contains(&aimd), "{tables:?}");
    let dctcp: Vec<String> = ["abc_limit", "algorithm", "alpha", "g", "growth"]
        .map(String::from)
        .into();
    assert!(tables.contains(&dctcp), "{tables:?}");
    let cubic: Vec<String> = [
        "abc_limit",
        "algorithm",
        "beta",
        "c",
        "fast_convergence",
        "growth",
        "hystart",
        "hz",
        "increase",
        "style",
    ]
    .map(String::from)
    .into();
    assert!(tables.contains(&cubic), "{tables:?}");
}

#[test]
fn the_architecture_docs_show_the_real_controller_code() {
    // docs/architecture.md, "How to add a congestion control", quotes fixed.rs (the test
    // build's controller) and the list in cc/mod.rs: every ```rust block of that section must
    // be in the source.
    let docs = include_str!("../../../docs/architecture.md");
    let sources = [
        include_str!("../src/tcp/cc/fixed.rs"),
        include_str!("../src/tcp/cc/mod.rs"),
    ];
    let section = docs
        .split("## How to add a congestion control")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the section exists");
    let blocks: Vec<&str> = section
        .split("```rust\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    assert_eq!(blocks.len(), 2);
    for b in blocks {
        assert!(sources.iter().any(|s| s.contains(b)), "not in the source:\n{b}");
    }
}

/// CUBIC (RFC 9438) in the simulator: one loss at a window of about 100 segments in congestion
/// avoidance, SACK recovery, 100 ms RTT. Returns the run's window records, the time of the
/// fast retransmit, W_max (the cwnd just before it) and the record at it.
fn cubic_after_one_loss(options: &str) -> (Vec<Window>, f64, u64, Window) {
    let flow = format!(
        "tcp = \"sack\"\ncc = {{ algorithm = \"cubic\"{options} }}\nack = \"immediate\"\ninitial_window = 100\ninitial_ssthresh = 100000\nrwnd = \"10MB\""
    );
    let r = run(&one_hop(&flow, &[400], "12s"));
    let t_fr = retransmissions(&r)[0].t;
    let c = cwnd(&r);
    let w_max = c.iter().rfind(|x| x.t < t_fr).unwrap().cwnd;
    let at = *c.iter().find(|x| x.t >= t_fr).unwrap();
    (c, t_fr, w_max, at)
}

#[test]
fn cubic_reduces_to_beta_cwnd_and_regains_w_max_after_k_seconds() {
    let (c, t_fr, w_max, at) = cubic_after_one_loss("");
    // Sec. 4.6: ssthresh = beta x cwnd with beta = 0.7, exactly (integer millionths).
    assert_eq!(ss(&at), w_max * 7 / 10, "W_max {w_max}");
    // Sec. 4.2: back at W_max K = cbrt(W_max (1 - beta) / C) seconds after the avoidance stage
    // begins: when the SACK recovery ends, one RTT after the loss, with cwnd at ssthresh (within
    // a segment: RFC 6675 sets it from pipe).
    let segments = w_max as f64 / 1000.0;
    let k = (segments * 0.3 / 0.4).cbrt();
    let end_of_recovery = c
        .iter()
        .find(|x| x.t > t_fr + 0.05 && x.cwnd.abs_diff(ss(&at)) <= 1000)
        .unwrap()
        .t;
    let back = c
        .iter()
        .find(|x| x.t > end_of_recovery && x.cwnd >= w_max)
        .unwrap()
        .t;
    let took = back - end_of_recovery;
    assert!(
        (took - k).abs() < 0.25,
        "back at W_max after {took:.3} s, K = {k:.3} s"
    );
    // No loss after it: the window keeps growing, convex, past W_max.
    let last = c.last().unwrap();
    assert!(last.cwnd > w_max + 20_000, "{} vs W_max {w_max}", last.cwnd);
}

#[test]
fn cubic_options_beta_and_c_change_the_reduction_and_the_time_to_w_max() {
    let (_, _, w_max, at) = cubic_after_one_loss(", beta = 0.5");
    assert_eq!(ss(&at), w_max / 2);
    // A larger C reaches W_max sooner (K ~ C^(-1/3)).
    let time_to_w_max = |options: &str| {
        let (c, t_fr, w_max, _) = cubic_after_one_loss(options);
        c.iter().find(|x| x.t > t_fr + 0.2 && x.cwnd >= w_max).unwrap().t - t_fr
    };
    let (slow, fast) = (time_to_w_max(""), time_to_w_max(", c = 3.2"));
    assert!(fast < 0.7 * slow, "C = 3.2: {fast:.3} s, C = 0.4: {slow:.3} s");
}

#[test]
fn cubic_options_are_checked() {
    let bad = |cc: &str| {
        let flow = format!("tcp = \"sack\"\ncc = {cc}");
        tcplab_sim::run_toml(&one_hop(&flow, &[], "1s"), &[])
            .unwrap_err()
            .to_string()
    };
    assert!(bad("{ algorithm = \"cubic\", beta = 1.0 }")
        .starts_with("flows[0].cc.beta: 1 is not a valid decrease factor"));
    assert!(bad("{ algorithm = \"cubic\", c = 0 }").starts_with("flows[0].cc.c: 0 is not a valid C"));
    assert!(bad("{ algorithm = \"cubic\", d = 0.5 }").starts_with("flows[0].cc.d: not an option of cubic"));
    assert!(
        bad("{ algorithm = \"aimd\", beta = 0.7 }").starts_with("flows[0].cc.beta: not an option of aimd")
    );
}
