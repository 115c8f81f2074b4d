"""pyir.callables: registration, resolution through search paths and entry points, Paddle ids,
and listing references without importing anything."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

import helpers_callables as hc
import pyir
from pyir import callables, static
from pyir.errors import CallableError, Where


def test_register_also_works_with_parentheses(tmp_path, fresh_module_name):
    write_module(tmp_path, fresh_module_name, """
        import pyir
        @pyir.register()
        def f(x):
            return x
    """)
    with callables.search_path([tmp_path]):
        assert callables.resolve(f"{fresh_module_name}:f")(5) == 5


def write_module(directory, name: str, body: str) -> None:
    (directory / f"{name}.py").write_text(textwrap.dedent(body))


@pytest.fixture
def fresh_module_name(request):
    """A module name unique to the test; removed from sys.modules afterwards."""
    name = "pyir_test_mod_" + request.node.name.replace("[", "_").replace("]", "_")
    yield name
    sys.modules.pop(name, None)


# --- registration -------------------------------------------------------------------------
def test_register_returns_the_function_and_records_its_reference():
    assert pyir.register is callables.register
    assert callables.registered_reference(hc.tanh) == "helpers_callables:tanh"
    assert callables.resolve("helpers_callables:tanh") is hc.tanh


def test_register_can_be_called_as_a_function(tmp_path, fresh_module_name):
    write_module(tmp_path, fresh_module_name, """
        import pyir
        def f(x):
            return x
        g = pyir.register(f)
    """)
    with callables.search_path([tmp_path]):
        fn = callables.resolve(f"{fresh_module_name}:f")
    assert fn is sys.modules[fresh_module_name].g


@pytest.mark.parametrize("make, reason", [
    (lambda: (lambda x: x), "a lambda"),
    (lambda: _nested(), "a nested function or closure"),
    (lambda: _Holder().method, "a bound method"),
    (lambda: _main_function(), "defined in __main__"),
    (lambda: np.float32(1), "not a function"),
])
def test_register_refuses_what_another_process_cannot_find(make, reason):
    with pytest.raises(CallableError, match=reason):
        pyir.register(make())


def _nested():
    def inner(x):
        return x
    return inner


class _Holder:
    def method(self, x):
        return x


def _main_function():
    def f(x):
        return x
    f.__module__, f.__qualname__ = "__main__", "f"
    return f


# --- resolution ---------------------------------------------------------------------------
def test_module_found_only_in_named_directories(tmp_path, fresh_module_name):
    write_module(tmp_path, fresh_module_name, """
        import pyir
        @pyir.register
        def double(x):
            return x * 2
    """)
    ref = f"{fresh_module_name}:double"
    with pytest.raises(CallableError, match="cannot import module .*--path DIR"):
        callables.resolve(ref)
    with callables.search_path([str(tmp_path)]):
        assert callables.resolve(ref)(3) == 6
    assert str(tmp_path) not in sys.path


def test_pyir_path_environment_variable(tmp_path, fresh_module_name, monkeypatch):
    write_module(tmp_path, fresh_module_name, """
        import pyir
        @pyir.register
        def triple(x):
            return x * 3
    """)
    monkeypatch.setenv("PYIR_PATH", str(tmp_path))
    assert callables.resolve(f"{fresh_module_name}:triple")(2) == 6


def test_unregistered_function_of_a_real_module_is_refused_and_named():
    with pytest.raises(CallableError) as info:
        callables.resolve("helpers_callables:unregistered_touch", Where(op_index=4))
    message = str(info.value)
    assert "'unregistered_touch' exists but is not registered" in message
    assert "op #4" in message and "registered there: " in message


def test_standard_library_is_never_imported(monkeypatch):
    monkeypatch.delitem(sys.modules, "antigravity", raising=False)
    with pytest.raises(CallableError, match="standard library"):
        callables.resolve("antigravity:fly")
    assert "antigravity" not in sys.modules


def test_import_error_inside_module_is_reported(tmp_path, fresh_module_name):
    write_module(tmp_path, fresh_module_name, "raise RuntimeError('broken module')\n")
    with callables.search_path([tmp_path]):
        with pytest.raises(CallableError, match="raised RuntimeError: broken module"):
            callables.resolve(f"{fresh_module_name}:f")


def test_local_reference_of_this_process_resolves_others_are_refused():
    fn = lambda x: x  # noqa: E731
    ref = callables.reference_for(fn)
    assert ref.startswith("test_callables:test_local_reference") and "<lambda>#local-" in ref
    assert callables.resolve(ref) is fn
    assert callables.reference_for(fn) == ref  # one reference per callable
    forged = ref.rsplit("-", 1)[0] + "-000000000000"
    with pytest.raises(CallableError, match="belongs to another process"):
        callables.resolve(forged)


def test_entry_point_registers_its_target(tmp_path, fresh_module_name, monkeypatch):
    write_module(tmp_path, fresh_module_name, """
        def plus_one(x):
            return x + 1
    """)
    dist = tmp_path / "pyir_test_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: pyir-test-plugin\n"
                                   "Version: 1.0\n")
    (dist / "entry_points.txt").write_text(
        f"[pyir.callables]\nplus_one = {fresh_module_name}:plus_one\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    fn = callables.resolve(f"{fresh_module_name}:plus_one")
    assert fn(1) == 2
    assert callables.registered_reference(fn) == f"{fresh_module_name}:plus_one"


# --- references(): nothing imported --------------------------------------------------------
def test_references_lists_without_importing(tmp_path):
    x = static.data("x", [2], "float32")
    y = static.default_main_program().current_block().create_var(name="y", dtype="float32",
                                                                 shape=[2])
    static.py_func(hc.tanh, x, y, backward_func=hc.tanh_grad)
    program = static.default_main_program()
    op = program.global_block().ops[0]
    op.attrs["forward_callable"] = "pyir_never_imported_mod:f"
    assert callables.references(program) == [
        (0, 0, "forward", "pyir_never_imported_mod:f"),
        (0, 0, "backward", "helpers_callables:tanh_grad")]
    assert "pyir_never_imported_mod" not in sys.modules


# --- Paddle's integer ids ------------------------------------------------------------------
def test_paddle_id_needs_a_binding():
    with pytest.raises(CallableError, match=r"bind_ids\(\{7: fn\}\)"):
        callables.resolve_id(7, Where(op_index=2))
    with callables.bind_ids({7: hc.tanh, 8: "helpers_callables:tanh_grad"}):
        assert callables.resolve_id(7, Where()) is hc.tanh
        assert callables.resolve_id(8, Where()) is hc.tanh_grad
    with pytest.raises(CallableError):
        callables.resolve_id(7, Where())


def test_binding_an_id_to_a_reference_is_resolved_like_a_file():
    with callables.bind_ids({0: "os:system"}):
        with pytest.raises(CallableError, match="standard library"):
            callables.resolve_id(0, Where())
