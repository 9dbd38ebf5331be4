#!/usr/bin/env python3
"""Draw a luztar result or sweep. A result (luztar run): the chosen signals
against time, one panel per quantity kind (angle, velocity, torque, energy, ...)
with its unit, the events of each kind as ticks in a strip below, and the
intervals where each friction element is stuck shaded in its own colour; or an
element's characteristic (torque against its relative angle or velocity) with
--xy. A sweep (luztar sweep): a heat map of one metric over two parameters (a
line over one), failed runs drawn as such.

    python3 luztar_plot.py result.h5 -o result.png [--signals GLOBS] [--units deg,rpm] [--xy GLOBS] [--list]
    python3 luztar_plot.py sweep.h5 -o map.png [--metric NAME] [--x PATH] [--y PATH]

Exit codes: 0 drawn; 2 an option refused (unknown picture format, signal,
unit, element), before anything is drawn; other codes: plotting failed.
Needs h5py, matplotlib and PyYAML (Debian: python3-h5py python3-matplotlib python3-yaml).
"""
import argparse
import fnmatch
import math
import os
import signal
import sys

USAGE = 2  # exit code of a refused option (luztar plot passes it on)

# Stored signals: dotted path pattern -> (quantity kind, SI unit). Used when a
# dataset has no `units` attribute; a translational body's datasets carry theirs.
STORED = [
    ("bodies.*.angle", "angle", "rad"),
    ("bodies.*.velocity", "velocity", "rad/s"),
    ("bodies.*.acceleration", "acceleration", "rad/s^2"),
    ("bodies.*.drive_torque", "torque", "N m"),
    ("elements.*.torque", "torque", "N m"),
    ("elements.*.state", "state", ""),
    ("elements.*.relative_angle", "angle", "rad"),
    ("elements.*.relative_velocity", "velocity", "rad/s"),
    ("elements.*.power", "power", "W"),
    ("elements.*.dissipated", "energy", "J"),
    ("energy.*", "energy", "J"),
    ("blocks.*", "block output", ""),
]
# Quantity kind of a stored SI unit (from a `units` attribute).
KIND_OF_UNIT = {"rad": "angle", "m": "position", "rad/s": "velocity", "m/s": "velocity",
                "rad/s^2": "acceleration", "m/s^2": "acceleration",
                "N m": "torque", "N": "force", "W": "power", "J": "energy", "s": "time"}
# Order of the panels, top to bottom.
PANEL_ORDER = ["angle", "position", "velocity", "acceleration", "torque", "force", "power", "energy", "state",
               "block output"]
# Display units: name -> (SI unit it converts, factor: display value = factor * SI value).
DISPLAY_UNITS = {
    "rad": ("rad", 1.0), "mrad": ("rad", 1e3), "deg": ("rad", 180 / math.pi), "rev": ("rad", 0.5 / math.pi),
    "rad/s": ("rad/s", 1.0), "deg/s": ("rad/s", 180 / math.pi), "rpm": ("rad/s", 30 / math.pi),
    "rev/s": ("rad/s", 0.5 / math.pi),
    "rad/s^2": ("rad/s^2", 1.0), "deg/s^2": ("rad/s^2", 180 / math.pi),
    "m/s^2": ("m/s^2", 1.0), "mm/s^2": ("m/s^2", 1e3),
    "W": ("W", 1.0), "kW": ("W", 1e-3), "mW": ("W", 1e3),
    "m": ("m", 1.0), "cm": ("m", 1e2), "mm": ("m", 1e3),
    "m/s": ("m/s", 1.0), "mm/s": ("m/s", 1e3), "km/h": ("m/s", 3.6),
    "N m": ("N m", 1.0), "N mm": ("N m", 1e3), "kN m": ("N m", 1e-3),
    "N": ("N", 1.0), "kN": ("N", 1e-3),
    "J": ("J", 1.0), "mJ": ("J", 1e3), "kJ": ("J", 1e-3), "Wh": ("J", 1 / 3600),
    "s": ("s", 1.0), "ms": ("s", 1e3),
}
# Event kinds in the strip below the panels, top to bottom, with their colours.
EVENT_COLOURS = {"stick": "tab:blue", "break_away": "tab:red", "reversal": "tab:purple",
                 "contact": "tab:green", "separation": "tab:olive", "impact": "black",
                 "stage": "tab:cyan", "lock": "tab:brown", "overrun": "tab:orange",
                 "power_flow": "tab:pink"}
# Element kinds whose state 0 is stuck (friction, lossy gear) or locked (one-way clutch).
STICKING_KINDS = ("friction", "one_way_clutch", "lossy_gear")
# Palette of the stuck intervals, one colour per friction element or one-way
# clutch (apart from the lines' tab10 colours).
STUCK_COLOURS = ["#e6a817", "#2a9d8f", "#b56576", "#6d597a", "#8ab17d", "#e76f51", "#457b9d", "#9c6644"]
# Without --signals: angles and velocities of the first this many bodies, and the energies.
DEFAULT_BODIES = 6


def refuse(message):
    """An option refused: the message on stderr, exit code 2, nothing drawn."""
    print(f"luztar plot: {message}", file=sys.stderr)
    sys.exit(USAGE)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def with_unit(name, unit):
    """'name [unit]'; a count or ratio ("1") and a value whose unit the file does
    not know ("unit of the signal") show the name alone."""
    return f"{name} [{unit}]" if unit and unit not in ("1", "unit of the signal") else name


def check_format(output, plt):
    """The picture format from --output's extension (png without one), refused
    before anything is read or drawn when matplotlib cannot write it."""
    fmt = os.path.splitext(output)[1][1:].lower() or "png"
    fig = plt.figure()
    supported = fig.canvas.get_supported_filetypes()
    plt.close(fig)
    if fmt not in supported:
        refuse(f"{output}: unknown picture format '{fmt}' (matplotlib writes: {', '.join(sorted(supported))})")
    return fmt


def unit_key(name):
    """'N*m', 'Nm', 'N m' and 'N·m' are the same unit."""
    return name.replace(" ", "").replace("*", "").replace("\u00b7", "")


def display_units(spec):
    """--units 'deg,rpm': SI unit -> (display name, factor). Unknown units and
    two units for the same quantity are refused."""
    by_key = {unit_key(k): k for k in DISPLAY_UNITS}
    chosen = {}
    for item in filter(None, (s.strip() for s in (spec or "").split(","))):
        name = by_key.get(unit_key(item))
        if name is None:
            refuse(f"--units: unknown unit '{item}' (known: {', '.join(DISPLAY_UNITS)})")
        si, factor = DISPLAY_UNITS[name]
        if si in chosen:
            refuse(f"--units: '{chosen[si][0]}' and '{name}' both display {si}")
        chosen[si] = (name, factor)
    return chosen


class Signal:
    """One stored signal: dotted path, quantity kind, SI unit and its samples."""

    def __init__(self, path, kind, unit, data):
        self.path, self.kind, self.unit, self.data = path, kind, unit, data


def stored_model(f):
    """The model text stored in a run file, parsed (None when absent or unreadable)."""
    import yaml
    try:
        model = yaml.safe_load(text(f["model/text"][()]))
    except Exception:
        return None
    return model if isinstance(model, dict) else None


def model_order(f):
    """Sort key of a signal: group, then the body's or element's place in the
    model file (HDF5 lists names alphabetically), then the quantity."""
    model = stored_model(f) or {}
    groups = ["bodies", "elements", "energy", "blocks"]
    place = {g: {n: i for i, n in enumerate(model.get(g) or {})} for g in ("bodies", "elements")}
    place["energy"] = {n: i for i, n in enumerate(["input_work", "kinetic", "elastic", "dissipated"])}
    fields = ["angle", "velocity", "acceleration", "drive_torque", "torque", "state", "relative_angle", "relative_velocity", "power",
              "dissipated"]

    def key(s):
        parts = s.path.split(".")
        order = place.get(parts[0], {})
        return (groups.index(parts[0]), order.get(parts[1], len(order)), parts[1],
                fields.index(parts[2]) if len(parts) > 2 and parts[2] in fields else len(fields))
    return key


def stored_signals(f):
    """Every signal of a run file with the time grid's length, in file order,
    plus energy.residual (input work - change of kinetic - change of elastic -
    dissipated, core/energy.hpp) when the four energies are stored."""
    import numpy as np
    nt = len(f["time"])
    found = []

    def visit(name, obj):
        if not hasattr(obj, "shape") or obj.shape != (nt,) or name == "time" or "/" not in name:
            return
        if name.split("/")[0] not in ("bodies", "elements", "energy", "blocks"):
            return
        path = name.replace("/", ".")
        kind, unit = next(((k, u) for pattern, k, u in STORED if fnmatch.fnmatchcase(path, pattern)), ("other", ""))
        if "units" in obj.attrs:  # written since units were stored; 'N*m' is our 'N m'
            unit = text(obj.attrs["units"])
            # a state or a count ("1"), or a block's output, whose unit is the
            # signal's it holds (core/units.hpp unit::of_signal): no unit on the axis
            unit = "" if unit in ("1", "unit of the signal") else unit
            unit = next((k for k in DISPLAY_UNITS if unit_key(k) == unit_key(unit)), unit)
            if kind not in ("state", "block output") or unit in KIND_OF_UNIT:
                kind = KIND_OF_UNIT.get(unit, kind)
        found.append(Signal(path, kind, unit, obj))

    f.visititems(visit)
    found.sort(key=model_order(f))
    energy = {s.path: s for s in found if s.kind == "energy"}
    parts = ["energy.input_work", "energy.kinetic", "energy.elastic", "energy.dissipated"]
    if all(p in energy for p in parts) and len(energy[parts[0]].data) > 0:
        w, k, e, d = (np.asarray(energy[p].data[:]) for p in parts)
        # from the initial condition, before the events at t_start: the
        # accounts count from 0 there, and sample 0's kinetic energy is what
        # those events left (core/energy.hpp, kinetic_at_start)
        k_start = k[0] + d[0] - w[0]
        residual = w - (k - k_start) - (e - e[0]) - d
        found.append(Signal("energy.residual", "energy", energy[parts[0]].unit, residual))
    return found


def select(signals, spec, option):
    """The signals matching any of the comma-separated globs in `spec`, in file
    order; a glob matching none is refused with the stored paths."""
    chosen = []
    for pattern in filter(None, (s.strip() for s in spec.split(","))):
        hits = [s for s in signals if fnmatch.fnmatchcase(s.path, pattern)]
        if not hits:
            paths = [s.path for s in signals]
            shown = ", ".join(paths[:40]) + (f", ... ({len(paths)} in all)" if len(paths) > 40 else "")
            refuse(f"{option}: '{pattern}' matches no stored signal (the file has: {shown})")
        chosen += [s for s in hits if s not in chosen]
    return [s for s in signals if s in chosen]


def default_selection(f, signals):
    """Angles and velocities of the first DEFAULT_BODIES bodies, the applied
    torques (torque elements: the drives and loads; the torques of the drives
    of prescribed bodies), the sampled blocks' outputs (the control path) and
    the energies."""
    bodies = []
    for s in signals:
        b = s.path.split(".")[1]
        if s.path.startswith("bodies.") and b not in bodies:
            bodies.append(b)
    keep = set(bodies[:DEFAULT_BODIES])
    applied = {n for n in f["elements"] if text(f["elements"][n].attrs.get("kind", "")) == "torque"}
    picked = [s for s in signals if s.path.startswith("bodies.") and s.path.split(".")[1] in keep
              and s.path.split(".")[2] in ("angle", "velocity")]
    picked += [s for s in signals if s.path.startswith("elements.") and s.path.endswith(".torque")
               and s.path.split(".")[1] in applied]
    driven = {n for n, b in ((stored_model(f) or {}).get("bodies") or {}).items()
              if isinstance(b, dict) and "prescribed" in b}
    picked += [s for s in signals if s.path.startswith("bodies.") and s.path.endswith(".drive_torque")
               and s.path.split(".")[1] in driven]
    picked += [s for s in signals if s.path.startswith("blocks.") or s.path.startswith("energy.")]
    return picked, len(bodies)


def held_inputs(f):
    """Names of the model's `input` signals (set by a host through the C/C++
    API; `luztar run` holds them at their initial values)."""
    signals = (stored_model(f) or {}).get("signals") or {}
    return [n for n, v in signals.items() if isinstance(v, dict) and "input" in v]


def stuck_intervals(time, state, events, element):
    """(start, end) pairs where friction element `element` is stuck (a one-way
    clutch locked): from its state at the first sample and the exact times of
    its logged events (stick, lock: -> 0; break-away, overrun: 0 ->), not from
    the output grid."""
    spans, start = [], (time[0] if state[0] == 0 else None)
    for t, name, before, after in events:
        if name != element or t <= time[0]:
            continue
        if after == 0 and start is None:
            start = t
        elif before == 0 and after != 0 and start is not None:
            spans.append((start, t))
            start = None
    if start is not None:
        spans.append((start, time[-1]))
    return spans


def read_events(f):
    """[(time, element, before, after)] and the kind of each."""
    g = f["events"]
    kinds = [text(k) for k in g["kind"][:]]
    rows = list(zip(g["time"][:], (text(e) for e in g["element"][:]), g["before"][:], g["after"][:]))
    return rows, kinds


def panels_of(selected, units):
    """[(kind, SI unit, [signals])] in PANEL_ORDER; one panel per kind and unit."""
    groups = {}
    for s in selected:
        groups.setdefault((s.kind, s.unit), []).append(s)
    rank = {k: i for i, k in enumerate(PANEL_ORDER)}
    return sorted(((k, u, ss) for (k, u), ss in groups.items()), key=lambda p: (rank.get(p[0], len(rank)), p[1]))


def shown_unit(unit, units):
    """(display unit, factor) of an SI unit under --units."""
    return units.get(unit, (unit, 1.0))


def check_units_used(units, si_units):
    """A display unit for a quantity none of the drawn signals has is refused
    (e.g. rpm when no velocity is drawn), the time's s included."""
    for si, (name, _) in units.items():
        if si not in si_units and si != "s":
            have = ", ".join(sorted(u for u in si_units if u)) or "none"
            refuse(f"--units: '{name}' displays {si}, but no drawn signal is in {si} (drawn units: {have})")


def element_model(f, element):
    """The element's entry in the stored model text (type, bodies, ratio)."""
    entry = ((stored_model(f) or {}).get("elements") or {}).get(element)
    if not isinstance(entry, dict):
        refuse(f"--xy: element '{element}' is not in the model text stored in the file")
    return entry


def relative(f, element, against):
    """The element's relative angle (spring: x = q_a - ratio q_b) or relative
    velocity (spring: x'; friction, one-way clutch: v = q_a' - q_b'): the stored
    elements/E/relative_angle|velocity (exact for any coordinate), or in a file
    written before luztar stored them, from the stored bodies: (values in SI,
    label, SI unit)."""
    import numpy as np
    entry = element_model(f, element)
    kind = text(entry.get("type", ""))
    bodies = entry.get("bodies", [entry.get("body")] if "body" in entry else [])
    bodies = [bodies] if isinstance(bodies, str) else list(bodies)
    ratio = float(entry.get("ratio", 1.0)) if kind == "spring" else 1.0
    quantity = against or ("angle" if kind == "spring" else "velocity")
    label = bodies[0] if bodies else element
    if len(bodies) > 1:
        label += f" - {ratio:g} {bodies[1]}" if ratio != 1 else f" - {bodies[1]}"
    word = "relative angle" if quantity == "angle" else "relative velocity"
    unit = "rad" if quantity == "angle" else "rad/s"
    stored = f"elements/{element}/relative_{quantity}"
    if stored in f:
        return np.asarray(f[stored][:], dtype=float), f"{word} {label}", unit
    for b in bodies:
        if f"bodies/{b}/{quantity}" not in f:
            refuse(f"--xy: body '{b}' of element '{element}' is not stored in the file (reduced away?)")
    q = np.asarray(f[f"bodies/{bodies[0]}/{quantity}"][:], dtype=float)
    if len(bodies) > 1:
        q = q - ratio * np.asarray(f[f"bodies/{bodies[1]}/{quantity}"][:], dtype=float)
    return q, f"{word} {label}", unit


def covering(values):
    """For each curve of a panel, whether it lies on an earlier one (within 1 %
    of the panel's range at 90 % of the samples or more), which would hide that
    one: the gear train's input body and first wheel, a shaft's two ends, a
    controller's command and the saturated torque it drives."""
    import numpy as np
    finite = [v[np.isfinite(v)] for v in values]
    span = max([np.ptp(v) for v in finite if len(v)] + [0.0])
    out = []
    for j, v in enumerate(values):
        out.append(span > 0 and any(len(v) == len(w) and len(v) and np.mean(np.abs(v - w) <= 0.01 * span) >= 0.9
                                    for w in values[:j]))
    return out


def stopped_early(f):
    """'stopped early (<status>): <message>' for a run that did not reach t_end (its
    samples end where it stopped), else ''."""
    status, message = text(f.attrs.get("status", "reached_time")), text(f.attrs.get("message", ""))
    return f"stopped early ({status}): {message}" if status != "reached_time" else ""


def legend_outside(ax, **kw):
    """The axis' legend to the right of its data area (nothing when it has no labels)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  fontsize=8, ncol=2 if len(labels) > 14 else 1, **kw)


def plot_result(f, args, plt, fmt):
    """Panels of the chosen signals against time, the event strip, the stuck shading."""
    import numpy as np
    units = display_units(args.units)
    signals = stored_signals(f)
    note = ""
    if args.signals:
        selected = select(signals, args.signals, "--signals")
    else:
        selected, nbodies = default_selection(f, signals)
        if nbodies > DEFAULT_BODIES:
            note = f" (first {DEFAULT_BODIES} of {nbodies} bodies; choose with --signals)"
    panels = panels_of(selected, units)
    check_units_used(units, {u for _, u, _ in panels})
    time = f["time"][:]
    if len(time) == 0:
        sys.exit(f"luztar plot: {args.result}: no samples (the run stopped at its start)")
    events, kinds = read_events(f)
    frictions = [s.path.split(".")[1] for s in signals if s.path.endswith(".state")
                 and text(f["elements"][s.path.split(".")[1]].attrs.get("kind", "")) in STICKING_KINDS]
    stuck = {n: stuck_intervals(time, f["elements"][n]["state"][:], events, n) for n in frictions}
    # stuck over the whole run: the strip shows it; shading every panel would only tint them
    throughout = [n for n, spans in stuck.items() if spans == [(time[0], time[-1])]]
    counts = {k: kinds.count(k) for k in EVENT_COLOURS if k in kinds}
    tname, tfactor = shown_unit("s", units)
    title = text(f.attrs.get("model_name", ""))
    stopped = stopped_early(f)

    if args.list:
        print(f"signals ({len(selected)}):")
        for s in selected:
            print(f"  {s.path}" + (f" [{s.unit}]" if s.unit else ""))
        print(f"panels ({len(panels)}):")
        for kind, unit, ss in panels:
            name = shown_unit(unit, units)[0]
            dashed = [s.path for s, on in zip(ss, covering([np.asarray(s.data[:], dtype=float) for s in ss])) if on]
            print(f"  {kind}" + (f" [{name}]" if name else "") + f": {', '.join(s.path for s in ss)}"
                  + (f" (dashed, on an earlier curve: {', '.join(dashed)})" if dashed else ""))
        print("events: " + (", ".join(f"{k} {n}" for k, n in counts.items()) or "none"))
        for n, spans in stuck.items():
            print(f"stuck: {n} {len(spans)} intervals, {sum(b - a for a, b in spans):.9f} s"
                  + (" (the whole run: not shaded)" if n in throughout else ""))
        if held_inputs(f):
            print(f"inputs held: {', '.join(held_inputs(f))}")
        if stopped:
            print(stopped)
        return

    strip = bool(counts) or any(stuck.values())
    strip_rows = len(counts) + sum(1 for spans in stuck.values() if spans)
    heights = [3.0] * len(panels) + ([0.35 * strip_rows + 0.4] if strip else [])
    fig, axes = plt.subplots(len(heights), 1, sharex=True, figsize=(12, 1.2 + sum(heights)),
                             gridspec_kw={"height_ratios": heights}, layout="constrained", squeeze=False)
    axes = list(axes[:, 0])
    shades = {n: STUCK_COLOURS[i % len(STUCK_COLOURS)] for i, n in enumerate(frictions)}
    t = time * tfactor
    for ax, (kind, unit, ss) in zip(axes, panels):
        name, factor = shown_unit(unit, units)
        values = [np.asarray(s.data[:], dtype=float) for s in ss]
        covered = covering(values)
        for s, v, hidden in zip(ss, values, covered):
            y = v * factor
            label = s.path if len({x.path.split(".")[0] for x in ss}) > 1 else ".".join(s.path.split(".")[1:])
            # a curve on top of an earlier one is dashed, so that both show
            ls = (0, (4, 3)) if hidden or s.path == "energy.residual" else "-"
            if kind == "state":
                ax.step(t, y, where="post", lw=1, label=label, ls=ls)
            else:
                ax.plot(t, y, lw=1.3 if hidden else 1, label=label, ls=ls)
        ax.set_ylabel(f"{kind} [{name}]" if name else kind)
        if all(len(v) and v.min() == v.max() for v in values) and len({v[0] for v in values}) == 1:
            ax.text(0.5, 0.75, f"all {len(ss)} constant: {values[0][0] * factor:g} {name}".rstrip(),
                    transform=ax.transAxes, ha="center", fontsize=9, color="0.3",
                    bbox={"facecolor": "white", "edgecolor": "0.7", "alpha": 0.9})
        if kind == "state":
            ax.set_yticks([-1, 0, 1])
        for n, spans in stuck.items():
            for a, b in spans if n not in throughout else []:
                ax.axvspan(a * tfactor, b * tfactor, color=shades[n], alpha=0.13, lw=0)
        ax.grid(alpha=0.3)
        legend_outside(ax)
    if strip:
        ax = axes[-1]
        rows = [(f"{k} ({n})", EVENT_COLOURS[k], [e[0] for e, kk in zip(events, kinds) if kk == k], None)
                for k, n in counts.items()]
        rows += [(f"{n} stuck ({sum(b - a for a, b in spans) * tfactor:.3g} {tname})", shades[n], None, spans)
                 for n, spans in stuck.items() if spans]
        for i, (label, colour, ts, spans) in enumerate(rows):
            y = len(rows) - 1 - i
            if ts is not None:
                ax.vlines(np.asarray(ts) * tfactor, y - 0.35, y + 0.35, color=colour, lw=0.8)
            else:
                # edged, so that an interval far shorter than a pixel still shows
                ax.broken_barh([(a * tfactor, (b - a) * tfactor) for a, b in spans], (y - 0.35, 0.7),
                               facecolor=colour, edgecolor=colour, alpha=0.7, lw=0.8)
        ax.set_yticks(range(len(rows)), [r[0] for r in reversed(rows)], fontsize=8)
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.grid(axis="x", alpha=0.3)
    axes[-1].set_xlabel(f"time [{tname}]")
    axes[-1].set_xlim(t[0], t[-1])
    stuck_note = ", stuck intervals shaded" if any(spans for n, spans in stuck.items() if n not in throughout) else ""
    if throughout:
        stuck_note += f"; stuck throughout: {', '.join(throughout)}"
    inputs = held_inputs(f)
    if inputs:  # a model for a host's loop (e.g. steering.yaml): nothing moves without its inputs
        note += f"\ninputs {', '.join(inputs)} held at their initial values (a host sets them through the API)"
    if stopped:
        note += f"\n{stopped}"
    axes[0].set_title(f"{title}{stuck_note}{note}", fontsize=10)
    save(fig, args, fmt)


def plot_xy(f, args, plt, fmt):
    """Characteristics: each chosen element's torque against its relative angle
    (springs) or relative velocity (friction; or --against)."""
    import numpy as np
    units = display_units(args.units)
    torques = [s for s in stored_signals(f) if s.path.startswith("elements.") and s.path.endswith(".torque")]
    drawable = [s for s in torques if text(f["elements"][s.path.split(".")[1]].attrs.get("kind", ""))
                in ("spring",) + STICKING_KINDS]
    for pattern in filter(None, (p.strip() for p in args.xy.split(","))):
        other = [s for s in torques if fnmatch.fnmatchcase(s.path, pattern) and s not in drawable]
        if other and not any(fnmatch.fnmatchcase(s.path, pattern) for s in drawable):
            kind = text(f["elements"][other[0].path.split(".")[1]].attrs.get("kind", ""))
            refuse(f"--xy: {other[0].path}: a {kind} element has no relative angle or velocity "
                   "(characteristics are drawn for springs, friction elements and one-way clutches)")
    curves = []
    for s in select(drawable, args.xy, "--xy"):
        element = s.path.split(".")[1]
        x, xlabel, xunit = relative(f, element, args.against)
        curves.append((s, element, x, xlabel, xunit))
    check_units_used(units, {c[0].unit for c in curves} | {c[4] for c in curves})
    if args.list:
        for s, element, x, xlabel, xunit in curves:
            xname, xf = shown_unit(xunit, units)
            print(f"xy: {s.path} [{shown_unit(s.unit, units)[0]}] against {xlabel} [{xname}], "
                  f"from {x.min() * xf:.9g} to {x.max() * xf:.9g}")
        return
    n = len(curves)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols + 0.6, 4.2 * rows), layout="constrained", squeeze=False)
    for ax, (s, element, x, xlabel, xunit) in zip(axes.flat, curves):
        yname, yf = shown_unit(s.unit, units)
        xname, xf = shown_unit(xunit, units)
        ax.plot(x * xf, np.asarray(s.data[:], dtype=float) * yf, lw=0.8)
        ax.set(xlabel=f"{xlabel} [{xname}]", ylabel=f"torque [{yname}]", title=element)
        ax.axhline(0, color="k", lw=0.5)
        ax.axvline(0, color="k", lw=0.5)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    stopped = stopped_early(f)
    fig.suptitle(f"{text(f.attrs.get('model_name', ''))}: element characteristics" + (f"\n{stopped}" if stopped else ""),
                 fontsize=10)
    save(fig, args, fmt)


# /runs/status of a sweep file (io/sweep_file.hpp): -1 pending, 0 ok, else failed.
RUN_FAILURES = {1: "event_limit", 2: "event_storm", 3: "solver_failure", 4: "error"}


def plot_sweep(f, args, plt, fmt):
    """Heat map of a metric over two swept parameters: cells when the runs form
    a grid over them (other parameters averaged), points otherwise. Runs that
    failed (event limit or storm, solver failure, error) are drawn as such: grey
    hatched cells, grey crosses; pending runs are left out and counted."""
    import numpy as np
    from matplotlib.patches import Patch, Rectangle
    params = list(f["parameters"].keys())
    metrics = list(f["metrics"].keys())
    metric = args.metric or metrics[0]
    if metric not in metrics:
        refuse(f"--metric: no metric '{metric}' in {args.result} (it has: {', '.join(metrics)})")
    numeric = [p for p in params if f["parameters"][p].dtype.kind == "f"]
    varying = [p for p in numeric if len(np.unique(f["parameters"][p][:])) > 1] or numeric
    x = args.x or (varying[0] if varying else None)
    y = args.y or next((p for p in varying if p != x), None)
    for option, name in (("--x", x), ("--y", y)):
        if name is not None and name not in numeric:
            refuse(f"{option}: no numeric parameter '{name}' in {args.result} (it has: {', '.join(numeric)})")
    if x is None:
        sys.exit("luztar plot: the sweep has no numeric parameter to draw against")
    status = f["runs/status"][:]
    done, failed, ran = status == 0, status > 0, status >= 0
    why = [RUN_FAILURES.get(int(c), f"status {int(c)}") for c in status[failed]]
    failed_why = ", ".join(f"{why.count(w)} {w}" for w in sorted(set(why)))
    failed_label = f"failed runs ({failed.sum()}: {failed_why})"
    value = f["metrics"][metric][:]
    definition = text(f["metrics"][metric].attrs.get("definition", metric))
    attrs = f["metrics"][metric].attrs
    unit = text(attrs.get("units", attrs.get("unit", "")))  # files written before "units": "unit"
    xs = f["parameters"][x][:]
    pending = int((status < 0).sum())

    def labelled(path):  # a parameter with its SI unit
        return with_unit(path, text(f["parameters"][path].attrs.get("units", "")))

    if y is not None:
        ys = f["parameters"][y][:]
        ux, uy = np.unique(xs[ran]), np.unique(ys[ran])
        total = np.zeros((len(uy), len(ux)))
        count, seen = np.zeros_like(total), np.zeros_like(total)
        for xv, yv, v, ok in zip(xs[ran], ys[ran], value[ran], done[ran]):
            i, j = np.searchsorted(uy, yv), np.searchsorted(ux, xv)
            seen[i, j] += 1
            if ok:
                total[i, j] += v
                count[i, j] += 1
        is_grid = len(ux) > 1 and len(uy) > 1 and seen.min() > 0 and len(ux) * len(uy) <= ran.sum()
    if args.list:
        layout = "line" if y is None else (f"grid {len(ux)} x {len(uy)}" if is_grid else "points")
        print(f"map: {with_unit(metric, unit)} over {labelled(x)}" + (f" and {labelled(y)}" if y else "") + f" ({layout})")
        print(f"runs: {len(status)} ({int(done.sum())} ok, {int(failed.sum())} failed"
              + (f": {failed_why}" if failed.any() else "") + f", {pending} pending)")
        if y is not None and is_grid:
            print(f"failed cells: {int(((count == 0) & (seen > 0)).sum())}")
        return
    fig, ax = plt.subplots(figsize=(8, 6.4), layout="constrained")
    grey = {"facecolor": "0.85", "edgecolor": "0.35", "hatch": "////"}
    if y is None:
        # the line breaks where runs failed: no value is drawn across them
        order = np.argsort(xs[ran], kind="stable")
        ax.plot(xs[ran][order], np.where(done[ran], value[ran], np.nan)[order], "o-", label=metric)
        if failed.any():  # along the bottom: they have no value
            ax.plot(xs[failed], np.full(failed.sum(), 0.03), "X", color="0.35", ms=8, ls="none",
                    transform=ax.get_xaxis_transform(), label=failed_label)
        ax.set_xlabel(labelled(x))
        ax.set_ylabel(with_unit(metric, unit))
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), fontsize=8, ncol=2)
    else:
        if is_grid:
            with np.errstate(invalid="ignore"):
                mean = np.ma.masked_invalid(total / count)
            mesh = ax.pcolormesh(ux, uy, mean, shading="nearest", cmap="viridis")
            ex = np.concatenate(([1.5 * ux[0] - 0.5 * ux[1]], (ux[1:] + ux[:-1]) / 2, [1.5 * ux[-1] - 0.5 * ux[-2]]))
            ey = np.concatenate(([1.5 * uy[0] - 0.5 * uy[1]], (uy[1:] + uy[:-1]) / 2, [1.5 * uy[-1] - 0.5 * uy[-2]]))
            for i, j in zip(*np.nonzero((count == 0) & (seen > 0))):
                ax.add_patch(Rectangle((ex[j], ey[i]), ex[j + 1] - ex[j], ey[i + 1] - ey[i], lw=0.3, **grey))
        else:
            mesh = ax.scatter(xs[done], ys[done], c=value[done], cmap="viridis", s=40)
            ax.scatter(xs[failed], ys[failed], marker="X", color="0.35", s=50)
        fig.colorbar(mesh, ax=ax, label=with_unit(metric, unit))
        ax.set_xlabel(labelled(x))
        ax.set_ylabel(labelled(y))
        if failed.any():
            handle = Patch(**grey) if is_grid else plt.Line2D([], [], marker="X", color="0.35", ls="none", ms=8)
            ax.legend([handle], [failed_label], loc="upper center", bbox_to_anchor=(0.5, -0.1), fontsize=8)
    ax.set_title(f"{definition}" + (f"\n({pending} runs pending, left out)" if pending else ""), fontsize=10)
    save(fig, args, fmt)


def plot_weave(f, args, plt):
    """On-centre plots of a weave file (luztar_steering_weave): steering-wheel
    torque against angle and against lateral acceleration, lateral acceleration
    against angle, and the road-wheel angle (times the ratio) against the
    steering-wheel angle, each case in its own colour, second half of the run."""
    import numpy as np
    fig, ax = plt.subplots(2, 2, figsize=(12, 9))
    for name in f:
        g = f[name]
        t = g["time"][:]
        keep = t >= g.attrs["analysis_start"]
        angle = np.degrees(g["steering_wheel_angle"][:][keep])
        torque = g["steering_wheel_torque"][:][keep]
        ay = g["lateral_acceleration"][:][keep]
        road = np.degrees(g.attrs["ratio"] * g["road_wheel_angle"][:][keep])
        label = (f"{name}: dead band {np.degrees(g.attrs['dead_band']):.2f} deg, "
                 f"hysteresis {g.attrs['torque_hysteresis']:.2f} N m")
        ax[0, 0].plot(angle, torque, lw=1, label=label)
        ax[0, 1].plot(ay, torque, lw=1, label=name)
        ax[1, 0].plot(angle, ay, lw=1, label=name)
        ax[1, 1].plot(angle, road, lw=1, label=name)
    ax[0, 0].set(xlabel="steering-wheel angle [deg]", ylabel="steering-wheel torque [N m]")
    ax[0, 1].set(xlabel="lateral acceleration [m/s^2]", ylabel="steering-wheel torque [N m]")
    ax[1, 0].set(xlabel="steering-wheel angle [deg]", ylabel="lateral acceleration [m/s^2]")
    ax[1, 1].set(xlabel="steering-wheel angle [deg]", ylabel="road-wheel angle x ratio [deg]")
    # one legend for the four panels, below them: outside the data
    handles, labels = ax[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8)
    for a in ax.flat:
        a.grid(alpha=0.3)
        a.axhline(0, color="k", lw=0.5)
        a.axvline(0, color="k", lw=0.5)
    fig.suptitle("on-centre weave (dead band from the road-wheel plot, hysteresis from torque vs a_y at a_y = 0)\n"
                 "each case's dead band and hysteresis less the baseline's (vehicle phase lag, viscous damping)",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    save(fig, args, os.path.splitext(args.output)[1][1:].lower() or "png")


def save(fig, args, fmt):
    """Writes the picture in the format of --output's extension, to --write-to
    when given (luztar plot passes a temporary file and renames it to --output)."""
    fig.savefig(args.write_to or args.output, dpi=110, format=fmt)
    print(f"wrote {args.output}")


def refuse_options(args, names, what):
    """Options that do not apply to this kind of file."""
    for name in names:
        if getattr(args, name.lstrip("-").replace("-", "_")):
            refuse(f"{name} does not apply to {what} ({args.result})")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `luztar plot --list | head` ends quietly
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result", help="HDF5 file written by luztar run or luztar sweep")
    parser.add_argument("-o", "--output", help="picture file; its extension is the format (png, svg, pdf, ...)")
    parser.add_argument("--signals", help="run: comma-separated globs over the stored signal paths "
                        "(bodies.B.angle|velocity|acceleration|drive_torque, "
                        "elements.E.torque|state|relative_angle|relative_velocity|power|dissipated, energy.KIND, "
                        "blocks.NAME)")
    parser.add_argument("--units", help="display units, comma-separated (deg, rpm, N mm, kJ, ms, ...)")
    parser.add_argument("--xy", help="run: globs over elements.E.torque: each element's torque against its "
                        "relative angle (spring) or velocity (friction)")
    parser.add_argument("--against", choices=["angle", "velocity"], help="--xy: the relative quantity on the x axis")
    parser.add_argument("--list", action="store_true",
                        help="print the selected signals and panels (a sweep: the map and its runs), draw nothing")
    parser.add_argument("--metric", help="sweep: metric to map (default: the first)")
    parser.add_argument("--x", help="sweep: parameter on the x axis (default: the first numeric one)")
    parser.add_argument("--y", help="sweep: parameter on the y axis (default: the second numeric one)")
    parser.add_argument("--write-to", help="file to write instead of --output (format still from --output)")
    args = parser.parse_args()
    if not args.output and not args.list:
        refuse("-o is required (unless --list)")
    try:
        import h5py
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import yaml  # noqa: F401  (the model text stored in a run file: element order, --xy, inputs)
    except ImportError as e:
        sys.exit(f"luztar plot: {e} (install python3-h5py, python3-matplotlib and python3-yaml)")
    fmt = check_format(args.output, plt) if args.output else None
    display_units(args.units)  # refused before the file is read
    if args.against and not args.xy:
        refuse("--against applies only with --xy")

    try:
        f = h5py.File(args.result, "r")
    except OSError as e:
        sys.exit(f"luztar plot: {args.result}: {e}")
    with f:
        form = text(f.attrs.get("format", ""))
        run_options = ["--signals", "--units", "--xy"]
        if form == "luztar on-centre weave":
            refuse_options(args, run_options + ["--list", "--metric", "--x", "--y"], "an on-centre weave file")
            plot_weave(f, args, plt)
        elif form == "luztar sweep":
            refuse_options(args, run_options, "a sweep file")
            plot_sweep(f, args, plt, fmt)
        else:
            refuse_options(args, ["--metric", "--x", "--y"], "a run file")
            if args.xy and args.signals:
                refuse("--xy and --signals draw different pictures: give one")
            (plot_xy if args.xy else plot_result)(f, args, plt, fmt)


if __name__ == "__main__":
    main()
