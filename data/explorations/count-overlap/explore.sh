#!/usr/bin/env bash
# count's CPU read plan: each variant is a build of a scratch copy of HEAD
# (CPU only) with read_plan's chunk and buffer count changed, run through
# `histostudy count-bench` on the same page-cached file, one variant after
# another, each started on a quiet machine (../cpu-avx512/when_quiet.sh).
#   data/explorations/count-overlap/explore.sh FILE OUT_DIR "CHUNK_MIB BUFFERS [OMP_WAIT_POLICY]"...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
file=$1 out=$2
shift 2
src=$(mktemp -d /tmp/hs-count-overlap.XXXXXX)
git -C "$root" archive HEAD | tar -x -C "$src"
meson setup "$src/build" "$src" -Dcuda=disabled >/dev/null
for variant in "$@"; do
  read -r mib buffers policy <<<"$variant"
  sed -i "s/inline constexpr std::size_t kCpuChunk = .*;/inline constexpr std::size_t kCpuChunk = std::size_t($mib) << 20;/" "$src/study/count.hpp"
  sed -i "s/if (impl.backend == Backend::cpu) return {kCpuChunk, [0-9]*};/if (impl.backend == Backend::cpu) return {kCpuChunk, $buffers};/" "$src/study/count.cpp"
  ninja -C "$src/build" histostudy >/dev/null
  echo "== chunk ${mib} MiB, ${buffers} buffers, OMP_WAIT_POLICY=${policy:-unset}"
  env ${policy:+OMP_WAIT_POLICY=$policy} "$here/../cpu-avx512/when_quiet.sh" \
    "$src/build/histostudy" count-bench "$file" --rounds 9 -o "$out"
done
rm -rf "$src"
