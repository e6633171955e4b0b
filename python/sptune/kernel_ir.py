"""Sparse kernels written as linalg on #sparse_tensor, as a user of an MLIR
sparse compiler writes them (the input of sptune-autotune), and reading
sptune's attributes (`#sptune.kernel`, `#sptune.schedule`) back from IR.

The kernels have dynamic sizes: the matrix gives the sparse operand's, and
sptune-autotune's `free=N` option the free dense size (N of SpMM, K of SDDMM).
"""

import re

KERNELS = {
    "spmm": """
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
func.func @k(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}""",
    "sddmm": """
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
func.func @k(%s: tensor<?x?xf32, #CSR>, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32, #CSR> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %s, %c0 : tensor<?x?xf32, #CSR>
  %n = tensor.dim %s, %c1 : tensor<?x?xf32, #CSR>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32, #CSR>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%s, %a, %b : tensor<?x?xf32, #CSR>, tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32, #CSR>) {
  ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
    %p = arith.mulf %av, %bv : f32
    %q = arith.mulf %sv, %p : f32
    %r = arith.addf %xv, %q : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32, #CSR>
  return %0 : tensor<?x?xf32, #CSR>
}""",
    "spmv": """
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
func.func @k(%a: tensor<?x?xf32, #CSR>, %x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = linalg.matvec ins(%a, %x : tensor<?x?xf32, #CSR>, tensor<?xf32>) outs(%y : tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}""",
}

KINDS = tuple(KERNELS)

SCHEDULE = re.compile(r"sptune\.schedule = #sptune\.schedule<([^>]*)>")
KERNEL = re.compile(
    r"sptune\.kernel = #sptune\.kernel<(spmm|sddmm|spmv), loops = \[([^\]]*)\]")


def kernel_mlir(kind):
    """The .mlir text of kernel `kind` (spmm, sddmm or spmv)."""
    if kind not in KERNELS:
        raise ValueError(f"unknown kernel '{kind}' (expected one of: {', '.join(KINDS)})")
    return KERNELS[kind].lstrip("\n") + "\n"


def schedules(text):
    """The printed schedules (without `#sptune.schedule<>`) in IR `text`,
    in order."""
    return SCHEDULE.findall(text)


def kernels(text):
    """[(kind, {loop: size or None})] of the `#sptune.kernel` attributes in
    IR `text`, in order (a dynamic size is None)."""
    out = []
    for kind, loops in KERNEL.findall(text):
        sizes = {}
        for loop in loops.split(","):
            name, _, size = loop.strip().partition(" : ")
            sizes[name] = None if size == "?" else int(size)
        out.append((kind, sizes))
    return out


def free_size(kind, sizes, default=64):
    """The free dense size of a kernel with loop `sizes` (SpMM's j, SDDMM's
    k; SpMV has none): `default` when dynamic."""
    loop = {"spmm": "j", "sddmm": "k"}.get(kind)
    size = sizes.get(loop) if loop else None
    return size if size else default
