"""(being written) static_pylayer."""


def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    raise NotImplementedError("static_pylayer is being written")
