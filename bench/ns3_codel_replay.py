#!/usr/bin/env python3
"""ns-3's CoDel decisions replayed against RFC 8289's pseudocode (bench/ns3_codel_cbr.py --rfc).

Input: the per-packet trace of one ns-3 CoDel queue disc that bench/ns3_codel_cbr.py's program
writes with `--trace=FILE`, one line per event in the order ns-3 ran them:

    E t uid flow udp seq len size     the queue disc's Enqueue trace (size: the item's bytes)
    D t uid flow udp seq len sojourn  a packet leaves the internal queue (SojournTime's event)
    X t uid flow udp seq len reason   a drop (T: CoDel's at dequeue, O: overflow at enqueue)

Each `D` is one packet CoDel's `dodequeue` takes; a `D` followed by its `X` was dropped. A
dequeue call of the queue disc takes packets at one instant until it returns one (a `D` with no
`X`), so the trace gives every call's packets and ns-3's decision on each. The replay runs RFC
8289's `dequeue` / `dodequeue` (Sec. 5.5-5.6) on the same packets, with each packet's sojourn
time and the queue's bytes after it left, and counts the packets whose decision differs. Where
one differs, the replay takes ns-3's outcome for the stream (the next packet is the one ns-3
took next) and keeps its own state.

Two arithmetics:
  * `rfc`: RFC 8289's: `control_law(t) = t + interval / sqrt(count)`, OK to drop once
    `now >= first_above_time`, below target when `bytes() <= maxpacket` (the largest packet
    seen);
  * `ns3`: the same pseudocode with ns-3 3.44's arithmetic (codel-queue-disc.cc): 1/sqrt(count)
    kept in 16 bits and updated by one Newton step per change of count (`NewtonStep`, with
    `m_recInvSqrt` reset to 1 when count restarts at 1 and stepped from its old value when count
    is reused), the clock in 1024 ns units (`CoDelGetTime`, `Time2CoDel`), OK to drop strictly
    after `m_firstAboveTime` (`CoDelTimeAfter`), below target when fewer than `MinBytes` (1500)
    bytes remain.

    python3 bench/ns3_codel_replay.py TRACE [TRACE ...]
"""

import math
import sys

TARGET_S, INTERVAL_S = 0.005, 0.100


def read_dequeues(path):
    """[(t, sojourn, bytes left, dropped by ns-3, largest packet so far)], in ns-3's order."""
    size, rows = {}, []
    with open(path) as f:
        lines = [ln.split() for ln in f if ln[:1] in ("E", "D", "X")]
    queued = largest = 0
    for i, ln in enumerate(lines):
        key = tuple(ln[2:7])  # uid, flow, udp, seq, len: ns-3's TCP copies keep their uid
        if ln[0] == "E":
            size.setdefault(key, []).append(int(ln[7]))  # a copy may be queued twice
            queued += int(ln[7])
            largest = max(largest, int(ln[7]))
        elif ln[0] == "D":
            queued -= size[key].pop()
            nxt = lines[i + 1] if i + 1 < len(lines) else None
            dropped = nxt is not None and nxt[0] == "X" and tuple(nxt[2:7]) == key
            rows.append((float(ln[1]), float(ln[7]), queued, dropped, largest))
    return rows


def newton_step(rec, count):
    """One Newton step of 1/sqrt(count) in 16-bit fixed point (ns-3's NewtonStep, Linux's)."""
    inv = rec << 16
    inv2 = (inv * inv) >> 32
    val = ((3 << 32) - count * inv2) >> 2
    return ((val * inv) >> 31) >> 16 & 0xFFFF


def replay(rows, arithmetic="rfc"):
    """Counts: dequeues, ns-3's drops, the replay's drops, decisions that differ, first one."""
    ns3 = arithmetic == "ns3"
    # ns-3's clock: uint32 in 1024 ns units (nanoseconds >> 10); RFC 8289's: seconds.
    interval = int(INTERVAL_S * 1e9) >> 10 if ns3 else INTERVAL_S

    def clock(t):
        return round(t * 1e9) >> 10 if ns3 else t

    st = {"first_above": 0, "drop_next": 0, "count": 0, "lastcount": 0, "rec": 0xFFFF}
    out = {"dequeues": len(rows), "ns3_drops": sum(r[3] for r in rows), "replay_drops": 0, "differ": 0}
    first = [None]
    k = [0]

    def dodequeue(now):
        if k[0] >= len(rows) or clock(rows[k[0]][0]) != now:
            st["first_above"] = 0
            return None, False
        row = rows[k[0]]
        k[0] += 1
        _, sojourn, left, _, largest = row
        if ns3:
            below = (round(sojourn * 1e9) >> 10) < (int(TARGET_S * 1e9) >> 10) or left < 1500
        else:
            below = sojourn < TARGET_S or left <= largest
        ok = False
        if below:
            st["first_above"] = 0
        elif st["first_above"] == 0:
            st["first_above"] = now + interval
        elif now > st["first_above"] if ns3 else now >= st["first_above"]:
            ok = True
        return row, ok

    def decide(row, drop):
        out["replay_drops"] += drop
        if drop != row[3]:
            out["differ"] += 1
            if first[0] is None:
                first[0] = (row[0], drop, st["count"])

    def control_law(t):
        if ns3:
            return t + ((interval * (st["rec"] << 16)) >> 32)
        return t + INTERVAL_S / math.sqrt(st["count"])

    dropping = False
    while k[0] < len(rows):
        now = clock(rows[k[0]][0])
        p, ok = dodequeue(now)
        if dropping:
            if not ok:
                dropping = False
            while dropping and now >= st["drop_next"]:
                decide(p, True)
                st["count"] += 1
                st["rec"] = newton_step(st["rec"], st["count"])
                p, ok = dodequeue(now) if p[3] else (None, False)
                if p is None or not ok:
                    dropping = False
                else:
                    st["drop_next"] = control_law(st["drop_next"])
        elif ok:
            decide(p, True)
            p, _ = dodequeue(now) if p[3] else (None, False)
            dropping = True
            delta = st["count"] - st["lastcount"]
            if delta > 1 and now - st["drop_next"] < 16 * interval:
                st["count"] = delta
                st["rec"] = newton_step(st["rec"], delta)
            else:
                st["count"], st["rec"] = 1, 0xFFFF
            st["drop_next"] = control_law(now)
            st["lastcount"] = st["count"]
        if p is not None:
            decide(p, False)
            # ns-3 may have dropped more packets in this call than the replay did: its next
            # packets at this instant belong to the same call.
            while k[0] < len(rows) and clock(rows[k[0]][0]) == now and rows[k[0] - 1][3]:
                decide(rows[k[0]], False)
                k[0] += 1
    out["first"] = first[0]
    return out


def main():
    for path in sys.argv[1:]:
        rows = read_dequeues(path)
        for arithmetic in ("rfc", "ns3"):
            r = replay(rows, arithmetic)
            print(f"{path} [{arithmetic}]: {r}")


if __name__ == "__main__":
    main()
