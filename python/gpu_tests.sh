#!/usr/bin/env bash
# gpu_tests.sh — the Python package's tests (CPU and GPU) on the GPU machine, which has PyTorch but
# no build tools: the library comes from a bundle, the package from the working tree.
#   here:  cmake --build build-rel --target hipdnn-cache && ../shared/gpu/bundle .gpu build-rel/tools/hipdnn-cache
#          && bash python/gpu_tests.sh prepare      (copies the package, generates _enums.py into .gpu/pypkg)
#   there: bash python/gpu_tests.sh                 (pytest python/tests — test_torch.py too —, then the torch example on CUDA)
#          bash python/gpu_tests.sh bench [ARGS]    (bench/bench_torch.py: hipdnn_jit.torch vs PyTorch, a markdown table)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = prepare ]; then
  rm -rf .gpu/pypkg && mkdir -p .gpu/pypkg && cp -r python/hipdnn_jit .gpu/pypkg/
  rm -rf .gpu/pypkg/hipdnn_jit/__pycache__
  python3 cmake/gen_py_enums.py . .gpu/pypkg/hipdnn_jit/_enums.py
  exit 0
fi
export HIPDNN_JIT_LIBRARY=$PWD/.gpu/lib/libhipdnn_backend.so.0 LD_LIBRARY_PATH=$PWD/.gpu/lib PYTHONPATH=$PWD/.gpu/pypkg
export HIPDNN_CACHE_DIR=${HIPDNN_CACHE_DIR:-$(mktemp -d)}
python3 -c "import hipdnn_jit as hj; print('hipdnn_jit', hj.version(), 'engines', hj.engines())"
if [ "${1:-}" = bench ]; then
  shift
  exec python3 bench/bench_torch.py "$@"
fi
python3 -m pytest python/tests -q -rs -p no:cacheprovider "$@"
python3 examples/python/torch_block.py --device cuda
