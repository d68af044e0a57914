//! The emulator's contact with the operating system: waiting on the taps with a precise
//! timeout, non-blocking reads and writes, the scheduling that keeps timers accurate, and the
//! record of how late things happened.

use std::io;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

/// Asks for SCHED_FIFO (priority 10) for the calling thread; false if refused (not root).
pub fn set_realtime() -> bool {
    let param = libc::sched_param { sched_priority: 10 };
    // SAFETY: a plain system call on the calling thread with a valid parameter block.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

/// Timer slack of 1 ns for the calling thread (the default, 50 us, would be the floor of every
/// sleep's error).
pub fn set_timer_slack() {
    // SAFETY: prctl with an integer argument; failure leaves the default slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
    }
}

pub fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller owns; errors are returned, not assumed away.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// One descriptor to wait on.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Poll(libc::pollfd);

impl Poll {
    pub fn new(fd: RawFd) -> Poll {
        Poll(libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
    }

    pub fn fd(&self) -> RawFd {
        self.0.fd
    }

    /// The last wait found it readable (or failed: the read then reports the error).
    pub fn readable(&self) -> bool {
        self.0.revents & (libc::POLLIN | libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0
    }
}

/// The longest single sleep: the loop wakes at least this often (to notice a stop request).
const MAX_SLEEP: Duration = Duration::from_millis(20);

/// How much busy-polling the loop may do: spinning stops once the loop's work and spinning
/// together have used 40% of the current 100 ms. A SCHED_FIFO thread that never sleeps is
/// throttled by the kernel (sched_rt_runtime_us: the last 50 ms of every second, by default),
/// which would stall the emulation for tens of milliseconds; past the budget the loop sleeps
/// until each event instead (a few microseconds less precise).
#[derive(Debug)]
pub struct SpinBudget {
    window_start: Instant,
    used: Duration,
}

impl SpinBudget {
    const WINDOW: Duration = Duration::from_millis(100);
    const MAX: Duration = Duration::from_millis(40);

    pub fn new() -> Self {
        SpinBudget {
            window_start: Instant::now(),
            used: Duration::ZERO,
        }
    }

    /// The loop worked for `d` (processing events and packets).
    pub fn worked(&mut self, d: Duration) {
        self.used += d;
    }

    fn allowed(&mut self, now: Instant) -> bool {
        if now.saturating_duration_since(self.window_start) > Self::WINDOW {
            self.window_start = now;
            self.used = Duration::ZERO;
        }
        self.used < Self::MAX
    }
}

/// Waits until a descriptor is readable (true) or `deadline` passes (false): sleeps in `ppoll`
/// until `spin` before the deadline, then polls without sleeping (within `budget`). The error
/// of each sleep that was meant to end before the deadline is recorded in `wakeup`.
pub fn wait(
    polls: &mut [Poll],
    deadline: Instant,
    spin: Duration,
    budget: &mut SpinBudget,
    wakeup: &mut Lateness,
) -> bool {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        let spin = if budget.allowed(now) { spin } else { Duration::ZERO };
        let sleep = (deadline - now).saturating_sub(spin).min(MAX_SLEEP);
        let ts = libc::timespec {
            tv_sec: sleep.as_secs() as libc::time_t,
            tv_nsec: sleep.subsec_nanos() as libc::c_long,
        };
        // SAFETY: `polls` is a valid array of pollfd for its length (Poll is
        // repr(transparent) over pollfd); no signal mask.
        let n = unsafe {
            libc::ppoll(
                polls.as_mut_ptr() as *mut libc::pollfd,
                polls.len() as libc::nfds_t,
                &ts,
                std::ptr::null(),
            )
        };
        if sleep.is_zero() {
            budget.used += now.elapsed();
        }
        if n > 0 {
            return true;
        }
        if n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            // A failed wait is as good as a timeout: the next pass waits again.
            return false;
        }
        if !sleep.is_zero() {
            wakeup.record(Instant::now().saturating_duration_since(now + sleep));
        }
    }
}

/// Reads one packet: Some(length), or None when the tap has nothing more.
pub fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    loop {
        // SAFETY: reading at most buf.len() bytes into buf.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr() as *mut libc::c_void, buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock => return Ok(None),
            io::ErrorKind::Interrupted => continue,
            _ => return Err(e),
        }
    }
}

/// Writes one packet whole.
pub fn write(fd: RawFd, bytes: &[u8]) -> io::Result<()> {
    loop {
        // SAFETY: writing bytes.len() bytes from bytes.
        let n = unsafe { libc::write(fd, bytes.as_ptr() as *const libc::c_void, bytes.len()) };
        if n == bytes.len() as isize {
            return Ok(());
        }
        if n >= 0 {
            return Err(io::Error::other("short write"));
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// A distribution of delays (nanoseconds, kept exactly up to 10 million samples, in chunks so
/// that recording one never copies the others).
#[derive(Clone, Debug, Default)]
pub struct Lateness {
    samples: Vec<Vec<u32>>,
    kept: usize,
    count: u64,
    sum_ns: u128,
    max_ns: u64,
}

impl Lateness {
    const KEEP: usize = 10_000_000;
    const CHUNK: usize = 1 << 16;

    pub fn record(&mut self, d: Duration) {
        let ns = d.as_nanos().min(u64::MAX as u128) as u64;
        self.count += 1;
        self.sum_ns += ns as u128;
        self.max_ns = self.max_ns.max(ns);
        if self.kept < Self::KEEP {
            if self.samples.last().is_none_or(|c| c.len() == c.capacity()) {
                self.samples.push(Vec::with_capacity(Self::CHUNK));
            }
            let chunk = self.samples.last_mut().expect("a chunk");
            chunk.push(ns.min(u32::MAX as u64) as u32);
            self.kept += 1;
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean_s(&self) -> f64 {
        if self.count == 0 {
            return f64::NAN;
        }
        self.sum_ns as f64 / self.count as f64 * 1e-9
    }

    pub fn max_s(&self) -> f64 {
        if self.count == 0 {
            return f64::NAN;
        }
        self.max_ns as f64 * 1e-9
    }

    /// The `q` quantiles (0..=1) of the kept samples, in seconds (NaN without samples).
    pub fn quantiles_s(&self, qs: &[f64]) -> Vec<f64> {
        let mut v = self.samples.concat();
        v.sort_unstable();
        qs.iter()
            .map(|&q| {
                if v.is_empty() {
                    return f64::NAN;
                }
                let i = ((v.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
                v[i] as f64 * 1e-9
            })
            .collect()
    }

    /// The fraction of samples later than `d`.
    pub fn fraction_over(&self, d: Duration) -> f64 {
        if self.kept == 0 {
            return f64::NAN;
        }
        let ns = d.as_nanos().min(u32::MAX as u128) as u32;
        let over: usize = self
            .samples
            .iter()
            .map(|c| c.iter().filter(|&&s| s > ns).count())
            .sum();
        over as f64 / self.kept as f64
    }
}
