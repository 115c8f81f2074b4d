"""Containers: Sequential, LayerList, LayerDict, ParameterList, ParameterDict."""

from __future__ import annotations

import collections

from ..errors import BuildError
from ..layer_helper import is_parameter
from .layer_base import Layer

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList", "ParameterDict"]


class Sequential(Layer):
    """Layers run one after another; built from layers (named "0", "1", ...), (name, layer)
    pairs or an OrderedDict.

    Example:
        >>> model = pyir.nn.Sequential(pyir.nn.Linear(4, 8), pyir.nn.ReLU())
    """

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], collections.OrderedDict):
            layers = tuple(layers[0].items())
        if layers and all(isinstance(item, (list, tuple)) for item in layers):
            for name, layer in layers:
                self.add_sublayer(name, layer)
        else:
            for i, layer in enumerate(layers):
                self.add_sublayer(str(i), layer)

    def __getitem__(self, index):
        items = list(self._sub_layers.values())
        if isinstance(index, slice):
            return Sequential(*items[index])
        if isinstance(index, str):
            return self._sub_layers[index]
        if not -len(items) <= index < len(items):
            raise IndexError(f"Sequential index {index} out of range ({len(items)} layers)")
        return items[index]

    def __setitem__(self, index, layer):
        key = list(self._sub_layers)[index] if isinstance(index, int) else index
        self.add_sublayer(key, layer)

    def __delitem__(self, index):
        del self._sub_layers[list(self._sub_layers)[index]]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sublayers (named "0", "1", ...), indexable and iterable.

    Example:
        >>> blocks = pyir.nn.LayerList([pyir.nn.Linear(4, 4) for _ in range(3)])
    """

    def __init__(self, sublayers=None):
        super().__init__()
        for i, layer in enumerate(sublayers or []):
            self.add_sublayer(str(i), layer)

    def _index(self, idx: int) -> int:
        n = len(self._sub_layers)
        if not -n <= idx < n:
            raise IndexError(f"LayerList index {idx} out of range ({n} layers)")
        return idx % n

    def __getitem__(self, idx):
        items = list(self._sub_layers.values())
        if isinstance(idx, slice):
            return type(self)(items[idx])
        return items[self._index(idx)]

    def __setitem__(self, idx, sublayer):
        self.add_sublayer(str(self._index(idx)), sublayer)

    def __delitem__(self, idx):
        items = list(self._sub_layers.values())
        del items[idx]
        self._sub_layers.clear()
        for i, layer in enumerate(items):
            self._sub_layers[str(i)] = layer

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, sublayer):
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index: int, sublayer):
        items = list(self._sub_layers.values())
        items.insert(index, sublayer)
        self._sub_layers.clear()
        for i, layer in enumerate(items):
            self.add_sublayer(str(i), layer)

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """Sublayers by name, like an ordered dict.

    Example:
        >>> heads = pyir.nn.LayerDict({"cls": pyir.nn.Linear(8, 2)})
    """

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        if isinstance(sublayers, (dict, LayerDict)):
            pairs = sublayers.items()
        else:
            pairs = list(sublayers)
            if not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in pairs):
                raise BuildError("LayerDict.update: expected a mapping or (name, layer) pairs")
        for key, layer in pairs:
            self.add_sublayer(key, layer)


class ParameterList(Layer):
    """A list of parameters (state_dict keys "0", "1", ...)."""

    def __init__(self, parameters=None):
        super().__init__()
        for i, p in enumerate(parameters or []):
            self.add_parameter(str(i), p)

    def __getitem__(self, idx):
        return list(self._parameters.values())[idx]

    def __setitem__(self, idx, param):
        self.add_parameter(str(idx % len(self)), param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        self.add_parameter(str(len(self)), parameter)
        return self


class ParameterDict(Layer):
    """Parameters by name."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        self.add_parameter(key, param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def update(self, parameters):
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for key, p in pairs:
            if not is_parameter(p):
                raise BuildError(f"ParameterDict: {key!r} must be a parameter, got "
                                 f"{type(p).__name__}")
            self.add_parameter(key, p)
