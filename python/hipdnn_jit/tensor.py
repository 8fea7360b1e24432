"""tensor.py — Tensor, one tensor of a Graph (the JSON model's TensorAttributes).

Owns: a tensor's uid, name, dims, strides (in elements), data type, virtual flag and by-value
scalar, and how it is written as JSON. An op's output starts virtual (an intermediate the
library may keep on chip) with its data type unset: unset resolves to the graph's
intermediate_data_type while virtual and to its io_data_type once set_output(True) makes it an
output. Does not own: ops (ops.py) or graphs (graph.py).
"""
from ._enums import DataType
from .dtypes import as_data_type

# By-value scalars: the JSON union member for each data type (serialize/schema/hipdnn_graph.fbs).
_VALUE_TYPES = {DataType.FLOAT: "Float32Value", DataType.HALF: "Float16Value",
                DataType.BFLOAT16: "BFloat16Value", DataType.DOUBLE: "Float64Value",
                DataType.INT32: "Int32Value", DataType.INT64: "Int64Value", DataType.BOOLEAN: "BoolValue"}


def packed_strides(dims, order=None):
    """Packed strides for dims; `order` lists the dims from outermost to innermost (default:
    row-major, the last dim contiguous)."""
    order = list(range(len(dims))) if order is None else order
    strides, step = [0] * len(dims), 1
    for d in reversed(order):
        strides[d] = step
        step *= max(int(dims[d]), 1)
    return strides


def stride_order(strides):
    """The dims of a layout from outermost to innermost (ties keep the row-major order)."""
    return sorted(range(len(strides)), key=lambda d: (-strides[d], d))


class Tensor:
    """A tensor of a Graph. Made by Graph.tensor / tensor_like or returned by op methods."""

    def __init__(self, graph, uid, name, dims, strides=None, data_type=None, is_virtual=False, value=None):
        self.graph, self.uid, self.name = graph, int(uid), str(name)
        self.dims = [int(d) for d in dims]
        if any(d < 1 for d in self.dims):
            raise ValueError(f"tensor {self.name!r}: dims {self.dims} must all be >= 1")
        self.strides = [int(s) for s in (packed_strides(self.dims) if strides is None else strides)]
        if len(self.strides) != len(self.dims):
            raise ValueError(f"tensor {self.name!r}: {len(self.strides)} strides {self.strides} for "
                             f"{len(self.dims)} dims {self.dims}")
        self._data_type = None if data_type is None else as_data_type(data_type)
        self.is_virtual = bool(is_virtual)
        self.value = value
        if value is not None:
            dt = self._data_type or DataType.FLOAT
            if dt not in _VALUE_TYPES:
                raise ValueError(f"tensor {self.name!r}: a by-value scalar of type {dt.name} is not "
                                 f"supported here; use one of {[t.name for t in _VALUE_TYPES]}")
            self._data_type = dt

    # ---- cuDNN-pygraph-style setters (each returns the tensor, so they chain)
    def set_output(self, is_output=True):
        """Makes the tensor a graph output (written to memory, bound at execute)."""
        self.is_virtual = not is_output
        return self

    def set_data_type(self, data_type):
        self._data_type = as_data_type(data_type)
        return self

    def set_name(self, name):
        self.name = str(name)
        return self

    def set_dims(self, dims):
        self.dims = [int(d) for d in dims]
        if len(self.strides) != len(self.dims):
            self.strides = packed_strides(self.dims)
        return self

    def set_strides(self, strides):
        self.strides = [int(s) for s in strides]
        return self

    # ---- reading
    @property
    def data_type(self):
        """The data type, resolved against the graph's defaults."""
        if self._data_type is not None:
            return self._data_type
        g = self.graph
        return g.intermediate_data_type if self.is_virtual else g.io_data_type

    @property
    def shape(self):
        return tuple(self.dims)

    @property
    def is_pass_by_value(self):
        return self.value is not None

    def to_dict(self):
        d = {"uid": self.uid, "name": self.name, "data_type": self.data_type.name,
             "strides": list(self.strides), "dims": list(self.dims)}
        if self.is_virtual:
            d["virtual"] = True
        if self.value is not None:
            v = self.value
            v = bool(v) if self.data_type == DataType.BOOLEAN else (
                int(v) if self.data_type in (DataType.INT32, DataType.INT64) else float(v))
            d["value_type"] = _VALUE_TYPES[self.data_type]
            d["value"] = {"value": v}
        return d

    @classmethod
    def from_dict(cls, graph, d):
        value = d["value"].get("value") if isinstance(d.get("value"), dict) else None
        return cls(graph, d.get("uid", 0), d.get("name", f"t{d.get('uid', 0)}"), d.get("dims", []),
                   d.get("strides"), d.get("data_type"), d.get("virtual", False), value)

    def __repr__(self):
        kind = "virtual" if self.is_virtual else ("value" if self.value is not None else "io")
        return (f"Tensor({self.name!r}, uid={self.uid}, dims={self.dims}, strides={self.strides}, "
                f"{self.data_type.name}, {kind})")

    # Tensors are keys of execute()'s dict: identity semantics.
    __hash__ = object.__hash__
