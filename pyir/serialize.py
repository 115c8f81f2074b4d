"""Program <-> Paddle legacy ProgramDesc protobuf (writing files is `pyir.files`'s job).

One table (`_ATTR_CODECS`) maps each AttrType to the proto field that carries it; there are
no per-op cases. Parsing then serializing a Paddle file gives back identical bytes: op slot
and attribute order, attribute types and which optional VarDesc fields were present are kept.
"""

from __future__ import annotations

from sys import intern as _sys_intern

from google.protobuf.message import DecodeError, EncodeError

from . import dtypes, registry
from ._proto import framework_pb2 as pb
from .errors import FormatError, PyirError, Where
from . import pir
from .framework import (DENSE_TENSOR, DENSE_TENSOR_ARRAY, FEED_MINIBATCH, FETCH_LIST,
                        Parameter, SELECTED_ROWS, STEP_SCOPES, VAR_FLAGS, Block, Operator,
                        Program, Variable, bulk_objects)

A = pb.AttrType
PADDLE_VERSION = 3003001  # the Paddle release whose legacy format pyir writes (3.3.1)


# --- attributes: AttrType -> (proto field, is repeated) ------------------------------------
_ATTR_CODECS: dict[int, tuple[str, bool]] = {
    A.INT: ("i", False),
    A.FLOAT: ("f", False),
    A.STRING: ("s", False),
    A.INTS: ("ints", True),
    A.FLOATS: ("floats", True),
    A.STRINGS: ("strings", True),
    A.BOOLEAN: ("b", False),
    A.BOOLEANS: ("bools", True),
    A.BLOCK: ("block_idx", False),
    A.LONG: ("l", False),
    A.BLOCKS: ("blocks_idx", True),
    A.LONGS: ("longs", True),
    A.FLOAT64S: ("float64s", True),
    A.VAR: ("var_name", False),
    A.VARS: ("vars_name", True),
    A.FLOAT64: ("float64", False),
    A.SCALAR: ("scalar", False),
    A.SCALARS: ("scalars", True),
}


# Enum values as plain ints: attribute access on protobuf enum wrappers is slow per call.
_SCALAR_BOOLEAN, _SCALAR_LONG, _SCALAR_FLOAT64 = (int(pb.Scalar.BOOLEAN), int(pb.Scalar.LONG),
                                                  int(pb.Scalar.FLOAT64))
_A_SCALAR, _A_SCALARS = int(A.SCALAR), int(A.SCALARS)
_FIELD_OF = {t: field for t, (field, _) in _ATTR_CODECS.items()}
_REPEATED = frozenset(t for t, (_, repeated) in _ATTR_CODECS.items() if repeated)
_STRING_TYPES = frozenset((int(A.STRING), int(A.VAR)))
_STRINGS_TYPES = frozenset((int(A.STRINGS), int(A.VARS)))


def _scalar_to_py(s: pb.Scalar):
    t = s.type
    if t == _SCALAR_BOOLEAN:
        return s.b
    if t == _SCALAR_LONG:
        return s.i
    if t == _SCALAR_FLOAT64:
        return s.r
    return complex(s.c.r, s.c.i)


def _scalar_from_py(value, out: pb.Scalar) -> None:
    if isinstance(value, bool):
        out.type, out.b = pb.Scalar.BOOLEAN, value
    elif isinstance(value, int):
        out.type, out.i = pb.Scalar.LONG, value
    elif isinstance(value, float):
        out.type, out.r = pb.Scalar.FLOAT64, value
    else:
        value = complex(value)
        out.type = pb.Scalar.COMPLEX128
        out.c.r, out.c.i = value.real, value.imag


def decode_attr(attr: pb.OpDesc.Attr):
    """The Python value of an OpDesc.Attr (lists for repeated types, block indices for blocks)."""
    t = attr.type
    value = getattr(attr, _FIELD_OF[t])
    if t in _REPEATED:
        return [_scalar_to_py(s) for s in value] if t == _A_SCALARS else list(value)
    return _scalar_to_py(value) if t == _A_SCALAR else value


def encode_attr(name: str, attr_type: int, value, out: pb.OpDesc.Attr) -> None:
    out.name = name
    out.type = attr_type
    field, repeated = _ATTR_CODECS[attr_type]
    if attr_type == A.SCALAR:
        _scalar_from_py(value, out.scalar)
    elif attr_type == A.SCALARS:
        for v in value:
            _scalar_from_py(v, out.scalars.add())
    elif repeated:
        getattr(out, field).extend(value)
    else:
        setattr(out, field, value)


# --- variables -----------------------------------------------------------------------------
def _var_to_desc(var: Variable, out: pb.VarDesc) -> None:
    out.name = var.name
    if var.raw_type is not None:
        out.type.CopyFrom(var.raw_type)
    else:
        out.type.type = var.type
        tensor = None
        if var.type == DENSE_TENSOR:
            tensor = out.type.dense_tensor
        elif var.type == DENSE_TENSOR_ARRAY:
            tensor = out.type.tensor_array
        if tensor is not None:
            tensor.tensor.data_type = dtypes.to_code(var.dtype)
            tensor.tensor.dims.extend(var.shape)
            if var.lod_level is not None:
                tensor.legacy_lod_level = var.lod_level
        elif var.type == SELECTED_ROWS:
            out.type.selected_rows.data_type = dtypes.to_code(var.dtype)
            out.type.selected_rows.dims.extend(var.shape)
    for flag in VAR_FLAGS:
        if flag in var._flags:
            setattr(out, flag, var._flags[flag])
    out.attrs.extend(var.raw_attrs)


def _var_from_desc(block: Block, desc: pb.VarDesc, seen: dict) -> Variable:
    vtype = desc.type
    # a big program has few distinct variable types; Partial: a damaged file may lack a
    # required field, which the checks below report (not the encoder)
    key = _key(vtype, f"the type of variable {desc.name!r}")
    known = seen.get(key)
    if known is None:
        _require_fields(vtype, f"the type of variable {desc.name!r}")
        known = seen[key] = _var_type(vtype)
    kind, dtype, shape, lod, raw = known
    name = _intern(desc.name)
    try:
        var = Variable(block, name, dtype, None, type=kind, persistable=None, lod_level=lod)
    except PyirError as e:
        raise FormatError(e.message, Where(block=block.idx, var=name)) from None
    var.shape = shape  # the decoded type's tuple of ints, shared by the variables of that type
    if raw is not None:
        var.raw_type = pb.VarType()
        var.raw_type.CopyFrom(raw)
    flags = {}
    for flag in VAR_FLAGS:
        if desc.HasField(flag):
            flags[flag] = getattr(desc, flag)
    var._flags = flags
    if desc.attrs:  # copied, so the parsed ProgramDesc is not kept alive by its parts
        var.raw_attrs = [_check_utf8(pb.VarDesc.Attr.FromString(a.SerializePartialToString()))
                         for a in desc.attrs]
    return var


def _var_type(vtype: pb.VarType) -> tuple:
    """(kind, dtype, shape, lod level, VarType proto pyir only carries) of a VarDesc type."""
    kind = vtype.type
    dtype = shape = lod = raw = None
    if kind == DENSE_TENSOR or kind == DENSE_TENSOR_ARRAY:
        holder = vtype.dense_tensor if kind == DENSE_TENSOR else vtype.tensor_array
        tensor = holder.tensor
        dtype = _dtype_of(tensor.data_type)
        shape = tuple([int(d) for d in tensor.dims])
        lod = holder.legacy_lod_level if holder.HasField("legacy_lod_level") else None
    elif kind == SELECTED_ROWS:
        dtype = _dtype_of(vtype.selected_rows.data_type)
        shape = tuple([int(d) for d in vtype.selected_rows.dims])
    elif kind not in (FEED_MINIBATCH, FETCH_LIST, STEP_SCOPES):
        raw = _check_utf8(pb.VarType.FromString(vtype.SerializePartialToString()))
    return kind, dtype, shape, lod, raw


_dtype_codes: dict = {}


def _dtype_of(code: int):
    """dtypes.to_numpy for a VarType code, remembered (a big program has one per variable)."""
    dtype = _dtype_codes.get(code)
    if dtype is None:
        dtype = _dtype_codes[code] = dtypes.to_numpy(code)
    return dtype


class _NotUtf8(Exception):
    """A string field of the file held bytes that are not UTF-8 text: proto2 parsing leaves
    bytes there, on which `_intern` (sys.intern, which shares the names a big program
    repeats) raises TypeError; see program_from_desc."""


_intern = _sys_intern


def _check_utf8(msg):
    if _non_utf8_field(msg) is not None:
        raise _NotUtf8()
    return msg


# --- ops ------------------------------------------------------------------------------------
def _op_to_desc(op: Operator, out: pb.OpDesc) -> None:
    for slot, names in op.inputs.items():
        out.inputs.add(parameter=slot, arguments=names)
    for slot, names in op.outputs.items():
        out.outputs.add(parameter=slot, arguments=names)
    out.type = op.type
    for name, value in op.attrs.items():
        attr_type = op.attr_types.get(name)
        if attr_type is None:
            attr_type = registry.attr_type_for(op.type, name, value)
        try:
            encode_attr(name, attr_type, value, out.attrs.add())
        except (TypeError, ValueError) as e:
            raise PyirError(f"attribute {name!r} = {value!r} does not fit type "
                            f"{A.Name(attr_type)}: {e}", op.where()) from None
    if op.is_target is not None:
        out.is_target = op.is_target


def _op_from_desc(block: Block, desc: pb.OpDesc, seen: dict) -> Operator:
    """The Operator of `desc`, which this empties of its slots: the rest of it (type,
    attributes) is then the key under which `seen` keeps its decoded form, as a big
    program repeats the same attributes op after op."""
    inputs = {}
    for v in desc.inputs:
        inputs[_intern(v.parameter)] = list(map(_intern, v.arguments))
    outputs = {}
    for v in desc.outputs:
        outputs[_intern(v.parameter)] = list(map(_intern, v.arguments))
    desc.ClearField("inputs")
    desc.ClearField("outputs")
    key = _key(desc, f"an op of type {desc.type!r}")  # Partial: see _var_from_desc
    known = seen.get(key)
    if known is None:
        _require_fields(desc, f"an op of type {desc.type!r}")
        known = seen[key] = _op_rest(desc)
    op_type, attrs, types, lists, is_target = known
    attrs = attrs.copy()
    for name in lists:  # each op owns its list values
        attrs[name] = list(attrs[name])
    return Operator.from_parts(block, op_type, inputs, outputs, attrs, types.copy(), is_target)


def _key(msg, what: str) -> bytes:
    """The message's bytes as a cache key (upb refuses even a partial encoding of some
    messages missing a required field: that is the file's fault, said by _require_fields)."""
    try:
        return msg.SerializePartialToString()
    except EncodeError:
        _require_fields(msg, what)
        raise


def _require_fields(msg, what: str) -> None:
    """proto2 `required` fields a damaged file left out (an attribute without its type reads
    as INT 0): a FormatError, checked once per distinct message."""
    if not msg.IsInitialized():
        missing = msg.FindInitializationErrors()
        raise FormatError(f"not a Paddle/pyir ProgramDesc: {what} lacks the required field "
                          f"{missing[0]}" + (f" ({len(missing)} missing)" if len(missing) > 1
                                             else ""))


def _op_rest(desc: pb.OpDesc) -> tuple:
    """(type, attributes, their AttrTypes, names of list-valued ones, is_target) of `desc`."""
    attrs = {}
    types = {}
    for a in desc.attrs:
        name = _intern(a.name)
        t = a.type
        value = getattr(a, _FIELD_OF[t])
        if t in _REPEATED:
            if t in _STRINGS_TYPES:
                value = [_intern(n) for n in value]
            else:
                value = [_scalar_to_py(s) for s in value] if t == _A_SCALARS else list(value)
        elif t in _STRING_TYPES:
            value = _intern(value)
        elif t == _A_SCALAR:
            value = _scalar_to_py(value)
        attrs[name] = value
        types[name] = t
    lists = tuple(name for name, value in attrs.items() if value.__class__ is list)
    return (_intern(desc.type), attrs, types, lists,
            desc.is_target if desc.HasField("is_target") else None)


# --- programs -------------------------------------------------------------------------------
def program_to_desc(program: Program) -> pb.ProgramDesc:
    desc = pb.ProgramDesc()
    for block in program.blocks:
        bd = desc.blocks.add()
        bd.idx = block.idx
        bd.parent_idx = block.parent_idx
        for var in block.vars.values():
            _var_to_desc(var, bd.vars.add())
        for op in block.ops:
            _op_to_desc(op, bd.ops.add())
        if block.forward_block_idx is not None:
            bd.forward_block_idx = block.forward_block_idx
    if program.version is not None:
        desc.version.version = program.version
    if program.op_version_map is not None:
        desc.op_version_map.SetInParent()
        for name, version in program.op_version_map:
            desc.op_version_map.pair.add(op_name=name).op_version.version = version
    return desc


def program_from_desc(desc: pb.ProgramDesc) -> Program:
    """The Program of a parsed ProgramDesc; the desc is used up (its ops lose their slots)."""
    try:
        with bulk_objects():
            return _program_from_desc(desc)
    except (_NotUtf8, TypeError):
        bad = _non_utf8_field(desc)
        if bad is None:
            raise
        raise FormatError(f"not a Paddle/pyir ProgramDesc: field {bad} holds bytes that are "
                          f"not UTF-8 text (corrupt file?)") from None


def _program_from_desc(desc: pb.ProgramDesc) -> Program:
    return _program_from_blocks(((bd, (bd,)) for bd in desc.blocks), desc)


def _program_from_blocks(blocks, top: pb.ProgramDesc) -> Program:
    """The Program of `blocks`: (BlockDesc with the block's idx fields, BlockDescs holding its
    vars and ops, in order) per block; `top` holds the version fields."""
    program = Program()
    seen: dict = {}        # op bytes without slots -> decoded rest (_op_from_desc)
    seen_types: dict = {}  # VarType bytes -> decoded type (_var_from_desc)
    program.blocks = []
    for i, (bd, parts) in enumerate(blocks):
        if bd.idx != i:
            raise FormatError(f"block at position {i} says idx={bd.idx}", Where(block=i))
        block = Block(program, bd.idx, bd.parent_idx,
                      bd.forward_block_idx if bd.HasField("forward_block_idx") else None)
        program.blocks.append(block)
        variables = block.vars
        ops = []
        for part in parts:
            for vd in part.vars:
                var = _var_from_desc(block, vd, seen_types)
                variables[var.name] = var
            ops += [_op_from_desc(block, od, seen) for od in part.ops]
        block.ops = ops
    if not program.blocks:
        raise FormatError("the program has no blocks")
    program.version = top.version.version if top.HasField("version") else None
    if top.HasField("op_version_map"):
        program.op_version_map = [(_intern(p.op_name), p.op_version.version)
                                  for p in top.op_version_map.pair]
    return program


# --- big files: parsed a slice of ops at a time ---------------------------------------------
# The parsed protobuf of a program takes ~8x its file size; holding it whole beside the
# Program it becomes doubles a big program's peak memory. A file of SLICED_BYTES or more is
# cut at its blocks' var and op boundaries (read from the wire format: a tag and a length per
# entry) into BlockDescs of SLICE_ENTRIES entries each, parsed and converted one at a time.
# Anything unusual in the framing gives None, and the whole-message path decides.
SLICED_BYTES = 4 << 20
SLICE_ENTRIES = 2048
_BLOCKS_FIELD, _VARS_FIELD, _OPS_FIELD = 1, 3, 4


class _Unusual(Exception):
    """The bytes are not plainly framed as expected: leave them to the whole-message path."""


def _fields(data: bytes, start: int, end: int):
    """(field number, start of its tag, start of its value, end) of each field in
    data[start:end], with only length-delimited and varint fields expected."""
    pos = start
    while pos < end:
        tag_at = pos
        key, pos = _varint(data, pos)
        kind = key & 7
        if kind == 2:
            size, pos = _varint(data, pos)
            at, pos = pos, pos + size
        elif kind == 0:
            at = pos
            _, pos = _varint(data, pos)
        else:
            raise _Unusual()
        if pos > end:
            raise _Unusual()
        yield key >> 3, tag_at, at, pos


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise _Unusual()
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def _block_slices(data: bytes, start: int, end: int) -> tuple:
    """(BlockDesc of the block's other fields, [(start, end) of each slice of entries])."""
    header = []
    slices = []
    first = count = None
    last = start
    for field, tag_at, _, stop in _fields(data, start, end):
        if field == _VARS_FIELD or field == _OPS_FIELD:
            if first is None:
                first, count = tag_at, 0
            count += 1
            if count == SLICE_ENTRIES:
                slices.append((first, stop))
                first = None
        else:
            if first is not None:
                slices.append((first, tag_at))
                first = None
            header.append(data[tag_at:stop])
        last = stop
    if first is not None:
        slices.append((first, last))
    return pb.BlockDesc.FromString(b"".join(header)), slices


def _parse_sliced(data: bytes) -> Program | None:
    """The Program of big legacy bytes, parsed a slice at a time; None when the whole-message
    path must decide (unusual framing, bytes protobuf refuses, text that is not UTF-8)."""
    try:
        blocks, rest = [], []
        for field, tag_at, at, stop in _fields(data, 0, len(data)):
            if field == _BLOCKS_FIELD:
                blocks.append(_block_slices(data, at, stop))
            else:
                rest.append(data[tag_at:stop])
        if not blocks:
            return None
        top = pb.ProgramDesc.FromString(b"".join(rest))

        def parts(slices):
            for a, b in slices:
                yield pb.BlockDesc.FromString(data[a:b])

        with bulk_objects():
            return _program_from_blocks(((bd, parts(slices)) for bd, slices in blocks), top)
    except (_Unusual, _NotUtf8, TypeError, DecodeError, RuntimeWarning):
        return None


def serialize_program(program: Program) -> bytes:
    """Paddle legacy bytes for `program`, after checking its py_func callables can be saved."""
    for block in program.blocks:
        for op in block.ops:
            opdef = registry.lookup(op.type)
            if opdef is not None and opdef.check_save is not None:
                opdef.check_save(op)
    return program_to_desc(program).SerializeToString()


def parse_program(data: bytes, file: str | None = None) -> Program:
    """Parse Paddle legacy ProgramDesc bytes, or a Paddle 3 PIR `.json` program (detected by
    content: docs/pir-json.md); a FormatError names the file when it is neither."""
    if pir.is_pir_json(data):
        return pir.parse_pir_program(data, file)  # the reader loads on the first .json
    if len(data) >= SLICED_BYTES:  # a big program: a slice of its ops at a time
        try:
            program = _parse_sliced(data)
        except PyirError as e:
            raise e.at(file=file) from None
        if program is not None:
            return program
    desc = pb.ProgramDesc()
    try:
        desc.ParseFromString(data)
    except (DecodeError, RuntimeWarning) as e:
        raise FormatError(f"not a Paddle/pyir ProgramDesc (truncated or not protobuf: {e})",
                          Where(file=file)) from None
    if not desc.blocks:
        raise FormatError("not a Paddle/pyir ProgramDesc: it has no blocks", Where(file=file))
    try:
        return program_from_desc(desc)
    except PyirError as e:
        raise e.at(file=file) from None


def _non_utf8_field(msg) -> str | None:
    """The first string field holding non-UTF-8 bytes (proto2 parsing keeps them as bytes)."""
    for field, value in msg.ListFields():
        values = value if field.is_repeated else (value,)
        if field.type == field.TYPE_STRING:
            if any(isinstance(v, bytes) for v in values):
                return field.full_name
        elif field.type == field.TYPE_MESSAGE:
            for v in values:
                if (bad := _non_utf8_field(v)) is not None:
                    return bad
    return None


def load_program(path: str) -> Program:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise FormatError(f"cannot read model file: {e.strerror}", Where(file=path)) from None
    program = parse_program(data, file=path)
    program.source = path
    return program


# --- Program methods that go through the wire form ------------------------------------------
def clone_program(program: Program, for_test: bool = False) -> Program:
    """A deep copy (through the wire form, so it is exactly what a save would write). With
    for_test=True, every op with an `is_test` attribute gets True.

    Example:
        >>> test_program = main.clone(for_test=True)
    """
    copy = program_from_desc(program_to_desc(program))
    _copy_python_state(program, copy)
    if for_test:
        for block in copy.blocks:
            for op in block.ops:
                if "is_test" in op.attrs:
                    op.attrs["is_test"] = True
    return copy


def _copy_python_state(src: Program, dst: Program) -> None:
    """Carry what the wire does not hold (Parameter class, trainable, callables) across a copy."""
    for sb, db in zip(src.blocks, dst.blocks):
        for name, var in sb.vars.items():
            if isinstance(var, Parameter) and name in db.vars:
                old = db.vars[name]
                param = Parameter(db, name, old.dtype, old.shape, trainable=var.trainable)
                param._flags = dict(old._flags)
                param.lod_level = old.lod_level
                db.vars[name] = param
        for sop, dop in zip(sb.ops, db.ops):
            if hasattr(sop, "callables"):
                dop.callables = dict(sop.callables)
    dst.random_seed = src.random_seed


def _serialize_to_string(self: Program) -> bytes:
    """The program as Paddle legacy ProgramDesc bytes.

    Raises CallableError when a py_func callable cannot be referenced from another process.
    """
    return serialize_program(self)


def _parse_from_string(data: bytes) -> Program:
    """A Program from Paddle legacy ProgramDesc bytes."""
    return parse_program(data)


# The IR sits below this module; its methods that need the wire form are installed here.
Program.clone = clone_program
Program.serialize_to_string = _serialize_to_string
Program.parse_from_string = staticmethod(_parse_from_string)
