"""A static-graph CNN classifier built from nn layers inside program_guard (Conv2D, BatchNorm,
MaxPool2D, Linear), trained with Adam by an Executor; the test program is cloned before
minimize and evaluated with paddle.static.accuracy."""

import numpy as np

import pyir as paddle
import pyir.nn as nn
import pyir.nn.functional as F

paddle.enable_static()
paddle.seed(1)

rng = np.random.default_rng(42)
images = rng.standard_normal((12, 2, 6, 6)).astype("float32")
labels = rng.integers(0, 3, size=(12, 1)).astype("int64")


class ConvNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(2, 4, 3, padding=1, bias_attr=False)  # BatchNorm follows
        self.bn = nn.BatchNorm2D(4)
        self.pool = nn.MaxPool2D(2, 2)
        self.fc = nn.Linear(4 * 3 * 3, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.bn(self.conv(x))))
        return self.fc(paddle.flatten(x, 1))


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    img = paddle.static.data("img", [None, 2, 6, 6], "float32")
    lbl = paddle.static.data("lbl", [None, 1], "int64")
    net = ConvNet()
    logits = net(img)
    loss = F.cross_entropy(logits, lbl)
    acc = paddle.static.accuracy(F.softmax(logits), lbl)
    test_program = main.clone(for_test=True)
    paddle.optimizer.Adam(learning_rate=0.02).minimize(loss)

exe = paddle.static.Executor()
exe.run(startup)
# overwrite the random initialisation with fixed values
init = np.random.default_rng(7)
for p in sorted(net.parameters(), key=lambda p: p.name):
    value = (init.standard_normal(p.shape) * 0.3).astype("float32")
    paddle.static.global_scope().find_var(p.name).get_tensor().set(value, paddle.CPUPlace())

losses = []
for step in range(4):
    l, a = exe.run(main, feed={"img": images, "lbl": labels}, fetch_list=[loss, acc])
    losses.append(float(l))
test_loss, test_acc, test_logits = exe.run(test_program, feed={"img": images, "lbl": labels},
                                           fetch_list=[loss, acc, logits])
print("losses", losses, "test acc", test_acc)
results = {
    "losses": np.array(losses),
    "test_loss": test_loss,
    "test_acc": test_acc,
    "test_logits": test_logits,
    "n_params": len(net.parameters()),
}
