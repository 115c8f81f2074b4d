"""`DataFeeder`: turns reader rows (one tuple per sample) into the feed dict of a batch."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import PyirError
from ..framework import Variable, default_main_program


class DataFeeder:
    """Stacks the i-th field of every sample into an array for `feed_list[i]`, with the
    variable's dtype, reshaped to its declared shape (the free batch dim takes the rest).

    Example:
        >>> feeder = fluid.DataFeeder(feed_list=[img, label], place=fluid.CPUPlace())
        >>> exe.run(main, feed=feeder.feed(rows), fetch_list=[loss])
    """

    def __init__(self, feed_list, place=None, program=None):
        program = program or default_main_program()
        self.feed_vars: list[Variable] = []
        for item in feed_list:
            var = program.global_block().var(item) if isinstance(item, str) else item
            if not isinstance(var, Variable):
                raise PyirError(f"DataFeeder: feed_list holds Variables or their names, got "
                                f"{type(item).__name__}")
            if var.lod_level:
                raise PyirError(f"DataFeeder: {var.name} is a LoD sequence (lod_level="
                                f"{var.lod_level}), which pyir does not support; pad the "
                                f"sequences and declare a dense input")
            self.feed_vars.append(var)
        self.place = place

    @property
    def feed_names(self) -> list[str]:
        return [v.name for v in self.feed_vars]

    def feed(self, iterable) -> dict:
        """{name: batch array} from an iterable of samples (tuples of fields)."""
        columns = [[] for _ in self.feed_vars]
        for i, sample in enumerate(iterable):
            if len(sample) != len(self.feed_vars):
                raise PyirError(f"DataFeeder: sample {i} has {len(sample)} fields, the feed "
                                f"list has {len(self.feed_vars)} ({', '.join(self.feed_names)})")
            for column, field in zip(columns, sample):
                column.append(np.asarray(field))
        return {var.name: self._batch(var, column)
                for var, column in zip(self.feed_vars, columns)}

    @staticmethod
    def _batch(var: Variable, column: list) -> np.ndarray:
        array = np.array(column, dtype=dtypes.to_numpy(var.dtype) if var.dtype is not None
                         else None)
        shape = list(var.shape or ())
        if shape and sum(d < 0 for d in shape) == 1:
            try:
                array = array.reshape(shape)
            except ValueError:
                raise PyirError(f"DataFeeder: a batch of shape {list(array.shape)} does not "
                                f"fit {var.name}'s declared shape {shape}") from None
        return array

    def decorate_reader(self, reader, multi_devices=False, num_places=None, drop_last=True):
        """A reader yielding feed dicts instead of sample lists."""
        def decorated():
            for rows in reader():
                yield self.feed(rows)
        return decorated


__all__ = ["DataFeeder"]
