//! Emulation: real TCP connections through the simulated network, in real time.
//!
//! Each external flow (`sim::external`) has two taps, file descriptors of TUN devices whose
//! other side is a network namespace holding the flow's real sender or receiver (the Python
//! side, `tcplab.emulate`, creates the namespaces and devices). An IP packet the sender's kernel
//! sends comes out of its tap; it is stamped with the wall clock, mapped to simulated time
//! (zero when the emulation starts) and injected at the flow's sender node. The simulator runs
//! its events as the wall clock reaches them, so the packet is queued, serialized, delayed,
//! dropped or lost by the same link models as a simulated one; when it reaches the receiver
//! node it is written into the receiver's tap. ACKs go the other way.
//!
//! Timing: between events the loop sleeps in `ppoll` (timer slack 1 ns) until `spin` before the
//! next event and busy-polls from there, so an event runs within microseconds of its time
//! unless the machine is loaded; with `realtime` it asks for SCHED_FIFO. Every packet written
//! records its lateness, wall time of the write minus the simulated time it was due; the
//! self-check (`SelfCheck`) reports their distribution and every count a user needs to judge
//! whether the emulator kept up.
//!
//! ECN: a packet enters the model with its IP header's ECN field, so a modeled queue that
//! marks treats an ECN-capable real packet as it would a simulated one; a packet that leaves
//! the model marked CE is written out with the field rewritten and its IPv4 header checksum
//! updated (`ecn.rs`).
//!
//! Optionally the loop captures every packet at the senders' taps (data as it left the real
//! sender, ACKs as they reached it) into a pcap file of raw IP packets whose timestamps are
//! the simulated times, so the trace analyzer measures the connections like a simulated
//! capture.

mod capture;
mod clock;
pub mod ecn;

use crate::engine::Side;
use crate::error::Error;
use crate::sim::{Arrival, Simulation};
use crate::stats::RunResult;
use crate::time::SimTime;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub use capture::RawCapture;
pub use clock::Lateness;

/// The two taps of a flow: where its sender's and its receiver's packets come out and go in.
#[derive(Clone, Copy, Debug)]
pub struct Taps {
    pub sender: RawFd,
    pub receiver: RawFd,
}

/// How the emulator runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Busy-poll this long before an event instead of sleeping (lower jitter, more CPU; at
    /// most 40% of the time with the work, `clock::SpinBudget`).
    pub spin: Duration,
    /// Ask for SCHED_FIFO priority for the emulator's thread.
    pub realtime: bool,
    /// Capture the senders' taps into this pcap file (raw IP, simulated-time stamps).
    pub pcap: Option<String>,
    /// Bytes kept of each captured packet.
    pub snaplen: u32,
    /// Captured packets at most (the capture is marked truncated past it).
    pub max_packets: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            spin: Duration::from_micros(20),
            realtime: false,
            pcap: None,
            snaplen: 128,
            max_packets: 2_000_000,
        }
    }
}

/// What the emulator achieved against what the scenario configured.
#[derive(Clone, Debug, Default)]
pub struct SelfCheck {
    /// Wall-clock seconds the emulation ran (its simulated duration, or less if stopped).
    pub wall_s: f64,
    /// Packets read from the taps (from the real senders and receivers), and their bytes.
    pub packets_in: u64,
    pub bytes_in: u64,
    /// Packets written into the taps (delivered by the modeled network), and their bytes.
    pub packets_out: u64,
    pub bytes_out: u64,
    /// Packets the modeled network dropped (queues, loss modules).
    pub packets_dropped: u64,
    /// Packets the modeled network still held at the end (in = out + dropped + this).
    pub packets_in_flight: u64,
    /// Writes into a tap that failed (the kernel refused the packet): unmodeled losses.
    pub write_errors: u64,
    /// The largest IP packet read.
    pub max_packet: u32,
    /// Packets written whose IP ECN field the modeled network changed (a queue marked them
    /// CE): their headers were rewritten.
    pub ce_marked: u64,
    /// How late packets were written, against the simulated time they were due.
    pub lateness: Lateness,
    /// How late the loop woke for an event it slept for (its timer's own error).
    pub wakeup: Lateness,
    /// The fraction of the wall time the loop spent working (not sleeping or spinning idle).
    pub busy_fraction: f64,
    /// SCHED_FIFO was asked for and granted.
    pub realtime: bool,
    /// Simulated events processed.
    pub events: u64,
    /// The emulation was stopped before its end (`stop`).
    pub stopped: bool,
    /// Packets captured, and whether the capture reached its limit.
    pub captured: u64,
    pub capture_truncated: bool,
}

/// Packets in the modeled network: their bytes, by token (a slab with a free list).
#[derive(Default)]
struct Store {
    slots: Vec<Vec<u8>>,
    free: Vec<u64>,
    held: u64,
}

impl Store {
    fn put(&mut self, bytes: &[u8]) -> u64 {
        self.held += 1;
        match self.free.pop() {
            Some(t) => {
                let v = &mut self.slots[t as usize];
                v.clear();
                v.extend_from_slice(bytes);
                t
            }
            None => {
                self.slots.push(bytes.to_vec());
                (self.slots.len() - 1) as u64
            }
        }
    }

    fn get_mut(&mut self, token: u64) -> &mut [u8] {
        &mut self.slots[token as usize]
    }

    fn release(&mut self, token: u64) {
        self.held -= 1;
        self.free.push(token);
    }
}

/// Runs the emulation: `sim` with its foreground flows made external, one `Taps` per flow,
/// until the scenario's end or until `stop` is set. `t0` is set to the wall-clock instant of
/// simulated time zero as the loop starts (other threads time the real endpoints from it).
/// Returns the simulator's results (the external flows' own rows are zero: their instruments
/// are outside), the self-check, and the capture if one was asked for.
pub fn run(
    mut sim: Simulation,
    taps: &[Taps],
    opt: &Options,
    stop: &AtomicBool,
    t0: &std::sync::OnceLock<Instant>,
) -> Result<(RunResult, SelfCheck, Option<RawCapture>), Error> {
    if taps.len() != sim.foreground_flows() {
        return Err(Error::Invalid {
            field: "taps".into(),
            message: format!(
                "{} pairs given for {} flows (expected one per flow)",
                taps.len(),
                sim.foreground_flows()
            ),
        });
    }
    sim.externalize();
    let check = SelfCheck {
        realtime: opt.realtime && clock::set_realtime(),
        ..SelfCheck::default()
    };
    clock::set_timer_slack();
    // Every tap: its descriptor, and the flow and end it belongs to.
    let mut polls: Vec<clock::Poll> = Vec::with_capacity(2 * taps.len());
    let mut ends: Vec<(u32, Side)> = Vec::with_capacity(2 * taps.len());
    for (i, t) in taps.iter().enumerate() {
        for (fd, side) in [(t.sender, Side::Sender), (t.receiver, Side::Receiver)] {
            clock::set_nonblocking(fd).map_err(|e| Error::Invalid {
                field: format!("taps[{i}]"),
                message: format!("descriptor {fd} cannot be made non-blocking: {e}"),
            })?;
            polls.push(clock::Poll::new(fd));
            ends.push((i as u32, side));
        }
    }
    let mut buf = vec![0u8; 65_536];
    let start = *t0.get_or_init(Instant::now);
    let sim_now = |at: Instant| SimTime(at.saturating_duration_since(start).as_nanos() as u64);
    let mut out = Outlet {
        fds: polls.iter().map(|p| p.fd()).collect(),
        ends,
        arrivals: Vec::with_capacity(256),
        store: Store::default(),
        capture: opt
            .pcap
            .as_ref()
            .map(|file| RawCapture::new(file.clone(), opt.snaplen, opt.max_packets)),
        check,
        start,
    };
    let end = sim.end();
    let mut busy = Duration::ZERO;
    let mut budget = clock::SpinBudget::new();
    loop {
        if stop.load(Ordering::Relaxed) {
            out.check.stopped = true;
            break;
        }
        let work = Instant::now();
        let now = sim_now(work);
        if now >= end {
            break;
        }
        sim.run_until(now);
        out.deliver(&mut sim);
        // Wait for the next event (or a packet from a tap), sleeping most of the way.
        let next = sim.next_event().unwrap_or(end).min(end);
        let deadline = out.due(next);
        busy += work.elapsed();
        budget.worked(work.elapsed());
        let ready = clock::wait(&mut polls, deadline, opt.spin, &mut budget, &mut out.check.wakeup);
        let work = Instant::now();
        if ready {
            for (k, p) in polls.iter().enumerate() {
                if !p.readable() {
                    continue;
                }
                let (flow, side) = out.ends[k];
                loop {
                    let n = match clock::read(p.fd(), &mut buf) {
                        Ok(Some(n)) => n,
                        Ok(None) => break,
                        Err(e) => {
                            return Err(Error::Invalid {
                                field: format!("taps[{flow}]"),
                                message: format!("reading the {side:?} tap failed: {e}"),
                            })
                        }
                    };
                    let at = sim_now(Instant::now());
                    if at >= end {
                        break;
                    }
                    let bytes = &buf[..n];
                    let check = &mut out.check;
                    check.packets_in += 1;
                    check.bytes_in += n as u64;
                    check.max_packet = check.max_packet.max(n as u32);
                    if side == Side::Sender {
                        if let Some(c) = out.capture.as_mut() {
                            c.packet(at, bytes);
                        }
                    }
                    let token = out.store.put(bytes);
                    sim.inject(at, flow, side, n as u32, ecn::ip_ecn(bytes), token);
                    out.deliver(&mut sim);
                }
            }
        }
        busy += work.elapsed();
        budget.worked(work.elapsed());
    }
    let wall = start.elapsed();
    let Outlet {
        mut check,
        capture,
        store,
        ..
    } = out;
    check.wall_s = wall.as_secs_f64();
    check.busy_fraction = busy.as_secs_f64() / wall.as_secs_f64().max(1e-9);
    check.packets_in_flight = store.held;
    let result = sim.finish();
    check.events = result.events;
    if let Some(c) = &capture {
        check.captured = c.packets();
        check.capture_truncated = c.truncated();
    }
    Ok((result, check, capture))
}

/// The wall-clock instant simulated time `t` is due, time zero being `start`.
fn due_at(start: Instant, t: SimTime) -> Instant {
    start + Duration::from_nanos(t.ns())
}

/// Where packets leave the modeled network: the taps they are written into, the bytes of the
/// packets inside it, the capture and the self-check's counts.
struct Outlet {
    /// The descriptor of each tap, in (sender, receiver) pairs per flow, and whose it is.
    fds: Vec<RawFd>,
    ends: Vec<(u32, Side)>,
    arrivals: Vec<Arrival>,
    store: Store,
    capture: Option<RawCapture>,
    check: SelfCheck,
    /// The wall-clock instant of simulated time zero.
    start: Instant,
}

impl Outlet {
    /// The wall-clock instant simulated time `t` is due.
    fn due(&self, t: SimTime) -> Instant {
        due_at(self.start, t)
    }

    /// Writes the packets that reached an external end into its tap (recording their
    /// lateness), and forgets the ones the network dropped.
    fn deliver(&mut self, sim: &mut Simulation) {
        let Outlet {
            fds,
            ends,
            arrivals,
            store,
            capture,
            check,
            start,
        } = self;
        sim.take_arrivals(arrivals);
        for a in arrivals.drain(..) {
            let Some(to) = a.to else {
                // Dropped by the modeled network: the packet is gone.
                check.packets_dropped += 1;
                store.release(a.token);
                continue;
            };
            // The tap of the end the packet reached: flows' taps are in (sender, receiver) pairs.
            let k = 2 * a.flow as usize + usize::from(to == Side::Receiver);
            debug_assert_eq!(ends[k], (a.flow, to));
            let bytes = store.get_mut(a.token);
            if ecn::set_ip_ecn(bytes, a.ecn) && a.ecn == crate::net::packet::Ecn::Ce {
                check.ce_marked += 1;
            }
            let bytes = &*bytes;
            match clock::write(fds[k], bytes) {
                Ok(()) => {
                    check.packets_out += 1;
                    check.bytes_out += bytes.len() as u64;
                }
                Err(_) => check.write_errors += 1,
            }
            check
                .lateness
                .record(Instant::now().saturating_duration_since(due_at(*start, a.at)));
            if to == Side::Sender {
                if let Some(c) = capture.as_mut() {
                    c.packet(a.at, bytes);
                }
            }
            store.release(a.token);
        }
    }
}
