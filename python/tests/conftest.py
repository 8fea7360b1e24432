"""conftest.py — what the CPU tests share: a fresh random seed per test (printed in every
failure message; HIPDNN_TEST_SEED=<n> replays it), the element-wise comparison, and the `gpu`
marker (such tests skip, reported as skipped, where no GPU is present)."""
import os
import random

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a GPU (skipped without one)")


def _have_gpu():
    if not (os.path.exists("/dev/nvidia0") or os.path.exists("/dev/kfd")):
        return False
    import ctypes
    from hipdnn_jit import _lib
    p = ctypes.c_void_p()
    ok = _lib.lib.hipdnnDeviceMalloc_ext(ctypes.byref(p), 1) == 0
    if ok:
        _lib.lib.hipdnnDeviceFree_ext(p)
    _lib.last_error()
    return ok


def pytest_collection_modifyitems(config, items):
    if any("gpu" in item.keywords for item in items) and not _have_gpu():
        skip = pytest.mark.skip(reason="no GPU on this machine")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)


class _Rng:
    """numpy's Generator that remembers its seed (for failure messages)."""

    def __init__(self, seed):
        self.seed, self._gen = seed, np.random.default_rng(seed)

    def __getattr__(self, name):
        return getattr(self._gen, name)


@pytest.fixture
def rng(request):
    seed = int(os.environ.get("HIPDNN_TEST_SEED", random.SystemRandom().randrange(2**32)))
    request.node.user_properties.append(("seed", seed))
    return _Rng(seed)


def assert_close(got, want, rng, atol=1e-5, rtol=1e-5, what="output"):
    """|got - want| <= atol + rtol·|want| for every element, NaN positions equal."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs {want.shape} (seed {rng.seed})"
    nan_g, nan_w = np.isnan(got), np.isnan(want)
    assert np.array_equal(nan_g, nan_w), (
        f"{what}: NaN at {np.argwhere(nan_g != nan_w)[:5].tolist()} differ (an unwritten element stays NaN; "
        f"seed {rng.seed}, HIPDNN_TEST_SEED={rng.seed} replays)")
    err = np.abs(got - want)
    bad = ~nan_w & (err > atol + rtol * np.abs(want))
    if bad.any():
        i = tuple(int(j) for j in np.argwhere(bad)[0])
        raise AssertionError(f"{what}: {bad.sum()} of {bad.size} elements off, first at {list(i)}: got {got[i]!r}, "
                             f"want {want[i]!r} (atol {atol}, rtol {rtol}; seed {rng.seed}, "
                             f"HIPDNN_TEST_SEED={rng.seed} replays)")


def poisoned(shape, dtype=np.float32):
    return np.full(shape, np.nan, dtype=dtype)
