"""What a flow of a scenario asks of the kernel's TCP: the congestion-control module, the
per-namespace sysctls, the route metrics and socket options that carry its fields, the fields
the kernel can honour only approximately (each becomes a note in the report), and the ones it
cannot honour at all (an error naming the field).

Sources: Linux's ip-sysctl documentation (net.ipv4.tcp_*), ip-route(8) metrics (initcwnd,
rto_min, ssthresh, quickack), tcp(7) socket options (TCP_CONGESTION, TCP_WINDOW_CLAMP).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tcplab.simulation import flow_specs, table_count


class EmulationError(ValueError):
    """A scenario, an option or a machine that cannot be emulated: the message names it."""


#: Variants whose loss recovery the kernel's TCP does (Linux recovers as NewReno without SACK,
#: RFC 6675-like with SACK: `tcp = "reno"` runs as the kernel's, with a note).
_VARIANTS = {"reno", "newreno", "sack"}
#: The scenario's `cc` algorithms and the kernel's module for each.
_CC = {"aimd": "reno", "reno": "reno", "cubic": "cubic", "bbr": "bbr"}
#: A flow's `ecn` and the kernel's net.ipv4.tcp_ecn for it (ip-sysctl: 1 requests ECN on
#: outgoing connections and accepts it on incoming ones; 3 does so with AccECN, RFC 9768).
_TCP_ECN = {"off": "0", "classic": "1", "accecn": "3"}
#: The fixed values of Linux that a scenario field may name only if it asks for the same.
_LINUX_INITIAL_RTO_S = 1.0
_LINUX_MAX_RTO_S = 120.0


@dataclass
class KernelFlow:
    """One flow as the kernel runs it."""

    index: int
    congestion_control: str
    mss: int
    #: The TUN devices' MTU: the MSS plus the IP and TCP headers and the options every data
    #: segment carries (timestamps), so each segment carries exactly `mss` payload bytes.
    mtu: int
    #: net.ipv4.* sysctls of both namespaces.
    sysctls: dict[str, str]
    #: Route metrics of the sender's route to the receiver (ip-route(8)).
    sender_route: list[str]
    #: Route metrics of the receiver's route to the sender.
    receiver_route: list[str]
    #: The receiver's window bound (TCP_WINDOW_CLAMP), bytes.
    rwnd: int
    #: Bytes to send (None: a bulk transfer for the whole run).
    size: int | None
    notes: list[str] = field(default_factory=list)
    #: Where net.ipv4.tcp_ecn came from, for an error when the kernel refuses it.
    ecn_source: str = ""


def _name(value: Any, key: str) -> tuple[str | None, dict]:
    """A field that is a name or a table with the name under `key`: (name, table)."""
    if value is None:
        return None, {}
    if isinstance(value, str):
        return value, {}
    return value.get(key), value


def available_congestion_control() -> set[str]:
    try:
        text = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text()
    except OSError:
        return set()
    return set(text.split())


def kernel_flow(
    i: int, f: dict[str, Any], available: set[str] | None = None, tcp_ecn: int | None = None
) -> KernelFlow:
    """The kernel settings of resolved flow `f` (flows[i]), or an EmulationError naming the
    first field the kernel cannot honour. `tcp_ecn`: net.ipv4.tcp_ecn for the flow's
    namespaces instead of the one its `ecn` field maps to."""
    where = f"flows[{i}]"
    notes: list[str] = []
    if f.get("profile") == "ns2":
        raise EmulationError(
            f'{where}.profile: "ns2" cannot be emulated (it is ns-2\'s simulated agents); '
            'expected no profile or profile = "linux"'
        )
    variant, tcp = _name(f.get("tcp"), "variant")
    variant = variant or "reno"
    if variant not in _VARIANTS:
        raise EmulationError(
            f"{where}.tcp: {variant!r} cannot be emulated: the kernel's TCP recovers as "
            "NewReno or with SACK (expected one of reno, newreno, sack)"
        )
    if variant == "reno":
        notes.append(
            f"{where}.tcp = \"reno\": the kernel's loss recovery is NewReno's (RFC 6582), not Reno's"
        )
    algorithm, cc = _name(f.get("cc"), "algorithm")
    algorithm = algorithm or "aimd"
    if algorithm not in _CC:
        raise EmulationError(
            f"{where}.cc: {algorithm!r} cannot be emulated (expected one of "
            f"{', '.join(sorted(_CC))}: the kernel's reno, cubic and bbr modules)"
        )
    module = _CC[algorithm]
    if available is not None and module not in available:
        raise EmulationError(
            f"{where}.cc: the kernel has no {module!r} congestion control (available: "
            f"{', '.join(sorted(available)) or 'none'}; modprobe tcp_{module} may add it)"
        )
    ack = f.get("ack") or "delayed"
    if ack in ("bsd43", "every"):
        raise EmulationError(
            f"{where}.ack: {ack!r} cannot be emulated (the kernel's receiver ACKs as Linux "
            "does; expected delayed, linux or immediate)"
        )
    timestamps = bool(f.get("timestamps"))
    real_header = 40 + (12 if timestamps else 0)
    if f.get("header_bytes") not in (None, real_header):
        raise EmulationError(
            f"{where}.header_bytes: {f['header_bytes']} is not the kernel's header "
            f"({real_header} bytes: IP and TCP{' with timestamps' if timestamps else ''}); "
            "leave it out to emulate"
        )
    for key, default in (
        ("clock_tick", None),
        ("rto_estimator", None),
        ("partial_ack", None),
        ("ack_every", None),
    ):
        if f.get(key) != default:
            raise EmulationError(
                f"{where}.{key}: {f.get(key)!r} is simulated only (the kernel has no such "
                "setting); leave it out to emulate"
            )
    if f.get("backoff") is False:
        raise EmulationError(
            f"{where}.backoff: false is simulated only (the kernel always backs off its retransmission timer)"
        )
    ecn = f.get("ecn") or "off"
    if ecn not in _TCP_ECN:
        raise EmulationError(f"{where}.ecn: {ecn!r} (expected one of {', '.join(_TCP_ECN)})")
    receiver = f.get("ecn_receiver", True)
    if ecn != "off" and receiver is False:
        raise EmulationError(
            f"{where}.ecn_receiver: false with ecn = {ecn!r} is simulated only (both of a flow's "
            "namespaces get the same net.ipv4.tcp_ecn)"
        )
    order = list(_TCP_ECN)
    if ecn != "off" and isinstance(receiver, str) and order.index(receiver) < order.index(ecn):
        # A receiver that supports less than the sender asks for: one sysctl cannot give the
        # two ends different settings (one that supports more agrees to what is asked).
        raise EmulationError(
            f"{where}.ecn_receiver: {receiver!r} with ecn = {ecn!r} is simulated only (both of a "
            "flow's namespaces get the same net.ipv4.tcp_ecn)"
        )
    if tcp_ecn is None:
        # `ecn = "off"` with a receiver that accepts ECN (the default) is Linux's own default,
        # tcp_ecn = 2: no ECN requested, ECN accepted when asked.
        sysctl = "2" if ecn == "off" and receiver not in (False, "off") else _TCP_ECN[ecn]
        ecn_sysctl, ecn_source = sysctl, f'{where}.ecn = "{ecn}"'
    else:
        ecn_sysctl, ecn_source = str(tcp_ecn), f"--tcp-ecn {tcp_ecn}"
    sack = bool(f.get("sack")) or variant == "sack"
    mss = int(f["mss"])
    sysctls = {
        "net.ipv4.tcp_sack": "1" if sack else "0",
        "net.ipv4.tcp_dsack": "1" if f.get("dsack") else "0",
        "net.ipv4.tcp_timestamps": "1" if timestamps else "0",
        "net.ipv4.tcp_frto": "2" if f.get("frto") else "0",
        "net.ipv4.tcp_slow_start_after_idle": "1" if f.get("idle_restart", True) else "0",
        "net.ipv4.tcp_reordering": str(int(f.get("dupthresh") or 3)),
        "net.ipv4.tcp_recovery": "1" if tcp.get("rack") else "0",
        "net.ipv4.tcp_ecn": ecn_sysctl,
        # Nothing learnt by an earlier connection (ssthresh, RTT) seeds a new one.
        "net.ipv4.tcp_no_metrics_save": "1",
    }
    rwnd = int(f["rwnd"])
    # Buffers that never bind below the scenario's window (autotuning up to twice it: Linux
    # counts half of a buffer as overhead at the default tcp_adv_win_scale).
    buf = max(4 << 20, min(2 * rwnd, 256 << 20))
    sysctls["net.ipv4.tcp_rmem"] = f"4096 131072 {buf}"
    sysctls["net.ipv4.tcp_wmem"] = f"4096 16384 {buf}"
    sender_route = [
        "initcwnd",
        str(int(f["initial_window"])),
        "rto_min",
        f"{max(1, round(float(f['min_rto']) * 1000))}ms",
    ]
    if f.get("initial_ssthresh"):
        sender_route += ["ssthresh", "lock", str(max(2, int(f["initial_ssthresh"]) // mss))]
    receiver_route = ["quickack", "1"] if ack == "immediate" else []
    if ack == "delayed":
        notes.append(
            f"{where}.ack = \"delayed\": the kernel's receiver is Linux's (quick ACKs at the start, "
            "a delayed-ACK timeout between 40 and 200 ms)"
        )
    if float(f.get("initial_rto") or 1.0) != _LINUX_INITIAL_RTO_S:
        notes.append(f"{where}.initial_rto = {f['initial_rto']} s: the kernel's is fixed at 1 s")
    if float(f.get("max_rto") or 60.0) != _LINUX_MAX_RTO_S:
        notes.append(f"{where}.max_rto = {f['max_rto']} s: the kernel's is fixed at 120 s")
    if float(f.get("rto_granularity") or 0.0) > 0:
        notes.append(f"{where}.rto_granularity = {f['rto_granularity']} s: the kernel times in jiffies")
    if not f.get("limited_transmit"):
        notes.append(f"{where}.limited_transmit = false: the kernel always uses limited transmit")
    if not f.get("rto_restart_on_retransmit"):
        notes.append(
            f"{where}.rto_restart_on_retransmit = false: the kernel always restarts its "
            "retransmission timer when it retransmits the first unacknowledged segment"
        )
    if f.get("ack_counting", "cumulative") != "delivered":
        notes.append(
            f'{where}.ack_counting = "cumulative": the kernel grows its window by what each ACK '
            'newly delivered (ack_counting = "delivered")'
        )
    if tcp and tcp.get("prr") is False:
        notes.append(f"{where}.tcp.prr = false: the kernel always recovers with PRR")
    if cc and algorithm == "aimd" and any(k != "algorithm" for k in cc):
        notes.append(f"{where}.cc: AIMD's options are not the kernel's reno module's to set")
    if cc and algorithm == "cubic":
        # tcp_cubic.c's own rules and module parameters (system-wide, left at their defaults).
        kernel_cubic = {"beta": 0.7, "c": 0.4, "fast_convergence": True, "hystart": "linux", "style": "linux"}
        for k, v in kernel_cubic.items():
            if k in cc and cc[k] != v:
                notes.append(f"{where}.cc.{k} = {cc[k]!r}: the kernel's cubic module runs with {k} = {v!r}")
    size = f.get("bytes")
    return KernelFlow(
        index=i,
        congestion_control=module,
        mss=mss,
        mtu=mss + 40 + (12 if timestamps else 0),
        sysctls=sysctls,
        sender_route=sender_route,
        receiver_route=receiver_route,
        rwnd=rwnd,
        size=int(size) if size is not None else None,
        notes=notes,
        ecn_source=ecn_source,
    )


def kernel_flows(
    resolved: dict[str, Any], available: set[str] | None = None, tcp_ecn: int | None = None
) -> list[KernelFlow]:
    if tcp_ecn is not None and tcp_ecn not in (0, 1, 2):
        raise EmulationError(
            f"--tcp-ecn {tcp_ecn}: expected 0 (off), 1 (request and accept ECN) or 2 (accept only)"
        )
    if (resolved.get("trace") or {}).get("pcap"):
        raise EmulationError(
            "trace.pcap: the simulator's capture writes simulated packets; an emulated run "
            "captures the real ones: leave trace.pcap out and pass --capture FILE.pcap"
        )
    if (resolved.get("trace") or {}).get("cwnd"):
        raise EmulationError(
            "trace.cwnd: the kernel's window is not the simulator's to trace; leave "
            "trace.cwnd out (the flows table has TCP_INFO's cwnd at the end)"
        )
    tables = resolved.get("flows") or []
    if not flow_specs(resolved):
        raise EmulationError("flows: the scenario has no flows to emulate (expected at least one [[flows]])")
    if available is None:
        available = available_congestion_control() or None
    # Checked once per table (an error names the table), then one per flow of its count.
    out: list[KernelFlow] = []
    for t, f in enumerate(tables):
        settings = kernel_flow(t, f, available, tcp_ecn)
        out += [replace(settings, index=len(out) + k) for k in range(table_count(f))]
    return out
