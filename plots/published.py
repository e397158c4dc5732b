"""The published figures, read from data/published/ (never typed here).

lesson_t4.csv holds one figure a row, per source (the lesson's CUDA 12.6
table and its partial CUDA 13.0 run); table_16_4_per_block.csv holds the
textbook's Mpix/s per GPU generation.
"""
import csv
import pathlib
from dataclasses import dataclass, field

from plots.results import ResultError

LESSON_FILE = "lesson_t4.csv"
TABLE_16_4_FILE = "table_16_4_per_block.csv"

# The lesson's input names and ours (study/driver/inputs.cpp builds the same bytes).
PUBLISHED_INPUTS = {"uniform bytes": "uniform", "english text": "lesson_english", "all one byte": "one_byte"}
LESSON_INPUTS = tuple(PUBLISHED_INPUTS.values())   # the three the lesson ran, by our names
# The lesson's names for its kernels, as lesson_t4.csv's metrics spell them (NAME_ms, NAME_gbs,
# global_atomics_NAME_kernel): the published file's words, and the roles our implementations of them play
# (plots/results.py). The one place that names them.
LESSON_ROLES = {"global": "baseline", "private": "privatized", "sum_bytes": "reader"}
LESSON_NAMES = {role: name for name, role in LESSON_ROLES.items()}


def lesson_name(role):
    """What the lesson calls its kernel of `role` ('private' for privatized), or None."""
    return LESSON_NAMES.get(role)
# First compute capability of each generation named in Table 16-4 (and later
# ones), so a recorded GPU can be placed among them.
GENERATION_CC = {"Tesla": (1, 0), "Fermi": (2, 0), "Kepler": (3, 0), "Maxwell": (5, 0), "Pascal": (6, 0),
                 "Volta": (7, 0), "Turing": (7, 5), "Ampere": (8, 0), "Ada": (8, 9), "Hopper": (9, 0),
                 "Blackwell": (10, 0)}


@dataclass
class LessonSource:
    """One source of lesson_t4.csv: a GPU, a CUDA version, its figures."""
    source: str
    gpu: str
    compute_capability: str
    driver: str
    cuda: str
    build: str
    figures: dict = field(default_factory=dict)  # (our input name or "-", metric) -> float

    def get(self, metric, input="-"):
        return self.figures.get((input, metric))

    def kernel(self, role, unit, input="-"):
        """The published figure in `unit` ('ms', 'gbs') of the lesson's kernel of `role` on `input`, or None."""
        name = lesson_name(role)
        return self.get(f"{name}_{unit}", input) if name else None

    def kernel_ms(self, role, input):
        """The published time of the lesson's kernel of `role` on `input` (or at large), or None."""
        return self.kernel(role, "ms", input) or self.kernel(role, "ms")

    def global_atomics(self, role):
        """The global atomic updates the lesson counts for its kernel of `role`, or None."""
        name = lesson_name(role)
        return self.get(f"global_atomics_{name}_kernel") if name else None

    @property
    def cuda_version(self):
        major, minor = self.cuda.split(".")[:2]
        return int(major), int(minor)

    @property
    def label(self):
        return f"{self.gpu}, CUDA {self.cuda} (published)"


@dataclass
class Published:
    directory: pathlib.Path
    lesson: list            # LessonSource, in file order
    table_16_4: dict        # generation -> {distinct values: Mpix/s}
    distinct_values: list   # as the table orders them (256 ... 1)

    def path(self, name):
        return self.directory / name


def _read_lesson(path):
    sources = {}
    with open(path, newline="") as f:
        for rec in csv.DictReader(f):
            src = sources.setdefault(rec["source"], LessonSource(
                rec["source"], rec["gpu"], rec["compute_capability"], rec["driver"], rec["cuda"], rec["build"]))
            input = PUBLISHED_INPUTS.get(rec["input"], rec["input"])
            src.figures[(input, rec["metric"])] = float(rec["value"])
    return list(sources.values())


def _read_table_16_4(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        generations = reader.fieldnames[1:]
        table = {g: {} for g in generations}
        order = []
        for rec in reader:
            k = int(rec["distinct_values"])
            order.append(k)
            for g in generations:
                table[g][k] = float(rec[g])
    return table, order


def _read(reader, path, shown):
    try:
        return reader(path)
    except (OSError, KeyError, ValueError, TypeError, IndexError) as e:
        raise ResultError(shown, f"cannot read the published figures ({type(e).__name__}: {e})") from None


def load_published(directory, shown_prefix=""):
    """Both published files; a missing or malformed one raises ResultError naming it."""
    directory = pathlib.Path(directory)
    table, order = _read(_read_table_16_4, directory / TABLE_16_4_FILE, shown_prefix + TABLE_16_4_FILE)
    lesson = _read(_read_lesson, directory / LESSON_FILE, shown_prefix + LESSON_FILE)
    return Published(directory, lesson, table, order)
