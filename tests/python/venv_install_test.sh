#!/usr/bin/env bash
# The package installs into a virtual environment as README "Python" says, and that
# environment's python imports it from there (not from the build tree) and runs a model.
#   venv_install_test.sh PYTHON BUILD_DIR WORK_DIR MODEL
set -euo pipefail
python=$1 build=$2 work=$3 model=$4
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv --system-site-packages "$work/venv"
cmake --install "$build" --component python --prefix "$work/venv" >/dev/null
cd "$work"
env -u PYTHONPATH "$work/venv/bin/python" - "$work/venv" "$model" <<'PY'
import sys
import luztar
venv, model = sys.argv[1], sys.argv[2]
assert luztar.__file__.startswith(venv + "/lib/"), luztar.__file__
r = luztar.load(model).run(t_end=0.5)
assert r.status == "reached_time" and abs(r.events[0]["t"] - 1 / 6) < 1e-9, r
print("luztar", luztar.__version__, "from", luztar.__file__)
PY
