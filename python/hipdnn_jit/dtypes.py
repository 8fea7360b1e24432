"""dtypes.py — data types: names a user may write, numpy dtypes, element sizes.

Owns: as_data_type() (DataType, its name in any case, or a numpy/torch dtype -> DataType),
numpy_dtypes_for() (which numpy dtypes may hold a tensor of a DataType: the exact type — bf16
and fp8 through ml_dtypes when it is installed — or a raw unsigned view of the same width),
itemsize(). The DataType enum itself is generated from include/HipdnnDataType.h (_enums.py).
"""
import numpy as np

from ._enums import DataType

try:  # optional: real bf16 / fp8 numpy dtypes
    import ml_dtypes as _ml
except ImportError:  # pragma: no cover - depends on the environment
    _ml = None

_ALIASES = {
    "float32": DataType.FLOAT, "fp32": DataType.FLOAT, "float": DataType.FLOAT,
    "float64": DataType.DOUBLE, "fp64": DataType.DOUBLE,
    "float16": DataType.HALF, "fp16": DataType.HALF, "half": DataType.HALF,
    "bfloat16": DataType.BFLOAT16, "bf16": DataType.BFLOAT16,
    "int8": DataType.INT8, "uint8": DataType.UINT8, "int32": DataType.INT32, "int64": DataType.INT64,
    "bool": DataType.BOOLEAN,
    "float8_e4m3fn": DataType.FP8_E4M3, "float8_e5m2": DataType.FP8_E5M2,
    "float8_e8m0fnu": DataType.FP8_E8M0, "float4_e2m1fn": DataType.FP4_E2M1,
    "float8_e4m3fnuz": DataType.FP8_E4M3_FNUZ, "float8_e5m2fnuz": DataType.FP8_E5M2_FNUZ,
}

# bytes per element; None: packed sub-byte types
_SIZES = {DataType.FLOAT: 4, DataType.DOUBLE: 8, DataType.HALF: 2, DataType.BFLOAT16: 2,
          DataType.INT8: 1, DataType.UINT8: 1, DataType.INT32: 4, DataType.INT64: 8,
          DataType.BOOLEAN: 1, DataType.FP8_E4M3: 1, DataType.FP8_E5M2: 1, DataType.FP8_E8M0: 1,
          DataType.FP8_E4M3_FNUZ: 1, DataType.FP8_E5M2_FNUZ: 1}

_NUMPY = {DataType.FLOAT: "float32", DataType.DOUBLE: "float64", DataType.HALF: "float16",
          DataType.INT8: "int8", DataType.UINT8: "uint8", DataType.INT32: "int32",
          DataType.INT64: "int64", DataType.BOOLEAN: "bool"}
_ML = {DataType.BFLOAT16: "bfloat16", DataType.FP8_E4M3: "float8_e4m3fn", DataType.FP8_E5M2: "float8_e5m2",
       DataType.FP8_E8M0: "float8_e8m0fnu", DataType.FP8_E4M3_FNUZ: "float8_e4m3fnuz",
       DataType.FP8_E5M2_FNUZ: "float8_e5m2fnuz", DataType.FP4_E2M1: "float4_e2m1fn"}


def as_data_type(value):
    """DataType from a DataType, an int, a name ("BFLOAT16", "bf16", "float32"), or a dtype."""
    if isinstance(value, DataType):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return DataType(value)
    if isinstance(value, str):
        key = value.strip()
        if key.upper() in DataType.__members__:
            return DataType[key.upper()]
        if key.lower() in _ALIASES:
            return _ALIASES[key.lower()]
        raise ValueError(f"unknown data type {value!r}; use a DataType member or one of "
                         f"{sorted(DataType.__members__)} / {sorted(_ALIASES)}")
    text = str(value)
    if text.startswith("torch."):  # torch dtypes: torch.float32, torch.bfloat16, ...
        name = {"float": "float32", "half": "float16", "double": "float64"}.get(text[6:], text[6:])
    else:
        try:
            name = np.dtype(value).name
        except TypeError:
            raise TypeError(f"no hipDNN data type for {value!r}") from None
    if name in _ALIASES:
        return _ALIASES[name]
    raise TypeError(f"no hipDNN data type for {value!r}")


def itemsize(dt):
    """Bytes per element, or None for a packed sub-byte type (FP4, INT4, FP6)."""
    return _SIZES.get(as_data_type(dt))


def numpy_dtype(dt):
    """The numpy dtype that holds dt exactly (ml_dtypes for bf16 / fp8), else its raw unsigned
    view (uint16 for bf16, uint8 for fp8 and packed types) when ml_dtypes is missing."""
    dt = as_data_type(dt)
    if dt in _NUMPY:
        return np.dtype(_NUMPY[dt])
    if _ml is not None and dt in _ML and hasattr(_ml, _ML[dt]):
        return np.dtype(getattr(_ml, _ML[dt]))
    return np.dtype("uint16" if _SIZES.get(dt) == 2 else "uint8")


def numpy_dtypes_for(dt):
    """Every numpy dtype name an array for a tensor of dt may have."""
    dt = as_data_type(dt)
    ok = {numpy_dtype(dt).name}
    if dt in _ML:  # the exact type's name, as ml_dtypes, torch and DLPack spell it
        ok.add(_ML[dt])
    if dt not in _NUMPY:  # raw views of the bits are accepted
        ok.add("uint16" if _SIZES.get(dt) == 2 else "uint8")
        # __cuda_array_interface__ has no typestr for bf16 / fp8: torch says "<V2" / "|V1" (raw bytes)
        ok.add("void16" if _SIZES.get(dt) == 2 else "void8")
    return ok


def from_numpy_dtype(dtype):
    """DataType of a numpy dtype (ml_dtypes included); TypeError when there is none."""
    name = np.dtype(dtype).name
    if name in _ALIASES:
        return _ALIASES[name]
    raise TypeError(f"numpy dtype {name} has no hipDNN data type (raw uint16/uint8 arrays need an "
                    f"explicit data_type, e.g. data_type='bfloat16')")
