#!/usr/bin/env bash
# The study on a Slurm cluster: an array job, one task per node (with
# --device all, every GPU of the node at once; --gres=gpu:8 for a node of 8)
# or one task per GPU (with --gres=gpu:1, the GPU Slurm hands the task).
# Slurm is the scheduler; this script is what each task runs. Every task
# writes into its own folder,
#   RESULTS/slurm-<array job id>/task-<task id>/
# (RESULTS: a folder every node sees), so no two tasks share one, and every
# result file carries the run id slurm-<array job id>.
#
#   sbatch --array=0-3 --exclusive --gres=gpu:8 tools/slurm_fleet.sh /shared/fleet --device all --control nvcc
#   sbatch --array=0-15 --gres=gpu:1 tools/slurm_fleet.sh /shared/fleet --control nvcc
# and when the array has ended, one report of all its tasks:
#   ./dev fleet /shared/fleet/slurm-<array job id> -o fleet.md
#
# Arguments: RESULTS, then `histostudy run` arguments (not -o or --run-id:
# this script sets them). Submit from the clone (or set HISTOSTUDY_REPO):
# the first task builds it with ./dev build under a lock and the others
# reuse that build; BUILD_DIR and MESON_ARGS are ./dev's. HISTOSTUDY=PATH
# runs that binary instead, building nothing (nodes without Debian's
# packages: build once where they are). The task exits with histostudy's
# status, so Slurm marks a failed study FAILED.
#SBATCH --job-name=histostudy
#SBATCH --output=slurm-%A_%a.out
set -euo pipefail

say() { echo "slurm_fleet.sh: $*" >&2; }

if [ $# -lt 1 ]; then
  say "usage: sbatch --array=0-N [options] tools/slurm_fleet.sh RESULTS [histostudy run arguments]"
  exit 2
fi
results=$1
shift
for arg in "$@"; do
  case "$arg" in
    -o | -o* | --out-dir | --out-dir=* | --run-id | --run-id=*)
      say "$arg: this script chooses where results go (RESULTS/slurm-<job>/task-<task>) and the run id"
      exit 2 ;;
  esac
done
job=${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-}}
if [ -z "$job" ]; then
  say "not inside a Slurm job: submit it with sbatch"
  exit 2
fi
task=${SLURM_ARRAY_TASK_ID:-0}
run_id=slurm-$job
out=$results/$run_id/task-$task
mkdir -p "$out"
out=$(cd "$out" && pwd)  # the build below runs elsewhere

if [ -n "${HISTOSTUDY:-}" ]; then
  exe=$HISTOSTUDY
else
  cd "${HISTOSTUDY_REPO:-${SLURM_SUBMIT_DIR:-.}}"
  if [ ! -x ./dev ]; then
    say "$PWD is not a histostudy clone: submit from one, or set HISTOSTUDY_REPO or HISTOSTUDY"
    exit 2
  fi
  # One build for all tasks: the first to take the lock builds, the others then find nothing to do.
  mkdir -p .deps
  flock .deps/slurm-build.lock ./dev build >&2
  exe=$PWD/${BUILD_DIR:-build}/histostudy
fi

say "array job $job task $task on $(hostname): run $run_id into $out"
exec "$exe" run "$@" --run-id "$run_id" -o "$out"
