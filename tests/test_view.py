"""Viewing in Netron: a pyir-written file opens in Netron (from PyPI) in a real headless
Chromium (Debian's), whose page shows the ops and, in the sidebar, a py_func's callable."""

from __future__ import annotations

import time

import helpers_callables as hc
import pyir
from browser_cdp import Chromium, chromium_path
from conftest import assert_one_line_error, cli
from pyir.executor import Scope
from pyir.files import save_model
from pyir.files.view import netron_name, serve_model

import netron  # a test dependency (pyproject's [test] extra)


def py_func_model(path) -> str:
    x = pyir.static.data(name="x", shape=[-1, 3], dtype="float32")
    h = pyir.static.nn.fc(x, size=4)
    out = pyir.static.default_main_program().current_block().create_var(
        name="t", dtype="float32", shape=h.shape)
    pyir.static.py_func(func=hc.tanh, x=h, out=out, backward_func=hc.tanh_grad)
    y = pyir.nn.functional.softmax(out)
    scope = Scope()
    pyir.static.Executor().run(pyir.static.default_startup_program(), scope=scope)
    save_model(str(path), pyir.static.default_main_program(), ["x"], [y.name], scope)
    return str(path)


def test_netron_names():
    assert netron_name("out/mlp.pb") == "mlp.pdmodel"
    assert netron_name("a/b.pdmodel") == "b.pdmodel"
    assert netron_name("__model__") == "__model__"


def test_a_pyir_file_opens_in_netron_in_a_real_browser(tmp_path):
    assert chromium_path(), "Debian's chromium is needed (make test installs it as root)"
    model = py_func_model(tmp_path / "m.pb")  # .pb: served under a .pdmodel name
    address, url = serve_model(model, browse=False)
    browser = Chromium(str(tmp_path / "profile"))
    try:
        page = browser.new_page()
        # Netron asks for cookie consent first; a `consent` cookie skips the dialog.
        page.send("Network.setCookie", name="consent", value=str(int(time.time() * 1000)),
                  url=url)
        page.send("Page.navigate", url=url)
        nodes = page.wait_for("Array.from(document.querySelectorAll('#canvas g.node'))"
                              ".map(e => e.textContent)", timeout=90)
        assert nodes, page.evaluate("document.body.innerText")
        shown = " | ".join(nodes)
        for op in ("mul", "elementwise_add", "py_func", "softmax"):
            assert op in shown, shown
        clicked = page.evaluate(
            "(() => { const node = Array.from(document.querySelectorAll('#canvas g.node'))"
            ".find(e => e.textContent.startsWith('py_func'));"
            " (node.querySelector('path, rect') || node).dispatchEvent("
            "new MouseEvent('click', {bubbles: true})); return true; })()")
        assert clicked
        sidebar = page.wait_for("document.getElementById('sidebar').innerText.includes("
                                "'helpers_callables:tanh') && document.getElementById("
                                "'sidebar').innerText", timeout=30)
        assert sidebar and "helpers_callables:tanh_grad" in sidebar
    finally:
        browser.close()
        netron.stop(address)


def test_view_refuses_a_file_that_is_not_a_program(tmp_path):
    (tmp_path / "junk.pb").write_bytes(b"\x00\x01 not a program")
    assert_one_line_error(cli("view", tmp_path / "junk.pb", "--no-browser"),
                          "not a Paddle/pyir ProgramDesc")
    assert_one_line_error(cli("view", tmp_path / "none.pb", "--no-browser"),
                          "cannot read model file")


def test_view_without_netron_says_how_to_install_it(tmp_path, monkeypatch):
    import sys
    model = py_func_model(tmp_path / "m.pb")
    monkeypatch.setitem(sys.modules, "netron", None)  # import netron -> ImportError
    assert_one_line_error(cli("view", model, "--no-browser"), "pip install netron")
