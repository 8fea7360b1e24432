#!/usr/bin/env bash
# build.sh run | test — the README's two commands.
#   run   install what is missing, build, and run the main job: the graph demo, then
#         `hipdnn-cache warm` of the example graphs into a fresh kernel cache, twice (for this
#         machine's GPU, else compile-only for sm_90): the first run compiles every kernel, the
#         second finds each one cached
#   test  install what is missing, build with warnings as errors (gcc), run every CPU test, then
#         rebuild with AddressSanitizer + UndefinedBehaviorSanitizer (clang) and run them again;
#         ends with lines per pass: "N passed, M failed, K skipped" (skipped tests named) and
#         "skipped because: REASON (count), ..."
#   Both also install the Python package (python/hipdnn_jit, `pip install .` into the virtualenv
#   build/pyenv): `run` then runs examples/python/, `test` the CPU pytest suite (python/tests/),
#   ending with "python: N passed, M failed, K skipped".
# Works on a fresh Debian 12 machine (as root, or with sudo).
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:-}
jobs=$(nproc 2>/dev/null || echo 2)

# libamdhip64-5: Debian's HIP 5.2 runtime with hipRTC inside (about 80 MB with its dependencies),
# so the AMD compile-only tests run (gfx90a); no AMD GPU is needed or used.
# clang + libclang-rt-14-dev: the sanitizer pass (clang's UBSan checks pointer arithmetic that
# gcc's does not, e.g. a zero offset applied to NULL).
# python3: the build's layering checks (cmake/check_includes.py, cmake/check_calls.py);
# python3-venv + python3-pip: the Python package's virtualenv (build/pyenv).
deps="python3 python3-venv python3-pip cmake make gcc g++ clang libclang-rt-14-dev pkg-config liblmdb-dev libxxhash-dev libcriterion-dev libjansson-dev flatbuffers-compiler libamdhip64-5"
# libamdhip64-dev: HIP 5.2's headers in /usr/include/hip, where a newcomer's machine has them; the
# install test (tests/install/run.sh) builds consumers with them seen, hidden and included.
install_test_deps="libamdhip64-dev"
deps="$deps $install_test_deps"
missing=""
for p in $deps; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "build.sh: installing$missing"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi

# NVRTC, so the sm_90 compile tests compile instead of skipping: the loader's (a CUDA toolkit) or
# a pip wheel where the library looks for one (runtime/rt_nvidia_find.c). On a machine with
# neither, pip's nvidia-cuda-nvrtc goes into the user's site (~/.local), found there at run time
# like a framework's. The probe is the library's own lookup: test_rt's compiler_info test skips
# (exit 77) without a compiler.
ensure_nvrtc() { # ensure_nvrtc BUILD_DIR
  local probe="$1/tests/unit/runtime/test_rt --filter=rt_compile/compiler_info"
  $probe >/dev/null 2>&1 && return 0
  echo "build.sh: no NVRTC found; installing pip's nvidia-cuda-nvrtc into the user's site"
  if ! python3 -m pip --version >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-pip >/dev/null
  fi
  python3 -m pip install --user --quiet --break-system-packages nvidia-cuda-nvrtc 2>/dev/null ||
    python3 -m pip install --user --quiet nvidia-cuda-nvrtc ||
    echo "build.sh: NVRTC could not be installed: the sm_90 compile tests will report skipped"
  $probe >/dev/null 2>&1 || echo "build.sh: NVRTC still not found: the sm_90 compile tests will report skipped"
}

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

# run_tests DIR LABEL — every test of build DIR (ctest; each Criterion test on its own, see
# tests/CMakeLists.txt), its output kept in DIR/ctest.log; then the lines
#   LABEL: N passed, M failed, K skipped (skipped: program:suite (count), ...)
#   LABEL: skipped because: REASON (count), ...
# A skipped test (no GPU, no compiler) is never counted as passed. Fails when a test failed or
# when no test ran at all.
run_tests() {
  local dir=$1 label=$2 rc=0
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j"$jobs" > "$dir/ctest.log" 2>&1 || rc=$?
  grep -v '^\[hipdnn ' "$dir/ctest.log" | grep -v -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' || true
  awk -v label="$label" '
    /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / {
      name = $0; sub(/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: /, "", name); sub(/ .*/, "", name)
      if ($0 ~ / Passed /) passed++
      else if ($0 ~ /\*\*\*Skipped /) { skipped++; g = name; sub(/\/.*/, "", g); by[g]++ }
      else { failed++; bad = bad " " name }
    }
    END {
      list = ""
      for (g in by) list = list (list == "" ? "" : ", ") g " (" by[g] ")"
      printf "%s: %d passed, %d failed, %d skipped%s\n", label, passed, failed, skipped,
             skipped ? " (skipped: " list ")" : ""
      if (failed) printf "%s: failed:%s\n", label, bad
    }' "$dir/ctest.log" | tee -a "$summary"
  # why they skipped: each skipped test prints "skipped: suite/test: REASON: details" (tu_main.c)
  awk -v label="$label" '
    /^skipped: / {
      r = $0; sub(/^skipped: [^:]*: /, "", r); sub(/: .*/, "", r); why[r]++; n++
    }
    END {
      if (!n) exit
      list = ""
      for (r in why) list = list (list == "" ? "" : ", ") r " (" why[r] ")"
      printf "%s: skipped because: %s\n", label, list
    }' "$dir/Testing/Temporary/LastTest.log" 2>/dev/null | tee -a "$summary"
  return $rc
}

# The Python package: a virtualenv in build/pyenv with numpy and pytest, then the README's
# `pip install .` (scikit-build-core builds the library alone, Release, into the wheel).
python_install() {
  local py=build/pyenv/bin/python
  [ -x "$py" ] || python3 -m venv build/pyenv
  "$py" -m pip install -q --disable-pip-version-check numpy pytest
  "$py" -m pip install -q --disable-pip-version-check .
}

# The CPU pytest suite (python/tests/; tests marked gpu skip without a GPU), then the line
#   python: N passed, M failed, K skipped
# Fails when a test failed or errored, or when no test ran at all.
python_tests() {
  local log=build/pytest.log rc=0 counts
  (cd build && ./pyenv/bin/python -m pytest -q -rs ../python/tests) > "$log" 2>&1 || rc=$?
  grep -E '^(FAILED|ERROR|SKIPPED)' "$log" || true
  counts=$(tail -n 1 "$log")
  local passed failed skipped errors
  passed=$(grep -oE '[0-9]+ passed' <<<"$counts" | grep -oE '[0-9]+' || echo 0)
  failed=$(grep -oE '[0-9]+ failed' <<<"$counts" | grep -oE '[0-9]+' || echo 0)
  errors=$(grep -oE '[0-9]+ errors?' <<<"$counts" | grep -oE '[0-9]+' || echo 0)
  skipped=$(grep -oE '[0-9]+ skipped' <<<"$counts" | grep -oE '[0-9]+' || echo 0)
  echo "python: $passed passed, $((failed + errors)) failed, $skipped skipped" | tee -a "$summary"
  if [ "$passed" -eq 0 ]; then
    echo "python: no test passed (see $log)" | tee -a "$summary"
    return 1
  fi
  [ "$rc" -eq 0 ] && [ "$((failed + errors))" -eq 0 ]
}

case "$mode" in
  run)
    build build -DCMAKE_BUILD_TYPE=Release -DHIPDNN_BUILD_TESTS=OFF
    ./build/examples/hipdnn_demo examples/graphs/*.json
    warm_main
    echo
    echo "Python package (pip install . into build/pyenv), examples/python/:"
    python_install
    build/pyenv/bin/python examples/python/residual_rmsnorm_attention.py
    ;;
  test)
    summary=$(mktemp)
    # tests on whatever an earlier `run` left in build/ (it configures them off)
    build build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHIPDNN_BUILD_TESTS=ON
    ensure_nvrtc build
    status=0
    run_tests build "tests" || status=1
    python_install
    python_tests || status=1
    # the sanitizer pass with clang (HIPDNN_SAN_CC=gcc for gcc's): the -Werror pass above is gcc's
    san_cc=${HIPDNN_SAN_CC:-clang}; san_cxx=clang++; [ "$san_cc" = gcc ] && san_cxx=g++
    build build-san -DCMAKE_BUILD_TYPE=Debug -DHIPDNN_SANITIZE=ON -DHIPDNN_BUILD_TESTS=ON \
      -DCMAKE_C_COMPILER="$san_cc" -DCMAKE_CXX_COMPILER="$san_cxx"
    # use_sigaltstack=0: hipRTC's LLVM installs its own (malloc'd) signal stack on the threads that
    # compile; ASan then tried to unmap it as its own at thread exit and aborted ("unable to
    # unmap", seen once in CI in kc_warm/parallel_hiprtc_compiles).
    # HIPDNN_TEST_EMIT_ONLY=1: the attention codegen tests (test_cg_sdpa, test_cg_sdpa_bwd) emit
    # every variant and check its source under the sanitizers, but leave the NVRTC compile of that
    # same source to the gcc pass above (tests/unit/codegen/sdpa_tu.c): NVRTC is not instrumented,
    # and under ASan's allocator its ~150 compiles took ~4 of this pass's minutes
    HIPDNN_TEST_EMIT_ONLY=1 ASAN_OPTIONS=detect_leaks=1:use_sigaltstack=0 \
      run_tests build-san "tests under ASan+UBSan ($san_cc)" || status=1
    echo "tests under ASan+UBSan ($san_cc): the attention variants' NVRTC compiles ran in the gcc pass only" >> "$summary"
    echo
    cat "$summary"
    rm -f "$summary"
    exit $status
    ;;
  *)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
