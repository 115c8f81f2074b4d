"""Writing files so that a reader never sees half of one: every write goes to a temp file in
the same directory, then a rename puts it in place.

    atomic_write(path, data)          one file
    write_files({path: data, ...})    several files, renamed together; on failure none exist
    staged_save(out, save)            `save(path)` into a scratch directory beside `out`, then
                                      the model and its `.pdiparams` sidecar moved into place
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from typing import Callable


def temp_beside(path: str) -> tuple[int, str]:
    """Create a new temp file in `path`'s directory: (fd, its path). Unlike mkstemp's 0600, it
    gets the mode an ordinary open would (0666 less the umask), which the rename then keeps.

    Example:
        >>> fd, tmp = temp_beside("out/model.pb")
    """
    directory = os.path.dirname(os.path.abspath(path))
    while True:
        tmp = os.path.join(directory, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue


def atomic_write(path: str, data: bytes) -> None:
    """Write `data` to `path` through a temp file in the same directory and a rename.

    Example:
        >>> atomic_write("out/model.pb", program.serialize_to_string())
    """
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_files(files: dict[str, bytes]) -> None:
    """Write every file through a temp file and rename them together; on failure none exist.
    Missing directories are created.

    Example:
        >>> write_files({"m.pb": program_bytes, "m.pdiparams": params_bytes})
    """
    temps = {}
    try:
        for path, data in files.items():
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            fd, tmp = temp_beside(path)
            temps[path] = tmp
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        for path, tmp in temps.items():
            os.replace(tmp, path)
    finally:
        for tmp in temps.values():
            if os.path.exists(tmp):
                os.unlink(tmp)


def staged_save(out: str, save: Callable[[str], object]) -> None:
    """Run `save(path)` into a scratch directory beside `out`, then move its files into place.

    The program and its `<stem>.pdiparams` sidecar appear together or not at all; a sidecar
    left from an earlier save of a program that had parameters is removed when this one has
    none.

    Example:
        >>> staged_save("out/mlp.pb", lambda path: save_model(path, main, ["x"], ["y"], scope))
    """
    directory = os.path.dirname(os.path.abspath(out))
    os.makedirs(directory, exist_ok=True)
    scratch = tempfile.mkdtemp(dir=directory, prefix=".pyir-build-")
    try:
        save(os.path.join(scratch, os.path.basename(out)))
        stem = os.path.splitext(out)[0]
        sidecar = os.path.join(scratch, os.path.basename(stem) + ".pdiparams")
        if os.path.exists(sidecar):
            os.replace(sidecar, stem + ".pdiparams")
        elif os.path.exists(stem + ".pdiparams"):
            os.unlink(stem + ".pdiparams")
        os.replace(os.path.join(scratch, os.path.basename(out)), out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


__all__ = ["atomic_write", "write_files", "staged_save", "temp_beside"]
