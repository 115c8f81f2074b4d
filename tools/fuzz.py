"""Fuzz pyir's readers: mutate program, params and feed files, run `inspect` and `run` on them,
and classify every outcome (docs/untrusted.md, "Fuzzing").

    python tools/fuzz.py --cases 10000 --seed 1 [--show internal] [--dump FILE]
    python tools/fuzz.py --cases 300 --cli       # the same cases through the `pyir` command

Each case is one mutation of one base model (pyir's MLP, Paddle's MLP and LeNet, Paddle's
while loop and cond, Paddle 3's PIR .json MLP and control flow), chosen and mutated
deterministically from (seed, case index), so any finding is reproduced with `--only INDEX`.
The case runs in a worker process, in-process there: `describe_model` (text, then strict like
`inspect --check`) and `run_model` with `max_memory=1 GiB` and `max_loop_steps=10000`.
Outcomes:

    ok          the commands returned
    user error  a PyirError: the one-line message a user sees (exit 1)
    internal    any other exception: a pyir bug ("internal error" on the command line)
    hang        no answer within --timeout seconds (the worker is killed)
    crash       the worker died (a signal: segfault, abort)
    memory      the worker's peak RSS passed 2 GiB
    import      a module outside the standard library, numpy and pyir was imported
    skipped     the mutation itself failed (the harness's limit, not pyir's)

The worker's RLIMIT_AS is set to 4 GiB, so a runaway allocation ends it instead of the machine.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import random
import select
import struct
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUTCOMES = ("ok", "user error", "internal", "hang", "crash", "memory", "import", "skipped")
BAD = ("internal", "hang", "crash", "memory", "import")
MEMORY_LIMIT = 2 * 2**30
INTERESTING_INTS = [0, 1, -1, 2, 3, 7, 64, -2, -3, 2**31 - 1, -2**31, 2**40, -2**40, 2**63 - 1,
                    -2**63, 1 << 20]


# --- base models ---------------------------------------------------------------------------
def build_bases(directory: pathlib.Path) -> list[dict]:
    """The models every case mutates: {name, model, params or None, feed files}."""
    import numpy as np

    from pyir.files import build_model

    bases = []
    mlp = directory / "mlp"
    mlp.mkdir(exist_ok=True)
    build_model(str(ROOT / "samples" / "mlp.py"), str(mlp / "mlp.pb"))
    np.save(mlp / "x.npy", np.load(ROOT / "samples" / "mlp_input.npy"))
    bases.append({"name": "pyir-mlp", "model": "mlp.pb", "params": "mlp.pdiparams",
                  "feeds": ["x.npy"], "dir": str(mlp)})
    for name, sub in (("paddle-mlp", "tests/paddle_golden/mlp"),
                      ("paddle-lenet", "tests/paddle_golden/lenet"),
                      ("paddle-while", "tests/golden_control_flow/while_sum"),
                      ("paddle-cond", "tests/golden_control_flow/cond_branches")):
        src = ROOT / sub
        has_params = (src / "model.pdiparams").exists()
        # the control-flow goldens hold several runs' inputs as "run<i>:<name>": keep run 0
        with np.load(src / "inputs.npz") as held:
            feeds = {k.split(":", 1)[1] if k.startswith("run") else k: held[k]
                     for k in held.files if not k.startswith("run") or k.startswith("run0:")}
        target = directory / name
        target.mkdir(exist_ok=True)
        np.savez(target / "inputs.npz", **feeds)
        bases.append({"name": name, "model": str(src / "model.pdmodel"),
                      "params": str(src / "model.pdiparams") if has_params else None,
                      "feeds": [str(target / "inputs.npz")], "dir": str(src)})
    for name, sub in (("pir-mlp", "tests/golden_pir/mlp"),
                      ("pir-control-flow", "tests/golden_pir/control_flow")):
        src = ROOT / sub  # Paddle 3's PIR .json, read by content like a .pdmodel
        target = directory / name
        target.mkdir(exist_ok=True)
        (target / "m.json").write_bytes((src / "model.json").read_bytes())
        bases.append({"name": name, "model": str(target / "m.json"),
                      "params": str(src / "model.pdiparams")
                      if (src / "model.pdiparams").exists() else None,
                      "feeds": [str(src / "inputs.npz")], "dir": str(src)})
    return bases


# --- mutators ------------------------------------------------------------------------------
def _mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    kind = rng.choice(["flip", "flip", "truncate", "insert", "zero", "dup"])
    if not data:
        return bytes(rng.randbytes(rng.randint(0, 16)))
    if kind == "flip":
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        del data[rng.randrange(len(data)):]
    elif kind == "insert":
        at = rng.randrange(len(data) + 1)
        data[at:at] = rng.randbytes(rng.randint(1, 32))
    elif kind == "zero":
        at = rng.randrange(len(data))
        data[at:at + rng.randint(1, 64)] = bytes(min(64, len(data) - at))
    else:
        at = rng.randrange(len(data))
        data[at:at] = data[at:at + rng.randint(1, 256)]
    return bytes(data)


def _attr_value(rng: random.Random, attr) -> None:
    from pyir._proto import framework_pb2 as pb

    t = attr.type
    if t in (pb.INT, pb.LONG):
        attr.i = rng.choice(INTERESTING_INTS) if t == pb.LONG else \
            max(-2**31, min(2**31 - 1, rng.choice(INTERESTING_INTS)))
        if t == pb.LONG:
            attr.l = rng.choice(INTERESTING_INTS)
    elif t == pb.FLOAT:
        attr.f = rng.choice([0.0, -1.0, 1e30, float("nan"), float("inf"), 1e-30, 3.0])
    elif t in (pb.INTS, pb.LONGS):
        field = attr.ints if t == pb.INTS else attr.longs
        values = [rng.choice(INTERESTING_INTS) for _ in range(rng.randint(0, 4))]
        if t == pb.INTS:
            values = [max(-2**31, min(2**31 - 1, v)) for v in values]
        del field[:]
        field.extend(values)
    elif t == pb.STRING:
        attr.s = rng.choice(["", "os:system", "numpy.f2py.__main__:x", "NCHW", "x" * 300,
                             "setuptools:setup", "abc:def"])
    elif t == pb.BOOLEAN:
        attr.b = not attr.b
    elif t == pb.BLOCK:
        attr.block_idx = rng.choice([0, 1, 2, -1, 99])


def _mutate_json(rng: random.Random, data: bytes) -> bytes:
    """A PIR .json program: a value somewhere in the tree replaced, a list item dropped or
    doubled, or bytes damaged."""
    if rng.random() < 0.2:
        return _mutate_bytes(rng, data)
    tree = json.loads(data)
    for _ in range(rng.randint(1, 3)):
        node, path = tree, []
        while isinstance(node, (dict, list)) and node and rng.random() < 0.85:
            key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
            path.append((node, key))
            node = node[key]
        if not path:
            continue
        parent, key = path[-1]
        choice = rng.random()
        if choice < 0.6:
            parent[key] = rng.choice([0, -1, 2**40, -2**31, "", "x", None, [], {}, 1.5,
                                      "0.t_f32", "pd_op.nope", [0, 1, 1, "zz"], True])
        elif isinstance(parent, list) and choice < 0.8:
            del parent[key]
        elif isinstance(parent, list):
            parent.insert(key, parent[key])
        else:
            parent[key + "_" if isinstance(key, str) else key] = parent.pop(key)
    return json.dumps(tree).encode()


def _mutate_program(rng: random.Random, data: bytes) -> bytes:
    from pyir._proto import framework_pb2 as pb

    if data[:1] == b"{":
        return _mutate_json(rng, data)
    if rng.random() < 0.25:
        return _mutate_bytes(rng, data)
    prog = pb.ProgramDesc()
    prog.ParseFromString(data)
    for _ in range(rng.randint(1, 3)):
        block = rng.choice(prog.blocks)
        ops, vars_ = block.ops, block.vars
        kind = rng.choice(["attr", "attr", "attr", "attrname", "dims", "dtype", "slot", "slot",
                           "optype", "delop", "dupop", "parent", "addblock", "varname",
                           "addattr", "bigfill"])
        if kind in ("attr", "attrname", "addattr") and ops:
            op = rng.choice(ops)
            if kind == "addattr" or not op.attrs:
                a = op.attrs.add()
                a.name = rng.choice(["axis", "vAlue", "sub_block", "shape", "dtype",
                                     "forward_callable", "zzz"])
                a.type = rng.choice([pb.INT, pb.INTS, pb.FLOAT, pb.STRING, pb.BLOCK, pb.LONGS])
                _attr_value(rng, a)
            else:
                a = rng.choice(op.attrs)
                if kind == "attrname":
                    a.name = a.name.swapcase() if rng.random() < 0.5 else a.name + "_"
                else:
                    _attr_value(rng, a)
        elif kind in ("dims", "dtype") and vars_:
            v = rng.choice(vars_)
            tensor = v.type.dense_tensor.tensor if v.type.HasField("dense_tensor") else \
                v.type.lod_tensor.tensor
            if kind == "dims":
                del tensor.dims[:]
                tensor.dims.extend(rng.choice(INTERESTING_INTS) for _ in range(rng.randint(0, 4)))
            else:
                tensor.data_type = rng.choice([0, 2, 3, 4, 5, 6, 7, 20, 21, 22, 23, 32, 36])
        elif kind == "slot" and ops:
            op = rng.choice(ops)
            slots = list(op.inputs) + list(op.outputs)
            if slots:
                s = rng.choice(slots)
                choice = rng.random()
                if choice < 0.3:
                    del s.arguments[:]
                elif choice < 0.6:
                    s.arguments.append(rng.choice([v.name for v in vars_] or ["nope"]))
                elif choice < 0.8:
                    s.parameter = s.parameter.lower()
                elif s.arguments:
                    s.arguments[0] = rng.choice(["@EMPTY@", "nope", s.arguments[0] + "x"])
        elif kind == "optype" and ops:
            rng.choice(ops).type = rng.choice(["elementwise_add", "softmax", "while", "feed",
                                               "fetch", "py_func", "conditional_block", "nope",
                                               "fill_constant", "reshape2", "cast", "mul"])
        elif kind == "delop" and ops:
            del ops[rng.randrange(len(ops))]
        elif kind == "dupop" and ops:
            ops.add().CopyFrom(rng.choice(ops))
        elif kind == "parent":
            block.parent_idx = rng.choice([-1, 0, 1, block.idx, 7, -5])
        elif kind == "addblock":
            b = prog.blocks.add()
            b.idx = rng.choice([len(prog.blocks) - 1, 0, 5])
            b.parent_idx = rng.choice([0, -1, b.idx])
        elif kind == "bigfill" and ops:
            # overwrite an input of the last op with a huge constant: the memory limit's case
            target = next((a for op in reversed(ops) for slot in op.inputs
                           for a in slot.arguments), None)
            if target is not None:
                op = pb.OpDesc(type="fill_constant")
                op.outputs.add(parameter="Out", arguments=[target])
                side = rng.choice([2**13, 2**15, 2**16, 2**20])
                op.attrs.add(name="shape", type=pb.LONGS, longs=[side, side])
                op.attrs.add(name="dtype", type=pb.INT, i=5)
                op.attrs.add(name="value", type=pb.FLOAT, f=1.0)
                ops.insert(len(ops) - 1, op)
        elif kind == "varname" and vars_:
            v = rng.choice(vars_)
            v.name = rng.choice(["", v.name + "_", "x", "@EMPTY@", "a" * 500])
    return prog.SerializeToString()


def _mutate_params(rng: random.Random, data: bytes) -> bytes:
    if rng.random() < 0.6 or len(data) < 40:
        return _mutate_bytes(rng, data)
    data = bytearray(data)
    # rewrite the first record's header fields
    field = rng.choice(["version", "lod", "version2", "desclen"])
    offsets = {"version": (0, "<I"), "lod": (4, "<Q"), "version2": (12, "<I"),
               "desclen": (16, "<i")}
    at, fmt = offsets[field]
    value = rng.choice(INTERESTING_INTS)
    size = struct.calcsize(fmt)
    lo, hi = {"<I": (0, 2**32 - 1), "<Q": (0, 2**64 - 1), "<i": (-2**31, 2**31 - 1)}[fmt]
    data[at:at + size] = struct.pack(fmt, min(hi, max(lo, value)))
    return bytes(data)


def _mutate_npy(rng: random.Random, data: bytes) -> bytes:
    import numpy as np

    if rng.random() < 0.5:
        return _mutate_bytes(rng, data)
    shape = tuple(rng.choice([1, 2, 4, 16, 2**40, 0, 3]) for _ in range(rng.randint(0, 3)))
    descr = rng.choice(["<f4", "<f8", "<i8", "|O", "<U3", "|b1", ">f4", "V0"])
    import io

    buf = io.BytesIO()
    try:
        np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order":
                                                   rng.random() < 0.2, "shape": shape})
    except Exception:  # noqa: BLE001 - a header numpy refuses to write: keep the bytes
        return _mutate_bytes(rng, data)
    return buf.getvalue() + data[128:] + rng.randbytes(rng.randint(0, 64))


def _mutate_npz(rng: random.Random, data: bytes) -> bytes:
    import io
    import zipfile

    if rng.random() < 0.4:
        return _mutate_bytes(rng, data)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        infos = src.infolist()
        victim = rng.randrange(len(infos)) if infos else -1
        for i, info in enumerate(infos):
            member = src.read(info)
            name = info.filename
            if i == victim:
                choice = rng.random()
                if choice < 0.6:
                    member = _mutate_npy(rng, member)
                elif choice < 0.8:
                    name = rng.choice(["zzz.npy", name.upper(), "x", name])
                else:
                    continue
            dst.writestr(name, member)
    return out.getvalue()


def make_case(bases: list[dict], seed: int, index: int, directory: pathlib.Path) -> dict:
    """Write case `index`'s files into `directory`; returns how to run it."""
    rng = random.Random(f"{seed}:{index}")
    base = rng.choice(bases)
    model = pathlib.Path(base["model"] if os.path.isabs(base["model"])
                         else os.path.join(base["dir"], base["model"]))
    target = rng.choice(["program"] * 6 + ["params"] * 2 + ["feed"] * 2 if base["params"]
                        else ["program"] * 7 + ["feed"] * 3)
    program = model.read_bytes()
    params = pathlib.Path(base["params"] if os.path.isabs(base["params"] or "")
                          else os.path.join(base["dir"], base["params"] or "")).read_bytes() \
        if base["params"] else None
    feeds = []
    for f in base["feeds"]:
        p = pathlib.Path(f if os.path.isabs(f) else os.path.join(base["dir"], f))
        feeds.append((p.name, p.read_bytes()))
    if target == "program":
        program = _mutate_program(rng, program)
    elif target == "params":
        params = _mutate_params(rng, params)
    else:
        name, data = feeds[0]
        feeds[0] = (name, _mutate_npz(rng, data) if name.endswith(".npz")
                    else _mutate_npy(rng, data))
    model_path = directory / ("m.json" if model.suffix == ".json" else "m.pb")
    for stale in ("m.pb", "m.json"):
        if (directory / stale).exists():
            (directory / stale).unlink()
    model_path.write_bytes(program)
    sidecar = directory / "m.pdiparams"
    if params is not None:
        sidecar.write_bytes(params)
    elif sidecar.exists():
        sidecar.unlink()
    feed_paths = []
    for name, data in feeds:
        (directory / name).write_bytes(data)
        feed_paths.append(str(directory / name))
    return {"index": index, "base": base["name"], "target": target,
            "model": str(model_path), "feeds": feed_paths}


# --- the worker ------------------------------------------------------------------------------
def worker(seed: int, bases_dir: str) -> None:
    """Read case indices on stdin, answer one JSON line each on stdout."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, resource.RLIM_INFINITY))
    import pyir  # noqa: F401
    from pyir.errors import PyirError
    from pyir.files import describe_model, run_model

    bases = json.loads((pathlib.Path(bases_dir) / "bases.json").read_text())
    work = pathlib.Path(tempfile.mkdtemp(prefix="pyir-fuzz-case-"))
    trusted = ("pyir", "numpy", "google", "click", "_", "cli")
    out = sys.stdout
    sys.stdout = open(os.devnull, "w")  # a program printing (print ops) stays quiet
    for line in sys.stdin:
        index = int(line)
        try:
            case = make_case(bases, seed, index, work)
        except Exception as e:  # noqa: BLE001 - the harness's own limit, not pyir's
            out.write(json.dumps({"index": index, "outcome": "skipped",
                                  "detail": f"mutation failed: {e}"}) + "\n")
            out.flush()
            continue
        before = set(sys.modules)
        outcome, detail = "ok", ""
        try:
            describe_model(case["model"], "text")
            describe_model(case["model"], "json", strict=True)
            run_model(case["model"], tuple(case["feeds"]), max_memory=2**30,
                      max_loop_steps=10000)
        except PyirError as e:
            outcome, detail = "user error", str(e)
        except Exception as e:  # noqa: BLE001 - what the harness is looking for
            outcome, detail = "internal", f"{type(e).__name__}: {e}"
        new = {m.split(".")[0] for m in set(sys.modules) - before}
        untrusted = sorted(m for m in new if m not in sys.stdlib_module_names
                           and not m.startswith(trusted))
        if untrusted:
            outcome, detail = "import", ", ".join(untrusted)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        if rss > MEMORY_LIMIT:
            outcome, detail = "memory", f"peak RSS {rss / 2**30:.1f} GiB"
        out.write(json.dumps({**case, "outcome": outcome, "detail": detail[:300]}) + "\n")
        out.flush()
        if outcome == "memory":
            return  # the parent starts a fresh worker


class Pool:
    """One worker subprocess; restarted after a hang, crash or memory case."""

    def __init__(self, seed: int, bases_dir: str, timeout: float):
        self.seed, self.bases_dir, self.timeout = seed, bases_dir, timeout
        self.proc = None
        self.stderr = subprocess.DEVNULL if not os.environ.get("PYIR_FUZZ_DEBUG") else None

    def _start(self):
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get(
            "PYTHONPATH", ""))
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", "--seed", str(self.seed), "--bases",
             self.bases_dir], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.stderr, env=env, text=True, bufsize=1)

    def run(self, index: int) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.proc.stdin.write(f"{index}\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        if not ready:
            self.stop()
            return {"index": index, "outcome": "hang", "detail": f">{self.timeout}s"}
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            self.proc = None
            return {"index": index, "outcome": "crash", "detail": f"worker exit {code}"}
        return json.loads(line)

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def fuzz(cases: int, seed: int = 1, timeout: float = 20.0, only=None, on_result=None) -> dict:
    """Run `cases` cases (or the indices in `only`); returns {outcome: [results]}."""
    with tempfile.TemporaryDirectory(prefix="pyir-fuzz-") as tmp:
        bases = build_bases(pathlib.Path(tmp))
        (pathlib.Path(tmp) / "bases.json").write_text(json.dumps(bases))
        pool = Pool(seed, tmp, timeout)
        found = collections.defaultdict(list)
        try:
            for index in (only if only is not None else range(cases)):
                result = pool.run(index)
                found[result["outcome"]].append(result)
                if on_result is not None:
                    on_result(result)
        finally:
            pool.stop()
    return found


def fuzz_cli(cases: int, seed: int = 1, timeout: float = 60.0, only=None,
             on_result=None) -> dict:
    """The same cases through the `pyir` command itself (subprocesses: `inspect`,
    `inspect --check`, `run --max-memory 1G`): a user error must be one stderr line and exit
    status 1; "internal error", a traceback, a signal or a timeout is a finding."""
    found = collections.defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="pyir-fuzz-") as tmp:
        bases = build_bases(pathlib.Path(tmp))
        work = pathlib.Path(tmp) / "case"
        work.mkdir()
        for index in (only if only is not None else range(cases)):
            try:
                case = make_case(bases, seed, index, work)
            except Exception as e:  # noqa: BLE001 - the harness's limit
                result = {"index": index, "outcome": "skipped", "detail": str(e)}
            else:
                result = {**case, **_cli_outcome(case, timeout)}
            found[result["outcome"]].append(result)
            if on_result is not None:
                on_result(result)
    return found


def _cli_outcome(case: dict, timeout: float) -> dict:
    feeds = [a for f in case["feeds"] for a in ("--feed", f)]
    commands = [["inspect", case["model"]], ["inspect", "--check", case["model"]],
                ["run", case["model"], "-q", "--max-memory", "1G", "--max-loop-steps", "10000",
                 *feeds]]
    for args in commands:
        try:
            proc = subprocess.run([sys.executable, "-m", "pyir", *args], capture_output=True,
                                  text=True, timeout=timeout, cwd=ROOT)
        except subprocess.TimeoutExpired:
            return {"outcome": "hang", "detail": " ".join(args[:2])}
        lines = proc.stderr.strip().splitlines()
        if proc.returncode < 0:
            return {"outcome": "crash", "detail": f"signal {-proc.returncode}: {args[0]}"}
        if proc.returncode == 0:
            continue
        if "internal error" in proc.stderr or "Traceback" in proc.stderr or len(lines) != 1 \
                or proc.returncode != 1:
            return {"outcome": "internal", "detail": proc.stderr.strip()[-300:]}
        return {"outcome": "user error", "detail": lines[0][:300]}
    return {"outcome": "ok", "detail": ""}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--only", type=int, nargs="*")
    parser.add_argument("--show", nargs="*", default=["internal", "hang", "crash", "memory",
                                                      "import"])
    parser.add_argument("--dump", help="write every case's result as a JSON line to this file")
    parser.add_argument("--cli", action="store_true",
                        help="run each case through the pyir command (subprocesses; slower)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bases", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.seed, args.bases)
        return 0
    start = time.time()
    by_target = collections.Counter()
    dump = open(args.dump, "w") if args.dump else None

    def progress(result):
        if dump is not None:
            dump.write(json.dumps(result) + "\n")
        by_target[(result.get("base"), result.get("target"))] += 1
        done = sum(by_target.values())
        if done % 500 == 0:
            print(f"  {done} cases, {time.time() - start:.0f} s", file=sys.stderr)

    run = fuzz_cli if args.cli else fuzz
    found = run(args.cases, args.seed, args.timeout, args.only, progress)
    total = sum(len(v) for v in found.values())
    print(f"{total} cases (seed {args.seed}) in {time.time() - start:.0f} s")
    print("| outcome | cases |\n| --- | --- |")
    for outcome in OUTCOMES:
        print(f"| {outcome} | {len(found.get(outcome, []))} |")
    for outcome in args.show:
        for r in found.get(outcome, [])[:20]:
            print(f"{outcome} #{r['index']} {r.get('base')} {r.get('target')}: {r['detail']}")
    bad = sum(len(found.get(o, [])) for o in BAD)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
