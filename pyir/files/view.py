"""Showing a program in Netron (`pyir view MODEL`), the model viewer Paddle users know.

Netron picks its Paddle reader by file name (`.pdmodel`, `__model__`, `.paddle`), so a pyir
file named `.pb` would read as "Unsupported Protocol Buffers content": `serve_model` checks the
bytes are a program, then serves them under a `.pdmodel` name. Netron (`pip install netron`,
or `pip install 'pyir[view]'`) is optional; nothing else in pyir needs it.
"""

from __future__ import annotations

import os

from ..errors import PyirError, Where
from ..serialize import parse_program

NETRON_PADDLE_NAMES = (".pdmodel", "__model__", ".paddle")


def netron_name(path: str) -> str:
    """The name Netron is given for `path`: its own, when Netron's Paddle reader takes it.

    Example:
        >>> netron_name("out/mlp.pb")
        'mlp.pdmodel'
    """
    base = os.path.basename(path)
    if base.endswith(NETRON_PADDLE_NAMES):
        return base
    return os.path.splitext(base)[0] + ".pdmodel"


def serve_model(path: str, port: int = 0, browse: bool = True) -> tuple[tuple, str]:
    """Serve the program file `path` in Netron on localhost; returns (address, url). Stop it
    with `netron.stop(address)`.

    Args:
        port: the port (0: any free one).
        browse: open the page in the default web browser.

    Example:
        >>> address, url = serve_model("out/mlp.pb", browse=False)
    """
    try:
        import netron
    except ImportError:
        raise PyirError("Netron is not installed: pip install netron (or pip install "
                        "'pyir[view]'), or open the file at https://netron.app") from None
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise PyirError(f"cannot read model file: {e.strerror}", Where(file=path)) from None
    parse_program(data, file=path)  # a program, or a one-line error (imports nothing)
    # bytearray: Netron treats a bytes object as an in-memory model object instead.
    address = netron.serve(netron_name(path), bytearray(data), address=("localhost", port),
                           browse=browse)
    return address, f"http://{address[0]}:{address[1]}/"


__all__ = ["serve_model", "netron_name", "NETRON_PADDLE_NAMES"]
