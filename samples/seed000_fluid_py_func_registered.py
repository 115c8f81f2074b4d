# ruff: noqa: E402
# Seed 000, saveable: samples/seed000_fluid_py_func.py with its three callables imported from
# samples/seed_pyfuncs.py (registered, no side effects) instead of defined here.
#
#   pyir build samples/seed000_fluid_py_func_registered.py -o seed000.pb
#   pyir run seed000.pb --path samples --feed samples/seed000_inputs.npz
import pyir.fluid as fluid  # pyir: was `import paddle.fluid as fluid`
import numpy as np  # pyir: used by the seed, never imported there

def create_tmp_var(name, dtype, shape):
    return fluid.default_main_program().current_block().create_var(
        name=name, dtype=dtype, shape=shape)

from seed_pyfuncs import tanh, tanh_grad, debug_func  # pyir: registered callables

def simple_net(img, label):
    hidden = img
    for idx in range(4):  # pyir: was six.moves.range(4)
        hidden = fluid.layers.fc(hidden, size=200)
        new_hidden = create_tmp_var(name='hidden_{}'.format(idx),
            dtype=hidden.dtype, shape=hidden.shape)

        # 用户自定义的前向反向计算
        hidden = fluid.layers.py_func(func=tanh, x=hidden,
            out=new_hidden, backward_func=tanh_grad,
            skip_vars_in_backward_input=hidden)

        # 用户自定义的调试层，可以打印出变量细则
        fluid.layers.py_func(func=debug_func, x=hidden, out=None)

    prediction = fluid.layers.fc(hidden, size=10, act='softmax')
    loss = fluid.layers.cross_entropy(input=prediction, label=label)
    return fluid.layers.mean(loss)

# pyir: the driver
img = fluid.data(name='img', shape=[1, 4], dtype='float32')
label = fluid.data(name='label', shape=[1, 1], dtype='int64')
avg_loss = simple_net(img, label)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(fluid.default_startup_program())
feed = {'img': np.random.random(size=[1, 4]).astype('float32'),
        'label': np.random.randint(0, 10, size=[1, 1]).astype('int64')}
print(exe.run(fluid.default_main_program(), feed=feed, fetch_list=[avg_loss]))
