//! No congestion control: the window is the receiver's, always. This is 4.3BSD before
//! Jacobson (Jacobson & Karels 1988 Figs 3, 5 and 8, the "before" of every comparison): no
//! slow start — the whole advertised window leaves at once — and no reduction on a loss or a
//! timeout. It is a congestion controller rather than a quirk of the 4.3BSD recovery because
//! that is what it is: the window policy, not the loss repair, is what 4.3BSD lacked, so any
//! recovery can run without one (`cc = "none"`), and 4.3BSD's go-back-N recovery can run with
//! Jacobson's AIMD (`tcp = "bsd43"`, `cc = "aimd"`: the paper's 1988 TCP, which had no fast
//! retransmit yet).
//!
//! cwnd and ssthresh are reported as rwnd. A recovery may still set cwnd during its recovery
//! (Tahoe's one segment, Reno's inflation); the next ACK outside it restores rwnd.

use super::{Ack, Controller, FromOptions, Loss, NoOptions, Setup, Window};

#[derive(Clone, Debug)]
pub struct NoControl {
    /// The receiver's advertised window, bytes.
    pub rwnd: u64,
}

impl NoControl {
    fn window(&self) -> Window {
        Window {
            cwnd: self.rwnd,
            ssthresh: self.rwnd,
        }
    }
}

impl FromOptions for NoControl {
    type Options = NoOptions;
    /// No window to reduce for ECE.
    const ECN_CAPABLE: bool = false;

    fn build(_: &NoOptions, f: &Setup) -> Self {
        NoControl { rwnd: f.rwnd }
    }
}

impl Controller for NoControl {
    fn initial_window(&self) -> Window {
        self.window()
    }

    #[inline]
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if !ack.recovering {
            *w = self.window();
        }
    }

    fn ssthresh_after_loss(&mut self, _: &Loss) -> u64 {
        self.rwnd
    }

    fn reduce(&self, window: u64) -> u64 {
        window
    }

    fn on_timeout(&mut self, _: Window, _: &Loss, _: bool) -> Window {
        self.window()
    }
}
