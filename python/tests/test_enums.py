"""test_enums.py — the generated enums (hipdnn_jit._enums, from cmake/gen_py_enums.py) against
the header text itself, read here with a separate, simpler parse, so a drift between the
headers and the package is caught."""
import os
import re

import hipdnn_jit as hj
from conftest import ROOT


def header_value(header, c_name):
    text = open(os.path.join(ROOT, "include", header), encoding="utf-8").read()
    m = re.search(r"\b" + c_name + r"\s*=\s*(\d+)", text)
    assert m, f"{c_name} not in {header}"
    return int(m.group(1))


def test_values_match_the_headers():
    cases = [(hj.DataType.BFLOAT16, "HipdnnDataType.h", "HIPDNN_DATA_BFLOAT16"),
             (hj.DataType.BOOLEAN, "HipdnnDataType.h", "HIPDNN_DATA_BOOLEAN"),
             (hj.Status.NOT_SUPPORTED, "HipdnnStatus.h", "HIPDNN_STATUS_NOT_SUPPORTED"),
             (hj.PointwiseMode.GELU_FWD, "HipdnnPointwiseMode.h", "HIPDNN_POINTWISE_GELU_FWD"),
             (hj.AttributeName.ENGINE_NAME, "HipdnnBackendAttributeName.h", "HIPDNN_ATTR_ENGINE_NAME_EXT"),
             (hj.AttributeName.EXECUTION_PLAN_KERNEL_CACHE_STATS, "HipdnnBackendAttributeName.h",
              "HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT"),
             (hj.DescriptorType.BACKEND_VARIANT_PACK_DESCRIPTOR, "HipdnnBackendDescriptorType.h",
              "HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR"),
             (hj.AttributeType.BACKEND_DESCRIPTOR, "HipdnnBackendAttributeType.h", "HIPDNN_TYPE_BACKEND_DESCRIPTOR"),
             (hj.Severity.OFF, "HipdnnBackendCallbackTypes.h", "HIPDNN_SEV_OFF")]
    for member, header, c_name in cases:
        assert int(member) == header_value(header, c_name), f"{member!r} != {c_name} in {header}"


def test_every_data_type_of_the_header_is_generated():
    text = open(os.path.join(ROOT, "include", "HipdnnDataType.h"), encoding="utf-8").read()
    names = re.findall(r"^\s*HIPDNN_DATA_(\w+?)(?:_EXT)?\s*=", text, re.M)
    assert len(names) == len(hj.DataType.__members__) and len(names) >= 18
    for n in names:
        assert n in hj.DataType.__members__


def test_wire_names_come_from_the_schema():
    from hipdnn_jit._enums import WireDataType, WirePointwiseMode
    text = open(os.path.join(ROOT, "serialize", "schema", "hipdnn_graph.fbs"), encoding="utf-8").read()
    assert int(WireDataType.BOOLEAN) == int(re.search(r"BOOLEAN = (\d+)", text).group(1))
    assert int(WirePointwiseMode.MAX_OP) == int(hj.PointwiseMode.MAX)
