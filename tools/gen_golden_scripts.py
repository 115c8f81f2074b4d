"""Regenerate tests/golden_scripts/: the numbers each script of tests/scripts/ gives on
PaddlePaddle 3.3.1.

Every script says `import pyir as paddle`; tests/scripts/_harness.py runs it with `--paddle`,
which registers Paddle's modules under the names `pyir`, `pyir.nn`, ... first, so the very
same source runs on Paddle. Each script runs in its own process and a fresh directory (the
files it saves land there); the `results` dict it leaves is written to
tests/golden_scripts/<script>.npz. tests/test_scripts.py runs the scripts with pyir and
compares; it never imports Paddle.

Run (Paddle 3.3.1 as the oracle, in its own venv):
    /work/paddle-venv/bin/python tools/gen_golden_scripts.py [SCRIPT_STEM ...]
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile

# Scripts that need Paddle's legacy static graph (FLAGS_enable_pir_api=0), the ProgramDesc
# world pyir lives in: `jit.save` writes a .pdmodel, `Program.clone(for_test=True)`,
# `Block.create_var` and `py_func` exist. The others run in Paddle's default (PIR) mode,
# because in 3.3.1's legacy mode some functions (`paddle.sum`, `paddle.exp`) accept only PIR
# values. The numbers do not depend on the mode; pyir has only one.
LEGACY = {"s04_static_fc_inference", "s05_static_cnn", "s06_jit_save_load",
          "s10_static_py_func", "s21_static_layers_io", "s30_static_default_programs",
          "s34_jit_save_sequence_model"}

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "tests" / "scripts"
OUT = ROOT / "tests" / "golden_scripts"


def main(argv: list[str]) -> int:
    OUT.mkdir(exist_ok=True)
    scripts = sorted(SCRIPTS.glob("s[0-9]*.py"))
    if argv:
        scripts = [s for s in scripts if s.stem in argv]
    failed = []
    for script in scripts:
        with tempfile.TemporaryDirectory() as work:
            done = subprocess.run(
                [sys.executable, str(SCRIPTS / "_harness.py"), str(script),
                 str(OUT / f"{script.stem}.npz"), "--paddle"],
                cwd=work, capture_output=True, text=True,
                env=dict(os.environ, FLAGS_enable_pir_api="0" if script.stem in LEGACY
                         else "1"))
        print(f"{script.stem}: {'ok' if done.returncode == 0 else 'FAILED'}")
        if done.returncode:
            failed.append(script.stem)
            print(done.stderr[-3000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
