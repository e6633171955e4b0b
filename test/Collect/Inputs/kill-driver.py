"""Runs a `sptune-collect --backend slurm` driver, kills it with SIGKILL once
the dataset holds a record (mid-run), then cancels the array jobs it had
submitted (as a preemption would), so that the next run must re-attach the
batch and resubmit the tasks that did not finish.

usage: kill-driver.py STATE_DIR DATASET -- COMMAND...
"""
import glob
import json
import os
import signal
import subprocess
import sys
import time

state_dir, dataset = sys.argv[1], sys.argv[2]
command = sys.argv[sys.argv.index("--") + 1:]
log = open(dataset + ".driver-log", "w")
driver = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)


def records():
    try:
        with open(dataset) as f:
            return sum(1 for line in f if line.strip().endswith("}"))
    except OSError:
        return 0


deadline = time.time() + 90
while time.time() < deadline and driver.poll() is None and records() < 1:
    time.sleep(0.1)
if driver.poll() is not None:
    print("the driver ended before it could be killed (exit %d)" %
          driver.returncode)
    sys.exit(1)
os.kill(driver.pid, signal.SIGKILL)
driver.wait()
killed_at = records()
jobs = set()
try:
    # Each batch has its own directory, state/batch-<unique>.
    for path in glob.glob(os.path.join(state_dir, "batch-*", "state.json")):
        with open(path) as f:
            jobs |= {j for j in json.load(f)["job"] if j}
except (OSError, ValueError, KeyError):
    pass
if jobs:
    subprocess.run(["scancel"] + sorted(jobs), timeout=60)
    for _ in range(120):
        out = subprocess.run(["squeue", "-h", "-r", "-o", "%F"],
                             capture_output=True, text=True, timeout=60).stdout
        if not jobs & set(out.split()):
            break
        time.sleep(0.5)
print("killed the driver after %d record(s); cancelled %d job(s)" %
      (killed_at, len(jobs)))
