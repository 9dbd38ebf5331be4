#!/usr/bin/env bash
# The package installs into a virtual environment as README "Python" says, and that
# environment's python imports it from there (not from the build tree), runs a model,
# and runs the example notebook with it (apps/examples/run_notebook.py: a kernel of that
# python, the models found beside the notebook in the source tree).
#   venv_install_test.sh PYTHON BUILD_DIR WORK_DIR MODEL EXAMPLES_DIR
set -euo pipefail
python=$1 build=$2 work=$3 model=$4 examples=$5
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv --system-site-packages "$work/venv"
cmake --install "$build" --component python --prefix "$work/venv" >/dev/null
cd "$work"
unset PYTHONPATH LUZTAR_MODELS_DIR
"$work/venv/bin/python" - "$work/venv" "$model" <<'PY'
import sys
import luztar
venv, model = sys.argv[1], sys.argv[2]
assert luztar.__file__.startswith(venv + "/lib/"), luztar.__file__
r = luztar.load(model).run(t_end=0.5)
assert r.status == "reached_time" and abs(r.events[0]["t"] - 1 / 6) < 1e-9, r
print("luztar", luztar.__version__, "from", luztar.__file__)
PY
"$work/venv/bin/python" "$examples/run_notebook.py" "$examples/gear_train.ipynb" "$work/notebook"
# the kernel was the venv's python: the executed copy says which luztar it imported
"$work/venv/bin/python" - "$work/venv" "$work/notebook/gear_train.ipynb" <<'PY'
import json, sys
venv, executed = sys.argv[1], sys.argv[2]
first = next(c for c in json.load(open(executed))["cells"] if c["cell_type"] == "code")
printed = "".join("".join(o.get("text", "")) for o in first["outputs"])
assert f"from {venv}/lib/" in printed, printed
print("notebook:", printed.strip())
PY
