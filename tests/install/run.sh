#!/usr/bin/env bash
# Installs the build in BUILD_DIR into a fresh prefix and uses the CLI from there
# as the README shows it: the models are in PREFIX/share/luztar/models, a model
# from there runs, and `luztar plot` runs the plot script installed beside them
# (found relative to the executable, also after the prefix is moved), not the
# source tree's.
#   bash tests/install/run.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
diff -r "$source/models" "$work/prefix/share/luztar/models" || fail "share/luztar/models differs from models/"
test -f "$work/prefix/share/luztar/luztar_plot.py" || fail "share/luztar/luztar_plot.py not installed"
# Mark the installed script, so that its output shows which script ran.
marker="luztar_plot.py of the install"
sed -i "s/^if __name__ == \"__main__\":\$/&\\n    print('$marker', file=sys.stderr)/" \
  "$work/prefix/share/luztar/luztar_plot.py"
grep -qF "$marker" "$work/prefix/share/luztar/luztar_plot.py" || fail "could not mark the installed script"
# The prefix moved after installing: nothing may depend on where it was put.
mv "$work/prefix" "$work/moved"
export PATH="$work/moved/bin:$PATH"
unset LUZTAR_PLOT_SCRIPT
cd "$work"
cp -r "$work/moved/share/luztar/models" .
# The README's commands, as written, in a directory holding the installed models.
luztar run models/block.yaml -o block.h5 -q
luztar sweep models/sweeps/gear_train_rattle.yaml --dry-run >/dev/null
luztar plot block.h5 -o block.png 2>plot.err || { cat plot.err >&2; fail "luztar plot failed"; }
test -s block.png || fail "luztar plot wrote no picture"
grep -qF "$marker" plot.err || fail "luztar plot did not run the installed script: $(cat plot.err)"
# The README's other commands from the install (short runs; the sweep checked, not run).
luztar validate models/steering.yaml >/dev/null
luztar reduce models/gear_train_simplification2.yaml -o reduced.yaml >/dev/null
luztar run reduced.yaml -q -o reduced.h5 --t-end 0.5
luztar run models/gear_train.yaml -q -o gear_train.h5 --csv gear_train.csv --t-end 1
luztar info gear_train.h5 --events-around 0.5 --window 0.05 >/dev/null
luztar compare gear_train.h5 gear_train.h5 >/dev/null
luztar sweep models/gear_train.yaml --set elements.mesh.freeplay=0.001:0.02:20 \
  --set elements.bearing_phi.coulomb=0.1,0.2,0.4 --metric 'stuck=time_stuck: bearing_phi' -o sweep.h5 --dry-run >/dev/null
luztar plot gear_train.h5 -o v.png --signals 'bodies.*.velocity,elements.mesh.torque,energy.*' 2>/dev/null
luztar plot gear_train.h5 -o out.png --units 'deg,rpm,N mm,ms' 2>/dev/null
luztar plot gear_train.h5 -o mesh.png --xy 'elements.mesh.torque,elements.bearing_*.torque' --units 'deg,N mm' 2>/dev/null
luztar plot gear_train.h5 --list --signals 'bodies.*' >/dev/null 2>&1
for f in v.png out.png mesh.png; do test -s "$f" || fail "$f not written"; done
# A model straight from the prefix.
luztar run "$work/moved/share/luztar/models/rigid_backlash.yaml" -o rigid.h5 -q --t-end 0.1
luztar plot rigid.h5 --list >/dev/null 2>&1 || fail "luztar plot --list failed"
# The example notebook from the install (share/luztar/examples: it finds ../models), with the
# Python package installed in the prefix (README "Python": PYTHONPATH for a prefix python3
# does not search), run by the interpreter the package was built for.
python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
site=$(ls -d "$work/moved"/lib/python3*/site-packages 2>/dev/null || true)
if [ -n "$site" ] && [ -n "$python" ]; then
  test -f "$work/moved/share/luztar/examples/gear_train.ipynb" || fail "share/luztar/examples/gear_train.ipynb not installed"
  (unset LUZTAR_MODELS_DIR; PYTHONPATH="$site" "$python" "$work/moved/share/luztar/examples/run_notebook.py" \
    "$work/moved/share/luztar/examples/gear_train.ipynb" "$work/notebook" >/dev/null) \
    || fail "the installed notebook did not run"
fi
# A plot script named by LUZTAR_PLOT_SCRIPT that does not exist is refused, naming it.
if LUZTAR_PLOT_SCRIPT="$work/none.py" luztar plot block.h5 -o x.png 2>err.txt; then fail "missing LUZTAR_PLOT_SCRIPT accepted"; fi
grep -qF "luztar: LUZTAR_PLOT_SCRIPT=$work/none.py: no such file" err.txt || fail "unexpected message: $(cat err.txt)"
test ! -e x.png || fail "x.png written"
echo "installed CLI: run, sweep, plot from $work/moved"
