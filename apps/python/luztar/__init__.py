"""luztar: exact simulation of drivetrains with freeplay and dry friction, from Python.

    >>> import luztar
    >>> model = luztar.load("models/gear_train.yaml")
    >>> model["elements.mesh.freeplay"] = 0.02        # the path syntax of `luztar sweep --set`
    >>> result = model.run(t_end=2.0)
    >>> result["bodies.psi.velocity"], result.units["bodies.psi.velocity"]    # numpy array, "rad/s"
    >>> result.events[result.events["kind"] == "contact"]["t"]

Everything runs in the C++ library (module ``luztar._luztar``); this package turns its
results into numpy arrays and Python exceptions:

* :func:`load`, :func:`loads` -> :class:`Model`; ``model[path]`` reads and sets fields,
  :meth:`Model.run` -> :class:`Result`; :func:`read` reads a result file written by
  ``luztar run -o x.h5`` into the same :class:`Result`.
* :class:`Simulator` steps a model from a host loop (inputs, ``advance_to``, outputs,
  snapshot / restore) with the semantics of the C++ ``luztar::Simulator``.
* :func:`sweep` / :meth:`Model.sweep` run a parameter sweep and return its metric table
  as arrays (:class:`SweepResult`).
* A model that breaks a rule raises :class:`ModelError` with its location
  (``path:line:col: field: text``). Ctrl-C during a run or a sweep raises
  :class:`Interrupted` (a KeyboardInterrupt) carrying the results so far.

Long calls release the GIL, so runs in several Python threads proceed in parallel.
"""
from __future__ import annotations

import errno
import math
import os
import re

import numpy as np

__all__ = ["ModelError", "Interrupted", "Model", "Result", "Simulator", "Snapshot", "InputId", "OutputId", "SweepResult",
           "load", "loads", "read", "run", "sweep", "units_of", "__version__"]


class ModelError(ValueError):
    """A model (or a value set into it) breaks a rule.

    ``str(e)`` is the located message ``path:line:col: field: text`` that the CLI prints.
    Attributes: ``path`` (the model file, or where a value came from, e.g.
    ``model['elements.mesh.freeplay']``), ``line`` and ``column`` (1-based, ``None`` when
    the error has no place in a file), ``field`` (the dotted field path, may be ``""``)
    and ``detail`` (the text after the field).
    """

    def __init__(self, message: str, where: str = "", field: str = "", detail: str = ""):
        super().__init__(message)
        self.where = where
        self.field = field
        self.detail = detail
        m = re.fullmatch(r"(.*):(\d+):(\d+)", where)
        self.path = m.group(1) if m else where
        self.line = int(m.group(2)) if m else None
        self.column = int(m.group(3)) if m else None


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run or a sweep; ``.result`` holds what was finished.

    A run stops after its last output sample (``.result`` is a :class:`Result` with
    status ``"interrupted"``); a sweep lets the runs in progress finish and starts no
    more (``.result`` is a :class:`SweepResult`, the runs not done have status
    ``"pending"``). It is a KeyboardInterrupt: a script that does not catch it stops.
    """

    def __init__(self, message: str, partial):
        super().__init__(message)
        self.partial = partial
        self.result = None  # filled in by the function that was interrupted


from . import _luztar  # noqa: E402  (the exceptions above must exist before it raises them)

__version__: str = _luztar.__version__

# Units of the stored signals (SI), by the last part of the path.
_UNITS = {"time": "s", "angle": "rad", "velocity": "rad/s", "acceleration": "rad/s^2", "drive_torque": "N m",
          "torque": "N m", "state": "1",
          "relative_angle": "rad", "relative_velocity": "rad/s", "power": "W",
          "input_work": "J", "kinetic": "J", "elastic": "J", "dissipated": "J"}


def units_of(signal: str) -> str:
    """The SI unit of a stored signal by its path, e.g. ``"bodies.psi.velocity"`` -> ``"rad/s"``.

    Element states are ``"1"`` (a mode number); a sampled block's output has the unit of the
    quantity it shapes, which its path does not say: ``""`` (:attr:`Result.units` knows it:
    ``"N m"`` for a block that drives a torque, else ``"unit of the signal"``).
    """
    if signal.startswith("blocks."):
        return ""
    return _UNITS.get(signal.rsplit(".", 1)[-1], "")


_EVENT_DTYPE_BASE = [("t", "f8"), ("element", None), ("kind", "U16"), ("before", "i1"), ("after", "i1")]


def _events_array(t, element, kind, before, after) -> np.ndarray:
    width = max([len(e) for e in element] + [1])
    dtype = [(n, d if d else f"U{width}") for n, d in _EVENT_DTYPE_BASE]
    a = np.zeros(len(t), dtype=dtype)
    a["t"], a["element"], a["kind"], a["before"], a["after"] = t, element, kind, before, after
    return a


class Result:
    """The outcome of a run: sampled trajectories, event log, status and statistics.

    Every stored signal is a 1-D numpy array of the length of :attr:`time`, reached by its
    path in the HDF5 file with dots: ``result["bodies.psi.angle"]`` [rad],
    ``"bodies.<b>.velocity"`` [rad/s], ``"bodies.<b>.acceleration"`` [rad/s^2],
    ``"bodies.<b>.drive_torque"`` [N m] (a prescribed body's drive; stored when the model has one),
    ``"elements.<e>.torque"`` [N m],
    ``"elements.<e>.state"`` (int8: friction -1 slip-, 0 stuck, +1 slip+; spring freeplay
    side), ``"elements.<e>.relative_angle"`` [rad] and ``"relative_velocity"`` [rad/s] (the
    coordinate it acts on: q_a - ratio q_b, a load its body's angle), ``"elements.<e>.power"``
    [W] (taken from the bodies: > 0 absorbed, < 0 delivered), ``"elements.<e>.dissipated"`` [J]
    (since t_start; the elements' add up to energy.dissipated),
    ``"energy.<input_work|kinetic|elastic|dissipated>"`` [J], ``"blocks.<name>"``
    (held output of a sampled block). A path without its first part (``"psi.angle"``,
    ``"mesh.torque"``) is found too. :attr:`units` maps every signal to its unit. A file
    written before luztar stored accelerations and the per-element relative angle, power and
    dissipated energy has none of them (KeyError).

    Attributes:
        time: (nt,) output instants [s].
        signals: dict path -> array, every stored signal.
        units: dict path -> SI unit ("rad", "rad/s", "rad/s^2", "N m", "W", "J", "1"; "s" for "time"; a block's:
            "N m" when its output drives a torque or a friction limit, else "unit of the signal").
        angle, velocity: (nt, nb) arrays [rad], [rad/s], columns in :attr:`body_names` order.
        body_acceleration: (nt, nb) array [rad/s^2].
        element_torque, element_state: (nt, ne) arrays, columns in :attr:`element_names` order.
        element_relative, element_relative_velocity, element_power, element_dissipated: (nt, ne)
            arrays [rad], [rad/s], [W], [J].
        energy: dict input_work / kinetic / elastic / dissipated -> (nt,) array [J].
        block_output: (nt, nsb) held outputs of the sampled blocks (:attr:`block_names`).
        events: structured array with fields t [s], element (name), kind (stick,
            break_away, reversal, contact, separation, impact, stage, lock, overrun, power_flow), before,
            after (states).
        time_stuck: dict element -> seconds stuck (a one-way clutch: locked; 0 for other elements).
        status: "reached_time", "event_limit", "event_storm", "solver_failure", or
            "interrupted" (Ctrl-C; the samples so far).
        message: why the run stopped early ("" when it reached t_end).
        stats: dict of the solver's counters (steps, events, impacts, energy_residual,
            wall_time [s], ...; README "Output files").
        summary: the text ``luztar run`` (and ``luztar info``) prints: events by kind, time
            stuck, the energy balance with its residual, solver statistics, wall time.
        model_text: the model's YAML (from a file read by :func:`read`; else ``None``).
    """

    def __init__(self, d: dict, model_text: str | None = None):
        self.time: np.ndarray = d["time"]
        self.signals: dict[str, np.ndarray] = dict(d["signals"])
        self.body_names: list[str] = list(d["body_names"])
        self.element_names: list[str] = list(d["element_names"])
        self.element_kinds: dict[str, str] = dict(zip(self.element_names, d["element_kinds"]))
        self.block_names: list[str] = list(d["block_names"])
        self.events: np.ndarray = _events_array(*d["events"])
        self.time_stuck: dict[str, float] = dict(zip(self.element_names, (float(x) for x in d["time_stuck"])))
        self.status: str = d["status"]
        self.message: str = d["message"]
        self.stats: dict = dict(d["stats"])
        self.model_text = d.get("model_text", model_text)
        self.summary: str = d["summary"]
        self.units: dict[str, str] = {"time": "s", **{k: units_of(k) for k in self.signals}, **d.get("units", {}),
                                      **{"blocks." + b: u for b, u in zip(self.block_names, d["block_units"])}}

    def _matrix(self, names, quantity, dtype=float) -> np.ndarray:
        cols = [self.signals[f"{names[0]}.{n}.{quantity}"] for n in names[1]]
        return np.column_stack(cols).astype(dtype) if cols else np.zeros((len(self.time), 0), dtype)

    @property
    def angle(self) -> np.ndarray:
        """(nt, nb) body angles [rad]."""
        return self._matrix(("bodies", self.body_names), "angle")

    @property
    def velocity(self) -> np.ndarray:
        """(nt, nb) body velocities [rad/s]."""
        return self._matrix(("bodies", self.body_names), "velocity")

    @property
    def element_torque(self) -> np.ndarray:
        """(nt, ne) element torques [N m] (sign conventions: README "Output files")."""
        return self._matrix(("elements", self.element_names), "torque")

    @property
    def element_state(self) -> np.ndarray:
        """(nt, ne) element states (int8)."""
        return self._matrix(("elements", self.element_names), "state", np.int8)

    @property
    def body_acceleration(self) -> np.ndarray:
        """(nt, nb) body accelerations [rad/s^2] (NaN for a massless body)."""
        return self._matrix(("bodies", self.body_names), "acceleration")

    @property
    def element_relative(self) -> np.ndarray:
        """(nt, ne) the coordinate each element acts on [rad] (sum c_k q_k, q_a - ratio q_b; a load: its body's angle)."""
        return self._matrix(("elements", self.element_names), "relative_angle")

    @property
    def element_relative_velocity(self) -> np.ndarray:
        """(nt, ne) its rate [rad/s]."""
        return self._matrix(("elements", self.element_names), "relative_velocity")

    @property
    def element_power(self) -> np.ndarray:
        """(nt, ne) power each element takes from the bodies [W] (> 0 absorbed, < 0 delivered)."""
        return self._matrix(("elements", self.element_names), "power")

    @property
    def element_dissipated(self) -> np.ndarray:
        """(nt, ne) energy each element has dissipated since t_start [J]; rows add up to energy["dissipated"]."""
        return self._matrix(("elements", self.element_names), "dissipated")

    @property
    def energy(self) -> dict[str, np.ndarray]:
        """input_work, kinetic, elastic, dissipated -> (nt,) arrays [J]."""
        return {k: self.signals["energy." + k] for k in ("input_work", "kinetic", "elastic", "dissipated")}

    @property
    def block_output(self) -> np.ndarray:
        """(nt, nsb) held outputs of the sampled blocks."""
        cols = [self.signals["blocks." + b] for b in self.block_names]
        return np.column_stack(cols) if cols else np.zeros((len(self.time), 0))

    def _path(self, name: str) -> str:
        if name == "time" or name in self.signals:
            return name
        for group in ("bodies.", "elements.", "blocks.", "energy."):
            if group + name in self.signals:
                return group + name
        raise KeyError(f"no stored signal '{name}' (signals: {', '.join(sorted(self.signals))})")

    def __getitem__(self, name: str) -> np.ndarray:
        """The stored signal at ``name`` (see the class documentation); KeyError if none."""
        path = self._path(name)
        return self.time if path == "time" else self.signals[path]

    def __contains__(self, name: str) -> bool:
        try:
            self._path(name)
            return True
        except KeyError:
            return False

    def __repr__(self) -> str:
        t = f"{self.time[0]:g}..{self.time[-1]:g} s" if len(self.time) else "no samples"
        return (f"<luztar.Result {self.status}: {t}, {len(self.time)} samples, {len(self.signals)} signals, "
                f"{len(self.events)} events>")


def _yaml_text(value) -> str:
    """A Python value as YAML text for a model field (floats exactly: repr round-trips)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return ".nan"
        if math.isinf(v):
            return ".inf" if v > 0 else "-.inf"
        return repr(v)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_yaml_text(v) for v in value) + "]"
    raise TypeError(f"cannot write a {type(value).__name__} as a model field")


def _number(value, where: str, integer: bool = False):
    """``value`` as a float (an int with ``integer``) for the numeric parameter ``where``
    ("advance_to: t"). float() and int() would parse text ("1.0"): a str or bytes raises
    TypeError naming the parameter; ints, floats and numpy scalars pass."""
    if isinstance(value, (str, bytes, bytearray)):
        raise TypeError(f"{where} must be a number, not {type(value).__name__} ({value!r})")
    return int(value) if integer else float(value)


def _python_value(text: str):
    """A field's YAML scalar text as a Python value: int, float, bool, or the text itself."""
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    special = {"true": True, "false": False, ".inf": math.inf, "-.inf": -math.inf, ".nan": math.nan}
    return special.get(text.lower(), text)


class Model:
    """A model read from YAML and assembled (checked) once; see :func:`load` / :func:`loads`.

    ``model[path]`` reads a field and ``model[path] = value`` sets it, by the path syntax of
    ``luztar sweep --set`` (``"elements.mesh.freeplay"``, ``"bodies.phi.inertia"``,
    ``"simulation.t_end"``; inside a signal the kind may be left out:
    ``"signals.drive.amplitude"``). A set re-assembles the model; a value that breaks a rule
    raises :class:`ModelError` located at ``model['<path>']`` and leaves the model as it was.
    Simulators made before a set keep the model they were made from.
    """

    def __init__(self, core):
        self._core = core

    # -- fields
    def __getitem__(self, path: str):
        """The value at ``path``: a number in SI (a value written with a unit is converted:
        ``"0.5 deg"`` reads as 0.008726646259971648 rad; :meth:`unit` names the unit), a bool,
        or text (a name); a mapping or list as YAML flow text (:meth:`text_of` gives any
        field as written).

        Only what the model says: a field left to its default raises KeyError.
        """
        text = self.text_of(path)
        si = _luztar.field_si(path, text)
        return si if si is not None and not isinstance(_python_value(text), int) else _python_value(text)

    def text_of(self, path: str) -> str:
        """The field at ``path`` as written in the file or set (``"0.5 deg"``, ``"{sine: {...}}"``);
        KeyError for a field left to its default."""
        try:
            return self._core.get(path)
        except ModelError as e:
            raise KeyError(str(e)) from None

    @staticmethod
    def unit(path: str) -> str:
        """The SI unit of the field at ``path`` (``"rad"`` for ``"elements.mesh.freeplay"``,
        ``"N m/rad"`` for a stiffness, ``"1"`` for ratios and tolerances); ``"unit of the signal"``
        for a value whose unit depends on its use (a named signal's)."""
        return _luztar.field_unit(path)

    def __setitem__(self, path: str, value) -> None:
        """Sets ``path`` to ``value`` (a number, bool, text, list or dict) and re-assembles."""
        self._core.set(path, _yaml_text(value))

    @property
    def sets(self) -> dict[str, str]:
        """The fields set from Python so far, path -> YAML text."""
        return dict(self._core.sets)

    @property
    def text(self) -> str:
        """The model's YAML text as read (without the sets)."""
        return self._core.text

    @property
    def path(self) -> str:
        """Where the model came from (its file, or the ``origin`` given to :func:`loads`)."""
        return self._core.origin

    @property
    def body_names(self) -> list[str]:
        """The model's bodies, in the order of :attr:`Result.body_names` and
        :attr:`Simulator.angles`: the bodies of the assembled model, then those the
        reduction removed: merged by a rigid connection (their motion is the kept body's
        times the ratio) or eliminated as massless (their springs' balance; NaN where it
        leaves them undetermined, inside a freeplay)."""
        return list(self._core.body_names)

    @property
    def element_names(self) -> list[str]:
        """Elements in file order."""
        return list(self._core.element_names)

    @property
    def input_names(self) -> list[str]:
        """Named inputs a :class:`Simulator` can set."""
        return list(self._core.input_names)

    @property
    def block_names(self) -> list[str]:
        """Sampled blocks of the control path (their outputs are ``blocks.<name>``)."""
        return list(self._core.block_names)

    @property
    def reductions(self) -> list[str]:
        """What assembly reduced (rigid connections, massless bodies in series)."""
        return list(self._core.reductions)

    # -- running
    def run(self, **simulation) -> Result:
        """Runs the model and returns its :class:`Result`.

        Keyword arguments replace ``simulation.*`` fields for this run only and are checked
        as the file's (a bad one raises :class:`ModelError`); a number is SI, a text may carry
        a unit (``t_end="500 ms"``): ``t_end``, ``t_start``,
        ``output_step``, ``rtol``, ``atol``, ``max_step``, ``max_events``, ``solver``
        (``"event_driven"`` | ``"time_stepping"``), ``integrator`` (``"auto"`` | ``"exact"`` |
        ``"cvode_bdf"`` | ``"cvode_adams"``), ``step``, ``theta``, ...
        E.g. ``model.run(t_end=2.0, output_step=1e-4)``.

        A run that stops early (event limit, solver failure) returns normally with its status
        and message. Ctrl-C raises :class:`Interrupted` whose ``.result`` holds the samples so far.
        The GIL is released while the run computes.
        """
        settings = [(k, _yaml_text(v)) for k, v in simulation.items()]
        try:
            return Result(self._core.run(settings))
        except Interrupted as e:
            e.result = Result(e.partial)
            raise

    def simulator(self) -> "Simulator":
        """A :class:`Simulator` of this model (the same as ``Simulator(model)``)."""
        return Simulator(self)

    def sweep(self, parameters: dict | None = None, metrics: dict | None = None, **kwargs) -> "SweepResult":
        """Runs a sweep of this model (its ``sweep:`` section, its sets, and ``parameters``);
        see :func:`sweep` for the arguments and the result."""
        return _sweep(self._core, "", parameters, metrics, **kwargs)

    def __repr__(self) -> str:
        return (f"<luztar.Model {self.path}: {len(self.body_names)} bodies, {len(self.element_names)} elements"
                + (f", sets {self.sets}" if self.sets else "") + ">")


def load(path: str | os.PathLike) -> Model:
    """Reads and assembles the model file at ``path`` (README "Model files").

    Table files are found relative to the model's folder. Raises :class:`ModelError` (with
    ``path``, ``line``, ``column``, ``field``) for a model that breaks a rule.
    """
    return Model(_luztar.load(os.fspath(path)))


def loads(text: str, origin: str = "<string>", base_dir: str | os.PathLike = ".") -> Model:
    """Reads and assembles a model from YAML text; ``origin`` names it in error messages
    (``<string>:3:12: bodies.b.inertia: ...``) and ``base_dir`` is where its table files are."""
    return Model(_luztar.loads(text, origin, os.fspath(base_dir)))


def read(path: str | os.PathLike) -> Result:
    """Reads a result file written by ``luztar run -o FILE.h5`` into a :class:`Result`
    (the same arrays, events, status and statistics as the run produced; ``model_text`` set).
    FileNotFoundError when there is no such file; RuntimeError naming the file when it is not
    a readable luztar result file."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "no such result file", path)
    return Result(_luztar.read(path))


def run(model: Model | str | os.PathLike, **simulation) -> Result:
    """Runs a model and returns its :class:`Result` (arrays of every signal, events, status).

    ``model`` is a :class:`Model` or the path of a model file. Keyword arguments replace
    ``simulation.*`` fields for this run only, as :meth:`Model.run`; a number is SI, a text
    may carry a unit:

    >>> r = luztar.run("models/block.yaml", t_end=2.0, output_step="0.1 ms")
    >>> r["bodies.block.velocity"], r.units["bodies.block.velocity"]   # numpy array, "rad/s"
    >>> r.events[r.events["kind"] == "stick"]["t"]                      # event log, structured array
    >>> r.status, r.message, r.stats["steps"], r.time_stuck["bearing"]

    A run that stops early (event limit, event storm, solver failure) returns normally with
    that status and its message. Raises :class:`ModelError` (``path:line:col: field: text``,
    with ``.path``, ``.line``, ``.column``, ``.field``) for a model or a setting that breaks a
    rule, and :class:`Interrupted` on Ctrl-C (``.result``: the samples so far). The GIL is
    released while it computes.
    """
    if not isinstance(model, Model):
        model = load(model)
    return model.run(**simulation)


Snapshot = _luztar.Snapshot
InputId = _luztar.InputId
OutputId = _luztar.OutputId


class Simulator:
    """Steps a model from a host loop, as the C++ ``luztar::Simulator`` (solvers/simulator.hpp).

    >>> sim = luztar.Simulator(model)
    >>> torque = sim.input("driver_torque")          # names resolved once
    >>> angle = sim.output("bodies.wheel.angle")
    >>> for k in range(1, 1001):
    ...     sim.set_input(torque, host_torque(k))    # held until set again
    ...     if sim.advance_to(k * 1e-3) != "reached_time": raise RuntimeError(sim.message)
    ...     publish(sim.value(angle))

    Starts at ``simulation.t_start`` in a consistent mode. Event-driven models only (a
    ``time_stepping`` model raises ValueError). Inputs and outputs may be given by name or
    by the ids :meth:`input` / :meth:`output` return; a bad name or value raises ValueError.
    :meth:`snapshot` / :meth:`restore` roll back: a restored simulator repeats the
    continued one bit for bit. ``advance_to`` releases the GIL; several simulators of one
    model run in parallel threads, and calls on one simulator from several threads take turns
    (each holds the simulator's lock, waiting for it with the GIL released).
    """

    def __init__(self, model: Model):
        self._core = _luztar._Simulator(model._core)
        self.model = model

    def input(self, name: str):
        """Resolves a named input (a signal declared ``{input: ...}``); ValueError listing the inputs."""
        return self._core.input(name)

    def set_input(self, input, value: float) -> None:
        """Sets an input (an id or a name) from now on; ValueError for a value outside its bounds,
        TypeError for text ("1.0": a number is meant)."""
        value = _number(value, "set_input: value")
        self._core.set_input(self.input(input) if isinstance(input, str) else input, value)

    def input_value(self, input) -> float:
        """The value an input holds now."""
        return self._core.input_value(self.input(input) if isinstance(input, str) else input)

    def output(self, name: str):
        """Resolves an output by the simulator's own resolver: ``"<body>.angle"`` [rad],
        ``"<body>.velocity"`` [rad/s], ``"<element>.torque"`` [N m], ``"<element>.state"``,
        an input's name, or a sampled block's name. ValueError for an unknown name."""
        return self._core.output(name)

    def value(self, output) -> float:
        """The value of an output (an id or a name) at the current time."""
        return self._core.value(self.output(output) if isinstance(output, str) else output)

    def advance_to(self, t: float) -> str:
        """Integrates to time ``t`` handling every event in (now, t]; returns the status:
        ``"reached_time"``, ``"event_limit"``, ``"event_storm"`` or ``"solver_failure"``
        (then :attr:`message` says why). After ``"solver_failure"`` (at the last finite state
        reached), ``"event_limit"`` (at the event that passed ``simulation.max_events``) and
        ``"event_storm"`` (at the event that made it) the simulator stays stopped: every call
        answers the same status, message and time, handling no event more, until :meth:`restore`
        of an earlier snapshot (one may be taken at the event limit or storm, not after a failure). ValueError (nothing changes) for a ``t`` that is not
        finite, before :attr:`time` or past ``simulation.t_end``; TypeError for text ("1").
        The GIL is released meanwhile."""
        return self._core.advance_to(_number(t, "advance_to: t"))

    @property
    def time(self) -> float:
        """The current time [s]."""
        return self._core.time

    @property
    def message(self) -> str:
        """Why the last advance_to stopped early."""
        return self._core.message

    @property
    def angles(self) -> np.ndarray:
        """(nb,) body angles now [rad], in :attr:`Model.body_names` order (a removed body's
        as in :attr:`Result.angle`: a merged one's is its kept body's times the ratio)."""
        return self._core.angles

    @property
    def velocities(self) -> np.ndarray:
        """(nb,) body velocities now [rad/s], in :attr:`Model.body_names` order (as :attr:`angles`)."""
        return self._core.velocities

    @property
    def stats(self) -> dict:
        """The solver's counters so far (as :attr:`Result.stats`)."""
        return dict(self._core.stats)

    @property
    def events(self) -> np.ndarray:
        """The event log so far (the structured array of :attr:`Result.events`)."""
        return _events_array(*self._core.events)

    def snapshot(self) -> Snapshot:
        """The full state now (state, modes, inputs, accounts, statistics) for :meth:`restore`.
        Taking it restarts the integrator here, as an event does."""
        return self._core.snapshot()

    def restore(self, snapshot: Snapshot) -> None:
        """Returns to a snapshot taken from a simulator of the same model; the event log is cut
        back to its length then. ValueError for a snapshot of another model."""
        self._core.restore(snapshot)


_STATUS = {-1: "pending", 0: "ok", 1: "event_limit", 2: "event_storm", 3: "solver_failure", 4: "error"}


class SweepResult:
    """The table of a sweep, one entry per run (arrays of length N).

    Attributes:
        parameters: dict path -> array of the run's values (float64 when every value is a
            number, else strings).
        metrics: dict name -> float64 array (NaN for a run that did not reach t_end).
        units: dict metric name or parameter path -> its SI unit (a parameter that is a named
            signal's value: "unit of the signal").
        status: array of "ok", "event_limit", "event_storm", "solver_failure", "error",
            "pending" (not run: the sweep was interrupted).
        message: list of why each run did not finish ("" when ok).
        wall_time: float64 array [s].
    """

    def __init__(self, d: dict):
        self.parameters: dict[str, np.ndarray] = {}
        for path, values in d["parameters"].items():
            try:
                self.parameters[path] = np.array([float(v) for v in values])
            except ValueError:
                self.parameters[path] = np.array(values)
        self.metrics: dict[str, np.ndarray] = dict(d["metrics"])
        self.units: dict[str, str] = dict(d["units"])
        self.status: np.ndarray = np.array([_STATUS[int(s)] for s in d["status"]])
        self.message: list[str] = list(d["message"])
        self.wall_time: np.ndarray = d["wall_time"]

    def __len__(self) -> int:
        return len(self.status)

    def __repr__(self) -> str:
        ok = int(np.sum(self.status == "ok"))
        return (f"<luztar.SweepResult {len(self)} runs ({ok} ok): parameters {list(self.parameters)}, "
                f"metrics {list(self.metrics)}>")


def _sweep(core, path, parameters=None, metrics=None, *, threads=0, samples=None, seed=None, progress=None):
    sets = [f"{p}={_yaml_text(list(v) if isinstance(v, (list, tuple, np.ndarray)) else v)}"
            for p, v in (parameters or {}).items()]
    mets = [f"{n}={_yaml_text(s) if isinstance(s, dict) else s}" for n, s in (metrics or {}).items()]
    samples = -1 if samples is None else _number(samples, "sweep: samples", integer=True)
    seed = -1 if seed is None else _number(seed, "sweep: seed", integer=True)
    threads = _number(threads, "sweep: threads", integer=True)
    try:
        return SweepResult(_luztar.sweep(core, path, sets, mets, samples, seed, threads, progress))
    except Interrupted as e:
        e.result = SweepResult(e.partial)
        raise


def sweep(model: Model | str | os.PathLike, parameters: dict | None = None, metrics: dict | None = None, *,
          threads: int = 0, samples: int | None = None, seed: int | None = None, progress=None) -> SweepResult:
    """Runs a parameter sweep and returns its table (:class:`SweepResult`); nothing is written.

    Args:
        model: a model file with a ``sweep:`` section, a sweep file (``model:`` + ``sweep:``),
            or a :class:`Model` (its sets become single-valued parameters).
        parameters: path -> values, added to (or replacing) the file's: a list
            ``[0.1, 0.2]``, a dict ``{"from": 0.001, "to": 0.02, "count": 5}``, or the text
            of ``luztar sweep --set`` (``"0.001:0.02:5"``, ``"uniform:0.1:0.4"``).
        metrics: name -> spec as in the file (``{"rms": "bodies.psi.velocity"}``) or its text
            (``"rms: bodies.psi.velocity"``); none given anywhere: the default metrics.
        threads: worker threads (0: every core).
        samples, seed: draws and random stream of sampled parameters (default: the file's).
            threads, samples and seed are numbers: text raises TypeError.
        progress: called as ``progress(done, total, failed)`` about every 50 ms and at the end.

    Every run's model is checked before the first run (a bad path or value raises
    :class:`ModelError` naming the run). Ctrl-C lets the runs in progress finish and raises
    :class:`Interrupted` whose ``.result`` is the table so far.
    """
    if isinstance(model, Model):
        return _sweep(model._core, "", parameters, metrics, threads=threads, samples=samples, seed=seed,
                      progress=progress)
    return _sweep(None, os.fspath(model), parameters, metrics, threads=threads, samples=samples, seed=seed,
                  progress=progress)
