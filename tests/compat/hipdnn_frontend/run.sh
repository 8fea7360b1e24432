#!/usr/bin/env bash
# run.sh HIPDNN_DIR PREFIX [OUTDIR] — builds the five compatibility programs (programs/*.cpp)
# against hipDNN's own header-only C++ frontend and our *installed* library, runs them, and
# prints one PASS/FAIL line each. Exit status 0 only when all five pass.
#
#   HIPDNN_DIR  hipDNN's source tree (the folder holding frontend/, sdk/, backend/), e.g.
#               projects/hipdnn of ROCm/rocm-libraries, or TheRock's vendored copy
#   PREFIX      where `cmake --install build --prefix PREFIX` put this library
#   OUTDIR      scratch folder (default: a fresh mktemp -d)
#
# Nothing of hipDNN is copied: its frontend and SDK headers are used in place; the SDK's
# FlatBuffers headers are regenerated from its schemas with Debian's flatc (the shipped ones
# pin another FlatBuffers version); hip_standin/ stands in for the HIP headers they include.
# Needs: g++ (C++20), flatbuffers-compiler, libflatbuffers-dev, libspdlog-dev, libfmt-dev.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hipdnn=$(cd "${1:?usage: run.sh HIPDNN_DIR PREFIX [OUTDIR]}" && pwd)
prefix=$(cd "${2:?usage: run.sh HIPDNN_DIR PREFIX [OUTDIR]}" && pwd)
out=${3:-$(mktemp -d)}
mkdir -p "$out/gen/hipdnn_sdk/data_objects" "$out/bin"

flatc --cpp --scoped-enums --gen-object-api --gen-mutable --gen-compare \
      -o "$out/gen/hipdnn_sdk/data_objects" -I "$hipdnn/sdk/schemas" "$hipdnn"/sdk/schemas/*.fbs

# Our headers as a hipDNN user reaches them: <hipdnn_backend.h> from include/hipdnn/backend
# (hipDNN's install layout); no other include path of ours.
inc=(-I "$out/gen" -I "$here/hip_standin" -I "$hipdnn/frontend/include" -I "$hipdnn/sdk/include"
     -I "$prefix/include/hipdnn/backend")
libdir=$(dirname "$(find "$prefix" -name 'libhipdnn_backend.so' -print -quit)")

status=0
for src in "$here"/programs/*.cpp; do
  name=$(basename "$src" .cpp)
  if ! g++ -std=c++20 -O1 -w "${inc[@]}" "$src" -o "$out/bin/$name" \
         -L "$libdir" -Wl,-rpath,"$libdir" -lhipdnn_backend -lspdlog -lfmt \
         >"$out/$name.build.log" 2>&1; then
    echo "$name: FAIL (does not compile or link; $out/$name.build.log)"
    sed -n 1,20p "$out/$name.build.log"
    status=1
    continue
  fi
  if "$out/bin/$name" >"$out/$name.log" 2>&1; then
    echo "$name: PASS"
  else
    echo "$name: FAIL ($out/$name.log)"
    cat "$out/$name.log"
    status=1
  fi
done
exit $status
