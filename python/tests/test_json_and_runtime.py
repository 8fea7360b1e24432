"""test_json_and_runtime.py — JSON round trip, the example graphs (as written, and scaled down to
run on the reference engine), DLPack input, engine/knob/cache controls."""
import glob
import json
import os

import numpy as np
import pytest

import hipdnn_jit as hj
from conftest import ROOT, assert_close, poisoned
from hipdnn_jit.tensor import packed_strides, stride_order

EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "graphs", "*.json")))


def small_graph():
    g = hj.Graph(name="mm_gelu")
    a, b = g.tensor(name="a", dims=[1, 4, 6]), g.tensor(name="b", dims=[1, 6, 5])
    y = g.gelu(g.matmul(a, b)).set_output(True).set_name("y")
    return g


def test_json_round_trip_same_key_and_same_results(rng, tmp_path):
    g = small_graph()
    path = tmp_path / "g.json"
    g.to_json(path)
    g2 = hj.Graph.from_json(str(path))
    assert g2.validate() == g.validate()
    assert json.loads(g2.to_json()) == json.loads(g.to_json())
    A, B = rng.standard_normal((1, 4, 6)).astype(np.float32), rng.standard_normal((1, 6, 5)).astype(np.float32)
    outs = []
    for graph in (g, g2):
        graph.build(engine="reference")
        Y = poisoned((1, 4, 5))
        graph.execute({"a": A, "b": B, "y": Y})
        outs.append(Y)
    assert_close(outs[1], outs[0], rng, 0, 0, "the reloaded graph's output")


def test_uids_do_not_change_the_key():
    g, h = small_graph(), hj.Graph.from_json(json.loads(small_graph().to_json()))
    for t in h.tensors:
        t.uid += 100
    for n in h.nodes:
        n["attributes"] = {k: v + 100 if k.endswith("_tensor_uid") else v for k, v in n["attributes"].items()}
    assert h.validate() == g.validate()


@pytest.mark.parametrize("path", EXAMPLES, ids=[os.path.basename(p) for p in EXAMPLES])
def test_example_graph_loads_and_finalizes(path):
    g = hj.Graph.from_json(path)
    key = g.validate()
    assert len(key) == 32 and int(key, 16) >= 0
    assert hj.Graph.from_json(g.to_json()).validate() == key


# the example graphs with every size mapped to a small one (same layouts), for the host engine
_SHRINK = {8192: 16, 4096: 32, 2048: 16, 11008: 24, 56: 6, 64: 4, 128: 8, 256: 8, 16: 2, 32: 4, 4: 2, 8: 2}


def _shrink(d):
    for t in d["tensors"]:
        if t.get("value_type"):
            continue
        order = stride_order(t["strides"])
        t["dims"] = [_SHRINK.get(x, x) for x in t["dims"]]
        t["strides"] = packed_strides(t["dims"], order)
    for n in d["nodes"]:
        for field in _SUB_GRAPHS:
            sub = n["attributes"].get(field)
            if sub:
                _shrink(sub)
    return d


_SUB_GRAPHS = ("score_mod_graph", "mask_mod_graph")  # an SDPA node's modifier sub-graphs


def _sub_graph_tensors_in_memory(d):
    """The names of a modifier sub-graph's tensors in memory (document ids, prefix lengths): the
    variant pack binds them by uid, but Graph.execute binds only the graph's own tensors."""
    names = []
    for n in d["nodes"]:
        for field in _SUB_GRAPHS:
            sub, inp = n["attributes"].get(field), n["attributes"].get(field.replace("graph", "input_uid"))
            for t in sub["tensors"] if sub else []:
                if not t.get("virtual") and t.get("value_type") is None and t["uid"] != inp:
                    names.append(t["name"])
    return names


def _fill(arr, f32):
    """Writes float32 values into arr: as bf16 bits where arr is a raw uint16 view (no ml_dtypes),
    else converted to arr's type (float32, or ml_dtypes' bfloat16 where it is installed)."""
    if arr.dtype == np.uint16:
        arr[...] = (f32.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    else:
        arr[...] = f32


def _values(arr):
    """arr's values as float32 (bf16 bits widened where arr is a raw uint16 view)."""
    return (arr.astype(np.uint32) << 16).view(np.float32) if arr.dtype == np.uint16 else arr.astype(np.float32)


@pytest.mark.parametrize("path", EXAMPLES, ids=[os.path.basename(p) for p in EXAMPLES])
def test_example_graph_scaled_down_executes_on_the_reference_engine(path, rng):
    with open(path) as f:
        d = _shrink(json.load(f))
    in_memory = _sub_graph_tensors_in_memory(d)
    if in_memory:
        pytest.skip(f"a modifier sub-graph reads tensors in memory ({', '.join(in_memory)}), which Graph.execute "
                    f"cannot bind yet (tests/api/test_sdpa_mask_mod.c runs such graphs)")
    if any("ragged_offset_tensor_uid" in t for t in d["tensors"]):
        pytest.skip("packed (THD) tensors need offsets and lengths that agree, which random inputs are not "
                    "(tests/api/test_ragged_sdpa.c runs such graphs)")
    g = hj.Graph.from_json(d)
    g.build(engine="reference")
    binds, outputs = {}, []
    from hipdnn_jit.plan import _is_output_port
    out_uids = {v for n in g.nodes for k, v in n["attributes"].items()
                if isinstance(v, int) and _is_output_port(n["attributes_type"], k)}
    assert out_uids
    for t in g.tensors:
        if t.is_virtual or t.value is not None:
            continue
        arr = hj.empty(t)  # the tensor's layout (NHWC examples included)
        if t.uid in out_uids:
            _fill(arr, np.full(t.shape, np.nan, np.float32))
            outputs.append(t)
        else:
            data = rng.standard_normal(t.shape).astype(np.float32)
            if "var" in t.name:
                data = np.abs(data) + 0.5
            _fill(arr, data)
        binds[t] = arr
    g.execute(binds)
    for t in outputs:
        a = binds[t]
        assert np.isfinite(_values(a)).all(), f"{os.path.basename(path)}: output {t.name!r} has unwritten elements"


def test_dlpack_input_on_the_host(rng):
    class OnlyDlpack:  # an object that offers nothing but __dlpack__
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    g = hj.Graph()
    x = g.tensor(name="x", dims=[3, 4])
    y = g.sqrt(g.abs(x)).set_output(True)
    g.build(engine="reference")
    X, Y = rng.standard_normal((3, 4)).astype(np.float32), poisoned((3, 4))
    g.execute({x: OnlyDlpack(X), y: OnlyDlpack(Y)})
    assert_close(Y, np.sqrt(np.abs(X.astype(np.float64))), rng, 0, 2 ** -23, "sqrt(|x|) through DLPack")


def test_default_build_takes_the_heuristics_choice_and_reports_it():
    g = small_graph().build()
    assert g.engine in hj.engines()
    assert g.workspace_size() >= 0 and set(g.build_stats) >= {"kernels", "compiled", "cached"}


def test_by_value_scalars_and_tensor_like_layouts(rng):
    X = rng.standard_normal((2, 3, 4)).astype(np.float32).transpose(0, 2, 1)  # non-packed row-major
    g = hj.Graph()
    x = g.tensor_like(X, "x")
    assert x.dims == [2, 4, 3] and x.strides == [12, 1, 4]
    y = g.mul(x, g.tensor(name="two", value=2.0, dims=[1, 1, 1])).set_output(True)
    g.build(engine="reference")
    assert y.strides == x.strides, "an op's output follows its input's layout"
    Y = hj.empty(y, fill=np.nan)
    g.execute({x: X, y: Y})
    assert_close(Y, 2.0 * X, rng, 0, 0, "x * 2")


def test_log_level_version_and_cache_stats(tmp_path):
    old = hj.get_log_level()
    hj.set_log_level("error")
    assert hj.get_log_level() == hj.Severity.ERROR
    hj.set_log_level(old)
    assert hj.version().startswith("0.")
    stats = hj.cache_stats(str(tmp_path / "kc"))
    assert stats["kernels"] == 0 and stats["plans"] == 0 and stats["max_bytes"] > 0
    assert os.path.isabs(hj.cache_dir())


def test_warm_compiles_for_a_named_target(tmp_path):
    g = hj.Graph()
    g.relu(g.add(g.tensor(name="x", dims=[64, 256]), 1.0)).set_output(True)
    try:
        stats = hj.warm(g, arch="sm_90", kernel_cache=str(tmp_path / "kc"))
    except hj.HipdnnError as e:
        if "sm_90" in str(e) and ("compiler" in str(e) or "NVRTC" in str(e) or "target" in str(e)):
            pytest.skip(f"no NVRTC here: {e}")
        raise
    assert stats["kernels"] >= 1 and stats["compiled"] + stats["cached"] == stats["kernels"]
    again = hj.warm(g, arch="sm_90", kernel_cache=str(tmp_path / "kc"))
    assert again["compiled"] == 0, "the second warm finds every kernel cached"


@pytest.mark.gpu
def test_gpu_torch_tensors_on_the_fused_engine(rng):
    torch = pytest.importorskip("torch")
    g = hj.Graph(io_data_type="float")
    x = g.tensor(name="x", dims=[64, 128])
    y = g.relu(g.mul(x, 3.0)).set_output(True)
    g.build()
    assert g.engine != "reference"
    X = torch.randn(64, 128, device="cuda")
    Y = torch.full((64, 128), float("nan"), device="cuda")
    g.execute({x: X, y: Y})
    torch.cuda.synchronize()
    assert torch.allclose(Y, torch.relu(3 * X), atol=1e-6)
