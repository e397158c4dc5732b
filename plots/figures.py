"""The figures: each drawn from its model (plots/models.py), at one column (3.5 in) and at full width (7 in), as PNG
(300 dpi), SVG (text kept as text) and PDF.

One colour per implementation in every figure, from the Okabe-Ito colour-blind-safe palette, chosen by its role
(data/registry.json: the first implementation of a role takes the role's colour, any other the next spare one, in
the registry's order); published figures are drawn hollow (bars hatched, markers open, lines dashed) in their
implementation's colour.
Titles say what is shown; which runs, in the caption beside the figure.

Determinism: the Agg backend, a fixed SVG hash salt, no dates or software strings in the metadata, so the
same data and the same matplotlib give the same bytes.
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator  # noqa: E402

from plots.document import FORMATS, WIDE_SUFFIX  # noqa: E402
from plots.results import registry  # noqa: E402

COLUMN, FULL = 3.5, 7.0   # inches
WIDTHS = {"": COLUMN, WIDE_SUFFIX: FULL}
DPI = 300
METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
            "pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None}}

# Okabe-Ito by role, the two readers that count nothing in black and grey; the spare ones for a role's second
# implementation (a second contender, a second subject), in the registry's order.
ROLE_COLORS = {"baseline": "#D55E00", "privatized": "#0072B2", "contender": "#56B4E9", "subject": "#009E73",
               "peer": "#E69F00", "reader": "#000000", "floor": "#777777"}
SPARE_COLORS = ("#CC79A7", "#F0E442")
OTHER_COLOR = "#999999"   # an implementation this palette has no colour left for
HATCH = "////"
MARKERS = "osD^v<>"

plt.rcParams.update({"svg.hashsalt": "histostudy", "svg.fonttype": "none", "pdf.fonttype": 42,
                     "font.size": 7.5, "axes.titlesize": 8, "axes.labelsize": 7.5, "legend.fontsize": 6.5,
                     "xtick.labelsize": 7, "ytick.labelsize": 7, "axes.spines.top": False,
                     "axes.spines.right": False, "axes.linewidth": 0.6, "lines.linewidth": 1.1,
                     "lines.markersize": 3.5, "legend.frameon": False, "hatch.linewidth": 0.6})


def impl_colors():
    """{implementation: colour} for the GPU implementations of data/registry.json, in its order."""
    colors, taken, spare = {}, set(), iter(SPARE_COLORS)
    for e in (e for e in registry() if e["backend"] == "cuda"):
        own = next((ROLE_COLORS[r] for r in e["roles"] if r in ROLE_COLORS), None)
        colors[e["name"]] = own if own and own not in taken else next(spare, OTHER_COLOR)
        taken.add(colors[e["name"]])
    return colors


def color(impl):
    """An implementation's colour (a variant's label, 'name copies=8', takes its implementation's)."""
    return impl_colors().get(impl.split()[0], OTHER_COLOR)


def new_figure(width, height, left=None, **subplots):
    """A figure whose axes span its width (left: the share kept for the y labels), so the tight crop of the
    saved files stays within the width asked for."""
    fig, axes = plt.subplots(figsize=(width, height), **subplots)
    fig.subplots_adjust(left=left or (0.15 if width == COLUMN else 0.08), right=0.98)
    return fig, axes


def save(fig, out_dir, name):
    """Writes name.png/.svg/.pdf under out_dir; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in FORMATS:
        path = out_dir / f"{name}.{ext}"
        fig.savefig(path, format=ext, metadata=METADATA[ext], dpi=DPI, bbox_inches="tight", pad_inches=0.03)
        paths.append(path)
    plt.close(fig)
    return paths


def both_widths(draw, model, out_dir, name):
    """draw(model, width) at one column and at full width, saved as name and name-wide."""
    return [p for suffix, width in WIDTHS.items() for p in save(draw(model, width), out_dir, name + suffix)]


def note(ax, text):
    """Where a figure has no data: say why, in the figure."""
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", wrap=True, color="0.3")
    ax.set_axis_off()


def log_ticks(axis, subs=(1, 2, 5)):
    """Log-axis ticks at 1, 2, 5 x 10^k, labelled as plain numbers."""
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def legend_below(fig, ax, width, ncol):
    """The legend under the axes: ncol = (columns at one column, columns at full width)."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=ncol[width != COLUMN], bbox_to_anchor=(0.5, 0.0),
               handlelength=2.2, columnspacing=1.2)


def bar_style(impl, kind):
    """kind: 0 the first GPU measured, 1 a second one (lighter), 'published' (hollow, hatched)."""
    if kind == "published":
        return {"facecolor": "white", "edgecolor": color(impl), "hatch": HATCH, "linewidth": 0.6}
    return {"color": color(impl), "alpha": 1.0 if kind == 0 else 0.5, "linewidth": 0}


# ---- the lesson's table: global atomics and the privatized kernel per input ----

def lesson_figure(model, width):
    fig, ax = new_figure(width, 2.5 if width == COLUMN else 2.8)
    bars = [(label, kind, impl, name, times) for label, kind, by_impl in model.sources
            for impl, name in model.impls for times in [by_impl.get(impl, {})]]
    step = 0.84 / max(len(bars), 1)
    for j, (label, kind, impl, name, times) in enumerate(bars):
        xs = [i + (j - (len(bars) - 1) / 2) * step for i in range(len(model.inputs))]
        present = [(x, times[i]) for x, i in zip(xs, model.inputs) if times.get(i)]
        ax.bar([x for x, _ in present], [t for _, t in present], step * 0.92, label=f"{name}, {label}",
               **bar_style(impl, kind))
    ax.set_xticks(range(len(model.inputs)), model.inputs)
    ax.set_yscale("log")
    log_ticks(ax.yaxis)
    low = min(t for _, _, _, _, times in bars for t in times.values() if t)
    ax.set_ylim(bottom=low / 2)   # the shortest bar stays visible
    ax.grid(axis="y", which="major", alpha=0.3, linewidth=0.5)
    ax.set_ylabel("time per run, ms (log)")
    ax.set_title("Global atomics against the privatized kernel")
    legend_below(fig, ax, width, (2, 4))
    return fig


# ---- where the bins lie: time against the bins' offset ----

INPUT_STYLES = {"uniform": ("-", "o"), "lesson_english": ("--", "s"), "one_byte": (":", "^")}


def placement_figure(model, width):
    """A panel per group of kernels: stacked at one column, side by side at full width."""
    shape = (len(model.panels), 1) if width == COLUMN else (1, len(model.panels))
    fig, axes = new_figure(width, 3.7 if width == COLUMN else 2.7, nrows=shape[0], ncols=shape[1], squeeze=False)
    offsets = sorted({o for _, series in model.panels for _, _, r in series for o in r})
    for ax, (title, series) in zip(axes.flat, model.panels):
        for impl, input, ratios in series:
            style, marker = INPUT_STYLES.get(input, ("-.", "D"))
            ax.plot(list(ratios), list(ratios.values()), style, marker=marker, color=color(impl),
                    label=f"{impl}, {input}")
        ax.set_title(title, loc="left")
        ax.grid(alpha=0.3, linewidth=0.5)
        ax.set_xticks(offsets[::4])
        ax.set_xlabel("bins' offset past a 2 MiB boundary, bytes")
    handles = [h for ax in axes.flat for h in ax.get_legend_handles_labels()[0]]
    fig.legend(handles, [h.get_label() for h in handles], loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=2 if width == COLUMN else 3, handlelength=2.2, columnspacing=1.2)
    fig.supylabel("time over the fastest offset", fontsize=plt.rcParams["axes.labelsize"])
    fig.suptitle("Each kernel's time against where its bins lie", fontsize=plt.rcParams["axes.titlesize"])
    fig.subplots_adjust(hspace=0.6, wspace=0.25, top=0.9 if width == COLUMN else 0.84,
                        bottom=0.11 if width == COLUMN else 0.2)
    return fig


# ---- CUDA 13.0 over CUDA 12.6, per kernel ----

def _interval(ax, c, y, impl, hollow):
    ax.errorbar(c.ratio, y, xerr=[[c.ratio - c.ci_low], [c.ci_high - c.ratio]], fmt="s" if hollow else "o",
                color=color(impl), markerfacecolor="white" if hollow else color(impl), capsize=1.5, elinewidth=0.8)


def versions_figure(model, width):
    fig, ax = new_figure(width, 0.9 + 0.24 * max(len(model.rows), 1), left=0.36 if width == COLUMN else 0.18)
    for y, (label, ab, aa, published) in enumerate(model.rows):
        _interval(ax, ab, y - 0.15, label, hollow=False)
        if aa:
            _interval(ax, aa, y + 0.15, label, hollow=True)
        if published:
            ax.plot(published, y, "D", color=color(label), markerfacecolor="white", markersize=4.5)
    ax.axvspan(1 / model.band, model.band, color="0.92", zorder=0, linewidth=0)
    ax.axvline(1.0, color="0.3", linewidth=0.6)
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator([0.9, 1.0, 1.1, 1.2, 1.3, 1.5, 2.0]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ratios = [x for _, ab, aa, p in model.rows for x in (ab.ci_low, ab.ci_high, p, aa and aa.ci_high) if x]
    ax.set_xlim(min(0.97, min(ratios, default=1) * 0.98), max(1.08, max(ratios, default=1) * 1.05))
    ax.set_yticks(range(len(model.rows)), [r[0] for r in model.rows])
    ax.set_ylim(len(model.rows) - 0.5, -0.5)
    ax.set_xlabel("newer CUDA's time over the older's (log)")
    ax.set_title(f"Each kernel's time, CUDA {model.versions[1]} over {model.versions[0]}")
    for marker, face, text in (("o", "0.3", f"{model.ours}, 95% CI"), ("s", "white", "A/A control: a toolchain "
                                "over its own repeat"), ("D", "white", model.published)):
        ax.plot([], [], marker, color="0.3", markerfacecolor=face, label=text)
    ax.fill_between([], [], color="0.92", label=f"same within {model.band:.2f}x")
    legend_below(fig, ax, width, (1, 2))
    return fig


# ---- the contention sweep ----

SWEEP_STYLES = {0: "-", 1: "-."}


def sweep_figure(model, width):
    fig, ax = new_figure(width, 2.9 if width == COLUMN else 3.0, left=0.24 if width == COLUMN else 0.12)
    published = [s for s in model.series if s.kind == "published"]
    for s, marker in zip(model.series, MARKERS * 4):
        ks = sorted(s.values)
        if s.kind == "published":
            marker = MARKERS[published.index(s) % len(MARKERS)]
            ax.plot(ks, [s.values[k] for k in ks], "--", marker=marker, color=color(s.impl), markerfacecolor="white",
                    linewidth=0.8, label=f"{s.impl}, {s.whose}")
        else:
            ax.plot(ks, [s.values[k] for k in ks], SWEEP_STYLES[s.kind], marker="o", color=color(s.impl),
                    alpha=1.0 if s.kind == 0 else 0.6, label=f"{s.impl}, {s.whose}")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(model.distinct_values))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.invert_xaxis()  # Table 16-4 reads from 256 distinct values down to 1
    ax.set_yscale("log")
    log_ticks(ax.yaxis, subs=(1,))
    ax.set_xlabel("distinct byte values in the input")
    ax.set_ylabel("Mpix/s (million bytes a second, log)")
    ax.grid(which="major", alpha=0.3, linewidth=0.5)
    ax.set_title("Throughput as the input's distinct values fall")
    legend_below(fig, ax, width, (2, 3))
    return fig


# ---- performance at 1 GiB: percent of the read floor per input ----

def perf_figure(model, width):
    fig, ax = new_figure(width, 3.0 if width == COLUMN else 3.0)
    step = 0.8 / max(len(model.impls), 1)
    for j, impl in enumerate(model.impls):
        xs = [i + (j - (len(model.impls) - 1) / 2) * step for i in range(len(model.inputs))]
        ax.bar(xs, [model.pcts[impl].get(i) or 0 for i in model.inputs], step * 0.92, color=color(impl), label=impl)
    for (level, label), style in zip(model.targets, ("--", ":")):
        ax.axhline(level, color="black", linestyle=style, linewidth=0.8, label=label)
    for (level, label), style in zip(model.ceilings, ("-.", (0, (5, 1)), (0, (1, 1)))):
        ax.axhline(level, color="0.5", linestyle=style, linewidth=0.9, label=label)
    ax.set_xticks(range(len(model.inputs)), [i.replace("distinct_", "d") for i in model.inputs], rotation=45,
                  ha="right", rotation_mode="anchor")
    top = max([100.0] + [lvl for lvl, _ in model.ceilings])
    ax.set_ylim(0, top * 1.08)
    ax.set_ylabel(f"% of {model.floor}'s GB/s")
    ax.grid(axis="y", alpha=0.3, linewidth=0.5)
    ax.set_title(f"Percent of the read floor per input, {model.size}")
    fig.subplots_adjust(bottom=0.25 if width == COLUMN else 0.2)
    legend_below(fig, ax, width, (2, 3))
    return fig


# ---- the size sweep: time and percent of the floor against size, with the theoretical bandwidth ----

SIZE_ROLES = ("floor", "subject", "peer")
SIZE_UNITS = (("G", 30), ("M", 20))


def size_tick(size):
    """'4G', '256M': the size in the largest binary unit it reaches, rounded (64 MiB + 611 bytes: '64M')."""
    unit, shift = next(((u, s) for u, s in SIZE_UNITS if size >= 1 << s), ("", 0))
    return f"{size / (1 << shift):,.0f}{unit}"


def _size_axis(ax, sizes):
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator(sizes))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_tick(v)))
    ax.grid(which="major", alpha=0.3, linewidth=0.5)


def _theoretical(model, input, field):
    """[(size, the point's `field`)] where the theoretical bandwidth gives one."""
    points = [model.points[(input, size)] for size in model.sizes if (input, size) in model.points]
    return [(p.size, getattr(p, field)) for p in points if getattr(p, field)]


def _time_panel(ax, model, input):
    for role in SIZE_ROLES:
        found, impl = model.series(input, role), model.names[role]
        xs = [size for size, _ in found]
        ax.fill_between(xs, [t.p10_us for _, t in found], [t.p90_us for _, t in found], color=color(impl),
                        alpha=0.25, linewidth=0)
        ax.plot(xs, [t.median_us for _, t in found], "-", marker="o", color=color(impl), label=impl)
    limit = _theoretical(model, input, "theoretical_us")
    if limit:
        ax.plot(*zip(*limit), "--", color="black", linewidth=0.8,
                label=f"the theoretical memory bandwidth ({model.theoretical_gbps:,.0f} GB/s)")
    ax.set_yscale("log")
    log_ticks(ax.yaxis, subs=(1,))


def _pct_panel(ax, model, input):
    for role in ("subject", "peer"):
        found = model.series(input, role)
        ax.plot([s for s, _ in found], [t.pct_of_floor for _, t in found], "-", marker="o",
                color=color(model.names[role]))
    floor = model.names["floor"]
    ax.axhline(100, color=color(floor), linewidth=0.8)
    limit = _theoretical(model, input, "floor_pct_of_theoretical")
    if limit:
        ax.plot(*zip(*limit), ":", marker="s", markerfacecolor="white", color=color(floor), linewidth=0.9,
                label=f"{floor}'s own GB/s, as % of the theoretical bandwidth")
    ax.set_ylim(0, 110)


def sizes_figure(model, width):
    """Per input a time panel (log-log) and a percent-of-floor panel (log x): an input a row at one column, an input
    a column at full width."""
    n, column = len(model.inputs), width == COLUMN
    shape = (n, 2) if column else (2, n)
    fig, axes = new_figure(width, 1.6 * n + 0.7 if column else 4.0, left=0.17 if column else 0.08,
                           nrows=shape[0], ncols=shape[1], squeeze=False)
    panels = [(axes[i, 0], axes[i, 1]) if column else (axes[0, i], axes[1, i]) for i in range(n)]
    for k, (input, (time_ax, pct_ax)) in enumerate(zip(model.inputs, panels)):
        _time_panel(time_ax, model, input)
        _pct_panel(pct_ax, model, input)
        for ax in (time_ax, pct_ax) if column else (time_ax,):
            ax.set_title(input, loc="left")
        for ax in (time_ax, pct_ax):
            _size_axis(ax, model.sizes)
            ax.tick_params(axis="x", labelrotation=90 if column else 0)
        if column or k == 0:
            time_ax.set_ylabel("median per run, us (log)")
            pct_ax.set_ylabel(f"% of {model.names['floor']}'s GB/s")
    for ax in axes[-1, :]:
        ax.set_xlabel("input size (log)")
    time_handles, time_labels = panels[0][0].get_legend_handles_labels()
    pct_handles, pct_labels = panels[0][1].get_legend_handles_labels()
    fig.legend(time_handles + pct_handles, time_labels + pct_labels, loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=1 if column else 3, handlelength=2.2, columnspacing=1.2)
    fig.suptitle("Time and percent of the read floor against the input's size",
                 fontsize=plt.rcParams["axes.titlesize"])
    fig.subplots_adjust(hspace=0.6 if column else 0.35, wspace=0.45 if column else 0.25,
                        top=0.91 if column else 0.9, bottom=0.11 if column else 0.12)
    return fig
