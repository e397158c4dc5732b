"""Reading Nsight Compute's output: its version, the metrics a GPU has, and its raw-page CSV.

    ncu --version                                   -> version()
    ncu --query-metrics --csv                       -> available_metrics()
    ncu --csv --page raw --print-units base --nvtx  -> raw_report()

The raw page is one header row (ID, Process ID, ..., Kernel Name, ..., a column per metric), one row of units,
then a row per profiled kernel launch. ncu mixes its own lines (==PROF==, ==WARNING==, ==ERROR==) and, without
--log-file, the application's output into the same stream: rows that are not the table's are set aside, never
guessed at. With --nvtx, a column "thread Domain:Push/Pop_Range:..." holds the launch's NVTX ranges; histostudy
names each case's range (study/driver/case_range.hpp) "hs-case|key=value|...|", values %XX-encoded.

Everything wrong with the output is a NcuError with one line saying what (the counters' permission refused,
no table at all); what the table lacks (a metric's column, a value given as n/a) is reported, not raised.
"""
import csv
import io
import re
import urllib.parse
from dataclasses import dataclass, field

PERMISSION = "ERR_NVGPUCTRPERM"
CASE_PREFIX = "hs-case|"
_CASE = re.compile(r"hs-case\|((?:[a-z_]+=[^|\"]*\|)+)")
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?")
_MISSING_METRIC = re.compile(r"Failed to find metric\s+(?:regex:)?\^?([A-Za-z0-9_]+)")


class NcuError(Exception):
    """Output that cannot be used; the message is one line. kind: 'permission', 'empty' or 'error'."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


@dataclass
class Launch:
    id: int
    kernel: str
    grid: str
    block: str
    values: dict            # {metric column: float, or None where ncu gave no number (n/a, empty)}
    cases: list             # the hs-case ranges it ran in, outermost first: [{key: value}]
    nvtx: str = ""          # the NVTX cell as ncu wrote it

    @property
    def case(self):
        """The innermost case range, or None for a launch outside every case."""
        return self.cases[-1] if self.cases else None


@dataclass
class RawReport:
    launches: list                                    # [Launch], in the order ncu profiled them
    metric_columns: list                              # the metric columns the table has
    units: dict                                       # {metric column: unit}
    messages: list = field(default_factory=list)      # ncu's ==ERROR== and ==WARNING== lines
    unknown_metrics: list = field(default_factory=list)  # base names ncu said it cannot find
    has_nvtx: bool = False                            # whether the table has an NVTX range column
    other_lines: int = 0                              # lines that are neither ncu's nor the table's

    def missing(self, asked):
        """The metrics of `asked` that have no column in the table."""
        return [m for m in asked if m not in self.units]


def number(text):
    """A value as ncu prints it with --print-units base ('1,400,437.33', '96.46', '0') as a float; None for
    'n/a', an empty cell or anything else that is not one number."""
    text = (text or "").strip()
    if not text or not _NUMBER.fullmatch(text) or not any(c.isdigit() for c in text):
        return None
    return float(text.replace(",", ""))


def version(text):
    """'2025.3.1.0' from `ncu --version` ('... Version 2025.3.1.0 (build 36398880) (public-release)')."""
    m = re.search(r"Version\s+(\d[\w.]*)", text or "")
    if not m:
        raise NcuError("error", f"ncu --version printed no version: {_first_line(text)}")
    return m.group(1)


def available_metrics(text):
    """The base metric names `ncu --query-metrics --csv` lists for the GPU (column 'Metric name')."""
    _raise_on_errors(text)
    rows = list(csv.reader(io.StringIO(text or "")))
    header = next((i for i, r in enumerate(rows) if r and r[0].strip() == "Metric name"), None)
    if header is None:
        raise NcuError("empty", f"ncu --query-metrics printed no metric table: {_first_line(text)}")
    return {r[0].strip() for r in rows[header + 1:] if r and r[0].strip()}


def base_name(metric):
    """'lts__t_requests_srcunit_tex_op_red' of 'lts__t_requests_srcunit_tex_op_red.sum'."""
    return metric.split(".", 1)[0]


def decode_case(text):
    """{key: value} of one 'hs-case|key=value|...|' range name; 'toolchains' as a list."""
    fields = {}
    for item in text.removeprefix(CASE_PREFIX).strip("|").split("|"):
        key, _, value = item.partition("=")
        fields[key] = value
    fields["toolchains"] = [urllib.parse.unquote(t) for t in fields.get("toolchains", "").split(",") if t]
    return {k: v if k == "toolchains" else urllib.parse.unquote(v) for k, v in fields.items()}


def cases_in(cell):
    """Every hs-case range named in an NVTX cell, outermost first."""
    return [decode_case(m.group(0)) for m in _CASE.finditer(cell or "")]


def raw_report(text):
    """The raw page's table. Raises NcuError when counters were refused or there is no table."""
    text = text or ""
    messages = [line.strip() for line in text.splitlines() if line.startswith(("==ERROR==", "==WARNING=="))]
    unknown = list(dict.fromkeys(m.group(1) for line in messages for m in _MISSING_METRIC.finditer(line)))
    _raise_on_errors(text)
    rows = list(csv.reader(io.StringIO(text)))
    header = next((i for i, r in enumerate(rows) if len(r) > 1 and r[0] == "ID" and "Kernel Name" in r), None)
    if header is None:
        if unknown:
            return RawReport([], [], {}, messages, unknown)
        errors = [m for m in messages if m.startswith("==ERROR==")]
        raise NcuError("empty", "ncu printed no table of launches" + (f": {errors[0]}" if errors else
                                                                         f" ({_first_line(text)})"))
    columns = rows[header]
    unit_row = rows[header + 1] if header + 1 < len(rows) and len(rows[header + 1]) == len(columns) \
        and not rows[header + 1][0].strip() else None
    at = {name: i for i, name in enumerate(columns)}
    nvtx = next((i for i, name in enumerate(columns) if "Push/Pop_Range" in name), None)
    fixed = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
             "Grid Size", "Device", "CC"}
    metric_columns = [c for i, c in enumerate(columns) if c not in fixed and i != nvtx and "_Range" not in c]
    units = {c: (unit_row[at[c]] if unit_row else "") for c in metric_columns}
    launches, other = [], 0
    for r in rows[header + (2 if unit_row else 1):]:
        if len(r) != len(columns) or not r[0].strip().isdigit():
            other += bool(r) and not r[0].startswith("==")
            continue
        launches.append(Launch(int(r[0]), r[at["Kernel Name"]], r[at["Grid Size"]] if "Grid Size" in at else "",
                               r[at["Block Size"]] if "Block Size" in at else "",
                               {c: number(r[at[c]]) for c in metric_columns},
                               cases_in(r[nvtx]) if nvtx is not None else [], r[nvtx] if nvtx is not None else ""))
    return RawReport(launches, metric_columns, units, messages, unknown, nvtx is not None, other)


def _raise_on_errors(text):
    for line in (text or "").splitlines():
        if PERMISSION in line:
            raise NcuError("permission", "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): "
                                         "profile as an administrator, or have the driver loaded with "
                                         "NVreg_RestrictProfilingToAdminUsers=0")


def _first_line(text):
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[0][:200] if lines else "no output"
