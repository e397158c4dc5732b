#!/usr/bin/env python3
"""tools/slurm_fleet.sh on a real Slurm: a one-node cluster from Debian's packages (munged, slurmctld, slurmd),
configured on localhost in a temporary folder and started here in the foreground, runs the CPU study as an array
job of two tasks; every task's result file must arrive in its own folder with the array's run id, and the report
(python3 -m plots.fleet) must cover every task and every case. Daemons and folder are removed afterwards.

As root with apt-get, the packages are installed when missing (slurmctld slurmd slurm-client munge); the test
skips (77) where it cannot (not root, no apt-get, no package source). The script's own refusals are
checked first, on any machine. Usage: test_slurm.py HISTOSTUDY"""
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SKIP = 77
REPO = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = REPO / "tools" / "slurm_fleet.sh"
PACKAGES = ["slurmctld", "slurmd", "slurm-client", "munge"]
COMMANDS = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo"]
TASKS = 2
STUDY = ["--impl", "reference,openmp_private", "-e", "lesson", "-s", "64KiB", "-t", "1"]
IMPLS = {"reference", "openmp_private"}
LESSON_INPUTS = {"uniform", "lesson_english", "prose", "one_byte"}
UP_S, JOB_S = 60, 150  # bounds: the cluster up, the array job done


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def script_refusals():
    """Outside Slurm, or asked to put results elsewhere: one line, exit 2, nothing run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    with tempfile.TemporaryDirectory() as tmp:
        for args, says in [([], "usage:"), ([tmp], "not inside a Slurm job"),
                           ([tmp, "-o", "x"], "this script chooses where results go"),
                           ([tmp, "--run-id=r"], "this script chooses where results go")]:
            r = subprocess.run(["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=30)
            check(r.returncode == 2 and r.stderr.count("\n") == 1 and says in r.stderr,
                  f"slurm_fleet.sh {args}: exit {r.returncode}, {r.stderr!r}")
    print("slurm_fleet.sh refuses bad use in one line")


def have_slurm():
    """Whether the daemons and commands are here, installing Debian's packages where they are not; a reason if not."""
    if os.geteuid() != 0:
        return "not root: slurmd runs jobs as root here"
    if all(shutil.which(c) for c in COMMANDS):
        return None
    if not shutil.which("apt-get"):
        return "Slurm and munge are not installed and there is no apt-get"
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    print(f"installing {' '.join(PACKAGES)}", flush=True)
    system_munge = pathlib.Path("/run/munge/munge.socket.2")
    had_system_munge = system_munge.exists()
    for attempt in ([install], [["apt-get", "update", "-qq"], install]):
        if all(subprocess.run(c, env=env, capture_output=True, timeout=400).returncode == 0 for c in attempt):
            break
    if not had_system_munge and system_munge.exists() and shutil.which("munged"):
        # The package started the machine's munged (where no policy forbids it): the test needs its own only.
        subprocess.run(["munged", "--stop"], capture_output=True, timeout=30)
    missing = [c for c in COMMANDS if not shutil.which(c)]
    return f"cannot install Slurm ({', '.join(missing)} missing after apt-get)" if missing else None


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class Cluster:
    """munged, slurmctld and slurmd in the foreground, every file of theirs under `root`."""

    def __init__(self, root):
        self.root = root
        self.daemons = []
        self.env = dict(os.environ, SLURM_CONF=str(root / "slurm.conf"))
        for k in [k for k in self.env if k.startswith("SLURM_") and k != "SLURM_CONF"]:
            del self.env[k]

    def start(self):
        root = self.root
        os.chmod(root, 0o711)  # munged: every folder above its socket searchable by all
        (root / "munge").mkdir(mode=0o700)
        key = root / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        socket_path = root / "munge.socket"
        self.daemon("munged", ["munged", "-F", f"--key-file={key}", f"--socket={socket_path}",
                               f"--pid-file={root / 'munged.pid'}", f"--seed-file={root / 'munge' / 'seed'}"])
        self.wait_for(lambda: socket_path.exists(), "munged's socket")
        self.write_config(socket_path)
        self.daemon("slurmctld", ["slurmctld", "-D", "-i"])
        self.daemon("slurmd", ["slurmd", "-D"])
        self.wait_for(lambda: self.command(["sinfo", "-h", "-o", "%T"], check=False).strip() == "idle",
                      "the node idle")

    def write_config(self, socket_path):
        root, host = self.root, socket.gethostname().split(".")[0]
        node = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, timeout=30).stdout.splitlines()[0]
        ctld_port, d_port = free_ports(2)
        for d in ("state", "spool", "out"):
            (root / d).mkdir()
        (root / "slurm.conf").write_text(f"""\
ClusterName=histostudy-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={socket_path}
SlurmUser=root
SlurmdUser=root
StateSaveLocation={root / 'state'}
SlurmdSpoolDir={root / 'spool'}
SlurmctldPidFile={root / 'slurmctld.pid'}
SlurmdPidFile={root / 'slurmd.pid'}
SlurmctldLogFile={root / 'slurmctld.log'}
SlurmdLogFile={root / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
{node} NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=10 State=UP
""")

    def daemon(self, name, argv):
        log = open(self.root / f"{name}.out", "wb")
        self.daemons.append((name, subprocess.Popen(argv, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                                    start_new_session=True)))
        log.close()

    def command(self, argv, check=True, cwd=None, env=None):
        r = subprocess.run(argv, env=env or self.env, capture_output=True, text=True, timeout=60, cwd=cwd)
        if check and r.returncode != 0:
            raise AssertionError(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
        return r.stdout

    def wait_for(self, ready, what, seconds=UP_S):
        deadline = time.monotonic() + seconds
        while not ready():
            for name, p in self.daemons:
                check(p.poll() is None, f"{name} exited {p.returncode} while waiting for {what}: {self.logs()}")
            check(time.monotonic() < deadline, f"no {what} after {seconds} s: {self.logs()}")
            time.sleep(0.2)

    def logs(self):
        return "\n".join(f"--- {p.name}:\n{p.read_text(errors='replace')[-2000:]}"
                         for p in sorted(self.root.glob("*.out")) + sorted(self.root.glob("*.log")))

    def stop(self):
        for name, p in reversed(self.daemons):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)  # its own session: the daemon and what it started
                    p.wait(timeout=15)


FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL",
         "DEADLINE"}


def job_states(cluster, job):
    """{task id: (state, exit code)} of the array job's tasks, as scontrol tells them."""
    states = {}
    for line in cluster.command(["scontrol", "-o", "show", "job", job]).splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        states[fields.get("ArrayTaskId")] = (fields.get("JobState"), fields.get("ExitCode"))
    return states


def run_array(cluster, exe, results):
    """Submits the array and waits for every task to end; its id."""
    job = cluster.command(["sbatch", "--parsable", f"--array=0-{TASKS - 1}", "--cpus-per-task=1",
                           f"--output={cluster.root / 'out' / 'slurm-%A_%a.out'}", str(SCRIPT), str(results),
                           *STUDY], cwd=REPO, env=dict(cluster.env, HISTOSTUDY=exe)).strip().split(";")[0]
    deadline = time.monotonic() + JOB_S
    ended = lambda states: set(states) == {str(t) for t in range(TASKS)} and all(  # noqa: E731
        state in FINAL for state, _ in states.values())
    while not ended(job_states(cluster, job)):
        if time.monotonic() > deadline:
            cluster.command(["scancel", job], check=False)
            raise AssertionError(f"array job {job} not done after {JOB_S} s: {job_states(cluster, job)}\n"
                                 f"{cluster.logs()}")
        time.sleep(0.3)
    return job


def task_outputs(cluster):
    return "\n".join(f"--- {p.name}:\n{p.read_text(errors='replace')[-3000:]}"
                     for p in sorted((cluster.root / "out").iterdir()))


def check_results(cluster, job, results):
    states = job_states(cluster, job)
    check(states == {str(t): ("COMPLETED", "0:0") for t in range(TASKS)},
          f"task states {states}\n{task_outputs(cluster)}")
    run_dir = results / f"slurm-{job}"
    check(sorted(p.name for p in run_dir.iterdir()) == [f"task-{t}" for t in range(TASKS)],
          f"{run_dir}: {sorted(p.name for p in run_dir.iterdir())}")
    for t in range(TASKS):
        files = list((run_dir / f"task-{t}").glob("*.json"))
        check(len(files) == 1, f"task {t}: {files}")
        doc = json.loads(files[0].read_text())
        variables = doc["environment"]["host"]["variables"]
        check(doc["run_id"] == f"slurm-{job}", f"task {t}: run id {doc.get('run_id')}")
        check((variables.get("SLURM_ARRAY_JOB_ID"), variables.get("SLURM_ARRAY_TASK_ID")) == (job, str(t)),
              f"task {t}: recorded Slurm variables {variables}")
        check({r["impl"] for r in doc["rows"]} >= IMPLS and all(r["check"]["passed"] for r in doc["rows"]),
              f"task {t}: rows {[(r['impl'], r['check']) for r in doc['rows']]}")
    return run_dir


def check_report(run_dir, job):
    report = run_dir.parent / "fleet.md"
    r = subprocess.run(["/usr/bin/python3", "-m", "plots.fleet", str(run_dir), "-o", str(report)], cwd=REPO,
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"plots.fleet: exit {r.returncode}: {r.stderr}")
    text = report.read_text()
    check(f"## Run slurm-{job}" in text, text)
    check(f"Slurm array job {job}: {TASKS} of {TASKS} tasks left result files." in text, text)
    for t in range(TASKS):
        check(f"| array job {job} task {t} |" in text, f"task {t} not in the report:\n{text}")
    for impl in IMPLS:
        for input in LESSON_INPUTS:
            lines = [line for line in text.splitlines() if line.startswith(f"| lesson | {impl} ")
                     and f"| {input} |" in line]
            check(len(lines) == 1 and f"| {TASKS} |" in lines[0], f"{impl} on {input}: {lines}\n{text}")


def main():
    exe = os.path.abspath(sys.argv[1])
    script_refusals()
    why_not = have_slurm()
    if why_not:
        print(f"SKIP: {why_not}")
        return SKIP
    t0 = time.monotonic()
    root = pathlib.Path(tempfile.mkdtemp(prefix="histostudy-slurm-"))
    cluster = Cluster(root)
    try:
        cluster.start()
        print(f"cluster up in {time.monotonic() - t0:.1f} s", flush=True)
        results = root / "results"
        job = run_array(cluster, exe, results)
        run_dir = check_results(cluster, job, results)
        check_report(run_dir, job)
        print(f"array job {job}: {TASKS} tasks, their results and the report checked; {time.monotonic() - t0:.1f} s")
        return 0
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
