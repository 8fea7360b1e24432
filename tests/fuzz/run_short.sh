#!/bin/sh
# run_short.sh HARNESS CORPUS_DIR RUNS ARTIFACT_DIR — the short fuzz run of one libFuzzer harness
# (a ctest test): RUNS inputs under the build's sanitizers, starting from a copy of the seed
# corpus in a temporary directory (the tree is never written), with a fresh seed each run
# (HIPDNN_FUZZ_SEED=<n> replays one). libFuzzer prints the seed and the count it ran; any crash,
# leak, sanitizer report, broken invariant or input slower than 10 s fails the test and leaves
# the input in ARTIFACT_DIR.
set -eu
harness=$1 corpus=$2 runs=$3 artifacts=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$corpus"/. "$work"/
mkdir -p "$artifacts"
seed=${HIPDNN_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "fuzz: $(basename "$harness") -runs=$runs -seed=$seed (HIPDNN_FUZZ_SEED=$seed replays it)"
rc=0
"$harness" -runs="$runs" -seed="$seed" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$work" || rc=$?
exit $rc
