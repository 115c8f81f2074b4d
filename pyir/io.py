"""Model files: `save_inference_model` / `load_inference_model` and what `pyir build/run` use.

    save_inference_model(prefix, feed_vars, fetch_vars, exe)    PREFIX.pdmodel + .pdiparams
      +-- inference_program      clone, prune to the fetches, keep reachable sub-blocks,
      |                          is_test=True, clip extra attrs, sort vars/slots/attrs,
      |                          feed ops (descending col) + fetch ops, holders last
      +-- write_files           both files through temp files; nothing is left on failure

    load_model(path) / load_inference_model(prefix, exe)        program + targets + params

The layout follows wire-format.md §2 "Conventions of inference models", so Paddle loads
pyir's files and pyir loads Paddle's. `.npz` parameters are accepted wherever a params file is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from . import printer  # noqa: F401  (installs Program.__str__ and Operator.__repr__)
from . import registry
from ._proto.framework_pb2 import AttrType
from .builder import ROLE_BACKWARD, emit
from .checker import check_program
from .errors import FormatError, PyirError, Where
from .framework import FEED_MINIBATCH, FETCH_LIST, Program, Variable
from .params import read_params
from .plan import io_targets
from .serialize import PADDLE_VERSION, load_program, temp_beside

READER, RAW = 15, 17
# Variable kinds never stored in a params file even when persistable (Paddle's is_persistable).
_NOT_STORED = (FEED_MINIBATCH, FETCH_LIST, READER, RAW)
# Attributes every op keeps through `clip_extra`, besides the ones its definition declares.
_KEPT_COMMON = ("op_device", "op_namescope", "op_role", "op_role_var")
# Ops pyir does not know lose only the attributes every Paddle OpProto marks extra.
_EXTRA_FOR_UNKNOWN = ("op_callstack", "with_quant_attr", "use_mkldnn", "use_onednn")
# Ops whose Paddle 3.3.1 OpProto marks no attribute extra (`core.get_op_extra_attrs` is empty):
# clip_extra keeps every attribute of their proto, op_callstack and with_quant_attr included.
_NO_EXTRA_ATTRS = frozenset({
    "acos", "adam", "adamw", "arg_max", "arg_min", "argsort", "asin", "assign", "assign_value",
    "atan", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "cholesky",
    "clip_by_norm", "cross", "cross_entropy2", "cumprod", "cumsum", "determinant", "diag_v2",
    "dist", "dot", "equal", "erf", "expand_as_v2", "eye", "fill_any_like",
    "fill_constant_batch_size_like", "flip", "gather", "gather_nd", "gather_tree",
    "greater_equal", "greater_than", "group_norm", "hard_sigmoid", "increment", "index_add",
    "index_sample", "index_select", "instance_norm", "inverse", "isfinite_v2", "isinf_v2",
    "isnan_v2", "kron", "label_smooth", "less_equal", "less_than", "linspace", "logical_and",
    "logical_not", "logical_or", "logical_xor", "logsumexp", "masked_select", "matrix_power",
    "mean", "meshgrid", "momentum", "norm", "not_equal", "one_hot_v2", "p_norm", "pad", "pow",
    "put_along_axis", "py_func", "range", "repeat_interleave", "rnn", "roll", "scatter",
    "scatter_nd_add", "selu", "sequence_mask", "set_value", "sign", "softmax_with_cross_entropy",
    "squared_l2_norm", "strided_slice", "take_along_axis", "tile", "top_k", "top_k_v2", "trace",
    "tril_triu", "trunc", "uniform_random", "unsqueeze2", "unstack", "where", "where_index"
})

# Paddle 3.3.1's op_version_map, written into every inference model it saves.
PADDLE_OP_VERSIONS = [
    ("distribute_fpn_proposals", 2), ("elementwise_add", 1), ("elementwise_sub", 1),
    ("moving_average_abs_max_scale", 2), ("not_equal", 1), ("linspace", 1), ("less_than", 1),
    ("less_equal", 1), ("matrix_nms", 1), ("kldiv_loss", 1), ("truncated_gaussian_random", 1),
    ("assign_value", 1), ("depthwise_conv2d_transpose", 1), ("lstsq", 1), ("quantize", 2),
    ("global_scatter", 1), ("grid_sampler", 1), ("generate_proposals_v2", 1), ("flip", 1),
    ("global_gather", 1), ("dequantize", 1), ("greater_equal", 1), ("depthwise_conv2d", 1),
    ("instance_norm", 1), ("coalesce_tensor", 2), ("thresholded_relu", 1), ("greater_than", 1),
    ("cumprod", 1), ("weight_quantize", 1), ("matmul", 1), ("for_pybind_test__", 4),
    ("hard_shrink", 1), ("gather", 1), ("max_pool3d_with_index", 1), ("conv2d", 1),
    ("histogram", 1), ("yolo_box", 1), ("affine_grid", 1), ("allclose", 2),
    ("conv3d_transpose", 1), ("argsort", 1), ("fake_channel_wise_quantize_abs_max", 1),
    ("conv2d_transpose", 2), ("conv3d", 1), ("clip", 1), ("fill_constant", 2), ("cumsum", 1),
    ("collect_fpn_proposals", 1), ("momentum", 1), ("lamb", 1), ("p_norm", 1), ("round", 1),
    ("partial_allgather", 1), ("pixel_shuffle", 1), ("auc", 1), ("roi_align", 3),
    ("lookup_table", 1), ("roi_pool", 2), ("roll", 2), ("elementwise_div", 1),
    ("max_pool2d_with_index", 1), ("leaky_relu", 1), ("trace", 1), ("weight_dequantize", 1),
    ("softplus", 1), ("print", 1), ("unique_consecutive", 1), ("weight_only_linear", 1),
    ("equal", 1), ("elementwise_mul", 1), ("set_value", 4), ("seed", 1), ("requantize", 1),
    ("generate_proposals", 2), ("elementwise_pow", 1), ("lookup_table_v2", 1),
]


# --- which variables are parameters -----------------------------------------------------------
def persistable_names(program: Program) -> list[str]:
    """Names a params file holds for `program`, in file order (Python `sorted()`)."""
    return sorted({v.name for v in program.list_vars()
                   if v.persistable and v.type not in _NOT_STORED})


# --- building the inference program -----------------------------------------------------------
def inference_program(program: Program, feed_names: list[str],
                      fetch_names: list[str], keep_backward: bool = False) -> Program:
    """A copy of `program` laid out as Paddle's `save_inference_model` writes it.

    Args:
        feed_names: the inputs, in `col` order.
        fetch_names: the outputs, in `col` order; the program is pruned to them.
        keep_backward: keep the backward sub-blocks of pylayer ops (Paddle drops them, which
            makes a saved custom layer impossible to differentiate later; `pyir build` keeps them).

    Example:
        >>> infer = inference_program(main, ["x"], ["softmax_0.tmp_0"])
    """
    block = program.global_block()
    for name in list(feed_names) + list(fetch_names):
        if block.find_var(name) is None:
            raise PyirError(f"cannot save: {name!r} is not a variable of the program's "
                            f"global block", Where(file=program.source, var=name))
    copy = program.clone()
    _prune(copy, set(feed_names), list(fetch_names), keep_backward)
    for b in copy.blocks:
        for op in b.ops:
            _inference_attrs(op)
        _inference_vars(b, set(feed_names) if b.idx == 0 else set())
    add_feed_fetch(copy, list(feed_names), list(fetch_names))
    copy.version = PADDLE_VERSION
    copy.op_version_map = list(PADDLE_OP_VERSIONS)
    copy.source = None
    return copy


def _drop_backward_blocks(op, program: Program) -> None:
    """Inference needs no backward blocks (those with a forward_block_idx): a BLOCKS list drops
    them, as Paddle does for pylayer's `blocks = [forward, backward]`."""
    for name, value in op.attrs.items():
        if op.attr_types.get(name) == AttrType.BLOCKS:
            op.attrs[name] = [i for i in value if not (
                0 < i < len(program.blocks) and _is_backward(program.blocks[i]))]


def _is_backward(block) -> bool:
    return block.forward_block_idx is not None and block.forward_block_idx >= 0


def _reads(program: Program, op, seen: set) -> set:
    """Names `op` reads, including what the ops of its sub-blocks read (transitively)."""
    names = set(op.input_arg_names)
    for idx in op.sub_block_ids():
        if idx not in seen:
            seen.add(idx)
            for inner in program.blocks[idx].ops:
                names |= _reads(program, inner, seen) | set(inner.output_arg_names)
    return names


def _prune(program: Program, feeds: set, fetches: list[str], keep_backward: bool) -> None:
    """Keep the global-block ops the fetches need (existing feed/fetch ops go), the blocks those
    ops reach, and the global variables anything kept refers to."""
    block = program.global_block()
    needed, kept, reached = set(fetches), [], set()
    for op in reversed(block.ops):
        opdef = registry.lookup(op.type)
        if opdef is not None and opdef.io is not None:
            continue
        if any(n in needed and n not in feeds for n in op.output_arg_names):
            if not keep_backward:
                _drop_backward_blocks(op, program)
            kept.append(op)
            needed |= _reads(program, op, reached)
    kept.reverse()
    block.ops = kept
    used = set(feeds) | set(fetches)
    for op in kept:
        used |= _reads(program, op, set()) | set(op.output_arg_names)
    block.vars = {n: v for n, v in block.vars.items() if n in used}
    _keep_blocks(program, reached)
    program._bump()


def _keep_blocks(program: Program, reached: set) -> None:
    """Drop unreached blocks and renumber the rest compactly (attrs and parents follow)."""
    keep = sorted({0} | reached)
    if len(keep) == len(program.blocks):
        return
    new_index = {old: new for new, old in enumerate(keep)}
    program.blocks = [program.blocks[i] for i in keep]
    for b in program.blocks:
        b.idx = new_index[b.idx]
        b.parent_idx = new_index.get(b.parent_idx, -1) if b.parent_idx >= 0 else -1
        if b.forward_block_idx is not None and b.forward_block_idx >= 0:
            b.forward_block_idx = new_index.get(b.forward_block_idx, -1)
        for op in b.ops:
            for name, value in op.attrs.items():
                if op.attr_types.get(name) == AttrType.BLOCK:
                    op.attrs[name] = new_index[value]
                elif op.attr_types.get(name) == AttrType.BLOCKS:
                    op.attrs[name] = [new_index[i] for i in value]
    program.current_block_idx = 0


def _kept_attrs(op) -> set | None:
    """Names `clip_extra` keeps on `op`; None keeps all but `_EXTRA_FOR_UNKNOWN`.

    Paddle clips only ops that have a legacy OpProto: feed/fetch (and ops pyir does not
    know) keep their attributes."""
    opdef = registry.lookup(op.type)
    if opdef is None:
        return None
    if opdef.io is not None:
        return set(op.attrs)
    # Op definitions declare the attributes Paddle does not mark extra
    # (`core.get_op_extra_attrs`), and flag the few extra ones their kernels read.
    kept = {a.name for a in opdef.attrs if not a.extra} | set(_KEPT_COMMON)
    return kept | {"op_callstack", "with_quant_attr"} if op.type in _NO_EXTRA_ATTRS else kept


def _extra_outputs(op) -> set[str]:
    """Output slots Paddle's clip_extra removes from the op (XShape, dropout's Mask, ...); their
    variables stay declared. A definition marks them `Slot(..., extra=True)`."""
    opdef = registry.lookup(op.type)
    if opdef is None or opdef.io is not None:
        return set()
    return {s.name for s in opdef.outputs if getattr(s, "extra", False)}


def _inference_attrs(op) -> None:
    """is_test=True, extra attributes and outputs clipped, slots and attributes sorted by name."""
    if "is_test" in op.attrs:
        op.attrs["is_test"] = True
    extra = _extra_outputs(op)
    op.outputs = {k: v for k, v in op.outputs.items() if k not in extra}
    kept = _kept_attrs(op)
    names = sorted(n for n in op.attrs
                   if (n in kept if kept is not None else n not in _EXTRA_FOR_UNKNOWN))
    op.attrs = {n: op.attrs[n] for n in names}
    op.attr_types = {n: op.attr_types[n] for n in names if n in op.attr_types}
    op.inputs = dict(sorted(op.inputs.items()))
    op.outputs = dict(sorted(op.outputs.items()))


def _inference_vars(block, feeds: set) -> None:
    """Vars sorted by name, without the training-only is_parameter / stop_gradient fields
    (Paddle's `_remove_training_info`); feed targets get need_check_feed."""
    for var in block.vars.values():
        var._flags = {k: v for k, v in var._flags.items()
                      if k not in ("is_parameter", "stop_gradient")}
        if var.name in feeds:
            var._flags["need_check_feed"] = True
    block.vars = dict(sorted(block.vars.items()))


def add_feed_fetch(program: Program, feeds: list[str], fetches: list[str]) -> None:
    """Feed ops prepended one by one (so descending `col`), fetch ops appended, holders last."""
    block = program.global_block()
    feed_holder = block.create_var("feed", type=FEED_MINIBATCH, persistable=True)
    fetch_holder = block.create_var("fetch", type=FETCH_LIST, persistable=True)
    for holder in (feed_holder, fetch_holder):
        holder._flags = {"persistable": True}
    for col, name in enumerate(feeds):
        emit("feed", {"X": feed_holder}, {"col": col, "with_quant_attr": False},
             {"Out": block.var(name)}, block=block)
        block.ops.insert(0, block.ops.pop())
    for col, name in enumerate(fetches):
        emit("fetch", {"X": block.var(name)}, {"col": col, "with_quant_attr": False},
             {"Out": fetch_holder}, block=block)
    for holder in ("feed", "fetch"):
        block.vars[holder] = block.vars.pop(holder)
    program._bump()


# --- writing ----------------------------------------------------------------------------------
def _params_from_scope(program: Program, scope) -> dict:
    values = {}
    for name in persistable_names(program):
        if name not in scope:
            raise PyirError(f"persistable variable {name!r} has no value in the scope: run the "
                            f"startup program (or load parameters) before saving",
                            Where(var=name))
        values[name] = np.asarray(scope[name])
    return values


def write_files(files: dict[str, bytes]) -> None:
    """Write every file through a temp file and rename them together; on failure none exist."""
    temps = {}
    try:
        for path, data in files.items():
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            fd, tmp = temp_beside(path)
            temps[path] = tmp
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        for path, tmp in temps.items():
            os.replace(tmp, path)
    finally:
        for tmp in temps.values():
            if os.path.exists(tmp):
                os.unlink(tmp)


def _encode_params(program: Program, scope, params_path: str) -> dict[str, bytes]:
    from .params import encode_npz, encode_params

    values = _params_from_scope(program, scope)
    if not values:
        return {}
    encode = encode_npz if params_path.endswith(".npz") else encode_params
    return {params_path: encode(values)}


def save_model(path: str, program: Program, feed_names: list[str], fetch_names: list[str],
               scope=None, params_path: str | None = None, keep_backward: bool = True) -> Program:
    """Write `program` as an inference model at `path` (+ `<stem>.pdiparams` when it has
    parameters), both atomically. Returns the program as written.

    Unlike Paddle's save_inference_model, pylayer backward blocks are kept by default, so the
    file can still be differentiated (`pyir grad`); Paddle reads such files too.

    Example:
        >>> save_model("out/mlp.pb", main, ["x"], ["softmax_0.tmp_0"], scope)
    """
    from .executor import global_scope

    scope = global_scope() if scope is None else scope
    infer = inference_program(program, list(feed_names), list(fetch_names), keep_backward)
    params_path = params_path or os.path.splitext(path)[0] + ".pdiparams"
    files = {path: infer.serialize_to_string(), **_encode_params(infer, scope, params_path)}
    write_files(files)
    return infer


def _names(items, what: str) -> list[str]:
    items = items if isinstance(items, (list, tuple)) else [items]
    names = []
    for item in items:
        if isinstance(item, Variable):
            names.append(item.name)
        elif isinstance(item, str):
            names.append(item)
        else:
            raise PyirError(f"save_inference_model: {what} must be Variables, got "
                            f"{type(item).__name__}")
    return names


def save_inference_model(path_prefix: str, feed_vars, fetch_vars, executor,
                         program: Program | None = None, **kwargs) -> None:
    """Write PATH_PREFIX.pdmodel and PATH_PREFIX.pdiparams as Paddle's function does.

    Args:
        path_prefix: file prefix, e.g. "out/mlp" -> out/mlp.pdmodel, out/mlp.pdiparams.
        feed_vars / fetch_vars: the inputs and outputs (Variables or names).
        executor: kept for Paddle's signature; parameters come from `scope` (default the
            global scope).
        program: the program to save (default: the main program).

    Example:
        >>> pyir.static.save_inference_model("out/mlp", [x], [y], exe)
    """
    from .framework import default_main_program

    if not isinstance(path_prefix, str) or not path_prefix or path_prefix.endswith(os.sep) \
            or os.path.isdir(path_prefix):
        raise PyirError(f"save_inference_model: path_prefix {path_prefix!r} must be a file "
                        f"prefix such as 'out/model', not a directory")
    program = default_main_program() if program is None else program
    fetch = _names(fetch_vars, "fetch_vars")
    if not fetch:
        raise PyirError("save_inference_model: fetch_vars is empty; name at least one output")
    save_model(path_prefix + ".pdmodel", program, _names(feed_vars, "feed_vars"), fetch,
               kwargs.get("scope"), path_prefix + ".pdiparams", keep_backward=False)


# --- reading ----------------------------------------------------------------------------------
@dataclass
class LoadedModel:
    """A model file read back: its program, inputs and outputs, and where its params came from."""

    program: Program
    feed_names: list[str]
    fetch_names: list[str]
    params_path: str | None


def default_feed_names(program: Program) -> list[str]:
    """The inputs: feed targets by `col`, else the `data` variables (need_check_feed)."""
    return io_targets(program, "feed") or [
        v.name for v in program.global_block().vars.values() if v.need_check_feed]


def default_fetch_names(program: Program) -> list[str]:
    """The outputs: fetch targets by `col`, else `default_outputs`."""
    return io_targets(program, "fetch") or default_outputs(program)


def default_outputs(program: Program) -> list[str]:
    """What a model computes: the non-persistable global variables some op writes and no op
    (in any block) reads, in the order they are written, without the side outputs of forward
    ops (a leaf whose sibling outputs are read: unsqueeze2's XShape, the Softmax of
    softmax_with_cross_entropy, a dropout Mask). Gradients written by backward ops stay.

    Example:
        >>> default_outputs(main)            # an MLP: ['fc_1.tmp_2']
    """
    read = {n for b in program.blocks for op in b.ops for n in op.input_arg_names}
    block = program.global_block()
    found: dict[str, None] = {}
    for op in block.ops:
        opdef = registry.lookup(op.type)
        if opdef is not None and opdef.io is not None:
            continue
        outs = [n for n in op.output_arg_names if n in block.vars]
        if not int(op.attrs.get("op_role", 0)) & ROLE_BACKWARD and any(n in read for n in outs):
            continue  # its result is used further on: its unread outputs are side outputs
        for name in outs:
            var = block.vars[name]
            if name not in read and not var.persistable and var.type not in (FEED_MINIBATCH,
                                                                               FETCH_LIST):
                found[name] = None
    return list(found)


def load_params_into(program: Program, params_path: str, scope) -> None:
    """Read `params_path` (.pdiparams or .npz) for `program`'s persistables into `scope`,
    checking each tensor's shape and dtype against its declaration."""
    names = persistable_names(program)
    arrays = read_params(params_path, names)
    for name, array in arrays.items():
        var = program.global_block().find_var(name) or next(
            v for v in program.list_vars() if v.name == name)
        _check_param(var, array, params_path)
        scope[name] = array


def _check_param(var: Variable, array: np.ndarray, path: str) -> None:
    where = Where(file=path, var=var.name)
    if var.dtype is not None and array.dtype != var.dtype:
        raise FormatError(f"holds {array.dtype} data for {var.name!r}, which the program "
                          f"declares {var.dtype}", where)
    if var.shape is not None and (len(var.shape) != array.ndim or any(
            d not in (-1, a) for d, a in zip(var.shape, array.shape))):
        raise FormatError(f"holds shape {list(array.shape)} for {var.name!r}, which the "
                          f"program declares {list(var.shape)}", where)


def load_model(model_path: str, params: str | None = None, scope=None) -> LoadedModel:
    """Read a pyir `.pb` or Paddle `.pdmodel`, check it, and load its parameters into `scope`.

    Args:
        params: a `.pdiparams` or `.npz` file; default: `<stem>.pdiparams` beside the model,
            when it exists.
        scope: where parameters go (default: the global scope).

    Example:
        >>> m = load_model("out/mlp.pb"); m.feed_names, m.fetch_names
        (['x'], ['softmax_0.tmp_0'])
    """
    from .executor import global_scope

    scope = global_scope() if scope is None else scope
    program = load_program(model_path)
    check_program(program)
    if params is None:
        sidecar = os.path.splitext(model_path)[0] + ".pdiparams"
        params = sidecar if os.path.isfile(sidecar) else None
    elif not os.path.isfile(params):
        raise FormatError("no such params file", Where(file=params))
    if params is not None and persistable_names(program):
        load_params_into(program, params, scope)
    return LoadedModel(program, default_feed_names(program), default_fetch_names(program),
                       params)


def load_inference_model(path_prefix: str, executor, **kwargs) -> list:
    """Read PATH_PREFIX.pdmodel (+ .pdiparams) into the global scope, as Paddle's function does.

    Returns:
        [program, feed_target_names, fetch_targets] (fetch_targets are Variables).

    Example:
        >>> program, feeds, fetches = pyir.static.load_inference_model("out/mlp", exe)
        >>> exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)
    """
    model = kwargs.get("model_filename") or path_prefix + ".pdmodel"
    params = kwargs.get("params_filename") or path_prefix + ".pdiparams"
    if not os.path.isfile(model):
        raise FormatError("no such model file (load_inference_model reads "
                          "PATH_PREFIX.pdmodel)", Where(file=model))
    loaded = load_model(model, params if os.path.isfile(params) else None, kwargs.get("scope"))
    if persistable_names(loaded.program) and loaded.params_path is None:
        raise FormatError("the model has parameters but there is no params file",
                          Where(file=params))
    block = loaded.program.global_block()
    return [loaded.program, loaded.feed_names, [block.var(n) for n in loaded.fetch_names]]


__all__ = ["save_inference_model", "load_inference_model", "save_model", "load_model",
           "LoadedModel", "inference_program", "persistable_names"]
