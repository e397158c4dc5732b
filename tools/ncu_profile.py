#!/usr/bin/env python3
"""histostudy under Nsight Compute: hardware counters behind every case, as a profile result file.

    tools/ncu_profile.py [--set lesson,gib,placement] [--toolchain SPEC]... [-o DIR] [--raw DIR]
                     [--histostudy build/histostudy] [--ncu ncu] [--timeout SECONDS]
    ./dev profile [ARGS]                                                  (the same)

For each toolchain (nvcc, nvrtc:/path/libnvrtc.so.N, modules:DIR: each entry of a modules directory on its own)
and each set, one `histostudy run` under `ncu`, clocks left alone (--clock-control none), caches flushed before
every profiled kernel (ncu's --cache-control all, the default), every GPU implementation:

  lesson     the lesson experiment: the lesson's inputs at its size, partitioned with P = 1, 2, 4, 8
  gib        the same inputs at 1 GiB, P = 4
  placement  global atomics on uniform bytes with the bins at every offset of the placement sweep

Each case runs twice, its check and one sample (--warmups 0 --reps 1 --max-reps 1 --lesson-reps 0), inside the
NVTX range histostudy names after it (study/driver/case_range.hpp): every launch is attributed to its case by that name.
The harness's clock probe is not profiled. The result, DIR/<date>_<gpu>_profile.json (default data/profiles/;
written whole, never over an earlier file), holds ncu's version and command lines, the metrics asked and those
this GPU or ncu does not have, the environment record of the run (as a result file has it), and per case the
declared counts of its result row, each launch's metric values and, per run, the sums and their median.

No ncu, counters the user may not read (ERR_NVGPUCTRPERM), a histostudy that cannot run: one line, exit 1.
A metric this GPU does not have: a line, and the metric left out (the report shows its column as skipped).
"""
import argparse
import datetime
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(1, str(pathlib.Path(__file__).resolve().parent.parent))
import ncu_csv  # noqa: E402
import new_file  # noqa: E402
from plots.counters import roles_registry  # noqa: E402  (stdlib only, as this tool)

REPO = pathlib.Path(__file__).resolve().parent.parent
FORMAT = "histostudy-profile"
SCHEMA_VERSION = 1

# The counters the report reads (plots/counters.py), by what they show; names as `ncu --query-metrics` lists
# them on the H200 (ncu 2025.3). smsp__sass_data_bytes_*: bytes the active threads' instructions move, so a
# reduction's count is its bytes over the counter width: the thread-level count the study declares.
METRICS = (
    "gpu__time_duration.sum",                                        # kernel duration
    "sm__warps_active.avg.pct_of_peak_sustained_active",             # achieved occupancy
    "dram__bytes_read.sum", "dram__bytes_write.sum",                 # DRAM traffic
    "lts__t_sectors_srcunit_tex_op_read.sum",                        # what the SMs read from L2, 32 B sectors
    "smsp__sass_data_bytes_mem_global_op_ld.sum",                    # bytes the global loads ask for
    "smsp__sass_inst_executed_op_global_red.sum", "smsp__sass_inst_executed_op_global_atom.sum",
    "smsp__sass_data_bytes_mem_global_op_red.sum", "smsp__sass_data_bytes_mem_global_op_atom.sum",
    "lts__t_requests_srcunit_tex_op_red.sum", "lts__t_requests_srcunit_tex_op_red.max",
    "lts__t_sectors_srcunit_tex_op_red.sum", "lts__t_sectors_srcunit_tex_op_red.max",
    "lts__t_requests_srcunit_tex_op_atom.sum",                       # global atomics reaching L2
    "lts__d_atomic_input_cycles_active.sum", "lts__d_atomic_input_cycles_active.max",
    "lts__cycles_elapsed.avg",                                       # the L2 slices' atomic units, busy
    "lts__t_requests_srcunit_ltcfabric.sum",                         # requests between the two L2 partitions
    "smsp__sass_inst_executed_op_shared_atom.sum", "smsp__sass_data_bytes_mem_shared_op_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",            # shared atomics and their bank conflicts
)
# Launch facts kept beside the metrics (ncu's raw page adds them to every launch).
LAUNCH_FACTS = ("profiler__replayer_passes", "launch__grid_size", "launch__block_size",
                "launch__registers_per_thread", "launch__shared_mem_per_block", "launch__waves_per_multiprocessor",
                "launch__occupancy_limit_blocks", "launch__occupancy_limit_registers",
                "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps")

# The harness's clock probe (cuda/clock_probe.cu) runs after every sample: not profiled. Kernel names
# (function base) not starting with "hs_cl", in a regex without look-ahead.
NOT_THE_CLOCK_PROBE = "regex:^([^h]|h[^s]|hs[^_]|hs_[^c]|hs_c[^l])"
CLOCK_PROBE = "hs_clock_probe"
NCU_OPTIONS = ("--csv", "--page", "raw", "--print-units", "base", "--nvtx", "--clock-control", "none",
               "--cache-control", "all")
KERNEL_FILTER = ("--kernel-name-base", "function", "--kernel-name", NOT_THE_CLOCK_PROBE)
# One check run and one sample per case; no lesson method; the profiler flushes the caches, histostudy does not.
RUN_OPTIONS = ("--warmups", "0", "--reps", "1", "--max-reps", "1", "--lesson-reps", "0", "--cache", "hot",
               "--control", "none", "--throttle", "0")
SETS = {
    "lesson": ("the lesson experiment: the lesson's inputs at its size, partitioned with P = 1, 2, 4, 8",
               ("-e", "lesson")),
    "gib": ("the lesson's inputs at 1 GiB, partitioned with P = 4", ("-e", "lesson", "-s", "1GiB", "-p", "4")),
    "placement": ("global atomics on uniform bytes with the bins at every offset of the placement sweep",
                  ("-e", "placement", "--impl", "global", "--input", "uniform")),
}


class ProfileError(Exception):
    """Why nothing could be profiled: one line."""


# ---- the tools ----

def run_text(cmd, timeout=120):
    """stdout + stderr of cmd, or ProfileError when it cannot start."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout)
    except FileNotFoundError:
        raise ProfileError(f"{cmd[0]}: not found") from None
    except subprocess.TimeoutExpired:
        raise ProfileError(f"{' '.join(cmd)}: no answer in {timeout} s") from None
    return done.returncode, done.stdout + done.stderr


def find_ncu(name):
    found = shutil.which(name) or next((str(p) for p in (pathlib.Path("/usr/local/cuda/bin") / name,)
                                        if "/" not in name and p.exists()), None)
    if not found:
        raise ProfileError(f"no Nsight Compute: '{name}' is not on PATH nor in /usr/local/cuda/bin "
                           "(install it, or name it with --ncu PATH)")
    return found


def gpu_implementations(histostudy):
    """The GPU implementations `histostudy list` says can run here."""
    status, text = run_text([histostudy, "list"])
    if status:
        raise ProfileError(f"{histostudy} list failed: {text.strip().splitlines()[-1] if text.strip() else status}")
    found = [m.group(1) for m in re.finditer(r"^  (\S+)\s+cuda\s+(.*)$", text, re.M)
             if "[cannot run here]" not in m.group(2)]
    if not found:
        raise ProfileError(f"{histostudy} can run no GPU implementation here (histostudy list)")
    return found


def metrics_this_gpu_has(ncu):
    """(the metrics of METRICS ncu lists for this GPU, [{metric, why}] of the others); every metric, unchecked,
    where the query itself fails (ncu then refuses a metric when profiling, and the run is retried without)."""
    status, text = run_text([ncu, "--query-metrics", "--csv"])
    try:
        have = ncu_csv.available_metrics(text)
    except ncu_csv.NcuError as e:
        if e.kind == "permission":
            raise ProfileError(str(e)) from None
        print(f"profile: ncu --query-metrics failed ({e}); asking for every metric", file=sys.stderr)
        return list(METRICS), [], f"failed: {e}"
    missing = [{"metric": m, "why": "this GPU does not have it (ncu --query-metrics)"}
               for m in METRICS if ncu_csv.base_name(m) not in have]
    return [m for m in METRICS if ncu_csv.base_name(m) in have], missing, "ok"


def toolchain_entries(spec, workdir):
    """[(label, spec)]: a modules directory entry by entry (each run alone under the profiler, its launches its
    own), any other spec as it is."""
    if not spec.startswith("modules:"):
        return [(spec, spec)]
    source = pathlib.Path(spec.removeprefix("modules:")).resolve()
    try:
        manifest = json.loads((source / "manifest.json").read_text())
        builds = manifest["builds"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ProfileError(f"{spec}: no readable modules manifest ({e})") from None
    entries = []
    for k, build in enumerate(builds):
        folder = pathlib.Path(workdir) / f"modules-{k:03d}"
        folder.mkdir(parents=True)
        top = pathlib.Path(build.get("file", "")).parts[0] if build.get("file") else None
        if top and (source / top).exists():
            (folder / top).symlink_to(source / top)
        one = dict(manifest, builds=[build], skipped=[])
        (folder / "manifest.json").write_text(json.dumps(one, indent=1))
        entries.append((f"{spec} {build.get('toolchain', '?')} {build.get('arch', '?')}", f"modules:{folder}"))
    return entries


# ---- one profiled run ----

def profile_run(ncu, histostudy, metrics, set_args, spec, workdir, timeout, kernel_filter=KERNEL_FILTER):
    """(command, exit status, seconds, ncu_csv.RawReport or None, run document or None, problems)."""
    workdir.mkdir(parents=True, exist_ok=True)
    log, out_dir = workdir / "ncu-raw.csv", workdir / "run"
    command = [ncu, *NCU_OPTIONS, *kernel_filter, "--metrics", ",".join(metrics), "--log-file", str(log),
               histostudy, "run", *set_args, "--toolchain", spec, *RUN_OPTIONS, "-o", str(out_dir)]
    started = time.monotonic()
    with (workdir / "stdout.txt").open("w") as stdout, (workdir / "stderr.txt").open("w") as stderr:
        try:
            status = subprocess.run(command, stdout=stdout, stderr=stderr, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            status = None
    seconds = round(time.monotonic() - started, 1)
    problems = [] if status is not None else [f"stopped after {timeout} s (--timeout)"]
    texts = [p.read_text(errors="replace") for p in (log, workdir / "stdout.txt") if p.exists()]
    report, failure = None, None
    for text in texts:  # the table is in the log file; an ncu that ignored --log-file printed it to stdout
        try:
            report = ncu_csv.raw_report(text)
            break
        except ncu_csv.NcuError as e:
            if e.kind == "permission":
                raise ProfileError(str(e)) from None
            failure = failure or str(e)
    if report is None:
        problems.append(failure or "ncu wrote nothing")
    runs = sorted(out_dir.glob("*.json"))
    doc = json.loads(runs[0].read_text()) if runs else None
    if doc is None:
        tail = (workdir / "stderr.txt").read_text(errors="replace").strip().splitlines()
        problems.append("histostudy saved no result file" + (f": {tail[-1]}" if tail else ""))
    return command, status, seconds, report, doc, problems


# ---- launches to cases ----

def short_kernel(name):
    """'hs_global' of 'void hs_global<unsigned int>(const unsigned char *, ...)': no return type, no
    parameters, no template arguments."""
    name = name.split("(", 1)[0].removeprefix("void ").replace("<unnamed>", "(anonymous)")
    out, depth = [], 0
    for ch in name:
        depth += (ch == "<") - (ch == ">")
        if depth == 0 and ch != ">":
            out.append(ch)
    return "".join(out).replace("(anonymous)", "<unnamed>").strip()


def matching_row(doc, case, toolchain):
    """The result row of one case range and toolchain; None when no row or several match."""
    def fits(row):
        policy = row["policy"]
        return (row["experiment"] == case.get("experiment") and row["impl"] == case.get("impl")
                and row["input"] == case.get("input") and str(row["size"]) == case.get("size")
                and row["toolchain"] == toolchain
                and str((row.get("placement") or {}).get("bins_offset", 0)) == case.get("bins_offset", "0")
                and all(case.get(k, "0") in ("0", str(policy.get(k))) for k in ("grid", "block", "passes")))
    found = [r for r in doc["rows"] if fits(r)]
    return found[0] if len(found) == 1 else None


def runs_of(doc, row):
    """How many runs a case's range holds: the check, the warm-ups, the samples, the lesson method's."""
    gpu = doc["timing"]["gpu"]
    lesson = gpu.get("lesson_warmups", 0) + gpu.get("lesson_reps", 0) if row.get("lesson_mean_ms") is not None else 0
    return 1 + gpu["warmups"] + row["sampling"]["taken"] + lesson


def kept_columns(report, metrics):
    asked = {ncu_csv.base_name(m) for m in metrics}
    return [c for c in report.metric_columns if ncu_csv.base_name(c) in asked or c in LAUNCH_FACTS]


def summed(columns):
    """The columns whose per-run value is the sum over the run's launches: counters' .sum and the duration."""
    return [c for c in columns if c.endswith(".sum") and ".pct" not in c and ".per_" not in c]


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def case_record(set_name, case, toolchain, launches, row, doc, columns):
    record = {"set": set_name, "experiment": case["experiment"], "impl": case["impl"], "backend": "cuda",
              "input": case["input"],
              "size": int(case["size"]), "toolchain": toolchain, "bins_offset": int(case.get("bins_offset", 0)),
              "range": case, "problems": []}
    if row is None:
        record["problems"].append("no single result row matches this case's range")
        record["launches"] = launch_columns(launches, columns)
        return record
    record.update({"code": row.get("code"), "policy": row["policy"], "roles": row.get("roles"),
                   "check_passed": row["check"]["passed"],
                   "declared": {"global_atomics": row["global_atomics"], "bytes_read": row["bytes_read"],
                                "global_atomic_bytes": row.get("global_atomic_bytes")},
                   "runs": runs_of(doc, row), "launches": launch_columns(launches, columns)})
    runs = record["runs"]
    if not launches or len(launches) % runs:
        record["problems"].append(f"{len(launches)} launches do not divide into {runs} runs: no per-run values")
        return record
    per = len(launches) // runs
    record["launches_per_run"] = per
    record["per_run"] = {}
    for c in summed(columns):
        totals = [sum(v for v in (l.values.get(c) for l in launches[i * per:(i + 1) * per]) if v is not None)
                  if all(l.values.get(c) is not None for l in launches[i * per:(i + 1) * per]) else None
                  for i in range(runs)]
        record["per_run"][c] = {"values": totals, "median": median_or_none(totals)}
    kernels = {}
    for launch in launches:
        kernels.setdefault(short_kernel(launch.kernel), []).append(launch)
    record["per_kernel"] = {name: {"launches_per_run": len(ls) / runs,
                                   "median": {c: median_or_none([l.values.get(c) for l in ls]) for c in columns}}
                            for name, ls in kernels.items()}
    return record


def launch_columns(launches, columns):
    """Each launch's values, a list per column (launch order), with their ids and kernels."""
    return {"id": [l.id for l in launches], "kernel": [l.kernel for l in launches],
            "grid": [l.grid for l in launches], "block": [l.block for l in launches],
            "values": {c: [l.values.get(c) for l in launches] for c in columns}}


def attribute(set_name, report, doc, metrics):
    """(case records, {'clock probe': n, 'outside any case': n, ...}) of one run's launches."""
    columns = kept_columns(report, metrics)
    groups, counts = {}, {"clock probe": 0, "outside any case": 0, "several toolchains in one case": 0}
    for launch in report.launches:
        if CLOCK_PROBE in launch.kernel:
            counts["clock probe"] += 1
            continue
        case = launch.case
        if case is None:
            counts["outside any case"] += 1
            continue
        if len(case["toolchains"]) != 1:
            counts["several toolchains in one case"] += 1
            continue
        key = tuple(sorted((k, v) for k, v in case.items() if k != "toolchains")) + (case["toolchains"][0],)
        groups.setdefault(key, (case, []))[1].append(launch)
    cases = []
    for key, (case, launches) in groups.items():
        toolchain = key[-1]
        row = matching_row(doc, case, toolchain) if doc else None
        cases.append(case_record(set_name, case, toolchain, launches, row, doc, columns))
    return cases, counts


# ---- the document ----

def utc_now(compact=False):
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    return now.strftime("%Y%m%dT%H%M%SZ") if compact else now.isoformat().replace("+00:00", "Z")


def slug(label):
    """As study/driver/results.cpp's slug: 'NVIDIA H200' -> 'nvidia-h200'."""
    out = re.sub(r"[^a-z0-9.]+", "-", label.lower()).strip("-")
    return out or "unknown"


def gpu_name(environment):
    for e in (environment or {}).get("executors", []):
        device = (e.get("describe") or {}).get("device") or {}
        if device.get("name"):
            return device["name"]
    return "unknown-gpu"


def write_new(dir_path, stem, text):
    """DIR/STEM.json (STEM-002.json, ... if taken), never over an existing file (tools/new_file.py)."""
    try:
        return new_file.write_new(dir_path, stem, text)
    except FileExistsError as e:
        raise ProfileError(str(e)) from None


def collect(args):
    ncu = find_ncu(args.ncu)
    status, text = run_text([ncu, "--version"])
    try:
        ncu_version = ncu_csv.version(text)
    except ncu_csv.NcuError as e:
        raise ProfileError(f"{ncu}: {e}") from None
    histostudy = str(pathlib.Path(args.histostudy).resolve())
    impls = gpu_implementations(histostudy)
    metrics, missing, query = metrics_this_gpu_has(ncu)
    for m in missing:
        print(f"profile: {m['metric']}: {m['why']}; its column is skipped", file=sys.stderr)
    doc = {"format": FORMAT, "schema_version": SCHEMA_VERSION, "started": utc_now(),
           "profiler": {"tool": "Nsight Compute", "path": ncu, "version": ncu_version,
                        "version_text": text.strip(), "options": list(NCU_OPTIONS), "clock_control": "none",
                        "cache_control": "all"},
           "histostudy": {"path": histostudy, "run_options": list(RUN_OPTIONS), "implementations": impls},
           "metrics": {"asked": list(METRICS), "missing": missing, "query": query},
           "sets": {name: SETS[name][0] for name in args.sets}, "invocations": [], "skipped": [], "cases": []}
    work = pathlib.Path(tempfile.mkdtemp(prefix="histostudy-profile."))
    try:
        for spec in args.toolchains:
            for label, entry in toolchain_entries(spec, work / f"toolchain-{len(doc['invocations'])}"):
                for name in args.sets:
                    run_set(doc, ncu, histostudy, metrics, impls, name, label, entry, work, args)
    finally:
        if args.raw:
            shutil.copytree(work, args.raw, dirs_exist_ok=True, symlinks=True)
        shutil.rmtree(work, ignore_errors=True)
    doc["finished"] = utc_now()
    if not doc["cases"]:
        raise ProfileError("no case was profiled: " + "; ".join(doc["skipped"] or ["nothing ran"]))
    return doc


def library_implementations():
    """The peer (CUB) is a host library nvcc built: it runs with the nvcc toolchain alone."""
    return {name for (name, _), roles in roles_registry(REPO / "data" / "registry.json").items() if "peer" in roles}


def run_set(doc, ncu, histostudy, metrics, impls, name, label, spec, work, args):
    set_args = list(SETS[name][1])
    if spec != "nvcc":
        impls = [i for i in impls if i not in library_implementations()]
    if "--impl" not in set_args:
        set_args += ["--impl", ",".join(impls)]
    where = work / f"run-{len(doc['invocations']):03d}-{name}"
    kernel_filter = KERNEL_FILTER
    for attempt in (1, 2, 3):
        command, status, seconds, report, run_doc, problems = profile_run(
            ncu, histostudy, metrics, set_args, spec, where / f"attempt-{attempt}", args.timeout, kernel_filter)
        refused = [m for m in metrics if report and ncu_csv.base_name(m) in report.unknown_metrics]
        if refused:  # ncu refuses the whole run for one unknown metric: again without it
            for m in refused:
                doc["metrics"]["missing"].append({"metric": m, "why": "ncu: Failed to find metric"})
                print(f"profile: ncu does not know {m}; its column is skipped", file=sys.stderr)
            metrics = [m for m in metrics if m not in refused]
        elif report is None and run_doc is None and kernel_filter:
            # Nothing ran at all: an ncu that refuses the kernel filter. Again without it (the clock probe is
            # then profiled too, and set aside by its name).
            print(f"profile: {name} {spec}: nothing ran ({'; '.join(problems)}); again without the kernel filter",
                  file=sys.stderr)
            kernel_filter = ()
        else:
            break
    invocation = {"set": name, "toolchain": label, "command": command, "exit_status": status, "seconds": seconds,
                  "problems": problems}
    doc["invocations"].append(invocation)
    print(f"profile: {name} {label}: exit {status}, {seconds} s" + (f"; {'; '.join(problems)}" if problems else ""),
          file=sys.stderr)
    if report is None or run_doc is None:
        doc["skipped"].append(f"{name} {label}: {'; '.join(problems)}")
        return
    for m in report.missing(metrics):
        if not any(x["metric"] == m for x in doc["metrics"]["missing"]):
            doc["metrics"]["missing"].append({"metric": m, "why": "no column in ncu's table"})
            print(f"profile: ncu's table has no {m}; its column is skipped", file=sys.stderr)
    cases, counts = attribute(name, report, run_doc, metrics)
    invocation.update({"launches": len(report.launches), "not_attributed": counts, "ncu_messages": report.messages,
                       "has_nvtx": report.has_nvtx, "cases": len(cases),
                       "passes": sorted({int(v) for v in (l.values.get("profiler__replayer_passes")
                                                          for l in report.launches) if v is not None})})
    if not report.has_nvtx:
        invocation["problems"].append("ncu's table has no NVTX column: no launch can be attributed")
    elif not cases and report.launches:
        invocation["problems"].append("no launch ran in an hs-case range; the first launch's NVTX cell reads "
                                      f"{report.launches[0].nvtx[:300]!r}")
    invocation["environment"] = run_doc.get("environment")  # each toolchain's executors, as its run recorded them
    doc.setdefault("environment", run_doc.get("environment"))
    doc.setdefault("provenance", run_doc.get("provenance"))
    doc.setdefault("timing", run_doc.get("timing"))
    doc["cases"] += cases
    if not cases:
        doc["skipped"].append(f"{name} {label}: {'; '.join(invocation['problems']) or 'no case in the table'}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="tools/ncu_profile.py", description=__doc__.split("\n")[0])
    parser.add_argument("--set", dest="sets", default=",".join(SETS),
                        help=f"what to profile, comma-separated: {', '.join(SETS)} (default: all)")
    parser.add_argument("--toolchain", dest="toolchains", action="append",
                        help="a toolchain as histostudy run takes it (repeatable; default nvcc)")
    parser.add_argument("-o", "--out-dir", default=str(REPO / "data" / "profiles"), help="where the profile goes")
    parser.add_argument("--raw", help="keep ncu's raw CSV, histostudy's output and its run files here")
    parser.add_argument("--histostudy", default=str(REPO / os.environ.get("BUILD_DIR", "build") / "histostudy"))
    parser.add_argument("--ncu", default="ncu", help="the Nsight Compute command line (default: ncu on PATH)")
    parser.add_argument("--timeout", type=float, default=480, help="seconds one profiled run may take (480)")
    args = parser.parse_args(argv)
    args.sets = [s for s in args.sets.split(",") if s]
    unknown = [s for s in args.sets if s not in SETS]
    if unknown or not args.sets:
        parser.error(f"--set {','.join(unknown) or '(none)'}: known sets are {', '.join(SETS)}")
    args.toolchains = [t for item in (args.toolchains or ["nvcc"]) for t in item.split(",") if t]
    try:
        doc = collect(args)
        stem = f"{utc_now(True)}_{slug(gpu_name(doc.get('environment')))}_profile"
        path = write_new(args.out_dir, stem, json.dumps(doc, indent=1) + "\n")
    except ProfileError as e:
        print(f"profile: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"profile: {e}", file=sys.stderr)
        return 1
    print(f"profile file: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
