use super::*;
use arrow_array::Array;

const SCENARIO: &str = r#"
duration = "2s"
trace = { cwnd = true, queue = true, links = ["hop0.fwd", "hop0.rev"] }
[network.path]
hops = [{ rate = "10Mbit/s", delay = "20ms", queue = { limit = 5 }, loss = { model = "bernoulli", p = "1%" } }]
[[flows]]
tcp = "reno"
[[traffic]]
kind = "cbr"
rate = "1Mbit/s"
"#;

fn result() -> RunResult {
    crate::run_toml(SCENARIO, &[]).unwrap()
}

fn names(b: &RecordBatch) -> Vec<String> {
    b.schema().fields().iter().map(|f| f.name().clone()).collect()
}

/// The keys serde writes for the first element of a result list: the struct's fields.
fn serde_keys(v: &serde_json::Value, list: &str) -> Vec<String> {
    v[list][0].as_object().unwrap().keys().cloned().collect()
}

#[test]
fn the_result_tables_have_a_column_for_every_field() {
    // A field added to a result struct must get its column: serde lists the fields.
    let r = result();
    let v = serde_json::to_value(&r).unwrap();
    let t = tables(&r).unwrap();
    let get = |n: &str| t.iter().find(|(name, _)| *name == n).unwrap().1.clone();
    for list in ["flows", "traffic", "links", "totals"] {
        let mut keys = serde_keys(&v, list);
        let mut cols = names(&get(list));
        // serde_json's map is ordered by key here; compare as sets of names, then count.
        keys.sort();
        cols.sort();
        assert_eq!(cols, keys, "{list}");
    }
    let run: Vec<String> = ["seed", "duration_s", "warmup_s", "window_s", "events"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(names(&get("run"))[..5], run[..]);
    assert_eq!(get("flows").num_rows(), 1);
    assert_eq!(get("links").num_rows(), 2);
}

#[test]
fn the_traces_have_the_documented_columns_and_types() {
    let r = result();
    let links: Vec<&str> = r.links.iter().map(|l| l.link.as_str()).collect();
    let p = packets(&r.traces.packets, &links).unwrap();
    assert_eq!(
        names(&p),
        [
            "time_s",
            "time_ns",
            "link",
            "link_name",
            "event",
            "flow",
            "kind",
            "seq",
            "ack",
            "size",
            "len",
            "retransmit",
            "cause",
            "ecn"
        ]
    );
    assert_eq!(p.num_rows(), r.traces.packets.len());
    let dict = DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8));
    assert_eq!(p.schema().field(4).data_type(), &dict);
    // cause is null except on drops and losses.
    let cause = p.column(12);
    let drops = r.traces.packets.iter().filter(|e| e.cause.is_some()).count();
    assert!(drops > 0);
    assert_eq!(cause.len() - cause.null_count(), drops);
    let c = cwnd(&r.traces.cwnd).unwrap();
    assert_eq!(
        names(&c),
        ["time_s", "time_ns", "flow", "cwnd_bytes", "ssthresh_bytes"]
    );
    assert!(c.schema().field(4).is_nullable());
    assert!(
        c.column(4).null_count() > 0,
        "ssthresh is null before the first loss"
    );
    let q = queue(&r.traces.queue, &links).unwrap();
    assert_eq!(
        names(&q),
        ["time_s", "time_ns", "link", "link_name", "packets", "bytes"]
    );
    let v = ns2_vars(&[]).unwrap();
    assert_eq!(names(&v), ["time_s", "time_ns", "flow", "var", "value"]);
}

#[test]
fn a_link_index_outside_the_links_table_is_an_error_not_a_panic() {
    let r = result();
    assert!(packets(&r.traces.packets, &["only-one"]).is_err());
}

#[test]
fn the_same_seed_gives_identical_batches() {
    let (a, b) = (tables(&result()).unwrap(), tables(&result()).unwrap());
    assert_eq!(a, b);
}
