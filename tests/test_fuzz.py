"""The fuzz harness (tools/fuzz.py) on a bounded number of cases with a fixed seed: mutated
program, params and feed files never make pyir hang, crash, blow up memory, import an
untrusted module, or fail with an internal error. `python tools/fuzz.py --cases 10000` runs
the long version by hand."""

from __future__ import annotations

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _harness():
    spec = importlib.util.spec_from_file_location("pyir_fuzz", ROOT / "tools" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fuzzed_files_give_answers_or_one_line_errors_only():
    fuzz = _harness()
    found = fuzz.fuzz(250, seed=20261125, timeout=60)
    bad = {o: [(r["index"], r.get("base"), r["detail"]) for r in found.get(o, [])]
           for o in fuzz.BAD}
    assert all(not v for v in bad.values()), bad
    # the mutations reach every reader: some cases still run, most are refused
    assert len(found["ok"]) >= 10 and len(found["user error"]) >= 150
    targets = {r["target"] for r in found["user error"]}
    assert targets == {"program", "params", "feed"}


def test_a_case_is_the_same_files_whenever_it_is_made(tmp_path):
    fuzz = _harness()
    bases = fuzz.build_bases(tmp_path)
    made = []
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        case = fuzz.make_case(bases, 7, 123, tmp_path / run)
        made.append([pathlib.Path(p).read_bytes() for p in [case["model"], *case["feeds"]]])
    assert made[0] == made[1]
