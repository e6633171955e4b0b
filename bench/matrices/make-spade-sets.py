#!/usr/bin/env python3
"""Writes the generated-matrix lists of the SPADE data (issue 17).

    /usr/bin/python3 bench/matrices/make-spade-sets.py   # rewrites the two lists

spade-train.txt: 160 generator specs, the training pool together with the
shared matrices under 50,000 stored entries. spade-eval.txt: 30 specs held out
of every SPADE training run, evaluated together with the 14 large shared
matrices. Five families (uniform, R-MAT power law, banded, blocked, clustered
rows), sizes drawn so that the dense operand (cols x 64 x 4 bytes) is 1-16x
the simulated LLC and a 252-schedule sweep stays affordable: 8,000-150,000
stored entries for training, up to 300,000 for evaluation. Seeds never repeat
between the lists, so no evaluation matrix is a training one.
"""

import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def spec(rng, seed, max_nnz):
    family = rng.choice(["uniform", "rmat", "banded", "block", "clustered"])
    rows = rng.choice([2048, 4096, 8192, 16384, 32768])
    cols = rows * rng.choice([1, 1, 1, 2]) if family != "banded" else rows
    degree = rng.choice([2, 3, 4, 6, 8, 12, 16, 24])
    nnz = max(8000, min(max_nnz, rows * degree))
    rows = max(rows, nnz // 32)
    cols = max(cols, 2048)
    head = f"gen:{family}:rows={rows},cols={cols},nnz={nnz}"
    if family == "rmat":
        a = rng.choice([0.45, 0.5, 0.57, 0.62, 0.65])
        bc = 0.19 if a + 0.38 <= 1 else 0.17  # a + b + c <= 1
        return f"{head},a={a},b={bc},c={bc},seed={seed}"
    if family == "banded":
        bw = max(rng.choice([4, 16, 64, 256, 1024]), nnz // rows)
        return f"{head},bw={bw},seed={seed}"
    if family == "block":
        return f"{head},bs={rng.choice([2, 4, 8, 16])},seed={seed}"
    if family == "clustered":
        return (f"{head},group={rng.choice([4, 8, 16, 32])},"
                f"noise={rng.choice([0, 0.05, 0.2, 0.5])},seed={seed}")
    return f"{head},seed={seed}"


def main():
    rng = random.Random(17)
    train = [spec(rng, 1700 + i, 150000) for i in range(160)]
    evals = [spec(rng, 1900 + i, 300000) for i in range(30)]
    for name, specs in (("spade-train.txt", train), ("spade-eval.txt", evals)):
        with open(os.path.join(HERE, name), "w") as f:
            f.write("\n".join(specs) + "\n")


if __name__ == "__main__":
    main()
