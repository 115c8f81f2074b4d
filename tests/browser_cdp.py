"""Headless Chromium (Debian's `chromium`) driven over the DevTools protocol on a pipe, with
the standard library only: the browser reads commands on fd 3 and writes replies on fd 4, each
a JSON message ending in a NUL byte (`--remote-debugging-pipe`)."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-pipe"]


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Page:
    """One browser tab: `evaluate(js)` returns the expression's value."""

    def __init__(self, browser: "Chromium", session: str):
        self.browser, self.session = browser, session

    def send(self, method: str, **params) -> dict:
        return self.browser.send(method, self.session, **params)

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60.0):
        """Poll `expression` until it is truthy; its value, or None after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.25)
        return None


class Chromium:
    def __init__(self, profile_dir: str):
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()

        def fds_3_and_4():  # in the child, before exec; dup first so neither clobbers the other
            a, b = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen([chromium_path(), *FLAGS, f"--user-data-dir={profile_dir}",
                                      "about:blank"], preexec_fn=fds_3_and_4, pass_fds=(3, 4),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._w, self._r, self._buffer = to_browser_w, from_browser_r, b""
        self._ids = itertools.count(1)

    def send(self, method: str, session: str | None = None, **params) -> dict:
        ident = next(self._ids)
        message = {"id": ident, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._w, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == ident:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _read(self) -> dict:
        while b"\0" not in self._buffer:
            chunk = os.read(self._r, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed its DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def new_page(self) -> Page:
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        page = Page(self, session)
        page.send("Network.enable")
        page.send("Page.enable")
        return page

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        os.close(self._w)
        os.close(self._r)
