# Seed 000 (fluid.layers.py_func): the seed's example with three changes, marked "pyir:":
# `import pyir.fluid as fluid`; `range` for `six.moves.range` (six, the Python 2/3 shim, is
# not a pyir dependency); and the driver the seed leaves out (inputs, startup, one run).
# The seed also uses `np` without importing it.
#
#   python samples/seed000_fluid_py_func.py      runs in process and prints the loss
#   pyir build samples/seed000_fluid_py_func.py  fails at save time (tanh etc. are defined
#                                                here, not registered); the saveable variant
#                                                is samples/seed000_fluid_py_func_registered.py
import pyir.fluid as fluid  # pyir: was `import paddle.fluid as fluid`
import numpy as np  # pyir: used by the seed, never imported there

def create_tmp_var(name, dtype, shape):
    return fluid.default_main_program().current_block().create_var(
        name=name, dtype=dtype, shape=shape)

# Paddle C++ op提供的tanh激活函数
# 此处仅采用tanh作为示例展示py_func的使用方法
def tanh(x):
    return np.tanh(x)

# 跳过前向输入x
def tanh_grad(y, dy):
    return np.array(dy) * (1 - np.square(np.array(y)))

def debug_func(x):
    print(x)

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
