//! A throwaway loss recovery, registered only in the crate's own tests (`#[cfg(test)]` on its
//! line of the list in `mod.rs`): the proof that a recovery is one file plus one line. This
//! file and that line are all it took for `tcp = { variant = "probe", burst = 2 }` to be a
//! scenario's name with a typed, validated option, in the schema, written back, and run.
//!
//! What it does: on the DupThresh-th duplicate ACK, ssthresh = the congestion control's answer,
//! cwnd = ssthresh, and `burst` segments from snd_una are retransmitted at once; no fast
//! recovery (the ACKs that follow grow the window as usual).

use super::{reduce, Ctx, Recovery, Validation};
use crate::error::Error;
use crate::tcp::state::LossSignal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProbeOptions {
    /// Segments retransmitted at the DupThresh-th duplicate ACK; default 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Probe {
    burst: u32,
}

impl Recovery for Probe {
    type Options = ProbeOptions;

    fn build(o: &ProbeOptions) -> Self {
        Probe {
            burst: o.burst.unwrap_or(1),
        }
    }

    fn validate(o: &ProbeOptions, v: &Validation<'_>) -> Result<(), Error> {
        match o.burst {
            Some(0) => Err(Error::Invalid {
                field: format!("{}.burst", v.at),
                message: "0 (expected at least 1 segment)".into(),
            }),
            _ => Ok(()),
        }
    }

    fn on_dupack(&mut self, cx: &mut Ctx<'_>) {
        let core = &mut *cx.core;
        if core.dupacks == core.cfg.dupthresh && core.fast_retransmit_allowed() {
            core.recover = core.snd_max;
            reduce(core, cx.cc, cx.now);
            core.win.cwnd = core.win.ssthresh;
            core.signal_loss(LossSignal::FastRetransmit);
            for k in 0..self.burst as u64 {
                let seq = core.snd_una + k * core.mss();
                if seq < core.snd_max {
                    core.send_segment(cx.now, seq, cx.out);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::Variant;

    /// One 10 Mbit/s hop, packets 20 and 60 of the flow lost, and the flow's `tcp` value.
    fn scenario(tcp: &str) -> String {
        format!(
            r#"
duration = "3s"
[network.path]
hops = [{{ rate = "10Mbit/s", delay = "20ms", queue = {{ limit = 1000 }}, loss = {{ model = "script", packets = [20, 60] }} }}]
[[flows]]
tcp = {tcp}
"#
        )
    }

    fn error(tcp: &str) -> String {
        crate::run_toml(&scenario(tcp), &[]).unwrap_err().to_string()
    }

    #[test]
    fn a_recovery_in_one_file_is_reachable_by_name_validated_and_runs() {
        // Reachable by name, in both forms, and written back as given.
        let sc = crate::load(&scenario(r#"{ variant = "probe", burst = 2 }"#), &[]).unwrap();
        assert_eq!(sc.flows[0].tcp.variant, Variant::Probe);
        let json = serde_json::to_value(&sc.flows[0].tcp).unwrap();
        assert_eq!(json, serde_json::json!({"variant": "probe", "burst": 2}));
        let sc = crate::load(&scenario(r#""probe""#), &[]).unwrap();
        assert_eq!(serde_json::to_value(&sc.flows[0].tcp).unwrap(), "probe");
        // Runs: both losses repaired by its fast retransmit, no timeout; two segments per
        // retransmission with burst = 2.
        let one = crate::run_toml(&scenario(r#""probe""#), &[]).unwrap();
        let two = crate::run_toml(&scenario(r#"{ variant = "probe", burst = 2 }"#), &[]).unwrap();
        for (r, per_loss) in [(&one, 1), (&two, 2)] {
            let f = &r.flows[0];
            assert_eq!(f.tcp, "probe");
            assert_eq!((f.fast_retransmits, f.timeouts), (2, 0), "{f:?}");
            assert_eq!(f.segments_retransmitted, 2 * per_loss, "{f:?}");
            assert!(f.goodput_bps > 1e6, "{f:?}");
        }
        // Validated: its own check, the option's type, and the options of other recoveries.
        let cases = [
            (r#"{ variant = "probe", burst = 0 }"#, "flows[0].tcp.burst: 0 (expected at least 1 segment)"),
            (r#"{ variant = "probe", burst = "two" }"#, "flows[0].tcp.burst: invalid type: string \"two\", expected u32"),
            (r#"{ variant = "probe", guard = true }"#, "flows[0].tcp.guard: not an option of probe (options of probe: burst)"),
            (r#"{ variant = "reno", burst = 2 }"#, "flows[0].tcp.burst: not an option of reno (options of reno: guard)"),
        ];
        for (tcp, want) in cases {
            assert_eq!(error(tcp), want, "{tcp}");
        }
        // Not modelled by ns-2: the ns2 profile refuses it, naming the variants it has.
        let ns2 = scenario(r#""probe""#) + "profile = \"ns2\"\nack = \"immediate\"\n";
        assert_eq!(
            crate::run_toml(&ns2, &[]).unwrap_err().to_string(),
            "flows[0].tcp: \"probe\" has no ns2 profile model (expected tahoe, reno, newreno, sack, fack or sackrh)"
        );
        // In the schema, with its option's description.
        let schema = crate::scenario::json_schema();
        assert!(schema.contains("\"probe\"") && schema.contains("Segments retransmitted at the DupThresh-th"));
    }
}
