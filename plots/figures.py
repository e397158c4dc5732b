"""The figures, each written as PNG, SVG and PDF.

Determinism: the Agg backend, a fixed SVG hash salt, no dates or software
strings in the metadata, so the same data and the same matplotlib give the
same bytes (tests compare only that the files exist).
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator  # noqa: E402

from plots import lesson, perf, placement, stats, sweep, versions  # noqa: E402
from plots.results import find_rows, kernel_label  # noqa: E402

FORMATS = ("png", "svg", "pdf")
METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
            "pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None}}
PUBLISHED_STYLE = {"color": "0.55", "hatch": "//", "edgecolor": "0.3"}

plt.rcParams.update({"svg.hashsalt": "histostudy", "font.size": 9, "axes.titlesize": 10, "legend.fontsize": 8,
                     "figure.dpi": 110, "savefig.dpi": 150, "axes.spines.top": False, "axes.spines.right": False})


def save(fig, out_dir, name):
    """Writes name.png/.svg/.pdf under out_dir; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in FORMATS:
        path = out_dir / f"{name}.{ext}"
        fig.savefig(path, format=ext, metadata=METADATA[ext], bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    return paths


def note(ax, text):
    """A 'not measurable here' message where a panel has no data."""
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", wrap=True, color="0.3")


def _colors(n):
    """tab10 without its gray, which marks published figures."""
    cmap = plt.get_cmap("tab10")
    palette = [cmap(i) for i in range(10) if i != 7]
    return [palette[i % len(palette)] for i in range(n)]


def log_ticks(axis):
    """Log-axis ticks at 1, 2, 5 x 10^k, labelled as plain numbers."""
    axis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


# ---- lesson: baseline and privatized times, log scale ----

def lesson_figure(run, published, out_dir):
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    t4 = lesson.baseline_source(published)
    views = [lesson.LessonView(run, tc, size) for tc, size in lesson.table_keys(run)] if run else []
    inputs = list(dict.fromkeys(i for v in views for i in v.inputs))
    sources = [("T4 " + t4.cuda + " (published)", None)] + [(v.toolchain, v) for v in views]
    width = 0.8 / len(sources)
    for ax, which, title in ((axes[0], "base", "baseline: global atomics (CPU: reference)"),
                             (axes[1], "private", "privatized: per_block (CPU: openmp_private)")):
        ax.set_title(title)
        if not views:
            note(ax, "not measurable here: no run with lesson rows")
            continue
        for s, ((label, view), color) in enumerate(zip(sources, _colors(len(sources)))):
            if view is None:
                metric = "global_ms" if which == "base" else "private_ms"
                heights = [t4.get(metric, i) for i in inputs]
                style = PUBLISHED_STYLE
            else:
                impl = view.base if which == "base" else view.private
                heights = [view.ms(impl, i) for i in inputs]
                style = {"color": color}
            xs = [i + (s - (len(sources) - 1) / 2) * width for i in range(len(inputs))]
            present = [(x, h) for x, h in zip(xs, heights) if h]
            if present:
                ax.bar([x for x, _ in present], [h for _, h in present], width, label=label, **style)
        ax.set_xticks(range(len(inputs)), inputs)
        ax.set_yscale("log")
        log_ticks(ax.yaxis)
        ax.grid(axis="y", which="major", alpha=0.3)
    axes[0].set_ylabel("median time per run, ms (log)")
    axes[1].set_ylabel("ms (log)")
    handles, labels = axes[1].get_legend_handles_labels() if views else ([], [])
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 5), bbox_to_anchor=(0.5, -0.08))
    fig.suptitle(f"The lesson's table as bars ({run.name if run else 'no run'}); prose: our own text, not the lesson's",
                 fontsize=9, y=1.02)
    return save(fig, out_dir, "lesson")


# ---- sweep: Mpix/s against distinct values ----

def primary_gpu_toolchain(run):
    return next((tc for tc in run.toolchains(controls=False) if tc != "cpu"), None)


def sweep_figure(run, published, out_dir):
    fig, ax = plt.subplots(figsize=(9, 4.6))
    for (label, values), marker in zip(sweep.published_series(published).items(), "osD^v"):
        ks = sorted(values)
        ax.plot(ks, [values[k] for k in ks], linestyle="--", marker=marker, color="0.5", markerfacecolor="white",
                label=label)
    shown = primary_gpu_toolchain(run) if run else None
    series = {label: v for label, v in (sweep.our_series(run) if run else {}).items()
              if label.endswith(f"({shown})") or label.endswith("(cpu)")}
    for (label, values), color, marker in zip(series.items(), _colors(len(series)), "o^vsPX*hd<>" * 3):
        ks = sorted(values)
        style = ":" if label.startswith(("read_floor", "openmp_read_floor", "sum_bytes")) else "-"
        ax.plot(ks, [values[k] for k in ks], style, marker=marker, markersize=4, color=color, label=label)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(published.distinct_values))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.invert_xaxis()  # Table 16-4 reads from 256 distinct values down to 1
    ax.set_yscale("log")
    log_ticks(ax.yaxis)
    ax.set_xlabel("distinct byte values in the input")
    ax.set_ylabel("Mpix/s (million bytes per second, log)")
    ax.grid(which="major", alpha=0.3)
    gpu_note = f"GPU toolchain shown: {shown}" if shown else "not measurable here: no GPU sweep rows"
    ax.set_title(f"Contention sweep ({run.name if run else 'no run'}; {gpu_note}); dotted: readers, not histograms")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    return save(fig, out_dir, "sweep")


# ---- versions: ratio with interval per kernel, the A/A pair's beside ----

AA_STYLE = {"fmt": "s", "color": "0.45", "markersize": 4, "capsize": 2}


def _ratio_bar(ax, comparison, y, **style):
    c = comparison
    ax.errorbar(c.ratio, y, xerr=[[c.ratio - c.ci_low], [c.ci_high - c.ratio]], **style)


def versions_figure(run, published, out_dir, not_yet, input="uniform"):
    fig, ax = plt.subplots(figsize=(7, 4.4))
    labels, y = [], 0
    pairs = versions.pairs_in(run) if run else []
    aa_labelled = withheld_labelled = False
    for (base_tc, new_tc), color in zip(pairs, _colors(len(pairs))):
        first = True
        for c in versions.comparisons(run, base_tc, new_tc):
            if c.base["input"] != input:
                continue
            withheld = c.verdict in (stats.WITHHELD_AA, stats.WITHHELD_NO_AA)
            _ratio_bar(ax, c.ab, y, fmt="o", color=color, capsize=3, markerfacecolor="white" if withheld else color,
                       label=f"A/B: {new_tc} / {base_tc}" if first else None)
            if withheld and not withheld_labelled:
                ax.plot([], [], "o", color="0.3", markerfacecolor="white", label="hollow: verdict withheld")
                withheld_labelled = True
            if c.aa:
                _ratio_bar(ax, c.aa, y + 0.3, label=None if aa_labelled else f"A/A: {versions.aa_label(run)}",
                           **AA_STYLE)
                aa_labelled = True
            labels.append(kernel_label(c.base))
            first, y = False, y + 1
    for k, row in enumerate(versions.published_table(published).rows):
        kernel, old, new = row[0], float(row[3]), float(row[5])
        ax.plot(new / old, y, "D", color="0.4", markerfacecolor="white",
                label=f"{row[4]} / {row[2]} (published)" if k == 0 else None)
        labels.append(f"{kernel} (T4, published)")
        y += 1
    if not pairs:
        ax.text(0.5, 0.5, f"ours: {not_yet}", transform=ax.transAxes, ha="center", va="center", color="0.3",
                wrap=True, bbox={"facecolor": "white", "edgecolor": "0.8"})
    ax.axvline(1.0, color="0.2", linewidth=0.8)
    ax.axvspan(1 / stats.DEFAULT_BAND, stats.DEFAULT_BAND, color="0.9", zorder=0,
               label=f"'same' band (within {stats.DEFAULT_BAND:.2f}x)")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    fig.set_size_inches(7, 2.0 + 0.25 * len(labels))
    ax.set_xlabel("median time over the other's (A/B above 1: newer is slower); bars: 95% bootstrap CI")
    ax.set_title(f"CUDA versions compared on {input} ({run.name if pairs else 'published figures only'})", pad=24)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return save(fig, out_dir, "versions")


# ---- placement: median time against the bins offset ----

def placement_figure(run, out_dir, not_yet):
    found = placement.effects(run) if run else []
    kernels = list(dict.fromkeys(e.kernel for e in found))
    inputs = list(dict.fromkeys(e.input for e in found))
    fig, axes = plt.subplots(max(len(kernels), 1), max(len(inputs), 1), squeeze=False,
                             figsize=(3.6 * max(len(inputs), 1), 2.2 * max(len(kernels), 1) + 0.8))
    if not found:
        note(axes[0, 0], not_yet)
        axes[0, 0].set_axis_off()
        return save(fig, out_dir, "placement")
    toolchains = list(dict.fromkeys(s.toolchain for e in found for s in e.series))
    colors = dict(zip(toolchains, _colors(len(toolchains))))
    ticks = placement.offsets_of(run)[::4]
    for e in found:
        ax = axes[kernels.index(e.kernel), inputs.index(e.input)]
        for s in e.series:
            offsets, low, high = list(s.rows), s.band(10), s.band(90)
            style = "--" if s.control else "-"
            ax.plot(offsets, list(s.medians().values()), style, marker=".", color=colors[s.toolchain],
                    label=s.toolchain)
            ax.fill_between(offsets, list(low.values()), list(high.values()), color=colors[s.toolchain], alpha=0.2,
                            linewidth=0)
        ax.set_title(f"{e.kernel}, {e.input}")
        ax.set_xticks(ticks)
        ax.grid(alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel("median ms")
    for ax in axes[-1, :]:
        ax.set_xlabel("bins offset past 2 MiB, bytes")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(f"Median time against the bins offset, band p10..p90 ({run.name})", y=1.03)
    fig.tight_layout()
    return save(fig, out_dir, "placement")


# ---- percent of the read floor ----

def _floor_rows(run, toolchain, size):
    return [r for r in find_rows(run, toolchain=toolchain, size=size) if r["experiment"] in
            lesson.LESSON_EXPERIMENTS and r["pct_of_floor"] is not None and r["impl"] != r["floor_impl"]]


def floor_figure(run, out_dir):
    # The CPU and the first GPU toolchain: the other toolchains' figures are in the tables.
    shown = ("cpu", primary_gpu_toolchain(run)) if run else ()
    keys = [(tc, size) for tc, size in lesson.table_keys(run) if tc in shown] if run else []
    panels = [(tc, size, _floor_rows(run, tc, size)) for tc, size in keys]
    sizes = [max(len({kernel_label(r) for r in rows}), 1) for _, _, rows in panels] or [1]
    fig, axes = plt.subplots(len(sizes), 1, figsize=(8, 1.0 + 0.4 * sum(sizes) + 0.6 * len(sizes)),
                             squeeze=False, gridspec_kw={"height_ratios": sizes})
    inputs = list(dict.fromkeys(r["input"] for _, _, rows in panels for r in rows))
    colors = dict(zip(inputs, _colors(len(inputs))))
    for ax, (toolchain, size, rows) in zip(axes[:, 0], panels):
        impls = list(dict.fromkeys(kernel_label(r) for r in rows))
        height = 0.8 / max(len(inputs), 1)
        for j, input in enumerate(inputs):
            values = {kernel_label(r): r["pct_of_floor"] for r in rows if r["input"] == input}
            ys = [i + (j - (len(inputs) - 1) / 2) * height for i in range(len(impls))]
            xs = [values.get(k, 0) for k in impls]
            ax.barh(ys, xs, height, color=colors[input], label=input)
            for x, y_ in zip(xs, ys):
                if 0 < x < 3:  # too short to see: print the value
                    ax.text(x + 0.5, y_, f"{x:.2f}%", va="center", fontsize=6, color="0.3")
        ax.set_yticks(range(len(impls)), impls)
        ax.set_ylim(len(impls) - 0.5, -0.5)
        ax.set_xlim(0, 110)
        ax.axvline(100, color="0.2", linewidth=0.8)
        ax.set_title(f"{toolchain}: percent of the read floor ({rows[0]['floor_impl'] if rows else '-'}, same run)")
        ax.grid(axis="x", alpha=0.3)
    if not keys:
        note(axes[0, 0], "not measurable here: no run with lesson rows")
    else:
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=len(labels), bbox_to_anchor=(0.5, 1.0))
    axes[-1, 0].set_xlabel("GB/s as a percent of the read floor's GB/s on the same input")
    fig.tight_layout()
    return save(fig, out_dir, "floor")


# ---- performance: percent of the read floor per input, the newest perf run ----

def perf_figure(run, out_dir):
    fig, ax = plt.subplots(figsize=(10, 4.6))
    if run is None:
        note(ax, "not measurable here: no run with GPU perf rows")
        return save(fig, out_dir, "perf")
    view = perf.PerfView(run)
    width = 0.8 / max(len(view.impls), 1)
    top = 100.0
    for j, (impl, color) in enumerate(zip(view.impls, _colors(len(view.impls)))):
        xs = [i + (j - (len(view.impls) - 1) / 2) * width for i in range(len(view.inputs))]
        ys = [view.pct(impl, input) or 0 for input in view.inputs]
        ax.bar(xs, ys, width, color=color, label=impl)
        if impl == perf.SUBJECT:  # the thresholds are its: print its figures
            for x, y_ in zip(xs, ys):
                if y_ > 15:  # inside the bar's top, clear of the threshold lines
                    ax.text(x, y_ - 2, f"{y_:.1f}%", ha="center", va="top", fontsize=7, rotation=90, color="white")
    ax.axhline(100, color="0.2", linewidth=0.8)
    for need, style in ((perf.HIGH_PCT, "--"), (perf.LOW_PCT, ":")):
        applies = [i for i in view.inputs if perf.required_pct(i) == need]
        ax.axhline(need, color="black", linestyle=style, linewidth=1.1,
                   label=f"issue 6: {need:g}% ({len(applies)} inputs: " + ", ".join(
                       i.replace("distinct_", "d") for i in applies) + ")")
    floor = view.floor_median()
    levels = {}  # patterns whose ceilings agree to 0.1% of floor share one line
    for rate in view.shared_rates():
        levels.setdefault(round(100 * rate["ceiling_gbps"] / floor, 1), []).append(rate.get("pattern", "?"))
    for (level, patterns), style in zip(levels.items(), ("-.", (0, (1, 1)), (0, (5, 1)))):
        top = max(top, level)
        ax.axhline(level, color="tab:red", linestyle=style, linewidth=1.1,
                   label=f"{' = '.join(patterns)} ceiling (one update per byte): {level:.1f}% of floor")
    ax.set_xticks(range(len(view.inputs)), view.inputs, rotation=35, ha="right")
    ax.set_ylim(0, top * 1.08)
    ax.set_ylabel(f"GB/s as % of {view.floor} (same input, same run)")
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(f"Percent of the read floor at {view.size:,} bytes, {view.toolchain} ({run.name})")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2)
    return save(fig, out_dir, "perf")


def all_figures(sel, published, out_dir, not_yet):
    """Every figure from the runs `sel` (plots/selection.py) picks; not_yet: {figure: why it has no data}."""
    return (lesson_figure(sel.lesson, published, out_dir) + sweep_figure(sel.sweep, published, out_dir)
            + versions_figure(sel.version, published, out_dir, not_yet["versions"])
            + floor_figure(sel.lesson, out_dir) + perf_figure(sel.perf, out_dir)
            + placement_figure(sel.placement, out_dir, not_yet["placement"]))

