"""The inference layout: a copy of a program laid out as Paddle's `save_inference_model`
writes it, and the feed/fetch ops every saved program carries.

    inference_program(program, feeds, fetches)
      +-- clone, _prune              keep the ops the fetches need and the blocks they reach
      +-- _inference_attrs / _vars   is_test=True, extra attributes clipped, slots, attributes
      |                              and variables sorted by name
      +-- add_feed_fetch             feed ops (descending col) + fetch ops, holders last

The layout follows Paddle's conventions for inference models, so Paddle loads pyir's files
and pyir loads Paddle's.
"""

from __future__ import annotations

from .. import registry
from .._proto.framework_pb2 import AttrType
from ..builder import emit
from ..errors import PyirError, Where
from ..framework import FEED_MINIBATCH, FETCH_LIST, Program
from ..serialize import PADDLE_VERSION

READER, RAW = 15, 17
# Variable kinds never stored in a params file even when persistable (Paddle's is_persistable).
_NOT_STORED = (FEED_MINIBATCH, FETCH_LIST, READER, RAW)
# Attributes every op keeps through `clip_extra`, besides the ones its definition declares.
_KEPT_COMMON = ("op_device", "op_namescope", "op_role", "op_role_var")
# Ops pyir does not know lose only the attributes every Paddle OpProto marks extra.
_EXTRA_FOR_UNKNOWN = ("op_callstack", "with_quant_attr", "use_mkldnn", "use_onednn")
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
    """Names a params file holds for `program`, in file order (Python `sorted()`).

    Example:
        >>> persistable_names(main)          # an MLP: ['fc_0.b_0', 'fc_0.w_0', ...]
    """
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


def op_reads(program: Program, op, seen: set) -> set:
    """Names `op` reads, including what the ops of its sub-blocks read (transitively)."""
    names = set(op.input_arg_names)
    for idx in op.sub_block_ids():
        if idx not in seen:
            seen.add(idx)
            for inner in program.blocks[idx].ops:
                names |= op_reads(program, inner, seen) | set(inner.output_arg_names)
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
            needed |= op_reads(program, op, reached)
    kept.reverse()
    block.ops = kept
    used = set(feeds) | set(fetches)
    for op in kept:
        used |= op_reads(program, op, set()) | set(op.output_arg_names)
    block.vars = {n: v for n, v in block.vars.items() if n in used}
    _keep_blocks(program, reached)
    program._bump()


def pruned_to(program: Program, fetches: list[str]) -> Program:
    """A copy of `program` with only the ops `fetches` need (no feed/fetch ops, unreached
    blocks dropped); attributes unchanged.

    Example:
        >>> [op.type for op in pruned_to(main, ["fc_0.tmp_1"]).global_block().ops]
        ['mul', 'elementwise_add']
    """
    copy = program.clone()
    _prune(copy, set(), list(fetches), keep_backward=True)
    copy.source = program.source
    return copy


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
    # An op whose Paddle OpProto marks nothing extra keeps these too (its `no_extra_attrs`).
    return kept | {"op_callstack", "with_quant_attr"} if opdef.no_extra_attrs else kept


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
    (Paddle's `_remove_training_info`); feed targets get need_check_feed.

    One departure: an input the program differentiates against (stop_gradient=False, which
    `data` does not default to) keeps `stop_gradient: false`, so `pyir grad` of the file
    differentiates against the inputs the program did (docs/saving.md, "stop_gradient")."""
    for var in block.vars.values():
        keep_false = var.name in feeds and var._flags.get("stop_gradient") is False
        var._flags = {k: v for k, v in var._flags.items()
                      if k not in ("is_parameter", "stop_gradient")}
        if var.name in feeds:
            var._flags["need_check_feed"] = True
        if keep_false:
            var._flags["stop_gradient"] = False
    block.vars = dict(sorted(block.vars.items()))


def add_feed_fetch(program: Program, feeds: list[str], fetches: list[str]) -> None:
    """Feed ops prepended one by one (so descending `col`), fetch ops appended, holders last.

    Example:
        >>> add_feed_fetch(copy, ["x"], ["fc_1.tmp_2"])
    """
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


__all__ = ["inference_program", "add_feed_fetch", "persistable_names", "pruned_to", "op_reads",
           "PADDLE_OP_VERSIONS"]
