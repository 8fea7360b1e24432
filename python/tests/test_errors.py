"""test_errors.py — bad input raises, with a message that names the problem; nothing crashes."""
import numpy as np
import pytest

import hipdnn_jit as hj


def relu_graph():
    g = hj.Graph(name="relu")
    x = g.tensor(name="x", dims=[4, 8])
    y = g.relu(x).set_output(True).set_name("y")
    return g, x, y


def test_library_refusal_is_a_hipdnn_error_with_status_and_reason():
    g = hj.Graph()
    a, b = g.tensor(name="a", dims=[2, 3]), g.tensor(name="b", dims=[4, 5])
    g.matmul  # bypass the builder's own check to reach the library's
    g._node("MatmulAttributes", {"a_tensor_uid": a, "b_tensor_uid": b,
                                 "c_tensor_uid": g._out("mm", "c", [2, 5])}, "mm")
    with pytest.raises(hj.HipdnnError) as e:
        g.validate()
    assert e.value.status == hj.Status.BAD_PARAM and e.value.status_name == "HIPDNN_STATUS_BAD_PARAM"
    assert "K" in e.value.message or "3" in e.value.message, e.value.message


def test_builder_refuses_bad_dims():
    g = hj.Graph()
    a, b = g.tensor(name="a", dims=[2, 3]), g.tensor(name="b", dims=[4, 5])
    with pytest.raises(ValueError, match="K = 3"):
        g.matmul(a, b)
    with pytest.raises(ValueError, match="do not broadcast"):
        g.add(g.tensor(name="c", dims=[2, 3]), g.tensor(name="d", dims=[2, 4]))
    with pytest.raises(ValueError, match=">= 1"):
        g.tensor(name="e", dims=[0, 3])


def test_execute_checks_every_array():
    g, x, y = relu_graph()
    g.build(engine="reference")
    X, Y = np.ones((4, 8), np.float32), np.empty((4, 8), np.float32)
    with pytest.raises(ValueError, match=r"no array for tensor\(s\) 'y'"):
        g.execute({x: X})
    with pytest.raises(TypeError, match="'x'.*float64 does not hold FLOAT"):
        g.execute({x: X.astype(np.float64), y: Y})
    with pytest.raises(ValueError, match=r"'x'.*shape \[8, 4\] differs from the graph's dims \[4, 8\]"):
        g.execute({x: np.ones((8, 4), np.float32), y: Y})
    with pytest.raises(ValueError, match="'y'.*strides"):
        g.execute({x: X, y: np.empty((8, 4), np.float32).T})
    with pytest.raises(KeyError, match="no tensor 'nope'"):
        g.execute({x: X, y: Y, "nope": Y})
    ro = np.empty((4, 8), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="'y'.*read-only"):
        g.execute({x: X, y: ro})
    with pytest.raises(TypeError, match="not an array"):
        g.execute({x: [[1.0] * 8] * 4, y: Y})


def test_execute_needs_build_and_a_rebuild_after_a_change():
    g, x, y = relu_graph()
    with pytest.raises(RuntimeError, match="build"):
        g.execute({})
    g.build(engine="reference")
    g.tensor(name="late", dims=[1])
    with pytest.raises(RuntimeError, match="build"):
        g.workspace_size()


def test_unknown_knob_and_engine():
    g, _, _ = relu_graph()
    with pytest.raises(hj.HipdnnError, match="no knob 'jit.no_such_knob'"):
        g.build(engine="reference", knobs={"jit.no_such_knob": 1})
    with pytest.raises(ValueError, match="no engine named 'warp_drive'.*reference"):
        g.build(engine="warp_drive")


def test_virtual_tensor_cannot_be_bound():
    g = hj.Graph()
    x = g.tensor(name="x", dims=[2, 2])
    mid = g.neg(x)
    y = g.abs(mid).set_output(True)
    g.build(engine="reference")
    a = np.ones((2, 2), np.float32)
    with pytest.raises(ValueError, match="virtual"):
        g.execute({x: a, y: a.copy(), mid: a.copy()})


def test_bad_json():
    with pytest.raises(ValueError, match="not valid JSON"):
        hj.Graph.from_json("{ not json")
    g = hj.Graph.from_json('{"name": "g", "tensors": [{"uid": 1, "name": "x", "data_type": "FLOAT", '
                           '"dims": [2], "strides": [1]}], "nodes": [{"name": "n", "attributes_type": '
                           '"PointwiseAttributes", "attributes": {"operation": "NO_SUCH_MODE", '
                           '"in_0_tensor_uid": 1, "out_0_tensor_uid": 1}}]}')
    with pytest.raises(hj.HipdnnError, match="NO_SUCH_MODE|operation"):
        g.validate()


def test_host_arrays_on_a_gpu_plan_are_refused_by_name():
    from hipdnn_jit.arrays import check_binding, describe
    g, x, _ = relu_graph()
    with pytest.raises(ValueError, match="host memory.*jit_fused.*engine='reference'"):
        check_binding(x, describe(np.ones((4, 8), np.float32)), False, False, "jit_fused")


def test_bad_data_type_name_and_log_level():
    with pytest.raises(ValueError, match="unknown data type"):
        hj.Graph(io_data_type="float13")
    with pytest.raises(ValueError, match="log level"):
        hj.set_log_level("chatty")
