"""The nn.Layer API a custom model leans on: create_parameter and register_buffer in
__init__, LayerList / LayerDict / ParameterList, forward pre/post hooks, apply() with an init
function, named_sublayers, tensor gradient hooks, nn.utils.clip_grad_norm_ and
parameters_to_vector, paddle.summary, and train()/eval() switching a Dropout."""

import numpy as np

import pyir as paddle
import pyir.nn as nn


class ResidualBlock(nn.Layer):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.scale = self.create_parameter([dim], default_initializer=nn.initializer.Constant(0.5))
        self.register_buffer("calls", paddle.zeros([1]))

    def forward(self, x):
        self.calls += 1.0
        return x + self.scale * paddle.tanh(self.fc(x))


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([ResidualBlock(4) for _ in range(3)])
        self.heads = nn.LayerDict({"a": nn.Linear(4, 2), "b": nn.Linear(4, 1)})
        self.extra = nn.ParameterList([self.create_parameter([4], is_bias=True)])
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        x = self.drop(x + self.extra[0])
        return self.heads["a"](x), self.heads["b"](x)


def init_weights(layer):
    # a deterministic init applied by Layer.apply to every Linear
    if isinstance(layer, nn.Linear):
        n = layer.weight.shape[0] * layer.weight.shape[1]
        layer.weight.set_value(np.linspace(-0.5, 0.5, n, dtype="float32").reshape(
            layer.weight.shape))
        layer.bias.set_value(np.full(layer.bias.shape, 0.1, dtype="float32"))


net = Net()
net.apply(init_weights)

seen = []
pre = net.blocks[0].register_forward_pre_hook(lambda layer, inputs: (inputs[0] * 2.0,))
post = net.heads["b"].register_forward_post_hook(
    lambda layer, inputs, output: seen.append(output.shape) or output + 1.0)

x_np = np.random.default_rng(2).standard_normal((5, 4)).astype("float32")
x = paddle.to_tensor(x_np, stop_gradient=False)
grads_seen = []
x.register_hook(lambda g: grads_seen.append(float(g.abs().sum())))

net.eval()
a, b = net(x)
loss = a.pow(2).mean() + b.mean()
loss.backward()
total_norm = nn.utils.clip_grad_norm_(net.parameters(), max_norm=0.1)
clipped_norm = float(paddle.sqrt(sum((p.grad ** 2).sum() for p in net.parameters()
                                     if p.grad is not None)))
flat = nn.utils.parameters_to_vector(net.parameters())
pre.remove()
post.remove()
a2, b2 = net(x)

net.train()
train_out = net(paddle.ones([2, 4]))[0]
n_zero = int((net.drop(paddle.ones([100])) == 0).sum())

info = paddle.summary(net, (1, 4))
results = {
    "a": a.numpy(), "b": b.numpy(), "a2": a2.numpy(), "b2": b2.numpy(),
    "total_norm": float(total_norm), "clipped_norm": clipped_norm,
    "x_grad": x.grad.numpy(), "hook_sum": np.array(grads_seen),
    "flat": flat.numpy(), "calls": net.blocks[0].calls.numpy(),
    "keys": np.array(list(net.state_dict().keys())),
    "sublayers": np.array([name for name, _ in net.named_sublayers()]),
    "seen": np.array(seen), "n_params": len(net.parameters()),
    "summary_total": info["total_params"], "summary_trainable": info["trainable_params"],
    "dropout_zero_fraction_ok": 20 < n_zero < 80,
    "train_shape": np.array(train_out.shape),
}
print({k: v for k, v in results.items() if np.size(v) < 4})
