"""`paddle.pir_utils`: Paddle's switches between its two IRs. pyir builds only the legacy
ProgramDesc, so the guards do nothing and `test_with_pir_api` runs a test once, in legacy
mode (what Paddle's own tests do with FLAGS_enable_pir_api=0)."""

from __future__ import annotations

import contextlib
import functools


def test_with_pir_api(func):
    """Decorator from Paddle's tests: runs `func` once (legacy programs).

    Example:
        >>> @test_with_pir_api
        ... def test_forward(self): ...
    """

    @functools.wraps(func)
    def run(*args, **kwargs):
        return func(*args, **kwargs)

    return run


test_with_pir_api.__test__ = False  # a decorator, not a test for pytest to collect


@contextlib.contextmanager
def OldIrGuard():  # noqa: N802 - Paddle's name
    """Legacy programs inside: what pyir always builds."""
    yield


@contextlib.contextmanager
def IrGuard():  # noqa: N802 - Paddle's name
    """Paddle's PIR mode; pyir keeps building legacy programs (they load in Paddle 3)."""
    yield


def test_with_dygraph_pir(func):
    return test_with_pir_api(func)


test_with_dygraph_pir.__test__ = False

__all__ = ["test_with_pir_api", "OldIrGuard", "IrGuard", "test_with_dygraph_pir"]
