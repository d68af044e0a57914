"""Compares two directories of `digest` outputs (bench/same_results.sh): the same files, and in
each the same values, except that a field only the newer build writes (a column added since the
base) must hold its "nothing happened" value: 0, false, null, empty, or Not-ECT. Exit 1 on the
first difference of each file, printed with its path in the JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

#: What a field added since the base may hold in a run that does not use it.
DEFAULTS = (0, 0.0, False, None, "", [], {}, "NotEct", "not_ect")


def differences(a, b, at="$"):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a.keys() - b.keys():
            yield f"{at}.{k}: only in the base"
        for k in b.keys() - a.keys():
            if b[k] not in DEFAULTS:
                yield f"{at}.{k}: new field with {b[k]!r}, not a default"
        for k in a.keys() & b.keys():
            yield from differences(a[k], b[k], f"{at}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            yield f"{at}: {len(a)} elements in the base, {len(b)} here"
        else:
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                yield from differences(x, y, f"{at}[{i}]")
    elif a != b or type(a) is not type(b):
        yield f"{at}: {a!r} in the base, {b!r} here"


def main(base: str, new: str) -> int:
    bad = 0
    names = sorted({p.name for p in Path(base).glob("*.json")} | {p.name for p in Path(new).glob("*.json")})
    for name in names:
        pa, pb = Path(base) / name, Path(new) / name
        if not (pa.exists() and pb.exists()):
            print(f"{name}: only in {'the base' if pa.exists() else 'this tree'}")
            bad += 1
            continue
        first = next(differences(json.loads(pa.read_text()), json.loads(pb.read_text())), None)
        if first is not None:
            print(f"{name}: {first}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
