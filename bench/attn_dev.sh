#!/usr/bin/env bash
# attn_dev.sh — one GPU call while working on attention. Each test suite runs under `timeout`: a
# hang must not take the session's device time. Full logs under $OUT, a short table last.
#   here:  ../shared/gpu/bundle .gpu build-rel/tests/gpu/test_gpu build-rel/bench/bench_attention \
#            && mkdir -p .gpu/py && cp bench/*.py .gpu/py/
#   there: bash bench/attn_dev.sh [full|quick|notests|candidate|final]
#   cuDNN's paged decode beside ours (bench/cudnn_paged.py) needs NVIDIA's Python frontend, which
#   the GPU machine lacks: here `mkdir -p .git/info && echo /.whl/ >> .git/info/exclude && python3 -m
#   pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp --platform
#   manylinux_2_28_x86_64 -d .whl nvidia-cudnn-frontend==1.16.0`, and carry ".whl" with ".gpu"
#     full (default): the attention GPU tests (SUITES), decode and forward configs, softcap, and
#                     the decode table beside PyTorch's FLASH and CUDNN
#     quick:          the forward tests (gpu_sdpa, gpu_sdpa_mod), then the forward configs of SHAPE
#                     (CFG: bench_attention options before the shape, e.g.
#                     CFG='--knobs jit.sdpa_intra=1 --knobs jit.sdpa_persist=2')
#     notests:        full without the tests
#     candidate:      a candidate default (CAND='jit.sdpa_persist=4'): the forward tests with every
#                     plan on it (HIPDNN_TEST_KNOBS), then the D=128 shapes with and without it
#                     beside PyTorch (compare_attention.py's "best" column)
#     final:          the run RESULTS.md's tables come from: every test_gpu test and rt_gpu (bundle
#                     build-rel/tests/unit/runtime/test_rt too), then the default forward, decode and
#                     backward tables, each beside PyTorch's FLASH and CUDNN, and softcap's cost
#     pending:        what the seventh session prepared and could not measure (bench/NOTES.md): the
#                     score modifier tests, softcap with jit.sdpa_mod_fold 2 beside the default and the
#                     plain kernel, paged decode with the pages in order against a random order, the
#                     backward beside PyTorch
#     loader:         the backward tests, the backward with its loading warpgroup (jit.sdpa_ws 1)
#                     beside the default, then what paged runs
#     next:           the eighth session's unmeasured work: the paged and L2-prefetch tests, the decode tests with
#                     jit.sdpa_page_tile 2, the decode table with it (and one block an SM), then own
#     ahead:          the paged and decode tests (one page entry a tile now the default), then paged
#                     decode with the entries 2 and 4 tiles ahead (jit.sdpa_kv_ahead), at the
#                     default's two blocks an SM and at one (the split count of one wave)
#     pick:           candidate defaults built beside the current one (PICK='.gpu .gpu/a4 .gpu/a4b1'): paged
#                     decode at Sq = 1 by each bundle's defaults, then `final` on the bundle whose paged
#                     rows average highest (the current one on a tie); prints the pick first
#     own:            the loading warpgroup's test, the backward with jit.sdpa_ws 1 and 2 (each
#                     warpgroup's own dQ share)
#     paged:          paged decode beside dense: split counts, dense with the paged
#                     graph's sequence lengths (BENCH_LENS), Nsight counters of both kernels at B = 16
#     channels:       paged against dense decode at one block an SM (B = 16, one split): Nsight's
#                     DRAM and L2 counters of each kernel, their spread over the memory's units
#                     (.max / .min / .avg over instances), and cuDNN's paged rate on the same shapes
#     bwd:            the backward and score-modifier tests, the backward table beside PyTorch, Nsight
#                     Compute's counters of one dK/dV launch
#     fp8:            the FP8 attention tests (gpu_sdpa_fp8: sdpa_fwd_fp8.hip), then bench_attention --fp8:
#                     at the D=128 shapes our bf16 default beside FP8 E4M3 (with and without the amax
#                     outputs), non-causal and causal
set -u
mode=${1:-full}
G=${G:-.gpu} # the bundle (G=.gpu/cand: a candidate default's build beside the current one)
out=${OUT:-/tmp/attn_dev}
mkdir -p "$out"
export HIPDNN_CACHE_DIR=$(mktemp -d)
if ls .whl/*.whl > /dev/null 2>&1; then # carried wheels (the cuDNN frontend), installed for this call
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    .whl/*.whl && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
[ "$mode" = quick ] && SUITES=${SUITES:-gpu_sdpa gpu_sdpa_mod}
if [ "$mode" = pick ]; then # one call: choose among prebuilt defaults, then the final run on the winner
  best=.gpu best_rate=0
  for g in ${PICK:-.gpu .gpu/a4 .gpu/a4b1}; do
    for shape in "1 1 131072" "4 1 32768" "16 1 8192" "64 1 4096"; do
      timeout 60 $g/run bench_attention --decode --default $shape 2>&1 | grep -v '^#' | sed "s#^#$g #"
    done > "$out/pick_$(basename $g).txt"
    rate=$(awk '$8 == 1 {s += $NF; n++} END {printf "%.4f", n ? s / n : 0}' "$out/pick_$(basename $g).txt")
    echo "pick: $g paged mean $rate TB/s"; cat "$out/pick_$(basename $g).txt" >> "$out/pick.txt"
    if awk -v a=$rate -v b=$best_rate 'BEGIN {exit !(a > b + 0.005)}'; then best=$g best_rate=$rate; fi
  done
  echo "pick: $best"
  G=$best mode=final
fi
if [ "$mode" = fp8 ]; then
  timeout ${T_SUITE:-300} $G/run test_gpu --verbose --filter "gpu_sdpa_fp8/*" > "$out/test_fp8.txt" 2>&1
  echo "gpu_sdpa_fp8 rc=$?"; grep -E "\[FAIL\]|Synthesis" "$out/test_fp8.txt" | tail -8
  timeout ${T_BENCH:-240} $G/run bench_attention --fp8 > "$out/fp8.txt" 2>&1; echo "fp8 bench rc=$?"
  cat "$out/fp8.txt"
  exit 0
fi
if [ "$mode" = final ]; then
  timeout ${T_SUITE:-300} $G/run test_gpu --verbose > "$out/test_gpu.txt" 2>&1
  echo "test_gpu rc=$?"; grep -E "\[FAIL\]|Synthesis" "$out/test_gpu.txt" | tail -4
  timeout 60 $G/run test_rt --verbose --filter "rt_gpu/*" > "$out/test_rt.txt" 2>&1
  echo "rt_gpu rc=$?"; grep -E "\[FAIL\]|Synthesis" "$out/test_rt.txt" | tail -2
  timeout ${T_BENCH:-120} $G/run bench_attention --default > "$out/fwd.txt" 2>&1; echo "forward rc=$?"
  timeout ${T_BENCH:-120} $G/run bench_attention --decode --default > "$out/decode.txt" 2>&1; echo "decode rc=$?"
  cd .gpu/py || exit 1
  export PYTHONUNBUFFERED=1
  python3 compare_attention.py "$out/fwd.txt" > "$out/compare_fwd.md" 2> "$out/compare_fwd.err"
  python3 compare_attention.py --decode "$out/decode.txt" > "$out/compare_decode.md" 2> "$out/compare_decode.err"
  cat "$out/compare_fwd.md" "$out/compare_decode.md"; grep "cudnn paged" "$out/compare_decode.err" | head -4
  cd ../..
  for shape in "4 16 4096 128" "2 16 8192 128" "4 32 4096 64"; do
    timeout ${T_BENCH:-90} $G/run bench_attention --backward $shape 2>&1 | grep -v '^#' >> "$out/bwd.txt"
  done
  for shape in "4 16 4096 128" "1 32 8192 128"; do
    timeout ${T_BENCH:-60} $G/run bench_attention --softcap --default $shape 2>&1 | grep -v '^#' >> "$out/softcap.txt"
  done
  cd .gpu/py
  python3 compare_attention.py --backward "$out/bwd.txt" 2> "$out/compare_bwd.err"
  python3 compare_attention.py --softcap "$out/softcap.txt"
  exit 0
fi
if [ "$mode" = pending ]; then
  timeout ${T_SUITE:-300} $G/run test_gpu --verbose --filter "gpu_sdpa_mod/*" > "$out/test_mod.txt" 2>&1
  echo "test_gpu gpu_sdpa_mod rc=$?"; grep -E "\[FAIL\]|Synthesis" "$out/test_mod.txt" | tail -5
  timeout ${T_SUITE:-300} $G/run test_gpu --verbose --filter "gpu_sdpa_bwd/*" > "$out/test_bwd.txt" 2>&1
  echo "test_gpu gpu_sdpa_bwd rc=$?"; grep -E "\[FAIL\]|Synthesis" "$out/test_bwd.txt" | tail -5
  for shape in "4 16 4096 128" "1 32 8192 128"; do
    timeout ${T_BENCH:-60} $G/run bench_attention --softcap --knobs jit.sdpa_mod_fold=2 $shape 2>&1 | grep -v '^#'
  done | tee "$out/softcap.txt"
  for order in random ordered; do # one block an SM (16 splits) and the default (two an SM)
    BENCH_PAGES=$order timeout ${T_BENCH:-60} $G/run bench_attention --decode --knobs jit.sdpa_splits=16 1 1 131072 \
      2>&1 | grep -v '^#' | awk -v o=$order '$7 == 1 {print o, $0}'
  done | tee "$out/paged_order.txt"
  for shape in "4 16 4096 128" "2 16 8192 128" "4 32 4096 64"; do # the backward beside PyTorch
    timeout ${T_BENCH:-90} $G/run bench_attention --backward $shape 2>&1 | grep -v '^#' >> "$out/bwd.txt"
  done
  (cd .gpu/py && python3 compare_attention.py --backward "$out/bwd.txt")
  exit 0
fi
if [ "$mode" = bwd ]; then
  for suite in gpu_sdpa_bwd gpu_sdpa_mod; do
    timeout ${T_SUITE:-300} $G/run test_gpu --verbose --filter "$suite/*" > "$out/test_$suite.txt" 2>&1
    echo "test_gpu $suite rc=$?"; grep -E "\[FAIL\]|Synthesis" "$out/test_$suite.txt" | tail -5
  done
  for shape in ${BWD_SHAPES:-"4 16 4096 128" "2 16 8192 128" "4 32 4096 64"}; do
    timeout ${T_BENCH:-90} $G/run bench_attention --backward $shape 2>&1 | grep -v '^#' >> "$out/bwd.txt"
  done
  # counters of one dK/dV launch (Nsight Compute; the clocks left alone): throughput, then where
  # the warps wait (stall reasons per issued instruction)
  timeout 240 ncu --clock-control none -k regex:hd_sdpa_bwd_kv -s 2 -c 1 --section SpeedOfLight \
    --section WarpStateStats --section ComputeWorkloadAnalysis --section Occupancy \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    $G/run bench_attention --backward --default 4 16 4096 128 > "$out/ncu_bwd.txt" 2>&1
  echo "ncu rc=$?"; grep -E "Duration|Compute .SM. Throughput|Issue Slots|stalled" "$out/ncu_bwd.txt" |
    sort -k3 -g -r | head -16
  [ -n "${NO_TABLE:-}" ] || (cd .gpu/py && python3 compare_attention.py --backward "$out/bwd.txt")
  exit 0
fi
if [ "$mode" = next ]; then # what the eighth session prepared and could not run (bench/NOTES.md)
  timeout 120 $G/run test_gpu --verbose --filter "gpu_sdpa/paged*" > "$out/test_paged.txt" 2>&1
  echo "test_gpu gpu_sdpa/paged* rc=$?"; grep -E "\[FAIL\]|Synthesis" "$out/test_paged.txt" | tail -5
  timeout 120 $G/run test_gpu --verbose --filter "gpu_sdpa/l2*" > "$out/test_l2.txt" 2>&1
  echo "test_gpu gpu_sdpa/l2* rc=$?"; grep -E "\[FAIL\]|Synthesis" "$out/test_l2.txt" | tail -5
  HIPDNN_TEST_KNOBS=jit.sdpa_page_tile=2 timeout 200 $G/run test_gpu --verbose --filter "gpu_sdpa/decode*" \
    > "$out/test_decode_tile.txt" 2>&1
  echo "test_gpu gpu_sdpa/decode* with jit.sdpa_page_tile=2 rc=$?"; grep -E "\[FAIL\]|Synthesis" "$out/test_decode_tile.txt" | tail -5
  for shape in "1 1 131072" "4 1 32768" "16 1 8192" "64 1 4096" "16 4 8192"; do
    timeout 60 $G/run bench_attention --decode --knobs jit.sdpa_page_tile=2 \
      --knobs jit.sdpa_page_tile=2,jit.sdpa_splits=1 $shape 2>&1 | grep -v '^#'
  done | tee "$out/decode_tile.txt"
  mode=own
fi
if [ "$mode" = ahead ]; then # the ninth session: page-table entries more than a tile ahead
  for f in "gpu_sdpa/paged*" "gpu_sdpa/decode*"; do
    timeout 200 $G/run test_gpu --verbose --filter "$f" > "$out/test_$(echo $f | tr -dc a-z_).txt" 2>&1
    echo "test_gpu $f rc=$?"; grep -E "\[FAIL\]|Synthesis" "$out/test_$(echo $f | tr -dc a-z_).txt" | tail -5
  done
  for shape in "1 1 131072 16" "4 1 32768 4" "16 1 8192 1" "64 1 4096 1" "16 4 8192 1"; do
    set -- $shape # B Sq Skv, the split count of one block an SM
    timeout 90 $G/run bench_attention --decode --knobs jit.sdpa_page_tile=1 \
      --knobs jit.sdpa_kv_ahead=2 --knobs jit.sdpa_kv_ahead=4 --knobs jit.sdpa_splits=$4 \
      --knobs jit.sdpa_kv_ahead=2,jit.sdpa_splits=$4 --knobs jit.sdpa_kv_ahead=4,jit.sdpa_splits=$4 $1 $2 $3 2>&1 | grep -v '^#'
  done | tee "$out/decode_ahead.txt"
  for shape in "4 32 4096 64" "16 16 1024 64"; do # head dim 64 with half the exponentials on the FMA pipes
    timeout 60 $G/run bench_attention --knobs jit.sdpa_sw_exp=2 $shape 2>&1 | grep -v '^#'
  done | tee "$out/d64_sw_exp.txt"
  (cd .gpu/py && python3 compare_attention.py --decode "$out/decode_ahead.txt")
  exit 0
fi
if [ "$mode" = own ]; then # the loading warpgroup with each warpgroup's own dQ share (jit.sdpa_ws 2)
  timeout 60 $G/run test_gpu --verbose --filter "gpu_sdpa_bwd/loader_warpgroup" > "$out/test_loader.txt" 2>&1
  rc=$?; echo "test_gpu loader_warpgroup rc=$rc"; grep -E "\[FAIL\]|Synthesis" "$out/test_loader.txt" | tail -5
  [ $rc = 0 ] && for shape in "4 16 4096 128" "4 32 4096 64"; do
    timeout 40 $G/run bench_attention --backward --knobs jit.sdpa_ws=1 --knobs jit.sdpa_ws=2 $shape 2>&1 | grep -v '^#'
  done | tee "$out/bwd_own.txt"
  [ -f "$out/decode_tile.txt" ] && (cd .gpu/py && python3 compare_attention.py --decode "$out/decode_tile.txt")
  exit 0
fi
if [ "$mode" = loader ]; then # the backward's loading warpgroup (jit.sdpa_ws 1), then the paged sweep
  timeout 90 $G/run test_gpu --verbose --filter "gpu_sdpa_bwd/loader_warpgroup" > "$out/test_loader.txt" 2>&1
  rc=$?; echo "test_gpu loader_warpgroup rc=$rc"; grep -E "\[FAIL\]|Synthesis" "$out/test_loader.txt" | tail -5
  if [ $rc != 124 ]; then # a hang would take the rest of the call
    timeout 200 $G/run test_gpu --verbose --filter "gpu_sdpa_bwd/*" > "$out/test_bwd.txt" 2>&1
    echo "test_gpu gpu_sdpa_bwd rc=$?"; grep -E "\[FAIL\]|Synthesis" "$out/test_bwd.txt" | tail -5
  fi
  [ $rc = 0 ] && for shape in "4 16 4096 128" "2 16 8192 128" "4 32 4096 64"; do
    timeout 90 $G/run bench_attention --backward --knobs jit.sdpa_ws=1 $shape 2>&1 | grep -v '^#'
  done | tee "$out/bwd_loader.txt"
  mode=paged
fi
if [ "$mode" = paged ]; then # where paged decode loses to dense (bench/NOTES.md decode #13)
  for shape in "16 1 8192" "1 1 131072"; do
    for env in "BENCH_PAGES=random" "BENCH_LENS=1"; do
      env $env timeout 60 $G/run bench_attention --decode --knobs jit.sdpa_splits=1 --knobs jit.sdpa_splits=2 \
        --knobs jit.sdpa_splits=4 --knobs jit.sdpa_splits=16 $shape 2>&1 | grep -v '^#' | sed "s/^/$env /"
    done
  done | tee "$out/paged_sweep.txt"
  m=smsp__average_warps_issue_stalled
  for skip in 10 33; do # B = 16: the dense default kernel, then the paged one
    timeout 150 ncu --clock-control none -k regex:hd_sdpa_fwd_kernel -s $skip -c 1 --section SpeedOfLight \
      --section Occupancy --metrics ${m}_long_scoreboard_per_issue_active.ratio,${m}_barrier_per_issue_active.ratio,${m}_wait_per_issue_active.ratio,${m}_gmma_per_issue_active.ratio,${m}_lg_throttle_per_issue_active.ratio,${m}_short_scoreboard_per_issue_active.ratio,${m}_mio_throttle_per_issue_active.ratio,smsp__cycles_active.avg,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      $G/run bench_attention --decode --default 16 1 8192 > "$out/ncu_decode_$skip.txt" 2>&1
    echo "ncu skip $skip rc=$?"; grep -E "hd_sdpa_fwd_kernel|Duration|DRAM Through|dram__|stalled|Registers Per|Achieved Occ|Block Limit Reg" \
      "$out/ncu_decode_$skip.txt" | head -16
  done
  exit 0
fi
if [ "$mode" = channels ]; then # bench/NOTES.md decode #15's next step
  m=dram__bytes_read,lts__t_sectors_op_read
  ms=$(for x in ${m//,/ }; do printf "%s.sum,%s.max,%s.min,%s.avg," $x $x $x $x; done)
  for skip in 33 79; do # the launches of `--knobs jit.sdpa_splits=1`: dense (default, split 1), paged (same)
    timeout 150 ncu --clock-control none -k regex:hd_sdpa_fwd_kernel -s $skip -c 1 \
      --metrics ${ms}gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_op_read_hit_rate.pct,launch__grid_size,smsp__cycles_active.avg \
      $G/run bench_attention --decode --knobs jit.sdpa_splits=1 16 1 8192 > "$out/ncu_channels_$skip.txt" 2>&1
    echo "ncu skip $skip rc=$?"; grep -E "hd_sdpa_fwd_kernel|dram__|lts__|gpu__time|launch__grid|cycles_active" \
      "$out/ncu_channels_$skip.txt" | head -16
  done
  timeout 60 $G/run bench_attention --decode --knobs jit.sdpa_splits=1 16 1 8192 2>&1 | grep -v '^#' > "$out/decode_s1.txt"
  (cd .gpu/py && PYTHONUNBUFFERED=1 python3 compare_attention.py --decode "$out/decode_s1.txt")
  exit 0
fi
if [ "$mode" = candidate ]; then
  for suite in ${SUITES:-gpu_sdpa gpu_sdpa_mod}; do
    HIPDNN_TEST_KNOBS=$CAND timeout ${T_SUITE:-300} $G/run test_gpu --verbose --filter "$suite/*" \
      > "$out/test_$suite.txt" 2>&1
    echo "test_gpu $suite with $CAND rc=$?"
    grep -E "\[FAIL\]|Synthesis" "$out/test_$suite.txt" | tail -5
  done
  for shape in "16 16 1024 128" "8 16 2048 128" "4 16 4096 128" "2 16 8192 128" "1 32 16384 128"; do
    timeout ${T_BENCH:-60} $G/run bench_attention --knobs "$CAND" $shape 2>&1 | grep -v '^#' >> "$out/fwd_cand.txt"
  done
  (cd .gpu/py && python3 compare_attention.py "$out/fwd_cand.txt")
  exit 0
fi
if [ "$mode" != notests ]; then
  for suite in ${SUITES:-gpu_sdpa gpu_sdpa_mod gpu_sdpa_bwd}; do
    timeout ${T_SUITE:-300} $G/run test_gpu --verbose --filter "$suite/*" > "$out/test_$suite.txt" 2>&1
    echo "test_gpu $suite rc=$?"
    grep -E "\[FAIL\]|Synthesis" "$out/test_$suite.txt" | tail -5
  done
fi
if [ "$mode" = quick ]; then
  timeout ${T_BENCH:-60} $G/run bench_attention ${CFG:-} ${SHAPE:-4 16 4096 128} > "$out/fwd_cfg.txt" 2>&1
  cat "$out/fwd_cfg.txt"
  exit 0
fi
$G/run bench_attention --decode --default > "$out/decode.txt" 2>&1; echo "decode rc=$?"
for shape in "1 1 131072" "4 1 32768" "16 1 8192" "64 1 4096" "4 16 32768"; do
  $G/run bench_attention --decode $shape >> "$out/decode_cfg.txt" 2>&1
done
$G/run bench_attention 4 16 4096 128 > "$out/fwd_cfg.txt" 2>&1
$G/run bench_attention 1 32 16384 128 >> "$out/fwd_cfg.txt" 2>&1
for shape in "4 16 4096 128" "1 32 8192 128"; do
  $G/run bench_attention --softcap --default $shape >> "$out/softcap.txt" 2>&1
done
cd .gpu/py || exit 1
export PYTHONUNBUFFERED=1
python3 compare_attention.py --decode "$out/decode.txt" > "$out/compare_decode.md" 2> "$out/compare_decode.err"
python3 compare_attention.py --softcap "$out/softcap.txt" >> "$out/compare_decode.md" 2>> "$out/compare_decode.err"
cat "$out/decode_cfg.txt" "$out/fwd_cfg.txt"
cat "$out/compare_decode.md"
