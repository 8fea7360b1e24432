#!/usr/bin/env bash
# build.sh run | test — the README's two commands.
#   run   install what is missing, build, and run the main job: the graph demo, then
#         `hipdnn-cache warm` of the example graphs into a fresh kernel cache, twice (for this
#         machine's GPU, else compile-only for sm_90): the first run compiles every kernel, the
#         second finds each one cached
#   test  install what is missing, build with warnings as errors, run every CPU test, then
#         rebuild with AddressSanitizer + UndefinedBehaviorSanitizer and run the suites again
# Works on a fresh Debian 12 machine (as root, or with sudo).
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:-}
jobs=$(nproc 2>/dev/null || echo 2)

# libamdhip64-5: Debian's HIP 5.2 runtime with hipRTC inside (about 80 MB with its dependencies),
# so the AMD compile-only tests run (gfx90a); no AMD GPU is needed or used.
deps="cmake make gcc g++ pkg-config liblmdb-dev libxxhash-dev libcriterion-dev libjansson-dev flatbuffers-compiler libamdhip64-5"
missing=""
for p in $deps; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "build.sh: installing$missing"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi

build() { # build DIR [cmake args...]
  local dir=$1; shift
  cmake -S . -B "$dir" -DHIPDNN_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
}

# Warms the example graphs' kernels into a fresh cache twice and prints the summaries. Graphs
# that no JIT engine compiles yet (SDPA) are skipped and named in the summary.
warm_main() {
  local cache target=() first second
  cache=$(mktemp -d)
  trap 'rm -rf "$cache"' RETURN
  if [ ! -e /dev/nvidia0 ] && [ ! -e /dev/kfd ]; then target=(--arch sm_90); fi
  echo
  echo "hipdnn-cache warm ${target[*]} --skip-unsupported examples/graphs (a fresh cache, twice):"
  first=$(./build/tools/hipdnn-cache --dir "$cache" warm "${target[@]}" --skip-unsupported examples/graphs | tail -n 1)
  second=$(./build/tools/hipdnn-cache --dir "$cache" warm "${target[@]}" --skip-unsupported examples/graphs | tail -n 1)
  echo "  first:  $first"
  echo "  second: $second"
}

case "$mode" in
  run)
    build build -DCMAKE_BUILD_TYPE=Release -DHIPDNN_BUILD_TESTS=OFF
    ./build/examples/hipdnn_demo examples/graphs/*.json
    warm_main
    ;;
  test)
    build build -DCMAKE_BUILD_TYPE=RelWithDebInfo
    ctest --test-dir build --output-on-failure -j"$jobs"
    build build-san -DCMAKE_BUILD_TYPE=Debug -DHIPDNN_SANITIZE=ON
    ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-san --output-on-failure -j"$jobs"
    ;;
  *)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
