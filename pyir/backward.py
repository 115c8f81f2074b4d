"""(being written) append_backward / gradients."""


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None):
    raise NotImplementedError("append_backward is being written")


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    raise NotImplementedError("gradients is being written")
