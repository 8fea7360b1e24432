"""graph.py — Graph, the builder in the style of cuDNN's pygraph.

Owns: the graph's tensors and nodes as the JSON object model of examples/graphs
(serialize/schema/hipdnn_graph.fbs, flatc's JSON dialect), uids, JSON save/load, and the user
calls validate / build / workspace_size / execute, which hand the JSON to the library
(hipdnnBackendCreateAndDeserializeJsonGraph_ext) and delegate to plan.py.
Op methods live in ops.py and ops_sdpa.py; array checks in arrays.py.
"""
import itertools
import json
import os

from ._enums import DataType
from .dtypes import as_data_type, from_numpy_dtype
from .ops import OpsMixin
from .ops_sdpa import SdpaMixin
from .tensor import Tensor


class Graph(OpsMixin, SdpaMixin):
    """An operation graph.

        g = hipdnn_jit.Graph(io_data_type="float", compute_data_type="float")
        x = g.tensor(name="x", dims=[8, 64])
        y = g.relu(g.add(x, 1.0)).set_output(True)
        g.build(engine="reference")
        g.execute({x: x_array, y: y_array})
    """

    def __init__(self, name="graph", io_data_type=DataType.FLOAT, compute_data_type=DataType.FLOAT,
                 intermediate_data_type=DataType.FLOAT, *, _uids=None):
        self.name = str(name)
        self.io_data_type = as_data_type(io_data_type)
        self.compute_data_type = as_data_type(compute_data_type)
        self.intermediate_data_type = as_data_type(intermediate_data_type)
        self.tensors, self.nodes = [], []
        self._uids = _uids if _uids is not None else itertools.count(1)
        self._plan = None

    # ---- tensors
    def _new_tensor(self, name, dims, strides, data_type, is_virtual=False, value=None, uid=None):
        uid = next(self._uids) if uid is None else int(uid)
        if any(t.uid == uid for t in self.tensors):
            raise ValueError(f"uid {uid} is taken by tensor {self.get_tensor(uid).name!r}")
        name = name or f"t{uid}"
        if any(t.name == name for t in self.tensors):
            name = f"{name}#{uid}"
        t = Tensor(self, uid, name, dims, strides, data_type, is_virtual, value)
        self.tensors.append(t)
        self._plan = None
        return t

    def tensor(self, name=None, dims=None, strides=None, data_type=None, is_virtual=False, value=None, uid=None):
        """A graph input (or, with value=, a by-value scalar). strides are in elements, packed
        row-major when omitted; data_type defaults to the graph's io_data_type (FLOAT for a
        scalar)."""
        if dims is None:
            if value is None:
                raise ValueError(f"tensor {name!r}: give dims")
            dims = [1]
        return self._new_tensor(name, dims, strides, data_type, is_virtual, value, uid)

    def tensor_like(self, array, name=None, data_type=None):
        """A graph input with the dims, strides and data type of an array (numpy, torch, or any
        object with __cuda_array_interface__ / __dlpack__). data_type is needed for raw uint16 /
        uint8 arrays that hold bf16 / fp8 bits."""
        from .arrays import describe
        info = describe(array)
        dt = data_type if data_type is not None else from_numpy_dtype(info.dtype)
        return self._new_tensor(name, info.shape, info.strides, dt)

    def get_tensor(self, key):
        """The tensor with this uid or name (or the tensor itself, checked to belong here)."""
        if isinstance(key, Tensor):
            if key.graph is not self:
                raise ValueError(f"tensor {key.name!r} belongs to another graph")
            return key
        for t in self.tensors:
            if (isinstance(key, int) and t.uid == key) or (isinstance(key, str) and t.name == key):
                return t
        raise KeyError(f"graph {self.name!r} has no tensor {key!r} "
                       f"(tensors: {', '.join(t.name for t in self.tensors)})")

    # ---- nodes
    def _node(self, attributes_type, attrs, name, compute_data_type=None):
        cdt = as_data_type(compute_data_type) if compute_data_type is not None else self.compute_data_type
        self.nodes.append({"name": name, "compute_data_type": cdt.name, "attributes_type": attributes_type,
                           "attributes": attrs})
        self._plan = None

    # ---- JSON
    def to_dict(self):
        def value(v):
            if isinstance(v, Tensor):
                return v.uid
            if isinstance(v, Graph):
                return v.to_dict()
            if isinstance(v, list):
                return [value(x) for x in v]
            return v
        nodes = [{**n, "attributes": {k: value(v) for k, v in n["attributes"].items()}} for n in self.nodes]
        d = {"name": self.name, "compute_data_type": self.compute_data_type.name,
             "intermediate_data_type": self.intermediate_data_type.name,
             "io_data_type": self.io_data_type.name, "tensors": [t.to_dict() for t in self.tensors],
             "nodes": nodes}
        d.update(getattr(self, "_extra", {}))  # fields read by from_json that the builder has no call for
        return d

    def to_json(self, path=None, indent=2):
        """The graph as JSON text (the format of examples/graphs); written to path when given."""
        text = json.dumps(self.to_dict(), indent=indent)
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        return text

    @classmethod
    def from_json(cls, source):
        """A Graph from JSON text, a path to a .json file, or a dict. Its tensors keep their
        uids and names (g.get_tensor("x")); ops may be added after it."""
        if isinstance(source, dict):
            d = source
        else:
            text = source
            if isinstance(source, (str, os.PathLike)) and not str(source).lstrip().startswith("{"):
                with open(source, encoding="utf-8") as f:
                    text = f.read()
            try:
                d = json.loads(text)
            except json.JSONDecodeError as e:
                raise ValueError(f"graph JSON: not valid JSON: {e}") from None
        if not isinstance(d, dict) or not isinstance(d.get("tensors", []), list):
            raise ValueError("graph JSON: expected an object with 'tensors' and 'nodes'")
        g = cls(d.get("name", "graph"), d.get("io_data_type", "FLOAT"), d.get("compute_data_type", "FLOAT"),
                d.get("intermediate_data_type", "FLOAT"))
        for td in d.get("tensors", []):
            g.tensors.append(Tensor.from_dict(g, td))
        g.nodes = [dict(n) for n in d.get("nodes", [])]
        g._extra = {k: v for k, v in d.items() if k not in ("name", "compute_data_type", "intermediate_data_type",
                                                              "io_data_type", "tensors", "nodes")}
        top = max([t.uid for t in g.tensors] + [0])
        g._uids = itertools.count(top + 1)
        return g

    # ---- library calls (plan.py)
    def validate(self):
        """Has the library read and finalize the graph (every shape and type rule); returns the
        canonical graph key (32 hex digits). Raises HipdnnError with the library's reason."""
        from .plan import finalized_graph
        _, key = finalized_graph(self.to_json(indent=None))
        return key

    @property
    def key(self):
        return self.validate()

    def build(self, engine=None, knobs=None, kernel_cache=None):
        """Builds an execution plan. engine: None (the heuristics' first choice) or an engine
        name ("reference", "jit_fused", "jit_unfused"); knobs: {"jit.vector_width": 8, ...}
        (engine defaults for the rest); kernel_cache: a directory for this plan's kernels, or
        None for the process-wide cache. Returns self."""
        from .plan import Plan
        self._plan = Plan(self, engine=engine, knobs=knobs, kernel_cache=kernel_cache)
        return self

    def _built(self):
        if self._plan is None:
            raise RuntimeError(f"graph {self.name!r} is not built (or changed since): call build() first")
        return self._plan

    @property
    def engine(self):
        """The engine name of the built plan."""
        return self._built().engine_name

    @property
    def build_stats(self):
        """What building compiled and found cached: {kernels, compiled, cached, plan_cached, ...}."""
        return dict(self._built().stats)

    def workspace_size(self):
        return self._built().workspace_size

    def execute(self, tensors, workspace=None, stream=None):
        """Runs the built plan. tensors: {Tensor | name | uid: array} for every non-virtual,
        non-scalar tensor; outputs are written in place. workspace: an array or device buffer of
        at least workspace_size() bytes (allocated when None). stream: a CUDA/HIP stream handle
        (int) for GPU plans; default: the current torch stream when torch CUDA tensors are given,
        else the default stream."""
        self._built().execute(tensors, workspace=workspace, stream=stream)

    def __repr__(self):
        return f"Graph({self.name!r}, {len(self.tensors)} tensors, {len(self.nodes)} nodes)"
