"""The codegen audit (data/codegen/*.json), when one is recorded.

The audit's file format belongs to the study driver; this reader is
deliberately tolerant. It takes as a record any JSON object, at any depth,
that has string "kernel" and "toolchain" keys; "arch" (sm_90, 90, "9.0") is
optional; every numeric value inside the record, nested ones included
(opcodes.LDG.E.U8), is a metric; string keys with "hash" or "sha" in their
name identify the cubin. data/schema/README.md describes what it expects.
"""
import json
import pathlib
import re
from dataclasses import dataclass, field

from plots.published import LESSON_ROLES
from plots.results import ResultError, cuda_version, registry

NO_AUDIT = "no codegen audit recorded"
# Shown first, in this order, when two records differ.
KEY_METRICS = ("reg", "shared", "smem", "spill", "instruction", "sass")


@dataclass
class Record:
    kernel: str
    toolchain: str
    arch: str        # digits only ("90"), or "" when the record names none
    metrics: dict    # flattened numeric values
    hashes: dict     # string identities of the code


@dataclass
class Audit:
    files: list = field(default_factory=list)   # paths read
    records: list = field(default_factory=list)

    def __bool__(self):
        return bool(self.records)

    def describe(self):
        if not self.files:
            return NO_AUDIT
        if not self.records:
            return (f"codegen audit {', '.join(self.files)} holds no records this reader understands "
                    '(objects with "kernel" and "toolchain" keys)')
        return f"codegen audit: {len(self.records)} kernel builds from {', '.join(self.files)}"


def normalize_arch(arch):
    return re.sub(r"\D", "", str(arch)) if arch is not None else ""


def kernel_base(kernel):
    """'name' for 'hs_name<unsigned int>': the implementation's name."""
    return re.sub(r"<.*$", "", kernel).removeprefix("hs_")


def _numeric_leaves(value, prefix=""):
    if isinstance(value, bool):
        return {}
    if isinstance(value, (int, float)):
        return {prefix: value}
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(_numeric_leaves(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {}


def _records_in(value):
    if isinstance(value, dict):
        if str(value.get("arch", "")).startswith("compute_"):
            return []  # a PTX record (ptx_records): not the code the GPU ran; see ptx_hashes
        if isinstance(value.get("kernel"), str) and isinstance(value.get("toolchain"), str):
            metrics = _numeric_leaves({k: v for k, v in value.items() if k not in ("kernel", "toolchain", "arch")})
            hashes = {k: v for k, v in value.items() if isinstance(v, str) and re.search("hash|sha", k)}
            return [Record(value["kernel"], value["toolchain"], normalize_arch(value.get("arch")), metrics, hashes)]
        value = list(value.values())
    if isinstance(value, list):
        return [r for child in value for r in _records_in(child)]
    return []


def ptx_hashes(directory):
    """{(kernel, toolchain, arch digits): normalized PTX SHA-256} from the audit's PTX records."""
    out = {}
    for path in sorted(pathlib.Path(directory).glob("*.json")):
        for r in json.loads(path.read_text(encoding="utf-8")).get("ptx", []):
            out[(r["kernel"], r["toolchain"], normalize_arch(r["arch"]))] = r["ptx_sha256"]
    return out


def lesson_kernels():
    """Our implementations of the kernels the lesson times on its T4, by role, in data/registry.json's order."""
    return [e["name"] for e in registry() if e["backend"] == "cuda" and set(LESSON_ROLES.values()) & set(e["roles"])]


def _hot_loop(record):
    return {k: v for k, v in record.metrics.items() if k.startswith("hot_loop.")}


def release_steps(audit, ptx, impl, arch):
    """[(release, what changed)] for each NVRTC release whose SASS of `impl` (32-bit counters) for `arch`
    differs from the release before: 'SASS', plus 'hot loop' and 'PTX' where those changed too."""
    records = sorted((r for r in audit.records if kernel_base(r.kernel) == impl and r.arch == normalize_arch(arch)
                      and r.toolchain.startswith("nvrtc ") and "long long" not in r.kernel),
                     key=lambda r: cuda_version(r.toolchain) + (r.toolchain,))
    steps = []
    for old, new in zip(records, records[1:]):
        if old.hashes.get("sass_sha256") == new.hashes.get("sass_sha256"):
            continue
        what = ["SASS"] + (["hot loop"] if _hot_loop(old) != _hot_loop(new) else [])
        if ptx.get((old.kernel, old.toolchain, old.arch)) != ptx.get((new.kernel, new.toolchain, new.arch)):
            what.append("PTX")
        steps.append((new.toolchain.removeprefix("nvrtc "), ", ".join(what)))
    return [r.toolchain for r in records], steps


def load_audit(directory, display_prefix=""):
    """Every data/codegen/*.json; a file that is not JSON raises ResultError naming it."""
    audit = Audit()
    for path in sorted(pathlib.Path(directory).glob("*.json")):
        shown = f"{display_prefix}{path.name}"
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ResultError(shown, f"codegen audit is not readable JSON ({e})") from None
        audit.files.append(shown)
        audit.records += _records_in(doc)
    return audit


def _same_toolchain(recorded, wanted):
    if recorded == wanted:
        return True
    return recorded.split()[0] == wanted.split()[0] and cuda_version(recorded) == cuda_version(wanted) is not None


def find(audit, impl, toolchain, arch="", counter_bits=32):
    """The record of `impl` built by `toolchain` for `arch`, or None.
    Where several template instances match, the one for the row's counter width."""
    arch = normalize_arch(arch)
    found = [r for r in audit.records if kernel_base(r.kernel) == impl and _same_toolchain(r.toolchain, toolchain)
             and (not arch or not r.arch or r.arch == arch)]
    wide = "long long" if counter_bits == 64 else "unsigned int"
    preferred = [r for r in found if wide in r.kernel] or found
    return preferred[0] if preferred else None


def _order(key):
    for i, word in enumerate(KEY_METRICS):
        if word in key.lower():
            return (i, key)
    return (len(KEY_METRICS), key)


def difference(base, new, most=4):
    """'registers 16->18; sass_instructions 120->140; 1 more metric differs', or 'identical ...'."""
    if base is None or new is None:
        return "no codegen record for this kernel"
    keys = sorted(set(base.metrics) | set(new.metrics), key=_order)
    changed = [k for k in keys if base.metrics.get(k) != new.metrics.get(k)]
    if not changed:
        same_hash = base.hashes and base.hashes == new.hashes
        return "identical code (same hash)" if same_hash else "same counts"
    shown = [f"{k} {_num(base.metrics.get(k))}->{_num(new.metrics.get(k))}" for k in changed[:most]]
    rest = len(changed) - most
    return "; ".join(shown) + (f"; {rest} more metric{'s' if rest > 1 else ''} differ" if rest > 0 else "")


def _num(value):
    return "-" if value is None else f"{value:g}"


def from_run(run):
    """Kernel attributes the executors recorded in the run itself (an executor's
    describe.kernels = {kernel name: {registers: .., ...}}, arch from describe.target):
    the codegen difference when no audit file is recorded."""
    audit = Audit(files=[f"{run.path} (executors' kernel attributes)"])
    for executor in run.environment["executors"]:
        kernels = executor["describe"].get("kernels")
        if not isinstance(kernels, dict):
            continue
        arch = normalize_arch(executor["describe"].get("target", ""))
        for name, attributes in kernels.items():
            if isinstance(attributes, dict):
                audit.records.append(Record(name, executor["toolchain"], arch, _numeric_leaves(attributes), {}))
    if not audit.records:
        audit.files = []
    return audit


