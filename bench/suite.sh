#!/usr/bin/env bash
# suite.sh — the benchmark suite in one command on the GPU machine: every GPU test first (under a
# time limit; its summary goes into the report), then fused attention forward and backward (our
# SDPA, default configs, against PyTorch's FLASH / CUDNN / EFFICIENT backends), decode (K/V TB/s
# against FLASH and CUDNN and the device copy), the softcap modifier's cost, the fused norm graphs
# and the whole example graphs against PyTorch, all in this one run; then bench/suite_report.py
# writes the suite's section of bench/RESULTS.md and the chart bench/attention.png (both also
# copied to $OUT, since the GPU machine's checkout is a copy).
#   here:  ../shared/gpu/bundle .gpu build-rel/tests/gpu/test_gpu build-rel/bench/bench_attention \
#            build-rel/bench/bench_norm build-rel/bench/bench_graphs && mkdir -p .gpu/py && cp bench/*.py .gpu/py/
#   there: bash bench/suite.sh          (SUITE_TESTS=0: the benchmarks only)
set -u
root=$PWD
out=${OUT:-/tmp/suite}
mkdir -p "$out"
export HIPDNN_CACHE_DIR=${HIPDNN_CACHE_DIR:-$(mktemp -d)}
if [ "${SUITE_TESTS:-1}" = 1 ]; then
  timeout 480 .gpu/run test_gpu > "$out/tests.txt" 2>&1; echo "test_gpu rc=$?"
  grep -E "\[FAIL\]|Synthesis" "$out/tests.txt" | tail -5
fi
.gpu/run bench_attention --default > "$out/attention.txt" 2>&1; echo "bench_attention rc=$?"
.gpu/run bench_attention --backward --default > "$out/attention_bwd.txt" 2>&1; echo "bench_attention --backward rc=$?"
.gpu/run bench_attention --decode --default > "$out/decode.txt" 2>&1; echo "bench_attention --decode rc=$?"
for shape in "4 16 4096 128" "1 32 8192 128"; do
  .gpu/run bench_attention --softcap --default $shape >> "$out/softcap.txt" 2>&1
done
.gpu/run bench_norm > "$out/norms.txt" 2>&1; echo "bench_norm rc=$?"
.gpu/run bench_graphs examples/graphs/*.json > "$out/graphs.txt" 2>&1; echo "bench_graphs rc=$?"
cd .gpu/py || exit 1
export PYTHONUNBUFFERED=1
python3 compare_attention.py "$out/attention.txt" > "$out/compare_attention.md" 2> "$out/compare_attention.err"
python3 compare_attention.py --backward "$out/attention_bwd.txt" >> "$out/compare_attention.md" 2>> "$out/compare_attention.err"
python3 compare_attention.py --decode "$out/decode.txt" >> "$out/compare_attention.md" 2>> "$out/compare_attention.err"
python3 compare_attention.py --softcap "$out/softcap.txt" >> "$out/compare_attention.md" 2>> "$out/compare_attention.err"
grep -h "Synthesis" "$out/tests.txt" 2>/dev/null | tail -1 | sed 's/^/GPU tests in this run: /' >> "$out/compare_attention.md"
python3 compare.py "$out/norms.txt" > "$out/compare_norms.md" 2> "$out/compare_norms.err"
python3 compare_graphs.py "$out/graphs.txt" "$root/examples/graphs" > "$out/compare_graphs.md" 2> "$out/compare_graphs.err"
python3 suite_report.py "$root/bench/RESULTS.md" "$root/bench/attention.png" "$out/compare_attention.md" \
    "$out/compare_norms.md" "$out/compare_graphs.md" || exit 1
cp "$root/bench/RESULTS.md" "$root/bench/attention.png" "$out/"
cat "$out/compare_attention.md" "$out/compare_norms.md" "$out/compare_graphs.md"
