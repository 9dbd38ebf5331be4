#!/usr/bin/env python3
"""Draw a luztar result or sweep. A result (luztar run): angles and velocities
of every body against time, intervals where a body's bearing (or any friction
element on it) is stuck shaded, and events marked on the time axis. A sweep
(luztar sweep): a heat map of one metric over two parameters (a line over one).

    python3 luztar_plot.py result.h5 -o result.png
    python3 luztar_plot.py sweep.h5 -o map.png [--metric NAME] [--x PATH] [--y PATH]

Needs h5py and matplotlib (Debian: python3-h5py python3-matplotlib).
"""
import argparse
import os
import sys


def stuck_intervals(time, state):
    """(start, end) pairs where state == 0 (stuck), on the output grid."""
    spans, start = [], None
    for t, s in zip(time, state):
        if s == 0 and start is None:
            start = t
        elif s != 0 and start is not None:
            spans.append((start, t))
            start = None
    if start is not None:
        spans.append((start, time[-1]))
    return spans


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def plot_sweep(f, args, plt):
    """Heat map of a metric over two swept parameters: cells when the runs form
    a grid over them (other parameters averaged), points otherwise."""
    import numpy as np
    params = list(f["parameters"].keys())
    metrics = list(f["metrics"].keys())
    metric = args.metric or metrics[0]
    if metric not in metrics:
        sys.exit(f"luztar plot: no metric '{metric}' in {args.result} (it has: {', '.join(metrics)})")
    numeric = [p for p in params if f["parameters"][p].dtype.kind == "f"]
    varying = [p for p in numeric if len(np.unique(f["parameters"][p][:])) > 1] or numeric
    x = args.x or (varying[0] if varying else None)
    y = args.y or next((p for p in varying if p != x), None)
    for name in (x, y):
        if name is not None and name not in numeric:
            sys.exit(f"luztar plot: no numeric parameter '{name}' in {args.result} (it has: {', '.join(numeric)})")
    if x is None:
        sys.exit("luztar plot: the sweep has no numeric parameter to draw against")
    done = f["runs/status"][:] == 0
    value = f["metrics"][metric][:]
    definition = text(f["metrics"][metric].attrs.get("definition", metric))
    attrs = f["metrics"][metric].attrs
    unit = text(attrs.get("units", attrs.get("unit", "")))  # files written before "units": "unit"
    xs = f["parameters"][x][:]
    fig, ax = plt.subplots(figsize=(8, 6))
    if y is None:
        order = np.argsort(xs[done])
        ax.plot(xs[done][order], value[done][order], "o-")
        ax.set_xlabel(x)
        ax.set_ylabel(f"{metric} [{unit}]")
    else:
        ys = f["parameters"][y][:]
        ux, uy = np.unique(xs[done]), np.unique(ys[done])
        grid = np.full((len(uy), len(ux)), np.nan)
        count = np.zeros_like(grid)
        for xv, yv, v in zip(xs[done], ys[done], value[done]):
            i, j = np.searchsorted(uy, yv), np.searchsorted(ux, xv)
            grid[i, j] = v if count[i, j] == 0 else grid[i, j] + v
            count[i, j] += 1
        is_grid = len(ux) > 1 and len(uy) > 1 and count.min() > 0 and len(ux) * len(uy) <= done.sum()
        if is_grid:
            mesh = ax.pcolormesh(ux, uy, grid / count, shading="nearest", cmap="viridis")
        else:
            mesh = ax.scatter(xs[done], ys[done], c=value[done], cmap="viridis", s=40)
        fig.colorbar(mesh, ax=ax, label=f"{metric} [{unit}]")
        ax.set_xlabel(x)
        ax.set_ylabel(y)
    missing = int((~done).sum())
    ax.set_title(f"{definition}" + (f"\n({missing} runs pending or not finished, left out)" if missing else ""),
                 fontsize=10)
    fig.tight_layout()
    save(fig, args)


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
    ax[0, 0].legend(fontsize=7, loc="upper left")
    for a in ax.flat:
        a.grid(alpha=0.3)
        a.axhline(0, color="k", lw=0.5)
        a.axvline(0, color="k", lw=0.5)
    fig.suptitle("on-centre weave (dead band from the road-wheel plot, hysteresis from torque vs a_y at a_y = 0)")
    fig.tight_layout()
    save(fig, args)


def save(fig, args):
    """Writes the picture in the format of --output's extension, to --write-to
    when given (luztar plot passes a temporary file and renames it to --output)."""
    fmt = os.path.splitext(args.output)[1][1:].lower() or "png"
    fig.savefig(args.write_to or args.output, dpi=110, format=fmt)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result", help="HDF5 file written by luztar run or luztar sweep")
    parser.add_argument("-o", "--output", required=True, help="picture file (png, svg, pdf)")
    parser.add_argument("--metric", help="sweep: metric to map (default: the first)")
    parser.add_argument("--x", help="sweep: parameter on the x axis (default: the first numeric one)")
    parser.add_argument("--y", help="sweep: parameter on the y axis (default: the second numeric one)")
    parser.add_argument("--write-to", help="file to write instead of --output (format still from --output)")
    args = parser.parse_args()
    try:
        import h5py
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        sys.exit(f"luztar plot: {e} (install python3-h5py and python3-matplotlib)")

    try:
        f = h5py.File(args.result, "r")
    except OSError as e:
        sys.exit(f"luztar plot: {args.result}: {e}")
    with f:
        if text(f.attrs.get("format", "")) == "luztar on-centre weave":
            plot_weave(f, args, plt)
            print(f"wrote {args.output}")
            return
        if text(f.attrs.get("format", "")) == "luztar sweep":
            plot_sweep(f, args, plt)
            print(f"wrote {args.output}")
            return
        time = f["time"][:]
        bodies = list(f["bodies"].keys())
        # friction elements and the body each acts on (from the stored model order)
        frictions = [name for name in f["elements"] if f["elements"][name].attrs["kind"] == "friction"]
        ev_time = f["events/time"][:]
        ev_kind = [k.decode() if isinstance(k, bytes) else k for k in f["events/kind"][:]]
        title = f.attrs.get("model_name", "")
        if isinstance(title, bytes):
            title = title.decode()

        fig, axes = plt.subplots(2, 1, sharex=True, figsize=(11, 7))
        for name in bodies:
            axes[0].plot(time, f["bodies"][name]["angle"][:], label=name, lw=1)
            axes[1].plot(time, f["bodies"][name]["velocity"][:], label=name, lw=1)
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for i, name in enumerate(frictions):
            spans = stuck_intervals(time, f["elements"][name]["state"][:])
            for j, (a, b) in enumerate(spans):
                for ax in axes:
                    label = f"{name} stuck" if j == 0 and ax is axes[1] else None
                    ax.axvspan(a, b, color=colors[i % len(colors)], alpha=0.12, lw=0, label=label)
        # friction events along the bottom of the velocity plot (freeplay contacts are too many to mark)
        marks = {"stick": "v", "break_away": "^", "reversal": "x"}
        ymin = axes[1].get_ylim()[0]
        for kind, marker in marks.items():
            ts = [t for t, k in zip(ev_time, ev_kind) if k == kind]
            if ts:
                axes[1].plot(ts, [ymin] * len(ts), marker, ms=5, ls="none", label=f"{kind} ({len(ts)})")
        axes[0].set_ylabel("angle [rad]")
        axes[1].set_ylabel("velocity [rad/s]")
        axes[1].set_xlabel("time [s]")
        axes[0].set_title(f"{title}: angles and velocities, stuck intervals shaded")
        axes[0].legend(loc="upper left", fontsize=8)
        axes[1].legend(loc="upper left", fontsize=8, ncol=2)
        for ax in axes:
            ax.grid(alpha=0.3)
        fig.tight_layout()
        save(fig, args)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
