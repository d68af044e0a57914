//! The fuzzers' seed corpus and every input they found to crash, hang or abort, fed to the same
//! harness the fuzz targets run (`fuzz/src/harness.rs`): each must read or be refused, without
//! a panic. A new crash goes in `fuzz/crashes/<target>/` with its fix (fuzz/README.md).

#[path = "../../../fuzz/src/harness.rs"]
mod harness;

use std::path::PathBuf;

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut files = Vec::new();
    for dir in ["corpus", "crashes"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        let hidden = |p: &PathBuf| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        };
        files.extend(
            entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_file() && !hidden(p)),
        );
    }
    files.sort();
    files
}

fn each(target: &str, run: fn(&[u8])) {
    let files = inputs(target);
    assert!(
        files.len() >= 6,
        "{target}: the seed corpus is missing ({} files)",
        files.len()
    );
    for f in files {
        let data = std::fs::read(&f).unwrap();
        if std::panic::catch_unwind(|| run(&data)).is_err() {
            panic!("{}: the reader panicked", f.display());
        }
    }
}

#[test]
fn scenario_corpus_and_crashes_read_cleanly() {
    each("scenario", harness::scenario);
}

#[test]
fn pcap_corpus_and_crashes_read_cleanly() {
    each("pcap", harness::pcap);
}
