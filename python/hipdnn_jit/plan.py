"""plan.py — from a Graph's JSON to an execution plan, and executing it.

Owns the descriptor pipeline of the backend API: deserialize the JSON graph
(hipdnnBackendCreateAndDeserializeJsonGraph_ext), handle, finalize; the engine config (the
heuristics' first choice, or a named engine) with knob choices; the execution plan with an
optional KERNEL_CACHE descriptor; then, per execute, the variant pack (uids, pointers,
workspace) and hipdnnBackendExecute on the handle's stream.
Does not own: the JSON model (graph.py) or array checks (arrays.py).
"""
import ctypes
import numbers

import numpy as np

from . import _lib
from ._desc import Descriptor, Handle
from ._enums import AttributeName as A
from ._enums import AttributeType as T
from ._enums import DescriptorType as D
from ._enums import HeurMode
from .arrays import check_binding, describe

_HOST_ENGINES = {"reference"}  # engines that run on host memory
# what execute_raw passes as plain ints (a ctypes call converts enums each time otherwise)
_VP = ctypes.c_void_p
_VARIANT_PACK = int(D.BACKEND_VARIANT_PACK_DESCRIPTOR)
_UIDS, _PTRS, _WS = int(A.VARIANT_PACK_UNIQUE_IDS), int(A.VARIANT_PACK_DATA_POINTERS), int(A.VARIANT_PACK_WORKSPACE)
_INT64, _VOID_PTR = int(T.INT64), int(T.VOID_PTR)


def finalized_graph(json_text, handle=None):
    """(finalized OPERATIONGRAPH descriptor, graph key) for JSON text; keeps its handle alive."""
    handle = handle or Handle()
    raw = json_text.encode("utf-8")
    ptr = ctypes.c_void_p()
    _lib.call("hipdnnBackendCreateAndDeserializeJsonGraph_ext", ctypes.byref(ptr), raw, len(raw))
    g = Descriptor(ptr=ptr.value)
    g.set_handle(A.OPERATIONGRAPH_HANDLE, handle)
    g.finalize()
    g.handle = handle
    return g, g.get_text(A.OPERATIONGRAPH_GRAPH_KEY, 64)


def engines(handle=None):
    """Names of the library's engines (ordered by name)."""
    handle = handle or Handle()
    n = ctypes.c_size_t()
    _lib.call("hipdnnGetEngineCount_ext", handle.ptr, ctypes.byref(n))
    names = []
    for i in range(n.value):
        buf, size = ctypes.create_string_buffer(256), ctypes.c_size_t(256)
        _lib.call("hipdnnGetEngineInfo_ext", handle.ptr, i, None, buf, ctypes.byref(size), None, None, None, None,
                  None, None)
        names.append(buf.value.decode())
    return names


def _knob_choice(knob, value):
    c = Descriptor(D.BACKEND_KNOB_CHOICE_DESCRIPTOR)
    c.set_text(A.KNOB_CHOICE_KNOB_TYPE, str(knob))
    if isinstance(value, bool) or isinstance(value, numbers.Integral):
        c.set_int64(A.KNOB_CHOICE_KNOB_VALUE, int(value))
    elif isinstance(value, numbers.Real):
        c.set_double(A.KNOB_CHOICE_KNOB_VALUE, float(value))
    elif isinstance(value, str):
        c.set_text(A.KNOB_CHOICE_KNOB_VALUE, value)
    else:
        raise TypeError(f"knob {knob!r}: value {value!r} must be an int, a float or a string")
    return c.finalize()


def _engine_for(graph, handle, name):
    """A finalized ENGINE descriptor of the named engine for the graph; the library's reason when
    the engine does not support it."""
    eid = ctypes.c_int64()
    st = _lib.lib.hipdnnGetEngineIdByName_ext(handle.ptr, name.encode(), ctypes.byref(eid))
    if st != 0:
        _lib.last_error()
        raise ValueError(f"no engine named {name!r}; engines: {', '.join(engines(handle))}")
    e = Descriptor(D.BACKEND_ENGINE_DESCRIPTOR)
    e.set_descs(A.ENGINE_OPERATION_GRAPH, [graph])
    e.set_int64(A.ENGINE_GLOBAL_INDEX, eid.value)
    return e.finalize()


def _config(graph, handle, engine, knobs):
    """A finalized ENGINECFG: the heuristics' first when neither engine nor knobs are given."""
    if engine is None:
        heur = Descriptor(D.BACKEND_ENGINEHEUR_DESCRIPTOR)
        heur.set_enum(A.ENGINEHEUR_MODE, T.HEUR_MODE, HeurMode.FALLBACK)
        heur.set_descs(A.ENGINEHEUR_OPERATION_GRAPH, [graph])
        heur.finalize()
        cfgs = heur.get_descs(A.ENGINEHEUR_RESULTS, D.BACKEND_ENGINECFG_DESCRIPTOR)
        if not cfgs:
            raise _lib.HipdnnError(8, "the heuristics returned no engine config for the graph")
        best = cfgs[0].finalize()
        if not knobs:
            return best
        eng = best.get_desc(A.ENGINECFG_ENGINE)
    else:
        eng = _engine_for(graph, handle, engine)
    cfg = Descriptor(D.BACKEND_ENGINECFG_DESCRIPTOR)
    cfg.set_descs(A.ENGINECFG_ENGINE, [eng])
    choices = [_knob_choice(k, v) for k, v in (knobs or {}).items()]
    if choices:
        cfg.set_descs(A.ENGINECFG_KNOB_CHOICES, choices)
    return cfg.finalize()


def _itemsize(dtype_name):
    try:
        return np.dtype(dtype_name).itemsize
    except TypeError:  # bfloat16 / fp8 names without ml_dtypes
        return 2 if "16" in dtype_name else 1


def _kernel_cache(path):
    kc = Descriptor(D.BACKEND_KERNEL_CACHE_DESCRIPTOR)
    kc.set_text(A.KERNEL_CACHE_DIRECTORY, str(path))
    return kc.finalize()


class Plan:
    """A finalized execution plan for one Graph (made by Graph.build)."""

    _STATS = ("kernels", "compiled", "cached", "plan_cached", "kernels_not_stored", "plans_not_stored")

    def __init__(self, graph, engine=None, knobs=None, kernel_cache=None):
        self.graph = graph
        self.handle = Handle()
        self.graph_desc, self.key = finalized_graph(graph.to_json(indent=None), self.handle)
        cfg = _config(self.graph_desc, self.handle, engine, knobs)
        eng = cfg.get_desc(A.ENGINECFG_ENGINE)
        self.engine_name = eng.get_text(A.ENGINE_NAME)
        self.plan = Descriptor(D.BACKEND_EXECUTION_PLAN_DESCRIPTOR)
        self.plan.set_descs(A.EXECUTION_PLAN_ENGINE_CONFIG, [cfg])
        if kernel_cache is not None:
            self.plan.set_descs(A.EXECUTION_PLAN_KERNEL_CACHE, [_kernel_cache(kernel_cache)])
        self.plan.finalize()
        self.workspace_size = self.plan.get_int64(A.EXECUTION_PLAN_WORKSPACE_SIZE, 1)[0]
        values = self.plan.get_int64(A.EXECUTION_PLAN_KERNEL_CACHE_STATS, 6)
        self.stats = dict(zip(self._STATS, values))
        self.is_host = self.engine_name in _HOST_ENGINES
        self._produced = _produced_uids(graph)  # the graph as built: execute binds against it
        self._device_workspace = None
        self._stream_set = None  # the stream execute_raw last set on the handle

    # ---- execute
    def _bindings(self, tensors):
        """[(Tensor, ArrayInfo, is_output)] for every tensor the plan needs; raises on any
        missing, unknown or mismatched array."""
        out, seen = [], set()
        for key, array in tensors.items():
            t = self.graph.get_tensor(key)
            if t.uid in seen:
                raise ValueError(f"tensor {t.name!r} (uid {t.uid}) is bound twice")
            if t.is_virtual:
                raise ValueError(f"tensor {t.name!r} is virtual (an intermediate): call .set_output(True) on it "
                                 f"before build() to bind it")
            if t.value is not None:
                raise ValueError(f"tensor {t.name!r} is a by-value scalar ({t.value}); it takes no array")
            info = describe(array)
            check_binding(t, info, t.uid in self._produced, self.is_host, self.engine_name)
            seen.add(t.uid)
            out.append((t, info))
        missing = [t for t in self.graph.tensors if not t.is_virtual and t.value is None and t.uid not in seen]
        if missing:
            raise ValueError("execute: no array for tensor(s) " +
                             ", ".join(f"{t.name!r} (uid {t.uid}, dims {t.dims})" for t in missing))
        return out

    def _workspace(self, workspace, bound):
        if self.workspace_size == 0:
            return None, None
        if workspace is not None:
            info = describe(workspace)
            nbytes = int(np.prod(info.shape, dtype=np.int64)) * _itemsize(info.dtype)
            if nbytes < self.workspace_size:
                raise ValueError(f"workspace: {nbytes} bytes given, the plan needs {self.workspace_size}")
            if (info.device == "cpu") != self.is_host:
                raise ValueError(f"workspace: {info.device} memory, but engine '{self.engine_name}' needs "
                                 f"{'host' if self.is_host else 'device'} memory")
            return info.ptr, info
        if self.is_host:
            buf = np.empty(self.workspace_size, dtype=np.uint8)
            return buf.ctypes.data, buf
        torch_dev = next((i.torch_cuda_device for _, i in bound if i.torch_cuda_device is not None), None)
        if torch_dev is not None:
            import torch
            buf = torch.empty(self.workspace_size, dtype=torch.uint8, device=torch_dev)
            return buf.data_ptr(), buf
        if self._device_workspace is None:
            p = ctypes.c_void_p()
            _lib.call("hipdnnDeviceMalloc_ext", ctypes.byref(p), self.workspace_size)
            self._device_workspace = p
        return self._device_workspace.value, None

    def _stream(self, stream, bound):
        if stream is not None:
            return int(getattr(stream, "cuda_stream", stream))
        torch_dev = next((i.torch_cuda_device for _, i in bound if i.torch_cuda_device is not None), None)
        if torch_dev is not None:
            import torch
            return torch.cuda.current_stream(torch_dev).cuda_stream
        return 0

    def execute(self, tensors, workspace=None, stream=None):
        if not isinstance(tensors, dict):
            raise TypeError("execute: pass a dict {tensor | name | uid: array}")
        bound = self._bindings(tensors)
        ws_ptr, ws_keep = self._workspace(workspace, bound)
        if not self.is_host:
            self.handle.set_stream(self._stream(stream, bound))
            self._stream_set = None
        pack = Descriptor(D.BACKEND_VARIANT_PACK_DESCRIPTOR)
        if bound:
            pack.set_int64(A.VARIANT_PACK_UNIQUE_IDS, [t.uid for t, _ in bound])
            pack.set_pointers(A.VARIANT_PACK_DATA_POINTERS, [i.ptr for _, i in bound])
        if ws_ptr is not None:
            pack.set_pointers(A.VARIANT_PACK_WORKSPACE, [ws_ptr])
        pack.finalize()
        _lib.call("hipdnnBackendExecute", self.handle.ptr, self.plan.ptr, pack.ptr)
        del ws_keep  # the host workspace lives until the call returns

    def execute_raw(self, uids, pointers, workspace_ptr=None, stream=None):
        """hipdnnBackendExecute without any check on this side, for a caller that binds the same
        tensors with the same layouts, dtypes and devices as an execute() that passed its checks
        (the torch ops: hipdnn_jit.torch compares each call's layouts with the checked ones).
        uids: a ctypes c_int64 array (made once by the caller); pointers: addresses in that
        order; workspace_ptr: at least workspace_size bytes where it is non-zero; stream: set on
        the handle when it differs from the last one set here. The library still checks the
        variant pack (every uid bound, device memory) and reports through HipdnnError."""
        if stream is not None and stream != self._stream_set:
            self.handle.set_stream(stream)
            self._stream_set = stream
        n = len(uids)
        ptrs = (_VP * n)(*pointers)
        pack = _VP()
        lib = _lib.lib
        _lib.check(lib.hipdnnBackendCreateDescriptor(_VARIANT_PACK, ctypes.byref(pack)),
                   "hipdnnBackendCreateDescriptor")
        try:
            st = lib.hipdnnBackendSetAttribute(pack, _UIDS, _INT64, n, uids)
            if st == 0:
                st = lib.hipdnnBackendSetAttribute(pack, _PTRS, _VOID_PTR, n, ptrs)
            if st == 0 and workspace_ptr:
                st = lib.hipdnnBackendSetAttribute(pack, _WS, _VOID_PTR, 1, ctypes.byref(_VP(workspace_ptr)))
            if st == 0:
                st = lib.hipdnnBackendFinalize(pack)
            if st == 0:
                st = lib.hipdnnBackendExecute(self.handle.ptr, self.plan.ptr, pack)
            _lib.check(st, "hipdnnBackendExecute (variant pack)")
        finally:
            lib.hipdnnBackendDestroyDescriptor(pack)

    def __del__(self):
        if getattr(self, "_device_workspace", None):
            _lib.lib.hipdnnDeviceFree_ext(self._device_workspace)
            self._device_workspace = None


_OUTPUT_FIELDS = {"y_tensor_uid", "c_tensor_uid", "dx_tensor_uid", "dw_tensor_uid", "out_0_tensor_uid",
                  "o_tensor_uid", "stats_tensor_uid", "mean_tensor_uid", "inv_variance_tensor_uid",
                  "inv_rms_tensor_uid", "dscale_tensor_uid", "dbias_tensor_uid", "dq_tensor_uid",
                  "dk_tensor_uid", "dv_tensor_uid", "next_running_mean_tensor_uid",
                  "next_running_variance_tensor_uid", "sum_tensor_uid", "sq_sum_tensor_uid", "max_tensor_uid",
                  "sum_exp_tensor_uid", "rng_dump_tensor_uid", "amax_s_tensor_uid", "amax_o_tensor_uid"}
_INPUT_WHEN = {  # fields that are outputs above but inputs of these ops
    "BatchnormInferenceAttributes": {"mean_tensor_uid", "inv_variance_tensor_uid"},
    "BatchnormInferenceAttributesVarianceExt": {"mean_tensor_uid"},
    "BatchnormBackwardAttributes": {"mean_tensor_uid", "inv_variance_tensor_uid"},
    "SdpaBackwardAttributes": {"o_tensor_uid", "stats_tensor_uid"},
}


def _produced_uids(graph):
    """The uids the graph's nodes write (their output ports), Tensor-valued or plain uids."""
    produced = set()
    for n in graph.nodes:
        for k, v in n["attributes"].items():
            uid = v.uid if hasattr(v, "uid") else v if isinstance(v, int) and not isinstance(v, bool) else None
            if uid is not None and _is_output_port(n["attributes_type"], k):
                produced.add(uid)
    return produced


def _is_output_port(attributes_type, field):
    """Whether a node's *_tensor_uid field names an output (written at execute)."""
    if field == "scale_tensor_uid":
        return attributes_type == "BlockScaleQuantizeAttributes"
    return field in _OUTPUT_FIELDS and field not in _INPUT_WHEN.get(attributes_type, set())
