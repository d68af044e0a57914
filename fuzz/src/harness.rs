#![allow(dead_code)] // each target uses one of the two
//! What the fuzz targets feed the readers, shared with the regression test of tcplab-sim
//! (`tests/fuzz_corpus.rs`, which runs every corpus and crash file through it): an input either
//! reads or is refused with an error; a panic (or an abort, a hang) is the bug.

/// The scenario reader. The first byte picks the form; the rest is the document, then, after a
/// line `#--set`, one `path=value` override per line:
/// - even: TOML text (`tcplab run`, `tcplab.run(path)`), through `tcplab_sim::load`;
/// - odd: JSON text (a Python dict), read as the binding reads it, through `load_value`.
pub fn scenario(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (doc, sets) = text.split_once("\n#--set\n").unwrap_or((text, ""));
    let overrides: Vec<(String, String)> = sets
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(p, v)| (p.to_string(), v.to_string()))
        .collect();
    if mode % 2 == 0 {
        let _ = tcplab_sim::load(doc, &overrides);
    } else {
        let Ok(mut value) = serde_json::from_str::<toml::Value>(doc) else {
            return;
        };
        for (p, v) in &overrides {
            if tcplab_sim::scenario::set_path(&mut value, p, v).is_err() {
                return;
            }
        }
        let _ = tcplab_sim::load_value(value);
    }
}

/// The capture reader and analyzer (`tcplab trace analyze`): pcap or pcapng bytes.
pub fn pcap(data: &[u8]) {
    let _ = tcplab_sim::capture::analyze::analyze(data, Default::default());
}
