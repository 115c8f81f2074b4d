"""`pyir.batch`: Paddle's reader decorator for reader-style training loops."""

from __future__ import annotations

from .errors import PyirError


def batch(reader, batch_size: int, drop_last: bool = False):
    """A reader yielding lists of `batch_size` samples of `reader()` (the last one shorter,
    unless `drop_last`).

    Example:
        >>> for rows in pyir.batch(lambda: iter(range(5)), 2)():
        ...     print(rows)        # [0, 1] [2, 3] [4]
    """
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
        raise PyirError(f"batch_size must be a positive int, got {batch_size!r}")

    def batched():
        rows = []
        for sample in reader():
            rows.append(sample)
            if len(rows) == batch_size:
                yield rows
                rows = []
        if rows and not drop_last:
            yield rows

    return batched
