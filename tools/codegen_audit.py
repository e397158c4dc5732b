#!/usr/bin/env python3
"""The codegen audit: what each toolchain made of each kernel, without a GPU.

For every kernel instantiation x toolchain x arch it records the cubin's
SHA-256, the kernel's own SASS hash and its shape hash (the same for code
that differs only in register numbers and parameter offsets), registers,
barriers, static shared memory, stack and spills (ptxas -v), the SASS
instruction count and opcode counts of the whole kernel and of its hot loop
(with the loop's own hash and shape hash). The NVRTC cubins come from
`histostudy cubins`, i.e. exactly what the NVRTC executor loads; nvcc's come
from `nvcc -cubin` on cuda/nvcc_kernels.cu with the build's nvcc and code
flags (the same device compilation the binary embeds). SASS is read with
nvdisasm from the nvidia-cuda-nvdisasm wheel (`./dev nvrtc` installs it;
the CUDA 13.0 toolkit here ships no disassembler).

Writes OUT/codegen-audit.json (deterministic: diff it between runs or
toolchains) and OUT/codegen-audit.md (the differences, readable). With
--against OLD.json (an earlier audit, say of the kernel sources before a
change), the report also compares every build with the same kernel,
toolchain and arch there.

    ./dev nvrtc && tools/codegen_audit.py --histostudy build/histostudy -o data/codegen
"""
import argparse
import collections
import hashlib
import json
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
FORMAT = "histostudy-codegen-audit"
SCHEMA_VERSION = 2  # 2: the key named schema_version, as in every output (1: format_version)
RELEASES = ROOT / "data" / "nvrtc-releases.csv"  # one line a release; ./dev nvrtc installs them
DEFAULT_NVDISASM = ".deps/nvdisasm/nvidia/cu13/bin/nvdisasm"
# Bytes one LDG moves, by its width modifier (none: 32 bits).
LOAD_BYTES = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "64": 8, "128": 16}
# A kernel's .nv.info attribute that says where its parameters lie in
# constant bank 0 (EIATTR_PARAM_CBANK), and the format of a sized attribute.
PARAM_CBANK, SIZED = 0x0A, 0x04
REGISTER = re.compile(r"\b(UR|UP|R|P|B)(\d+)\b")
LABEL = re.compile(r"\.L_x_(\d+)")
CONSTANT = re.compile(r"c\[0x0\]\[(0x[0-9a-f]+)\]")
SAME_SHAPE = "SASS the same but for register numbers and parameter offsets"


class AuditError(Exception):
    pass


def run(command, **kwargs):
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise AuditError(f"{' '.join(map(str, command))} failed ({result.returncode}):\n{result.stderr.strip()}")
    return result


def shown_path(path):
    """A path relative to the repository when inside it, as named (its .deps may be a link to another
    checkout's), so the audit is the same on every checkout; elsewhere the file it resolves to."""
    for candidate in (pathlib.Path(os.path.abspath(path)), pathlib.Path(path).resolve()):
        if candidate.is_relative_to(ROOT):
            return str(candidate.relative_to(ROOT))
    return str(pathlib.Path(path).resolve())


def sha256(data):
    return hashlib.sha256(data).hexdigest()


# ---- inputs: cubins and ptxas logs --------------------------------------

def installed_releases():
    """The NVRTC library of every release in data/nvrtc-releases.csv that ./dev nvrtc installed, oldest first."""
    found = []
    for line in RELEASES.read_text().splitlines()[1:]:
        release = line.split(",")[0]
        found += sorted((ROOT / ".deps" / "nvrtc" / release).glob("nvidia/*/lib/libnvrtc.so.[0-9]*"))[:1]
    return found


def nvrtc_builds(histostudy, libraries, archs, work):
    """`histostudy cubins` for every NVRTC library: its manifest's SASS builds, with paths made absolute."""
    out = work / "nvrtc"
    specs = ",".join(f"nvrtc:{lib}" for lib in libraries)
    run([histostudy, "cubins", "--toolchain", specs, "--arch", ",".join(archs), "-o", out])
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["ptx"] = [dict(b, file=out / b["file"]) for b in manifest["builds"] if b["kind"] == "ptx"]
    manifest["builds"] = [b for b in manifest["builds"] if b["kind"] == "sass"]
    for build in manifest["builds"]:
        build["cubin"], build["log"] = out / build["file"], out / build["log"]
        build["library"] = shown_path(build["library"])
    return manifest


def tool_version(tool):
    """'13.0.88' from a CUDA tool's --version ('... release 13.0, V13.0.88')."""
    match = re.search(r"release \S+ V(\d+\.\d+\.\d+)", run([tool, "--version"]).stdout)
    if not match:
        raise AuditError(f"cannot read the version of {tool}")
    return match.group(1)


def nvcc_builds(nvcc, archs, kernels, work, expected):
    """nvcc's cubins for cuda/nvcc_kernels.cu, one per arch, as the build compiles it."""
    label = f"nvcc {tool_version(nvcc)}"
    if expected and label != expected:
        raise AuditError(f"{nvcc} is {label}, but histostudy was built by {expected}: its audit would not "
                         "describe the binary's kernels (pass --nvcc)")
    builds = []
    for arch in archs:
        cubin, log = work / "nvcc" / f"sm_{arch}.cubin", work / "nvcc" / f"sm_{arch}.log"
        cubin.parent.mkdir(parents=True, exist_ok=True)
        options = ["-cubin", "-O3", f"-gencode=arch=compute_{arch},code=sm_{arch}", "-Xptxas", "-v"]
        result = run([nvcc, *options, "-I", ROOT, "-o", cubin, ROOT / "cuda" / "nvcc_kernels.cu"])
        log.write_text(result.stdout + result.stderr)
        builds.append({"toolchain": label, "arch": f"sm_{arch}", "options": options, "cubin": cubin, "log": log,
                       "kernels": kernels})
    return label, builds


# ---- reading a cubin -----------------------------------------------------

def elf_sections(data):
    """{name: bytes} of a 64-bit little-endian ELF (a cubin)."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise AuditError("not a 64-bit ELF cubin")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_offset = headers[shstrndx][4]
    sections = {}
    for name_offset, kind, _flags, _addr, offset, size in headers:
        end = data.index(b"\0", names_offset + name_offset)
        name = data[names_offset + name_offset:end].decode()
        sections[name] = b"" if kind == 8 else data[offset:offset + size]  # 8: SHT_NOBITS
    return sections


def parameter_window(sections, symbol):
    """(offset, bytes) of the kernel's parameters in constant bank 0, from its .nv.info attributes:
    records of a format byte, an attribute byte and a 2-byte value, or, sized, a 2-byte length and data."""
    info, at = sections.get(f".nv.info.{symbol}", b""), 0
    while at + 4 <= len(info):
        fmt, attribute, value = info[at], info[at + 1], int.from_bytes(info[at + 2:at + 4], "little")
        if fmt == SIZED and attribute == PARAM_CBANK:  # symbol index (4 bytes), offset, size
            return struct.unpack_from("<HH", info, at + 8)
        at += 4 + (value if fmt == SIZED else 0)
    raise AuditError(f"{symbol}: its .nv.info says nowhere where its parameters lie")


def shape_sha256(instructions, parameters):
    """The instructions' SHA-256 with registers and labels numbered in order of first use and every
    parameter offset masked: the same for code that differs only in register assignment and in where its
    parameters lie (as when a kernel's separate parameters become one struct)."""
    numbers = {}
    start, size = parameters

    def renumber(kind, number):
        seen = numbers.setdefault(kind, {})
        return f"{kind}{seen.setdefault(number, len(seen))}"

    def mask(m):
        return "c[0x0][param]" if start <= int(m.group(1), 16) < start + size else m.group(0)

    lines = []
    for text in instructions:
        text = REGISTER.sub(lambda m: renumber(m.group(1), m.group(2)), text)
        text = LABEL.sub(lambda m: renumber(".L_x_", m.group(1)), text)
        lines.append(CONSTANT.sub(mask, text))
    return sha256("\n".join(lines).encode())


def ptxas_resources(log):
    """{symbol: resources} from a ptxas -v log (nvcc's or NVRTC's)."""
    found, current = {}, None
    for line in log.splitlines():
        if m := re.search(r"Compiling entry function '(\w+)'", line):
            current = found.setdefault(m.group(1), {"registers": 0, "barriers": 0, "static_shared_bytes": 0,
                                                    "stack_frame_bytes": 0, "spill_store_bytes": 0,
                                                    "spill_load_bytes": 0})
        elif current is not None and (m := re.search(
                r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)):
            current.update(stack_frame_bytes=int(m[1]), spill_store_bytes=int(m[2]), spill_load_bytes=int(m[3]))
        elif current is not None and "Used" in line:
            for pattern, key in ((r"Used (\d+) registers", "registers"), (r"used (\d+) barriers", "barriers"),
                                 (r"(\d+) bytes smem", "static_shared_bytes")):
                if m := re.search(pattern, line):
                    current[key] = int(m.group(1))
    return found


class Function:
    """One kernel's SASS: instruction texts in order, and where each label points."""

    def __init__(self):
        self.instructions = []
        self.labels = {}  # ".L_x_34" -> index of the instruction it labels
        self.pending = []


def disassemble(nvdisasm, cubin):
    """{symbol: Function} for every kernel in `cubin`."""
    functions, current = {}, None
    for line in run([nvdisasm, "--print-code", cubin]).stdout.splitlines():
        if m := re.match(r"\s*\.section\s+\.text\.(\w+),", line):
            current = functions.setdefault(m.group(1), Function())
        elif current and (m := re.match(r"\s*(\.L_x_\d+):", line)):
            current.pending.append(m.group(1))
        elif current and (m := re.match(r"\s*/\*[0-9a-f]+\*/\s+(.*?)\s*;", line)):
            current.labels.update((label, len(current.instructions)) for label in current.pending)
            current.pending = []
            current.instructions.append(m.group(1))
    return functions


def opcode(instruction):
    """'LDG.E.U8.CONSTANT.SYS' from '@!P0 LDG.E.U8.CONSTANT.SYS R0, [R4.64+UR4]'."""
    words = instruction.split()
    return words[1] if words[0].startswith("@") else words[0]


def counts(instructions):
    return dict(sorted(collections.Counter(opcode(text) for text in instructions).items()))


def load_bytes(instructions):
    total = 0
    for text in instructions:
        op = opcode(text)
        if op.startswith("LDG"):
            total += max([LOAD_BYTES.get(m, 0) for m in op.split(".")] + [0]) or 4
    return total


def hot_loop(function, parameters):
    """The longest innermost loop (a backward branch's range) that reads
    global memory: the kernel's grid-stride loop (a short loop that reads
    more bytes, such as the subject kernel's fold of 16-byte rows, is not it). NOPs
    are left out of every count: they only pad."""
    instructions = function.instructions
    loops = []
    for index, text in enumerate(instructions):
        m = re.search(r"BRA\S*\s+`\((\.L_x_\d+)\)", text)
        start = function.labels.get(m.group(1)) if m else None
        if start is not None and start <= index:
            loops.append((start, index))
    innermost = [(s, e) for s, e in loops if not any(s <= s2 and e2 <= e and (s2, e2) != (s, e) for s2, e2 in loops)]
    def body(s, e):
        return [text for text in instructions[s:e + 1] if opcode(text) != "NOP"]
    reading = [(len(body(s, e)), -s, s, e) for s, e in innermost if load_bytes(instructions[s:e + 1]) > 0]
    if not reading:
        return None
    _, _, start, end = max(reading)
    loop = body(start, end)
    return {"instructions": len(loop), "global_load_bytes": load_bytes(loop), "opcodes": counts(loop),
            "sha256": sha256("\n".join(loop).encode()), "shape_sha256": shape_sha256(loop, parameters)}


# ---- PTX: what the front end made, before any assembler ------------------

def ptx_entries(text):
    """{symbol: its .entry body}, comments and blank lines dropped: the code
    itself, without the header that names the compiler (it differs in every
    release whatever the code)."""
    entries, current, body = {}, None, []
    for line in text.splitlines():
        code = line.split("//", 1)[0].rstrip()
        if m := re.match(r"\.(?:visible|weak) \.entry (\w+)\(", code):  # templates are .weak
            current, body = m.group(1), []
        if current is None or not code.strip():
            continue
        body.append(code)
        if code == "}":
            entries[current], current = "\n".join(body), None
    return entries


def ptx_records(build):
    """Per kernel of one PTX build: its normalized PTX hash and instruction count."""
    entries = ptx_entries(pathlib.Path(build["file"]).read_text())
    records = []
    for kernel in build["kernels"]:
        code = entries.get(kernel["symbol"])
        if code is None:
            raise AuditError(f"{build['toolchain']} {build['arch']}: no PTX entry for {kernel['name']}")
        instructions = [l for l in code.splitlines() if l.strip().endswith(";") and not l.strip().startswith(".")]
        records.append({"kernel": kernel["name"], "toolchain": build["toolchain"], "arch": build["arch"],
                        "ptx_sha256": sha256(code.encode()), "ptx_instructions": len(instructions)})
    return records


# ---- the audit -------------------------------------------------------------

def audit_build(build, nvdisasm):
    data = pathlib.Path(build["cubin"]).read_bytes()
    sections = elf_sections(data)
    resources = ptxas_resources(pathlib.Path(build["log"]).read_text())
    functions = disassemble(nvdisasm, build["cubin"])
    records = []
    for kernel in build["kernels"]:
        symbol = kernel["symbol"]
        if symbol not in functions or symbol not in resources:
            raise AuditError(f"{build['toolchain']} {build['arch']}: no code or ptxas line for {kernel['name']}")
        instructions = [text for text in functions[symbol].instructions if opcode(text) != "NOP"]
        parameters = parameter_window(sections, symbol)
        records.append({"kernel": kernel["name"], "toolchain": build["toolchain"], "arch": build["arch"],
                        "symbol": symbol, "cubin_sha256": sha256(data),
                        "sass_sha256": sha256(sections[f".text.{symbol}"]),
                        "sass_shape_sha256": shape_sha256(instructions, parameters), **resources[symbol],
                        "sass_instructions": len(instructions), "opcodes": counts(instructions),
                        "hot_loop": hot_loop(functions[symbol], parameters)})
    cubin = {"toolchain": build["toolchain"], "arch": build["arch"], "options": build["options"],
             "bytes": len(data), "sha256": sha256(data)}
    return cubin, records


def make_audit(args, work):
    env = json.loads(run([args.histostudy, "env"]).stdout)
    manifest = nvrtc_builds(args.histostudy, args.nvrtc, args.arch, work)
    kernels = manifest["builds"][0]["kernels"]
    nvcc_label, nvcc_cubins = nvcc_builds(args.nvcc, args.arch, kernels, work, env["build"].get("cuda_compiler"))
    builds = manifest["builds"] + nvcc_cubins
    toolchains = list(dict.fromkeys(b["toolchain"] for b in builds))
    libraries = {b["toolchain"]: b["library"] for b in manifest["builds"]}
    cubins, records = [], []
    for build in builds:
        cubin, found = audit_build(build, args.nvdisasm)
        cubins.append(cubin)
        records += found
    order = {k["name"]: i for i, k in enumerate(kernels)}
    records.sort(key=lambda r: (order[r["kernel"]], r["arch"], toolchains.index(r["toolchain"])))
    ptx = [record for build in manifest["ptx"] for record in ptx_records(build)]
    ptx.sort(key=lambda r: (order[r["kernel"]], r["arch"], toolchains.index(r["toolchain"])))
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "kernel_sources_sha256": manifest["kernel_sources_sha256"],
        "tools": {"histostudy": f"histostudy {env['build']['histostudy_version']}", "nvcc": nvcc_label,
                  "nvdisasm": f"nvdisasm {tool_version(args.nvdisasm)}"},
        "toolchains": [{"toolchain": t, "source": libraries.get(t, shown_path(shutil.which(args.nvcc) or args.nvcc))}
                       for t in toolchains],
        "archs": [f"sm_{a}" for a in args.arch],
        "cubins": cubins,
        "records": records,
        "ptx": ptx,
    }


# ---- the readable summary -----------------------------------------------

def short(record):
    loop = record["hot_loop"] or {}
    return (f"{record['registers']} regs, {record['spill_store_bytes']}/{record['spill_load_bytes']} B spilled, "
            f"{record['static_shared_bytes']} B smem, {record['sass_instructions']} instrs, "
            f"hot loop {loop.get('instructions', '-')} instrs / {loop.get('global_load_bytes', '-')} B")


def opcode_delta(old, new):
    keys = sorted(set(old) | set(new))
    return ", ".join(f"{k} {old.get(k, 0)}->{new.get(k, 0)}" for k in keys if old.get(k, 0) != new.get(k, 0))


def alike(old, new, key):
    """Both hashed `key` (an earlier audit may not have) and agree."""
    return old.get(key) is not None and old.get(key) == new.get(key)


def difference(old, new):
    if old["sass_sha256"] == new["sass_sha256"]:
        return "identical SASS"
    if alike(old, new, "sass_shape_sha256"):
        return SAME_SHAPE
    parts = [f"{k} {old[k]}->{new[k]}" for k in ("registers", "spill_store_bytes", "spill_load_bytes",
                                                    "static_shared_bytes", "sass_instructions") if old[k] != new[k]]
    old_loop, new_loop = old["hot_loop"] or {}, new["hot_loop"] or {}
    if alike(old_loop, new_loop, "sha256"):
        parts.append(f"hot loop identical ({old_loop['instructions']} instrs)")
    elif alike(old_loop, new_loop, "shape_sha256"):
        parts.append(f"hot loop the same but for register numbers and parameter offsets "
                     f"({old_loop['instructions']} instrs)")
    elif old_loop.get("opcodes") == new_loop.get("opcodes"):
        parts.append(f"hot loop {old_loop.get('instructions')} instrs, same opcodes, other operands or order")
    else:
        parts.append(f"hot loop {old_loop.get('instructions')}->{new_loop.get('instructions')} instrs "
                     f"({opcode_delta(old_loop.get('opcodes', {}), new_loop.get('opcodes', {}))})")
    return "SASS differs: " + "; ".join(parts)


def release_history(audit, kernels, by_key):
    """Per arch and kernel, the NVRTC releases at which its SASS changed (the T4's question on sm_75)."""
    releases = [t["toolchain"] for t in audit["toolchains"] if t["toolchain"].startswith("nvrtc")]
    if len(releases) < 3:
        return []
    ptx_of = {(r["kernel"], "sm_" + r["arch"].removeprefix("compute_"), r["toolchain"]): r["ptx_sha256"]
              for r in audit.get("ptx", [])}
    lines = [f"## SASS across releases ({releases[0]} to {releases[-1]})", "",
             "Each release where a kernel's SASS differs from the release before it; in brackets, where its hot "
             "loop (the innermost loop that reads the input) changed opcodes too, and where its PTX (the front "
             "end's output, comments dropped) changed as well: a change without PTX is the back end's (ptxas).", ""]
    for arch in audit["archs"]:
        lines.append(f"- {arch}:")
        for k in kernels:
            steps = []
            for old, new in zip(releases, releases[1:]):
                a, b = by_key[(k, arch, old)], by_key[(k, arch, new)]
                if a["sass_sha256"] != b["sass_sha256"]:
                    loop_changed = (a["hot_loop"] or {}).get("opcodes") != (b["hot_loop"] or {}).get("opcodes")
                    ptx_changed = ptx_of.get((k, arch, old)) != ptx_of.get((k, arch, new))
                    notes = [n for n, hit in (("hot loop", loop_changed), ("PTX", ptx_changed)) if hit]
                    steps.append(new.removeprefix("nvrtc ") + (f" [{', '.join(notes)}]" if notes else ""))
            lines.append(f"  - `{k}`: " + (f"SASS changed at {', '.join(steps)}" if steps
                                          else f"identical SASS from {releases[0]} to {releases[-1]}"))
    return lines + [""]


def against_earlier(audit, earlier, kernels, by_key):
    """Each build against the same kernel, toolchain and arch in an `earlier` audit (--against): what a
    change of the kernel sources did to each toolchain's code."""
    before = {(r["kernel"], r["arch"], r["toolchain"]): r for r in earlier["records"]}
    pairs = [(before[key], record) for key, record in by_key.items() if key in before]
    identical = sum(a["sass_sha256"] == b["sass_sha256"] for a, b in pairs)
    shaped = sum(difference(a, b) == SAME_SHAPE for a, b in pairs)
    lines = [f"## Against an earlier audit (kernel sources {earlier['kernel_sources_sha256'][:16]})", "",
             f"Tools there: {', '.join(earlier['tools'].values())}. Of the {len(pairs)} builds both audits hold "
             f"(same kernel, toolchain and arch), {identical} compile to identical SASS and {shaped} to the same SASS "
             f"but for register numbers and parameter offsets. By kernel, each whose SASS changed in any build:", ""]
    toolchains = [t["toolchain"] for t in audit["toolchains"]]
    earlier_kernels = list(dict.fromkeys(r["kernel"] for r in earlier["records"]))
    for arch in audit["archs"]:
        lines.append(f"- {arch}:")
        for kernel in kernels:
            outcomes = {}
            for toolchain in toolchains:
                if (kernel, arch, toolchain) in before:
                    old, new = before[(kernel, arch, toolchain)], by_key[(kernel, arch, toolchain)]
                    outcomes.setdefault(difference(old, new), []).append(toolchain)
            if not outcomes:
                lines.append(f"  - `{kernel}`: new (not in the earlier audit)")
                continue
            if set(outcomes) == {"identical SASS"}:
                continue
            lines.append(f"  - `{kernel}`:")
            lines += [f"    - {', '.join(names)}: {text}" for text, names in outcomes.items()]
    gone = [k for k in earlier_kernels if k not in kernels]
    if gone:
        lines += ["", "Kernels of the earlier audit that this one no longer has: " +
                  ", ".join(f"`{k}`" for k in gone) + "."]
    return lines + [""]


def summary(audit, earlier=None):
    toolchains = [t["toolchain"] for t in audit["toolchains"]]
    pairs = list(zip(toolchains, toolchains[1:]))
    by_key = {(r["kernel"], r["arch"], r["toolchain"]): r for r in audit["records"]}
    kernels = list(dict.fromkeys(r["kernel"] for r in audit["records"]))
    lines = ["# Codegen audit", "",
             f"Toolchains: {', '.join(toolchains)}. Archs: {', '.join(audit['archs'])}. "
             f"Tools: {', '.join(audit['tools'].values())}. Kernel sources sha256 "
             f"{audit['kernel_sources_sha256'][:16]}. Generated by tools/codegen_audit.py; the numbers are in "
             "codegen-audit.json.", ""]
    if earlier:
        lines += against_earlier(audit, earlier, kernels, by_key)
    for old, new in pairs:
        lines += [f"## {old} -> {new}", ""]
        for arch in audit["archs"]:
            changed = [(k, by_key[(k, arch, old)], by_key[(k, arch, new)]) for k in kernels]
            changed = [(k, a, b) for k, a, b in changed if a["sass_sha256"] != b["sass_sha256"]]
            lines.append(f"- {arch}: {len(kernels) - len(changed)} of {len(kernels)} kernels compile to identical SASS")
            lines += [f"  - `{k}`: {difference(a, b)}" for k, a, b in changed]
        lines.append("")
    lines += release_history(audit, kernels, by_key)
    lines += ["## Every build", "", "| kernel | arch | toolchain | code |", "| --- | --- | --- | --- |"]
    lines += [f"| `{r['kernel']}` | {r['arch']} | {r['toolchain']} | {short(r)}; sass {r['sass_sha256'][:12]} |"
              for r in audit["records"]]
    return "\n".join(lines) + "\n"


def read_audit(path):
    try:
        audit = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise AuditError(f"--against {path}: not a readable audit ({e})") from None
    if not isinstance(audit, dict) or audit.get("format") != FORMAT:
        raise AuditError(f"--against {path}: not a {FORMAT} file")
    return audit


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--histostudy", default=ROOT / "build" / "histostudy", help="the built histostudy")
    parser.add_argument("--nvrtc", nargs="+", default=None,
                        help="NVRTC libraries (default: every release of data/nvrtc-releases.csv installed)")
    parser.add_argument("--nvcc", default="nvcc", help="the nvcc histostudy was built with")
    parser.add_argument("--nvdisasm", default=ROOT / DEFAULT_NVDISASM)
    parser.add_argument("--arch", default="75,90", help="compute capabilities (default 75,90)")
    parser.add_argument("--against", type=pathlib.Path,
                        help="an earlier audit's codegen-audit.json to compare every build with")
    parser.add_argument("-o", "--out-dir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    args.arch = [a.strip().removeprefix("sm_") for a in args.arch.split(",") if a.strip()]
    args.nvrtc = args.nvrtc or installed_releases()
    if not args.nvrtc:
        sys.exit("codegen_audit: no NVRTC release installed (./dev nvrtc)")
    try:
        earlier = read_audit(args.against) if args.against else None
        with tempfile.TemporaryDirectory() as work:
            audit = make_audit(args, pathlib.Path(work))
    except AuditError as e:
        sys.exit(f"codegen_audit: {e}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "codegen-audit.json").write_text(json.dumps(audit, indent=1, sort_keys=True) + "\n")
    (args.out_dir / "codegen-audit.md").write_text(summary(audit, earlier))
    print(f"codegen audit: {len(audit['records'])} kernel builds in {args.out_dir}/codegen-audit.json and .md")


if __name__ == "__main__":
    main()
