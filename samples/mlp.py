"""A two-layer MLP classifier, written the `paddle.static` way with `import pyir as paddle`.

    pyir build samples/mlp.py -o out/mlp.pb        # out/mlp.pb + out/mlp.pdiparams
    pyir run out/mlp.pb --feed samples/mlp_input.npy

Input `x`: float32 [batch, 16]. Output: class probabilities, float32 [batch, 4].
"""

import pyir as paddle

paddle.enable_static()
paddle.seed(2024)  # the startup program's initializers draw from this stream

x = paddle.static.data(name="x", shape=[None, 16], dtype="float32")
hidden = paddle.static.nn.fc(x, size=32, activation="relu")
probs = paddle.static.nn.fc(hidden, size=4, activation="softmax")

if __name__ == "__main__":
    # `python samples/mlp.py` runs it in process; `pyir build` skips this block.
    import os

    import numpy as np

    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(paddle.static.default_startup_program())
    batch = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mlp_input.npy"))
    (out,) = exe.run(feed={"x": batch}, fetch_list=[probs])
    print(out)
