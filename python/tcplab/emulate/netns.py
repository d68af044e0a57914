"""The emulation's piece of the machine: for each flow a network namespace for its sender and
one for its receiver, each holding one TUN device whose other side is a descriptor of this
process (the emulator reads and writes the IP packets there), addresses of the run's own, and
the flow's sysctls and routes.

Everything is named ``tcplab-<pid>-...`` and removed on exit, on Ctrl-C and on SIGTERM; a run
that was killed (SIGKILL, a crash) leaves namespaces whose pid is gone, and the next run
removes them first (`clean_stale`), with the temporary folder of its capture
(`clean_stale_files`). Deleting a namespace deletes what is in it: the sysctls and routes set
there, and the TUN device (which the kernel already removed when the killed process's
descriptor closed: the devices are not persistent).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tcplab.emulate.kernel import EmulationError, KernelFlow

PREFIX = "tcplab-"
_NETNS_DIR = Path("/var/run/netns")
_TUNSETIFF = 0x400454CA
_IFF_TUN = 0x0001
_IFF_NO_PI = 0x1000
_CLONE_NEWNET = 0x40000000


def sender_ip(flow: int) -> str:
    """The sender's address: 10.0.0.0 + flow + 1, as in the simulator's own captures."""
    n = 0x0A000000 + flow + 1
    return ".".join(str((n >> s) & 255) for s in (24, 16, 8, 0))


def receiver_ip(flow: int) -> str:
    n = 0x0A800000 + flow + 1
    return ".".join(str((n >> s) & 255) for s in (24, 16, 8, 0))


#: The receiver's port (the simulator's captures use the same).
RECEIVER_PORT = 5001


def missing_requirements() -> str | None:
    """None if this process can emulate here, else one line saying what is missing."""
    if os.geteuid() != 0:
        return "emulation needs root (it creates network namespaces and TUN devices); run it as root"
    if not os.path.exists("/dev/net/tun"):
        return "emulation needs /dev/net/tun (the tun module); this machine has none"
    if shutil.which("ip") is None:
        return "emulation needs the ip command (iproute2); install it (Debian: apt-get install iproute2)"
    return None


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise EmulationError(f"ip {' '.join(args)}: {r.stderr.strip() or 'failed'}")
    return r


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _namespaces() -> list[str]:
    r = _ip("netns", "list", check=False)
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def clean_stale() -> list[str]:
    """Removes the namespaces of tcplab runs whose process is gone; returns their names."""
    removed = []
    for name in _namespaces():
        m = re.fullmatch(rf"{PREFIX}(\d+)-.*", name)
        if m and not pid_alive(int(m.group(1))):
            _ip("netns", "del", name, check=False)
            removed.append(name)
    return removed


#: The temporary folder of a run's capture: `tcplab-emulate-<pid>-<random>` in the temp folder.
TMP_PREFIX = f"{PREFIX}emulate-"


def temporary_folder() -> tempfile.TemporaryDirectory:
    """The run's temporary folder (its capture when none was asked for), named by its pid."""
    return tempfile.TemporaryDirectory(prefix=f"{TMP_PREFIX}{os.getpid()}-")


def clean_stale_files() -> list[Path]:
    """Removes the temporary folders of tcplab runs whose process is gone; returns them."""
    removed = []
    for d in Path(tempfile.gettempdir()).glob(f"{TMP_PREFIX}*"):
        m = re.fullmatch(rf"{TMP_PREFIX}(\d+)-.*", d.name)
        if m and d.is_dir() and not pid_alive(int(m.group(1))):
            shutil.rmtree(d, ignore_errors=True)
            removed.append(d)
    return removed


def _tun(name: str) -> int:
    """A TUN device (IP packets, no packet-information header) and this process's descriptor."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_CLOEXEC)
    try:
        fcntl.ioctl(fd, _TUNSETIFF, struct.pack("16sH", name.encode(), _IFF_TUN | _IFF_NO_PI))
    except OSError as e:
        os.close(fd)
        raise EmulationError(f"cannot create the TUN device {name}: {e.strerror}") from None
    return fd


_libc = ctypes.CDLL(None, use_errno=True)


class InNamespace:
    """`with InNamespace(name):` the calling thread is in network namespace `name` (sockets
    created inside stay there), and back in its own afterwards."""

    def __init__(self, name: str):
        self.name = name

    def __enter__(self):
        self._home = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        fd = os.open(_NETNS_DIR / self.name, os.O_RDONLY | os.O_CLOEXEC)
        try:
            if _libc.setns(fd, _CLONE_NEWNET) != 0:
                err = ctypes.get_errno()
                raise EmulationError(f"cannot enter network namespace {self.name}: {os.strerror(err)}")
        finally:
            os.close(fd)
        return self

    def __exit__(self, *exc):
        try:
            if _libc.setns(self._home, _CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "cannot return to the original network namespace")
        finally:
            os.close(self._home)


@dataclass
class Ends:
    """A flow's two namespaces and the descriptors of their TUN devices."""

    sender_ns: str
    receiver_ns: str
    sender_fd: int
    receiver_fd: int
    sender_dev: str
    receiver_dev: str


class Network:
    """The namespaces and devices of one emulation (a context manager: everything goes away
    when it exits, however it exits)."""

    def __init__(self, flows: list[KernelFlow]):
        self.flows = flows
        self.pid = os.getpid()
        self.ends: list[Ends] = []
        self._created: list[str] = []
        self._fds: list[int] = []

    def __enter__(self) -> Network:
        try:
            for kf in self.flows:
                self.ends.append(self._flow(kf))
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _namespace(self, name: str, kf: KernelFlow) -> None:
        _ip("netns", "add", name)
        self._created.append(name)
        _ip("-n", name, "link", "set", "lo", "up")
        with InNamespace(name):
            for key, value in kf.sysctls.items():
                path = Path("/proc/sys") / key.replace(".", "/")
                try:
                    path.write_text(value)
                except OSError as e:
                    why = f" ({kf.ecn_source})" if key == "net.ipv4.tcp_ecn" else ""
                    raise EmulationError(
                        f"cannot set {key} = {value} in the flow's namespace{why}: {e.strerror}"
                        + ("; this kernel has no AccECN" if why and value == "3" else "")
                    ) from None

    def _device(self, name: str, ns: str, kf: KernelFlow, address: str, peer: str, route: list[str]) -> int:
        fd = _tun(name)
        self._fds.append(fd)
        _ip("link", "set", name, "netns", ns)
        _ip("-n", ns, "link", "set", name, "mtu", str(kf.mtu), "txqueuelen", "10000", "up")
        _ip("-n", ns, "addr", "add", f"{address}/32", "dev", name)
        _ip("-n", ns, "route", "add", f"{peer}/32", "dev", name, *route)
        return fd

    def _flow(self, kf: KernelFlow) -> Ends:
        i = kf.index
        s_ns, r_ns = f"{PREFIX}{self.pid}-{i}s", f"{PREFIX}{self.pid}-{i}r"
        # Device names: at most 15 bytes (IFNAMSIZ); the namespace keeps them apart anyway.
        s_dev, r_dev = f"tls{i}", f"tlr{i}"
        for ns in (s_ns, r_ns):
            self._namespace(ns, kf)
        s_fd = self._device(s_dev, s_ns, kf, sender_ip(i), receiver_ip(i), kf.sender_route)
        r_fd = self._device(r_dev, r_ns, kf, receiver_ip(i), sender_ip(i), kf.receiver_route)
        return Ends(s_ns, r_ns, s_fd, r_fd, s_dev, r_dev)

    def device_drops(self) -> dict[str, int]:
        """Packets the kernel dropped at the TUN devices (their queues toward this process
        overflowing, or packets it refused): losses the modeled network did not make."""
        total = {"tx_dropped": 0, "rx_dropped": 0}
        for e in self.ends:
            for ns, dev in ((e.sender_ns, e.sender_dev), (e.receiver_ns, e.receiver_dev)):
                r = _ip("-j", "-s", "-n", ns, "link", "show", "dev", dev, check=False)
                try:
                    stats = json.loads(r.stdout)[0]["stats64"]
                except (ValueError, LookupError, TypeError):
                    continue
                total["tx_dropped"] += int(stats["tx"].get("dropped", 0))
                total["rx_dropped"] += int(stats["rx"].get("dropped", 0))
        return total

    def close(self) -> None:
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()
        for name in reversed(self._created):
            _ip("netns", "del", name, check=False)
        self._created.clear()
