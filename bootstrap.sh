#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root, or with sudo available):
#
#   bash bootstrap.sh example    install what is missing, build, install luztar (CLI, C/C++ API and the
#                                Python package for /usr/bin/python3), run the gear-train example
#   bash bootstrap.sh test       install what is missing, build, run the whole test suite
#   bash bootstrap.sh sanitize   the test suite again under AddressSanitizer + UBSan
#   bash bootstrap.sh bench      build and run the benchmarks (single runs, then sweeps)
#   bash bootstrap.sh fuzz [S]   build the libFuzzer target with clang (ASan + UBSan) and fuzz
#                                the model loader for S seconds (default 60); non-zero exit on
#                                any crash, leak, timeout or out-of-memory (README "Fuzzing")
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(build-essential cmake pkgconf libeigen3-dev libsundials-dev libyaml-cpp-dev libhdf5-dev
          libgtest-dev libcli11-dev libopenmpi-dev openmpi-bin
          python3 python3-h5py python3-matplotlib python3-numpy python3-yaml
          python3-dev python3-pybind11 python3-pytest python3-nbclient python3-ipykernel python3-venv)

# Only for `fuzz`: Debian's clang and its libFuzzer / sanitizer runtimes.
FUZZ_PACKAGES=(clang libclang-rt-14-dev)

as_root() {
  if [ "$(id -u)" -ne 0 ]; then sudo "$@"; else "$@"; fi
}

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

build() {
  local dir=$1
  shift
  cmake -S . -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
}

# startup LABEL COMMAND...: min and median wall time of 41 whole-process runs (one
# warm-up); on a shared machine the median moves with the load, the min much less.
startup() {
  local label=$1 t0 t1 i
  shift
  "$@" >/dev/null
  local times=()
  for i in $(seq 41); do
    t0=${EPOCHREALTIME/./}
    "$@" >/dev/null
    t1=${EPOCHREALTIME/./}
    times+=($((t1 - t0)))
  done
  local sorted
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  printf '%-45s min %6.1f ms, median %6.1f ms (41 runs)\n' "$label" \
    "$(sed -n 1p <<<"$sorted" | awk '{print $1 / 1000}')" "$(sed -n 21p <<<"$sorted" | awk '{print $1 / 1000}')"
}

case "${1:-}" in
  example)
    install_missing
    build build -DCMAKE_BUILD_TYPE=Release
    as_root cmake --install build >/dev/null
    /usr/bin/python3 -c 'import luztar; print("== python3: luztar", luztar.__version__, "from", luztar.__file__)'
    ./build/luztar run models/gear_train.yaml -o gear_train.h5 --csv gear_train.csv
    ./build/luztar plot gear_train.h5 -o gear_train.png
    ;;
  test)
    install_missing
    build build -DCMAKE_BUILD_TYPE=Release
    ctest --test-dir build --output-on-failure -j"$(nproc)"
    ;;
  sanitize)
    install_missing
    # OpenMPI's own allocations would be reported as leaks: the sanitizer build is threads-only
    build build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLUZTAR_SANITIZE=ON -DLUZTAR_MPI=OFF
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)"
    ;;
  bench)
    install_missing
    build build -DCMAKE_BUILD_TYPE=Release
    # Whole-process start-up (targets: 5 ms and 15 ms on a 2-core machine).
    startup "luztar --version" ./build/luztar --version
    startup "luztar run models/block.yaml -o x.h5" ./build/luztar run models/block.yaml -o "${TMPDIR:-/tmp}/luztar_startup.h5" -q
    ./build/luztar_bench
    ./build/luztar_solver_bench
    ./build/luztar_steering_bench
    ./build/luztar_sweep_bench
    ;;
  fuzz)
    seconds=${2:-60}
    PACKAGES+=("${FUZZ_PACKAGES[@]}")
    install_missing
    # Everything built by clang with coverage + ASan + UBSan; only the fuzzer target.
    CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLUZTAR_FUZZ=ON \
      -DLUZTAR_BUILD_TESTS=OFF -DLUZTAR_MPI=OFF >/dev/null
    cmake --build build-fuzz -j"$(nproc)" --target luztar_model_fuzzer
    # New inputs go to build-fuzz/corpus (kept between runs); the models are the seeds.
    # A crash, leak, timeout or OOM stops it with a non-zero exit and writes its input
    # to build-fuzz/artifacts/ (crash-*, leak-*, timeout-*, oom-*).
    mkdir -p build-fuzz/corpus build-fuzz/artifacts
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ./build-fuzz/tests/fuzz/luztar_model_fuzzer -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -dict=tests/fuzz/yaml.dict -artifact_prefix=build-fuzz/artifacts/ -print_final_stats=1 \
      build-fuzz/corpus models models/sweeps
    ;;
  *)
    echo "usage: bash bootstrap.sh example|test|sanitize|bench|fuzz [SECONDS]" >&2
    exit 2
    ;;
esac
