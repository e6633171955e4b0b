"""Split a dataset by matrix: keep or drop the records of matrices that match.

    /usr/bin/python3 -m sptune.filter_dataset in.jsonl out.jsonl \
        --drop-min-nnz 50000 [--only-files]

`--drop-min-nnz N` drops matrices with at least N stored entries (with
`--only-files`, only matrices read from .mtx files — the SuiteSparse ones —
so synthetic matrices of any size stay). Used to train a model that never
saw the matrices it is evaluated on.

`--drop-kernel spmv[,...]` drops the records of those kernels: records that
describe a lowering sptune no longer generates, when the kernel has been
measured again (cost-model/README.md).
"""

import argparse
import json
import sys


#: The built-in kernel types sptune-collect measures.
KERNELS = ("spmm", "sddmm", "spmv", "hadamard", "spgemm")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--drop-min-nnz", type=int, default=None)
    ap.add_argument("--keep-min-nnz", type=int, default=None)
    ap.add_argument("--only-files", action="store_true",
                    help="apply the nnz rule to .mtx matrices only")
    ap.add_argument("--drop-kernel", default="",
                    help="comma-separated kernels whose records are dropped (" +
                    ", ".join(KERNELS) + ")")
    args = ap.parse_args(argv)
    drop_kernels = {k.strip() for k in args.drop_kernel.split(",") if k.strip()}
    unknown = drop_kernels - set(KERNELS)
    if unknown:
        ap.error(f"--drop-kernel: unknown kernel(s) {', '.join(sorted(unknown))} "
                 f"(expected {', '.join(KERNELS)})")
    kept = dropped = bad = 0
    with open(args.inp) as f, open(args.out, "w") as out:
        for line in f:
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                bad += 1
                continue
            is_file = not r["matrix"]["source"].startswith("gen:")
            nnz = r["matrix"]["nnz"]
            applies = is_file or not args.only_files
            drop = r.get("kernel") in drop_kernels
            if applies and args.drop_min_nnz is not None and nnz >= args.drop_min_nnz:
                drop = True
            if args.keep_min_nnz is not None and not (applies and nnz >= args.keep_min_nnz):
                drop = True
            if drop:
                dropped += 1
            else:
                kept += 1
                out.write(line if line.endswith("\n") else line + "\n")
    print(f"filter_dataset: kept {kept}, dropped {dropped}, unparseable {bad}", file=sys.stderr)


if __name__ == "__main__":
    main()
