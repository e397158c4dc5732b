#!/usr/bin/env python3
"""The codegen audit as CI runs it: install the NVRTC and nvdisasm wheels
(`./dev nvrtc`), run tools/codegen_audit.py twice into temporary folders,
and check that the audit is complete and well-formed and that every cubin
hash is the same in both runs. Exits 77 (skipped) only when the wheels
cannot be installed. Usage: test_codegen.py HISTOSTUDY"""
import hashlib
import json
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXE = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build" / "histostudy")
ARCHS = ["sm_75", "sm_90"]
RESOURCES = ["registers", "barriers", "static_shared_bytes", "stack_frame_bytes", "spill_store_bytes",
             "spill_load_bytes", "sass_instructions"]
SHA256 = re.compile(r"[0-9a-f]{64}")


def fail(message):
    sys.exit(f"test_codegen: {message}")


# CI installs two releases only (each wheel is 40 to 90 MB); the committed
# audit covers every release of data/nvrtc-releases.csv.
RELEASES = ["12.6", "13.0"]


def libraries():
    return [str(next((ROOT / ".deps" / "nvrtc" / r).glob("nvidia/*/lib/libnvrtc.so.[0-9]*"))) for r in RELEASES]


def audit_into(folder, *options):
    result = subprocess.run([sys.executable, ROOT / "tools" / "codegen_audit.py", "--histostudy", EXE,
                             "--nvrtc", *libraries(), *options, "-o", folder], capture_output=True, text=True,
                            timeout=1200)
    if result.returncode != 0:
        fail(f"the audit failed:\n{result.stdout}{result.stderr}")
    return json.loads((pathlib.Path(folder) / "codegen-audit.json").read_text())


def check_well_formed(audit, folder):
    if audit.get("format") != "histostudy-codegen-audit" or audit.get("archs") != ARCHS:
        fail(f"unexpected header: format {audit.get('format')}, archs {audit.get('archs')}")
    toolchains = [t["toolchain"] for t in audit["toolchains"]]
    if [t.split()[0] for t in toolchains] != ["nvrtc", "nvrtc", "nvcc"] or len(set(toolchains)) != 3:
        fail(f"expected NVRTC 12.6, NVRTC 13.0 and nvcc, got {toolchains}")
    kernels = list(dict.fromkeys(r["kernel"] for r in audit["records"]))
    if "hs_sum_bytes" not in kernels:
        fail(f"hs_sum_bytes missing from {kernels}")
    keys = {(r["kernel"], r["toolchain"], r["arch"]) for r in audit["records"]}
    wanted = {(k, t, a) for k in kernels for t in toolchains for a in ARCHS}
    if keys != wanted or len(audit["records"]) != len(wanted):
        fail(f"records missing or repeated: {sorted(wanted - keys)[:5]}")
    for r in audit["records"]:
        where = f"{r['kernel']} {r['toolchain']} {r['arch']}"
        if not all(SHA256.fullmatch(h) for h in (r["cubin_sha256"], r["sass_sha256"], r["sass_shape_sha256"],
                                                   r["hot_loop"]["sha256"], r["hot_loop"]["shape_sha256"])):
            fail(f"{where}: malformed hashes")
        if any(not isinstance(r[k], int) or r[k] < 0 for k in RESOURCES) or r["registers"] == 0:
            fail(f"{where}: bad resource counts {[r[k] for k in RESOURCES]}")
        if sum(r["opcodes"].values()) != r["sass_instructions"]:
            fail(f"{where}: opcode counts do not add up to the instruction count")
        loop = r["hot_loop"]
        if not loop or loop["global_load_bytes"] < 1 or sum(loop["opcodes"].values()) != loop["instructions"]:
            fail(f"{where}: no hot loop that reads the input ({loop})")
    ptx = {(r["kernel"], r["toolchain"], r["arch"]) for r in audit["ptx"] if SHA256.fullmatch(r["ptx_sha256"])}
    nvrtcs = [t for t in toolchains if t.startswith("nvrtc")]
    if ptx != {(k, t, a.replace("sm_", "compute_")) for k in kernels for t in nvrtcs for a in ARCHS}:
        fail("PTX records missing or malformed")
    if "## nvrtc" not in (pathlib.Path(folder) / "codegen-audit.md").read_text():
        fail("codegen-audit.md holds no comparison")


def check_against_itself(audit, folder):
    """An audit --against one of the same sources finds every build identical."""
    builds = len(audit["records"])
    said = f"Of the {builds} builds both audits hold (same kernel, toolchain and arch), {builds} compile to identical"
    if said not in (pathlib.Path(folder) / "codegen-audit.md").read_text():
        fail(f"--against an audit of the same sources does not say: {said}")


def check_new_and_gone(audit, folder):
    """--against an audit with one kernel renamed: the renamed one is "new", the old name "no longer"."""
    sys.path.insert(0, str(ROOT / "tools"))
    from codegen_audit import summary
    earlier = json.loads((pathlib.Path(folder) / "codegen-audit.json").read_text())
    renamed = audit["records"][0]["kernel"]
    for r in earlier["records"]:
        if r["kernel"] == renamed:
            r["kernel"] = "hs_retired"
    text = summary(audit, earlier)
    if f"`{renamed}`: new (not in the earlier audit)" not in text or "no longer has: `hs_retired`" not in text:
        fail(f"--against does not report {renamed} as new and hs_retired as gone")


def check_shapes():
    """Shape hashes ignore register numbers, labels and parameter offsets, and nothing else."""
    sys.path.insert(0, str(ROOT / "tools"))
    from codegen_audit import shape_sha256
    old = ["LDC R1, c[0x0][0x28]", "IADD3 R4, P0, R9, c[0x0][0x210], RZ", "@!P0 BRA `(.L_x_8)"]
    moved = ["LDC R1, c[0x0][0x28]", "IADD3 R7, P2, R11, c[0x0][0x220], RZ", "@!P2 BRA `(.L_x_3)"]
    if shape_sha256(old, (0x210, 24)) != shape_sha256(moved, (0x210, 24)):
        fail("shape hashes differ for code that differs only in registers, labels and parameter offsets")
    for other in (["LDC R1, c[0x0][0x2c]", *moved[1:]], [moved[0], moved[1].replace("IADD3", "IMAD"), moved[2]],
                  [moved[0], moved[1].replace("R7, P2, R11", "R7, P2, R7"), moved[2]]):
        if shape_sha256(old, (0x210, 24)) == shape_sha256(other, (0x210, 24)):
            fail(f"shape hashes agree for other code: {other}")


def check_modules(folder):
    """`histostudy cubins` for the two releases: SASS and PTX per release and arch, each file's hash right."""
    result = subprocess.run([EXE, "cubins", "--toolchain", ",".join(f"nvrtc:{lib}" for lib in libraries()),
                             "--arch", "75,90", "-o", folder], capture_output=True, text=True, timeout=1200)
    if result.returncode != 0:
        fail(f"histostudy cubins failed:\n{result.stderr}")
    manifest = json.loads((folder / "manifest.json").read_text())
    if manifest.get("format") != "histostudy-modules" or not SHA256.fullmatch(manifest["kernel_sources_sha256"]):
        fail(f"not a modules manifest: {manifest.get('format')}")
    kinds = sorted((b["release"], b["arch"], b["kind"]) for b in manifest["builds"])
    wanted = sorted((r, f"{p}_{a}", k) for r in RELEASES for a in ("75", "90")
                    for p, k in (("sm", "sass"), ("compute", "ptx")))
    if kinds != wanted:
        fail(f"modules: expected {wanted}, got {kinds}")
    for b in manifest["builds"]:
        data = (folder / b["file"]).read_bytes()
        if hashlib.sha256(data).hexdigest() != b["sha256"]:
            fail(f"{b['file']}: its SHA-256 differs from the manifest's")
        if b["kind"] == "ptx" and b".target " + b["arch"].encode().replace(b"compute", b"sm") not in data:
            fail(f"{b['file']}: not PTX for {b['arch']}")


def main():
    installed = subprocess.run([ROOT / "dev", "nvrtc", *RELEASES], capture_output=True, text=True)
    if installed.returncode != 0:
        print(f"skipped: the NVRTC/nvdisasm wheels cannot be installed:\n{installed.stderr}")
        return 77
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        check_shapes()
        audit = audit_into(first)
        check_well_formed(audit, first)
        again = audit_into(second, "--against", pathlib.Path(first) / "codegen-audit.json")
        check_against_itself(audit, second)
        check_new_and_gone(audit, first)
        hashes = [{(c["toolchain"], c["arch"]): c["sha256"] for c in a["cubins"]} for a in (audit, again)]
        if hashes[0] != hashes[1]:
            fail(f"cubin hashes differ between two runs: {hashes}")
        if audit != again:
            fail("the audit is not deterministic: two runs differ")
        check_modules(pathlib.Path(first) / "modules")
    print(f"codegen audit: {len(audit['records'])} kernel builds, well-formed, cubins reproducible; "
          "modules manifest checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
