"""Every package of the source tree is in pyproject.toml's package list, so a wheel built
from it (not only the editable install the tests use) holds all of pyir."""

from __future__ import annotations

import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_package_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for p in (ROOT / "pyir").rglob("__init__.py") if "__pycache__" not in p.parts}
    found.add("pyir.cli")
    assert found == listed, f"missing: {sorted(found - listed)}, stale: {sorted(listed - found)}"
