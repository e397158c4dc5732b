"""The fleet report: one run on many GPUs (or Slurm tasks), device beside device.

    python3 -m plots.fleet DIR_OR_FILE... [-o REPORT.md [--force] | -o FOLDER/] [--band 1.05]

Reads every result file under the folders named (recursively) and groups them
by run id: `histostudy run --device all` gives each GPU's file the same id,
tools/slurm_fleet.sh gives every task of an array job one. For each run it
lists its parts (file, host, Slurm task, GPU by index, name, UUID and PCI bus
id), says which tasks of a Slurm array have no result, and then, per kernel x
input x size x toolchain and per device model, sets the spread across devices
of one model beside the spread within one device:

- across: the slowest device's median over the fastest's, with the percentile
  bootstrap interval of that ratio (plots/stats.py);
- within: the largest gap of an A/A control (the toolchain measured again as an
  independent executor on the same device, same case: rows labelled
  "(A/A control)", `control_of` naming the toolchain they repeat) over the
  devices, and the widest p10..p90 spread of one device's samples.

The verdict: "agree" where the slowest/fastest interval lies within the band
(default +-5%): device-to-device variation does not matter for a claim larger
than that; "differ" where the interval lies above it and beyond every A/A gap,
each A/A pair itself the same within the band: then a claim about this kernel
holds for one device, not the model; else why it cannot be told. The slowest
and fastest are picked after the fact, so with many devices "differ" near the
band's edge is to be read with care.

Files without a run id are listed and left out: they were not measured as one
run. A file that cannot be read (malformed, nested too deep, or contradicting
itself) is named on standard error and in the report, and left out; the exit
status is then 1 (2 when nothing could be read, or the report cannot be
written). -o writes a new file (an existing one only with --force), or fleet.md
into a folder swapped in whole with its SHA256SUMS (plots/output.py).
"""
import argparse
import os
import pathlib
import sys
from collections import defaultdict
from dataclasses import dataclass

from plots import cli, output, stats
from plots import table as fmt
from plots.results import (ResultError, aa_comparison, case_key, is_control, is_timed, load_run, path_text,
                           policy_label, run_order_key)
from plots.environment import cpu_name
from plots.table import Table

NO_RUN_ID = None
REPORT = "fleet.md"   # the report's name in an -o folder


@dataclass(frozen=True)
class Part:
    """One result file of a run: one GPU's (or one task's) share."""
    run: object   # plots.results.Run
    shown: str    # the path as the report names it

    @property
    def variables(self):
        return self.run.environment.get("host", {}).get("variables") or {}

    @property
    def host(self):
        return self.run.environment.get("host", {}).get("hostname") or "host not recorded"

    @property
    def task(self):
        """'array job 17 task 3', 'job 17', or None outside Slurm."""
        v = self.variables
        if "SLURM_ARRAY_JOB_ID" in v:
            return f"array job {v['SLURM_ARRAY_JOB_ID']} task {v.get('SLURM_ARRAY_TASK_ID', '?')}"
        return f"job {v['SLURM_JOB_ID']}" if "SLURM_JOB_ID" in v else None

    @property
    def gpus(self):
        """The GPUs its rows ran on, in order: dicts of index, uuid, name, pci_bus_id."""
        found = {}
        for row in self.run.rows:
            if row["backend"] == "cuda" and row.get("device"):
                found.setdefault(row["device"].get("uuid"), row["device"])
        return list(found.values())


def member_of(part, row):
    """(model, label) of the device a row ran on: a GPU by its name and index, the CPU by its model and host."""
    if row["backend"] == "cuda":
        d = row.get("device") or {}
        return d.get("name") or "GPU not recorded", f"{part.host} GPU {d.get('index', '?')}"
    model = cpu_name(part.run.environment)
    task = part.variables.get("SLURM_ARRAY_TASK_ID")
    return model, part.host + (f" task {task}" if task is not None else "")


# ---- reading ----------------------------------------------------------------

def result_paths(targets):
    """(path, shown) of every .json file under each folder named (recursively), and each file named."""
    found = []
    for target in map(pathlib.Path, targets):
        if target.is_dir():
            found += [(p, path_text(p)) for p in sorted(target.rglob("*.json")) if p.is_file()]
        else:
            found.append((target, path_text(target)))
    return found


def read_parts(targets):
    """([Part], [problem line]) of the files named or found; a file that cannot be read is a problem line."""
    parts, problems = [], []
    for path, shown in result_paths(targets):
        try:
            parts.append(Part(load_run(path, shown), shown))
        except ResultError as e:
            problems.append(str(e))
    return parts, problems


def by_run_id(parts):
    """{run id: [Part], oldest first}, files without a run id under NO_RUN_ID."""
    groups = defaultdict(list)
    for part in sorted(parts, key=lambda p: (run_order_key(p.shown), p.shown)):
        groups[part.run.doc.get("run_id", NO_RUN_ID)].append(part)
    return dict(groups)


# ---- a run's parts ------------------------------------------------------------

def gpu_words(gpus):
    return "; ".join(f"GPU {g.get('index', '?')}: {g.get('name', '?')}, {g.get('uuid', '?')}, PCI "
                     f"{g.get('pci_bus_id', '?')}" for g in gpus) or "CPU only"


def parts_table(run_id, parts):
    t = Table(f"Run {run_id}: {len(parts)} result files", ["file", "host", "Slurm", "GPU", "started", "rows",
                                                            "checks failed", "note"], align="lllllrrl")
    for p in parts:
        rows = p.run.rows
        failed = sum(not r["check"]["passed"] for r in rows)
        note = f"incomplete: {p.run.incomplete}" if p.run.incomplete else ""
        t.rows.append([p.shown, p.host, p.task or "-", gpu_words(p.gpus), p.run.doc["started"], len(rows), failed,
                       note])
    commits = sorted({str(p.run.doc["provenance"].get("git_commit")) for p in parts})
    if len(commits) > 1:
        t.notes.append(f"The parts were built from {len(commits)} commits ({', '.join(commits)}): "
                       "a difference between them may be the code's, not the device's.")
    return t


def slurm_arrays(parts):
    """{array job id: (task count or None, {task id: [Part]})} of the parts an array job made."""
    arrays = {}
    for p in parts:
        v = p.variables
        if "SLURM_ARRAY_JOB_ID" not in v:
            continue
        count, tasks = arrays.setdefault(v["SLURM_ARRAY_JOB_ID"], (None, defaultdict(list)))
        tasks[v.get("SLURM_ARRAY_TASK_ID", "?")].append(p)
        if v.get("SLURM_ARRAY_TASK_COUNT", "").isdigit():
            arrays[v["SLURM_ARRAY_JOB_ID"]] = (int(v["SLURM_ARRAY_TASK_COUNT"]), tasks)
    return arrays


def expected_tasks(variables):
    """The task ids of an array min..max by step, where its count says it has no gaps; else None."""
    try:
        low, high = int(variables["SLURM_ARRAY_TASK_MIN"]), int(variables["SLURM_ARRAY_TASK_MAX"])
        step, count = int(variables.get("SLURM_ARRAY_TASK_STEP", 1)), int(variables["SLURM_ARRAY_TASK_COUNT"])
    except (KeyError, ValueError):
        return None
    ids = [str(i) for i in range(low, high + 1, max(step, 1))]
    return ids if len(ids) == count else None


def slurm_lines(parts):
    """A line per Slurm array job: how many of its tasks left a result, and which did not."""
    lines = []
    for job, (count, tasks) in slurm_arrays(parts).items():
        some = next(iter(tasks.values()))[0].variables
        expected = expected_tasks(some)
        missing = [t for t in expected if t not in tasks] if expected else []
        total = count if count is not None else "?"
        line = f"Slurm array job {job}: {len(tasks)} of {total} tasks left result files"
        if missing:
            line += f"; no result from task{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
        elif count is not None and len(tasks) < count:
            line += "; some tasks left none"
        lines.append(line + ".")
    return lines


# ---- device beside device -----------------------------------------------------

@dataclass(frozen=True)
class Member:
    label: str
    row: dict
    run: object

    @property
    def median(self):
        return stats.median(self.row["samples_ms"])

    @property
    def aa(self):
        """The A/A control's comparison over this row, same device, same case; None without one."""
        return aa_comparison(self.run, self.row)

    @property
    def sample_spread(self):
        """(p90 - p10) / median of this device's samples."""
        s = self.row["samples_ms"]
        return (stats.percentile(s, 90) - stats.percentile(s, 10)) / self.median


def cases(parts):
    """{(case key, toolchain, model): [Member]} of every timed row that is not an A/A control, in row order."""
    grouped = defaultdict(list)
    for part in parts:
        for row in part.run.rows:
            if is_timed(row) and not is_control(row):
                model, label = member_of(part, row)
                grouped[(case_key(row), row["toolchain"], model)].append(Member(label, row, part.run))
    return grouped


@dataclass(frozen=True)
class Spread:
    members: list
    across: object      # stats.Comparison of the slowest over the fastest; None for one member
    aa: list            # each member's A/A comparison (None where it has none)
    verdict: str


def spread(members, band):
    ranked = sorted(members, key=lambda m: m.median)
    aa = [m.aa for m in members]
    if len(members) < 2:
        return Spread(ranked, None, aa, "one device: nothing to compare")
    across = stats.compare_samples(ranked[0].row["samples_ms"], ranked[-1].row["samples_ms"], band)
    return Spread(ranked, across, aa, verdict_words(across, aa, band))


def largest_gap(comparisons):
    return max(abs(c.ratio - 1) for c in comparisons)


def verdict_words(across, aa, band):
    edge = f"+-{(band - 1) * 100:.0f}%"
    if across.verdict == stats.SAME:
        return f"agree within {edge}"
    if across.verdict == stats.AMBIGUOUS:
        return f"cannot tell: the interval straddles {edge}"
    if any(c is None for c in aa):
        return "differ, but with no A/A control to tell it from run-to-run change"
    if any(c.verdict != stats.SAME for c in aa):
        return f"differ, but an A/A pair differs beyond {edge} too: withheld"
    if across.ratio - 1 <= largest_gap(aa):
        return "withheld: within the largest A/A gap"
    return "differ beyond the A/A: the device matters"


def within_words(s):
    present = [c for c in s.aa if c is not None]
    if not present:
        return "no A/A control"
    words = f"{fmt.pct(largest_gap(present) * 100)}"
    if len(present) < len(s.aa):
        words += f" ({len(s.aa) - len(present)} without one)"
    not_same = sum(c.verdict != stats.SAME for c in present)
    return words + (f", {not_same} not same" if not_same else "")


def spread_table(parts, band):
    t = Table("Across devices of one model beside within one device",
              ["experiment", "kernel", "input", "size", "toolchain", "model", "devices", "fastest .. slowest ms",
               "across: slowest/fastest [95%]", "within: largest A/A gap", "within: p10..p90",
               "verdict"], align="lllllllrrrrl")
    for (key, toolchain, model), members in cases(parts).items():
        s = spread(members, band)
        row = members[0].row
        fastest, slowest = s.members[0], s.members[-1]
        medians = (fmt.ms(fastest.median) + f" ({fastest.label})" if s.across is None else
                   f"{fmt.ms(fastest.median)} ({fastest.label}) .. {fmt.ms(slowest.median)} ({slowest.label})")
        across = (fmt.MISSING if s.across is None else
                  f"{s.across.ratio:.3f} [{fmt.interval(s.across.ci_low, s.across.ci_high)}]")
        t.rows.append([row["experiment"], f"{row['impl']} {policy_label(row)}".strip(), row["input"],
                       fmt.size_words(row["size"]), toolchain, model, len(members), medians, across, within_words(s),
                       fmt.pct(max(m.sample_spread for m in members) * 100), s.verdict])
    t.notes += [f"Across: the slowest device's median over the fastest's, with its percentile bootstrap interval; "
                f"within: the largest |A/A - 1| over the devices (the toolchain measured again on the same device, "
                f"same case) and the widest (p90 - p10) / median of one device's samples. Band +-"
                f"{(band - 1) * 100:.0f}%.",
                "The slowest and fastest are picked after the fact: with many devices, read a 'differ' near the "
                "band's edge with care."]
    return t


def failed_lines(parts):
    return [f"{p.shown}: {r['impl']} on {r['input']} ({r['toolchain']}) FAILED its check: {r['check']['detail']}"
            for p in parts for r in p.run.rows if not r["check"]["passed"]]


# ---- the report ---------------------------------------------------------------

def report(parts, problems, targets, band=stats.DEFAULT_BAND):
    groups = by_run_id(parts)
    out = ["# Fleet report", "",
           f"Made by `python3 -m plots.fleet {' '.join(map(path_text, targets))}` from {len(parts)} result files "
           f"({fmt.plural(len(groups) - (NO_RUN_ID in groups), 'run')}).", ""]
    for run_id, run_parts in groups.items():
        if run_id is NO_RUN_ID:
            continue
        out += [f"## Run {run_id}", "", parts_table(run_id, run_parts).markdown()]
        out += [f"- {line}" for line in slurm_lines(run_parts) + failed_lines(run_parts)]
        out += ["", spread_table(run_parts, band).markdown()]
    if NO_RUN_ID in groups:
        out += ["## Files without a run id (left out: not measured as one run)", ""]
        out += [f"- {p.shown}" for p in groups[NO_RUN_ID]] + [""]
    if problems:
        out += ["## Files that could not be read", ""] + [f"- {line}" for line in problems] + [""]
    return "\n".join(out).rstrip("\n") + "\n"


def band_value(text):
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 1.0 < value < 10.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a ratio above 1 (for example 1.05: +-5%)")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m plots.fleet", description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="+", metavar="DIR_OR_FILE", help="result files, or folders of them")
    parser.add_argument("-o", "--output", help=f"write the Markdown report to this new file, or as {REPORT} into "
                                               "this folder (an existing one, or one ending in /) (default: "
                                               "standard output)")
    parser.add_argument("-f", "--force", action="store_true", help="-o FILE: replace an existing file")
    parser.add_argument("--band", type=band_value, default=stats.DEFAULT_BAND,
                        help=f"devices within this ratio agree (default {stats.DEFAULT_BAND})")
    args = parser.parse_args(argv)
    missing = [t for t in args.targets if not pathlib.Path(t).exists()]
    if missing:
        print(f"fleet: {missing[0]}: no such file or folder", file=sys.stderr)
        return 2
    parts, problems = read_parts(args.targets)
    for line in problems:
        print(f"fleet: {line}", file=sys.stderr)
    if not parts:
        print(f"fleet: no result file could be read in {' '.join(map(path_text, args.targets))}", file=sys.stderr)
        return 2
    text = report(parts, problems, args.targets, args.band)
    status = write_report(text, args.output, args.force)
    if status:
        return status
    if args.output:
        print(f"fleet: {args.output}: {len(parts)} result files", file=sys.stderr)
    return 1 if problems else 0


def write_report(text, out, force):
    """The report to standard output, to the file `out` or into the folder `out` (plots/output.py: an existing
    file only with --force, a folder only where all of it is an earlier report's); the exit status, 0 where
    written. Raises OutputError."""
    if out and (out.endswith(("/", os.sep)) or pathlib.Path(out).is_dir()):
        return output.render("fleet", out, lambda folder: (folder / REPORT).write_text(text, encoding="utf-8"), 2)[0]
    if out:
        output.write_file(out, text, replace=force)
    else:
        output.write_stdout(text)
    return 0


if __name__ == "__main__":
    sys.exit(cli.guarded("fleet", main))
