#!/usr/bin/env bash
# count's CPU reading: each variant is a build of a scratch copy of HEAD (CPU
# only) with count.hpp's piece size and stream ring changed, run through
# `histostudy count-bench` on the same page-cached file, one variant after
# another, each started on a quiet machine (../cpu-avx512/when_quiet.sh).
#   tools/explorations/count-overlap/explore.sh FILE OUT_DIR "PIECE_KIB CHUNK_MIB BUFFERS [OMP_WAIT_POLICY]"...
# (count-bench times a regular file: CHUNK_MIB and BUFFERS change its
# read_discard buffer only; pipes use them through ChunkReader.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
file=$1 out=$2
shift 2
src=$(mktemp -d /tmp/hs-count-overlap.XXXXXX)
git -C "$root" archive HEAD | tar -x -C "$src"
# The copy has no .git: its result files name HEAD, marked dirty (a variant's constants differ).
export HISTOSTUDY_GIT_COMMIT=$(git -C "$root" rev-parse HEAD) HISTOSTUDY_GIT_DIRTY=1
meson setup "$src/build" "$src" -Dcuda=disabled >/dev/null
for variant in "$@"; do
  read -r kib mib buffers policy <<<"$variant"
  sed -i "s/inline constexpr std::size_t kCpuPiece = .*;/inline constexpr std::size_t kCpuPiece = std::size_t($kib) << 10;/" "$src/study/count/count.hpp"
  sed -i "s/inline constexpr std::size_t kCpuChunk = .*;/inline constexpr std::size_t kCpuChunk = std::size_t($mib) << 20;/" "$src/study/count/count.hpp"
  sed -i "s/if (impl.backend == Backend::cpu) return {kCpuChunk, [0-9]*};/if (impl.backend == Backend::cpu) return {kCpuChunk, $buffers};/" "$src/study/count/count.cpp"
  ninja -C "$src/build" histostudy >/dev/null
  echo "== piece ${kib} KiB, chunk ${mib} MiB, ${buffers} buffers, OMP_WAIT_POLICY=${policy:-unset}"
  env ${policy:+OMP_WAIT_POLICY=$policy} "$here/../cpu-avx512/when_quiet.sh" \
    "$src/build/histostudy" count-bench "$file" --rounds 9 -o "$out"
done
rm -rf "$src"
