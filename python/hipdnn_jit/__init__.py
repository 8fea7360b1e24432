"""hipdnn_jit — Python bindings of hipdnn-jit (libhipdnn_backend.so) through ctypes.

    import numpy as np, hipdnn_jit as hj
    g = hj.Graph(io_data_type="float")
    x = g.tensor(name="x", dims=[4, 8])
    y = g.relu(x).set_output(True)
    g.build(engine="reference")            # host arrays run on the reference engine
    out = np.empty((4, 8), np.float32)
    g.execute({x: np.random.randn(4, 8).astype(np.float32), y: out})

Files: _lib.py (loading, signatures, HipdnnError), _desc.py (descriptors), _enums.py (generated
from include/ at build time), dtypes.py, tensor.py, graph.py (the builder), ops.py / ops_sdpa.py
(op methods), arrays.py (array checks), plan.py (build, execute), runtime.py (version, log
level, kernel cache).
"""
from ._enums import (AttributeName, AttributeType, BehaviorNote, ConvolutionMode, DataType, DescriptorType,
                     DiagonalAlignment, HeurMode, NormFwdPhase, PointwiseMode, Severity, Status)
from ._lib import HipdnnError, library_path
from .arrays import empty
from .graph import Graph
from .runtime import (cache_dir, cache_stats, engines, get_log_level, set_compile_target, set_log_level,
                      version, warm)
from .tensor import Tensor

__version__ = "0.1.0"

__all__ = ["Graph", "Tensor", "HipdnnError", "DataType", "PointwiseMode", "ConvolutionMode", "NormFwdPhase",
           "DiagonalAlignment", "Status", "Severity", "HeurMode", "AttributeName", "AttributeType",
           "BehaviorNote", "DescriptorType", "version", "set_log_level", "get_log_level", "engines", "cache_dir",
           "cache_stats", "warm", "set_compile_target", "library_path", "empty"]
