#!/usr/bin/env bash
# attn_profile.sh — Nsight Compute beside the same forward shape: our default attention kernel
# (bench_attention --default) and PyTorch's CUDNN backend (torch_sdpa_once.py), non-causal and
# causal, so launch shape (grid, block, registers, shared memory), tensor-pipe use, stall reasons
# and the hottest SASS lines can be read side by side. Clocks are left alone (METHOD.md).
#   here:  bundle as bench/attn_dev.sh says
#   there: SHAPE="4 16 4096 128" [WHICH="ours cudnn"] [CFG='--knobs ...'] bash bench/attn_profile.sh
#          (reports and text under $OUT; CFG: bench_attention options for our kernel)
#          DECODE="1 1 131072" [WHICH="ours cudnn"] bash bench/attn_profile.sh: the decode kernels at
#          B Sq Skv (GQA 32:8, D=128), with the memory sections
set -u
out=${OUT:-/tmp/attn_profile}
mkdir -p "$out"
export HIPDNN_CACHE_DIR=${HIPDNN_CACHE_DIR:-$(mktemp -d)}
shape=${SHAPE:-4 16 4096 128}
sections="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats
 --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --section SourceCounters"
metrics="--metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg"
ncu_run() { # name, ncu filter options..., -- program...
  local name=$1; shift
  timeout ${T_NCU:-240} ncu --clock-control none $sections $metrics -o "$out/$name" -f "$@" > "$out/$name.log" 2>&1
  echo "ncu $name rc=$?"
  ncu --import "$out/$name.ncu-rep" --page details > "$out/$name.txt" 2>&1
  ncu --import "$out/$name.ncu-rep" --page source --print-source sass --csv > "$out/$name.sass.csv" 2>/dev/null
}
which=${WHICH:-ours cudnn}
names=""
if [ -n "${DECODE:-}" ]; then # every kernel of one call each: ours (splits + combine), cuDNN's
  sections="$sections --section MemoryWorkloadAnalysis"
  [[ $which == *ours* ]] && ncu_run ours_dec --launch-skip 6 -c 2 .gpu/run bench_attention --decode --default $DECODE \
    && names="ours_dec"
  [[ $which == *cudnn* ]] && ncu_run cudnn_dec --launch-skip 3 -c 8 python3 .gpu/py/torch_sdpa_once.py --decode $DECODE \
    && names="$names cudnn_dec"
  which=""
fi
if [[ $which == *ours* ]]; then # bench_attention --default: 3 warm-ups + 20 timed launches per mask, non-causal first
  ncu_run ours_nc -k regex:hd_sdpa_fwd --launch-skip 3 -c 1 .gpu/run bench_attention --default ${CFG:-} $shape
  ncu_run ours_c -k regex:hd_sdpa_fwd --launch-skip 26 -c 1 .gpu/run bench_attention --default ${CFG:-} $shape
  names="ours_nc ours_c"
fi
if [[ $which == *cudnn* ]]; then # randn x 3, then two calls per mask
  ncu_run cudnn --launch-skip 3 -c 8 python3 .gpu/py/torch_sdpa_once.py $shape cudnn
  names="$names cudnn"
fi
for f in $names; do
  echo "== $f"
  grep -E '^  [a-zA-Z_]|Duration|Registers Per|Block Size|Grid Size|Shared Memory Config|Dynamic Shared|Compute \(SM\) Thr|gmma|Warp Cycles Per Issued|Issue Slots Busy|Achieved Occ|Stall|No Eligible|DRAM Throughput|Memory Throughput|L2 Hit|L1/TEX Hit|Waves Per SM|SM Frequency' "$out/$f.txt" | head -${NLINES:-60}
done
