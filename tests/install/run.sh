#!/usr/bin/env bash
# tests/install/run.sh BUILD_DIR — installs BUILD_DIR into a temporary prefix and builds and runs
# a C and a C++ consumer (consumer/) against it: with CMake three ways (find_package(hipdnn_jit),
# find_package(hipdnn_backend CONFIG) linking hipdnn_backend and hipdnn::backend), then with
# pkg-config after moving the whole install tree elsewhere (the .pc file is relocatable), in each
# header mode: as is (HIP headers on the include path or not: they are not included without a
# HIP platform), HIP headers hidden (-DHIPDNN_NO_HIP_HEADERS), and, where a HIP SDK's headers are
# installed (Debian's libamdhip64-dev: /usr/include/hip), with -D__HIP_PLATFORM_AMD__ so they are
# included.
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
mkdir "$tmp/src"
cp "$here/consumer/consumer.c" "$here/consumer/consumer.cpp" "$tmp/src/"
cp "$here/consumer/consumer.cmake" "$tmp/src/CMakeLists.txt"
libdir=$(dirname "$(find "$tmp/prefix" -name 'libhipdnn_backend.so' | head -n 1)")
for how in jit backend legacy; do
  cmake -S "$tmp/src" -B "$tmp/b-$how" -DHOW=$how -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
  cmake --build "$tmp/b-$how" >/dev/null
  LD_LIBRARY_PATH="$libdir" "$tmp/b-$how/consumer_c"
  LD_LIBRARY_PATH="$libdir" "$tmp/b-$how/consumer_cpp"
  echo "cmake ($how): ok"
done
# pkg-config from a moved tree: nothing may still point at the first prefix.
mv "$tmp/prefix" "$tmp/moved"
pc=$(dirname "$(find "$tmp/moved" -name hipdnn_backend.pc)")
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs hipdnn_backend)
case "$flags" in *"$tmp/prefix"*) echo "pkg-config still names the old prefix: $flags" >&2; exit 1;; esac
case "$flags" in *"$tmp/moved"*) ;; *) echo "pkg-config does not name the moved prefix: $flags" >&2; exit 1;; esac
libdir=$(dirname "$(find "$tmp/moved" -name 'libhipdnn_backend.so' | head -n 1)")
modes=("" "-DHIPDNN_NO_HIP_HEADERS")
if [ -f /usr/include/hip/hip_runtime_api.h ]; then modes+=("-D__HIP_PLATFORM_AMD__"); fi
for mode in "${modes[@]}"; do
  # shellcheck disable=SC2086 # flags and mode are words
  cc -std=c99 -Wall -Werror $mode "$here/consumer/consumer.c" $flags -o "$tmp/pc_c"
  # shellcheck disable=SC2086
  c++ -std=c++11 -Wall -Werror $mode "$here/consumer/consumer.cpp" $flags -o "$tmp/pc_cpp"
  LD_LIBRARY_PATH="$libdir" "$tmp/pc_c"
  LD_LIBRARY_PATH="$libdir" "$tmp/pc_cpp"
  echo "pkg-config (moved tree) ${mode:-(HIP headers $( [ -d /usr/include/hip ] && echo present || echo absent ), no platform)}: ok"
done
