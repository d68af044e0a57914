"""Writes ``tcplab/advise/spreads.json``: per regime, how far the models were from tcplab's own
simulations in its validation (``tcplab reproduce ... --quick``), so that `tcplab advise` can
say how much to trust a prediction. Regenerate:

    tcplab reproduce mathis --quick --out R/mathis
    tcplab reproduce parvez --quick --out R/parvez
    tcplab reproduce barakat --quick --out R/barakat
    python -m tcplab.advise.spreads R/mathis R/parvez R/barakat

Each folder's results.json is read; nothing is typed by hand. The Bernoulli points of Parvez
Figs 7-8 are put in a regime by `tcplab advise`'s own rule, from each point's measured loss
event rate and mean RTT with the RTO = 3R the item uses.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path as FsPath
from typing import Any

OUT = FsPath(__file__).with_name("spreads.json")

#: Regimes no validation item measures, and why.
MISSING = {
    "slow-start": "no tcplab validation item measures finite transfers against a model (every reproduction "
    "measures long-lived flows); only the simulation below settles it",
    "window-limited": "no tcplab validation item runs window-limited flows against a model; rwnd/RTT is a "
    "bound, and the simulation below settles how close the flow comes to it",
}


def _stats(values: list[float]) -> dict[str, Any]:
    v = [x for x in values if x is not None and math.isfinite(x)]
    if not v:
        return {"n": 0, "min": None, "max": None, "mean": None}
    return {"n": len(v), "min": min(v), "max": max(v), "mean": sum(v) / len(v)}


def _item(docs: list[dict], item_id: str) -> dict:
    for d in docs:
        for it in d["items"]:
            if it["id"] == item_id:
                if not d["quick"]:
                    raise SystemExit(f"{item_id}: expected the --quick form's results")
                return it
    paper = item_id.split("-")[0]
    raise SystemExit(
        f"error: no results for {item_id} (run `tcplab reproduce {paper} --quick --out DIR` and give DIR)"
    )


def _source(it: dict) -> str:
    return f"tcplab reproduce {it['paper']} --quick: {it['ref']} ({it['status']}; docs/validation/{it['paper']}.md)"


def _entry(it: dict, model: str, measure: str, values: dict[str, float], signed: bool) -> dict[str, Any]:
    return {
        "validation": _source(it),
        "title": it["title"],
        "model": model,
        "measure": measure,
        "signed": signed,
        **_stats(list(values.values())),
        "points": values,
    }


def _table4(it: dict) -> dict[str, Any]:
    """Mathis Eq. 3 with the model's C against the C fitted to the simulations, per row."""
    c_model = {"immediate": math.sqrt(1.5), "delayed": math.sqrt(0.75)}
    vals = {
        c["row"]: c["tcplab"] / c_model[c["ack"]] - 1
        for c in it["numbers"]["cells"]
        if c["quantity"] == "C (Eq. 3)"
    }
    return _entry(
        it,
        "mathis:throughput",
        "fitted C (Eq. 3) over the model's C (sqrt(3/2) with an ACK per segment, "
        "sqrt(3/4) delayed), minus 1: the model's error on the simulated rate, per TCP row",
        vals,
        True,
    )


#: The items' NewReno model evaluates Eq. 29 as the paper does (W rounded up, parvez-table4);
#: `tcplab advise` evaluates tcplab.models.newreno's default (the real W of Eq. 14), whose errors
#: the items also record: the spreads are those of the model advise runs.
_ADVISED = {"error_newreno": "error_newreno_real_w", "newreno_model": "newreno_model_real_w"}


def _bernoulli(it: dict) -> dict[str, list[dict[str, Any]]]:
    from tcplab.advise import Path, classify, regime_bounds

    by: dict[str, dict[str, dict[str, float]]] = {}
    for pt in it["numbers"]["points"]:
        path = Path(
            rtt=pt["mean_rtt_s"],
            mss=pt["mss_bytes"],
            loss=pt["loss_event_rate"],
            rto=3 * pt["mean_rtt_s"],
            ack="immediate",
            variant="newreno",
        )
        regime = classify(path, regime_bounds(path))[0]
        key = f"p={pt['imposed']:g}"
        for col in ("error_newreno", "error_pftk_newreno", "error_pftk_reno"):
            by.setdefault(regime, {}).setdefault(col, {})[key] = pt[_ADVISED.get(col, col)]
    names = {
        "error_newreno": ("newreno:full", "|sim - model| / sim, NewReno flow"),
        "error_pftk_newreno": ("pftk:full", "|sim - model| / sim, NewReno flow"),
        "error_pftk_reno": ("pftk:full", "|sim - model| / sim, Reno flow"),
    }
    return {
        regime: [
            _entry(it, names[c][0], names[c][1] + " (Bernoulli loss; RTO = 3R)", v, False)
            for c, v in cols.items()
        ]
        for regime, cols in by.items()
    }


def build(docs: list[dict]) -> dict[str, Any]:
    regimes: dict[str, list[dict[str, Any]]] = {}
    regimes.setdefault("loss-limited", []).append(_table4(_item(docs, "mathis-table4")))
    for regime, entries in _bernoulli(_item(docs, "parvez-figs7-8")).items():
        regimes.setdefault(regime, []).extend(entries)
    fig9 = _item(docs, "parvez-fig9")
    dt = fig9["numbers"]["droptail"]
    for col, model, who in (
        ("newreno_model", "newreno:full", "NewReno flow"),
        ("pftk_newreno", "pftk:full", "NewReno flow"),
        ("pftk_reno", "pftk:full", "Reno flow"),
    ):
        regimes.setdefault("queue", []).append(
            _entry(
                fig9,
                model,
                f"average |sim - model| / sim over the drop-tail runs, {who} (model from the flow's "
                "measured p and RTT)",
                {"droptail": dt[_ADVISED.get(col, col)]},
                False,
            )
        )
    bar = _item(docs, "barakat-fig4")
    full, model = bar["numbers"]["full"], bar["numbers"]["model"]
    regimes["queue"].append(
        _entry(
            bar,
            "multibottleneck:throughput",
            "(model - sim) / sim, Tahoe through n drop-tail nodes, buffers far below the BDP",
            {f"n={n}": model[n] / full[n] - 1 for n in full},
            True,
        )
    )
    from tcplab.advise import REGIMES

    missing = dict(MISSING)
    highest = max(p["loss_event_rate"] for p in _item(docs, "parvez-figs7-8")["numbers"]["points"])
    for regime in REGIMES:
        if regime not in regimes and regime not in missing:
            missing[regime] = (
                "no point of tcplab's validation falls in this regime by advise's rule (the Bernoulli "
                "points of Parvez Figs 7-8, up to a loss event rate of "
                f"{highest:.3g}"
                ", are all on the fast-retransmit side); only the simulation below settles it"
            )
    return {
        "generated_by": "python -m tcplab.advise.spreads (docs/advise.md), from `tcplab reproduce mathis|parvez|"
        "barakat --quick`",
        "regimes": {k: regimes[k] for k in sorted(regimes)},
        "missing": missing,
    }


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    docs = []
    for d in argv:
        f = FsPath(d) / "results.json"
        if not f.is_file():
            print(
                f"error: {f}: no such file (expected a `tcplab reproduce ... --out {d}` folder)",
                file=sys.stderr,
            )
            return 2
        docs.append(json.loads(f.read_text()))
    doc = build(docs)
    OUT.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
