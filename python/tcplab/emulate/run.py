"""`emulate(scenario)`: one emulated run, from the scenario file to the tables."""

from __future__ import annotations

import json
import math
import os
import signal
import struct
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import polars as pl

from tcplab.emulate.kernel import EmulationError, KernelFlow, kernel_flows
from tcplab.emulate.netns import (
    Network,
    clean_stale,
    clean_stale_files,
    missing_requirements,
    sender_ip,
    temporary_folder,
)
from tcplab.simulation import flow_specs

#: Where `tcplab emulate --self-check` keeps the highest rate this machine held.
CAPACITY_FILE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tcplab" / "emulator.json"
#: Without a self-check: the rate above which a link is refused (--force runs it anyway).
DEFAULT_MAX_RATE_BPS = 1_000_000_000
#: A run whose packets were this late (99th percentile) or later is reported as fallen behind.
LATE_P99_S = 0.001


@dataclass
class EmulationResult:
    """What an emulated run reports: the tables of a simulated run (flows from the capture and
    TCP_INFO, links and totals from the modeled network), the self-check, and notes on every
    scenario field the kernel honours only approximately."""

    flows: pl.DataFrame
    links: pl.DataFrame
    totals: pl.DataFrame
    traffic: pl.DataFrame
    selfcheck: dict[str, Any]
    notes: list[str]
    warnings: list[str]
    duration_s: float
    warmup_s: float
    capture: str | None = None
    resolved: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        from tcplab.simulation import json_records

        return json.dumps(
            {
                "mode": "emulated",
                "duration_s": self.duration_s,
                "warmup_s": self.warmup_s,
                "flows": json_records(self.flows),
                "links": json_records(self.links),
                "traffic": json_records(self.traffic),
                "selfcheck": self.selfcheck,
                "notes": self.notes,
                "warnings": self.warnings,
                "capture": self.capture,
            },
            allow_nan=False,
            default=_json_default,
        )


def _json_default(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    raise TypeError(f"{type(v).__name__} is not JSON")


def _rates(value: Any, path: str) -> Iterator[tuple[str, float]]:
    """Every link rate in the resolved network: (field path, bit/s)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            p = f"{path}.{k}"
            if k.endswith("rate") and isinstance(v, (int, float)) and not isinstance(v, bool):
                yield p, float(v)
            else:
                yield from _rates(v, p)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _rates(v, f"{path}.{i}")


def machine_capacity() -> tuple[float, str]:
    """The highest link rate to emulate here, and where that figure comes from."""
    try:
        data = json.loads(CAPACITY_FILE.read_text())
        return float(
            data["max_rate_bps"]
        ), f"measured by tcplab emulate --self-check on {data.get('when', '?')}"
    except (OSError, ValueError, KeyError, TypeError):
        return float(
            DEFAULT_MAX_RATE_BPS
        ), "the default limit (run tcplab emulate --self-check to measure this machine's)"


def check_rates(resolved: dict[str, Any], force: bool) -> list[str]:
    """Refuses a link faster than this machine can emulate (a warning with `force`)."""
    limit, source = machine_capacity()
    out = []
    for where, rate in _rates(resolved.get("network") or {}, "network"):
        if rate > limit:
            msg = (
                f"{where}: {rate / 1e6:g} Mbit/s is above what the emulator can hold on this machine "
                f"({limit / 1e6:g} Mbit/s, {source})"
            )
            if not force:
                raise EmulationError(msg + "; lower it, or pass --force to run it anyway")
            out.append(msg + ": the run may fall behind (see the self-check)")
    return out


def first_packet_s(pcap: Path) -> float | None:
    """The first record's timestamp of a libpcap file (either time resolution; the emulator
    writes nanoseconds), or None for a file without records."""
    with open(pcap, "rb") as f:
        head = f.read(24 + 8)
    if len(head) < 32:
        return None
    magic = struct.unpack_from("<I", head)[0]
    sec, frac = struct.unpack_from("<II", head, 24)
    return sec + frac * (1e-9 if magic == 0xA1B23C4D else 1e-6)


def _flow_rows(
    resolved: dict, kflows: list[KernelFlow], ends, analysis, window: tuple[float, float]
) -> pl.DataFrame:
    from tcplab.emulate.endpoints import FlowEnds

    rows = []
    conns: dict[str, dict[str, Any]] = {}
    specs = flow_specs(resolved)
    if analysis is not None:
        for r in analysis.connections.iter_rows(named=True):
            ip = r["src"].rsplit(":", 1)[0]
            conns.setdefault(ip, r)
    fe: FlowEnds
    for kf, fe in zip(kflows, ends, strict=True):
        # The sink's samples: at warm-up (0 if none) and within 5 ms of the end.
        length = max((fe.sampled_end_s or window[1]) - (fe.sampled_warmup_s if window[0] > 0 else 0.0), 0.0)
        f = specs[kf.index]
        variant = f["tcp"] if isinstance(f["tcp"], str) else f["tcp"]["variant"]
        c = conns.get(sender_ip(kf.index), {})
        delivered = fe.received_at_end - fe.received_at_warmup
        i0, i1 = fe.info_warmup, fe.info_end

        def delta(key: str) -> int | None:
            return i1[key] - i0.get(key, 0) if key in i1 else None  # noqa: B023 -- called in this iteration only

        rows.append(
            {
                "flow": kf.index,
                "tcp": variant,
                "cc": kf.congestion_control,
                "mss_bytes": kf.mss,
                "goodput_bps": delivered * 8 / length if length > 0 else math.nan,
                "bytes_delivered": delivered,
                "completion_time_s": (fe.completed_s - fe.start_s) if fe.completed_s is not None else None,
                "segments_sent": c.get("segments_sent"),
                "segments_retransmitted": c.get("segments_retransmitted"),
                "fast_retransmits": c.get("fast_retransmits"),
                "timeouts": c.get("timeouts"),
                "ca_events": c.get("ca_events"),
                "non_ca_events": c.get("non_ca_events"),
                "other_losses": c.get("other_losses"),
                "loss_events": c.get("loss_events"),
                "p": c.get("p"),
                "loss_event_rate": c.get("loss_event_rate"),
                "mean_rtt_s": c.get("mean_rtt_s"),
                "mean_window_bytes": c.get("mean_flight_bytes"),
                "kernel_retrans": delta("total_retrans"),
                "kernel_rto_events": delta("total_rto"),
                "kernel_rtt_s": i1["rtt_us"] * 1e-6 if "rtt_us" in i1 else None,
                "kernel_min_rtt_s": i1["min_rtt_us"] * 1e-6 if "min_rtt_us" in i1 else None,
                "kernel_cwnd": i1.get("snd_cwnd"),
                "kernel_ssthresh": i1.get("snd_ssthresh"),
                "kernel_rto_s": i1["rto_us"] * 1e-6 if "rto_us" in i1 else None,
                "error": fe.error,
            }
        )
    return pl.DataFrame(rows, infer_schema_length=None)


def emulate(
    scenario: str | Path | Mapping[str, Any],
    sets: Mapping[str, Any] | None = None,
    *,
    capture: str | Path | None = None,
    spin_us: float = 20.0,
    realtime: bool = True,
    force: bool = False,
    tcp_ecn: int | None = None,
) -> EmulationResult:
    """Runs `scenario` with real kernel TCP through its modeled network (needs root and
    /dev/net/tun). `capture`: keep the capture at the senders there (else a temporary one is
    analyzed and removed). `tcp_ecn`: net.ipv4.tcp_ecn in every flow's namespaces (0, 1 or 2)
    instead of what the flows' `ecn` maps to. Raises EmulationError (or ScenarioError) naming
    what is wrong."""
    from tcplab import _core
    from tcplab.capture import analyze
    from tcplab.emulate.endpoints import Endpoints, wait_for
    from tcplab.simulation import override_pairs, resolve, scenario_document

    resolved = resolve(scenario, sets)
    kflows = kernel_flows(resolved, tcp_ecn=tcp_ecn)
    warnings = check_rates(resolved, force)
    missing = missing_requirements()
    if missing:
        raise EmulationError(missing)
    text, fmt = scenario_document(scenario)
    emu = _core.Emulator(text, fmt, override_pairs(sets, {}))
    duration, warmup = float(resolved["duration"]), float(resolved["warmup"])
    notes = [n for kf in kflows for n in kf.notes]
    removed = clean_stale()
    if removed:
        warnings.append(f"removed {len(removed)} namespace(s) left by an earlier run that was killed")
    files = clean_stale_files()
    if files:
        warnings.append(f"removed {len(files)} temporary folder(s) left by an earlier run that was killed")
    tmpdir = None
    if capture is None:
        tmpdir = temporary_folder()
        pcap = Path(tmpdir.name) / "senders.pcap"
    else:
        pcap = Path(capture)
    box: dict[str, Any] = {}

    def network() -> None:
        try:
            box["out"] = emu.run(
                [(e.sender_fd, e.receiver_fd) for e in net.ends],
                pcap=str(pcap),
                spin_us=spin_us,
                realtime=realtime,
            )
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            box["error"] = e

    previous = signal.getsignal(signal.SIGTERM)

    def terminate(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminate)
    try:
        with Network(kflows) as net:
            runner = threading.Thread(target=network, name="tcplab-emulator", daemon=True)
            runner.start()
            endpoints = None
            try:
                wait_for(emu.clock)
                # the clock reads a time (not None) once wait_for has returned
                clock = cast(Callable[[], float], emu.clock)
                endpoints = Endpoints(
                    kflows, net.ends, list(emu.flow_starts), warmup, duration, clock, realtime=realtime
                )
                endpoints.start()
                while runner.is_alive():
                    runner.join(timeout=0.1)
            except BaseException:
                emu.stop()
                runner.join(timeout=5.0)
                raise
            finally:
                if endpoints is not None:
                    endpoints.stop()
            drops = net.device_drops()
        if "error" in box:
            raise box["error"]
        tables, check = box["out"]
        frames = {name: pl.DataFrame(t) for name, t in tables.items()}
        check = dict(check)
        check["kernel_tx_dropped"] = drops["tx_dropped"]
        check["kernel_rx_dropped"] = drops["rx_dropped"]
        # The endpoints' threads that got SCHED_FIFO (with `realtime`; 0 without).
        check["endpoints_realtime"] = endpoints.realtime_granted
        check["endpoints_normal"] = 2 * len(kflows) - endpoints.realtime_granted
        first = first_packet_s(pcap) if pcap.exists() else None
        analysis = None
        if first is not None:
            start = max(warmup - first, 0.0)
            end = duration - first
            analysis = analyze(pcap, start=start, end=end) if end > start else None
        flows = _flow_rows(resolved, kflows, endpoints.flows, analysis, (warmup, duration))
        warnings += _selfcheck_warnings(check)
        for fe in endpoints.flows:
            if fe.error:
                warnings.append(f"flows[{fe.kf.index}]: {fe.error}")
        return EmulationResult(
            flows=flows,
            links=frames["links"],
            totals=frames["totals"],
            traffic=frames["traffic"],
            selfcheck=check,
            notes=notes,
            warnings=warnings,
            duration_s=duration,
            warmup_s=warmup,
            capture=str(pcap) if capture is not None else None,
            resolved=resolved,
        )
    finally:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous)
        if tmpdir is not None:
            tmpdir.cleanup()


def _selfcheck_warnings(c: dict[str, Any]) -> list[str]:
    out = []
    late = c["lateness"]
    if late["count"] and late["p99_s"] > LATE_P99_S:
        out.append(
            f"the emulator fell behind: 1% of packets were written more than {late['p99_s'] * 1e3:.2f} ms "
            f"late (max {late['max_s'] * 1e3:.2f} ms); the machine is loaded or the rate too high"
        )
    lost = c["kernel_tx_dropped"] + c["kernel_rx_dropped"] + c["write_errors"]
    if lost:
        out.append(
            f"{lost} packets were dropped outside the model (the TUN devices' queues or refused writes): "
            "losses the scenario did not configure"
        )
    if c["capture_truncated"]:
        out.append("the capture reached its packet limit: the per-flow instruments cover only its start")
    return out
