//! Tahoe (Jacobson 1988 with fast retransmit): on the third duplicate ACK, ssthresh = what the
//! congestion control answers (half the flight for AIMD's defaults), cwnd = 1 segment, and go
//! back to snd_una in slow start. No fast recovery. The
//! duplicate ACKs that the go-back-N window itself provokes cannot trigger another fast
//! retransmit (the `recover` guard).

use super::{reduce, Ctx, NoOptions, Recovery};
use crate::tcp::ns2::Ns2Variant;
use crate::tcp::state::LossSignal;

#[derive(Clone, Debug, Default)]
pub struct Tahoe;

impl Recovery for Tahoe {
    type Options = NoOptions;
    const NS2_AGENT: Option<Ns2Variant> = Some(Ns2Variant::Tahoe);

    fn build(_: &NoOptions) -> Self {
        Tahoe
    }

    fn on_dupack(&mut self, cx: &mut Ctx<'_>) {
        let core = &mut *cx.core;
        if core.dupacks == core.cfg.dupthresh && core.fast_retransmit_allowed() {
            reduce(core, cx.cc, cx.now);
            core.recover = core.snd_max; // go-back-N resends this window: guard it like a timeout
            core.win.cwnd = core.mss();
            core.snd_nxt = core.snd_una; // the send loop retransmits from here in slow start
            core.signal_loss(LossSignal::FastRetransmit);
        }
    }
}
