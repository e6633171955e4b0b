"""Writes a tiny synthetic SPADE dataset for transfer-curve.test:
python transfer-curve.test.py OUT.jsonl SEED,SEED,... (one matrix a seed)."""
import json
import sys

SCHEDULES = [
    "split = [256, 1], tile = 0, pes = 0, barrier = false, bypass = [], reorder = none",
    "split = [32, 1], tile = 0, pes = 0, barrier = false, bypass = [sparse, output], reorder = none",
    "split = [256, 1], tile = 0, pes = 0, barrier = false, bypass = [output], reorder = similarity",
    "split = [2048, 1], tile = 0, pes = 0, barrier = false, bypass = [], reorder = length",
    "split = [256, 256], tile = 0, pes = 0, barrier = false, bypass = [sparse], reorder = none",
    "split = [2048, 256], tile = 0, pes = 0, barrier = true, bypass = [], reorder = length",
]

with open(sys.argv[1], "w") as f:
    for seed in (int(s) for s in sys.argv[2].split(",")):
        source = f"gen:uniform:rows=128,cols=128,nnz={600 + 100 * seed},seed={seed}"
        for kernel in ("spmm", "sddmm"):
            for n, sched in enumerate(SCHEDULES):
                t = 1e-4 * (1 + ((n * 7 + seed * 3) % 6) / 4)
                for role in (["baseline:heuristic", "sample"] if n == 0 else ["sample"]):
                    f.write(json.dumps({
                        "schema": 1, "key": f"{seed}|{kernel}|{n}|{role}",
                        "matrix": {"id": f"m{seed}", "source": source, "rows": 128,
                                   "cols": 128, "nnz": 600 + 100 * seed},
                        "kernel": kernel, "free": 64, "target": "spade", "role": role,
                        "schedule": f"spade {kernel}, {sched}", "status": "ok", "reason": "",
                        "time_s": {"median": t, "min": t, "max": t, "mad": 0, "reps": 1},
                        "compile_s": 0.0, "cycles": None, "machine": {},
                        "tool_version": "0.1.0", "time": "now"}) + "\n")
