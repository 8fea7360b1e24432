"""_desc.py — a small typed wrapper over backend descriptors and the handle.

Owns: Descriptor (create, set/get attributes of the few element types the package needs,
finalize, destroy exactly once) and Handle. Every call is checked (_lib.check), so a failure
raises HipdnnError with the library's reason.
Does not own: which descriptors a graph needs (plan.py).
"""
import ctypes

from . import _lib
from ._enums import AttributeType as T
from ._enums import DescriptorType

_vp, _i64 = ctypes.c_void_p, ctypes.c_int64


class Handle:
    """A hipdnnHandle_t (no GPU needed to create one)."""

    def __init__(self):
        self.ptr = _vp()
        _lib.call("hipdnnCreate", ctypes.byref(self.ptr))

    def set_stream(self, stream):
        _lib.call("hipdnnSetStream", self.ptr, _vp(stream or None))

    def close(self):
        if self.ptr:
            _lib.lib.hipdnnDestroy(self.ptr)
            self.ptr = _vp()

    def __del__(self):
        self.close()


class Descriptor:
    """One backend descriptor; destroyed when closed or collected."""

    def __init__(self, kind=None, ptr=None):
        self.ptr = _vp()
        if ptr is not None:
            self.ptr = _vp(ptr)
        else:
            _lib.call("hipdnnBackendCreateDescriptor", int(kind), ctypes.byref(self.ptr))

    # ---- set
    def _set(self, attr, atype, count, array):
        _lib.call("hipdnnBackendSetAttribute", self.ptr, int(attr), int(atype), count,
                  ctypes.cast(array, _vp))

    def set_int64(self, attr, values):
        values = list(values) if isinstance(values, (list, tuple)) else [values]
        self._set(attr, T.INT64, len(values), (_i64 * len(values))(*values))

    def set_double(self, attr, value):
        self._set(attr, T.DOUBLE, 1, ctypes.pointer(ctypes.c_double(value)))

    def set_enum(self, attr, atype, value):
        self._set(attr, atype, 1, ctypes.pointer(ctypes.c_int(int(value))))

    def set_text(self, attr, text):
        raw = text.encode("utf-8")
        self._set(attr, T.CHAR, len(raw), ctypes.create_string_buffer(raw, len(raw) + 1))

    def set_handle(self, attr, handle):
        self._set(attr, T.HANDLE, 1, ctypes.pointer(_vp(handle.ptr.value)))

    def set_descs(self, attr, descs):
        arr = (_vp * len(descs))(*[d.ptr.value for d in descs])
        self._set(attr, T.BACKEND_DESCRIPTOR, len(descs), arr)

    def set_pointers(self, attr, pointers):
        arr = (_vp * len(pointers))(*pointers)
        self._set(attr, T.VOID_PTR, len(pointers), arr)

    def finalize(self):
        _lib.call("hipdnnBackendFinalize", self.ptr)
        return self

    # ---- get
    def count(self, attr, atype):
        n = _i64(0)
        _lib.call("hipdnnBackendGetAttribute", self.ptr, int(attr), int(atype), 0, ctypes.byref(n), None)
        return n.value

    def get_int64(self, attr, n=None):
        n = self.count(attr, T.INT64) if n is None else n
        arr, got = (_i64 * max(n, 1))(), _i64(0)
        _lib.call("hipdnnBackendGetAttribute", self.ptr, int(attr), int(T.INT64), n, ctypes.byref(got), arr)
        return list(arr[: min(got.value, n)])

    def get_text(self, attr, size=4096):
        buf, got = ctypes.create_string_buffer(size), _i64(0)
        _lib.call("hipdnnBackendGetAttribute", self.ptr, int(attr), int(T.CHAR), size, ctypes.byref(got), buf)
        return buf.value.decode("utf-8", "replace")

    def get_descs(self, attr, kind, n=None):
        """Descriptors of `kind` the getter fills (made here first, as the API asks)."""
        n = self.count(attr, T.BACKEND_DESCRIPTOR) if n is None else n
        out = [Descriptor(kind) for _ in range(n)]
        arr, got = (_vp * max(n, 1))(*[d.ptr.value for d in out]), _i64(0)
        _lib.call("hipdnnBackendGetAttribute", self.ptr, int(attr), int(T.BACKEND_DESCRIPTOR), n,
                  ctypes.byref(got), arr)
        for d in out[got.value:]:
            d.close()
        return out[: got.value]

    def get_desc(self, attr):
        """A descriptor-valued attribute the getter hands out as a new handle (ENGINECFG_ENGINE)."""
        p, got = _vp(), _i64(0)
        _lib.call("hipdnnBackendGetAttribute", self.ptr, int(attr), int(T.BACKEND_DESCRIPTOR), 1,
                  ctypes.byref(got), ctypes.byref(p))
        return Descriptor(ptr=p.value)

    def close(self):
        if self.ptr:
            _lib.lib.hipdnnBackendDestroyDescriptor(self.ptr)
            self.ptr = _vp()

    def __del__(self):
        self.close()


__all__ = ["Descriptor", "DescriptorType", "Handle"]
