#!/bin/sh
# update_golden.sh — rewrites the golden kernel sources (tests/unit/codegen/golden/*.cu) from what
# codegen emits now, then shows what changed. Review the diff before committing it: a golden
# changes only when the emitted source was meant to change.
# Usage: tests/unit/codegen/update_golden.sh [BUILD_DIR]   (default: build)
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-build}
make -C "$build" test_cg_golden
(cd "$build" && HIPDNN_GOLDEN_UPDATE=1 ctest -R '^test_cg_golden:' --output-on-failure)
git -C "$root" status --short -- tests/unit/codegen/golden
git -C "$root" diff --stat -- tests/unit/codegen/golden
