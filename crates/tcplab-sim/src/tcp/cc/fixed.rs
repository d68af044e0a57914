//! A fixed window (test builds only): the registry's own test that a controller is one file
//! plus one line in `controllers!` (docs/architecture.md, "How to add a congestion control").
//! `cc = { algorithm = "fixed", segments = 4 }`: cwnd is always that many segments.

use super::{invalid, Ack, Controller, FromOptions, Loss, Setup, Window};
use crate::error::Error;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The options of `fixed`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FixedOptions {
    /// The window, segments, at least 1 (default 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segments: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Fixed {
    window: u64,
}

impl FromOptions for Fixed {
    type Options = FixedOptions;

    fn validate(o: &FixedOptions, at: &str) -> Result<(), Error> {
        match o.segments {
            Some(0) => Err(invalid(format!("{at}.segments"), "0 (expected at least 1 segment)")),
            _ => Ok(()),
        }
    }

    fn build(o: &FixedOptions, f: &Setup) -> Self {
        Fixed {
            window: o.segments.unwrap_or(4) as u64 * f.mss,
        }
    }
}

impl Controller for Fixed {
    fn initial_window(&self) -> Window {
        Window {
            cwnd: self.window,
            ssthresh: self.window,
        }
    }

    fn on_ack(&mut self, w: &mut Window, _: &Ack) {
        w.cwnd = self.window;
    }

    fn ssthresh_after_loss(&mut self, _: &Loss) -> u64 {
        self.window
    }

    fn reduce(&self, window: u64) -> u64 {
        window
    }

    fn on_timeout(&mut self, _: Window, _: &Loss, _: bool) -> Window {
        self.initial_window()
    }
}

#[cfg(test)]
mod tests {
    //! The throwaway controller is reachable by name from a scenario, appears in the schema,
    //! has its options checked under their field names, and runs: nothing but this file and
    //! its line in `controllers!` made it so.

    fn scenario(cc: &str) -> String {
        format!(
            r#"
duration = "2s"
trace = {{ cwnd = true }}
[network.path]
hops = [{{ rate = "1Gbit/s", delay = "50ms", queue = {{ limit = 10000 }} }}]
[[flows]]
mss = 1000
ack = "immediate"
cc = {cc}
"#
        )
    }

    fn error(cc: &str) -> String {
        crate::load(&scenario(cc), &[]).unwrap_err().to_string()
    }

    #[test]
    fn a_scenario_names_it_and_it_runs_with_its_window() {
        let r = crate::run_toml(&scenario("{ algorithm = \"fixed\", segments = 3 }"), &[]).unwrap();
        // 3 segments per 100 ms round trip, every window the same.
        assert!(r.traces.cwnd.iter().all(|c| c.cwnd_bytes == 3000), "{:?}", r.traces.cwnd);
        let goodput = r.flows[0].goodput_bps;
        assert!((230_000.0..=240_000.0).contains(&goodput), "{goodput}");
        // The short form takes the default, 4 segments.
        let r = crate::run_toml(&scenario("\"fixed\""), &[]).unwrap();
        assert!(r.traces.cwnd.iter().all(|c| c.cwnd_bytes == 4000));
        // And it is written back as given.
        let sc = crate::load(&scenario("{ algorithm = \"fixed\", segments = 3 }"), &[]).unwrap();
        let json = serde_json::to_string(&sc.flows[0].cc).unwrap();
        assert_eq!(json, r#"{"algorithm":"fixed","segments":3}"#);
    }

    #[test]
    fn its_options_are_checked_under_their_names() {
        let cases = [
            ("{ algorithm = \"fixed\", segments = 0 }", "flows[0].cc.segments: 0 (expected at least 1 segment)"),
            ("{ algorithm = \"fixed\", segments = \"x\" }", "flows[0].cc.segments: invalid type: string \"x\", expected u32"),
            ("{ algorithm = \"fixed\", d = 0.5 }", "flows[0].cc.d: not an option of fixed (options of fixed: segments)"),
            ("{ segments = 2 }", "flows[0].cc.segments: not an option of aimd (options of aimd: d, u, growth, abc_limit, ssthresh_rule, hystart)"),
            ("\"fixd\"", "flows[0].cc: unknown variant `fixd`, expected one of `aimd`, `cubic`, `bbr`, `dctcp`, `prague`, `none`, `fixed` (did you mean `fixed`?)"),
        ];
        for (cc, want) in cases {
            assert_eq!(error(cc), want, "{cc}");
        }
    }

    #[test]
    fn the_schema_has_its_name_and_table() {
        let v: serde_json::Value = serde_json::from_str(&crate::scenario::json_schema()).unwrap();
        let defs = &v["definitions"];
        let names = defs["Algorithm"].to_string();
        assert!(names.contains("\"fixed\""), "{names}");
        let shapes = defs["CcSpec"]["anyOf"].as_array().unwrap();
        let fixed = shapes
            .iter()
            .find(|s| s["properties"]["algorithm"]["enum"][0] == "fixed")
            .expect("a table shape for fixed");
        assert_eq!(fixed["required"][0], "algorithm");
        assert_eq!(fixed["additionalProperties"], false);
        let segments = &fixed["properties"]["segments"];
        assert!(segments["description"].as_str().unwrap().contains("default 4"), "{segments}");
    }
}
