"""What produced each environment's numbers, in words: the build of its kernels, its GPU, driver, clocks, host,
commit and runs; a release history's modules in one paragraph. The environments report prints these paragraphs;
the appendix names the environments in a table and links there.
"""
from plots import claims, history, pages
from plots.document import Heading, Para, Part, Raw, TableBlock
from plots import table as fmt
from plots.environment import (NOT_RECORDED, build_words, clock_words, commit_line, flatten, gpu_words, host_words, sampling_plan_words, show, summary)
from plots.results import module_entry
from plots.selection import BENCH_ROLE, BENCH_WORDS, ROLES, SUPERSEDED_FILE
from plots.table import Table


def _runs_words(runs, sel):
    """'2026-12-01T09:22:49Z (lesson, versions, sweep), ...; each sampled: <plan>' with the distinct plans, for
    a GPU environment (the CPU role of a run is another environment's)."""
    plans = {}
    for run in runs:
        plans.setdefault(sampling_plan_words(run), []).append(run)
    gpu_roles = lambda r: [role for role in sel.roles_of(r) if role != "cpu"]  # noqa: E731
    started = "; ".join(f"{r.doc['started']} ({', '.join(gpu_roles(r))})" for r in runs)
    roles = lambda rs: ", ".join(dict.fromkeys(role for r in rs for role in gpu_roles(r)))  # noqa: E731
    return f"{started}. Samples: " + "; ".join(plan + ("" if len(plans) == 1 else f" ({roles(rs)})")
                                             for plan, rs in plans.items())


def _per_run_words(words_of, runs, sel):
    """words_of(run) where every run says the same; else each distinct value with the roles of its runs, a run
    that records none (words_of gives '') as not recorded."""
    words = [words_of(run) for run in runs]
    if len(set(words)) == 1:
        return words[0]
    values = {}
    for run, value in zip(runs, words):
        values.setdefault(value or NOT_RECORDED, []).append(run)
    def roles(rs):
        return ", ".join(dict.fromkeys(role for r in rs for role in sel.roles_of(r) if role != "cpu"))
    return "; ".join(f"{value} ({roles(rs)})" for value, rs in values.items())


def environment_paragraph(env, study):
    """What produced one environment's numbers: its build, its GPU and driver, its host, its commit, its runs."""
    ev = env.members[0]
    return f"**{env.label}.** The kernels {build_words(ev.run, ev.toolchain)}; " + \
        _produced([e.run for e in env.members], ev.toolchain, study)


def _produced(runs, tc, study):
    """The histostudy, GPU, clocks, host and runs behind an environment's numbers. Clocks and host are each run's
    own (the GPU machine's kernel, say, differs between calls)."""
    run = runs[0]
    sel = study.selection_of(run)
    commits = sorted({commit_line(r.doc["provenance"]) for r in runs})
    clocks = _per_run_words(clock_words, runs, sel)
    version = run.environment["build"].get("histostudy_version", "?")
    return (f"histostudy {version} at commit {', '.join(commits)}, on {gpu_words(run, tc)}"
            + (f", {clocks}" if clocks else "")
            + f"; host {_per_run_words(host_words, runs, sel)}. Runs started {_runs_words(runs, sel)}.")


def modules_paragraph(envs, study):
    """The environments of a release history's modules (one run's, each a release's SASS or PTX) in one paragraph:
    they differ in the module alone."""
    members = [ev for env in envs for ev in env.members]
    first = members[0]
    entries = [module_entry(ev.toolchain) for ev in members]
    kinds = "; ".join(f"{kind}: {len(found)} releases, {history.version_text(min(found))} to "
                      f"{history.version_text(max(found))}" for kind in dict.fromkeys(e[1] for e in entries)
                      for found in [[e[0] for e in entries if e[1] == kind]])
    label = modules_label(envs)
    runs = list({ev.run.path: ev.run for ev in members}.values())
    return (f"**{label}.** The kernels of each NVRTC release ({kinds}), each from its own module, the first "
            f"{build_words(first.run, first.toolchain)}; " + _produced(runs, first.toolchain, study))


def _groups(envs):
    """[(modules, [environments])]: each environment alone, but a release history's modules (one run's) together."""
    groups = {}
    for env in envs:
        modules = all(module_entry(ev.toolchain) for ev in env.members)
        key = tuple(ev.run.path for ev in env.members) if modules else env.label
        groups.setdefault((modules, key), []).append(env)
    return [(modules, found) for (modules, _), found in groups.items()]


def modules_label(envs):
    first = envs[0].members[0]
    return claims.environment_label(first.run, first.toolchain).replace(
        f" / {first.toolchain} / ", f" / {len(envs)} release-history modules / ")


def environment_labels(envs):
    """[(label, number of runs)], a release history's modules in one line."""
    return [(modules_label(found) if modules else found[0].label,
             len({ev.run.path for env in found for ev in env.members})) for modules, found in _groups(envs)]


def environment_paragraphs(envs, study):
    """A paragraph per environment, the modules of each release-history run in one (modules_paragraph)."""
    return [modules_paragraph(found, study) if modules else environment_paragraph(found[0], study)
            for modules, found in _groups(envs)]


def published_paragraphs(published):
    lines = [f"**{claims.published_label(s)}.** Published by the course page ({s.source}): {s.gpu} (cc "
             f"{s.compute_capability}), `{s.build}`" + (f", {fmt.count(s.get('input_bytes'))} bytes, grid "
                                                        f"{fmt.count(s.get('grid_blocks'))} x "
                                                        f"{fmt.count(s.get('block_threads'))}, "
                                                        f"{fmt.count(s.get('warmup_runs'))} warm-ups and the mean of "
                                                        f"{fmt.count(s.get('timed_runs'))} timed runs"
                                                        if s.get("timed_runs") else ", partial figures")
             + " (`data/published/lesson_t4.csv`)." for s in published.lesson]
    lines.append(f"**Table 16-4 ({', '.join(published.table_16_4)}).** A GPU textbook's per-block histogram in "
                 "Mpix/s on one GPU of each generation; the table names no toolchain or driver "
                 "(`data/published/table_16_4_per_block.csv`).")
    return lines


def published_words(published):
    """The published sources in a sentence: who published what, on which GPU, built how."""
    lesson = "; ".join(f"CUDA {s.cuda}: " + (f"{fmt.count(s.get('input_bytes'))} bytes, the mean of "
                                             f"{fmt.count(s.get('timed_runs'))} timed runs after "
                                             f"{fmt.count(s.get('warmup_runs'))} warm-ups"
                                             if s.get("timed_runs") else "partial figures")
                       for s in published.lesson)
    first = published.lesson[0]
    return (f"The published figures: the course page's {first.gpu} (cc {first.compute_capability}, `{first.build}`; "
            f"{lesson}; `data/published/lesson_t4.csv`) and Table 16-4's per-block histogram on "
            f"{fmt.and_list(published.table_16_4)}, which names no toolchain or driver "
            "(`data/published/table_16_4_per_block.csv`).")


def environments_table(envs):
    """Our environments, a line per GPU and driver: each toolchain with the number of runs it took part in."""
    by_machine = {}
    for label, runs in environment_labels(envs):
        gpu, _, rest = label.partition(" / ")
        toolchain, _, driver = rest.rpartition(" / ")
        by_machine.setdefault(f"{gpu} / {driver}", []).append(f"{toolchain} ({fmt.plural(runs, 'run')})")
    return Table("The environments behind our numbers", ["GPU / driver", "toolchains (runs)"],
                 [[machine, "; ".join(found)] for machine, found in by_machine.items()],
                 ["What built each one's kernels, the commit, the clocks, the host and the machines' differences: "
                  "the environments report."], align="ll")


def environments_section(m):
    return [Heading("What produced each environment's numbers"),
            TableBlock(environments_table(m.claims.ours), "environments"), Para(published_words(m.study.published))]


def _role_lines(sel):
    lines = []
    for role, runs in sel.roles.items():
        for run in runs:
            lines.append(f"- {role} ({ROLES[role][0]}): `{run.path}`: {sel.why[(run.path, role)]}")
    for bench in sel.benches:
        lines.append(f"- {BENCH_ROLE} ({BENCH_WORDS}): `{bench.path}`: {sel.why[(bench.path, BENCH_ROLE)]}")
    return lines


def chosen_section(sel):
    lines = [f"The runs this paper is built from, as {sel.source} names them (role: what the run must hold, and "
             "why it was chosen):", ""] + _role_lines(sel)
    lines += ["", f"Every other file in `data/runs/` is kept as recorded and read by no report; "
                  f"`data/runs/{SUPERSEDED_FILE}` says why the earlier ones are out. A run that stopped on an error "
                  "after measuring (marked incomplete) never feeds the paper."]
    lines += [f"- left out: `{path}`: {why}" for path, why in sel.left_out.items()]
    return Raw("\n".join(lines) + "\n")


def full_record(run):
    """Every recorded environment key, flattened, collapsed under the run's name."""
    doc = {"environment": run.environment, "provenance": run.doc["provenance"], "timing": run.doc["timing"]}
    rows = "\n".join(f"| `{k}` | {show(v).replace('|', '/')} |" for k, v in flatten(doc).items())
    return Raw(f"<details><summary>{run.path}</summary>\n\n| key | value |\n| --- | --- |\n{rows}\n\n</details>\n")


def environments_report(m):
    runs = m.study.all_runs()
    summaries = [TableBlock(Table(f"Environment: {run.name}", ["field", "value"], [list(p) for p in summary(run)],
                                  [f"Command: `{' '.join(run.doc['provenance']['argv'])}`"], align="ll"))
                 for run in runs]
    produced = [Heading("What produced each environment's numbers", 2)] + \
        [Para(p) for p in environment_paragraphs(m.claims.ours, m.study) + published_paragraphs(m.study.published)]
    return pages.page("The environments in full", [chosen_section(m.study.sel)], produced, machines_section(m),
                      summaries, [Heading("Every recorded key", 2)], [full_record(run) for run in runs])


def machines_section(m):
    """What differs between the GPUs' machines, key by key, where there are several GPUs."""
    if not m.machines:
        return []
    gpus = [g.label for g in m.gpus]
    rows = [[what, f"`{key}`"] + [values[g].replace("|", "/") for g in gpus] for what, key, values in m.machines]
    return [Heading("What differs between the GPUs' machines", 2), TableBlock(Table(
        "The GPUs' machines: every recorded key whose values differ", ["what", "key"] + gpus, rows,
        ["Each GPU's values over its runs (every distinct one, in the order of its runs): its GPU record, driver, "
         "GPU state before the run, host and build; what changes from moment to moment (times, temperatures, power "
         "drawn) and from board to board (identity, bus) left out."], align="ll" + "l" * len(gpus)))]


PART = Part("environments", "which run feeds which report; every environment in full", environments_section,
            environments_report)
