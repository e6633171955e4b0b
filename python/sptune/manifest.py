"""The matrices a shared directory's MANIFEST.tsv lists (../shared/matrices:
one row per .mtx file, with its stored entries as `nnz_full`, or `nnz`)."""

import os

from sptune.errors import SptuneError


def large_matrices(directory, min_nnz):
    """The paths of DIR's matrices with at least `min_nnz` stored entries,
    sorted; SptuneError when the manifest cannot be read or lacks a column."""
    path = os.path.join(directory, "MANIFEST.tsv")
    try:
        with open(path) as f:
            header = f.readline().rstrip("\n").split("\t")
            rows = [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f if line.strip()]
    except OSError as e:
        raise SptuneError(f"cannot read {path}: {e}") from None
    out = []
    for r in rows:
        try:
            nnz = int(r.get("nnz_full") or r["nnz"])
        except (KeyError, ValueError):
            raise SptuneError(f"{path}: row without a stored-entry count: {r}") from None
        if "file" not in r:
            raise SptuneError(f"{path}: no 'file' column")
        if nnz >= min_nnz:
            out.append(os.path.join(directory, r["file"]))
    return sorted(out)
