"""The regression audit: run B against run A.

    python3 -m plots.compare A.json B.json [--threshold 1.10] [--impl NAME ...]

First what changed between the two environments (toolchains, driver, GPU,
clocks, flags, host, commit), by category; then every row measured in both
(same experiment, implementation, toolchain, input, size and launch policy)
with the ratio of medians B/A, its bootstrap interval, the Mann-Whitney p and
a verdict against the threshold.

The study's controls: where both runs carry an A/A control entry (a toolchain
measured again as an independent executor), each row shows each run's A/A
ratio (the control over the toolchain it repeats, same case) and its
interval, and a verdict stands only where both A/A pairs are the same within
the threshold; else it is withheld (a case neither run repeated, such as the
CPU's, keeps its verdict). A/A control rows serve as that and are not
compared themselves. Every GPU row whose bins lay elsewhere in B than in
A (bins_mod_2mib differs, or a run recorded no placement) is flagged: its
ratio may measure where the bins lay rather than the change.

Exit status: 1 when some row is slower beyond the threshold (its whole
interval lies above it, its verdict not withheld), 0 when none is, 2 for an
unusable file or when the two runs have no row in common (a gate that
compares nothing must not pass).

Toolchains are matched by name; one left over in A is matched with one left
over in B of the same compiler and CUDA major (nvcc 13.0.88 with nvcc 13.1.x),
so a toolkit update compares the same kernels.
"""
import argparse
import math
import sys
from dataclasses import dataclass

from plots import stats
from plots import table as fmt
from plots.environment import commit_line, differences, gpu_line, show, toolchain_slot
from plots.results import ResultError, aa_comparison, case_key, is_control, is_timed, load_run, policy_label
from plots.table import Table

DEFAULT_THRESHOLD = 1.10


def pair_toolchains(a_toolchains, b_toolchains):
    """{toolchain in A: toolchain in B}: same name first, then same slot among the rest."""
    pairs = {t: t for t in a_toolchains if t in b_toolchains}
    left_b = [t for t in b_toolchains if t not in pairs.values()]
    for a in (t for t in a_toolchains if t not in pairs):
        same_slot = [b for b in left_b if toolchain_slot(b) == toolchain_slot(a)]
        if len(same_slot) == 1:
            pairs[a] = same_slot[0]
            left_b.remove(same_slot[0])
    return pairs


def match_rows(run_a, run_b, impls=None):
    """([(row A, row B)], rows only in A, rows only in B) of timed rows, A/A controls left out."""
    def wanted(row):
        return is_timed(row) and not is_control(row) and (not impls or row["impl"] in impls)
    pairs = pair_toolchains(run_a.toolchains(controls=False), run_b.toolchains(controls=False))
    b_rows = {(case_key(r), r["toolchain"]): r for r in run_b.rows if wanted(r)}
    matched, only_a = [], []
    for row in filter(wanted, run_a.rows):
        found = b_rows.pop((case_key(row), pairs.get(row["toolchain"])), None)
        (matched.append((row, found)) if found else only_a.append(row))
    return matched, only_a, list(b_rows.values())


def has_controls(run):
    return any(is_control(r) for r in run.rows)


def controls_line(run_a, run_b):
    """One line where a run lacks A/A controls: its verdicts then stand unchecked."""
    lacking = [label for label, run in (("A", run_a), ("B", run_b)) if not has_controls(run)]
    if not lacking:
        return None
    return (f"A/A controls: {' and '.join(lacking)} {'has' if len(lacking) == 1 else 'have'} none (a run made "
            "before the study's controls, or of one toolchain), so no verdict is checked against an A/A pair.")


def placement_change(row_a, row_b):
    """'' where the bins lay alike (or on the CPU, which has none); else what differs."""
    if row_a["backend"] != "cuda":
        return ""
    missing = [label for label, row in (("A", row_a), ("B", row_b)) if not row.get("placement")]
    if missing:
        return f"DIFFERS: not recorded in {' and '.join(missing)}"
    a, b = row_a["placement"]["bins_mod_2mib"], row_b["placement"]["bins_mod_2mib"]
    return "" if a == b else f"DIFFERS: bins {a:,} -> {b:,} mod 2 MiB"


def environment_report(run_a, run_b):
    lines = ["Environment changes (A -> B):"]
    changes = differences(run_a.doc, run_b.doc)
    if not changes:
        lines.append("  none: both environments are recorded identically (start and end times aside)")
    current = None
    for category, key, a, b in changes:
        if category != current:
            lines.append(f"  {category}:")
            current = category
        lines.append(f"    {key}: {show(a)} -> {show(b)}")
    return "\n".join(lines) + "\n"


def row_label(row_a, row_b):
    toolchain = row_a["toolchain"] if row_a["toolchain"] == row_b["toolchain"] else \
        f"{row_a['toolchain']} -> {row_b['toolchain']}"
    return [row_a["experiment"], row_a["impl"], policy_label(row_a), toolchain, row_a["input"]]


@dataclass(frozen=True)
class RowComparison:
    a: dict
    b: dict
    comparison: stats.Comparison      # B over A
    controls: tuple                   # (A/A in A, A/A in B), or () where a run has no controls
    placement: str                    # placement_change

    @property
    def verdict(self):
        return stats.guarded_verdict(self.comparison, self.controls) if self.controls else self.comparison.verdict


def _controls(run_a, run_b, a, b, threshold):
    """Both runs' A/A comparisons of the row's case where both runs carry controls and one has a pair for
    it; () where no verdict can be checked (a run without controls, or a case neither repeated: the CPU's)."""
    if not (has_controls(run_a) and has_controls(run_b)):
        return ()
    pair = (aa_comparison(run_a, a, threshold), aa_comparison(run_b, b, threshold))
    return pair if any(pair) else ()


def compare_rows(run_a, run_b, matched, threshold):
    return [RowComparison(a, b, stats.compare_samples(a["samples_ms"], b["samples_ms"], threshold),
                          _controls(run_a, run_b, a, b, threshold), placement_change(a, b)) for a, b in matched]


def _aa_cell(aa):
    return f"{fmt.ratio(aa.ratio, 3)} ({fmt.interval(aa.ci_low, aa.ci_high)})" if aa else fmt.MISSING


def rows_report(found):
    """The table of matched rows and their comparisons."""
    rows = []
    for r in found:
        c, aa = r.comparison, r.controls or (None, None)
        rows.append(row_label(r.a, r.b) + [fmt.ms(c.base_median), fmt.ms(c.new_median), fmt.ratio(c.ratio, 3),
                                           fmt.interval(c.ci_low, c.ci_high), fmt.p_value(c.p_value),
                                           _aa_cell(aa[0]), _aa_cell(aa[1]), r.placement,
                                           r.verdict.upper() if r.verdict == stats.SLOWER else r.verdict])
    return Table("Rows measured in both (B/A of medians; above 1: B is slower)",
                 ["experiment", "impl", "policy", "toolchain", "input", "A ms", "B ms", "B/A",
                  f"{stats.CONFIDENCE:.0%} CI", "p", "A/A in A", "A/A in B", "placement", "verdict"], rows,
                 align="lllllrrrrrrrll")


def header(label, run):
    gpus = sorted({gpu_line(run, tc) for tc in run.toolchains() if tc != "cpu"}) or [gpu_line(run, None)]
    return (f"{label}: {run.path}\n   started {run.doc['started']}, commit {commit_line(run.doc['provenance'])}, "
            f"toolchains {', '.join(run.toolchains())}; GPU {'; '.join(gpus)}\n")


def compare(run_a, run_b, threshold=DEFAULT_THRESHOLD, impls=None, out=sys.stdout):
    """Prints the audit; returns the exit status."""
    out.write(header("A", run_a) + header("B", run_b) + "\n" + environment_report(run_a, run_b) + "\n")
    matched, only_a, only_b = match_rows(run_a, run_b, impls)
    if not matched:
        out.write("No timed row is measured in both runs: nothing to compare.\n")
        return 2
    found = compare_rows(run_a, run_b, matched, threshold)
    out.write(rows_report(found).text() + "\n")
    for label, rows in (("only in A", only_a), ("only in B", only_b)):
        if rows:
            out.write(f"{len(rows)} rows {label} (not compared): " + ", ".join(
                sorted({f"{r['impl']} ({r['toolchain']})" for r in rows})) + "\n")
    if controls_line(run_a, run_b):
        out.write(controls_line(run_a, run_b) + "\n")
    moved = sum(bool(r.placement) for r in found)
    if moved:
        out.write(f"PLACEMENT: {moved} of {len(found)} rows have their bins placed differently in A and B (column "
                  "placement): their ratios may measure where the bins lay, not the change.\n")
    counts = {v: sum(r.verdict == v for r in found) for v in (stats.SLOWER, stats.FASTER, stats.SAME,
                                                             stats.AMBIGUOUS)}
    withheld = sum(r.verdict in (stats.WITHHELD_AA, stats.WITHHELD_NO_AA) for r in found)
    summary = (f"{len(found)} rows compared: {counts['slower']} slower, {counts['faster']} faster, "
               f"{counts['same']} same, {counts['ambiguous']} ambiguous, {withheld} withheld (band "
               f"{threshold:.2f}x; verdict rules: plots/stats.py)")
    if counts[stats.SLOWER]:
        out.write(f"REGRESSION: {counts['slower']} rows are slower beyond {threshold:.2f}x. {summary}\n")
        return 1
    out.write(f"No regression beyond {threshold:.2f}x. {summary}\n")
    return 0


def threshold(text):
    """A finite ratio above 1: nan, inf (or 1e400, which parses as inf) would let every row pass."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 1.0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite ratio above 1 (for example 1.10: 10% slower)")
    return value


def incomplete_warning(label, run):
    """One line for a run that stopped on an error: its rows are what it measured before."""
    return (f"compare: warning: {label} ({run.path}) is incomplete, the run stopped on an error ({run.incomplete}); "
            "only the rows it measured before are compared")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m plots.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="the baseline result file")
    parser.add_argument("b", help="the result file to audit")
    parser.add_argument("--threshold", type=threshold, default=DEFAULT_THRESHOLD,
                        help=f"slower beyond this ratio fails: a finite number above 1 (default {DEFAULT_THRESHOLD})")
    parser.add_argument("--impl", action="append", default=[],
                        help="only these implementations (repeat, or separate by commas)")
    args = parser.parse_args(argv)
    impls = {name for item in args.impl for name in item.split(",") if name}
    try:
        run_a, run_b = load_run(args.a), load_run(args.b)
    except ResultError as e:
        print(f"compare: {e}", file=sys.stderr)
        return 2
    for label, run in (("A", run_a), ("B", run_b)):
        if run.incomplete:
            print(incomplete_warning(label, run), file=sys.stderr)
    return compare(run_a, run_b, args.threshold, impls)


if __name__ == "__main__":
    sys.exit(main())
