"""The plots of `sptune report` (matplotlib, Agg): speedups per matrix,
CDFs of speedups, learning curves. Each returns a figure."""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

MARKERS = ["k.", "r_", "g^", "mv", "cs", "yD"]


def _times_axis(axis, lo, hi):
    """Plain tick labels (0.5x, 1x, 2x) on a log-scale speedup axis showing
    lo..hi: the minor ticks get labels too when it spans under a decade."""
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    narrow = lo > 0 and hi / lo < 10

    def minor(v, _):
        lead = round(v / 10 ** math.floor(math.log10(v))) if v > 0 else 0
        return f"{v:.3g}x" if narrow or lead in (2, 5) else ""
    axis.set_minor_formatter(FuncFormatter(minor))


def short(name, n=30):
    """`name` cut to n characters (an ellipsis marks the cut)."""
    return name if len(name) <= n else name[:n - 1] + "\u2026"


def _finite(values):
    return [v for v in values if v is not None and v > 0 and math.isfinite(v)]


def speedup_bars(labels, values, markers=(), title="", ylabel="speedup"):
    """Bars of `values` per label (log scale, sorted by value, a line at
    1x); `markers`: (name, values in the same order) drawn as points."""
    order = sorted((i for i, v in enumerate(values) if v), key=lambda i: values[i])
    fig, ax = plt.subplots(figsize=(max(6.0, 0.22 * len(order) + 2) + 2.5, 4.8))
    xs = range(len(order))
    ax.bar(xs, [values[i] for i in order], color="tab:blue", label=ylabel)
    for (name, vals), style in zip(markers, MARKERS):
        ys = [vals[i] if vals[i] else float("nan") for i in order]
        if any(not math.isnan(y) for y in ys):
            ax.plot(xs, ys, style, ms=9, label=name)
    # A few bars stay narrow, centered.
    return _finish_speedup_axes(fig, ax, list(xs), [short(labels[i]) for i in order], 70, 8,
                                title, ylabel)


def grouped_bars(labels, series, title="", ylabel="speedup"):
    """Side-by-side bars per label (which may hold newlines), one per (name,
    values) of `series` (log scale, a line at 1x)."""
    fig, ax = plt.subplots(figsize=(max(6.0, 0.5 * len(labels) * max(1, len(series)) + 2) + 2.5, 4.4))
    width = 0.8 / max(1, len(series))
    for n, (name, vals) in enumerate(series):
        xs = [i + (n - (len(series) - 1) / 2) * width for i in range(len(labels))]
        ax.bar(xs, [v if v else float("nan") for v in vals], width, label=name)
    return _finish_speedup_axes(fig, ax, list(range(len(labels))), labels, 0, 3, title, ylabel)


def _finish_speedup_axes(fig, ax, ticks, ticklabels, rotation, narrow, title, ylabel):
    """A log speedup axis with a line at 1x; x ticks with their labels, the
    axis padded to `narrow` slots when there are fewer; grid and legend."""
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.set_yscale("log")
    _times_axis(ax.yaxis, *ax.get_ylim())
    ax.set_xticks(ticks)
    ax.set_xticklabels(ticklabels, rotation=rotation, fontsize=7)
    count = len(ticks)
    pad = max(0, narrow - count) / 2
    ax.set_xlim(-0.6 - pad, count - 0.4 + pad)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3, which="both")
    ax.legend(fontsize=7, bbox_to_anchor=(1.01, 1), loc="upper left")
    fig.tight_layout()
    return fig


def cdfs(panels, xlabel="speedup (log scale)", ylabel="fraction of matrices at or below"):
    """Empirical CDFs, one subplot per (title, [(name, values)]) panel."""
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4), squeeze=False)
    for ax, (title, series) in zip(axes[0], panels):
        for name, values in series:
            v = sorted(_finite(values))
            if not v:
                continue
            ys = [(i + 1) / len(v) for i in range(len(v))]
            ax.step(v, ys, where="post", label=f"{name} ({len(v)})")
        ax.axvline(1.0, color="gray", lw=0.8)
        ax.set_xscale("log")
        _times_axis(ax.xaxis, *ax.get_xlim())
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def curves(panels, xlabel, logx=False, title=None):
    """Line plots, one subplot per (title, ylabel, [(name, xs, ys, lo, hi)],
    [(name, y) horizontal references]); lo/hi (or None) draw a band."""
    fig, axes = plt.subplots(1, len(panels), figsize=(6.4 * len(panels), 4.4), squeeze=False)
    for ax, (ptitle, ylabel, lines, refs) in zip(axes[0], panels):
        for name, xs, ys, lo, hi in lines:
            line, = ax.plot(xs, [y if y is not None else float("nan") for y in ys],
                            marker=".", label=name)
            if lo is not None and hi is not None:
                ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.1)
        for (name, y), style in zip(refs, (":", "--", "-.")):
            if y is not None:
                ax.axhline(y, color="tab:green", ls=style, lw=1, label=name)
        if logx:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(ptitle, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2 if len(lines) > 5 else 1)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig
