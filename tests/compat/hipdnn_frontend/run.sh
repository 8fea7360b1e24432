#!/usr/bin/env bash
# run.sh HIPDNN_DIR BUILD_DIR [OUTDIR] — hipDNN's own C++ frontend driving this library.
#
# Installs BUILD_DIR (a configured and built tree of this repository) twice: everything into
# OUTDIR/prefix, and the Runtime component alone into OUTDIR/runtime. Builds the five programs in
# programs/ against hipDNN's header-only frontend and our *installed* headers (the include path a
# hipDNN user has: PREFIX/include/hipdnn/backend), links them against the installed library with
# no extra object, runs them, and prints one PASS/FAIL line each. Then it links one program the
# way programs built against hipDNN are linked (NEEDED libhipdnn_backend.so, no soname version)
# and runs it against the Runtime component alone. Exit status 0 only when everything passes.
#
#   HIPDNN_DIR  hipDNN's source tree (the folder holding frontend/, sdk/, backend/): projects/hipdnn
#               of ROCm/rocm-libraries, or the copy vendored in TheRock
#   BUILD_DIR   this repository's build directory (cmake -S . -B build && cmake --build build)
#   OUTDIR      scratch folder (default: a fresh mktemp -d)
#
# Nothing of hipDNN is copied: its frontend and SDK headers are used in place; the SDK's
# FlatBuffers headers are regenerated from its schemas with Debian's flatc (the shipped ones pin
# another FlatBuffers version); hip_standin/ stands in for the HIP headers they include.
# Needs: g++ (C++20), cmake, flatbuffers-compiler, libflatbuffers-dev, libspdlog-dev,
# libfmt-dev, and patchelf for the soname check (skipped, and said so, without it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: run.sh HIPDNN_DIR BUILD_DIR [OUTDIR]"
hipdnn=$(cd "${1:?$usage}" && pwd)
build=$(cd "${2:?$usage}" && pwd)
out=${3:-$(mktemp -d)}
mkdir -p "$out/gen/hipdnn_sdk/data_objects" "$out/bin"

cmake --install "$build" --prefix "$out/prefix" >/dev/null
cmake --install "$build" --prefix "$out/runtime" --component Runtime >/dev/null
libdir=$(dirname "$(find "$out/prefix" -name 'libhipdnn_backend.so' -print -quit)")

flatc --cpp --scoped-enums --gen-object-api --gen-mutable --gen-compare \
      -o "$out/gen/hipdnn_sdk/data_objects" -I "$hipdnn/sdk/schemas" "$hipdnn"/sdk/schemas/*.fbs

# Our headers as a hipDNN user reaches them: <hipdnn_backend.h> from include/hipdnn/backend
# (hipDNN's install layout); no other include path of ours.
inc=(-I "$out/gen" -I "$here/hip_standin" -I "$hipdnn/frontend/include" -I "$hipdnn/sdk/include"
     -I "$out/prefix/include/hipdnn/backend")

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

# A program linked as against hipDNN's library (no soname: NEEDED libhipdnn_backend.so), run
# with only the Runtime component on its library path.
if command -v patchelf >/dev/null; then
  mkdir -p "$out/nosoname"
  cp "$libdir/libhipdnn_backend.so" "$out/nosoname/libhipdnn_backend.so"
  patchelf --set-soname libhipdnn_backend.so "$out/nosoname/libhipdnn_backend.so" # as hipDNN builds it
  g++ -std=c++20 -O1 -w "${inc[@]}" "$here/programs/pointwise.cpp" -o "$out/bin/pointwise_unversioned" \
      -L "$out/nosoname" -lhipdnn_backend -lspdlog -lfmt
  needed=$(readelf -d "$out/bin/pointwise_unversioned" | grep -o 'libhipdnn_backend[^]]*')
  rtlib=$(dirname "$(find "$out/runtime" -name 'libhipdnn_backend.so' -print -quit)")
  if [ "$needed" = "libhipdnn_backend.so" ] &&
     LD_LIBRARY_PATH="$rtlib" "$out/bin/pointwise_unversioned" >"$out/unversioned.log" 2>&1; then
    echo "NEEDED libhipdnn_backend.so, Runtime component only: PASS"
  else
    echo "NEEDED $needed, Runtime component only: FAIL ($out/unversioned.log)"
    status=1
  fi
else
  echo "NEEDED libhipdnn_backend.so check: skipped (no patchelf)"
fi
exit $status
