//! What the examples share: the scenario file named by the first argument.

use tcplab_sim::scenario::Scenario;

/// The scenario in the file the first argument names; on a missing argument, an unreadable
/// file or a bad scenario, one line on stderr and exit status 2 (`usage` names the example).
pub fn scenario_from_args(usage: &str) -> Scenario {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: {usage} SCENARIO.toml");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    });
    tcplab_sim::load(&text, &[]).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    })
}
