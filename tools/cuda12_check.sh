#!/usr/bin/env bash
# The CUDA 12 check (docs/platforms.md), for a Debian machine with no CUDA 12
# toolkit, reaching only Debian's archive and PyPI. Downloads into WORK
# (default /tmp/cu12x, outside the repo; about 1.5 GB), never installs:
#
#   1. CUDA 12.4.1 from Debian 13's packages (nvidia-cuda-toolkit, the only
#      complete CUDA 12 toolkit either registry has: PyPI's nvidia-cuda-nvcc-cu12
#      wheels hold ptxas and libnvvm but no nvcc, cicc, cudafe++, fatbinary or
#      nvlink), unpacked into a toolkit folder; ./dev builds every CUDA part
#      with it (CUDA_TOOLKIT=) and runs the tests a machine without a GPU can.
#   2. CUDA 12.0.0 and 12.8.1 from PyPI's headers (runtime, driver, NVRTC,
#      CCCL): every C++ file that includes a CUDA header is compiled with g++
#      against them, and every .cu file with nvcc 12.4 and their CCCL (CUB 2.0.1,
#      2.7.0) ahead of its own.
#
# Usage: tools/cuda12_check.sh            (prints the log; data/checks/ keeps one)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-/tmp/cu12x}
PIP=("${PIP_PYTHON:-python3}" -m pip)
mkdir -p "$WORK"

# Debian 13 (trixie, non-free) CUDA 12.4.1, and CCCL 2.3.2 (Debian ships CUB, Thrust and libcu++ apart).
DEBS=(nvidia-cuda-toolkit=12.4.131~12.4.1-2 nvidia-cuda-dev=12.4.127~12.4.1-2 libnvvm4=12.4.131~12.4.1-2
      libcudart12=12.4.127~12.4.1-2 libnvrtc12=12.4.127~12.4.1-2 libcub-dev=2.3.2-2 libthrust-dev=2.3.2-2
      libcu++-dev=2.3.2-2)
# PyPI: CUDA 12.0.0 (GA) and 12.8.1, the same component versions as NVIDIA's installers.
declare -A WHEELS=(
  [12.0]="nvidia-cuda-nvcc-cu12==12.0.76 nvidia-cuda-cccl-cu12==12.0.90 nvidia-cuda-runtime-cu12==12.0.107 nvidia-cuda-nvrtc-cu12==12.0.76"
  [12.8]="nvidia-cuda-nvcc-cu12==12.8.93 nvidia-cuda-cccl-cu12==12.8.90 nvidia-cuda-runtime-cu12==12.8.90 nvidia-cuda-nvrtc-cu12==12.8.93")

debian_toolkit() {  # -> $WORK/12.4, laid out as NVIDIA's installer does
  local apt=$WORK/apt root=$WORK/deb-root tk=$WORK/12.4
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$WORK/debs"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main non-free" \
    >"$apt/sources.list"
  touch "$apt/status"
  cat >"$apt/apt.conf" <<EOF
Dir::Etc::SourceList "$apt/sources.list"; Dir::Etc::SourceParts "/dev/null"; Dir::State::Lists "$apt/lists";
Dir::Cache "$apt/cache"; Dir::State::status "$apt/status"; APT::Architecture "amd64";
EOF
  export APT_CONFIG=$apt/apt.conf
  apt-get update -qq
  (cd "$WORK/debs" && apt-get download -qq "${DEBS[@]}")
  unset APT_CONFIG
  rm -rf "$root" "$tk" && mkdir -p "$root"
  for d in "$WORK"/debs/*.deb; do
    case $d in
      */nvidia-cuda-dev_*) dpkg-deb --fsys-tarfile "$d" | tar -x -C "$root" --wildcards './usr/include/*' \
                             './usr/lib/x86_64-linux-gnu/libcudart*' './usr/lib/x86_64-linux-gnu/libnvrtc*' ;;
      *) dpkg-deb -x "$d" "$root" ;;
    esac
  done
  local t=$root/usr/lib/nvidia-cuda-toolkit
  mkdir -p "$tk/bin" "$tk/nvvm/bin" "$tk/nvvm/lib64" "$tk/nvvm/libdevice" "$tk/lib64"
  cp -l "$t/bin/nvcc" "$tk/bin/" && cp -rl "$t/bin/crt" "$tk/bin/" && cp -l "$t/bin/cicc" "$tk/nvvm/bin/"
  for b in cudafe++ fatbinary nvlink ptxas bin2c cuobjdump nvdisasm nvprune; do cp -l "$root/usr/bin/$b" "$tk/bin/"; done
  cp -l "$root"/usr/lib/x86_64-linux-gnu/libnvvm.so.4.* "$tk/nvvm/lib64/"
  ln -s "$(basename "$root"/usr/lib/x86_64-linux-gnu/libnvvm.so.4.*)" "$tk/nvvm/lib64/libnvvm.so"
  cp -l "$t/libdevice/libdevice.10.bc" "$tk/nvvm/libdevice/"
  cp -rl "$root/usr/include" "$tk/include"
  cp -a "$root"/usr/lib/x86_64-linux-gnu/libcudart* "$root"/usr/lib/x86_64-linux-gnu/libnvrtc* "$tk/lib64/"
  # Debian's profile names /usr/lib paths; this one the folder nvcc is in, as NVIDIA's does.
  cat >"$tk/bin/nvcc.profile" <<'EOF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:$(TOP)/nvvm/lib64:
PATH            += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64"
EOF
}

pypi_headers() {  # $1: 12.0 or 12.8 -> $WORK/hdr-$1 (every header) and $WORK/cccl-$1 (CCCL alone)
  local v=$1 unz=$WORK/unz-$1
  rm -rf "$unz" "$WORK/hdr-$v" "$WORK/cccl-$v" && mkdir -p "$WORK/wheels/$v" "$unz" "$WORK/hdr-$v" "$WORK/cccl-$v"
  # shellcheck disable=SC2086
  "${PIP[@]}" download --quiet --disable-pip-version-check --no-deps -d "$WORK/wheels/$v" ${WHEELS[$v]}
  for w in ${WHEELS[$v]}; do
    local name=${w%%==*} version=${w#*==}
    unzip -q -o "$WORK/wheels/$v/${name//-/_}-$version-"*.whl -d "$unz"
  done
  for p in cuda_runtime cuda_nvrtc cuda_nvcc cuda_cccl; do cp -rl "$unz/nvidia/$p/include/." "$WORK/hdr-$v/" 2>/dev/null || true; done
  cp -rl "$unz/nvidia/cuda_cccl/include/." "$WORK/cccl-$v/"
  rm -f "$WORK/hdr-$v/__init__.py" "$WORK/cccl-$v/__init__.py"
}

# Every compile command of BUILD again (its nvcc is 12.4's, from PATH): C++ that includes a
# CUDA header against HDR (syntax only), .cu with CCCL first on the include path. A line a file.
recompile() {  # BUILD HDR CCCL
  PATH="$WORK/12.4/bin:$PATH" "${PYTHON:-/usr/bin/python3}" - "$@" "$WORK/12.4/include" <<'PY'
import json, shlex, subprocess, sys, tempfile
build, headers, cccl, own = sys.argv[1:5]
deps = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True, check=True).stdout
users, obj = set(), None
for line in deps.splitlines():
    if line and not line.startswith(" "): obj = line.split(":")[0]
    elif own in line: users.add(obj)
failed = 0
for entry in json.load(open(f"{build}/compile_commands.json")):
    args = shlex.split(entry["command"])
    out, cu = args[args.index("-o") + 1], entry["file"].endswith(".cu")
    if not cu and out not in users: continue
    for flag in ("-MQ", "-MF", "-o"):
        while flag in args: del args[args.index(flag):args.index(flag) + 2]
    args = [a for a in args if a != "-MD"]
    if cu: args = [args[0], "-I" + cccl] + args[1:] + ["-o", tempfile.mktemp(suffix=".o")]
    else: args = ["-I" + headers if a == "-I" + own else a for a in args] + ["-fsyntax-only"]
    r = subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True)
    what = "nvcc 12.4, CCCL of" if cu else "g++, headers of"
    print(f"{'ok  ' if r.returncode == 0 else 'FAIL'} {what} {headers.rsplit('-', 1)[-1]}: {entry['file'].rsplit('/', 2)[-2:]}")
    if r.returncode or r.stderr.strip(): print(r.stderr[-3000:])
    failed += r.returncode != 0
print(f"{failed} failed")
sys.exit(1 if failed else 0)
PY
}

echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(grep -m1 PRETTY_NAME /etc/os-release | cut -d'"' -f2), $(g++ --version | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
debian_toolkit
"$WORK/12.4/bin/nvcc" --version | tail -2
echo "== CUDA 12.4.1 (Debian 13 packages: ${DEBS[*]}): CUDA_TOOLKIT=$WORK/12.4 ./dev test"
rm -rf "$WORK/build-12.4"
rc=0
# (compiler warnings, if any, show in the build's output; progress lines are left out)
CUDA_TOOLKIT=$WORK/12.4 BUILD_DIR=$WORK/build-12.4 MESON_ARGS=-Dcuda=enabled \
  ./dev test cpu sampling cli gpu environment hostile 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\] ' || rc=1
for v in 12.0 12.8; do
  pypi_headers "$v"
  echo "== CUDA $v headers (PyPI: ${WHEELS[$v]}): $(grep -m1 -h 'define CUDART_VERSION' "$WORK/hdr-$v/cuda_runtime_api.h" | tr -s ' ')," \
       "$(grep -m1 -h 'define CUB_VERSION ' "$WORK/cccl-$v/cub/version.cuh" | cut -d/ -f1 | tr -s ' ')"
  recompile "$WORK/build-12.4" "$WORK/hdr-$v" "$WORK/cccl-$v" || rc=1
done
exit $rc
