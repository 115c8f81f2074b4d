"""Telling a PIR `.json` program from other bytes, without loading the reader: every program
load asks, and only `.json` files need pyir/pir's reader and translator (docs/pir-json.md)."""

from __future__ import annotations


def is_pir_json(data: bytes) -> bool:
    """True when `data` looks like a PIR program: a JSON object whose head names `base_code`.

    Example:
        >>> is_pir_json(open("model.json", "rb").read())
        True
    """
    head = data[:4096].lstrip()
    return head.startswith(b"{") and b'"base_code"' in head


__all__ = ["is_pir_json"]
