#!/usr/bin/env bash
# gpu_run.sh — one call on the GPU machine: every GPU test, then the benchmarks with PyTorch
# beside them. Run from the repository root there, with the bundle carried as .gpu and the
# Python scripts copied into .gpu/py (see README.md "GPU tests and benchmarks"):
#   here:  ../shared/gpu/bundle .gpu build-rel/tests/gpu/test_gpu build-rel/tests/unit/runtime/test_rt \
#            build-rel/bench/bench_norm build-rel/bench/bench_matmul build-rel/bench/bench_graphs \
#            build-rel/bench/bench_plan build-rel/examples/hipdnn_demo && mkdir -p .gpu/py && cp bench/*.py .gpu/py/
#   there: bash bench/gpu_run.sh          (full logs under $OUT, a short summary last)
set -u
root=$PWD
out=${OUT:-/tmp/gpu_run}
mkdir -p "$out"
# every GPU test twice into one fresh kernel cache: the first run compiles, the second builds
# every plan from the cache (and must compute the same)
export HIPDNN_CACHE_DIR=$(mktemp -d)
for pass in cold warm; do
  .gpu/run test_gpu > "$out/test_$pass.txt" 2>&1; echo "test_gpu ($pass cache) rc=$?"
  grep -E "\[FAIL\]|Synthesis" "$out/test_$pass.txt" | head -20
done
.gpu/run test_rt --filter 'rt_gpu/*' > "$out/rt.txt" 2>&1; echo "test_rt(gpu) rc=$?"; grep -E "\[FAIL\]|Synthesis" "$out/rt.txt"
.gpu/run hipdnn_demo examples/graphs/*.json > "$out/demo.txt" 2>&1; echo "demo rc=$?"; grep "executed" "$out/demo.txt"
.gpu/run bench_norm > "$out/ours.txt" 2>&1
.gpu/run bench_matmul > "$out/mm.txt" 2>&1
.gpu/run bench_graphs examples/graphs/*.json > "$out/graphs.txt" 2>&1
(cd examples/graphs && ../../.gpu/run bench_plan layernorm.json rmsnorm_residual.json matmul_bias_gelu.json \
   bn_inference_relu.json conv_bias_relu.json) > "$out/plan.txt" 2>&1
cd .gpu/py || exit 1
export PYTHONUNBUFFERED=1
python3 compare.py "$out/ours.txt" > "$out/compare.txt" 2>&1
python3 compare_matmul.py "$out/mm.txt" > "$out/compare_mm.txt" 2>&1
python3 compare_graphs.py "$out/graphs.txt" "$root/examples/graphs" > "$out/compare_graphs.txt" 2>&1
cat "$out/compare.txt" "$out/compare_mm.txt" "$out/compare_graphs.txt" "$out/plan.txt"
