"""The seeds' py_func callables, registered so that saved programs can name them.

This module has no import-time side effects (it only defines and registers functions), which
is what makes it safe for `pyir run` to import it in another process. The bodies are the
seeds' own. A program built from `samples/*_registered.py` refers to them as
`seed_pyfuncs:tanh` etc.; run it from any directory with

    pyir run model.pb --path /path/to/samples ...      (or PYIR_PATH=/path/to/samples)
"""

import sys

import numpy as np

import pyir

if __name__ == "__main__":
    sys.exit(print("samples/seed_pyfuncs.py is a helper module, not a script: it holds the "
                   "registered py_func callables that samples/*_registered.py and "
                   "samples/train_seed003.py import. Run one of those instead."))


@pyir.register
def tanh(x):
    return np.tanh(x)


@pyir.register
def tanh_grad(y, dy):
    return np.array(dy) * (1 - np.square(np.array(y)))


@pyir.register
def debug_func(x):
    print(x)


@pyir.register
def element_wise_add(x, y):
    # Tensor must be actively converted to numpy array, otherwise,
    # numpy.shape can't be used.
    x = np.array(x)
    y = np.array(y)

    if x.shape != y.shape:
        raise AssertionError("the shape of inputs must be the same!")

    result = np.zeros(x.shape, dtype='int32')
    for i in range(len(x)):
        for j in range(len(x[0])):
            result[i][j] = x[i][j] + y[i][j]

    return result
