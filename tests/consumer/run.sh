#!/usr/bin/env bash
# Installs the build in BUILD_DIR into a fresh prefix, builds tests/consumer
# against it with find_package(luztar), and runs the C++ and C consumers.
#   bash tests/consumer/run.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$here" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" -j2 >/dev/null
"$work/build/consumer_cpp" "$here/block_input.yaml"
LD_LIBRARY_PATH="$work/prefix/lib" "$work/build/consumer_c" "$here/block_input.yaml"
