"""Reading result files (data/runs/*.json) and asking them for rows.

Every file is validated against data/schema/result.schema.json before use;
anything wrong raises ResultError whose message starts with the file's path.
Which implementation plays which part is a row's roles: its own, else
data/registry.json's (roles, Kernel); no module names a kernel to find it.
"""
import functools
import importlib.metadata
import itertools
import json
import math
import os
import pathlib
import re
import warnings
from dataclasses import dataclass

import jsonschema
import numpy as np

from plots import stats

FORMAT = "histostudy-result"
SCHEMA_VERSION = 1  # the newest version this reader knows
DATA = pathlib.Path(__file__).resolve().parent.parent / "data"
SCHEMA_PATH = DATA / "schema" / "result.schema.json"
REGISTRY_PATH = DATA / "registry.json"   # the implementations' roles (data/schema/README.md)


class ResultError(Exception):
    """A result file that cannot be used; the message names the file, in one line whatever the file holds."""

    def __init__(self, path, problem):
        super().__init__(one_line(f"{path}: {problem}"))
        self.path, self.problem = str(path), problem


def one_line(text):
    """`text` with every character that is not printable (a newline, a control, half a UTF-16 pair) escaped."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


@dataclass(frozen=True)
class Run:
    path: str  # as the caller named it; reports print it
    doc: dict

    @property
    def rows(self):
        return self.doc["rows"]

    @property
    def environment(self):
        return self.doc["environment"]

    @property
    def name(self):
        return pathlib.Path(self.path).name

    @property
    def incomplete(self):
        """The error a run stopped on after measuring (its rows hold what was measured), or None."""
        return (self.doc.get("incomplete") or {}).get("error")

    def toolchains(self, controls=True):
        """Toolchains in the order their rows first appear; controls=False leaves out A/A control entries."""
        return list(dict.fromkeys(r["toolchain"] for r in self.rows if controls or not is_control(r)))

    def has_gpu_rows(self, experiment=None):
        return any(r["backend"] == "cuda" and experiment in (None, r["experiment"]) for r in self.rows)


# What drafts 2019-09 and 2020-12 added to draft 7's validation, and what may stand beside a $ref in draft 7, which
# ignores a $ref's siblings; the subschemas' places, to look for these in keywords and not in property names.
NEWER_KEYWORDS = {"$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveAnchor", "$recursiveRef", "$vocabulary",
                  "dependentRequired", "dependentSchemas", "maxContains", "minContains", "prefixItems",
                  "unevaluatedItems", "unevaluatedProperties"}
ANNOTATIONS = {"$ref", "$comment", "title", "description", "default", "examples", "deprecated", "readOnly",
               "writeOnly"}
SUBSCHEMA = {"items", "additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if", "then",
             "else"}
SUBSCHEMA_LISTS = {"allOf", "anyOf", "oneOf"}
SUBSCHEMA_MAPS = {"properties", "patternProperties", "$defs", "definitions", "dependencies"}


def draft7_differences(schema, where="#"):
    """Where jsonschema's draft 7 validator would judge this 2020-12 schema otherwise: a keyword draft 7 does not
    know, or a keyword that validates beside a $ref. [] where it judges it alike."""
    if not isinstance(schema, dict):
        return []
    found = [f"{where}/{key}" for key in schema if key in NEWER_KEYWORDS]
    if "$ref" in schema:
        found += [f"{where}/{key} beside $ref" for key in schema if key not in ANNOTATIONS]
    for key, value in schema.items():
        if key in SUBSCHEMA:
            found += draft7_differences(value, f"{where}/{key}")
        elif key in SUBSCHEMA_LISTS and isinstance(value, list):
            for i, sub in enumerate(value):
                found += draft7_differences(sub, f"{where}/{key}/{i}")
        elif key in SUBSCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                found += draft7_differences(sub, f"{where}/{key}/{name}")
    return found


def _named_validator(schema):
    """The validator class of the draft the schema's $schema names, or None where this jsonschema predates it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # jsonschema 3.2 warns of a draft it lacks, answers 7
        validator = jsonschema.validators.validator_for(schema, default=None)
    named = schema.get("$schema", "").rstrip("#")
    meta = getattr(validator, "META_SCHEMA", {})
    return validator if meta.get("$id", meta.get("id", "")).rstrip("#") == named else None


def schema_validator(path):
    """A validator for the schema at `path`: of the draft its $schema names; where this jsonschema predates that
    draft (3.2, Ubuntu 22.04's, knows up to draft 7), draft 7's, where that judges the schema alike."""
    schema = json.loads(path.read_text())
    validator = _named_validator(schema)
    if validator is None:
        differences = draft7_differences(schema)
        if differences:
            version = importlib.metadata.version("jsonschema")
            raise ResultError(path, f"jsonschema {version} cannot read this schema ({differences[0]} needs the draft "
                                    f"its $schema names): pip install 'jsonschema>=4.0'")
        validator = jsonschema.Draft7Validator
    return _with_fast_columns(validator, schema)(schema)


# A value of each JSON type, told strictly: a bool is no number, 1.0 no integer (jsonschema would take it).
STRICT_TYPES = {"number": lambda v: type(v) in (int, float), "integer": lambda v: type(v) is int,
                "boolean": lambda v: type(v) is bool, "string": lambda v: type(v) is str, "null": lambda v: v is None}
# The keywords of an item schema the fast path judges; an item schema with any other is left to jsonschema.
COLUMN_KEYWORDS = {"type", "minimum", "exclusiveMinimum", "description", "title"}


def _column_check(item_schema, root):
    """A test of one item against a simple item schema ({"type": ..., "minimum": ...}, or a local $ref to one)
    that passes only items jsonschema would pass, or None where the schema is not that simple."""
    if set(item_schema) == {"$ref"} and item_schema["$ref"].startswith("#/"):
        item_schema = functools.reduce(lambda s, key: s.get(key, {}), item_schema["$ref"][2:].split("/"), root)
    if not isinstance(item_schema, dict) or "type" not in item_schema or set(item_schema) - COLUMN_KEYWORDS:
        return None
    types = item_schema["type"] if isinstance(item_schema["type"], list) else [item_schema["type"]]
    low, above = item_schema.get("minimum"), item_schema.get("exclusiveMinimum")
    if any(t not in STRICT_TYPES for t in types) or any(type(b) not in (int, float, type(None)) for b in (low, above)):
        return None
    kinds = [STRICT_TYPES[t] for t in types]
    in_range = lambda v: (low is None or v >= low) and (above is None or v > above)
    return lambda v: any(k(v) for k in kinds) and (type(v) not in (int, float) or in_range(v))


def _with_fast_columns(validator, root):
    """The validator class, but a long array of simple items (a result file's sample columns: nine in ten of its
    values) is judged in one pass; an array that fails it goes to jsonschema, which finds and names the problem.
    Same verdicts, a fifth of the time."""
    items = validator.VALIDATORS["items"]

    def fast_items(checker, item_schema, instance, schema):
        check = _column_check(item_schema, root) if isinstance(item_schema, dict) else None
        if check is not None and isinstance(instance, list) and all(map(check, instance)):
            return
        yield from items(checker, item_schema, instance, schema)
    return jsonschema.validators.extend(validator, {"items": fast_items})


def _schema_validator():
    return schema_validator(SCHEMA_PATH)


def _reject_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def _where(error):
    """'rows[3].summary_ms.median' for a jsonschema error's location."""
    where = ""
    for part in error.absolute_path:
        where += f"[{part}]" if isinstance(part, int) else (f".{part}" if where else str(part))
    return where or "the top level"


def check_version(path, doc, key, known):
    """Refuses a document whose `key` is a version newer than `known`, the newest this reader knows."""
    version = doc.get(key)
    if isinstance(version, int) and not isinstance(version, bool) and version > known:
        raise ResultError(path, f"written by a newer histostudy ({key} {version}; this reader knows up to "
                                f"{known}): update histostudy to read it")


# Problems looked at, at most: each costs half a millisecond, and a file of 100,000 wrong rows took a minute.
MAX_PROBLEMS = 100


def check_schema(path, doc, validator, what):
    """Refuses a document that breaks its schema, naming the first problem's field."""
    errors = sorted(itertools.islice(validator.iter_errors(doc), MAX_PROBLEMS), key=lambda e: list(e.absolute_path))
    if errors:
        first = jsonschema.exceptions.best_match(errors)
        count = f"{'at least ' if len(errors) == MAX_PROBLEMS else ''}{len(errors) - 1}"
        more = f" (and {count} more problems)" if len(errors) > 1 else ""
        raise ResultError(path, f"does not follow the {what} schema at {_where(first)}: {first.message}{more}")


def path_text(path):
    """A path as text any file can hold: the bytes of a name that is not UTF-8 as \\xNN escapes (Python keeps
    them as lone surrogates, which no UTF-8 file can hold)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def read_text(path, shown):
    try:
        return pathlib.Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ResultError(shown, f"cannot read ({e})") from None


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):  # 1e400 parses as inf
        raise ValueError(f"number {text} is out of range")
    return value


def parse_json(path, text):
    """The JSON document of a histostudy file; NaN and Infinity (or a number beyond a double), which no
    histostudy writes, are refused, and so are a lone UTF-16 surrogate (\\udcff) and nesting too deep for
    Python's parser."""
    try:
        doc = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
        if "\\u" in text:   # an escape may stand for half a UTF-16 pair, which no report can print
            json.dumps(doc, ensure_ascii=False).encode("utf-8")
        return doc
    except UnicodeEncodeError as e:
        raise ResultError(path, f"holds a string that is not text ({e.object[e.start:e.end]!a} is half a "
                                "UTF-16 pair)") from None
    except ValueError as e:
        raise ResultError(path, f"not valid JSON, or truncated ({e})") from None
    except RecursionError:
        raise ResultError(path, "nested too deeply to be a histostudy file") from None


def parse_run(path, text):
    """Checks the text of a result file and returns its document."""
    doc = parse_json(path, text)
    if not isinstance(doc, dict) or "format" not in doc:
        raise ResultError(path, f'not a histostudy result file (no "format": "{FORMAT}")')
    if doc["format"] != FORMAT:
        raise ResultError(path, f'not a histostudy result file (format is {doc["format"]!r}, not "{FORMAT}")')
    check_version(path, doc, "schema_version", SCHEMA_VERSION)
    check_schema(path, doc, _schema_validator(), "result")
    bad_time = first_bad_time(doc)
    if bad_time:
        raise ResultError(path, f"{bad_time[0]} is {bad_time[1]!r} ms: a time must be positive and under a day")
    contradiction = first_contradiction(doc)
    if contradiction:
        raise ResultError(path, f"contradicts itself: {contradiction}")
    return doc


def _times(row):
    """(where, [times]) of every time a row records, in ms ('[]' in `where`: a list, indexed when reported).
    A failed row's summary is of no samples."""
    yield "samples_ms[]", row["samples_ms"]
    if row["samples_ms"]:
        yield from ((f"summary_ms.{k}", [t]) for k, t in row["summary_ms"].items())
    if row.get("lesson_mean_ms") is not None:
        yield "lesson_mean_ms", [row["lesson_mean_ms"]]
    yield "sample_log.ms[]", [t for t in (row.get("sample_log") or {}).get("ms", []) if t is not None]


# No sample of one histogram of at most 1 TiB takes a day (12 MB/s): a longer time is a corrupt file.
MAX_TIME_MS = 86_400_000.0


def first_bad_time(doc):
    """('rows[3].samples_ms[0]', 0) for the first time that is zero, negative or a day or more, else None:
    every ratio and rate divides by times, so such a file is bad input, not a fast or slow run."""
    for n, row in enumerate(doc["rows"]):
        for where, times in _times(row):
            for i, t in enumerate(times):
                if not 0 < t < MAX_TIME_MS:
                    return f"rows[{n}].{where.replace('[]', f'[{i}]')}", t
    return None


# ---- what a file says twice ---------------------------------------------------
# study/driver/harness.cpp writes a row's summary, GB/s, share of its floor and input statistics from its samples and
# its bins: where they disagree, the file was edited or corrupted, and a report would show numbers that are not
# the ones measured. Doubles survive JSON to the last bit; 1e-6 leaves room for another printer's rounding.

AGREE = 1e-6


def agree(recorded, computed):
    return math.isfinite(computed) and abs(recorded - computed) <= AGREE * max(abs(recorded), abs(computed))


def first_contradiction(doc):
    """'rows[3] (global on uniform, nvcc 13.0.88): input_stats.busiest_pct is ...' for the first row whose fields
    disagree with one another, else None."""
    floors = first_floors(doc["rows"])
    for n, row in enumerate(doc["rows"]):
        why = bins_contradiction(row["size"], row["input_stats"]) or summary_contradiction(row) or \
            floor_contradiction(floors, row)
        if why:
            return f"rows[{n}] ({row['impl']} on {row['input']}, {row['toolchain']}): {why}"
    return None


def bins_contradiction(size, stats_):
    """Where the busiest bin and the bins used cannot be those of `size` bytes counted into 256 bins."""
    busiest, used, pct = stats_["busiest"], stats_["bins_used"], stats_["busiest_pct"]
    share = 100 * busiest / size
    if not agree(pct, share):
        return f"input_stats.busiest_pct is {pct!r}, but its busiest bin holds {busiest:,} of {size:,} bytes " \
               f"({share:.6g}%)"
    if busiest > size or busiest * used < size:
        return f"input_stats.bins_used is {used}, none holding more than {busiest:,} bytes (busiest): they " \
               f"cannot hold the row's {size:,} bytes"
    if busiest + used - 1 > size:
        return f"input_stats.bins_used is {used}, beside a busiest bin of {busiest:,} bytes: more than the " \
               f"row's {size:,} bytes can fill"
    return None


def summary_contradiction(row):
    """Where summary_ms or gbps is not what the row's samples and bytes read give."""
    samples = row["samples_ms"]
    if not samples:   # a failed or wholly throttled row: nothing summarized
        return None
    summary = row["summary_ms"]
    p10, median, p90 = np.percentile(np.asarray(samples, dtype=float), [10, 50, 90])   # as stats.percentile
    computed = {"median": median, "min": min(samples), "max": max(samples), "p10": p10, "p90": p90,
                "mean": math.fsum(samples) / len(samples)}
    for key, value in computed.items():
        if not agree(summary[key], value):
            return f"summary_ms.{key} is {summary[key]!r} ms, but its {len(samples)} samples_ms " \
                   f"({min(samples):.6g} to {max(samples):.6g} ms) give {value:.6g} ms"
    gbps = row["bytes_read"] / summary["median"] / 1e6
    if not agree(row["gbps"], gbps):
        return f"gbps is {row['gbps']!r}, but {row['bytes_read']:,} bytes read in its median " \
               f"{summary['median']:.6g} ms is {gbps:.6g} GB/s"
    return None


def first_floors(rows):
    """{(impl, toolchain, input, size): the first passing row of it}: where study/driver/harness.cpp's attach_floors
    finds a row's floor."""
    found = {}
    for row in rows:
        if row["check"]["passed"]:
            found.setdefault((row["impl"], row["toolchain"], row["input"], row["size"]), row)
    return found


def floor_contradiction(floors, row):
    """Where pct_of_floor is recorded but is not the row's GB/s over its floor's."""
    if row["pct_of_floor"] is None:
        return None
    floor = floors.get((row["floor_impl"], row["toolchain"], row["input"], row["size"]))
    if floor is None:
        return f"pct_of_floor is {row['pct_of_floor']!r}, but the file holds no passing {row['floor_impl']} row " \
               "of its toolchain, input and size"
    if not floor["gbps"] or not agree(row["pct_of_floor"], 100 * row["gbps"] / floor["gbps"]):
        pct = 100 * row["gbps"] / floor["gbps"] if floor["gbps"] else math.inf
        return f"pct_of_floor is {row['pct_of_floor']!r}, but {row['gbps']:.6g} GB/s over its floor's " \
               f"{floor['gbps']:.6g} is {pct:.6g}%"
    return None


def load_run(path, shown=None):
    """Reads and validates one result file; raises ResultError naming it
    (as `shown`, e.g. 'data/runs/X.json', when given; a name that is not UTF-8 escaped, as path_text does)."""
    shown = path_text(shown or path)
    return Run(shown, _parsed(shown, read_text(path, shown)))


@functools.lru_cache(maxsize=32)
def _parsed(shown, text):
    """parse_run, kept for the same text: validating a large run against the schema takes seconds, and one
    process (the tests, a user's appendix beside the study's) reads the same files again. Readers never change
    a document."""
    return parse_run(shown, text)


_NUMBERED = re.compile(r"^(?P<stem>.*?)(?:-(?P<number>\d{3,}))?\.json$")


def run_order_key(name):
    """Oldest first: names start with the UTC second, and a name taken within that second gets -002, -003, ...
    (STEM.json is the first), so order by the stem without its number, then the number, no number being 1."""
    m = _NUMBERED.match(pathlib.Path(name).name)
    if not m:
        return (pathlib.Path(name).name, 1)
    return (m.group("stem"), int(m.group("number") or 1))


def load_runs(paths, shown=str):
    """The result files `paths`, oldest first (run_order_key); each shown as shown(path)."""
    return [load_run(p, shown(p)) for p in sorted(paths, key=lambda p: run_order_key(p))]


# ---- rows ------------------------------------------------------------------

POLICY_FIELDS = ("grid", "block", "threads", "passes", "copies", "counter_bits", "shared_bytes")

def is_timed(row):
    return row["check"]["passed"] and len(row["samples_ms"]) > 0


def find_rows(run, kernel=None, **match):
    """Timed rows of `kernel` (a Kernel; any, where None) whose fields equal `match`; policy fields as passes=4,
    block=64."""
    def field(row, key):
        return row["policy"][key] if key in POLICY_FIELDS else row.get(key)
    return [row for row in run.rows if is_timed(row) and (kernel is None or kernel.picks(row))
            and all(field(row, k) == v for k, v in match.items())]


def find_row(run, kernel=None, **match):
    """The first timed row matching, or None."""
    rows = find_rows(run, kernel, **match)
    return rows[0] if rows else None


# ---- roles: which implementation plays which part, never found by its name ----

REGISTRY_SHOWN = "data/registry.json"


def registry_doc():
    """data/registry.json's document (`histostudy list --json`); a missing or unparsable file raises ResultError."""
    return parse_json(REGISTRY_SHOWN, read_text(REGISTRY_PATH, REGISTRY_SHOWN))


@functools.lru_cache(maxsize=None)
def registry():
    """data/registry.json's implementations: ({name, backend, roles}, ...), as the C++ registry declares them; a
    missing or malformed file raises ResultError naming it."""
    try:
        entries = registry_doc()["implementations"]
        if not all(isinstance(e["name"], str) and e["backend"] in ("cpu", "cuda") and isinstance(e["roles"], list)
                   for e in entries):
            raise ValueError("every implementation needs a name, a backend (cpu or cuda) and a list of roles")
    except (ResultError, ValueError, KeyError, TypeError) as e:
        raise ResultError(REGISTRY_SHOWN, f"cannot read the implementations' roles ({type(e).__name__}: {e})") \
            from None
    return tuple(entries)


def _entry(impl, backend):
    return next((e for e in registry() if (e["name"], e["backend"]) == (impl, backend)), None)


def roles(row):
    """A row's roles: those it records (the C++ registry's), else data/registry.json's for its implementation
    and backend (runs made before rows recorded them); () for an implementation neither knows."""
    if row.get("roles") is not None:
        return tuple(row["roles"])
    entry = _entry(row["impl"], row["backend"])
    return tuple(entry["roles"]) if entry else ()


def implementation(backend, role):
    """The name of the first implementation of `backend` with `role` in data/registry.json (its order puts the
    study's own before an exploration's)."""
    found = [e["name"] for e in registry() if e["backend"] == backend and role in e["roles"]]
    if not found:
        raise ResultError(REGISTRY_SHOWN, f"names no {backend} implementation with the role {role}")
    return found[0]


def defined_by(rows, field):
    """The implementations whose launch policy in `rows` sets `field` ('passes', 'copies') above 1, in row order:
    the variants that field defines (the lesson's P passes, a copy of the bins per warp)."""
    return list(dict.fromkeys(r["impl"] for r in rows if r["policy"][field] > 1))


@dataclass(frozen=True)
class Kernel:
    """An implementation as the reports ask for it: by its role, or as the implementation `impl` that a data
    property of the rows found (defined_by), never by a name typed in."""
    role: str = None
    impl: str = None
    words: str = ""     # what to call it where neither a role nor the rows name it

    def picks(self, row):
        return self.role in roles(row) if self.role else row["impl"] == self.impl

    def name(self, backend, rows=()):
        """What it is called: its implementation among `rows` of `backend`, else data/registry.json's."""
        if not self.role:
            return self.impl or self.words
        return next((r["impl"] for r in rows if r["backend"] == backend and self.picks(r)), None) or \
            implementation(backend, self.role)


def requested_offset(row):
    """Bytes past a 2 MiB boundary the row asked for its bins. Files without a
    placement record asked for none: the default, 0."""
    return row["placement"]["bins_offset"] if row.get("placement") else 0


def case_key(row):
    """What makes two rows the same measurement, whoever measured it."""
    return (row["experiment"], row["impl"], row["input"], row["size"], tuple(sorted(row["policy"].items())),
            requested_offset(row))


def is_control(row):
    """An A/A control entry: the toolchain it repeats, measured again as an independent executor."""
    return bool(row.get("control_of"))


def control_pair(run, row):
    """(the controlled toolchain's row, its A/A control row) for row's case in `run`, or None."""
    key = case_key(row)
    control = next((r for r in run.rows if is_control(r) and is_timed(r) and case_key(r) == key), None)
    subject = control and next((r for r in run.rows if r["toolchain"] == control["control_of"] and is_timed(r)
                                and case_key(r) == key), None)
    return (subject, control) if subject else None


def aa_comparison(run, row, band=stats.DEFAULT_BAND):
    """stats.Comparison of the A/A control over the toolchain it repeats, for row's case; None without one."""
    pair = control_pair(run, row)
    return stats.compare_samples(pair[0]["samples_ms"], pair[1]["samples_ms"], band) if pair else None


CACHE_WORDS = {"cold": "cold, the L2 flushed before every sample", "hot": "hot, back to back"}


def _controlled_gpu(rows):
    return [r for r in rows if r["backend"] == "cuda" and r.get("sampling") and r.get("placement")]


def sampling_words(rows):
    """How controlled GPU rows were sampled, in words; None for rows without the controls."""
    gpu = _controlled_gpu(rows)
    if not gpu:
        return None
    caches = " and ".join(CACHE_WORDS.get(c, c) for c in sorted({r["sampling"]["cache"] for r in gpu}))
    group = max((r["sampling"]["group"] for r in gpu), key=len)
    return f"samples {caches}; {', '.join(group)} sampled in rotation, sample by sample"


def conditions(rows):
    """Where controlled GPU rows put their bins and how they were sampled, in words; None without controls."""
    gpu = _controlled_gpu(rows)
    if not gpu:
        return None
    return f"{_bins_words(gpu)}; {sampling_words(gpu)}"


def _bins_words(gpu):
    where = sorted({(r["placement"]["bins_offset"], r["placement"]["bins_mod_2mib"]) for r in gpu})
    if len(where) > 2:
        return f"bins at {len(where)} offsets, {where[0][0]:,} to {where[-1][0]:,} bytes past a 2 MiB boundary"
    return "bins " + " and ".join(f"{o:,} bytes past a 2 MiB boundary ({m:,} mod 2 MiB)" for o, m in where)


def is_controlled(run):
    """The study's controls: every GPU row that passed its check (and so was timed) records where its bins lay and
    how it was sampled."""
    return all(r.get("placement") and r.get("sampling") for r in run.rows
               if r["backend"] == "cuda" and r["check"]["passed"])


LIBRARY = "library"   # an executor's describe.kind where it is a library's own call (tools/peers.py)


def library_toolchains(run):
    """The run's toolchains that are a library's own histogram call, not a build of the study's kernels (their
    A/A controls with them): tools/peers.py's rows, a peer beside the study, never one of its kernels."""
    return {e["toolchain"] for e in run.environment["executors"] if (e.get("describe") or {}).get("kind") == LIBRARY}


def is_peers_run(run):
    """A run of library peer rows (tools/peers.py)."""
    libraries = library_toolchains(run)
    return any(r["toolchain"] in libraries for r in run.rows)


def policy_label(row):
    """The policy fields that tell variants of one implementation apart."""
    p = row["policy"]
    parts = []
    if p["grid"]:
        parts.append(f"{p['grid']}x{p['block']}")
    if p["passes"] != 1:
        parts.append(f"P={p['passes']}")
    if p["copies"] != 1:
        parts.append(f"copies={p['copies']}")
    if p["threads"]:
        parts.append(f"{p['threads']} thr")
    return " ".join(parts)


def kernel_label(row):
    """'name copies=8', 'name P=4': the implementation and the variant, without the launch."""
    label = policy_label(row).replace(f"{row['policy']['grid']}x{row['policy']['block']}", "").strip()
    return f"{row['impl']} {label}".strip()


def cuda_version(toolchain):
    """(major, minor) of a CUDA toolchain name such as 'nvrtc 12.6.85'; None for 'cpu'."""
    m = re.search(r"(\d+)\.(\d+)", toolchain)
    return (int(m.group(1)), int(m.group(2))) if m and toolchain != "cpu" else None


def toolchain_pairs(toolchains):
    """(older, newer) CUDA toolchains, same compiler first: what a version audit compares."""
    cuda = sorted((t for t in toolchains if cuda_version(t)), key=lambda t: (cuda_version(t), t))
    pairs = [(a, b) for i, a in enumerate(cuda) for b in cuda[i + 1:] if cuda_version(a) < cuda_version(b)]
    return sorted(pairs, key=lambda p: (p[0].split()[0] != p[1].split()[0], p))


def version_pairs(run):
    """The run's pairs of CUDA toolchains to compare, A/A controls aside, same compiler first."""
    return toolchain_pairs(run.toolchains(controls=False))


# "nvrtc 12.6.85 sm_90" (SASS as the release built it), "nvrtc 12.6.85 compute_90 jit" (PTX, driver-compiled)
MODULE_LABEL = re.compile(r"^nvrtc (\d+)\.(\d+)\.(\d+) (sm|compute)_(\d+)( jit)?$")
MODULE_KINDS = {"sm": "SASS", "compute": "PTX via the driver"}


def module_entry(toolchain):
    """(release (12, 6, 85), kind, arch digits) of a module toolchain label, or None."""
    m = MODULE_LABEL.match(toolchain)
    return ((int(m[1]), int(m[2]), int(m[3])), MODULE_KINDS[m[4]], m[5]) if m else None


def median_ms(row):
    """The row's median time, recomputed from its raw samples (the same
    formula as summary_ms.median, so the two agree)."""
    return stats.median(row["samples_ms"])


def busiest_pct(row):
    return row["input_stats"]["busiest_pct"]


def primary_gpu_toolchain(run):
    """The run's first GPU toolchain, A/A controls aside (the lesson's own build comes first), or None."""
    return next((tc for tc in run.toolchains(controls=False) if tc != "cpu"), None)
