"""The data dictionary: unit and meaning of every result column, as Parquet metadata.

docs/traces.md is the schema (its `### table` sections list column, type, unit, meaning);
`columns.json` beside this module is those tables, packaged so an installed tcplab can label the
files it writes without the docs. `python -m tcplab.columns` rewrites it from the docs, and a
test fails when the two differ.

Every Parquet file tcplab writes (a sweep's runs, `tcplab run --out`) carries in its key-value
metadata `tcplab.version` and `tcplab.columns`: a JSON object {column: {"unit", "meaning"}} for
the columns of that file (store columns such as `link.hop0.fwd.utilization` take the meaning of
the links table's `utilization`; inputs under their dotted path are the resolved scenario, in
SI units).
"""

from __future__ import annotations

import json
import re
import sys
from functools import cache
from pathlib import Path

FILE = Path(__file__).resolve().parent / "columns.json"
DOC = Path(__file__).resolve().parents[2] / "docs" / "traces.md"


def from_docs(text: str) -> dict[str, dict[str, dict[str, str]]]:
    """{table: {column: {"type", "unit", "meaning"}}} from docs/traces.md's tables."""
    out: dict[str, dict[str, dict[str, str]]] = {}
    section = None
    for line in text.splitlines():
        if m := re.match(r"^### (\w+)$", line):
            section = m.group(1)
        elif (
            section
            and (m := re.match(r"^\|\s*(\w+)\s*\|\s*([\w?]+)\s*\|\s*([^|]*?)\s*\|\s*(.*?)\s*\|$", line))
            and m.group(1) != "column"
        ):
            out.setdefault(section, {})[m.group(1)] = {
                "type": m.group(2),
                "unit": m.group(3).strip(),
                "meaning": m.group(4).strip(),
            }
    return out


@cache
def dictionary() -> dict[str, dict[str, dict[str, str]]]:
    return json.loads(FILE.read_text())


def describe(column: str) -> dict[str, str]:
    """Unit and meaning of a store column."""
    d = dictionary()
    if column.startswith("link.") and column.count(".") >= 2:
        metric = column.rsplit(".", 1)[1]
        if metric in d.get("links", {}):
            entry = d["links"][metric]
            return {"unit": entry["unit"], "meaning": f"{entry['meaning']} (this link direction)"}
    for table in ("flows", "run", "links", "traffic"):
        if column in d.get(table, {}):
            entry = d[table][column]
            return {"unit": entry["unit"], "meaning": entry["meaning"]}
    if column == "run_key":
        return {"unit": "", "meaning": "hash of the run's resolved scenario (a sweep's key)"}
    return {
        "unit": "SI",
        "meaning": "scenario input, resolved (seconds, bit/s, bytes, probabilities; docs/traces.md, Units)",
    }


def parquet_metadata(columns: list[str]) -> dict[str, str]:
    """The key-value metadata of a results file with these columns."""
    from tcplab import __version__

    return {
        "tcplab.version": __version__,
        "tcplab.columns": json.dumps({c: describe(c) for c in columns}, sort_keys=True),
    }


def main() -> int:
    if not DOC.exists():
        print(f"error: {DOC} not found (run from a checkout)", file=sys.stderr)
        return 2
    FILE.write_text(json.dumps(from_docs(DOC.read_text()), indent=1, sort_keys=True) + "\n")
    print(f"wrote {FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
