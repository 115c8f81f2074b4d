"""Boilerplate from GPU-first training scripts run on a CPU: set_device / get_device, the
version, paddle.amp.auto_cast and GradScaler (on a CPU Paddle turns both off and warns, so
the numbers are float32's), no_grad as a decorator, paddle.is_tensor / in_dynamic_mode, the
rank guard of multi-GPU scripts and iterating over a tensor's rows."""

import numpy as np

import pyir as paddle

paddle.set_device("cpu")
device = paddle.get_device()
rng = np.random.default_rng(6)
model = paddle.nn.Sequential(paddle.nn.Linear(3, 5), paddle.nn.GELU(), paddle.nn.Linear(5, 1))
for _, p in model.named_parameters():
    p.set_value((rng.standard_normal(p.shape) * 0.5).astype("float32"))
opt = paddle.optimizer.Adam(learning_rate=0.05, parameters=model.parameters())
scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
model, opt = paddle.amp.decorate(models=model, optimizers=opt, level="O1")
x = paddle.to_tensor(rng.standard_normal((8, 3)).astype("float32"))
y = paddle.to_tensor(rng.standard_normal((8, 1)).astype("float32"))

losses, dtypes = [], []
for _ in range(4):
    with paddle.amp.auto_cast(enable=True, level="O1"):
        pred = model(x)
        loss = paddle.nn.functional.mse_loss(pred, y)
    dtypes.append(pred.dtype == paddle.float32)
    scaled = scaler.scale(loss)
    scaled.backward()
    scaler.step(opt)
    scaler.update()
    opt.clear_grad()
    losses.append(float(loss))


@paddle.no_grad()
def predict(inputs):
    return model(inputs)


out = predict(x)
rows = [float(row.sum()) for row in out]     # iterating a tensor yields its rows
rank, world = paddle.distributed.get_rank(), paddle.distributed.get_world_size()
if rank == 0:                                # only the first worker writes checkpoints
    paddle.save(model.state_dict(), "ckpt/last.pdparams")
results = {
    "rows": np.array(rows), "rank": rank, "world": world,
    "n_gpu": paddle.device.cuda.device_count(),
    "device": device, "losses": np.array(losses), "dtypes": np.array(dtypes),
    "pred_stop_gradient": out.stop_gradient, "pred": out.numpy(),
    "is_tensor": paddle.is_tensor(out), "dynamic": paddle.in_dynamic_mode(),
    "scaler_enabled": scaler.is_enable(),
    "version_is_str": isinstance(paddle.__version__, str),
}
print(results)
