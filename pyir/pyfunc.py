"""(being written) the `py_func` builder."""


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    raise NotImplementedError("py_func is being written")
