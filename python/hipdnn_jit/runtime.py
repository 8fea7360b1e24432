"""runtime.py — process-wide controls: library version, log level, engines, kernel cache
(default directory, stats, warming a graph for a target arch).

Owns the module functions hipdnn_jit re-exports: version(), set_log_level(), get_log_level(),
engines(), cache_dir(), cache_stats(), warm(), set_compile_target(). Everything goes through the
library's public calls (hipdnnBackendSetGlobalLogLevel_ext, hipdnnKernelCache*_ext,
hipdnnSetCompileTarget_ext).
"""
import ctypes

from . import _lib
from ._enums import Severity
from .plan import engines  # noqa: F401  (re-exported)


def version():
    """The library's version string (hipdnnVersionString_ext)."""
    return _lib.lib.hipdnnVersionString_ext().decode()


def set_log_level(level):
    """Library log level: a Severity, its name ("info", "warn", "error", "fatal", "off") or 0..4."""
    if isinstance(level, str):
        key = level.strip().upper()
        key = {"WARNING": "WARN"}.get(key, key)
        if key not in Severity.__members__:
            raise ValueError(f"log level {level!r}: one of {[m.lower() for m in Severity.__members__]}")
        level = Severity[key]
    _lib.call("hipdnnBackendSetGlobalLogLevel_ext", int(Severity(int(level))))


def get_log_level():
    v = ctypes.c_int()
    _lib.call("hipdnnBackendGetGlobalLogLevel_ext", ctypes.byref(v))
    return Severity(v.value)


def cache_dir():
    """The default kernel cache directory ($HIPDNN_CACHE_DIR, $XDG_CACHE_HOME/hipdnn-jit or
    ~/.cache/hipdnn-jit); nothing is created."""
    buf = ctypes.create_string_buffer(4096)
    _lib.call("hipdnnKernelCacheDefaultDir_ext", buf, 4096)
    return buf.value.decode()


class _CacheStats(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("kernels", "plans", "bytes", "map_size", "map_used", "max_bytes")]


def cache_stats(directory=None):
    """{kernels, plans, bytes, map_size, map_used, max_bytes} of a cache directory (default:
    cache_dir()); the directory is created when missing."""
    directory = directory or cache_dir()
    cache = ctypes.c_void_p()
    _lib.call("hipdnnKernelCacheOpen_ext", str(directory).encode(), ctypes.byref(cache))
    try:
        s = _CacheStats()
        _lib.call("hipdnnKernelCacheGetStats_ext", cache, ctypes.byref(s))
        return {n: getattr(s, n) for n, _ in _CacheStats._fields_}
    finally:
        _lib.lib.hipdnnKernelCacheClose_ext(cache)


def set_compile_target(arch, sm_count=0):
    """Compile for `arch` ("sm_90", "gfx90a", ...) as if such a device were present (no GPU
    needed); plans built afterwards are compile-only. None returns to this machine's device."""
    _lib.call("hipdnnSetCompileTarget_ext", arch.encode() if arch else None, int(sm_count))


def warm(graph, arch=None, kernel_cache=None, engine=None, knobs=None):
    """Compiles a graph's kernels into a kernel cache ahead of time: `graph` is a Graph, JSON
    text or a path. With arch, for that target (process-wide, see set_compile_target; reset to
    this machine's device afterwards). Returns the build stats {kernels, compiled, cached, ...}.
    Raises HipdnnError when no engine that compiles kernels takes the graph."""
    from .graph import Graph
    g = graph if isinstance(graph, Graph) else Graph.from_json(graph)
    if arch is not None:
        set_compile_target(arch)
    try:
        if engine is None:
            engine = "jit_fused"
        g.build(engine=engine, knobs=knobs, kernel_cache=kernel_cache)
        return g.build_stats
    finally:
        if arch is not None:
            set_compile_target(None)
