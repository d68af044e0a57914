//! The one interface every TCP endpoint implementation offers: the RFC senders and receiver
//! (`sender.rs`, `receiver.rs`) and ns-2's agents and sinks (`ns2/`). Sans-IO, after smoltcp:
//! an endpoint takes `(now, segment)` or `(now)` for its timer, pushes the segments it sends,
//! and tells when it next wants to be woken (`deadline`). It knows nothing of nodes, links or
//! the event queue, so the simulator, a scripted test and an emulator drive it alike.
//!
//! `AnySender` / `AnyReceiver` are the closed sets the simulator holds (an enum: static
//! dispatch, no allocation per call).

use super::instruments::Instruments;
use super::ns2::{Ns2Sender, Ns2Sink};
use super::receiver::Receiver;
use super::segment::Segment;
use super::sender::Sender;
use crate::time::SimTime;

/// What both ends of a connection do.
pub trait Endpoint {
    /// A segment from the peer arrived.
    fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>);
    /// The endpoint's timer may be due (a stale wake-up is ignored).
    fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>);
    /// When the endpoint next wants `on_timer`, if at all.
    fn deadline(&self) -> Option<SimTime>;
}

/// The data sender of a one-way connection.
pub trait TcpSender: Endpoint {
    /// The connection opens at `now`: the first window leaves.
    fn start(&mut self, now: SimTime, out: &mut Vec<Segment>);
    /// The application writes `bytes` more (request/response traffic). Senders built for an
    /// unlimited transfer ignore it.
    fn app_write(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Segment>);
    /// Has everything the application wrote been acknowledged?
    fn all_acked(&self) -> bool;
    /// Mathis' instruments, as this sender reported them.
    fn instruments(&self) -> &Instruments;
    fn instruments_mut(&mut self) -> &mut Instruments;
}

/// The data receiver of a one-way connection.
pub trait TcpReceiver: Endpoint {
    /// Payload bytes delivered in order to the application.
    fn bytes_delivered(&self) -> u64;
    fn acks_sent(&self) -> u64;
    /// Data segments received and those marked CE, counted when the flow uses ECN.
    fn ecn_counts(&self) -> (u64, u64) {
        (0, 0)
    }
}

/// Every sender implementation. The RFC sender, the common case, is kept inline: every segment
/// and timer of a connection goes through it, and a box would add a pointer chase to each.
/// ns-2's agent is boxed.
#[allow(clippy::large_enum_variant)]
pub enum AnySender {
    /// The RFC senders (every variant of `scenario::Variant`).
    Native(Sender),
    /// ns-2's one-way agents (`profile = "ns2"`).
    Ns2(Box<Ns2Sender>),
}

/// Every receiver implementation. The RFC receiver is kept inline, as the RFC sender is: every
/// data segment goes through it.
#[allow(clippy::large_enum_variant)]
pub enum AnyReceiver {
    Native(Receiver),
    Ns2(Box<Ns2Sink>),
}

macro_rules! dispatch {
    ($enum:ident, $self:expr, $v:ident => $e:expr) => {
        match $self {
            $enum::Native($v) => $e,
            $enum::Ns2($v) => $e,
        }
    };
}

impl Endpoint for AnySender {
    #[inline]
    fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        dispatch!(AnySender, self, s => Endpoint::on_segment(s, now, seg, out))
    }
    #[inline]
    fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        dispatch!(AnySender, self, s => Endpoint::on_timer(s, now, out))
    }
    #[inline]
    fn deadline(&self) -> Option<SimTime> {
        dispatch!(AnySender, self, s => Endpoint::deadline(s))
    }
}

impl TcpSender for AnySender {
    fn start(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        dispatch!(AnySender, self, s => TcpSender::start(s, now, out))
    }
    fn app_write(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Segment>) {
        dispatch!(AnySender, self, s => TcpSender::app_write(s, now, bytes, out))
    }
    #[inline]
    fn all_acked(&self) -> bool {
        dispatch!(AnySender, self, s => TcpSender::all_acked(s))
    }
    #[inline]
    fn instruments(&self) -> &Instruments {
        dispatch!(AnySender, self, s => TcpSender::instruments(s))
    }
    #[inline]
    fn instruments_mut(&mut self) -> &mut Instruments {
        dispatch!(AnySender, self, s => TcpSender::instruments_mut(s))
    }
}

impl Endpoint for AnyReceiver {
    #[inline]
    fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        dispatch!(AnyReceiver, self, r => Endpoint::on_segment(r, now, seg, out))
    }
    #[inline]
    fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        dispatch!(AnyReceiver, self, r => Endpoint::on_timer(r, now, out))
    }
    #[inline]
    fn deadline(&self) -> Option<SimTime> {
        dispatch!(AnyReceiver, self, r => Endpoint::deadline(r))
    }
}

impl TcpReceiver for AnyReceiver {
    #[inline]
    fn bytes_delivered(&self) -> u64 {
        dispatch!(AnyReceiver, self, r => TcpReceiver::bytes_delivered(r))
    }
    #[inline]
    fn acks_sent(&self) -> u64 {
        dispatch!(AnyReceiver, self, r => TcpReceiver::acks_sent(r))
    }
    fn ecn_counts(&self) -> (u64, u64) {
        dispatch!(AnyReceiver, self, r => TcpReceiver::ecn_counts(r))
    }
}

impl<T: Endpoint + ?Sized> Endpoint for Box<T> {
    #[inline]
    fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        (**self).on_segment(now, seg, out)
    }
    #[inline]
    fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        (**self).on_timer(now, out)
    }
    #[inline]
    fn deadline(&self) -> Option<SimTime> {
        (**self).deadline()
    }
}

impl<T: TcpSender + ?Sized> TcpSender for Box<T> {
    fn start(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        (**self).start(now, out)
    }
    fn app_write(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Segment>) {
        (**self).app_write(now, bytes, out)
    }
    #[inline]
    fn all_acked(&self) -> bool {
        (**self).all_acked()
    }
    #[inline]
    fn instruments(&self) -> &Instruments {
        (**self).instruments()
    }
    #[inline]
    fn instruments_mut(&mut self) -> &mut Instruments {
        (**self).instruments_mut()
    }
}

impl<T: TcpReceiver + ?Sized> TcpReceiver for Box<T> {
    #[inline]
    fn bytes_delivered(&self) -> u64 {
        (**self).bytes_delivered()
    }
    #[inline]
    fn acks_sent(&self) -> u64 {
        (**self).acks_sent()
    }
    fn ecn_counts(&self) -> (u64, u64) {
        (**self).ecn_counts()
    }
}

// The RFC endpoints: the interface over their inherent methods.

impl Endpoint for Sender {
    #[inline]
    fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        self.on_ack(now, seg, out)
    }
    #[inline]
    fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        Sender::on_timer(self, now, out)
    }
    #[inline]
    fn deadline(&self) -> Option<SimTime> {
        Sender::deadline(self)
    }
}

impl TcpSender for Sender {
    fn start(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        Sender::start(self, now, out)
    }
    fn app_write(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Segment>) {
        Sender::app_write(self, now, bytes, out)
    }
    fn all_acked(&self) -> bool {
        Sender::all_acked(self)
    }
    fn instruments(&self) -> &Instruments {
        &self.core.inst
    }
    fn instruments_mut(&mut self) -> &mut Instruments {
        &mut self.core.inst
    }
}

impl Endpoint for Receiver {
    #[inline]
    fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        Receiver::on_segment(self, now, seg, out)
    }
    #[inline]
    fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        Receiver::on_timer(self, now, out)
    }
    #[inline]
    fn deadline(&self) -> Option<SimTime> {
        Receiver::deadline(self)
    }
}

impl TcpReceiver for Receiver {
    fn bytes_delivered(&self) -> u64 {
        self.bytes_delivered
    }
    fn acks_sent(&self) -> u64 {
        self.acks_sent
    }
    fn ecn_counts(&self) -> (u64, u64) {
        (self.ecn.segments, self.ecn.ce)
    }
}

// ns-2's agents and sinks.

impl Endpoint for Ns2Sender {
    fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        self.on_ack(now, seg, out)
    }
    fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        Ns2Sender::on_timer(self, now, out)
    }
    fn deadline(&self) -> Option<SimTime> {
        Ns2Sender::deadline(self)
    }
}

impl TcpSender for Ns2Sender {
    fn start(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        Ns2Sender::start(self, now, out)
    }
    /// ns-2's FTP source sends an unlimited amount (the scenario rejects anything else).
    fn app_write(&mut self, _: SimTime, _: u64, _: &mut Vec<Segment>) {}
    fn all_acked(&self) -> bool {
        false
    }
    fn instruments(&self) -> &Instruments {
        &self.inst
    }
    fn instruments_mut(&mut self) -> &mut Instruments {
        &mut self.inst
    }
}

impl Endpoint for Ns2Sink {
    fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        Ns2Sink::on_segment(self, now, seg, out)
    }
    /// ns-2's `TCPSink` ACKs every packet at once: it has no timer.
    fn on_timer(&mut self, _: SimTime, _: &mut Vec<Segment>) {}
    fn deadline(&self) -> Option<SimTime> {
        None
    }
}

impl TcpReceiver for Ns2Sink {
    fn bytes_delivered(&self) -> u64 {
        self.packets_delivered() * self.packet_size as u64
    }
    fn acks_sent(&self) -> u64 {
        self.acks_sent
    }
    fn ecn_counts(&self) -> (u64, u64) {
        if self.ecn {
            (self.data_received, self.ce_received)
        } else {
            (0, 0)
        }
    }
}
