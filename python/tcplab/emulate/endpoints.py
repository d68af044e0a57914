"""The real endpoints of an emulation: per flow, a bulk sender and a sink over ordinary sockets
in the flow's namespaces (no external traffic tool), timed by the emulator's clock: the sender
connects at the flow's start and sends until the run's end (or its `bytes`), the sink counts
what arrives; at warm-up and at the end each side is sampled (bytes received, the sender's
TCP_INFO), which gives the measurement window the simulator uses.

With `realtime`, the sender and sink threads ask for SCHED_FIFO at `ENDPOINT_PRIORITY`, below
the emulator loop's (`clock::set_realtime`, 10): a dedicated host's application runs as soon as
the kernel wakes it, while on a loaded machine a thread of normal priority waits for a
scheduler tick or more. A late sink is no network's doing, but the kernel's receiver answers
it with stretch ACKs (docs/emulation.md, "The endpoints' scheduling").
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tcplab.emulate.kernel import EmulationError, KernelFlow
from tcplab.emulate.netns import RECEIVER_PORT, Ends, InNamespace, receiver_ip, sender_ip

_TCP_INFO = getattr(socket, "TCP_INFO", 11)
_TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)
_TCP_WINDOW_CLAMP = getattr(socket, "TCP_WINDOW_CLAMP", 10)

#: SCHED_FIFO priority of the endpoints' threads with `realtime` (the emulator loop has 10).
ENDPOINT_PRIORITY = 5


def set_realtime_thread(priority: int = ENDPOINT_PRIORITY) -> bool:
    """SCHED_FIFO for the calling thread (Linux applies it to the thread alone); False if refused."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    except (OSError, AttributeError):
        return False
    return True


#: struct tcp_info (include/uapi/linux/tcp.h): (name, offset, format), the fields reported.
_INFO_FIELDS = (
    ("ca_state", 1, "B"),
    ("rto_us", 8, "I"),
    ("snd_mss", 16, "I"),
    ("lost", 32, "I"),
    ("rtt_us", 68, "I"),
    ("rttvar_us", 72, "I"),
    ("snd_ssthresh", 76, "I"),
    ("snd_cwnd", 80, "I"),
    ("total_retrans", 100, "I"),
    ("bytes_acked", 120, "Q"),
    ("segs_out", 136, "I"),
    ("min_rtt_us", 148, "I"),
    ("data_segs_out", 156, "I"),
    ("delivery_rate", 160, "Q"),
    ("bytes_sent", 200, "Q"),
    ("bytes_retrans", 208, "Q"),
    ("dsack_dups", 216, "I"),
    ("total_rto", 240, "H"),
    ("total_rto_recoveries", 242, "H"),
)


def tcp_info(sock: socket.socket) -> dict[str, int]:
    """The sender's TCP_INFO fields this kernel reports (older kernels give fewer)."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, _TCP_INFO, 256)
    out = {}
    for name, off, fmt in _INFO_FIELDS:
        size = struct.calcsize(fmt)
        if off + size <= len(raw):
            out[name] = struct.unpack_from("=" + fmt, raw, off)[0]
    return out


@dataclass
class FlowEnds:
    """One flow's sockets and what they measured."""

    kf: KernelFlow
    ends: Ends
    start_s: float
    received: int = 0
    received_at_warmup: int = 0
    received_at_end: int = 0
    #: The emulated times of those two samples (the window the goodput is over).
    sampled_warmup_s: float = 0.0
    sampled_end_s: float | None = None
    #: Emulated time the sink saw the last byte of a finite transfer.
    completed_s: float | None = None
    info_warmup: dict[str, int] = field(default_factory=dict)
    info_end: dict[str, int] = field(default_factory=dict)
    sent: int = 0
    error: str | None = None
    sender: socket.socket | None = None
    listener: socket.socket | None = None


class Endpoints:
    """Every flow's sender and sink, as threads timed by `clock` (emulated seconds)."""

    def __init__(
        self,
        flows: list[KernelFlow],
        ends: list[Ends],
        starts: list[float],
        warmup: float,
        duration: float,
        clock: Callable[[], float],
        realtime: bool = False,
    ):
        self.flows = [FlowEnds(kf, e, s) for kf, e, s in zip(flows, ends, starts, strict=True)]
        self.realtime = realtime
        #: Endpoint threads that asked for SCHED_FIFO and got it, and those refused.
        self.realtime_granted = 0
        self.realtime_refused = 0
        self._count = threading.Lock()
        self.warmup = warmup
        self.duration = duration
        self.clock = clock
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def _sleep_until(self, t: float) -> bool:
        """Sleeps until emulated time t; False if stopped first."""
        while not self._stop.is_set():
            left = t - self.clock()
            if left <= 0:
                return True
            self._stop.wait(min(left, 0.05))
        return False

    def start(self) -> None:
        for fe in self.flows:
            with InNamespace(fe.ends.receiver_ns):
                ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                ls.setsockopt(socket.IPPROTO_TCP, _TCP_WINDOW_CLAMP, min(fe.kf.rwnd, 2**31 - 1))
                ls.bind((receiver_ip(fe.kf.index), RECEIVER_PORT))
                ls.listen(1)
                ls.settimeout(0.1)
            fe.listener = ls
            with InNamespace(fe.ends.sender_ns):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                try:
                    s.setsockopt(socket.IPPROTO_TCP, _TCP_CONGESTION, fe.kf.congestion_control.encode())
                except OSError as e:
                    s.close()
                    raise EmulationError(
                        f"flows[{fe.kf.index}].cc: the kernel refused "
                        f"{fe.kf.congestion_control!r} ({e.strerror})"
                    ) from None
                s.bind((sender_ip(fe.kf.index), 0))
            fe.sender = s
        for fe in self.flows:
            for target in (self._sink, self._send):
                t = threading.Thread(
                    target=target,
                    args=(fe,),
                    daemon=True,
                    name=f"tcplab-emulate-{target.__name__}-{fe.kf.index}",
                )
                t.start()
                self._threads.append(t)
        sampler = threading.Thread(target=self._sample, daemon=True, name="tcplab-emulate-sampler")
        sampler.start()
        self._threads.append(sampler)

    def apply_scheduling(self) -> None:
        """The calling endpoint thread's priority (`realtime`), counted."""
        if self.realtime:
            granted = set_realtime_thread()
            with self._count:
                if granted:
                    self.realtime_granted += 1
                else:
                    self.realtime_refused += 1

    def _sink(self, fe: FlowEnds) -> None:
        self.apply_scheduling()
        listener = fe.listener
        assert listener is not None  # made in start()
        conn = None
        try:
            while conn is None and not self._stop.is_set():
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    continue
            if conn is None:
                return
            conn.settimeout(0.1)
            buf = bytearray(1 << 18)
            while not self._stop.is_set():
                try:
                    n = conn.recv_into(buf)
                except TimeoutError:
                    continue
                if n == 0:
                    fe.completed_s = self.clock()
                    return
                fe.received += n
        except OSError as e:
            if not self._stop.is_set():
                fe.error = f"sink: {e}"
        finally:
            if conn is not None:
                conn.close()

    def _send(self, fe: FlowEnds) -> None:
        self.apply_scheduling()
        s = fe.sender
        assert s is not None  # made in start()
        if not self._sleep_until(fe.start_s):
            return
        try:
            s.settimeout(max(1.0, self.duration))
            s.connect((receiver_ip(fe.kf.index), RECEIVER_PORT))
            s.settimeout(0.1)
            block = memoryview(bytes(1 << 18))
            left = fe.kf.size
            while not self._stop.is_set() and (left is None or left > 0):
                chunk = block if left is None or left >= len(block) else block[:left]
                try:
                    n = s.send(chunk)
                except TimeoutError:
                    continue
                fe.sent += n
                if left is not None:
                    left -= n
            if left == 0:
                s.shutdown(socket.SHUT_WR)
        except OSError as e:
            if not self._stop.is_set():
                fe.error = f"sender: {e}"

    def _snapshot(self, attr_bytes: str, attr_info: str, attr_time: str) -> None:
        now = self.clock()
        for fe in self.flows:
            setattr(fe, attr_bytes, fe.received)
            setattr(fe, attr_time, now)
            with contextlib.suppress(OSError):
                assert fe.sender is not None  # made in start()
                setattr(fe, attr_info, tcp_info(fe.sender))

    def _sample(self) -> None:
        if self.warmup > 0 and self._sleep_until(self.warmup):
            self._snapshot("received_at_warmup", "info_warmup", "sampled_warmup_s")
        if self._sleep_until(self.duration - 0.005):
            self._snapshot("received_at_end", "info_end", "sampled_end_s")

    def stop(self) -> None:
        """Takes the final sample if the run ended early, stops every thread, closes the sockets."""
        if self.flows and self.flows[0].sampled_end_s is None:
            self._snapshot("received_at_end", "info_end", "sampled_end_s")
        self._stop.set()
        for t in self._threads:
            t.join(timeout=2.0)
        for fe in self.flows:
            for s in (fe.sender, fe.listener):
                if s is not None:
                    s.close()


def wait_for(clock: Callable[[], float | None], timeout: float = 5.0) -> None:
    """Waits until the emulator's clock runs."""
    deadline = time.monotonic() + timeout
    while clock() is None:
        if time.monotonic() > deadline:
            raise EmulationError("the emulator did not start within 5 s")
        time.sleep(0.001)
