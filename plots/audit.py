"""The regression audit: is B slower than A, row by row, each row judged against its own noise.

    ./dev audit A.json B.json [--threshold 1.10] [--impl NAME] [--input NAME] [--experiment NAME] [--toolchain NAME]
    ./dev audit RUN.json --between OLD NEW [...]    one run's toolchain OLD against its toolchain NEW

`./dev audit OLD NEW` (two NVRTC releases) measures both in one run, then runs the second form.

Rows pair by what was measured (experiment, implementation, input, size, launch policy, bins offset). Two
files' toolchains pair by name, then by kind whatever their versions (nvcc with nvcc, an NVRTC library with
an NVRTC library, a release's SASS with SASS, its PTX through the driver with the same, a library's own call
with the same library's: torch with torch, tools/peers.py): the report prints the pairing. Every verdict is the ratio of medians B/A with its bootstrap interval against the band
[1/threshold, threshold] (plots/stats.py), and stands only where the row's noise was measured and found
inside the same band:
  - the A/A control: the run's toolchain measured twice, as two executors, on the same case (each run's,
    where it has one);
  - else the read floor the row names (floor_impl), same case, in both runs: an uncontrolled row, such as a
    CPU row, is judged only where its floor, measured in the same rotation, did not move.
A row whose noise is unmeasured or outside the band is "not judged", named with its reason, and is neither
a regression nor a pass.

Exit status: 1 for a regression: a row that failed its bin check in either run (listed first), a row of A
with no counterpart in B (unless the comparison was narrowed with --impl, --input, --experiment or
--toolchain), or a judged row slower beyond the threshold; 0 when no row regressed and at least one was
judged; 2 when the audit cannot judge: an unusable file or argument, no row in common, or no row judged.
"""
import argparse
import math
import re
import sys
from dataclasses import dataclass, field

from plots import cli, stats
from plots import table as fmt
from plots.environment import commit_line, differences, gpu_line, show
from plots.output import OutputError, write_stdout
from plots.results import (ResultError, aa_comparison, case_key, cuda_version, is_control, is_timed, load_run,
                           module_entry, policy_label)
from plots.table import Table

DEFAULT_THRESHOLD = 1.10
REGRESSION, PASSED, UNUSABLE = 1, 0, 2
NOT_JUDGED = "not judged"


class AuditError(Exception):
    """An audit that cannot be made: one line, exit 2."""


# ---- toolchains --------------------------------------------------------------

def toolchain_kind(toolchain):
    """What pairs across versions: 'nvcc', 'nvrtc', 'nvrtc SASS sm_90', 'nvrtc PTX via the driver compute_90', 'cpu'."""
    entry = module_entry(toolchain)
    if entry:
        _, kind, arch = entry
        return f"nvrtc {kind} {arch}"
    return toolchain.split()[0]


def _version_order(toolchain):
    return (cuda_version(toolchain) or (0, 0), toolchain)


def pair_toolchains(a_toolchains, b_toolchains):
    """{toolchain of A: toolchain of B, its reason}: the same name first, then the same kind in version order."""
    pairs = {t: (t, "same") for t in a_toolchains if t in b_toolchains}
    kinds = dict.fromkeys(toolchain_kind(t) for t in a_toolchains)
    for kind in kinds:
        left_a = sorted((t for t in a_toolchains if t not in pairs and toolchain_kind(t) == kind), key=_version_order)
        taken = {b for b, _ in pairs.values()}
        left_b = sorted((t for t in b_toolchains if t not in taken and toolchain_kind(t) == kind), key=_version_order)
        for a, b in zip(left_a, left_b):
            pairs[a] = (b, f"by kind: {kind}")
    return pairs


def resolve_toolchain(run, name):
    """The run's toolchain that `name` means: its label ('nvrtc 13.1.115'), 'nvcc', or an NVRTC release
    ('13.1', 'nvrtc-13.1', 'nvrtc:13.1')."""
    toolchains = run.toolchains(controls=False)
    if name in toolchains:
        return name
    release = re.fullmatch(r"(?:nvrtc[-:])?(\d+)\.(\d+)", name)
    found = [t for t in toolchains
             if (name == "nvcc" and toolchain_kind(t) == "nvcc")
             or (release and toolchain_kind(t) == "nvrtc" and cuda_version(t) == (int(release[1]), int(release[2])))]
    if len(found) != 1:
        raise AuditError(f"{run.path}: {'no' if not found else 'more than one'} toolchain {name!r} among its "
                         f"toolchains ({', '.join(toolchains)})")
    return found[0]


# ---- what is compared ----------------------------------------------------------

@dataclass(frozen=True)
class Scope:
    """The user's narrowing: empty sets compare every row."""
    impls: frozenset = frozenset()
    inputs: frozenset = frozenset()
    experiments: frozenset = frozenset()
    toolchains: frozenset = frozenset()

    @property
    def narrowed(self):
        return bool(self.impls or self.inputs or self.experiments or self.toolchains)

    def holds(self, row):
        return all(not allowed or row[key] in allowed for key, allowed in
                   (("impl", self.impls), ("input", self.inputs), ("experiment", self.experiments)))


@dataclass
class Plan:
    """Which toolchain of A pairs with which of B, and where each side's rows come from."""
    run_a: object
    run_b: object
    pairs: dict                  # {toolchain of A: (toolchain of B, why)}
    within: bool = False         # one run's two toolchains: one A/A control serves both sides
    unpaired: list = field(default_factory=list)   # toolchains of A with no counterpart in B

    def pairing_lines(self):
        if self.within:
            (a, (b, _)), = self.pairs.items()
            return [f"Compared within one run: {a} (A) against {b} (B), sampled in rotation on the same buffers."]
        lines = ["Toolchains paired (A -> B): " + "; ".join(f"{a} -> {b} ({why})" for a, (b, why) in self.pairs.items())]
        if self.unpaired:
            lines.append("Toolchains of A with no counterpart in B: " + ", ".join(self.unpaired))
        return lines


def files_plan(run_a, run_b, scope):
    a_tcs = [t for t in run_a.toolchains(controls=False) if not scope.toolchains or t in scope.toolchains]
    pairs = pair_toolchains(a_tcs, run_b.toolchains(controls=False))
    return Plan(run_a, run_b, pairs, unpaired=[t for t in a_tcs if t not in pairs])


def within_plan(run, old, new):
    a, b = resolve_toolchain(run, old), resolve_toolchain(run, new)
    if a == b:
        raise AuditError(f"{old} and {new} name the same toolchain of {run.path} ({a})")
    return Plan(run, run, {a: (b, "named")}, within=True)


# ---- each row's noise ----------------------------------------------------------

@dataclass(frozen=True)
class Noise:
    """What a row's verdict is checked against: a comparison that must be 'same', and what it is."""
    what: str                    # 'A/A in A', 'read floor', ...
    comparison: object           # stats.Comparison, or None where it is missing


def _floor_row(run, row, toolchain):
    """The timed row of `row`'s read floor in `run`: same experiment, input and size, under `toolchain` (the CPU's
    in the row's own rotation, whatever its threads), with the row's threads where there are several."""
    floor = row.get("floor_impl")
    found = [r for r in run.rows if floor and r["impl"] == floor and r["toolchain"] == toolchain and is_timed(r)
             and (r["experiment"], r["input"], r["size"]) == (row["experiment"], row["input"], row["size"])]
    return next((r for r in found if r["policy"]["threads"] == row["policy"]["threads"]), found[0] if found else None)


def row_noise(plan, row_a, row_b, band):
    """The A/A pairs of the row's case (each run's; one where both sides are one run), else its read floor B/A."""
    runs = ((plan.run_a, row_a),) if plan.within else ((plan.run_a, row_a), (plan.run_b, row_b))
    pairs = [Noise(f"A/A in {'the run' if plan.within else label}", aa_comparison(run, row, band))
             for label, (run, row) in zip("AB", runs)]
    present = [n for n in pairs if n.comparison]
    if present:
        return present
    floor_a, floor_b = _floor_row(plan.run_a, row_a, row_a["toolchain"]), _floor_row(plan.run_b, row_b, row_b["toolchain"])
    if not (floor_a and floor_b):
        return [Noise("no A/A control, no read floor in both", None)]
    return [Noise(f"read floor {floor_a['impl']}",
                  stats.compare_samples(floor_a["samples_ms"], floor_b["samples_ms"], band))]


# ---- rows ---------------------------------------------------------------------

@dataclass(frozen=True)
class Judged:
    a: dict
    b: dict
    comparison: object           # stats.Comparison of B over A, or None where not timed
    noise: tuple                 # Noise, each
    why_not: str = ""            # why the row is not judged; '' where it is

    @property
    def verdict(self):
        return NOT_JUDGED if self.why_not else self.comparison.verdict


def judge(plan, row_a, row_b, band):
    if not (row_a["samples_ms"] and row_b["samples_ms"]):
        side = "A" if not row_a["samples_ms"] else "B"
        return Judged(row_a, row_b, None, (), f"every sample in {side} throttled")
    comparison = stats.compare_samples(row_a["samples_ms"], row_b["samples_ms"], band)
    noise = tuple(row_noise(plan, row_a, row_b, band))
    missing = [n.what for n in noise if not n.comparison]
    moved = [f"{n.what} {n.comparison.ratio:.3f}x, {n.comparison.verdict}" for n in noise
             if n.comparison and n.comparison.verdict != stats.SAME]
    why = missing[0] if missing else ("noise outside the band: " + "; ".join(moved) if moved else "")
    return Judged(row_a, row_b, comparison, noise, why)


def _wanted(row, scope):
    return scope.holds(row) and not is_control(row)


def row_name(row):
    return " ".join(x for x in (row["experiment"], row["impl"], policy_label(row), row["toolchain"], row["input"],
                                f"{row['size']:,} B") if x)


@dataclass
class Findings:
    failed: list          # rows (either run) whose bin check failed
    missing: list         # rows of A with no counterpart in B
    judged: list          # Judged, each
    only_b: list          # rows of B with no counterpart in A


def _side_toolchains(plan):
    """(toolchains of A, toolchains of B) the audit answers for, A/A controls counted with the toolchain they
    repeat: every one of B where two files are compared whole."""
    a = set(plan.pairs) | set(plan.unpaired)
    b = {b for b, _ in plan.pairs.values()}
    if not plan.within and len(a) == len(plan.run_a.toolchains(controls=False)):
        b = set(plan.run_b.toolchains(controls=False))
    return (a | b, a | b) if plan.within else (a, b)


def _failed_rows(plan, scope):
    """(run, row) of every row in scope whose bin check failed, A's first (one run's once)."""
    runs = ((plan.run_a,),) if plan.within else ((plan.run_a,), (plan.run_b,))
    failed = []
    for (run,), toolchains in zip(runs, _side_toolchains(plan)):
        failed += [(run, r) for r in run.rows if scope.holds(r) and not r["check"]["passed"]
                   and (r["toolchain"] in toolchains or r.get("control_of") in toolchains)]
    return failed


def find(plan, scope, band):
    b_rows = {(case_key(r), r["toolchain"]): r for r in plan.run_b.rows if _wanted(r, scope) and r["check"]["passed"]}
    failed = _failed_rows(plan, scope)
    failed_b = {(case_key(r), r["toolchain"]) for run, r in failed if run is plan.run_b}
    judged, missing = [], []
    for row in plan.run_a.rows:
        if not (_wanted(row, scope) and row["toolchain"] in plan.pairs and row["check"]["passed"]):
            continue
        key = (case_key(row), plan.pairs[row["toolchain"]][0])
        other = b_rows.pop(key, None)
        if other:
            judged.append(judge(plan, row, other, band))
        elif key not in failed_b:  # a failed check is named as such, not as missing
            missing.append(row)
    missing += [r for r in plan.run_a.rows if _wanted(r, scope) and r["check"]["passed"]
                and r["toolchain"] in plan.unpaired]
    only_b = [] if plan.within else [r for r in b_rows.values() if r["toolchain"] in _side_toolchains(plan)[1]]
    return Findings(failed, missing, judged, only_b)


# ---- the report -----------------------------------------------------------------

def grouped(rows):
    """'sweep global (nvcc 13.0.88): 13 rows, on distinct_1 ... uniform' a line for each experiment, impl and toolchain."""
    groups = {}
    for r in rows:
        groups.setdefault((r["experiment"], r["impl"], r["toolchain"]), []).append(r)
    lines = []
    for (experiment, impl, toolchain), members in groups.items():
        inputs = list(dict.fromkeys(r["input"] for r in members))
        shown = ", ".join(inputs) if len(inputs) <= 4 else f"{inputs[0]} ... {inputs[-1]} ({len(inputs)} inputs)"
        lines.append(f"{experiment} {impl} ({toolchain}): {len(members)} row{'s' * (len(members) > 1)}, on {shown}")
    return lines


def host_cell(row):
    """What the rest of the host did while a CPU row's rotation ran: 'load 2.1, others 0.3 cores, steal 0%'."""
    h = row.get("host_load")
    if not h:
        return fmt.MISSING if row["backend"] == "cpu" else ""
    seconds = max(h["seconds"], 1e-9)
    load = h["loadavg_1m"][-1]
    parts = [f"load {load:.1f}" if load is not None else "load -", f"others {h['other_processes_cpu_s'] / seconds:.1f} cores"]
    if h["steal_s"] > 0:
        parts.append(f"steal {h['steal_s'] / seconds / max(h['cores'], 1):.0%}")
    return ", ".join(parts)


def _noise_cell(noise):
    return "; ".join(f"{n.what} {fmt.ratio(n.comparison.ratio, 3)} ({fmt.interval(n.comparison.ci_low, n.comparison.ci_high)})"
                     if n.comparison else n.what for n in noise) or fmt.MISSING


def rows_table(judged, with_host):
    rows = []
    for j in judged:
        c = j.comparison
        toolchain = j.a["toolchain"] if j.a["toolchain"] == j.b["toolchain"] else f"{j.a['toolchain']} -> {j.b['toolchain']}"
        cells = [j.a["experiment"], j.a["impl"], policy_label(j.a), toolchain, j.a["input"], f"{j.a['size']:,}",
                 fmt.ms(c and c.base_median), fmt.ms(c and c.new_median), fmt.ratio(c and c.ratio, 3),
                 fmt.interval(c.ci_low, c.ci_high) if c else fmt.MISSING, _noise_cell(j.noise)]
        if with_host:
            cells.append(f"{host_cell(j.a)} | {host_cell(j.b)}" if j.a["backend"] == "cpu" else "")
        cells.append(j.verdict.upper() if j.verdict == stats.SLOWER else j.verdict)
        rows.append(cells)
    columns = ["experiment", "impl", "policy", "toolchain", "input", "bytes", "A ms", "B ms", "B/A",
               f"{stats.CONFIDENCE:.0%} CI", "noise (must be same)"] + (["host A | B"] if with_host else []) + ["verdict"]
    return Table("Rows measured in both (B/A of medians; above 1: B is slower)", columns, rows,
                 align="llllll" + "rrrr" + "l" * (len(columns) - 10))


def header(label, run):
    gpus = sorted({gpu_line(run, tc) for tc in run.toolchains() if tc != "cpu"}) or [gpu_line(run, None)]
    return (f"{label}: {run.path}\n   started {run.doc['started']}, commit {commit_line(run.doc['provenance'])}, "
            f"toolchains {', '.join(run.toolchains())}; GPU {'; '.join(gpus)}")


def environment_lines(run_a, run_b):
    changes = differences(run_a.doc, run_b.doc)
    lines = ["Environment changes (A -> B):"]
    if not changes:
        lines.append("  none: both environments are recorded identically (start and end times aside)")
    current = None
    for category, key, a, b in changes:
        if category != current:
            lines.append(f"  {category}:")
            current = category
        lines.append(f"    {key}: {show(a)} -> {show(b)}")
    return lines


def placement_lines(judged):
    moved = [j for j in judged if j.a["backend"] == "cuda" and (j.a.get("placement") or {}).get("bins_mod_2mib")
             != (j.b.get("placement") or {}).get("bins_mod_2mib")]
    if not moved:
        return []
    return [f"PLACEMENT: {len(moved)} GPU rows have their bins placed differently in A and B (or not recorded): "
            "their ratios may measure where the bins lay, not the change: " + ", ".join(row_name(j.a) for j in moved[:5])
            + (" ..." if len(moved) > 5 else "")]


def verdict_lines(findings, threshold, scope):
    """The closing lines and the exit status."""
    counts = {v: sum(j.verdict == v for j in findings.judged)
              for v in (stats.SLOWER, stats.FASTER, stats.SAME, stats.AMBIGUOUS, NOT_JUDGED)}
    summary = (f"{len(findings.judged)} rows compared: {counts['slower']} slower, {counts['faster']} faster, "
               f"{counts['same']} same, {counts['ambiguous']} ambiguous, {counts[NOT_JUDGED]} not judged "
               f"(band {threshold:.2f}x; rules: ./dev audit --help)")
    reasons = []
    if findings.failed:
        reasons.append(f"{len(findings.failed)} rows failed their bin check")
    if findings.missing and not scope.narrowed:
        reasons.append(f"{len(findings.missing)} rows of A are missing from B")
    if counts[stats.SLOWER]:
        reasons.append(f"{counts['slower']} rows are slower beyond {threshold:.2f}x")
    if reasons:
        return [f"REGRESSION: {'; '.join(reasons)}. {summary}"], REGRESSION
    judged = len(findings.judged) - counts[NOT_JUDGED]
    if not judged:
        why = "no row in common" if not findings.judged else "no row could be judged against its noise"
        return [f"CANNOT JUDGE: {why}. {summary}"], UNUSABLE
    return [f"No regression beyond {threshold:.2f}x among the {judged} judged rows. {summary}"], PASSED


def report(plan, findings, threshold, scope):
    """The audit's lines and its exit status."""
    lines = [header("A", plan.run_a)]
    if not plan.within:
        lines += [header("B", plan.run_b), ""] + environment_lines(plan.run_a, plan.run_b)
    lines += [""] + plan.pairing_lines() + [""]
    for run, row in findings.failed:
        side = "the run" if plan.within else ("A" if run is plan.run_a else "B")
        lines.append(f"CHECK FAILED in {side} ({run.name}): {row_name(row)}: "
                     f"{row['check'].get('detail') or 'bins differ from the reference'}")
    if findings.missing:
        state = "not compared: the comparison is narrowed" if scope.narrowed else "MISSING from B"
        lines.append(f"{len(findings.missing)} rows of A {state}:")
        lines += [f"  {group}" for group in grouped(findings.missing)]
    if findings.failed or findings.missing:
        lines.append("")
    if findings.judged:
        with_host = any(j.a["backend"] == "cpu" for j in findings.judged)
        lines.append(rows_table(findings.judged, with_host).text())
    not_judged = [j for j in findings.judged if j.verdict == NOT_JUDGED]
    if not_judged:
        lines.append(f"Not judged ({len(not_judged)}), neither a regression nor a pass:")
        lines += [f"  {row_name(j.a)}: {j.why_not}" for j in not_judged]
    if findings.only_b:
        lines.append(f"{len(findings.only_b)} rows only in B (new, not compared): "
                     + ", ".join(sorted({f"{r['impl']} ({r['toolchain']})" for r in findings.only_b})))
    lines += placement_lines(findings.judged)
    closing, status = verdict_lines(findings, threshold, scope)
    if not findings.judged and not findings.failed and not plan.within:
        closing.insert(0, f"No row pairs: A's toolchains {', '.join(plan.run_a.toolchains(controls=False))}; B's "
                          f"{', '.join(plan.run_b.toolchains(controls=False))}; pairs by name or kind: "
                          f"{len(plan.pairs)}. Narrow with --toolchain, --impl, --input or --experiment.")
    return lines + closing, status


def audit(plan, threshold, scope):
    return report(plan, find(plan, scope, threshold), threshold, scope)


# ---- the command line -------------------------------------------------------------

def threshold(text):
    """A finite ratio above 1: nan, inf (or 1e400, which parses as inf) would let every row pass."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 1.0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite ratio above 1 (for example 1.10: 10% slower)")
    return value


def names(values):
    return frozenset(n for item in values for n in item.split(",") if n)


def parser():
    p = argparse.ArgumentParser(prog="./dev audit", description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 3)[3], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", help="the baseline result file (with --between: the one run)")
    p.add_argument("b", nargs="?", help="the result file to audit")
    p.add_argument("--between", nargs=2, metavar=("OLD", "NEW"),
                   help="compare two toolchains of one run: labels ('nvrtc 13.0.88'), nvcc, or releases (13.0)")
    p.add_argument("--threshold", type=threshold, default=DEFAULT_THRESHOLD,
                   help=f"slower beyond this ratio fails: a finite number above 1 (default {DEFAULT_THRESHOLD})")
    for options, what in ((("-i", "--impl"), "implementations"), (("--input",), "inputs"),
                          (("-e", "--experiment"), "experiments"), (("--toolchain",), "toolchains of A (labels)")):
        p.add_argument(*options, action="append", default=[], help=f"only these {what} (repeat, or separate by commas)")
    return p


def plan_of(args, scope):
    if args.between:
        if args.b:
            raise AuditError("--between compares two toolchains of one run: name one result file")
        run = load_run(args.a)
        return within_plan(run, *args.between)
    if not args.b:
        raise AuditError("name two result files (A B), or one with --between OLD NEW")
    return files_plan(load_run(args.a), load_run(args.b), scope)


def incomplete_warnings(plan):
    runs = (plan.run_a,) if plan.within else (plan.run_a, plan.run_b)
    return [f"audit: warning: {run.path} is incomplete, the run stopped on an error ({run.incomplete}); only the "
            "rows it measured before are compared" for run in runs if run.incomplete]


def main(argv=None):
    args = parser().parse_args(argv)
    scope = Scope(names(args.impl), names(args.input), names(args.experiment), names(args.toolchain))
    try:
        plan = plan_of(args, scope)
        lines, status = audit(plan, args.threshold, scope)
    except (ResultError, AuditError) as e:
        print(f"audit: {e}", file=sys.stderr)
        return UNUSABLE
    for warning in incomplete_warnings(plan):
        print(warning, file=sys.stderr)
    try:
        write_stdout("\n".join(lines) + "\n")
    except OutputError as e:
        print(f"audit: {e}; its verdict was exit {status}", file=sys.stderr)
        return UNUSABLE
    return status


if __name__ == "__main__":
    sys.exit(cli.guarded("audit", main))
