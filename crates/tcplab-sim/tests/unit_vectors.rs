//! The unit grammar is shared with the Python parser: both are tested against the same vectors
//! in tests/data/unit_vectors.json (the single source of truth).

use tcplab_sim::time::{parse_duration, parse_probability, parse_rate, parse_size};

#[test]
fn every_shared_vector_parses_as_specified() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/unit_vectors.json");
    let text = std::fs::read_to_string(path).expect("tests/data/unit_vectors.json is readable");
    let vectors: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    assert!(vectors.len() >= 50);
    let mut failures = Vec::new();
    for v in &vectors {
        let kind = v["kind"].as_str().unwrap();
        let input = v["text"].as_str().unwrap();
        let got = match kind {
            "duration" => parse_duration(input),
            "rate" => parse_rate(input),
            "size" => parse_size(input),
            "probability" => parse_probability(input),
            other => panic!("unknown kind {other}"),
        };
        let want_error = v.get("error").and_then(|e| e.as_bool()).unwrap_or(false);
        match (got, want_error) {
            (Ok(x), false) => {
                let want = v["value"].as_f64().unwrap();
                if (x - want).abs() > 1e-12 * want.abs().max(1e-300) {
                    failures.push(format!("{kind} {input:?}: got {x}, want {want}"));
                }
            }
            (Err(_), true) => {}
            (Ok(x), true) => failures.push(format!("{kind} {input:?}: parsed as {x}, want an error")),
            (Err(e), false) => failures.push(format!("{kind} {input:?}: error {e}, want {}", v["value"])),
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
