#!/usr/bin/env python3
"""Draw a luztar result: angles and velocities of every body against time,
intervals where a body's bearing (or any friction element on it) is stuck
shaded, and events marked on the time axis.

    python3 luztar_plot.py result.h5 -o result.png

Needs h5py and matplotlib (Debian: python3-h5py python3-matplotlib).
"""
import argparse
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result", help="HDF5 file written by luztar run")
    parser.add_argument("-o", "--output", required=True, help="picture file (png, svg, pdf)")
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
        fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
