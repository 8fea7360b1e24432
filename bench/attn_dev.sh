#!/usr/bin/env bash
# attn_dev.sh — one GPU call while working on attention: the attention GPU tests, then decode and
# softcap benchmarks with PyTorch beside them (full logs under $OUT, a short table last). Each test
# suite runs under `timeout`: a hang must not take the session's device time.
#   here:  ../shared/gpu/bundle .gpu build-rel/tests/gpu/test_gpu build-rel/bench/bench_attention \
#            && mkdir -p .gpu/py && cp bench/*.py .gpu/py/
#   there: bash bench/attn_dev.sh [tests|notests]
set -u
out=${OUT:-/tmp/attn_dev}
mkdir -p "$out"
export HIPDNN_CACHE_DIR=$(mktemp -d)
if [ "${1:-tests}" = tests ]; then
  for suite in ${SUITES:-gpu_sdpa gpu_sdpa_mod gpu_sdpa_bwd}; do
    timeout 300 .gpu/run test_gpu --filter "$suite/*" > "$out/test_$suite.txt" 2>&1; echo "test_gpu $suite rc=$?"
    grep -E "\[FAIL\]|Synthesis" "$out/test_$suite.txt" | head -20
  done
fi
.gpu/run bench_attention --decode --default > "$out/decode.txt" 2>&1; echo "decode rc=$?"
for shape in "1 1 131072" "4 1 32768" "16 1 8192" "64 1 4096" "4 16 32768"; do
  .gpu/run bench_attention --decode $shape >> "$out/decode_cfg.txt" 2>&1
done
.gpu/run bench_attention 4 16 4096 128 > "$out/fwd_cfg.txt" 2>&1
.gpu/run bench_attention 1 32 16384 128 >> "$out/fwd_cfg.txt" 2>&1
.gpu/run bench_attention --softcap --default 2 16 2048 128 > "$out/softcap.txt" 2>&1
.gpu/run bench_attention --softcap --default 1 32 8192 128 >> "$out/softcap.txt" 2>&1
cd .gpu/py || exit 1
export PYTHONUNBUFFERED=1
python3 compare_attention.py --decode "$out/decode.txt" > "$out/compare_decode.md" 2> "$out/compare_decode.err"
cat "$out/decode_cfg.txt" "$out/fwd_cfg.txt" "$out/softcap.txt"
cat "$out/compare_decode.md"
