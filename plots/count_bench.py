"""`count` at the speed of its input: the files `histostudy count-bench` writes (data/runs/count-bench/), their
verdicts against the study's target and the performance report's table of them.

Each file times, in rotating order on one page-cached file, count against its floor: for a CPU implementation,
reading the file and discarding it; for a GPU one, copying as many bytes host to device from pinned buffers.
Beside them it times the floor again (the A/A pair), count's own reads alone and, for a CPU implementation,
its counting alone on the file's bytes already in memory. count-bench checks every pass's bins against the
reference's and writes no file unless all of them matched, so a file is an exact count's timing.

Every ratio is taken from the medians of the same file. Files are validated against
data/schema/count-bench.schema.json; anything wrong raises results.ResultError naming the file.
"""
import functools
import pathlib
from dataclasses import dataclass

from plots import stats
from plots.document import Heading, Para, Part, TableBlock
from plots import table as fmt
from plots.environment import commit_line, cpu_and_cores
from plots.results import (DATA, REGISTRY_SHOWN, ResultError, agree, check_schema, check_version, parse_json,
                           path_text, read_text, registry_doc, schema_validator)
from plots.table import MET, NOT_MET, Table, value_range

FORMAT = "histostudy-count-bench"
VERSION = 3   # the newest schema_version this reader knows (files before 3 name it `version`; 1 held the CPU's
              # identity beside the host)
SCHEMA_PATH = DATA / "schema" / "count-bench.schema.json"
FOLDER = "count-bench"       # where count-bench writes, under runs/ (and the study's under data/runs/)
ROLE = "count"   # its role in data/paper-runs.csv
COUNT = "count"              # the entry that times count itself

# The study's target (docs/study-spec.md section 5): count at >= 80% of its own floor, measured in the same
# run, on page-cached files of 1 GiB and more. A file whose A/A pair differs by more than AA_BAND percent
# cannot tell a miss from noise, so it is judged inconclusive.
TARGET_PCT = 80.0
TARGET_MIN_BYTES = 1 << 30
MIN_CACHED = 0.99            # the fraction of the file in the page cache before the first pass
AA_BAND = 5.0
# Other processes' CPU seconds per second timed above which the machine was busy: count's readers use nearly
# every core, so a neighbour's burst takes their time. Chosen from the H200 host's files of 2026-12-01T2041-2043Z
# (data/explorations/20261201T2042Z_gpu_count_busy/): the three at 45-79% of the floor had 0.56 to 1.28 such
# seconds a second; the twelve others at most 0.34, and ran at 78-98%. Seconds the hypervisor stole count
# alike: that "others" can miss them (this process's own CPU time may include them) was seen in the first files
# to record steal (data/explorations/20261201T2342Z_gpu_count_steal/: 0.25 s stolen, 0.09 s "others").
BUSY_CPU_PER_S = 0.5
# The idle before each timed pass below which the passes count as back to back, so that each entry was timed in
# the state its predecessor in the rotation left: on the H200 host a read into the pinned buffers after 40 ms of
# anything else ran 16-30% slower than one right after another, and count, always timed right after its reads
# alone, was timed warm (data/explorations/20261202T0250Z_gpu_count_hybrid/). Files made before count-bench
# settled (no settle_s) ran back to back.
SETTLE_MIN_S = 0.040
NO_TARGET = "no target (under 1 GiB)"
INCONCLUSIVE = "inconclusive"
# count-bench's options (study/cli/count_bench.cpp) that set how count reads: a file that names one times a plan of its own
# (even if its values are count's), shown and not judged, since the target is count's, as `histostudy count`
# reads. The others set how it is timed, where or into what; tests/test_cli.py checks that these two lists
# name every option count-bench's --help lists.
PLAN_OPTIONS = ("--chunk", "--buffers", "--piece", "--threads", "-t")
OTHER_OPTIONS = ("--impl", "--device", "--rounds", "--settle", "-o", "--out-dir", "--no-save", "-h", "--help")
FLAGS = ("--no-save", "-h", "--help")   # the options that take no value
NOT_JUDGED = "not judged"


def plans_of(registry):
    """A registry document's count_plans: count's own reading plan for each backend ({'cuda': {'chunk_bytes': ...,
    'buffers': ..., 'piece_bytes': ...}, 'cpu': {'piece_bytes': ...}}); ResultError where it has none."""
    plans = registry.get("count_plans") if isinstance(registry, dict) else None
    if not isinstance(plans, dict) or not all(isinstance(p, dict) for p in plans.values()):
        raise ResultError(REGISTRY_SHOWN, "no count_plans: regenerate it with `histostudy list --json`")
    return plans


@functools.lru_cache(maxsize=None)
def counts_plans():
    """count's plans now, as `histostudy list --json` declares them in data/registry.json: a file timed with count's
    plan of an earlier commit is shown, not judged, since the target is count's as it reads now."""
    return plans_of(registry_doc())


class LeftOut(ResultError):
    """A count-bench file that is kept but read by no report: a user's appendix names it on stderr."""


class OlderBench(LeftOut):
    """A file of an older count-bench, which recorded no floor."""


class IncompleteBench(LeftOut):
    """A bench that stopped on an error after timing some passes: its samples are kept, no verdict is drawn."""


@functools.lru_cache(maxsize=1)
def _validator():
    return schema_validator(SCHEMA_PATH)


def is_bench_doc(doc):
    return isinstance(doc, dict) and doc.get("format") == FORMAT


def parse_bench(shown, doc):
    """Checks a parsed count-bench document; raises ResultError naming `shown`."""
    if not is_bench_doc(doc):
        raise ResultError(shown, f'not a count-bench result file (no "format": "{FORMAT}")')
    check_version(shown, doc, "schema_version" if "schema_version" in doc else "version", VERSION)
    if "floor" not in doc or "reads_alone" not in doc:
        raise OlderBench(shown, "written by an older count-bench, which recorded no floor: not read (run "
                                "count-bench again)")
    check_schema(shown, doc, _validator(), "count-bench")
    if "incomplete" in doc:
        raise IncompleteBench(shown, f"incomplete: count-bench stopped on an error ({doc['incomplete']['error']}); "
                                     "its samples are kept, but no verdict is drawn from them")
    contradiction = gbps_contradiction(doc)
    if contradiction:
        raise ResultError(shown, f"contradicts itself: {contradiction}")
    names = [e["name"] for e in doc["entries"]]
    wanted = [COUNT, doc["floor"]["entry"], again(doc["floor"]["entry"]), doc["reads_alone"]["entry"]]
    wanted += [doc["counting_alone"]["entry"]] if "counting_alone" in doc else []
    absent = [n for n in wanted if n not in names]
    if absent:
        raise ResultError(shown, f"names entries it does not hold: {', '.join(absent)}")
    return Bench(shown, doc)


def gbps_contradiction(doc):
    """'entries[2] (count): gbps.median is ...' where an entry's GB/s summary is not what its samples and the
    file's bytes give (study/count/count_bench.cpp: each sample's bytes / seconds / 1e9), else None."""
    for n, entry in enumerate(doc["entries"]):
        rates = [doc["file"]["bytes"] / s / 1e9 for s in entry["samples_s"]]
        for key, pct in (("median", 50), ("p10", 10), ("p90", 90)):
            rate = stats.percentile(rates, pct)
            if not agree(entry["gbps"][key], rate):
                return f"entries[{n}] ({entry['name']}): gbps.{key} is {entry['gbps'][key]!r}, but its " \
                       f"{len(rates)} samples_s of {doc['file']['bytes']:,} bytes give {rate:.6g}"
    return None


def load_bench(path, shown=None):
    """Reads and validates one count-bench file."""
    shown = path_text(shown or path)
    return parse_bench(shown, parse_json(shown, read_text(path, shown)))


def again(entry):
    """The A/A repeat of an entry, as count-bench names it."""
    return f"{entry}_again"


@dataclass(frozen=True)
class Bench:
    path: str   # as the caller named it; reports print it
    doc: dict

    name = property(lambda self: pathlib.Path(self.path).name)
    impl = property(lambda self: self.doc["impl"])
    backend = property(lambda self: self.doc["backend"])
    bytes = property(lambda self: self.doc["file"]["bytes"])
    file_name = property(lambda self: pathlib.PurePath(self.doc["file"]["path"]).name)
    floor_entry = property(lambda self: self.doc["floor"]["entry"])
    floor_what = property(lambda self: self.doc["floor"]["what"])
    reads_entry = property(lambda self: self.doc["reads_alone"]["entry"])
    @property
    def watched(self):
        """What count-bench recorded of others' use of the machine: over the timed passes alone where it did
        (machine.passes), else over its whole timed window ({seconds, other_processes_cpu_s, steal_s}, any absent)."""
        machine = self.doc.get("machine") or {}
        return machine.get("passes") or {**machine, "seconds": machine.get("timed_s")}

    others_cpu_s = property(lambda self: self.watched.get("other_processes_cpu_s"))
    steal_s = property(lambda self: self.watched.get("steal_s"))  # absent before steal was recorded
    timed_s = property(lambda self: self.watched.get("seconds"))
    settle_s = property(lambda self: self.doc.get("settle_s", 0.0))  # absent before count-bench settled

    @property
    def plan_options(self):
        """The PLAN_OPTIONS its command line named ('--chunk', '-t', ...), in order: none for count's own plan."""
        named, argv, k = [], self.doc["provenance"]["argv"][2:], 0
        while k < len(argv) and argv[k] != "--":      # after "--", only the file
            option, attached = argv[k].split("=", 1)[0], "=" in argv[k]
            if option.startswith("-t") and not option.startswith("--") and option != "-t":
                option, attached = "-t", True         # -t4 as -t 4
            if option in PLAN_OPTIONS and option not in named:
                named.append(option)
            k += 2 if option in PLAN_OPTIONS + OTHER_OPTIONS and option not in FLAGS and not attached else 1
        return named

    @property
    def plan_before(self):
        """Where the file timed count's plan of an earlier commit (its recorded plan is not counts_plans()'s), that
        plan in words ('16 MiB x 4, 1 MiB pieces'); None where it timed count's plan now."""
        now = counts_plans().get(self.backend, {})
        if all(self.doc.get(field) == value for field, value in now.items()):
            return None
        def size(field):
            return fmt.size_words(self.doc[field]) if self.doc.get(field) else "not recorded"
        pieces = f"{size('piece_bytes')} pieces"
        return f"{size('chunk_bytes')} x {self.doc.get('buffers', '?')}, {pieces}" if self.backend == "cuda" else pieces

    own_plan = property(lambda self: not self.plan_options and self.plan_before is None)

    def entry(self, name):
        """The entry `name` ({name, what, samples_s, gbps}), or {} where the file has none."""
        return next((e for e in self.doc["entries"] if e["name"] == name), {})

    def gbps(self, name):
        """{median, p10, p90} GB/s of an entry, or None where the file has no such entry."""
        return self.entry(name).get("gbps")

    def pct(self, name, of=None):
        """An entry's median GB/s as a percent of another's (by default the floor's); None where it is absent."""
        found = self.gbps(name)
        return None if found is None else 100 * found["median"] / self.gbps(of or self.floor_entry)["median"]

    count_pct = property(lambda self: self.pct(COUNT))
    control_pct = property(lambda self: self.pct(again(self.floor_entry)))
    count_control_pct = property(lambda self: self.pct(again(COUNT), of=COUNT))  # None before count had its pair
    reads_alone_pct = property(lambda self: self.pct(COUNT, of=self.reads_entry))   # count over its own reads
    reads_pct = property(lambda self: self.pct(self.reads_entry))   # its own reads alone over the floor

    @property
    def cached(self):
        """The fraction of the file page-cached before the first pass; None where count-bench could not tell."""
        found = self.doc["file"]["page_cached_before"]
        return found if found >= 0 else None

    @property
    def counting_alone_pct(self):
        """The CPU's counting alone on the bytes in memory, as a percent of the floor; None for a GPU bench."""
        alone = self.doc.get("counting_alone")
        return self.pct(alone["entry"]) if alone else None

    @property
    def machine(self):
        """'NVIDIA H200 (host Intel(R) Xeon(R) Processor (Emerald Rapids, family 6, model 207), 16 logical
        cores)' or 'AMD EPYC (Zen 4, family 25, model 17), 2 logical cores'."""
        cpu = cpu_and_cores(self.doc["environment"])
        device = self.doc.get("device")
        return f"{device['name']} (host {cpu})" if device else cpu

    @property
    def plan(self):
        """How count read the file: '14 reading threads, 8 x 4 MiB pinned' or '2 threads, avx512 path'."""
        if self.backend == "cpu":
            path = (self.doc.get("cpu_paths") or {}).get(self.impl)
            return f"{self.doc['threads']} threads, {path or 'path not recorded'}" + (" path" if path else "")
        chunk, buffers = self.doc.get("chunk_bytes"), self.doc.get("buffers")
        ring = f", {buffers} x {fmt.size_words(chunk)} pinned" if chunk and buffers else ""
        return f"{self.doc['threads']} reading threads{ring}"

    @property
    def verdict(self):
        if self.bytes < TARGET_MIN_BYTES:
            return NO_TARGET
        if self.cached is None or self.cached < MIN_CACHED:
            return f"no target (not page-cached: {fmt.MISSING if self.cached is None else f'{self.cached:.2f}'})"
        if self.plan_options:
            return f"{NOT_JUDGED} (a plan of its own: {' '.join(self.plan_options)})"
        if self.plan_before:
            return f"{NOT_JUDGED} (count's plan before: {self.plan_before})"
        if self.settle_s < SETTLE_MIN_S:
            return f"{INCONCLUSIVE} (passes back to back)"
        if abs(self.control_pct - 100) > AA_BAND:
            return f"{INCONCLUSIVE} (A/A {fmt.pct(self.control_pct)})"
        if self.count_control_pct is not None and abs(self.count_control_pct - 100) > AA_BAND:
            return f"{INCONCLUSIVE} (count's A/A {fmt.pct(self.count_control_pct)})"
        if self.busy:
            return f"{INCONCLUSIVE} (busy: {self.taken_words})"
        return MET if self.count_pct >= TARGET_PCT else NOT_MET

    @property
    def taken_cpu_s(self):
        """CPU seconds others took while it timed: other processes', or the hypervisor's steal where larger."""
        known = [s for s in (self.others_cpu_s, self.steal_s) if s is not None]
        return max(known) if known else None

    @property
    def taken_words(self):
        stolen = self.steal_s is not None and self.steal_s > (self.others_cpu_s or 0)
        who = "the hypervisor stole" if stolen else "others used"
        return f"{who} {self.taken_cpu_s:.2f} CPU s in {self.timed_s:.2f} s"

    @property
    def busy(self):
        """Whether others took more than BUSY_CPU_PER_S CPU seconds a second while it timed."""
        return bool(self.taken_cpu_s is not None and self.timed_s and
                    self.taken_cpu_s / self.timed_s > BUSY_CPU_PER_S)


def newest_benches(benches):
    """For a user's own appendix: the newest file per machine, implementation, file and reading plan."""
    newest = {}
    for b in sorted(benches, key=lambda b: b.doc["started"]):
        newest[(b.machine, b.impl, b.file_name, b.bytes, b.plan, b.doc.get("piece_bytes"), bool(b.plan_options))] = b
    return sorted(newest.values(), key=lambda b: (b.backend, b.machine, b.doc["started"]))


# ---- the report's table ----------------------------------------------------------------------------

def _gbps_cell(found):
    return f"{fmt.number(found['median'], 1)} ({fmt.number(found['p10'], 1)}..{fmt.number(found['p90'], 1)})"


def _others_cell(bench):
    # /proc/stat and getrusage tick apart, so an idle machine can come out a little under 0: shown as 0
    others = fmt.number(None if bench.others_cpu_s is None else max(0.0, bench.others_cpu_s), 2)
    return others if bench.steal_s is None else f"{others} ({fmt.number(bench.steal_s, 2)} stolen)"


def _aa_cell(bench):
    floor = fmt.pct(bench.control_pct)
    return floor if bench.count_control_pct is None else f"{floor} (count {fmt.pct(bench.count_control_pct)})"


def bench_table(benches):
    columns = ["machine", "commit", "impl", "plan", "file", "cached", "others' CPU s", "count GB/s", "floor",
               "floor GB/s", "A/A", "count % of floor", "its reads alone GB/s", "counting alone % of floor",
               "verdict"]
    rows = []
    for b in benches:
        rows.append([b.machine, commit_line(b.doc["provenance"]), b.impl, b.plan,
                     f"{b.file_name} ({fmt.size_words(b.bytes)})", fmt.number(b.cached, 2),
                     _others_cell(b),
                     _gbps_cell(b.gbps(COUNT)), b.floor_entry,
                     _gbps_cell(b.gbps(b.floor_entry)), _aa_cell(b), fmt.pct(b.count_pct),
                     fmt.number(b.gbps(b.reads_entry)["median"], 1), fmt.pct(b.counting_alone_pct), b.verdict])
    floors = dict.fromkeys((b.floor_entry, b.entry(b.floor_entry).get("what") or b.floor_what) for b in benches)
    notes = ["Each row: one `histostudy count-bench` file, its entries timed in rotating order on the same "
             "page-cached file, each pass after the idle the file records (settle_s; none in files made before "
             "count-bench settled, whose passes ran back to back); GB/s: the file's bytes over each pass's time, "
             "median (p10..p90). Every pass's bins "
             "were checked against the reference's before the file was written. Commit: what the binary was built "
             "from. Others' CPU s: CPU seconds other processes used while the timed passes ran (in files made before "
             "count-bench recorded the passes alone, over its whole timed window), and in brackets, "
             "where recorded, the seconds the hypervisor stole (gave other guests while this machine's CPUs had "
             "work), which the first figure can miss.",
             "Floors: " + "; ".join(f"{e}: {what}" for e, what in floors) + ". A/A: the floor timed again, "
             "as a percent of itself: what 'same' looks like in that file; in brackets, where recorded, count's own "
             "pair (count_again, timed in another place of the rotation, so an order effect on count shows there). Cached: the fraction of the file in the "
             "page cache before the first pass.",
             "Its reads alone: count's own reads without counting (CPU: its threads' preads, discarded; GPU: its "
             "readers into the pinned buffers). Counting alone (CPU): its counting on a copy of the file's bytes "
             "in memory, as count would run if reading cost nothing.",
             f"Target: count at >= {TARGET_PCT:g}% of its floor on files of {fmt.size_words(TARGET_MIN_BYTES)} "
             f"and more, at least {MIN_CACHED:g} page-cached, each pass after at least {SETTLE_MIN_S * 1000:g} ms "
             f"idle, with count's own plan now (data/registry.json's count_plans; a file that names "
             f"{', '.join(PLAN_OPTIONS)}, or records count's plan of an earlier commit, times another: shown, not "
             f"judged), with the A/A pairs within {AA_BAND:g}% and other "
             f"processes (or, where more, the hypervisor's steal) taking at most {BUSY_CPU_PER_S:g} CPU s a second "
             "timed (else inconclusive); the verdict "
             "compares the unrounded figure. Back to back, each entry is timed in the state the one before it in "
             "the rotation left, and count always came right after its reads alone: on the H200 host a read into "
             "the pinned buffers after 40 ms of anything else ran 16-30% slower than one right after another "
             "(data/explorations/20261202T0250Z_gpu_count_hybrid/)."]
    return Table("count at the speed of its input: count-bench against its floor", columns, rows, notes,
                 align="lllll" + "rr" + "r" + "l" + "r" * 5 + "l")


def overall(benches):
    """Over the files that could be judged (a target, count's own plan, and neither noise nor a busy machine): not
    met where one missed, met where all met; with none, inconclusive, not judged (every file a plan of its own)
    or no target."""
    verdicts = [b.verdict for b in benches]
    judged = [v for v in verdicts if v in (MET, NOT_MET)]
    if judged:
        return NOT_MET if NOT_MET in judged else MET
    if any(v.startswith(INCONCLUSIVE) for v in verdicts):
        return INCONCLUSIVE
    return NOT_JUDGED if verdicts and all(v.startswith(NOT_JUDGED) for v in verdicts) else NO_TARGET


def inconclusive(benches):
    return [b for b in benches if b.verdict.startswith(INCONCLUSIVE)]


def reads_bound(b):
    """A file not met where count kept up with its own reads (within the A/A band, or faster) and those reads alone
    were under the target, its counting alone (CPU) not: the reading bound it, not the counting."""
    return (b.verdict == NOT_MET and b.reads_pct < TARGET_PCT and
            b.reads_alone_pct >= 100 - AA_BAND and
            (b.counting_alone_pct is None or b.counting_alone_pct >= TARGET_PCT))


def reads_bound_prose(benches):
    """Where every file not met was bound by its reading (reads_bound), the report says so, by medians."""
    missed = [b for b in benches if b.verdict == NOT_MET]
    if not missed or not all(reads_bound(b) for b in missed):
        return ""
    files = "the file" if len(missed) == 1 else f"the {len(missed)} files"
    return (f". On {files} not met, count's own reads alone ran at {value_range([b.reads_pct for b in missed], 1, '%')} "
            f"of the floor, under {TARGET_PCT:g}%, and count at "
            f"{value_range([b.reads_alone_pct for b in missed], 0, '%')} of them (medians): the reading bound count "
            "there, not the counting")


def other_plans_prose(own, others):
    """The files timed with other reading plans (options of their own, or count's plan of an earlier commit), by
    plan, in GB/s, beside count's own plan now on the same files where there are such."""
    def gbps(benches):
        return value_range([b.gbps(COUNT)["median"] for b in benches], 1) + " GB/s"

    by_plan = "; ".join(f"{plan}: {gbps([b for b in others if b.plan == plan])}"
                        for plan in dict.fromkeys(b.plan for b in others))
    paths = {b.doc["file"]["path"] for b in others}   # a call's files have paths of their own (a fresh folder)
    same_files = [b for b in own if b.doc["file"]["path"] in paths]
    beside = f", against {gbps(same_files)} with count's own plan on the same files" if same_files else ""
    return (f"Timed with other reading plans, options of their own or count's plan of an earlier commit "
            f"({len(others)} file{'s' if len(others) > 1 else ''}, not judged), count ran at {by_plan}{beside}")


def count_prose(m):
    benches = m.benches
    if not benches:
        return f"The count benchmark: {m.missing(ROLE)}"
    parts = []
    for backend, what in (("cpu", "CPU implementations"), ("cuda", "GPU implementations")):
        group = [b for b in benches if b.backend == backend]
        for machine in dict.fromkeys(b.machine for b in group):
            here = [b for b in group if b.machine == machine and b.own_plan]
            other_plans = [b for b in group if b.machine == machine and not b.own_plan]
            if not here:
                prose = other_plans_prose(here, other_plans)
                parts.append(f"{what} on {machine}: {prose[0].lower()}{prose[1:]}")
                continue
            text = (f"{what} on {machine}: count at {value_range([b.count_pct for b in here], 0, '%')} of "
                    f"{here[0].floor_entry} ({here[0].floor_what}) over {len(here)} file"
                    f"{'s' if len(here) > 1 else ''}, its A/A pair at "
                    f"{value_range([b.control_pct for b in here], 0, '%')} and count at "
                    f"{value_range([b.reads_alone_pct for b in here], 0, '%')} of its own reads alone: "
                    f"**{overall(here)}**")
            noisy = inconclusive(here)
            if noisy:
                judged = [b.count_pct for b in here if b.verdict in (MET, NOT_MET)]
                rest = f"; the {len(judged)} judged at {value_range(judged, 0, '%')}" if judged else ""
                text += (f" ({len(noisy)} of the {len(here)} files inconclusive, their passes back to back, their machine "
                         f"busy or their A/A pair apart: count at {value_range([b.count_pct for b in noisy], 0, '%')} there{rest})")
            if min(b.count_pct for b in here) > 100:
                text += (f". The floor, {here[0].floor_entry}, does not bind here: count runs faster than it, and "
                         "its own reads alone are the figure to read")
            alone = [b.counting_alone_pct for b in here if b.counting_alone_pct is not None]
            if alone and max(alone) < TARGET_PCT:
                text += (f". Counting alone, on the file's bytes already in memory, runs at {value_range(alone, 0, '%')} "
                         f"of the floor: under {TARGET_PCT:g}% however the file is read, so on this "
                         "machine the target needs a faster counting kernel or more cores")
            text += reads_bound_prose(here)
            if other_plans:
                text += ". " + other_plans_prose(here, other_plans)
            parts.append(text)
    return (f"`histostudy count-bench` times `count` on a page-cached file against its own floor in the same run, in "
            f"rotating order with an A/A pair; the target is at least {TARGET_PCT:g}% of that floor on "
            f"files of {fmt.size_words(TARGET_MIN_BYTES)} and more (docs/study-spec.md section 5). "
            + ". ".join(parts) + ".")


def count_section(m):
    blocks = [Heading("`count` at the speed of its input", 2), Para(count_prose(m))]
    return blocks + ([TableBlock(bench_table(m.benches))] if m.benches else [])


PART = Part(ROLE, report=count_section, joins="performance")
