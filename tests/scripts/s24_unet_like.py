"""A tiny encoder-decoder for images: Conv2D with stride, GroupNorm, InstanceNorm2D,
Conv2DTranspose, Upsample / interpolate, skip connections with concat, AvgPool2D,
AdaptiveAvgPool2D, Conv1D over a sequence, PixelShuffle, F.pad; trained with Adam on an
L1 + SSIM-free pixel loss."""

import numpy as np

import pyir as paddle
import pyir.nn as nn
import pyir.nn.functional as F


class TinyUNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2D(2, 4, 3, stride=2, padding=1), nn.GroupNorm(2, 4),
                                  nn.ReLU())
        self.mid = nn.Sequential(nn.Conv2D(4, 4, 3, padding=1), nn.InstanceNorm2D(4), nn.ELU())
        self.up = nn.Conv2DTranspose(4, 4, kernel_size=2, stride=2)
        self.up2 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.out = nn.Conv2D(4 + 4 + 2, 2, 1)
        self.shuffle = nn.PixelShuffle(2)

    def forward(self, x):
        d = self.down(x)
        m = self.mid(d)
        u = self.up(m)
        u2 = self.up2(d)
        y = self.out(paddle.concat([u, u2, x], axis=1))
        return y, self.shuffle(paddle.tile(m, [1, 1, 1, 1]))


net = TinyUNet()
rng = np.random.default_rng(44)
for _, p in net.named_parameters():
    if not p.stop_gradient:
        p.set_value((rng.standard_normal(p.shape) * 0.3).astype("float32"))
x = paddle.to_tensor(rng.standard_normal((2, 2, 8, 8)).astype("float32"))
target = paddle.to_tensor(rng.standard_normal((2, 2, 8, 8)).astype("float32"))
opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
losses = []
for _ in range(4):
    y, _ = net(x)
    loss = F.l1_loss(y, target) + 0.5 * F.mse_loss(y, target)
    loss.backward()
    opt.step()
    opt.clear_grad()
    losses.append(float(loss))

y, shuffled = net(x)
seq = paddle.to_tensor(rng.standard_normal((2, 3, 10)).astype("float32"))
conv1d = nn.Conv1D(3, 2, kernel_size=3, padding="same", dilation=2)
conv1d.weight.set_value(np.full((2, 3, 3), 0.1, "float32"))
conv1d.bias.set_value(np.zeros(2, "float32"))
results = {
    "losses": np.array(losses),
    "y": y.numpy(),
    "shuffled_shape": np.array(shuffled.shape),
    "avgpool": F.avg_pool2d(x, 2, stride=2, padding=1, exclusive=False).numpy(),
    "adaptive": nn.AdaptiveAvgPool2D((3, 2))(x).numpy(),
    "nearest": F.interpolate(x, size=[5, 7], mode="nearest").numpy(),
    "bicubic": F.interpolate(x, scale_factor=1.5, mode="bicubic", align_corners=True).numpy(),
    "pad_reflect": F.pad(x, [1, 2, 0, 1], mode="reflect").numpy(),
    "pad_const": F.pad(x, [1, 1, 1, 1], value=2.0).numpy(),
    "conv1d": conv1d(seq).numpy(),
    "unfold": F.unfold(x, kernel_sizes=3, strides=2).numpy(),
}
print(losses)
