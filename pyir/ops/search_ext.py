"""More ops (search_ext): one `@register_op` per op with its grad op right below (pyir/registry.py)."""

from __future__ import annotations
