"""`paddle.vision.transforms` for arrays: `Compose`, `ToTensor`, `Normalize`, `Transpose`
(and the functions `to_tensor`, `normalize`), which a Dataset's `__getitem__` applies to
numpy images. They follow Paddle's numpy (cv2 backend) paths: `ToTensor` moves HWC to CHW
and scales uint8 by 1/255; `Normalize` computes `(img - mean) / std` in float32, a scalar
mean or std standing for three channels as in Paddle. PIL images and the random
augmentations are not in pyir."""

from __future__ import annotations

import numbers

import numpy as np

from .. import unsupported as _unsupported
from ..eager import Tensor, to_tensor as _to_tensor
from ..errors import PyirError

__all__ = ["Compose", "ToTensor", "Normalize", "Transpose", "to_tensor", "normalize"]


def _channel_first(data_format: str) -> bool:
    if data_format not in ("CHW", "HWC"):
        raise PyirError(f"transforms: data_format must be 'CHW' or 'HWC', got {data_format!r}")
    return data_format == "CHW"


def to_tensor(pic, data_format: str = "CHW") -> Tensor:
    """An HWC (or HW) numpy image as a Tensor, CHW by default; uint8 scaled to [0, 1]."""
    if isinstance(pic, Tensor):
        return pic
    img = np.asarray(pic)
    if img.ndim == 2:
        img = img[:, :, None]
    if img.ndim != 3:
        raise PyirError(f"to_tensor: expected an HWC or HW image, got shape {list(img.shape)}")
    if _channel_first(data_format):
        img = img.transpose((2, 0, 1))
    if img.dtype == np.uint8:
        return _to_tensor(img.astype(np.float32) / np.float32(255.0))
    return _to_tensor(np.ascontiguousarray(img))


def normalize(img, mean, std, data_format: str = "CHW", to_rgb: bool = False):
    """(img - mean) / std per channel, for a numpy image or a Tensor."""
    shape = (-1, 1, 1) if _channel_first(data_format) else (1, 1, -1)
    mean = np.float32(np.array(mean)).reshape(shape)
    std = np.float32(np.array(std)).reshape(shape)
    if isinstance(img, Tensor):
        return (img - _to_tensor(mean)) / _to_tensor(std)
    img = np.asarray(img)
    if to_rgb:
        img = img[..., ::-1]
    return (img - mean) / std


class _Transform:
    def __call__(self, img):
        return self._apply_image(img)


class Compose:
    """Apply transforms in order."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, data):
        for transform in self.transforms:
            data = transform(data)
        return data


class ToTensor(_Transform):
    def __init__(self, data_format: str = "CHW", keys=None):
        _channel_first(data_format)
        self.data_format = data_format

    def _apply_image(self, img):
        return to_tensor(img, self.data_format)


class Normalize(_Transform):
    def __init__(self, mean=0.0, std=1.0, data_format: str = "CHW", to_rgb: bool = False,
                 keys=None):
        self.mean = [mean] * 3 if isinstance(mean, numbers.Number) else mean
        self.std = [std] * 3 if isinstance(std, numbers.Number) else std
        _channel_first(data_format)
        self.data_format, self.to_rgb = data_format, to_rgb

    def _apply_image(self, img):
        return normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Transpose(_Transform):
    """Permute the axes of an image (HWC -> CHW by default; an HW image gets a C axis)."""

    def __init__(self, order=(2, 0, 1), keys=None):
        self.order = tuple(order)

    def _apply_image(self, img):
        if isinstance(img, Tensor):
            return img.transpose(list(self.order))
        img = np.asarray(img)
        if img.ndim == 2:
            img = img[..., np.newaxis]
        return img.transpose(self.order)


_AUGMENT = "the random and PIL-based augmentations of paddle.vision.transforms are not in pyir"
UNSUPPORTED = {name: _AUGMENT for name in (
    "Resize", "RandomResizedCrop", "CenterCrop", "RandomHorizontalFlip", "RandomVerticalFlip",
    "BrightnessTransform", "SaturationTransform", "ContrastTransform", "HueTransform",
    "ColorJitter", "RandomCrop", "Pad", "RandomAffine", "RandomRotation", "RandomPerspective",
    "Grayscale", "RandomErasing", "BaseTransform")}
__getattr__ = _unsupported.module_getattr(__name__, UNSUPPORTED)
