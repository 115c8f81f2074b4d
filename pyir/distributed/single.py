"""The part of `paddle.distributed` that means something in one process: the rank queries
training scripts guard their logging and checkpoints with
(`if paddle.distributed.get_rank() == 0: paddle.save(...)`). pyir runs in a single process,
which is what Paddle reports when no launcher started it: rank 0 of a world of 1,
`init_parallel_env()` does nothing, the global group is not initialized. Collectives and the
launcher are refused (pyir/distributed/__init__.py)."""

from __future__ import annotations

__all__ = ["get_rank", "get_world_size", "is_initialized", "init_parallel_env",
           "ParallelEnv", "is_available"]


def get_rank(group=None) -> int:
    """0: pyir is the only process."""
    return 0


def get_world_size(group=None) -> int:
    """1: pyir is the only process."""
    return 1


def is_initialized() -> bool:
    """False, as Paddle answers before (or without) a multi-process launch."""
    return False


def is_available() -> bool:
    """False: pyir has no collective communication."""
    return False


def init_parallel_env():
    """Nothing to set up for one process (Paddle returns None there too)."""
    return None


class ParallelEnv:
    """The environment of the single pyir process: rank 0 of 1, device 0."""

    rank = local_rank = dev_id = device_id = 0
    world_size = nranks = 1
    current_endpoint = ""
    trainer_endpoints: list = []
    device_type = "cpu"
