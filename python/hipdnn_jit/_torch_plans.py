"""_torch_plans.py — what the PyTorch custom ops (hipdnn_jit.torch) share: the in-process plan
cache, the engine choice per device, output allocation, and the torch dtype → hipDNN data type
mapping.

Owns: Op and custom_op() (how an op is registered with torch.library and called: eager calls
go straight to the function), signature() (the cache key part of a tensor: shape, strides, dtype, device), plan() (one
built Graph per key, built once under a lock), CachedPlan.run() (binds torch tensors by tensor
name and executes: CUDA tensors on the current torch stream with a torch-allocated workspace —
plan.py does both —, CPU tensors on the reference engine), empty() (outputs; NaN-filled while
POISON is set, so a test sees any element the library did not write).
Does not own: the graphs of each op family (_torch_norm.py, _torch_sdpa.py, _torch_matmul.py)
or the custom-op registrations (same files).
"""
import ctypes
import threading

import torch

from . import _lib
from ._enums import Status

# torch dtype -> hipDNN data type name (what a Graph's io_data_type takes)
_DATA_TYPES = {torch.float32: "float", torch.float16: "half", torch.bfloat16: "bfloat16",
               torch.float64: "double"}

# Engines tried per device type, in order; the first that accepts the graph builds its plan.
ENGINES = {"cpu": ("reference",), "cuda": ("jit_fused", "jit_unfused")}

POISON = False  # when True, outputs are allocated filled with NaN (tests)

_cache = {}
_cache_lock = threading.Lock()


def data_type(t, what):
    """The hipDNN data type name of a floating-point torch tensor; TypeError otherwise."""
    try:
        return _DATA_TYPES[t.dtype]
    except KeyError:
        raise TypeError(f"hipdnn_jit.torch: {what} has dtype {t.dtype}; supported: "
                        f"{', '.join(str(d) for d in _DATA_TYPES)}") from None


def torch_dtype(type_name):
    """The torch dtype of a hipDNN data type name of _DATA_TYPES."""
    return next(t for t, n in _DATA_TYPES.items() if n == type_name)


def compute_types(io_type):
    """(compute, intermediate) data types for a graph of io_type: double for float64 I/O (so a
    float64 gradcheck sees float64 math end to end), float otherwise."""
    return ("double", "double") if io_type == "double" else ("float", "float")


def half_or_float(io_type):
    """The data type of a matmul operand the graph makes itself (e.g. a ones vector for a row
    sum): the I/O type when it is bf16/fp16 (the GPU matmul templates take only those), else
    the compute type."""
    return io_type if io_type in ("bfloat16", "half") else compute_types(io_type)[0]


def ones_strides(dims):
    """Strides for a ones vector [n, 1] (a matmul's B) or [1, n] (a matmul's A): unit stride along
    n, and the size-1 dim's stride n rounded up to 8 — the GPU matmul templates want row / column
    strides that are multiples of 8 elements, and a size-1 dim's stride addresses nothing."""
    n = max(dims)
    pad = -(-n // 8) * 8
    return [1, pad] if dims[1] == 1 else [pad, 1]


def signature(*items):
    """A hashable key of op inputs: tensors by (shape, strides, dtype, device), None as None,
    other values as themselves."""
    out = []
    for t in items:
        if isinstance(t, torch.Tensor):
            out.append((tuple(t.shape), tuple(t.stride()), str(t.dtype), t.device.type, t.device.index))
        else:
            out.append(t)
    return tuple(out)


def check_devices(*tensors):
    """All given tensors on one device, CPU or CUDA; returns it. ValueError naming the odd one."""
    named = [(n, t) for n, t in tensors if t is not None]
    dev = named[0][1].device
    for n, t in named:
        if t.device != dev:
            raise ValueError(f"hipdnn_jit.torch: {n} is on {t.device} but {named[0][0]} is on {dev}")
    if dev.type not in ENGINES:
        raise ValueError(f"hipdnn_jit.torch: tensors on {dev} are not supported (CPU or CUDA only)")
    return dev


def empty(shape, dtype, device):
    """An output tensor (contiguous); NaN-filled while POISON is set."""
    if POISON:
        return torch.full(tuple(shape), float("nan"), dtype=dtype, device=device)
    return torch.empty(tuple(shape), dtype=dtype, device=device)


class CachedPlan:
    """A built Graph, its tensors by name, and constant inputs the graph needs (ones vectors).

    run() checks a binding in full (Graph.execute) the first time it sees its layout: the
    names bound and each tensor's shape, strides, dtype and device. A later call with the same
    layout skips those checks and goes straight to Plan.execute_raw (data pointers, the current
    stream, a workspace): the Python-side cost of a call is what decides small ops."""

    def __init__(self, graph, tensors, constants, device):
        self.graph, self.tensors, self.device = graph, tensors, device
        self.constants = {name: torch.full(shape, float(fill), dtype=dtype, device=device)
                          for name, (shape, dtype, fill) in constants.items()}
        if device.type == "cuda" and self.constants:
            torch.cuda.synchronize(device)  # made on one stream, read on whichever is current later
        self.lock = threading.Lock()
        self.runs = 0
        self.checked_runs = 0  # runs that went through the full checks (tests read it)
        self._layout = None    # the checked layout; _uids is its uid array for execute_raw
        self._uids = None

    def run(self, arrays):
        """Executes with {tensor name: torch tensor} (the constants are added here)."""
        items = [(name, a) for name, a in arrays.items() if a is not None]
        items += list(self.constants.items())
        layout = tuple((name, a.shape, a.stride(), a.dtype, a.device) for name, a in items)
        with self.lock:
            if layout == self._layout:
                self._run_raw(items)
            else:
                self.graph.execute({self.tensors[name]: a for name, a in items})
                uids = [self.tensors[name].uid for name, _ in items]
                self._layout, self._uids = layout, (ctypes.c_int64 * len(uids))(*uids)
                self.checked_runs += 1
            self.runs += 1

    def _run_raw(self, items):
        plan = self.graph._built()
        ws, stream = None, None
        if self.device.type == "cuda":
            stream = torch.cuda.current_stream(self.device).cuda_stream
            if plan.workspace_size:
                ws = torch.empty(plan.workspace_size, dtype=torch.uint8, device=self.device)
        elif plan.workspace_size:
            ws = torch.empty(plan.workspace_size, dtype=torch.uint8)
        plan.execute_raw(self._uids, [a.data_ptr() for _, a in items],
                         ws.data_ptr() if ws is not None else None, stream)


EAGER_DIRECT = True  # eager calls skip torch.library's dispatch (tests turn it off to cover both routes)
_PLAIN = (torch.Tensor, torch.nn.Parameter)


class Op:
    """A torch.library custom op (self.op, torch.ops.hipdnn_jit.<name>) and the function behind it
    (self.impl). Calling an Op takes one of two routes that run the same code:
    - the registered op, under torch.compile, while tracing (inputs that are tensor subclasses:
      fake, functional) or with EAGER_DIRECT off;
    - in plain eager mode, the function itself, through a torch.autograd.Function made of the
      op's own setup_context and backward when an input needs a gradient. torch.library's
      dispatch of a Python op costs tens of µs per call (bench/NOTES.md), more than a small
      norm's kernel."""

    def __init__(self, name, fn):
        self.name, self.impl = name, fn
        self.op = torch.library.custom_op(name, fn, mutates_args=())
        self._function = None  # the eager autograd.Function, once register_autograd is called

    def register_fake(self, fn):
        self.op.register_fake(fn)
        return fn

    def register_autograd(self, backward, setup_context):
        self.op.register_autograd(backward, setup_context=setup_context)
        impl = self.impl

        def forward(ctx, *args):
            out = impl(*args)
            setup_context(ctx, args, out)
            return out
        self._function = type(self.name.replace("::", "_"), (torch.autograd.Function,),
                              {"forward": staticmethod(forward), "backward": staticmethod(backward)})

    def __call__(self, *args):
        if (not EAGER_DIRECT or torch.compiler.is_compiling()
                or any(isinstance(a, torch.Tensor) and type(a) not in _PLAIN for a in args)):
            return self.op(*args)
        if (self._function is not None and torch.is_grad_enabled()
                and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args)):
            return self._function.apply(*args)
        return self.impl(*args)


def custom_op(name):
    """Decorator: the function as an Op registered under `name` (no argument is mutated)."""
    return lambda fn: Op(name, fn)


def _build(graph, device, what):
    reasons = []
    for engine in ENGINES[device.type]:
        try:
            graph.build(engine=engine)
            return
        except _lib.HipdnnError as e:
            reasons.append(f"{engine}: {e.message or e}")
    raise _lib.HipdnnError(Status.NOT_SUPPORTED, f"hipdnn_jit.torch: no {device.type} engine takes the {what} graph — "
                              + "; ".join(reasons))


def plan(key, device, build, what):
    """The cached plan for key, made on a miss by build() -> (Graph, {name: Tensor},
    {name: (shape, torch dtype, fill)}) and built for the device's engines."""
    full_key = (what, device.type, device.index) + tuple(key)
    with _cache_lock:
        p = _cache.get(full_key)
        if p is None:
            graph, tensors, constants = build()
            _build(graph, device, what)
            p = _cache[full_key] = CachedPlan(graph, tensors, constants, device)
        return p


def cache_info():
    """{op name: number of cached plans}."""
    with _cache_lock:
        out = {}
        for key in _cache:
            out[key[0]] = out.get(key[0], 0) + 1
        return out


def clear_cache():
    with _cache_lock:
        _cache.clear()
