"""The pyir exception tree and `Where`, the place an error happened.

Every failure a user can cause is a `PyirError`. Its message names the place (file, block,
op index, op type, variable, callable) so the CLI can print it as one line with no traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Where:
    """A location in a program; every field is optional."""

    file: str | None = None
    block: int | None = None
    op_index: int | None = None
    op_type: str | None = None
    var: str | None = None
    callable: str | None = None

    def with_(self, **changes) -> "Where":
        return replace(self, **changes)

    def __str__(self) -> str:
        parts = []
        if self.file is not None:
            parts.append(self.file)
        if self.block is not None:
            parts.append(f"block {self.block}")
        if self.op_index is not None:
            op = f"op #{self.op_index}"
            parts.append(f"{op} {self.op_type}" if self.op_type else op)
        elif self.op_type is not None:
            parts.append(f"op {self.op_type}")
        if self.var is not None:
            parts.append(f"variable {self.var!r}")
        if self.callable is not None:
            parts.append(f"callable {self.callable!r}")
        return ", ".join(parts)


class PyirError(Exception):
    """Base of every error pyir raises for a user's mistake."""

    def __init__(self, message: str, where: Where | None = None):
        self.message = message
        self.where = where or Where()
        super().__init__(self.__str__())

    def __str__(self) -> str:
        place = str(self.where)
        return f"{place}: {self.message}" if place else self.message

    def at(self, **changes) -> "PyirError":
        """Return the same error with more of its place filled in (keeps fields already set)."""
        filled = {k: v for k, v in changes.items() if getattr(self.where, k) is None}
        err = type(self).__new__(type(self))
        err.__dict__.update(self.__dict__)
        err.where = self.where.with_(**filled)
        Exception.__init__(err, err.__str__())
        err.__cause__ = self.__cause__
        return err


class FormatError(PyirError):
    """A file is not a valid ProgramDesc / parameter file."""


class CheckError(PyirError):
    """A program does not match the op registry (unknown op, bad slot or attribute, ...)."""


class BuildError(PyirError):
    """A program cannot be built as asked (bad argument to a builder function)."""


class FeedError(PyirError):
    """A fed value does not match its `data` variable."""


class KernelError(PyirError):
    """An op's kernel raised or returned something other than what the IR declares."""


class CallableError(PyirError):
    """A py_func callable cannot be referenced, resolved or trusted."""


class GradError(PyirError):
    """The backward pass cannot differentiate a program as asked."""


class Interrupted(PyirError):
    """The user stopped a run (Ctrl-C); the message names the op that was running."""
