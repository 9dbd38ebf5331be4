"""The Python package against closed forms, exact error texts and the C++ library's semantics."""
import math
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import luztar


# -- the block of Part 2, 3.1 (models/block.yaml) in closed form ---------------------------
# I q'' = F0 sin(w t) - c q' - s MT0 while slipping in direction s; stuck from rest while
# |F0 sin(w t)| <= MT0. From rest at t = 0 the block breaks away when F0 sin(w t0) = MT0,
# t0 = asin(MT0/F0)/w, and then (s = +1, v(t0) = 0, a = c/I)
#   v(t) = vp(t) - vp(t0) exp(-a (t - t0)),
#   vp(t) = A sin(w t) + B cos(w t) - MT0/c,  A = (F0/I) a/(a^2+w^2),  B = -(F0/I) w/(a^2+w^2)
# until v returns to 0 (tests/block_test.cpp derives the whole solution).
I, C, F0, W = 1.0, 0.5, 2.0, math.pi  # inertia, viscous, amplitude, 2 pi 0.5 Hz


def block_break_away(mt0):
    return math.asin(mt0 / F0) / W


def block_slip_velocity(t, mt0):
    a = C / I
    A = (F0 / I) * a / (a * a + W * W)
    B = -(F0 / I) * W / (a * a + W * W)
    vp = lambda s: A * np.sin(W * s) + B * np.cos(W * s) - mt0 / C  # noqa: E731
    t0 = block_break_away(mt0)
    return vp(t) - vp(t0) * np.exp(-a * (t - t0))


def test_block_matches_its_closed_form(models_dir):
    model = luztar.load(models_dir / "block.yaml")
    r = model.run(t_end=1.0)
    assert r.status == "reached_time" and r.message == ""
    assert r.time[0] == 0.0 and r.time[-1] == 1.0 and len(r.time) == 1001
    first = r.events[0]
    assert (first["element"], first["kind"], first["before"], first["after"]) == ("bearing", "break_away", 0, 1)
    assert abs(first["t"] - 1 / 6) < 1e-9  # 2 sin(pi t) = 1
    v = r["bodies.block.velocity"]
    assert r.units["bodies.block.velocity"] == "rad/s"
    stuck = r.time < 1 / 6 - 1e-9
    assert np.all(v[stuck] == 0.0) and np.all(r["bearing.state"][stuck] == 0)
    slip = r.time > 1 / 6 + 1e-9  # still slipping at t = 1 (one event only)
    assert len(r.events) == 1
    np.testing.assert_allclose(v[slip], block_slip_velocity(r.time[slip], 1.0), rtol=0, atol=1e-7)
    # the same arrays by every way in: matrix columns, short paths, energies
    np.testing.assert_array_equal(r.velocity[:, 0], v)
    np.testing.assert_array_equal(r["block.velocity"], v)
    np.testing.assert_array_equal(r.energy["kinetic"], 0.5 * I * v * v)
    assert r.units["elements.bearing.torque"] == "N m" and r.units["energy.dissipated"] == "J"
    assert r.units["time"] == "s"
    # per element: the bearing's coordinate is the block's angle, its power T v, the load's
    # -tau w; the bearing dissipates it all (the load none); the acceleration is (tau - T) / I
    names = r.element_names
    bearing, drive = names.index("bearing"), names.index("drive")
    np.testing.assert_array_equal(r.element_relative_velocity[:, bearing], v)
    np.testing.assert_array_equal(r.element_power[:, bearing], r.element_torque[:, bearing] * v)
    np.testing.assert_array_equal(r.element_power[:, drive], -r.element_torque[:, drive] * v)
    np.testing.assert_allclose(r.element_dissipated.sum(axis=1), r.energy["dissipated"], rtol=0, atol=1e-12)
    assert np.all(r.element_dissipated[:, drive] == 0.0)
    accel = (r.element_torque[:, drive] - r.element_torque[:, bearing]) / I
    np.testing.assert_allclose(r.body_acceleration[slip, 0], accel[slip], rtol=0, atol=1e-9)
    assert r.units["elements.bearing.power"] == "W" and r.units["bodies.block.acceleration"] == "rad/s^2"


def test_set_by_sweep_path_reassembles(models_dir):
    model = luztar.load(models_dir / "block.yaml")
    assert model["elements.bearing.coulomb"] == 1.0
    assert model["elements.drive.torque.amplitude"] == 2.0  # the signal's kind (sine) left out
    assert model["elements.drive.torque"] == "{sine: {amplitude: 2.0, frequency: 0.5}}"
    model["elements.bearing.coulomb"] = 1.5
    assert model["elements.bearing.coulomb"] == 1.5 and model.sets == {"elements.bearing.coulomb": "1.5"}
    r = model.run(t_end=0.5)
    assert abs(r.events[0]["t"] - block_break_away(1.5)) < 1e-9  # 2 sin(pi t) = 1.5
    # a value that breaks a rule is refused where it was set; the model keeps its value
    with pytest.raises(luztar.ModelError) as e:
        model["elements.bearing.coulomb"] = -1.0
    assert str(e.value) == ("model['elements.bearing.coulomb']: elements.bearing.coulomb: the friction torque limit "
                            "must stay >= 0 (it can reach -1) (value -1.0)")
    assert e.value.field == "elements.bearing.coulomb" and e.value.line is None
    assert model["elements.bearing.coulomb"] == 1.5
    # a field the file leaves to its default, and a path through a value
    with pytest.raises(KeyError, match="sets no field 'max_step'"):
        model["simulation.max_step"]
    with pytest.raises(KeyError, match="is a single value"):
        model["elements.bearing.coulomb.x"]
    with pytest.raises(luztar.ModelError, match="has no field 'nope'"):
        model["elements.nope.coulomb"] = 1


def test_errors_carry_their_location(tmp_path):
    text = ("name: x\nsimulation: {t_end: 1.0, output_step: 0.01}\nbodies:\n  b: {inertia: -2.0}\n"
            "elements:\n  f: {type: friction, body: b, coulomb: 1.0}\n")
    with pytest.raises(luztar.ModelError) as e:
        luztar.loads(text, origin="inline.yaml")
    assert str(e.value) == "inline.yaml:4:16: bodies.b.inertia: must be >= 0 (got -2)"
    assert (e.value.path, e.value.line, e.value.column, e.value.field) == ("inline.yaml", 4, 16, "bodies.b.inertia")
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(luztar.ModelError) as e:
        luztar.load(f)
    assert str(e.value) == f"{f}:4:16: bodies.b.inertia: must be >= 0 (got -2)"
    assert (e.value.path, e.value.line, e.value.column) == (str(f), 4, 16)
    assert isinstance(e.value, ValueError)
    with pytest.raises(luztar.ModelError, match="simulation.t_end"):
        luztar.loads(text.replace("-2.0", "2.0")).run(t_end=-1.0)


def test_snapshot_restore_repeats_bit_for_bit(models_dir):
    model = luztar.load(models_dir / "steering.yaml")
    sim = luztar.Simulator(model)
    torque = sim.input("driver_torque")
    angle = sim.output("steering_wheel.angle")
    for k in range(1, 101):
        sim.set_input(torque, 2.0 * math.sin(2 * math.pi * k * 1e-3))
        assert sim.advance_to(k * 1e-3) == "reached_time"
    snap = sim.snapshot()
    assert snap.time == pytest.approx(0.1, abs=1e-15)

    def continue_run():
        out = []
        for k in range(101, 301):
            sim.set_input("driver_torque", 2.0 + 0.5 * math.cos(k * 1e-2))
            assert sim.advance_to(k * 1e-3) == "reached_time"
            out.append((sim.value(angle), *sim.velocities))
        return np.array(out), sim.events.copy(), sim.stats

    first, events1, stats1 = continue_run()
    sim.restore(snap)
    assert sim.time == snap.time
    second, events2, stats2 = continue_run()
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(events1, events2)
    assert stats1["events"] == stats2["events"]
    assert np.any(first[:, 0] != 0.0)
    with pytest.raises(ValueError, match="driver_torque"):
        sim.input("nope")
    with pytest.raises(ValueError):
        sim.advance_to(0.1)  # before now
    other = luztar.Simulator(luztar.load(models_dir / "steering.yaml"))
    with pytest.raises(ValueError, match="another model"):
        other.restore(snap)


# -- an integrator failure stops the simulator until restore ---------------------------------
# tests/data/huge_input.yaml: a free body (I = 1) under a host input u, v = u t. u = 1 to
# t = 0.5 s, a snapshot, then u = 1e308 (exact: the state overflows by t = 2.4 s) or 1e300
# (CVODE: the input work's rate u v overflows at once). Before, snapshot() returned a state
# of NaN and CVODE's time moved on with every call; now both answer the same until restore.
HUGE_INPUT = pathlib.Path(__file__).resolve().parents[1] / "data" / "huge_input.yaml"


@pytest.mark.parametrize("integrator,huge", [("exact", 1e308), ("cvode_bdf", 1e300), ("cvode_adams", 1e300)])
def test_an_integrator_failure_stops_the_simulator_until_restored(integrator, huge):
    model = luztar.load(HUGE_INPUT)
    model["simulation.integrator"] = integrator
    sim = luztar.Simulator(model)
    sim.set_input("u", 1.0)
    assert sim.advance_to(0.5) == "reached_time"
    before = sim.snapshot()
    sim.set_input("u", huge)
    assert sim.advance_to(3.0) == "solver_failure"
    why, stopped_at = sim.message, sim.time
    assert why.startswith(f"{integrator} failed at t = ")
    # the last finite state reached, v = 0.5 + u (t - 0.5) (before, exact's read NaN)
    assert math.isfinite(stopped_at) and np.isfinite(sim.velocities).all()
    assert sim.value("b.velocity") == pytest.approx(0.5 + huge * (stopped_at - 0.5), rel=1e-12)
    assert sim.advance_to(3.5) == "solver_failure"
    assert (sim.message, sim.time) == (why, stopped_at)
    with pytest.raises(RuntimeError, match="stopped on an error"):
        sim.snapshot()
    sim.restore(before)
    assert sim.advance_to(1.0) == "reached_time"
    assert sim.value("b.velocity") == pytest.approx(1.0, abs=1e-8)


# -- bodies a rigid connection merged: one list of names, one reading --------------------------
# tests/data/merged_bodies.yaml: the gear q_m = -3 q_g merges the wheel g into the motor m, and
# the rigid spring to the base fixes h; the assembled model keeps m and w. Every body is
# reachable by its name alike in Model.body_names, Result and Simulator: the kept bodies, then
# the merged ones in the file's order (g, h), g moving as q_g = -q_m / 3 and h fixed at 0
# (core/model.hpp reported_body_value).
MERGED = pathlib.Path(__file__).resolve().parents[1] / "data" / "merged_bodies.yaml"


@pytest.mark.parametrize("integrator", ["exact", "cvode_bdf"])
def test_merged_bodies_are_named_and_read_alike_everywhere(integrator):
    model = luztar.load(MERGED)
    model["simulation.integrator"] = integrator
    names = model.body_names
    assert names == ["m", "w", "g", "h"]
    result = model.run()
    assert result.status == "reached_time"
    assert result.body_names == names
    m, g, h = names.index("m"), names.index("g"), names.index("h")
    sim = luztar.Simulator(model)
    for k, t in enumerate(result.time):
        if k > 0:
            assert sim.advance_to(t) == "reached_time"
        q, w = sim.angles, sim.velocities
        assert q.shape == w.shape == (len(names),)
        np.testing.assert_allclose(q, result.angle[k], rtol=0, atol=1e-12, err_msg=f"t = {t}")
        np.testing.assert_allclose(w, result.velocity[k], rtol=0, atol=1e-12, err_msg=f"t = {t}")
        for j, name in enumerate(names):  # by name, through the simulator's own resolver and Result's paths
            assert abs(sim.value(f"{name}.angle") - q[j]) <= 1e-12, (name, t)
            assert abs(sim.value(f"bodies.{name}.velocity") - w[j]) <= 1e-12, (name, t)
            assert abs(result[f"bodies.{name}.angle"][k] - q[j]) <= 1e-12, (name, t)
        assert abs(q[g] - q[m] / -3.0) <= 1e-12 and abs(w[g] - w[m] / -3.0) <= 1e-12, t
        assert q[h] == 0.0 and w[h] == 0.0, t
    assert np.max(np.abs(result.angle[:, g])) > 0.01  # the wheel turned (0.0435 rad at most): no test of zeros


# models/gear_train_simplification3.yaml: the rigid mesh merges delta into gamma (delta = 2 gamma)
# and gamma, massless between shaft_in (200 N m/rad on psi - delta) and shaft_out (400 N m/rad
# on gamma - phi), is eliminated. Both are reported with the motion of the springs' balance,
# gamma = (psi + phi) / 3, delta = 2 gamma, in the model's names, a Result, a Simulator and the
# HDF5 file the CLI writes. Before, gamma was in none of them and delta stood at 0.
def test_a_gear_merged_into_an_eliminated_wheel_moves_with_the_balance(models_dir, cli, tmp_path):
    path = models_dir / "gear_train_simplification3.yaml"
    model = luztar.load(path)
    names = model.body_names
    assert names == ["psi", "phi", "delta", "gamma"]
    result = model.run()
    assert result.status == "reached_time"
    q = result.angle
    tol = 1e-12 * (1.0 + np.abs(q[:, 0]) + np.abs(q[:, 1]))
    assert np.all(np.abs(q[:, 3] - (q[:, 0] + q[:, 1]) / 3.0) <= tol)
    assert np.all(np.abs(q[:, 2] - 2.0 * q[:, 3]) <= tol)
    assert np.max(np.abs(q[:, 2])) > 10.0  # 17.8 rad: no test of zeros
    sim = luztar.Simulator(model)
    assert sim.advance_to(result.time[-1]) == "reached_time"
    np.testing.assert_allclose(sim.angles, q[-1], rtol=0, atol=1e-9)
    out = tmp_path / "s3.h5"
    subprocess.run([cli, "run", str(path), "-o", str(out)], check=True, capture_output=True)
    stored = luztar.read(out)
    assert stored.body_names == names
    np.testing.assert_array_equal(stored.angle, q)


@pytest.mark.parametrize("integrator", ["exact", "cvode_bdf"])
def test_hdf5_read_back_equals_the_run(models_dir, cli, tmp_path, integrator):
    out = tmp_path / "g.h5"
    model_path = models_dir / "gear_train.yaml"
    # the CLI runs the file as written: compare a model whose t_end is set in the text
    text = model_path.read_text().replace("t_end: 10.0", "t_end: 0.5")
    short = tmp_path / "gear_train.yaml"
    short.write_text(text)
    # both integrators give the same bits in the CLI and in the Python module
    # (one library; a stale module once made exact's differ by an ulp)
    subprocess.run([cli, "run", str(short), "-o", str(out), "--integrator", integrator], check=True,
                   capture_output=True)
    stored = luztar.read(out)
    mem = luztar.load(short).run(integrator=integrator)
    assert stored.status == mem.status == "reached_time"
    np.testing.assert_array_equal(stored.time, mem.time)
    assert sorted(stored.signals) == sorted(mem.signals)
    for name, values in mem.signals.items():
        np.testing.assert_array_equal(stored.signals[name], values, err_msg=name)
        assert stored.units[name] == mem.units[name]
    np.testing.assert_array_equal(stored.events, mem.events)
    assert len(mem.events) > 0
    assert stored.time_stuck == mem.time_stuck
    for key in ("steps", "events", "impacts", "energy_residual"):
        assert stored.stats[key] == mem.stats[key], key
    assert stored.model_text == text
    # the summary: `luztar info`'s from the file; the run's the same but for its wall time
    info = subprocess.run([cli, "info", str(out)], check=True, capture_output=True, text=True).stdout
    assert info.split("\n", 1)[1] == stored.summary
    assert "= kinetic change " in stored.summary and "time stuck" in stored.summary
    same = [line for line in mem.summary.splitlines() if "wall time" not in line]
    assert same == [line for line in stored.summary.splitlines() if "wall time" not in line]
    with pytest.raises(FileNotFoundError, match="no such result file.*nope.h5"):
        luztar.read(tmp_path / "nope.h5")


def test_a_model_with_a_table_set_can_be_swept(models_dir):
    # a set that is not a number (a whole table) is a field of every run, not
    # a parameter: the sweep raised "expected a single value"
    model = luztar.load(models_dir / "clutch_damper.yaml")
    model["simulation.t_end"] = 0.5
    table = "{points: [[-8 deg, -150], [0, 0], [9 deg, 220]]}"
    model["elements.damper.stiffness_table"] = table
    s = model.sweep({"elements.road_load.coulomb": [10.0, 20.0]}, {"q": {"final": "bodies.flywheel.angle"}})
    assert list(s.status) == ["ok"] * 2
    assert "elements.damper.stiffness_table" not in s.parameters
    for i, mt0 in enumerate([10.0, 20.0]):
        one = luztar.load(models_dir / "clutch_damper.yaml")
        one["simulation.t_end"] = 0.5
        one["elements.damper.stiffness_table"] = table
        one["elements.road_load.coulomb"] = mt0
        r = one.run()
        assert s.metrics["q"][i] == pytest.approx(r["bodies.flywheel.angle"][-1], rel=1e-12, abs=1e-15)


def test_sweep_returns_the_metric_table(models_dir):
    model = luztar.load(models_dir / "block.yaml")
    model["simulation.t_end"] = 1.0
    calls = []
    s = model.sweep({"elements.bearing.coulomb": [0.5, 1.0, 1.5]},
                    {"q_end": {"final": "bodies.block.angle"}, "stuck": "time_stuck: bearing"},
                    threads=2, progress=lambda done, total, failed: calls.append((done, total, failed)))
    assert len(s) == 3 and list(s.status) == ["ok"] * 3
    np.testing.assert_array_equal(s.parameters["elements.bearing.coulomb"], [0.5, 1.0, 1.5])
    np.testing.assert_array_equal(s.parameters["simulation.t_end"], [1.0] * 3)  # the model's own set
    assert s.units == {"q_end": "rad", "stuck": "s", "elements.bearing.coulomb": "N m", "simulation.t_end": "s"}
    assert calls[-1] == (3, 3, 0)
    for i, mt0 in enumerate([0.5, 1.0, 1.5]):
        model["elements.bearing.coulomb"] = mt0
        r = model.run()
        assert s.metrics["q_end"][i] == r["bodies.block.angle"][-1]
        assert s.metrics["stuck"][i] == pytest.approx(r.time_stuck["bearing"], abs=1e-12)
        if len(r.events) == 1:  # stuck from 0 until the break-away only (mt0 = 0.5, 1)
            assert abs(s.metrics["stuck"][i] - block_break_away(mt0)) < 1e-9
    with pytest.raises(luztar.ModelError, match="coulomb"):
        model.sweep({"elements.bearing.coulomb": [1.0, -3.0]})


def test_sweep_file(models_dir):
    # the file's 200 runs cut to 2 by replacing two of its parameters
    s = luztar.sweep(models_dir / "sweeps" / "gear_train_rattle.yaml", threads=2,
                     parameters={"elements.mesh.freeplay": [0.01], "elements.bearing_phi.coulomb": "0.1,0.2"})
    assert len(s) == 2 and list(s.status) == ["ok", "ok"] and s.message == ["", ""]
    np.testing.assert_array_equal(s.parameters["elements.bearing_phi.coulomb"], [0.1, 0.2])
    assert list(s.metrics) == ["contacts", "mesh_torque_p2p", "gamma_velocity_rms", "phi_stuck", "heat",
                               "phi_dead_band"]
    assert s.units["heat"] == "J" and s.units["contacts"] == "1"
    assert np.all(s.metrics["contacts"] > 0) and np.all(np.isfinite(s.metrics["heat"]))


def test_ctrl_c_stops_a_run_with_the_samples_so_far(models_dir):
    # 10 s of model time with cvode_bdf: about 1.5 s of wall time (exact takes 0.2 s)
    model = luztar.load(models_dir / "gear_train.yaml")
    model["simulation.integrator"] = "cvode_bdf"
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(luztar.Interrupted) as e:
        model.run()
    timer.join()
    assert isinstance(e.value, KeyboardInterrupt)
    r = e.value.result
    assert r.status == "interrupted"
    t_stop = r.time[-1]
    assert 0.0 < t_stop < 10.0 and len(r.time) == round(t_stop / 1e-3) + 1
    prefix = "stopped by the caller at t = "  # (luztar's shortest form of the time: 4 s, not 4.0)
    assert r.message.startswith(prefix) and r.message.endswith(" s") and float(r.message[len(prefix):-2]) == t_stop
    assert all(len(v) == len(r.time) for v in r.signals.values())
    assert np.all(r.events["t"] <= t_stop)
    # the model is usable afterwards, and a run that ends at t_stop gives the same samples (to
    # roundoff: t_end is an integration stop there, and a stop changes CVODE's last steps)
    full = model.run(t_end=float(t_stop))
    np.testing.assert_allclose(full["bodies.psi.angle"], r["bodies.psi.angle"], rtol=1e-9, atol=1e-12)


# Two threads share one Simulator: one steps it, the other restores a snapshot and reads the
# events and stats. advance_to releases the GIL and nothing serialised the calls: the C++
# simulator was raced (a segfault, exit 139, or "mode ... does not reproduce its right-hand
# side"; a new-user hunt). Every bound method now holds the simulator's mutex, so the calls
# take turns and every step reaches its time. Run in a child process: a crash fails the test
# instead of ending pytest.
SHARED_SIMULATOR_RACE = """
import sys, threading, luztar
sim = luztar.Simulator(luztar.load(sys.argv[1]))
snap = sim.snapshot()
done = threading.Event()
failures = []
steps = 0
def stepper():
    global steps
    while not done.is_set():
        try:
            status = sim.advance_to(min(sim.time + 1e-3, 10.0))
        except ValueError:  # a restore between reading time and the call: the next try goes on
            continue
        steps += 1
        if status != "reached_time":
            failures.append(sim.message)
def restorer():
    for _ in range(2000):
        sim.restore(snap)
        _ = sim.events, sim.stats, sim.velocities
    done.set()
threads = [threading.Thread(target=stepper), threading.Thread(target=restorer)]
for t in threads: t.start()
for t in threads: t.join()
print(steps, len(failures), failures[:1])
"""


def test_one_simulator_shared_by_threads_takes_turns(models_dir):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [os.path.dirname(os.path.dirname(luztar.__file__)),
                                                                  os.environ.get("PYTHONPATH", "")] if p))
    for _ in range(3):  # (the race struck in about one run of two)
        r = subprocess.run([sys.executable, "-c", SHARED_SIMULATOR_RACE, str(models_dir / "gear_train.yaml")],
                           capture_output=True, text=True, timeout=300, env=env)
        assert r.returncode == 0, r.stderr[-2000:]
        steps, failures, first = r.stdout.split(" ", 2)
        assert int(failures) == 0, first
        assert int(steps) > 0


def test_release_the_gil_runs_in_parallel_threads(models_dir):
    model = luztar.load(models_dir / "block.yaml")
    results = [None, None]

    def work(i):
        results[i] = model.run(t_end=2.0)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(results[0]["bodies.block.angle"], results[1]["bodies.block.angle"])


@pytest.mark.parametrize("call", ["run", "advance_to", "sweep"])
def test_python_goes_on_while_a_long_call_computes(models_dir, call):
    # A call that held the GIL would stop this thread for its whole duration (a C++ call is never
    # preempted by Python's switch interval); released, this thread keeps counting meanwhile.
    # (Each call here is one C++ call of about 1 s; reading a file is too short to tell.)
    # 10 s of model time with cvode_bdf: about 1 s of wall time (exact, the default, takes 0.1 s)
    model = luztar.load(models_dir / "gear_train.yaml")
    model["simulation.integrator"] = "cvode_bdf"
    work = {"run": lambda: model.run(),
            "advance_to": lambda: luztar.Simulator(model).advance_to(10.0),
            "sweep": lambda: model.sweep({"elements.mesh.freeplay": [0.01, 0.02]}, threads=1)}[call]
    worker = threading.Thread(target=work)
    counts = []
    worker.start()
    while worker.is_alive():
        n = 0
        stop = time.monotonic() + 0.05
        while time.monotonic() < stop:
            n += 1
        counts.append(n)
    worker.join()
    # at least 5 slices of 50 ms, each with this thread running (a held GIL lets none through)
    assert len(counts) >= 5 and sum(c > 100 for c in counts[:-1]) >= 4, counts


def test_every_public_name_has_a_docstring_and_a_stub():
    import ast
    import pathlib
    stub = pathlib.Path(luztar.__file__).with_name("__init__.pyi")
    tree = ast.parse(stub.read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    missing = [name for name in luztar.__all__ if name != "__version__" and name not in stubbed]
    assert missing == []
    for name in luztar.__all__:
        obj = getattr(luztar, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__) > 20, name
    for cls in (luztar.Model, luztar.Result, luztar.Simulator):
        for attr, member in vars(cls).items():
            if not attr.startswith("_") and (callable(member) or isinstance(member, property)):
                assert member.__doc__, f"{cls.__name__}.{attr}"


def test_ctrl_c_stops_a_sweep_with_the_runs_done(models_dir):
    model = luztar.load(models_dir / "block.yaml")
    sent = []

    def progress(done, total, failed):  # Ctrl-C once a run is done
        if done >= 1 and not sent:
            sent.append(done)
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(luztar.Interrupted) as e:
        model.sweep({"elements.bearing.coulomb": {"from": 0.1, "to": 1.0, "count": 40}},
                    {"q_end": {"final": "bodies.block.angle"}}, threads=1, progress=progress)
    s = e.value.result
    assert len(s) == 40
    done = s.status == "ok"
    # one thread: the run in progress when the signal is seen finishes, no other starts
    assert 1 <= done.sum() <= sent[0] + 2 and set(s.status[~done]) == {"pending"}
    assert np.all(np.isfinite(s.metrics["q_end"][done])) and np.all(np.isnan(s.metrics["q_end"][~done]))


def test_an_exception_in_the_progress_callback_propagates(models_dir):
    model = luztar.load(models_dir / "block.yaml")
    seen = []

    def progress(done, total, failed):
        seen.append(done)
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        model.sweep({"elements.bearing.coulomb": {"from": 0.1, "to": 1.0, "count": 50}}, threads=1, progress=progress)
    assert len(seen) == 1


# -- Ctrl-C as a person presses it: a real SIGINT from outside, to a python3 process running a script
_RUN_SCRIPT = """
import sys
import luztar
model = luztar.load(sys.argv[1])
print("running", flush=True)
if sys.argv[2] == "catch":
    try:
        model.run(t_end=100.0, integrator="cvode_bdf")
    except luztar.Interrupted as e:
        r = e.result
        print(r.status, len(r.time), repr(float(r.time[-1])), r.message, sep="|", flush=True)
        sys.exit(0)
else:
    model.run(t_end=100.0, integrator="cvode_bdf")
print("finished", flush=True)
"""

_SWEEP_SCRIPT = """
import sys
import luztar
model = luztar.load(sys.argv[1])
def progress(done, total, failed):
    if done >= 1:
        print("progress", done, flush=True)
try:
    model.sweep({"elements.bearing.coulomb": {"from": 0.1, "to": 1.0, "count": 200}},
                {"q_end": {"final": "bodies.block.angle"}}, threads=1, progress=progress)
except luztar.Interrupted as e:
    s = e.result
    print("interrupted", len(s), int((s.status == "ok").sum()), int((s.status == "pending").sum()), flush=True)
    sys.exit(0)
print("finished", flush=True)
"""


def _interrupt_when(proc, line_start, delay):
    """Waits for a line of the child's stdout starting with `line_start`, then `delay` seconds, then SIGINT."""
    for line in proc.stdout:
        if line.startswith(line_start):
            break
    else:
        pytest.fail(f"the child ended before printing {line_start!r}: {proc.stderr.read()}")
    threading.Event().wait(delay)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return out, err


def _child(script, *args):
    return subprocess.Popen(["/usr/bin/python3", "-c", script, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ))


def test_sigint_from_outside_stops_a_run_with_the_samples_so_far(models_dir):
    # 100 s of the gear train take about 10 s of wall time with cvode_bdf (exact would finish in under
    # 1 s, before the signal): the signal comes 0.5 s in
    proc = _child(_RUN_SCRIPT, models_dir / "gear_train.yaml", "catch")
    out, err = _interrupt_when(proc, "running", 0.5)
    assert proc.returncode == 0, err
    status, samples, t_stop, message = out.strip().split("|")
    t_stop = float(t_stop)
    assert status == "interrupted" and 0.0 < t_stop < 100.0
    assert int(samples) == round(t_stop / 1e-3) + 1  # every sample up to where it stopped
    # (the time as luztar writes it, its shortest form: 4 s, not Python's 4.0)
    prefix = "stopped by the caller at t = "
    assert message.startswith(prefix) and message.endswith(" s") and float(message[len(prefix):-2]) == t_stop


def test_sigint_from_outside_ends_a_script_that_does_not_catch_it(models_dir):
    proc = _child(_RUN_SCRIPT, models_dir / "gear_train.yaml", "leave")
    out, err = _interrupt_when(proc, "running", 0.5)
    # an uncaught exception: python3 ends with status 1 and the traceback (only a KeyboardInterrupt
    # itself, not a subclass, makes python3 end by the signal)
    assert proc.returncode == 1, (proc.returncode, err)
    assert "luztar.Interrupted: stopped by the caller at t = " in err and "finished" not in out


def test_sigint_from_outside_stops_a_sweep_with_the_runs_done(models_dir):
    proc = _child(_SWEEP_SCRIPT, models_dir / "block.yaml")
    out, err = _interrupt_when(proc, "progress", 0.0)
    assert proc.returncode == 0, err
    last = out.strip().splitlines()[-1].split()
    assert last[0] == "interrupted", out
    runs, ok, pending = map(int, last[1:])
    assert runs == 200 and ok >= 1 and pending >= 1 and ok + pending == runs  # no run failed or was cut


def test_fields_read_in_si_with_their_units(models_dir):
    model = luztar.load(models_dir / "gear_train.yaml")
    model["elements.mesh.freeplay"] = "0.5 deg"
    assert model["elements.mesh.freeplay"] == 0.5 * math.pi / 180  # converted as the reader converts it
    assert model.text_of("elements.mesh.freeplay") == "0.5 deg"
    model["bodies.psi.velocity"] = "1500 rpm"
    assert model["bodies.psi.velocity"] == 1500 * 2 * math.pi / 60
    assert model["simulation.t_end"] == 10.0 and model["elements.mesh.ratio"] == 2.0
    assert model["elements.drive_psi.torque"] == "drive"  # a name stays text
    units = {"elements.mesh.freeplay": "rad", "elements.mesh.stiffness": "N m/rad", "bodies.psi.inertia": "kg m^2",
             "bodies.psi.velocity": "rad/s", "elements.bearing_phi.viscous": "N m s/rad", "simulation.t_end": "s",
             "elements.mesh.ratio": "1", "signals.drive.amplitude": "unit of the signal",
             "elements.drive_psi.torque.sine.frequency": "Hz", "elements.bearing_phi.coulomb": "N m"}
    assert {p: model.unit(p) for p in units} == units


def test_advance_to_keeps_the_embedding_rules(models_dir):
    # as the C++ facade: a time before now, past simulation.t_end or not finite is refused, nothing changes
    model = luztar.load(models_dir / "steering.yaml")
    sim = luztar.Simulator(model)
    assert sim.advance_to(0.5) == "reached_time"
    for t in (0.25, 20.5, math.inf, math.nan):
        with pytest.raises(ValueError, match=r"must be a finite time in \[0.5, 20\]"):
            sim.advance_to(t)
        assert sim.time == 0.5
    assert sim.advance_to(20.0) == "reached_time" and sim.time == 20.0
    with pytest.raises(ValueError, match="aligning_moment = nan is not a number within"):
        sim.set_input("aligning_moment", math.nan)


CHATTER = """simulation: {t_end: 100.0, output_step: 0.001, max_events: 100}
bodies:
  b: {inertia: 1.0e-3}
elements:
  bearing: {type: friction, body: b, coulomb: 1.0}
  buzz: {type: torque, body: b, torque: {sine: {amplitude: 1.5, frequency: 500}}}
"""


def test_the_event_limit_stops_the_simulator_there():
    # Coulomb friction under a 500 Hz torque of 1.5 times its limit: 2000 events per second.
    # At the limit of 100 the simulator stays stopped, as the C++ and C APIs (before, every
    # further advance_to handled one more event, moved the time on and said event_limit again).
    sim = luztar.Simulator(luztar.loads(CHATTER))
    assert sim.advance_to(0.01) == "reached_time"
    before = sim.snapshot()
    assert sim.advance_to(100.0) == "event_limit"
    why, stopped_at, events = sim.message, sim.time, sim.stats["events"]
    assert why.startswith("more than 100 events (simulation.max_events) by t = ")
    assert events == 101
    for t in (stopped_at, 50.0, 100.0):
        assert sim.advance_to(t) == "event_limit"
        assert (sim.message, sim.time, sim.stats["events"]) == (why, stopped_at, events)
    sim.snapshot()  # a sound state
    sim.restore(before)
    assert sim.advance_to(100.0) == "event_limit"
    assert (sim.message, sim.time) == (why, stopped_at)


def test_an_event_storm_stops_the_simulator_there():
    # A light body rattling in a stiff freeplay spring, declared a storm by a strict setting:
    # the simulator stays stopped at the event that made it, as at the event limit (before,
    # every further advance_to handled one more event and said event_storm again).
    sim = luztar.Simulator(luztar.loads(
        "simulation: {t_end: 1, output_step: 0.001, event_storm: {events: 20, span: 0.01}}\n"
        "bodies:\n  ball: {inertia: 1.0e-6, velocity: 10}\n"
        "elements:\n  wall: {type: spring, body: ball, stiffness: 1.0e4, freeplay: 1.0e-3}\n"))
    assert sim.advance_to(1.0) == "event_storm"
    why, stopped_at, events = sim.message, sim.time, len(sim.events)
    assert why.startswith("event storm: 20 events within")
    for t in (stopped_at, 0.5, 1.0):
        assert sim.advance_to(t) == "event_storm"
        assert (sim.message, sim.time, len(sim.events)) == (why, stopped_at, events)
    sim.snapshot()  # a sound state


@pytest.mark.parametrize("text", ["1.0", b"1.0", np.str_("1.0")], ids=["str", "bytes", "numpy_str"])
def test_numeric_arguments_refuse_text(models_dir, text):
    # float("1.0") and int("3") parse text: sim.set_input(u, "1.0") and sim.advance_to("1") ran.
    # A str or bytes for a number raises TypeError naming the parameter; nothing changes.
    sim = luztar.Simulator(luztar.load(HUGE_INPUT))
    with pytest.raises(TypeError, match=r"^set_input: value must be a number, not (str|bytes|str_)"):
        sim.set_input("u", text)
    assert sim.input_value("u") == 0.0
    with pytest.raises(TypeError, match=r"^advance_to: t must be a number, not (str|bytes|str_)"):
        sim.advance_to(text)
    assert sim.time == 0.0
    for name in ("threads", "samples", "seed"):
        with pytest.raises(TypeError, match=rf"^sweep: {name} must be a number, not (str|bytes|str_)"):
            luztar.sweep(models_dir / "block.yaml", {"bodies.block.inertia": [1.0]}, **{name: text})
    # numbers of every kind still serve: int, float, numpy scalars (v = u t, I = 1)
    for u, t in ((1, 0.5), (np.float64(1.0), np.float32(1.0)), (np.int64(1), np.int32(2))):
        sim.set_input("u", u)
        assert sim.advance_to(t) == "reached_time"
    assert sim.time == 2.0
    assert sim.value("b.velocity") == pytest.approx(2.0, abs=1e-9)


def test_a_block_that_drives_a_torque_is_in_n_m(models_dir, cli, tmp_path):
    # servo_gear_train: the PID's command drives the motor; the integral feeds the command through a product
    mem = luztar.load(models_dir / "servo_gear_train.yaml").run(t_end=0.1)
    assert mem.units["blocks.command"] == "N m" and mem.units["blocks.integral"] == "unit of the signal"
    out = tmp_path / "servo.h5"
    subprocess.run([cli, "run", str(models_dir / "servo_gear_train.yaml"), "--t-end", "0.1", "-o", str(out)],
                   check=True, capture_output=True)
    assert luztar.read(out).units == mem.units


def test_translational_units_in_memory_and_from_a_file(models_dir, tmp_path):
    # a translational body's quantities and a rack_pinion's are in m, m/s and N,
    # in a run and in its file alike (issue 19 item 8; the rigid mesh is merged)
    r = luztar.load(models_dir / "rack_and_pinion.yaml").run(t_end=0.2)
    assert r.units["bodies.rack.angle"] == "m" and r.units["bodies.rack.velocity"] == "m/s"
    assert r.units["bodies.rack.acceleration"] == "m/s^2" and r.units["bodies.pinion.angle"] == "rad"
    assert r.units["elements.tie_rods.torque"] == "N" and r.units["elements.tie_rods.relative_angle"] == "m"
    assert r.units["elements.rack_friction.torque"] == "N" and r.units["elements.driver.torque"] == "N m"
    assert r.element_kinds["tie_rods"] == "rack_pinion"
    np.testing.assert_allclose(r["bodies.rack.angle"], 7.5e-3 * r["bodies.pinion.angle"], rtol=1e-15, atol=1e-18)
    cli = os.environ.get("LUZTAR_CLI")
    if cli:
        out = tmp_path / "rp.h5"
        subprocess.run([cli, "run", str(models_dir / "rack_and_pinion.yaml"), "-o", str(out)], check=True,
                       capture_output=True)
        stored = luztar.read(out)
        for name in ("bodies.rack.angle", "bodies.rack.velocity", "elements.tie_rods.torque", "elements.driver.torque"):
            assert stored.units[name] == r.units[name]
