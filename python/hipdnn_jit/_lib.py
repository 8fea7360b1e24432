"""_lib.py — loads libhipdnn_backend.so and declares the C functions the package calls.

Owns: finding the library (the copy installed inside this package, else $HIPDNN_JIT_LIBRARY,
else the system loader: an installed prefix on the loader's path), the argtypes/restype of every
function used (nothing is called undeclared), HipdnnError and check(), which turns a failed
status into a HipdnnError carrying the status name and the library's last-error message.
Does not own: descriptors (_desc.py) or anything about graphs.
"""
import ctypes
import os

from ._enums import Status

__all__ = ["HipdnnError", "lib", "check", "library_path"]


class HipdnnError(RuntimeError):
    """A call into libhipdnn_backend failed.

    Attributes: status (a Status), status_name ("HIPDNN_STATUS_BAD_PARAM"), message (the
    library's last-error text for the call), call (the C function's name)."""

    def __init__(self, status, message, call=""):
        try:
            self.status = Status(status)
            self.status_name = "HIPDNN_STATUS_" + self.status.name
        except ValueError:
            self.status, self.status_name = status, f"status {status}"
        self.message, self.call = message, call
        where = f"{call}: " if call else ""
        super().__init__(f"{where}{self.status_name}: {message}" if message else f"{where}{self.status_name}")


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libhipdnn_backend.so", "libhipdnn_backend.so.0"):
        p = os.path.join(here, name)
        if os.path.exists(p):
            yield p
    env = os.environ.get("HIPDNN_JIT_LIBRARY")
    if env:
        yield env
    yield "libhipdnn_backend.so.0"
    yield "libhipdnn_backend.so"


def _load():
    tried = []
    env = os.environ.get("HIPDNN_JIT_LIBRARY")
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{path} ({e})")
            if env and path == env:  # the caller named a library: do not silently take another
                raise ImportError(f"hipdnn_jit: HIPDNN_JIT_LIBRARY={env} cannot be loaded: {e}") from None
    raise ImportError("hipdnn_jit: libhipdnn_backend.so not found; tried " + "; ".join(tried) +
                      ". Install the package with `pip install .` from the repository, or set "
                      "HIPDNN_JIT_LIBRARY to the library's path")


lib, library_path = _load()

_vp, _i64, _sz, _int, _cp = ctypes.c_void_p, ctypes.c_int64, ctypes.c_size_t, ctypes.c_int, ctypes.c_char_p
_P = ctypes.POINTER

# name: (restype, argtypes). Enums are C ints. Descriptors, handles and caches are void*.
_SIGNATURES = {
    "hipdnnCreate": (_int, [_P(_vp)]),
    "hipdnnDestroy": (_int, [_vp]),
    "hipdnnSetStream": (_int, [_vp, _vp]),
    "hipdnnGetStream": (_int, [_vp, _P(_vp)]),
    "hipdnnBackendCreateDescriptor": (_int, [_int, _P(_vp)]),
    "hipdnnBackendDestroyDescriptor": (_int, [_vp]),
    "hipdnnBackendSetAttribute": (_int, [_vp, _int, _int, _i64, _vp]),
    "hipdnnBackendGetAttribute": (_int, [_vp, _int, _int, _i64, _P(_i64), _vp]),
    "hipdnnBackendFinalize": (_int, [_vp]),
    "hipdnnBackendExecute": (_int, [_vp, _vp, _vp]),
    "hipdnnGetErrorString": (_cp, [_int]),
    "hipdnnGetLastErrorString": (None, [_cp, _sz]),
    "hipdnnBackendCreateAndDeserializeJsonGraph_ext": (_int, [_P(_vp), _cp, _sz]),
    "hipdnnBackendGetSerializedJsonGraph_ext": (_int, [_vp, _sz, _P(_sz), _cp]),
    "hipdnnBackendSetGlobalLogLevel_ext": (_int, [_int]),
    "hipdnnBackendGetGlobalLogLevel_ext": (_int, [_P(_int)]),
    "hipdnnVersionString_ext": (_cp, []),
    "hipdnnGetEngineCount_ext": (_int, [_vp, _P(_sz)]),
    "hipdnnGetEngineInfo_ext": (_int, [_vp, _sz, _P(_i64), _cp, _P(_sz), _cp, _P(_sz), _cp, _P(_sz),
                                       _cp, _P(_sz)]),
    "hipdnnGetEngineIdByName_ext": (_int, [_vp, _cp, _P(_i64)]),
    "hipdnnDeviceMalloc_ext": (_int, [_P(_vp), _sz]),
    "hipdnnDeviceFree_ext": (_int, [_vp]),
    "hipdnnSetCompileTarget_ext": (_int, [_cp, _int]),
    "hipdnnKernelCacheDefaultDir_ext": (_int, [_cp, _sz]),
    "hipdnnKernelCacheOpen_ext": (_int, [_cp, _P(_vp)]),
    "hipdnnKernelCacheClose_ext": (None, [_vp]),
    "hipdnnKernelCacheGetStats_ext": (_int, [_vp, _vp]),
}
for _name, (_res, _args) in _SIGNATURES.items():
    _f = getattr(lib, _name)
    _f.restype, _f.argtypes = _res, _args

_MSG_MAX = 2048  # HIPDNN_ERROR_STRING_MAX_LENGTH


def last_error():
    """Takes (and clears) the calling thread's last-error message."""
    buf = ctypes.create_string_buffer(_MSG_MAX)
    lib.hipdnnGetLastErrorString(buf, _MSG_MAX)
    return buf.value.decode("utf-8", "replace")


def check(status, call=""):
    """Raises HipdnnError for a status other than SUCCESS; the message is the last error."""
    if status != Status.SUCCESS:
        raise HipdnnError(status, last_error(), call)
    return status


def call(name, *args):
    """lib.name(*args), checked."""
    return check(getattr(lib, name)(*args), name)
