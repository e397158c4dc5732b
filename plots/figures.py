"""The figures: each drawn from its model (plots/models.py), at one column (3.5 in) and at full width (7 in), as PNG
(300 dpi), SVG (text kept as text) and PDF.

One colour per implementation in a figure of one GPU, from the Okabe-Ito colour-blind-safe palette, chosen by its
role (data/registry.json: the first implementation of a role takes the role's colour, any other the next spare one,
in the registry's order); published figures are drawn hollow (bars hatched, markers open, lines dashed) in their
implementation's colour. Where a figure shows several GPUs, each GPU takes a colour of its own (GPU_COLORS, by its
place among the appendix's GPUs, so a GPU keeps its colour from figure to figure), the implementations are told
apart by marker, line or shade, and published figures are drawn hollow in grey; one legend names them all.
Titles say what is shown; which runs, in the caption beside the figure.

Determinism: the Agg backend, a fixed SVG hash salt, no dates or software strings in the metadata, so the
same data and the same matplotlib give the same bytes.
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.lines import Line2D  # noqa: E402
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
GPU_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00")   # Okabe-Ito: a GPU each, where several
PUBLISHED_COLOR = "#555555"   # published figures beside several GPUs
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


def gpu_color(index):
    """The colour of the GPU at `index` among the appendix's GPUs, where a figure shows several."""
    return GPU_COLORS[index % len(GPU_COLORS)]


def series_color(impl, gpu, several):
    """A measured series' colour: its GPU's where the figure shows several GPUs, else its implementation's; a
    published series (gpu 'published') beside several GPUs is grey."""
    if not several:
        return color(impl)
    return PUBLISHED_COLOR if gpu == "published" else gpu_color(gpu)


def layered(gpu, gpus):
    """Line and marker sizes of a measured series where several GPUs share the axes: a GPU drawn earlier is drawn
    wider, so that where a later GPU's curve lies on it (the same kernel, the same speed) it still shows round it."""
    if gpu == "published" or len(gpus) < 2:
        return {}
    wider = len(gpus) - 1 - list(gpus).index(gpu)
    return {"linewidth": plt.rcParams["lines.linewidth"] + 1.0 * wider,
            "markersize": plt.rcParams["lines.markersize"] + 2.0 * wider}


def markers_of(names):
    """{name: marker}, a marker each in order: what tells implementations apart where colours tell GPUs."""
    return {name: MARKERS[n % len(MARKERS)] for n, name in enumerate(dict.fromkeys(names))}


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


LEGEND_GAP = 0.06   # inches between the lowest axis text and a legend below it


def lowest_text(fig):
    """The bottom of what the figure's axes draw (tick labels and axis labels included), in figure coordinates:
    where a legend below them starts, so that no blank band lies between (a fixed bottom margin leaves one)."""
    renderer = fig.canvas.get_renderer()
    bottom = min(ax.get_tightbbox(renderer).y0 for ax in fig.axes if ax.get_visible())
    return bottom / fig.bbox.height - LEGEND_GAP / fig.get_figheight()


def legend_below(fig, ax, width, ncol, handles=None):
    """The legend just under the axes' text: ncol = (columns at one column, columns at full width); handles: those
    it shows (default: the axes' own)."""
    handles, labels = (handles, [h.get_label() for h in handles]) if handles else ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=ncol[width != COLUMN],
               bbox_to_anchor=(0.5, lowest_text(fig)), handlelength=2.2, columnspacing=1.2)


def bar_style(impl, gpu, several=False, shade=0):
    """gpu: the GPU's index, or 'published' (hollow, hatched). Beside several GPUs, the GPU's colour (series_color),
    the second implementation of a group (shade 1) lighter, or published dotted."""
    colour = series_color(impl, gpu, several)
    if gpu == "published":
        return {"facecolor": "white", "edgecolor": colour, "hatch": HATCH if shade == 0 else "....", "linewidth": 0.6}
    return {"color": colour, "alpha": 1.0 if shade == 0 else 0.45, "linewidth": 0}


def several_gpus(indexes):
    """Whether the measured series (their GPUs' indexes, 'published' aside) come from more than one GPU."""
    return len({i for i in indexes if i != "published"}) > 1


# ---- the lesson's table: global atomics and the privatized kernel per input ----

def lesson_figure(model, width):
    fig, ax = new_figure(width, 2.5 if width == COLUMN else 2.8)
    bars = [(label, gpu, impl, name, times, shade) for label, gpu, by_impl in model.sources
            for shade, (impl, name) in enumerate(model.impls) for times in [by_impl.get(impl, {})]]
    several = several_gpus(gpu for _, gpu, _ in model.sources)
    step = 0.84 / max(len(bars), 1)
    for j, (label, gpu, impl, name, times, shade) in enumerate(bars):
        xs = [i + (j - (len(bars) - 1) / 2) * step for i in range(len(model.inputs))]
        present = [(x, times[i]) for x, i in zip(xs, model.inputs) if times.get(i)]
        ax.bar([x for x, _ in present], [t for _, t in present], step * 0.92, label=f"{name}, {label}",
               **bar_style(impl, gpu, several, shade if several else 0))
    ax.set_xticks(range(len(model.inputs)), model.inputs)
    ax.set_yscale("log")
    log_ticks(ax.yaxis)
    low = min(t for _, _, _, _, times, _ in bars for t in times.values() if t)
    ax.set_ylim(bottom=low / 2)   # the shortest bar stays visible
    ax.grid(axis="y", which="major", alpha=0.3, linewidth=0.5)
    ax.set_ylabel("time per run, ms (log)")
    ax.set_title("Global atomics against the privatized kernel")
    legend_below(fig, ax, width, (1, 2) if several else (2, 4))
    return fig


# ---- where the bins lie: time against the bins' offset ----

INPUT_STYLES = {"uniform": ("-", "o"), "lesson_english": ("--", "s"), "one_byte": (":", "^")}


def placement_figure(model, width):
    """A panel per group of kernels: stacked at one column, side by side at full width."""
    shape = (len(model.panels), 1) if width == COLUMN else (1, len(model.panels))
    fig, axes = new_figure(width, 3.7 if width == COLUMN else 2.7, nrows=shape[0], ncols=shape[1], squeeze=False)
    offsets = sorted({o for _, series in model.panels for _, _, _, r in series for o in r})
    several = several_gpus(model.gpus)
    kernels = markers_of(impl for _, series in model.panels for impl, _, _, _ in series)
    gpus = list(dict.fromkeys(gpu for _, series in model.panels for _, _, gpu, _ in series if gpu != "published"))
    for ax, (title, series) in zip(axes.flat, model.panels):
        for impl, input, gpu, ratios in series:
            style, marker = INPUT_STYLES.get(input, ("-.", "D"))
            ax.plot(list(ratios), list(ratios.values()), style, marker=kernels[impl] if several else marker,
                    color=series_color(impl, gpu, several),
                    label=f"{impl}, {input}" + (f", {model.gpus[gpu]}" if several else ""), **layered(gpu, gpus))
        ax.set_title(title, loc="left")
        ax.grid(alpha=0.3, linewidth=0.5)
        ax.set_xticks(offsets[::4])
        ax.set_xlabel("bins' offset past a 2 MiB boundary, bytes")
    handles = [h for ax in axes.flat for h in ax.get_legend_handles_labels()[0]]
    fig.legend(handles, [h.get_label() for h in handles], loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=(1 if several else 2) if width == COLUMN else (2 if several else 3), handlelength=2.2,
               columnspacing=1.2)
    fig.supylabel("time over the fastest offset", fontsize=plt.rcParams["axes.labelsize"])
    fig.suptitle("Each kernel's time against where its bins lie", fontsize=plt.rcParams["axes.titlesize"])
    fig.subplots_adjust(hspace=0.6, wspace=0.25, top=0.9 if width == COLUMN else 0.84,
                        bottom=0.11 if width == COLUMN else 0.2)
    return fig


# ---- CUDA 13.0 over CUDA 12.6, per kernel ----

def _interval(ax, c, y, colour, hollow):
    ax.errorbar(c.ratio, y, xerr=[[c.ratio - c.ci_low], [c.ci_high - c.ratio]], fmt="s" if hollow else "o",
                color=colour, markerfacecolor="white" if hollow else colour, capsize=1.5, elinewidth=0.8)


RATIO_TICKS = [0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2.0, 2.5, 3.0, 4.0, 5.0]   # every step labelled


def figure_middle(fig, ax):
    """The figure's horizontal middle in the axes' coordinates: a title centred there rather than over the axes,
    which a wide left margin (long y labels) pushes right."""
    box = ax.get_position()
    return (0.5 - box.x0) / box.width


def versions_figure(model, width):
    """model: [VersionRows], a GPU's each: its kernels' A/B and A/A intervals on a row each, a GPU beside another
    in its own colour where there are several."""
    several = len(model) > 1
    kernels = list(dict.fromkeys(label for rows in model for label, *_ in rows.rows))
    lines = len(kernels) * (1 + 0.6 * (len(model) - 1))
    fig, ax = new_figure(width, 0.9 + 0.24 * max(lines, 1), left=0.36 if width == COLUMN else 0.18)
    step = 0.7 / len(model)
    for j, rows in enumerate(model):
        shift = (j - (len(model) - 1) / 2) * step
        for label, ab, aa, published in rows.rows:
            y, colour = kernels.index(label) + shift, gpu_color(rows.index) if several else color(label)
            _interval(ax, ab, y - 0.15 / len(model), colour, hollow=False)
            if aa:
                _interval(ax, aa, y + 0.15 / len(model), colour, hollow=True)
            if published and j == 0:
                ax.plot(published, kernels.index(label), "D", color=PUBLISHED_COLOR if several else colour,
                        markerfacecolor="white", markersize=4.5)
    first = model[0]
    ax.axvspan(1 / first.band, first.band, color="0.92", zorder=0, linewidth=0)
    ax.axvline(1.0, color="0.3", linewidth=0.6)
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator(RATIO_TICKS))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ratios = [x for rows in model for _, ab, aa, p in rows.rows for x in (ab.ci_low, ab.ci_high, p, aa and aa.ci_high)
              if x]
    ax.set_xlim(min(0.97, min(ratios, default=1) * 0.98), max(1.08, max(ratios, default=1) * 1.05))
    ax.set_yticks(range(len(kernels)), kernels)
    ax.set_ylim(len(kernels) - 0.5, -0.5)
    ax.set_xlabel("newer CUDA's time over the older's (log)")
    ax.set_title(f"Each kernel's time, CUDA {first.versions[1]} over {first.versions[0]}", x=figure_middle(fig, ax))
    ours = [(gpu_color(rows.index), f"{rows.gpu}, 95% CI") for rows in model] if several else \
        [("0.3", f"{first.ours}, 95% CI")]
    for colour, text in ours:
        ax.plot([], [], "o", color=colour, markerfacecolor=colour, label=text)
    for marker, text in (("s", "A/A control: a toolchain over its own repeat"), ("D", first.published)):
        ax.plot([], [], marker, color=PUBLISHED_COLOR if several and marker == "D" else "0.3",
                markerfacecolor="white", label=text)
    ax.fill_between([], [], color="0.92", label=f"same within {first.band:.2f}x")
    legend_below(fig, ax, width, (1, 2))
    return fig


# ---- the contention sweep ----

def sweep_figure(model, width):
    fig, ax = new_figure(width, 2.9 if width == COLUMN else 3.0, left=0.24 if width == COLUMN else 0.12)
    published = model.published
    several = several_gpus(s.gpu for s in model.series)
    kernels = markers_of(s.impl for s in model.measured)
    gpus = list(dict.fromkeys(s.gpu for s in model.measured))
    for s in model.series:
        ks = sorted(s.values)
        colour = series_color(s.impl, s.gpu, several)
        if s.gpu == "published":
            marker = MARKERS[published.index(s) % len(MARKERS)]
            ax.plot(ks, [s.values[k] for k in ks], "--", marker=marker, color=colour, markerfacecolor="white",
                    linewidth=0.8, label=f"{s.impl}, {s.whose}")
        else:
            ax.plot(ks, [s.values[k] for k in ks], "-", marker=kernels[s.impl] if several else "o", color=colour,
                    alpha=1.0, label=f"{s.impl}, {s.whose}", **layered(s.gpu, gpus))
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
    legend_below(fig, ax, width, (1, 3) if several else (2, 3))
    return fig


# ---- performance at 1 GiB: percent of the read floor per input ----

def perf_figure(model, width):
    """model: [PerfBars], a GPU's each. One GPU: a bar per implementation and input. Several: a panel per
    implementation, a bar per GPU and input, each GPU's ceilings in its colour."""
    if len(model) == 1:
        return _perf_one(model[0], width)
    impls = list(dict.fromkeys(impl for bars in model for impl in bars.impls))
    inputs = list(dict.fromkeys(i for bars in model for i in bars.inputs))
    fig, axes = new_figure(width, 1.5 * len(impls) + 1.2, nrows=len(impls), ncols=1, sharex=True, squeeze=False)
    step = 0.8 / len(model)
    top = max([100.0] + [level for bars in model for level, _ in bars.ceilings])
    for ax, impl in zip(axes[:, 0], impls):
        for j, bars in enumerate(model):
            xs = [i + (j - (len(model) - 1) / 2) * step for i in range(len(inputs))]
            ax.bar(xs, [bars.pcts.get(impl, {}).get(i) or 0 for i in inputs], step * 0.92, color=gpu_color(bars.index),
                   label=bars.gpu)
            for k, (level, label) in enumerate(bars.ceilings):
                ax.axhline(level, color=gpu_color(bars.index), linestyle="-.", linewidth=0.7,
                           label=f"{bars.gpu}: shared-memory ceilings" if k == 0 else None)
        for (level, label), style in zip(model[0].targets, ("--", ":")):
            ax.axhline(level, color="black", linestyle=style, linewidth=0.8, label=label.split(" (")[0])
        ax.set_title(impl, loc="left")
        ax.set_ylim(0, top * 1.08)
        ax.grid(axis="y", alpha=0.3, linewidth=0.5)
    axes[-1, 0].set_xticks(range(len(inputs)), [i.replace("distinct_", "d") for i in inputs], rotation=45,
                           ha="right", rotation_mode="anchor")
    fig.supylabel(f"% of {model[0].floor}'s GB/s on the same GPU", fontsize=plt.rcParams["axes.labelsize"])
    fig.suptitle(f"Percent of each GPU's read floor per input, {model[0].size}",
                 fontsize=plt.rcParams["axes.titlesize"])
    fig.subplots_adjust(hspace=0.45, top=0.93, bottom=0.09)
    legend_below(fig, axes[0, 0], width, (1, 3))
    return fig


def _perf_one(model, width):
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


SIZE_STYLES = {"floor": ":", "subject": "-", "peer": "--"}   # a role's line where several GPUs share a panel


def _gpu_size_lines(time_ax, pct_ax, model, input, index):
    """One GPU's lines where several share the panels: its colour, a line style per role."""
    for role in SIZE_ROLES:
        found = model.series(input, role)
        time_ax.plot([s for s, _ in found], [t.median_us for _, t in found], SIZE_STYLES[role], marker="o",
                     markersize=2.5, color=gpu_color(index))
        if role != "floor":
            pct_ax.plot([s for s, _ in found], [t.pct_of_floor for _, t in found], SIZE_STYLES[role], marker="o",
                        markersize=2.5, color=gpu_color(index))
    time_ax.set_yscale("log")
    log_ticks(time_ax.yaxis, subs=(1,))
    pct_ax.axhline(100, color="black", linewidth=0.8)
    pct_ax.set_ylim(0, 110)


def _gpu_size_legend(model):
    """The legend where several GPUs share the panels: a GPU a colour, a role a line style."""
    names = model[0][2].names
    return ([Line2D([], [], color=gpu_color(index), label=label) for index, label, _ in model]
            + [Line2D([], [], color="black", linestyle=SIZE_STYLES[role], label=names[role]) for role in SIZE_ROLES])


def sizes_figure(model, width):
    """model: [(GPU index, label, SizesModel)]. Per input a time panel (log-log) and a percent-of-floor panel (log x):
    an input a row at one column, an input a column at full width. One GPU: its kernels in their colours, p10..p90
    shaded, the theoretical bandwidth; several: a colour per GPU, a line style per kernel, each to its own floor."""
    first, several = model[0][2], len(model) > 1
    inputs = list(dict.fromkeys(i for _, _, z in model for i in z.inputs))
    sizes = sorted({size for _, _, z in model for size in z.sizes})
    n, column = len(inputs), width == COLUMN
    shape = (n, 2) if column else (2, n)
    fig, axes = new_figure(width, 1.6 * n + 0.7 if column else 4.0, left=0.17 if column else 0.08,
                           nrows=shape[0], ncols=shape[1], squeeze=False)
    panels = [(axes[i, 0], axes[i, 1]) if column else (axes[0, i], axes[1, i]) for i in range(n)]
    for k, (input, (time_ax, pct_ax)) in enumerate(zip(inputs, panels)):
        if several:
            for index, _, z in model:
                _gpu_size_lines(time_ax, pct_ax, z, input, index)
        else:
            _time_panel(time_ax, first, input)
            _pct_panel(pct_ax, first, input)
        for ax in (time_ax, pct_ax) if column else (time_ax,):
            ax.set_title(input, loc="left")
        for ax in (time_ax, pct_ax):
            _size_axis(ax, sizes)
            ax.tick_params(axis="x", labelrotation=90 if column else 0)
        if column or k == 0:
            time_ax.set_ylabel("median per run, us (log)")
            pct_ax.set_ylabel(f"% of {first.names['floor']}'s GB/s")
    for ax in axes[-1, :]:
        ax.set_xlabel("input size (log)")
    if several:
        handles = _gpu_size_legend(model)
    else:
        handles = panels[0][0].get_legend_handles_labels()[0] + panels[0][1].get_legend_handles_labels()[0]
    fig.legend(handles, [h.get_label() for h in handles], loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=1 if column else 3, handlelength=2.2, columnspacing=1.2)
    fig.suptitle("Time and percent of the read floor against the input's size",
                 fontsize=plt.rcParams["axes.titlesize"])
    fig.subplots_adjust(hspace=0.6 if column else 0.35, wspace=0.45 if column else 0.25,
                        top=0.91 if column else 0.9, bottom=0.11 if column else 0.12)
    return fig
