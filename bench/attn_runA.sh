#!/usr/bin/env bash
# attn_runA.sh — a short GPU call: the attention forward tests (each suite under a time limit, so
# a hang cannot take the session's device time), then the forward tile/loader configs on one shape.
set -u
out=${OUT:-/tmp/a}; mkdir -p $out
export HIPDNN_CACHE_DIR=$(mktemp -d)
timeout ${T_SDPA:-130} .gpu/run test_gpu --verbose --filter "gpu_sdpa/*" > "$out/test_gpu_sdpa.txt" 2>&1; echo "gpu_sdpa rc=$?"
grep -E "\[FAIL\]|Synthesis|\[RUN \]" "$out/test_gpu_sdpa.txt" | tail -4
timeout ${T_MOD:-30} .gpu/run test_gpu --filter "gpu_sdpa_mod/*" > "$out/test_gpu_sdpa_mod.txt" 2>&1; echo "gpu_sdpa_mod rc=$?"
grep -E "\[FAIL\]|Synthesis" "$out/test_gpu_sdpa_mod.txt" | tail -3
timeout ${T_BENCH:-45} .gpu/run bench_attention ${SHAPE:-4 16 4096 128} > "$out/fwd_cfg.txt" 2>&1
cat "$out/fwd_cfg.txt"
