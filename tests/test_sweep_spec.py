"""Sweep files: axis expansion, random draws, replicate seeds, run keys, and errors naming the axis."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from tcplab import sweep as sw

ROOT = Path(__file__).resolve().parents[1]
BASE = (ROOT / "scenarios" / "queueless-random-loss.toml").as_posix()
HEAD = f'[sweep]\nname = "t"\nseed = 5\nbase = "{BASE}"\n[set]\nduration = "5s"\nwarmup = "1s"\n'


def parse(body: str, head: str = HEAD) -> sw.Sweep:
    return sw.parse(head + body, "t.toml")


def test_grid_axes_are_crossed_first_axis_outermost():
    s = parse(
        '[[axis]]\npath = "flows.0.mss"\nvalues = [536, 1460]\n'
        '[[axis]]\npath = "flows.0.tcp"\nvalues = ["reno", "tahoe", "reno"]\n'
    )
    points = s.points()
    assert points == [
        {"flows.0.mss": m, "flows.0.tcp": t} for m in (536, 1460) for t in ("reno", "tahoe", "reno")
    ]
    runs = s.runs()
    assert len(runs) == 4  # the repeated value resolves to the same scenario: run once
    assert [r.sets["flows.0.mss"] for r in runs] == [536, 536, 1460, 1460]
    assert all(r.sets["duration"] == "5s" for r in runs)
    assert len({r.key for r in runs}) == 4


def test_zipped_axis_varies_paths_together():
    s = parse(
        '[[axis]]\nzip = { "flows.0.tcp" = ["reno", "tahoe"], "flows.0.ack" = ["delayed", "immediate"] }\n'
        '[[axis]]\npath = "seed"\nvalues = [1, 2]\n'
    )
    assert s.points() == [
        {"flows.0.tcp": "reno", "flows.0.ack": "delayed", "seed": 1},
        {"flows.0.tcp": "reno", "flows.0.ack": "delayed", "seed": 2},
        {"flows.0.tcp": "tahoe", "flows.0.ack": "immediate", "seed": 1},
        {"flows.0.tcp": "tahoe", "flows.0.ack": "immediate", "seed": 2},
    ]
    resolved = [r.resolved for r in s.runs()]
    assert [(r["flows"][0]["tcp"], r["flows"][0]["ack"], r["seed"]) for r in resolved] == [
        ("reno", "delayed", 1),
        ("reno", "delayed", 2),
        ("tahoe", "immediate", 1),
        ("tahoe", "immediate", 2),
    ]


def test_random_axes_are_in_range_deterministic_and_depend_on_the_sweep_seed():
    body = (
        '[[axis]]\npath = "network.path.hops.0.loss.p"\nlog_uniform = [3e-5, 0.3]\ncount = 200\n'
        '[[axis]]\npath = "network.path.hops.0.delay"\nuniform = [3, 300]\ncount = 3\nunit = "ms"\n'
    )
    a, b = parse(body).points(), parse(body).points()
    assert a == b and len(a) == 600
    ps = sorted({pt["network.path.hops.0.loss.p"] for pt in a})
    assert len(ps) == 200 and ps[0] >= 3e-5 and ps[-1] <= 0.3
    assert all(float(f"{p:.9g}") == p for p in ps)  # rounded to 9 significant digits
    # uniform in log p: about half of the draws below the geometric midpoint 3e-3
    below = sum(p < 3e-3 for p in ps)
    assert 70 < below < 130
    delays = {pt["network.path.hops.0.delay"] for pt in a}
    assert len(delays) == 3 and all(d.endswith("ms") and 3 <= float(d[:-2]) <= 300 for d in delays)
    other = parse(body, HEAD.replace("seed = 5", "seed = 6")).points()
    assert other != a


def test_golden_draws_do_not_change_across_versions():
    # The draws are a documented pure function of (seed, path, point, index): pin them.
    s = parse('[[axis]]\npath = "network.path.hops.0.loss.p"\nlog_uniform = [1e-4, 0.1]\ncount = 3\n')
    assert [p["network.path.hops.0.loss.p"] for p in s.points()] == GOLDEN_P


GOLDEN_P = [0.0182063378, 0.023901179, 0.00993890014]


def test_per_point_draws_are_fresh_for_each_point_and_stable_when_another_axis_grows():
    body = (
        '[[axis]]\npath = "flows.0.mss"\nvalues = [536, 1460]\n'
        '[[axis]]\npath = "network.path.hops.0.loss.p"\nlog_uniform = [1e-4, 0.1]\ncount = 3\ndraw = "per-point"\n'
    )
    pts = parse(body).points()
    assert len(pts) == 6
    first = [p["network.path.hops.0.loss.p"] for p in pts if p["flows.0.mss"] == 536]
    second = [p["network.path.hops.0.loss.p"] for p in pts if p["flows.0.mss"] == 1460]
    assert len(set(first) | set(second)) == 6
    grown = parse(body.replace("[536, 1460]", "[536, 1460, 4312]")).points()
    assert grown[:6] == pts


def test_once_draws_are_shared_by_all_points():
    body = (
        '[[axis]]\npath = "flows.0.mss"\nvalues = [536, 1460]\n'
        '[[axis]]\npath = "network.path.hops.0.loss.p"\nuniform = [0.001, 0.01]\ncount = 3\n'
    )
    pts = parse(body).points()
    assert [p["network.path.hops.0.loss.p"] for p in pts[:3]] == [
        p["network.path.hops.0.loss.p"] for p in pts[3:]
    ]


def test_replicates_take_seeds_from_the_base_scenario_and_are_innermost():
    s = parse(
        '[[axis]]\npath = "flows.0.tcp"\nvalues = ["reno", "tahoe"]\n',
        HEAD.replace('name = "t"', 'name = "t"\nreplicates = 3'),
    )
    runs = s.runs()
    assert [(r.sets["flows.0.tcp"], r.sets["seed"]) for r in runs] == [
        ("reno", 1),
        ("reno", 2),
        ("reno", 3),
        ("tahoe", 1),
        ("tahoe", 2),
        ("tahoe", 3),
    ]
    s = parse("", HEAD.replace('name = "t"', 'name = "t"\nseeds = [10, 20]'))
    assert [r.resolved["seed"] for r in s.runs()] == [10, 20]


def test_inline_scenario_and_relative_base(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "base.toml").write_text(Path(BASE).read_text())
    f = tmp_path / "s.toml"
    f.write_text('[sweep]\nbase = "sub/base.toml"\n[[axis]]\npath = "seed"\nvalues = [1, 2]\n')
    from_file = sw.load(f)
    assert from_file.name == "s" and len(from_file.runs()) == 2
    inline = sw.parse(
        '[scenario]\nduration = "5s"\nwarmup = "1s"\n[scenario.network.path]\n'
        'hops = [{ rate = "10Mbit/s", delay = "10ms", loss = { model = "bernoulli", p = 0.01 } }]\n'
        '[[scenario.flows]]\ntcp = "reno"\n[[axis]]\npath = "flows.0.mss"\nvalues = [536, 1460]\n',
        "i.toml",
    )
    assert [r.resolved["flows"][0]["mss"] for r in inline.runs()] == [536, 1460]


def test_set_accepts_nested_tables_and_quoted_dotted_keys():
    s = parse(
        '[[axis]]\npath = "seed"\nvalues = [1]\n', HEAD + 'flows.0.mss = 536\n"flows.0.tcp" = "tahoe"\n'
    )
    (run,) = s.runs()
    assert run.resolved["flows"][0]["mss"] == 536 and run.resolved["flows"][0]["tcp"] == "tahoe"


def test_run_key_is_canonical_and_pinned():
    a = {"seed": 1, "flows": [{"mss": 1460, "tcp": "reno"}], "duration": "1000ns"}
    b = {"duration": "1000ns", "flows": [{"tcp": "reno", "mss": 1460}], "seed": 1}
    assert sw.run_key(a) == sw.run_key(b) == "7c3f7c4d4f87cac70dbcd892fd5aeed9"
    assert sw.run_key({**a, "seed": 2}) != sw.run_key(a)


def test_run_key_names_the_scenario_not_its_spelling():
    spellings = [
        {"network.path.hops.0.delay": "30ms"},
        {"network.path.hops.0.delay": "30000us"},
        {"network.path.hops.0.loss.p": "1%"},
        {"network.path.hops.0.loss.p": 0.01},
        {},
    ]
    keys = {sw.run_key(__import__("tcplab").resolve(BASE, s)) for s in spellings}
    assert len(keys) == 1


def test_run_keys_are_the_same_in_a_fresh_interpreter():
    s = parse('[[axis]]\npath = "network.path.hops.0.loss.p"\nlog_uniform = [1e-4, 0.1]\ncount = 4\n')
    code = (
        f"from tcplab import sweep as sw; s = sw.parse({(HEAD + s_body()).__repr__()}, 't.toml');"
        "import json; print(json.dumps([r.key for r in s.runs()]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PATH": "/usr/bin"},
    )
    assert json.loads(out.stdout) == [r.key for r in s.runs()]


def s_body() -> str:
    return '[[axis]]\npath = "network.path.hops.0.loss.p"\nlog_uniform = [1e-4, 0.1]\ncount = 4\n'


@pytest.mark.parametrize(
    "body, message",
    [
        (
            '[[axis]]\npath = "flows.0.colour"\nvalues = ["red"]\n',
            "axis 0 (flows.0.colour): flows[0].colour: unknown field `colour`",
        ),
        (
            '[[axis]]\npath = "flows.0.mss"\nvalues = [1460]\n[[axis]]\npath = "flows.0.mss"\nvalues = []\n',
            "axis 1 (flows.0.mss): `values` is empty",
        ),
        (
            '[[axis]]\npath = "network.path.hops.0.loss.p"\nlog_uniform = [0, 0.3]\ncount = 4\n',
            "axis 0 (network.path.hops.0.loss.p): log_uniform range [0, 0.3]: both bounds must be > 0",
        ),
        (
            '[[axis]]\npath = "network.path.hops.0.loss.p"\nlog_uniform = [-1e-3, 0.3]\ncount = 4\n',
            "axis 0 (network.path.hops.0.loss.p): log_uniform range [-0.001, 0.3]: both bounds must be > 0",
        ),
        (
            '[[axis]]\npath = "network.path.hops.0.loss.p"\nuniform = [0.3, 0.1]\ncount = 4\n',
            "low must be less than high",
        ),
        (
            '[[axis]]\npath = "network.path.hops.0.loss.p"\nuniform = [0.1, 0.3]\n',
            "needs `count`, a positive integer",
        ),
        (
            '[[axis]]\npath = "network.path.hops.0.loss.p"\nuniform = [0.1, 3]\ncount = 2\n',
            "axis 0 (network.path.hops.0.loss.p): network.path.hops[0].loss.p",
        ),
        (
            '[[axis]]\npath = "flows.0.mss"\nvalues = [1460, 0]\n',
            "axis 0 (flows.0.mss): flows[0].mss: 0 is not a valid segment size",
        ),
        ('[[axis]]\npath = "flows.3.tcp"\nvalues = ["reno"]\n', "axis 0 (flows.3.tcp): "),
        (
            '[[axis]]\nzip = { "flows.0.tcp" = ["reno"], "flows.0.ack" = ["delayed", "immediate"] }\n',
            "same length",
        ),
        (
            '[[axis]]\npath = "flows.0.mss"\nvalues = [536]\ncolour = 1\n',
            "axis 0 (flows.0.mss): unknown key `colour`",
        ),
        ('[[axis]]\npath = "flows.0.mss"\n', "give exactly one of"),
        ('[[axis]]\npath = "seed"\nvalues = [1, 2]\n', "varies `seed`"),
        ("[[axis]\n", "invalid TOML"),
    ],
)
def test_bad_sweep_files_are_errors_naming_the_axis(body, message):
    head = HEAD.replace('name = "t"', 'name = "t"\nreplicates = 2') if "varies `seed`" in message else HEAD
    with pytest.raises(sw.SweepError) as e:
        parse(body, head).runs()
    assert message in str(e.value)
    assert str(e.value).startswith("t.toml: ")


@pytest.mark.parametrize(
    "text, message",
    [
        # a table where a string belongs, and the reverse
        (
            '[sweep]\nbase = { path = "x.toml" }\n',
            'sweep.base: expected a path to a scenario file, e.g. base = "../scenarios/quickstart.toml", got a table',
        ),
        (
            'sweep = "mathis"\n',
            "sweep: expected a table [sweep] (name, seed, base, replicates, seeds), got 'mathis'",
        ),
        (
            '[sweep]\nbase = "b.toml"\n[[axis]]\npath = { a = 1 }\nvalues = [1]\n',
            "axis 0 (?): `path`: expected a dotted scenario path",
        ),
        (
            'axis = "flows.0.mss"\n[sweep]\nbase = "b.toml"\n',
            "axis: expected an array of tables: write [[axis]], got 'flows.0.mss'",
        ),
        ('set = 3\n[sweep]\nbase = "b.toml"\n', "set: expected a table of overrides"),
        (
            '[sweep]\nbase = "b.toml"\n[[axis]]\npath = "flows.0.mss"\nvalues = { a = 1 }\n',
            "axis 0 (flows.0.mss): `values`: expected a list, got a table",
        ),
        (
            '[sweep]\nbase = "b.toml"\n[[axis]]\npath = "x"\nuniform = ["a", "b"]\ncount = 1\n',
            "axis 0 (x): `uniform`: expected two finite numbers [low, high]",
        ),
        (
            '[sweep]\nbase = "b.toml"\n[[axis]]\npath = "x"\nuniform = [1, 2]\ncount = "3"\n',
            "axis 0 (x): `count`: expected a positive integer, got '3'",
        ),
        (
            '[sweep]\nbase = "b.toml"\n[[axis]]\npath = "x"\nuniform = [1, 2]\ncount = true\n',
            "axis 0 (x): `count`: expected a positive integer, got True",
        ),
        (
            '[sweep]\nbase = "b.toml"\n[[axis]]\npath = "x"\nuniform = [1, 2]\ncount = 1\ndraw = 3\n',
            '`draw`: expected "once" or "per-point"',
        ),
        ('[sweep]\nbase = "b.toml"\nseed = "1"\n', "sweep.seed: expected a non-negative integer, got '1'"),
        (
            '[sweep]\nbase = "b.toml"\nseeds = [1, "2"]\n',
            "sweep.seeds: expected a non-empty list of non-negative integers",
        ),
        (
            '[sweep]\nbase = "b.toml"\nreplicates = 0\n',
            "sweep.replicates: expected a positive integer, got 0",
        ),
        ('[sweep]\nbase = "b.toml"\ncolour = 1\n', "sweep.colour: unknown key `colour`"),
        ('[sweeps]\nbase = "b.toml"\n', "unknown table `sweeps`"),
        (
            '[sweep]\nbase = "b.toml"\n[[axis]]\npath = "x"\nvalues = [1]\n[[axis]]\nzip = 5\n',
            "axis 1 (?): `zip`: expected a table of lists",
        ),
        # very deep nesting, in the TOML and in a value
        ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
        (
            '[sweep]\nbase = "b.toml"\n[[axis]]\npath = "x"\nvalues = ['
            + "{a = " * 3000
            + "1"
            + "}" * 3000
            + "]\n",
            "nested too deeply",
        ),
    ],
)
def test_wrong_types_and_deep_nesting_are_one_line(text, message):
    with pytest.raises(sw.SweepError) as e:
        sw.parse(text, "t.toml")
    assert str(e.value).startswith("t.toml: ") and "\n" not in str(e.value)
    assert message in str(e.value)


def test_cli_wrong_types_and_bad_encodings_are_one_line(tmp_path):
    tcplab = Path(sys.executable).with_name("tcplab")
    cases = {
        "table.toml": (b'[sweep]\nbase = { path = "x.toml" }\n', "sweep.base: expected a path"),
        "deep.toml": (("a = " + "[" * 100000 + "]" * 100000 + "\n").encode(), "nested too deeply"),
        "latin1.toml": ('[sweep]\nname = "caf\u00e9"\n'.encode("latin-1"), "not UTF-8 text"),
        "utf16.toml": ('[sweep]\nname = "x"\n'.encode("utf-16"), "not UTF-8 text"),
    }
    for name, (content, message) in cases.items():
        f = tmp_path / name
        f.write_bytes(content)
        for command in (["sweep", f, "--out", tmp_path / "o.parquet"], ["check", f]):
            r = subprocess.run([tcplab, *command], capture_output=True, text=True)
            assert r.returncode == 2, (name, command, r.stderr)
            lines = r.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], (
                name,
                r.stderr,
            )
    assert not (tmp_path / "o.parquet").exists()


def test_sweep_file_types_are_checked_by_a_schema():
    import inspect

    source = inspect.getsource(sw.plan)  # the sweep file's schema is in tcplab.sweep.plan
    assert "BaseModel" in source and "isinstance(count, int)" not in source


def test_cli_reports_a_bad_axis_in_one_line(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text(HEAD + '[[axis]]\npath = "network.path.hops.0.loss.p"\nlog_uniform = [0, 0.3]\ncount = 4\n')
    tcplab = Path(sys.executable).with_name("tcplab")
    r = subprocess.run([tcplab, "sweep", f, "--out", tmp_path / "o.parquet"], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"error: {f}: axis 0 (network.path.hops.0.loss.p): log_uniform range [0, 0.3]: both bounds must be > 0"
    ]
    assert not (tmp_path / "o.parquet").exists()


def test_missing_base_and_bad_set_are_named():
    with pytest.raises(sw.SweepError, match="sweep.base: cannot read"):
        sw.parse('[sweep]\nbase = "nope.toml"\n', "t.toml")
    with pytest.raises(sw.SweepError, match=r"\[set\]: flows\[0\].mss"):
        parse("", HEAD + '"flows.0.mss" = 0\n')
    assert math.isfinite(sw._uniform("x"))
