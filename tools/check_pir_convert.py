"""Oracle check of `pyir convert`, both ways, with Paddle 3.3.1 running the results:

    to legacy   every PIR `.json` converted to a legacy `.pdmodel`, run by Paddle in legacy
                mode (FLAGS_enable_pir_api=0)
    to PIR      every legacy `.pdmodel` (or, for models that have none, the `.json` read by
                pyir) converted to a PIR `.json`, run by Paddle in its default mode

each to Paddle's own numbers (expected.npz).

    .venv/bin/python tools/check_pir_convert.py [DIR ...]   (default tests/golden_pir)

Each DIR/<model>/ holds model.json, model.pdiparams, inputs.npz, expected.npz (as
tools/gen_golden_pir.py writes). pyir converts (this process); Paddle runs in a subprocess of
/work/paddle-venv/bin/python with FLAGS_enable_pir_api=0 (pyir never imports Paddle).
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PADDLE = os.environ.get("PADDLE_PYTHON", "/work/paddle-venv/bin/python")

RUNNER = r'''
import sys, numpy as np, paddle
paddle.enable_static()
prefix, inputs, expected = sys.argv[1:4]
exe = paddle.static.Executor(paddle.CPUPlace())
prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
inp = np.load(inputs)
outs = exe.run(prog, feed={k: inp[k] for k in feeds}, fetch_list=fetches)
exp = np.load(expected)
worst = 0.0
for i, o in enumerate(outs):
    e = exp[f"out{i}"]
    np.testing.assert_allclose(o, e, rtol=1e-4, atol=1e-5)
    worst = max(worst, float(np.max(np.abs(o - e))) if o.size else 0.0)
print(f"ok {len(outs)} outputs, max abs err {worst:.3g}")
'''


def main() -> int:
    from pyir.errors import PyirError
    from pyir.files.convert import convert_model

    dirs = [pathlib.Path(d) for d in sys.argv[1:]] or [ROOT / "tests" / "golden_pir"]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for root in dirs:
            for d in sorted(p for p in root.iterdir() if (p / "model.json").exists()):
                legacy_src = d / "model.pdmodel"
                jobs = [("to legacy", d / "model.json", "model.pdmodel", "0"),
                        ("to PIR", legacy_src if legacy_src.exists() else d / "model.json",
                         "model.json", "1")]
                for what, src, target, pir_flag in jobs:
                    out = pathlib.Path(tmp) / d.name / what.replace(" ", "_") / target
                    try:
                        convert_model(str(src), str(out), params=str(d / "model.pdiparams")
                                      if (d / "model.pdiparams").exists() else None)
                    except PyirError as e:
                        print(f"{d.name:22s} {src.suffix:8s} {what:10s} REFUSED {e}"[:200])
                        continue
                    env = dict(os.environ, FLAGS_enable_pir_api=pir_flag)
                    r = subprocess.run([PADDLE, "-c", RUNNER, str(out.with_suffix("")),
                                        str(d / "inputs.npz"), str(d / "expected.npz")],
                                       env=env, capture_output=True, text=True)
                    last = (r.stdout.strip() or r.stderr.strip()).splitlines()[-1:] or ["?"]
                    print(f"{d.name:22s} {src.suffix:8s} {what:10s} "
                          f"{'PASS' if r.returncode == 0 else 'FAIL'} {last[0][:160]}")
                    failed += r.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
