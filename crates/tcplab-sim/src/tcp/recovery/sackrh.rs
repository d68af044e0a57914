//! SACK with rate halving (ns-2's SackRH, after Mathis & Mahdavi): RFC 6675's recovery
//! (`sack.rs`), but on entering recovery cwnd is not cut to ssthresh at once: it is lowered by
//! half a segment per ACK (one segment sent per two ACKs) down to the new ssthresh, which it
//! becomes when recovery ends. No options.

use super::sack::SackRecovery;
use super::{AckEvent, Ctx, NoOptions, Recovery};
use crate::tcp::ns2::Ns2Variant;
use crate::tcp::state::{AckResult, SenderCore};
use crate::time::SimTime;

/// The SACK recovery with `rate_halving` on, every hook its.
#[derive(Clone, Debug)]
pub struct SackRh(pub SackRecovery);

impl Recovery for SackRh {
    type Options = NoOptions;
    const USES_SACK: bool = true;
    const NS2_AGENT: Option<Ns2Variant> = Some(Ns2Variant::SackRH);

    fn build(_: &NoOptions) -> Self {
        SackRh(SackRecovery::new(true))
    }

    fn on_dupack(&mut self, cx: &mut Ctx<'_>) {
        self.0.on_dupack(cx)
    }

    fn on_new_ack(&mut self, cx: &mut Ctx<'_>, acked: u64) -> AckResult {
        self.0.on_new_ack(cx, acked)
    }

    fn on_timeout(&mut self, cx: &mut Ctx<'_>) {
        self.0.on_timeout(cx)
    }

    fn send(&mut self, cx: &mut Ctx<'_>) {
        self.0.send(cx)
    }

    fn in_recovery(&self) -> bool {
        self.0.in_recovery()
    }

    fn on_any_ack(&mut self, cx: &mut Ctx<'_>, ev: AckEvent<'_>) {
        self.0.on_any_ack(cx, ev)
    }

    fn deadline(&self) -> Option<SimTime> {
        self.0.deadline()
    }

    fn on_timer(&mut self, cx: &mut Ctx<'_>) {
        self.0.on_timer(cx)
    }

    fn marks_after_timeout(&self) -> bool {
        self.0.marks_after_timeout()
    }

    fn undo_timeout(&mut self, core: &mut SenderCore) {
        self.0.undo_timeout(core)
    }

    fn reads_delivered(&self) -> bool {
        self.0.reads_delivered()
    }
}
