"""arrays.py — what an array handed to execute() is: address, shape, strides, dtype, device.

Owns: describe() for numpy arrays (host), torch tensors, and any object with
__cuda_array_interface__ or __dlpack__ (read through the DLPack capsule with ctypes; the capsule
is kept alive, never consumed), and check_binding(), which compares an array with the graph
tensor it is bound to and raises ValueError / TypeError naming the tensor and what differs.
Does not own: plans or the execute call (plan.py).
"""
import ctypes
from dataclasses import dataclass, field

import numpy as np

from .dtypes import itemsize, numpy_dtypes_for


@dataclass
class ArrayInfo:
    ptr: int
    shape: tuple
    strides: tuple          # elements
    dtype: str              # a numpy-style dtype name: "float32", "bfloat16", "uint16", ...
    device: str             # "cpu" or "cuda"
    writeable: bool = True
    torch_cuda_device: object = None  # the torch device of a torch CUDA tensor
    keep: list = field(default_factory=list)  # objects that keep the memory alive


def _element_strides(byte_strides, size, what):
    out = []
    for s in byte_strides:
        if s % size:
            raise ValueError(f"{what}: a stride of {s} bytes is not a whole number of {size}-byte elements")
        out.append(s // size)
    return tuple(out)


def _from_numpy(a):
    return ArrayInfo(a.ctypes.data, tuple(a.shape), _element_strides(a.strides, a.itemsize, "array"),
                     a.dtype.name, "cpu", bool(a.flags.writeable), keep=[a])


def _from_torch(t):
    name = str(t.dtype).replace("torch.", "")
    name = {"float": "float32", "half": "float16", "double": "float64"}.get(name, name)
    dev = "cuda" if t.is_cuda else "cpu"
    return ArrayInfo(t.data_ptr(), tuple(t.shape), tuple(t.stride()), name, dev,
                     torch_cuda_device=t.device if t.is_cuda else None, keep=[t])


def _from_cai(obj):
    cai = obj.__cuda_array_interface__
    dt = np.dtype(cai["typestr"])
    shape = tuple(cai["shape"])
    if cai.get("strides") is None:
        strides = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape)))
    else:
        strides = _element_strides(cai["strides"], dt.itemsize, "__cuda_array_interface__")
    ptr, read_only = cai["data"]
    return ArrayInfo(ptr or 0, shape, strides, dt.name, "cuda", not read_only, keep=[obj])


# ---- DLPack (https://dmlc.github.io/dlpack/latest/c_api.html), read-only use of the capsule
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 6: "bool"}
_DL_DEVICES = {1: "cpu", 3: "cpu", 2: "cuda", 10: "cuda", 13: "cuda"}  # CPU, CUDAHost, CUDA, ROCm, CUDAManaged

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


def _from_dlpack(obj):
    capsule = obj.__dlpack__()
    t = _DLTensor.from_address(_get_pointer(capsule, b"dltensor"))  # DLManagedTensor starts with it
    code = _DL_CODES.get(t.dtype.code)
    if code is None or t.dtype.lanes != 1:
        raise TypeError(f"__dlpack__: unsupported element type (code {t.dtype.code}, lanes {t.dtype.lanes})")
    name = "bool" if code == "bool" else ("bfloat16" if code == "bfloat" else f"{code}{t.dtype.bits}")
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[i] for i in range(t.ndim))
    else:
        strides = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(t.ndim))
    device = _DL_DEVICES.get(t.device.device_type, f"dlpack device type {t.device.device_type}")
    return ArrayInfo((t.data or 0) + t.byte_offset, shape, strides, name, device, keep=[obj, capsule])


def describe(obj):
    """ArrayInfo of a numpy array, torch tensor, or __cuda_array_interface__ / __dlpack__ object."""
    if isinstance(obj, np.ndarray):
        return _from_numpy(obj)
    if type(obj).__module__.startswith("torch") and hasattr(obj, "data_ptr"):
        return _from_torch(obj)
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cai(obj)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj)
    if hasattr(obj, "__array_interface__"):
        return _from_numpy(np.asarray(obj))
    raise TypeError(f"{type(obj).__name__} is not an array: pass a numpy array, a torch tensor, or an "
                    f"object with __cuda_array_interface__ or __dlpack__")


def check_binding(tensor, info, is_output, host_plan, engine_name):
    """Raises when the array cannot stand for the graph tensor."""
    what = f"tensor {tensor.name!r} (uid {tensor.uid})"
    if host_plan and info.device != "cpu":
        raise ValueError(f"{what}: the array is {info.device} memory, but the plan runs on engine "
                         f"'{engine_name}', which reads host memory: pass numpy arrays (or CPU tensors), "
                         f"or build for a GPU engine")
    if not host_plan and info.device == "cpu":
        raise ValueError(f"{what}: the array is host memory (numpy or a CPU tensor), but the plan runs on "
                         f"engine '{engine_name}' on the GPU: pass device arrays, or build with "
                         f"engine='reference' to run on the host")
    ok = numpy_dtypes_for(tensor.data_type)
    if info.dtype not in ok:
        raise TypeError(f"{what}: array dtype {info.dtype} does not hold {tensor.data_type.name} "
                        f"(accepted: {', '.join(sorted(ok))})")
    if list(info.shape) != list(tensor.dims):
        raise ValueError(f"{what}: array shape {list(info.shape)} differs from the graph's dims {tensor.dims}")
    if itemsize(tensor.data_type) is not None:
        bad = [i for i, d in enumerate(tensor.dims) if d > 1 and info.strides[i] != tensor.strides[i]]
        if bad:
            raise ValueError(f"{what}: array strides {list(info.strides)} (in elements) differ from the graph's "
                             f"{tensor.strides} in dim {bad[0]}; pass an array with the graph's layout "
                             f"(e.g. np.ascontiguousarray) or build the tensor with tensor_like(array)")
    if is_output and not info.writeable:
        raise ValueError(f"{what}: it is an output, but the array is read-only")


def empty(tensor, fill=None, dtype=None):
    """A numpy array laid out as the graph tensor (its dims and strides, its data type as
    numpy_dtype gives it: raw uint16 / uint8 for bf16 / fp8 without ml_dtypes), filled with
    `fill` when given. For host execution; outputs can be poisoned with fill=np.nan."""
    from .dtypes import numpy_dtype
    from .tensor import stride_order
    order = stride_order(tensor.strides)
    base = np.empty([tensor.dims[d] for d in order], dtype=dtype or numpy_dtype(tensor.data_type))
    if fill is not None:
        base[...] = fill
    inverse = [order.index(d) for d in range(len(order))]
    return base.transpose(inverse)
