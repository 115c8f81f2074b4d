"""`fluid.unique_name` / `base.unique_name`: `generate("fc")` -> fc_0, fc_1, ...; `guard()`
restarts the counters inside a block."""

from __future__ import annotations

from ..framework import UniqueNameGenerator, unique_name


def generate(key: str) -> str:
    """The next name for `key`: `key_0`, `key_1`, ...

    Example:
        >>> fluid.unique_name.generate("fc")
        'fc_0'
    """
    return unique_name.generate(key)


def generate_with_ignorable_key(key: str) -> str:
    return unique_name.generate_with_ignorable_key(key)


def guard(new_generator=None):
    """Fresh counters inside the `with` block (a str prefix is accepted and ignored).

    Example:
        >>> with fluid.unique_name.guard():
        ...     build_model()          # names start again at _0
    """
    return unique_name.guard(new_generator if isinstance(new_generator, UniqueNameGenerator)
                             else None)


def switch(new_generator=None) -> UniqueNameGenerator:
    """Install `new_generator` (default: a fresh one); returns the previous generator."""
    old = unique_name.generator
    unique_name.generator = new_generator or UniqueNameGenerator()
    return old


__all__ = ["generate", "generate_with_ignorable_key", "guard", "switch"]
