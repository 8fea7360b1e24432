#!/bin/sh
# run_long.sh BUILD_DIR OUT_DIR [RUNS] [MAX_SECONDS] [HARNESS...] — the long fuzz run (README,
# "Fuzzing"): each harness in turn, one niced process at a time, RUNS inputs (default 10^6) or
# MAX_SECONDS (default 3600) each, whichever comes first, from a copy of its seed corpus, under
# the sanitizers BUILD_DIR was built with (clang, HIPDNN_SANITIZE=ON: libFuzzer). Each log goes to
# OUT_DIR/NAME.log, any crashing input to OUT_DIR/NAME-crash-*, the grown corpus stays in
# OUT_DIR/NAME.corpus; one line per harness: runs, seconds, exec/s, corpus files, result.
set -u
build=$1 out=$2 runs=${3:-1000000} max=${4:-3600}
shift 2; [ $# -gt 0 ] && shift; [ $# -gt 0 ] && shift
harnesses=${*:-"fb_graph json_graph cache_records plan_recipe api_calls"}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:use_sigaltstack=0}
for h in $harnesses; do
  corpus=$out/$h.corpus
  rm -rf "$corpus" && mkdir -p "$corpus" && cp -R "$here/corpus/$h"/. "$corpus"/
  start=$(date +%s)
  nice -n 19 "$build/tests/fuzz/fuzz_$h" -runs="$runs" -max_total_time="$max" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/$h-" "$corpus" > "$out/$h.log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$h.log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$h.log")
  files=$(ls "$corpus" | wc -l)
  result="no findings"; [ $rc -ne 0 ] && result="FAILED (exit $rc, see $out/$h.log)"
  echo "$h: ${done_runs:-?} runs in ${secs} s, ${rate:-?} exec/s, corpus $files files; $result"
done
