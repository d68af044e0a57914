//! A flow's `cc` key: the congestion control (`tcp/cc/`) and its own options. `cc = "aimd"`,
//! or a table: `cc = { algorithm = "aimd", d = 0.7, u = 1, growth = "abc", abc_limit = 2,
//! ssthresh_rule = "cwnd" }`. Left out, or a table without `algorithm`, it is the variant's
//! default: `aimd`, or `none` for tcp = "bsd43". So `--set flows.0.cc.d=0.7` works on its own.
//!
//! The names, the options of each algorithm, the table's reading, writing and schema are
//! generated from the list of controllers (`tcp/cc/registry.rs`); here, the checks that every
//! algorithm's table shares, which know the flow: each key is an option of the algorithm in
//! force, with a hint when it is the loss recovery's.

use super::super::invalid;
use crate::error::Error;
pub use crate::tcp::cc::aimd::{SsthreshRule, WindowGrowth, MAX_U};
pub use crate::tcp::cc::cubic::CubicStyle;
pub use crate::tcp::cc::slow_start::HyStart;
pub use crate::tcp::cc::{Algorithm, CcOptions, CcSpec, ALL_OPTIONS};

impl CcSpec {
    /// Every option given belongs to `algorithm` (the one in force) and has a valid value.
    pub(crate) fn validate(&self, at: &str, algorithm: Algorithm) -> Result<(), Error> {
        if let Some((k, message)) = self.unreadable() {
            return Err(invalid(format!("{at}.cc.{k}"), message));
        }
        let a = algorithm.name();
        let allowed = algorithm.options();
        // A table read as another algorithm's (no `algorithm`, and the variant's default is
        // not the registry's) has none of this one's options.
        let own = self.options.algorithm() == algorithm;
        if let Some(k) = self.given().find(|k| !own || !allowed.contains(k)) {
            let which = if allowed.is_empty() {
                format!("{a} has no options")
            } else {
                format!("options of {a}: {}", allowed.join(", "))
            };
            let hint = if super::tcp::Variant::Newreno.options().contains(&k)
                || super::tcp::Variant::Reno.options().contains(&k)
            {
                format!("; {k} belongs to the loss recovery: {at}.tcp.{k}")
            } else {
                String::new()
            };
            return Err(invalid(
                format!("{at}.cc.{k}"),
                format!("not an option of {a} ({which}{hint})"),
            ));
        }
        self.options.validate(&format!("{at}.cc"))
    }
}
