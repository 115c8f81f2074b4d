"""Oracle check of `pyir convert`: every PIR `.json` in the given directories converted to a
legacy `.pdmodel`, loaded and run by Paddle 3.3.1 in legacy mode, to Paddle's own numbers.

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
    from pyir.files.convert import convert_model

    dirs = [pathlib.Path(d) for d in sys.argv[1:]] or [ROOT / "tests" / "golden_pir"]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for root in dirs:
            for d in sorted(p for p in root.iterdir() if (p / "model.json").exists()):
                out = pathlib.Path(tmp) / d.name / "model.pdmodel"
                convert_model(str(d / "model.json"), str(out))
                env = dict(os.environ, FLAGS_enable_pir_api="0")
                r = subprocess.run([PADDLE, "-c", RUNNER, str(out.with_suffix("")),
                                    str(d / "inputs.npz"), str(d / "expected.npz")],
                                   env=env, capture_output=True, text=True)
                last = (r.stdout.strip() or r.stderr.strip()).splitlines()[-1:] or ["?"]
                print(f"{d.name:24s} {'PASS' if r.returncode == 0 else 'FAIL'} {last[0][:200]}")
                failed += r.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
