#!/usr/bin/env bash
# Installs the build in BUILD_DIR into a fresh prefix, builds tests/consumer
# against it with find_package(luztar), and runs the C++ and C consumers; then
# builds and runs them again with plain compilers through pkg-config
# (lib/pkgconfig/luztar.pc and luztar-c.pc).
#   bash tests/consumer/run.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# Only the API is installed: the facade, the C header and the version header.
installed=$(cd "$work/prefix/include" && find . -type f | sort | tr '\n' ' ')
if [ "$installed" != "./luztar/luztar.h ./luztar/luztar.hpp ./luztar/version.hpp " ]; then
  echo "installed headers: $installed (expected luztar/luztar.h, luztar/luztar.hpp, luztar/version.hpp)" >&2
  exit 1
fi
cmake -S "$here" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" -j2 >/dev/null
"$work/build/consumer_cpp" "$here/block_input.yaml"
LD_LIBRARY_PATH="$work/prefix/lib" "$work/build/consumer_c" "$here/block_input.yaml"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cpp_flags=$(pkg-config --cflags --libs luztar)
c_flags=$(pkg-config --cflags --libs luztar-c)
# shellcheck disable=SC2086  # the flags are meant to split
"${CXX:-c++}" -std=c++20 -O2 -Wall -Wextra -Werror "$here/consumer.cpp" -o "$work/pc_consumer_cpp" $cpp_flags
# shellcheck disable=SC2086
"${CC:-cc}" -std=c99 -O2 -Wall -Wextra -Werror "$here/consumer.c" -o "$work/pc_consumer_c" $c_flags -lm
LD_LIBRARY_PATH=$(pkg-config --variable=libdir luztar) "$work/pc_consumer_cpp" "$here/block_input.yaml"
LD_LIBRARY_PATH=$(pkg-config --variable=libdir luztar-c) "$work/pc_consumer_c" "$here/block_input.yaml"
