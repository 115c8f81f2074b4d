"""Run every `benchmarks/bench_*.py` in its own process and show what each prints.

    python benchmarks/run_all.py          (or `make bench`)

Exit status is non-zero only when a benchmark crashes; missed targets are reported, not failed.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def main() -> int:
    crashed = []
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"== {script.name}", flush=True)
        if subprocess.run([sys.executable, str(script), *sys.argv[1:]], check=False).returncode:
            crashed.append(script.name)
    if crashed:
        print(f"crashed: {', '.join(crashed)}", file=sys.stderr)
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
