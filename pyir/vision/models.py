"""`paddle.vision.models`, the part a CPU script uses: `LeNet`, the network of Paddle's MNIST
tutorials (same layers, parameter names and state_dict keys as Paddle's). The larger
ImageNet models are not in pyir."""

from __future__ import annotations

from .. import nn
from ..tensor import manipulation as _manip
from .. import unsupported as _unsupported

__all__ = ["LeNet"]


class LeNet(nn.Layer):
    """Two conv + max-pool stages, then three Linear layers (for 1x28x28 inputs).

    Example:
        >>> net = pyir.vision.models.LeNet(num_classes=10)
        >>> net(pyir.zeros([2, 1, 28, 28])).shape
        [2, 10]
    """

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                    nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = self.fc(_manip.flatten(x, 1))
        return x


_MODELS = "the ImageNet models of paddle.vision.models are not in pyir (LeNet is)"
UNSUPPORTED = {name: _MODELS for name in (
    "ResNet", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "VGG", "vgg11",
    "vgg13", "vgg16", "vgg19", "MobileNetV1", "MobileNetV2", "MobileNetV3Small",
    "MobileNetV3Large", "mobilenet_v1", "mobilenet_v2", "AlexNet", "alexnet", "GoogLeNet",
    "googlenet", "DenseNet", "densenet121", "SqueezeNet", "ShuffleNetV2", "InceptionV3")}
__getattr__ = _unsupported.module_getattr(__name__, UNSUPPORTED)
