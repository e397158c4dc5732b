#!/usr/bin/env bash
# The study's lesson experiment on this machine's CPU, by the build of fed460f (each CPU case sampled on its own)
# and of 9fcdca2 (an input's CPU cases in one rotation), alternately, three times each, both built with
# -Dcuda=disabled from worktrees, each run started quiet; result files into before/ and after/ of
# data/explorations/20261203T1630Z_cpu_kernel/rotation-ab/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
out="$root/data/explorations/20261203T1630Z_cpu_kernel/rotation-ab"
for b in before:fed460f after:9fcdca2; do
  name=${b%%:*} commit=${b##*:}
  git -C "$root" worktree add -q "/tmp/wt-$name" "$commit"
  (cd "/tmp/wt-$name" && meson setup "/tmp/build-$name" -Dcuda=disabled -Dvendor_include="$root/.deps/include" >/dev/null &&
   ninja -C "/tmp/build-$name" histostudy >/dev/null)
done
for _ in 1 2 3; do
  for name in before after; do
    "$root/tools/explorations/cpu-avx512/when_quiet.sh" "/tmp/build-$name/histostudy" run -e lesson -o "$out/$name" >/dev/null
  done
done
