"""test_gpu.py — the package on a GPU with PyTorch's CUDA tensors (skipped, reported as skipped,
where there is no GPU or no torch): fused bf16 rmsnorm and causal attention through the JIT
engine compared per element with a float64 reference, the same graph fed through
__cuda_array_interface__ and through DLPack-only objects, and execution on a caller's stream."""
import math

import numpy as np
import pytest

import hipdnn_jit as hj
from conftest import assert_close

pytestmark = pytest.mark.gpu


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _seeded(torch, rng):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int(rng.seed))
    return gen


def _rmsnorm_graph(rows, cols):
    g = hj.Graph(name="rmsnorm_bf16", io_data_type="bfloat16", compute_data_type="float")
    x = g.tensor(name="x", dims=[1, rows, cols], data_type="bfloat16")
    scale = g.tensor(name="scale", dims=[1, 1, cols], data_type="float")
    y, _ = g.rmsnorm(x, scale, 1e-5)
    y.set_output(True)
    return g, x, scale, y


def _rmsnorm_ref(X, S):
    x = X.double()
    return x * (x.pow(2).mean(-1, keepdim=True) + 1e-5).rsqrt() * S.double()


def test_rmsnorm_bf16_on_the_fused_engine(torch, rng):
    rows, cols = 1000, 1024  # rows off any block multiple
    g, x, scale, y = _rmsnorm_graph(rows, cols)
    g.build()
    assert g.engine == "jit_fused", g.engine
    gen = _seeded(torch, rng)
    X = torch.randn(1, rows, cols, device="cuda", generator=gen).to(torch.bfloat16)
    S = torch.rand(1, 1, cols, device="cuda", generator=gen) + 0.5
    Y = torch.full((1, rows, cols), float("nan"), device="cuda", dtype=torch.bfloat16)
    g.execute({x: X, scale: S, y: Y})
    torch.cuda.synchronize()
    assert_close(Y.float().cpu().numpy(), _rmsnorm_ref(X, S).cpu().numpy(), rng, atol=2e-2, rtol=1e-2,
                 what="rmsnorm y")


class _CaiOnly:
    """An object that offers only __cuda_array_interface__ (no __dlpack__, not a torch tensor)."""

    def __init__(self, t):
        self._t = t
        self.__cuda_array_interface__ = t.__cuda_array_interface__


class _DlpackOnly:
    """An object that offers only the DLPack protocol."""

    def __init__(self, t):
        self._t = t

    def __dlpack__(self, stream=None):
        return self._t.__dlpack__()

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()


@pytest.mark.parametrize("wrap", [_CaiOnly, _DlpackOnly], ids=["cuda_array_interface", "dlpack"])
def test_array_protocols_give_device_pointers(torch, rng, wrap):
    rows, cols = 257, 512
    g, x, scale, y = _rmsnorm_graph(rows, cols)
    g.build()
    gen = _seeded(torch, rng)
    X = torch.randn(1, rows, cols, device="cuda", generator=gen).to(torch.bfloat16)
    S = torch.rand(1, 1, cols, device="cuda", generator=gen) + 0.5
    Y = torch.full((1, rows, cols), float("nan"), device="cuda", dtype=torch.bfloat16)
    g.execute({x: wrap(X), scale: wrap(S), y: wrap(Y)})
    torch.cuda.synchronize()
    assert_close(Y.float().cpu().numpy(), _rmsnorm_ref(X, S).cpu().numpy(), rng, atol=2e-2, rtol=1e-2,
                 what=f"rmsnorm y through {wrap.__name__}")


def test_causal_attention_bf16_on_a_callers_stream(torch, rng):
    B, H, S, D = 2, 4, 300, 64
    g = hj.Graph(name="sdpa_bf16", io_data_type="bfloat16", compute_data_type="float")
    q = g.tensor(name="q", dims=[B, H, S, D], data_type="bfloat16")
    k = g.tensor(name="k", dims=[B, H, S, D], data_type="bfloat16")
    v = g.tensor(name="v", dims=[B, H, S, D], data_type="bfloat16")
    o, _ = g.sdpa(q, k, v, attn_scale=1.0 / math.sqrt(D), causal=True)
    o.set_output(True)
    g.build()
    assert g.engine == "jit_fused", g.engine
    gen = _seeded(torch, rng)
    Q, K, V = (torch.randn(B, H, S, D, device="cuda", generator=gen).to(torch.bfloat16) for _ in range(3))
    O = torch.full((B, H, S, D), float("nan"), device="cuda", dtype=torch.bfloat16)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):  # the current stream by default: the side stream
        g.execute({q: Q, k: K, v: V, o: O})
    side.synchronize()
    s = (Q.double() @ K.double().transpose(-1, -2)) / math.sqrt(D)
    s = s.masked_fill(torch.ones(S, S, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    ref = torch.softmax(s, -1) @ V.double()
    assert_close(O.float().cpu().numpy(), ref.cpu().numpy(), rng, atol=2e-2, rtol=2e-2, what="attention O")


def test_host_numpy_next_to_device_tensors_is_refused_by_name(torch, rng):
    g, x, scale, y = _rmsnorm_graph(8, 64)
    g.build()
    X = torch.randn(1, 8, 64, device="cuda").to(torch.bfloat16)
    Y = torch.empty(1, 8, 64, device="cuda", dtype=torch.bfloat16)
    with pytest.raises((ValueError, TypeError, hj.HipdnnError)) as e:
        g.execute({x: X, scale: np.ones((1, 1, 64), np.float32), y: Y})
    assert "scale" in str(e.value)
