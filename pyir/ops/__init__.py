"""The op families, one module each (`@register_op` per op with its grad op right below).

None is imported here: the registry imports a family on the first lookup of one of its ops
(`pyir/op_index.py`, written by tools/gen_op_index.py and checked by tests/test_op_index.py),
so `import pyir` pays only for the ops a program uses. `pyir.registry.OPS.load_all()` imports
every family (listing or sweeping all ops does it by itself).
"""
