"""(being written) save_inference_model / load_inference_model and model files."""


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, **kwargs):
    raise NotImplementedError("save_inference_model is being written")


def load_inference_model(path_prefix, executor, **kwargs):
    raise NotImplementedError("load_inference_model is being written")
