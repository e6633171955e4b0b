"""The layers family of the program fuzzer (sptune.program_fuzz).

A case is one function the way a GNN or sparse-attention user writes it,
several sparse kernels and their epilogues in a row, on a random small
sparse matrix S (awkward structures, positions and coordinates of 8 to 64
bits where they fit, f32 or f64, static or dynamic shapes):

- gat: edge scores X = S ⊙ (A B) (an SDDMM into S's pattern), their scale
  (none, a constant in the SDDMM's body, or an op of its own by a constant
  or an argument, which sptune-fuse-scales folds into the SDDMM), then
  Y = X H (SpMM);
- spmm: Y = S H, written as linalg.matmul or as a generic with a scale
  argument in its body;
- spmv: y = S v;
- hadamard-spmv: X = S ⊙ D (sparse ⊙ dense into S's pattern), y = X v;
- sddmm-spmv: X = S ⊙ (A B), y = X v;

each SpMM optionally followed by an epilogue in an op of its own (ReLU, or a
bias per column). The function runs through a pipeline as users run it:
extract-kernels, then default-schedule, or autotune in heuristic or release
mode (the shipped model) given S as its matrix, apply-schedule and
sptune-lower-cpu with a random `threads=`, under a random OMP_NUM_THREADS;
with sptune-fuse-scales first half of the time. The printed result must
match a Python reference to the element type's precision (the kernels may
sum in another order than upstream), and so must upstream's
(`--sparsifier`) on the same program.
"""

import collections
import os
import random
import shlex

from sptune.fuzz_common import (UPSTREAM_PIPELINE, matrix_market,
                                why_schedules_differ, why_values_differ)
from sptune.fuzz_spgemm import random_matrix, random_widths

CHAINS = ["gat", "gat", "spmm", "spmv", "hadamard-spmv", "sddmm-spmv"]
SCALES = ["none", "body", "op-constant", "op-argument"]
EPILOGUES = ["none", "none", "relu", "bias"]

SDDMM_MAPS = ("indexing_maps = [affine_map<(i, j, k) -> (i, j)>, "
              "affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, "
              "affine_map<(i, j, k) -> (i, j)>], iterator_types = "
              "[\"parallel\", \"parallel\", \"reduction\"]")
SPMM_MAPS = ("indexing_maps = [affine_map<(i, p, j) -> (i, j)>, "
             "affine_map<(i, p, j) -> (j, p)>, affine_map<(i, p, j) -> (i, p)>], "
             "iterator_types = [\"parallel\", \"parallel\", \"reduction\"]")
ELEMENTWISE3 = ("indexing_maps = [affine_map<(i, j) -> (i, j)>, "
                "affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], "
                "iterator_types = [\"parallel\", \"parallel\"]")
ELEMENTWISE2 = ("indexing_maps = [affine_map<(i, j) -> (i, j)>, "
                "affine_map<(i, j) -> (i, j)>], iterator_types = "
                "[\"parallel\", \"parallel\"]")


def dense(rng, rows, cols):
    return [[float("%.4g" % rng.uniform(-1.0, 1.0)) for _ in range(cols)]
            for _ in range(rows)]


class LayerCase:
    """One random layer: its operands, kernels, epilogue and pipeline."""

    family = "layers"
    #: Another order of summation prints other last digits than upstream.
    exact_upstream = False

    def __init__(self, seed, n):
        rng = random.Random("layers-fuzz:%d:%d" % (seed, n))
        self.n = n
        self.elt = rng.choice(["f32", "f64"])
        self.chain = rng.choice(CHAINS)
        self.dynamic = rng.random() < 0.3
        side = lambda: rng.choice([1, rng.randint(2, 9), rng.randint(10, 40)])
        self.m, self.ncols = side(), side()
        self.k = rng.choice([1, 3, 4, rng.randint(2, 20)])
        self.p = rng.choice([1, 3, 8, 16, rng.randint(2, 24)])
        self.s, self.style = random_matrix(rng, self.m, self.ncols, self.elt,
                                           exact=False)
        self.widths = random_widths(rng, self.s)
        self.scale_form = (rng.choice(SCALES) if self.chain in ("gat", "sddmm-spmv")
                           else "none")
        self.spmm_form = rng.choice(["matmul", "alpha"]) if self.chain == "spmm" \
            else "matmul"
        self.epilogue = (rng.choice(EPILOGUES)
                         if self.chain in ("gat", "spmm") else "none")
        self.scale = rng.choice([0.5, -1.25, 0.125])
        self.a = dense(rng, self.m, self.k)
        self.b = dense(rng, self.k, self.ncols)
        self.h = dense(rng, self.ncols, self.p)
        self.v = dense(rng, self.ncols, 1)
        self.d = dense(rng, self.m, self.ncols)
        self.bias = dense(rng, 1, self.p)[0]
        self.fuse_scales = rng.random() < 0.5
        self.tuner = rng.choice(["default-schedule", "heuristic", "release"])
        self.threads = rng.choice([None, None, 1, 2, 3])
        self.omp_threads = rng.choice([1, 2, 3, 4])
        #: The scale argument's value, never the constant's (a rewrite that
        #: takes one factor for the other changes the result).
        self.argument = rng.choice([0.25, -0.75, 2.0])

    # -- what the driver asks of a case (sptune.program_fuzz) ---------------

    def prepare(self, workdir):
        """Writes S where the tuner reads it (sptune_args' `matrix=`)."""
        with open(os.path.join(workdir, "s.mtx"), "w") as f:
            f.write(matrix_market(self.m, self.ncols,
                                  [(i, j, v) for i, r in enumerate(self.s.rows)
                                   for j, v in r]))

    def sptune_args(self, workdir):
        args = ["--sptune-fuse-scales"] if self.fuse_scales else []
        args.append("--sptune-extract-kernels")
        if self.tuner == "default-schedule":
            args.append("--sptune-default-schedule")
        else:
            args.append("--sptune-autotune=mode=%s matrix=%s" % (
                self.tuner, os.path.join(workdir, "s.mtx")))
        args.append("--sptune-apply-schedule")
        args.append("--sptune-lower-cpu" +
                    ("=threads=%d" % self.threads if self.threads else ""))
        return args

    def upstream_args(self):
        return [UPSTREAM_PIPELINE]

    def check(self, stdout):
        return why_values_differ(
            stdout, [x for row in self.reference(False) for x in row],
            [x for row in self.reference(True) for x in row], self.elt,
            lambda q: "value %d (row %d)" % (q, q // self.out_cols()))

    def schedule_args(self, workdir):
        """The pipeline up to the schedules (sptune_args without the
        lowering), whose output why_kernels_unused reads."""
        return self.sptune_args(workdir)[:-1]

    def expected_schedules(self):
        """The kernels the tuner must schedule, by kind."""
        return collections.Counter({
            "gat": ["sddmm", "spmm"], "spmm": ["spmm"], "spmv": ["spmv"],
            "hadamard-spmv": ["hadamard", "spmv"],
            "sddmm-spmv": ["sddmm", "spmv"]}[self.chain])

    def why_kernels_unused(self, lowered, scheduled):
        """"" when every kernel of the layer got a CPU schedule."""
        return why_schedules_differ(scheduled, self.expected_schedules())

    def describe(self):
        return ("%s %s %s S %dx%d (%s, widths %d/%d) k=%d p=%d scale=%s "
                "spmm=%s epilogue=%s, %s, OMP_NUM_THREADS=%d" % (
                    self.chain, self.elt, "dynamic" if self.dynamic else "static",
                    self.m, self.ncols, self.style, *self.widths, self.k, self.p,
                    self.scale_form, self.spmm_form, self.epilogue,
                    " ".join(shlex.quote(a) for a in self.sptune_args("DIR")),
                    self.omp_threads))

    # -- the reference -------------------------------------------------------

    def out_cols(self):
        return self.p if self.chain in ("gat", "spmm") else 1

    def reference(self, magnitude):
        """The printed result, row by row; with `magnitude`, the same sums
        over the terms' absolute values (each value's rounding scale)."""
        f = abs if magnitude else (lambda x: x)
        constant, argument = f(self.scale), f(self.argument)
        x = {}  # the sparse intermediate, by (i, j)
        for i, row in enumerate(self.s.rows):
            for j, sv in row:
                if self.chain in ("gat", "sddmm-spmv"):
                    val = f(sv) * sum(f(self.a[i][q]) * f(self.b[q][j])
                                      for q in range(self.k))
                    if self.scale_form in ("body", "op-constant"):
                        val *= constant
                    elif self.scale_form == "op-argument":
                        val *= argument
                elif self.chain == "hadamard-spmv":
                    val = f(sv) * f(self.d[i][j])
                else:
                    val = f(sv)
                x[i, j] = val
        out = [[0.0] * self.out_cols() for _ in range(self.m)]
        for (i, j), val in x.items():
            if self.chain in ("gat", "spmm"):
                for c in range(self.p):
                    out[i][c] += val * f(self.h[j][c])
            else:
                out[i][0] += val * f(self.v[j][0])
        if self.spmm_form == "alpha":
            out = [[y * argument for y in row] for row in out]
        if self.epilogue == "relu" and not magnitude:
            out = [[max(y, 0.0) for y in row] for row in out]
        if self.epilogue == "bias":
            out = [[y + f(bc) for y, bc in zip(row, self.bias)] for row in out]
        return out

    # -- the program ---------------------------------------------------------

    def t(self, rows, cols, enc=""):
        dims = "?x?" if self.dynamic else "%dx%d" % (rows, cols)
        return "tensor<%sx%s%s>" % (dims, self.elt, ", #S" if enc else "")

    def t1(self, n):
        return "tensor<%sx%s>" % ("?" if self.dynamic else n, self.elt)

    def program(self):
        T, m, nc, k, p = self.elt, self.m, self.ncols, self.k, self.p
        ts, ta, tb = self.t(m, nc, "S"), self.t(m, k), self.t(k, nc)
        th, td = self.t(nc, p), self.t(m, nc)
        tv, ty1, ty2 = self.t1(nc), self.t1(m), self.t(m, p)
        vec_out = self.chain not in ("gat", "spmm")
        ty = ty1 if vec_out else ty2
        pos, crd = self.widths
        lines = ["#S = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, "
                 "j : compressed)%s%s }>" % (", posWidth = %d" % pos if pos else "",
                                             ", crdWidth = %d" % crd if crd else ""),
                 ""]
        params = ["%%s: %s" % ts]
        uses_sddmm = self.chain in ("gat", "sddmm-spmv")
        if uses_sddmm:
            params += ["%%a: %s" % ta, "%%b: %s" % tb]
        if self.chain == "hadamard-spmv":
            params.append("%%d: %s" % td)
        if vec_out:
            params.append("%%v: %s" % tv)
        else:
            params.append("%%h: %s" % th)
        if self.epilogue == "bias":
            params.append("%%bias: %s" % self.t1(p))
        params.append("%%scale: %s" % T)
        body = ["func.func @layer(%s) -> %s {" % (", ".join(params), ty),
                "  %c0 = arith.constant 0 : index",
                "  %c1 = arith.constant 1 : index",
                "  %%zero = arith.constant 0.0 : %s" % T,
                "  %%cst = arith.constant %r : %s" % (self.scale, T)]
        dm = dn = dp = ""
        if self.dynamic:
            body += ["  %%m = tensor.dim %%s, %%c0 : %s" % ts,
                     "  %%n = tensor.dim %%s, %%c1 : %s" % ts]
            dm, dn = "%m", "%n"
            if not vec_out:
                body.append("  %%p = tensor.dim %%h, %%c1 : %s" % th)
                dp = "%p"
        x = "%s"
        if uses_sddmm:
            body.append("  %%e = tensor.empty(%s) : %s" % (
                ", ".join(v for v in (dm, dn) if v), ts))
            scaled = self.scale_form == "body"
            body += ["  %%x = linalg.generic {%s}" % SDDMM_MAPS,
                     "      ins(%%s, %%a, %%b : %s, %s, %s) outs(%%e : %s) {" % (ts, ta, tb, ts),
                     "  ^bb0(%%sv: %s, %%av: %s, %%bv: %s, %%o: %s):" % (T, T, T, T),
                     "    %%q0 = arith.mulf %%av, %%bv : %s" % T,
                     "    %%q1 = arith.mulf %%sv, %%q0 : %s" % T]
            if scaled:
                body.append("    %%q2 = arith.mulf %%q1, %%cst : %s" % T)
            body += ["    %%r = arith.addf %%o, %%q%d : %s" % (2 if scaled else 1, T),
                     "    linalg.yield %%r : %s" % T,
                     "  } -> %s" % ts]
            x = "%x"
            if self.scale_form.startswith("op-"):
                factor = "%cst" if self.scale_form == "op-constant" else "%scale"
                body += ["  %%e2 = tensor.empty(%s) : %s" % (
                             ", ".join(v for v in (dm, dn) if v), ts),
                         "  %%xs = linalg.generic {%s}" % ELEMENTWISE2,
                         "      ins(%%x : %s) outs(%%e2 : %s) {" % (ts, ts),
                         "  ^bb0(%%u: %s, %%o: %s):" % (T, T),
                         "    %%w = arith.mulf %%u, %s : %s" % (factor, T),
                         "    linalg.yield %%w : %s" % T,
                         "  } -> %s" % ts]
                x = "%xs"
        if self.chain == "hadamard-spmv":
            body += ["  %%e = tensor.empty(%s) : %s" % (
                         ", ".join(v for v in (dm, dn) if v), ts),
                     "  %%x = linalg.generic {%s}" % ELEMENTWISE3,
                     "      ins(%%s, %%d : %s, %s) outs(%%e : %s) {" % (ts, td, ts),
                     "  ^bb0(%%u: %s, %%w: %s, %%o: %s):" % (T, T, T),
                     "    %%r = arith.mulf %%u, %%w : %s" % T,
                     "    linalg.yield %%r : %s" % T,
                     "  } -> %s" % ts]
            x = "%x"
        if vec_out:
            body += ["  %%y0 = tensor.empty(%s) : %s" % (dm, ty),
                     "  %%yz = linalg.fill ins(%%zero : %s) outs(%%y0 : %s) -> %s" % (T, ty, ty),
                     "  %%y = linalg.matvec ins(%s, %%v : %s, %s) outs(%%yz : %s) -> %s"
                     % (x, ts, tv, ty, ty)]
        else:
            body += ["  %%y0 = tensor.empty(%s) : %s" % (
                         ", ".join(v for v in (dm, dp) if v), ty),
                     "  %%yz = linalg.fill ins(%%zero : %s) outs(%%y0 : %s) -> %s" % (T, ty, ty)]
            if self.spmm_form == "alpha":
                body += ["  %%y = linalg.generic {%s}" % SPMM_MAPS,
                         "      ins(%s, %%h : %s, %s) outs(%%yz : %s) {" % (x, ts, th, ty),
                         "  ^bb0(%%u: %s, %%w: %s, %%o: %s):" % (T, T, T),
                         "    %%q0 = arith.mulf %%u, %%w : %s" % T,
                         "    %%q1 = arith.mulf %%scale, %%q0 : %s" % T,
                         "    %%r = arith.addf %%o, %%q1 : %s" % T,
                         "    linalg.yield %%r : %s" % T,
                         "  } -> %s" % ty]
            else:
                body.append("  %%y = linalg.matmul ins(%s, %%h : %s, %s) outs(%%yz : %s) -> %s"
                            % (x, ts, th, ty, ty))
        result = "%y"
        if self.epilogue == "relu":
            body += ["  %%ye = linalg.generic {%s}" % ELEMENTWISE2,
                     "      ins(%%y : %s) outs(%%y0 : %s) {" % (ty, ty),
                     "  ^bb0(%%u: %s, %%o: %s):" % (T, T),
                     "    %%r = arith.maximumf %%u, %%zero : %s" % T,
                     "    linalg.yield %%r : %s" % T,
                     "  } -> %s" % ty]
            result = "%ye"
        elif self.epilogue == "bias":
            body += ["  %ye = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, "
                     "affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], "
                     "iterator_types = [\"parallel\", \"parallel\"]}",
                     "      ins(%%y, %%bias : %s, %s) outs(%%y0 : %s) {" % (ty, self.t1(p), ty),
                     "  ^bb0(%%u: %s, %%c: %s, %%o: %s):" % (T, T, T),
                     "    %%r = arith.addf %%u, %%c : %s" % T,
                     "    linalg.yield %%r : %s" % T,
                     "  } -> %s" % ty]
            result = "%ye"
        body += ["  return %s : %s" % (result, ty), "}", ""]
        lines += body
        lines += self.main(ts, ta, tb, th, td, tv, ty, vec_out)
        return "\n".join(lines)

    def constant(self, name, rows, static_type, dyn_type):
        text = ", ".join("[" + ", ".join(repr(v) for v in r) + "]" for r in rows)
        out = ["  %%%s0 = arith.constant dense<[%s]> : %s" % (name, text, static_type)]
        if dyn_type != static_type:
            out.append("  %%%s = tensor.cast %%%s0 : %s to %s" % (name, name, static_type, dyn_type))
        else:
            out[0] = out[0].replace("%%%s0 =" % name, "%%%s =" % name)
        return out

    def vector_constant(self, name, values, n):
        static = "tensor<%dx%s>" % (n, self.elt)
        text = ", ".join(repr(v) for v in values)
        out = ["  %%%s0 = arith.constant dense<[%s]> : %s" % (name, text, static)]
        if self.dynamic:
            out.append("  %%%s = tensor.cast %%%s0 : %s to %s" % (name, name, static, self.t1(n)))
        else:
            out[0] = out[0].replace("%%%s0 =" % name, "%%%s =" % name)
        return out

    def main(self, ts, ta, tb, th, td, tv, ty, vec_out):
        T, m, nc, k, p = self.elt, self.m, self.ncols, self.k, self.p
        st = lambda r, c: "tensor<%dx%dx%s>" % (r, c, T)
        out = ["func.func @main() {",
               "  %c0 = arith.constant 0 : index",
               "  %c1 = arith.constant 1 : index",
               "  %%scale = arith.constant %r : %s" % (self.argument, T),
               "  %%ds = arith.constant dense<[%s]> : %s" % (
                   ", ".join("[" + ", ".join(repr(v) for v in r) + "]"
                             for r in self.s.dense(0.0)), st(m, nc)),
               "  %%s = sparse_tensor.convert %%ds : %s to %s" % (st(m, nc), ts)]
        args, types = ["%s"], [ts]
        if self.chain in ("gat", "sddmm-spmv"):
            out += self.constant("a", self.a, st(m, k), ta)
            out += self.constant("b", self.b, st(k, nc), tb)
            args += ["%a", "%b"]
            types += [ta, tb]
        if self.chain == "hadamard-spmv":
            out += self.constant("d", self.d, st(m, nc), td)
            args.append("%d")
            types.append(td)
        if vec_out:
            out += self.vector_constant("v", [r[0] for r in self.v], nc)
            args.append("%v")
            types.append(tv)
        else:
            out += self.constant("h", self.h, st(nc, p), th)
            args.append("%h")
            types.append(th)
        if self.epilogue == "bias":
            out += self.vector_constant("bias", self.bias, p)
            args.append("%bias")
            types.append(self.t1(p))
        args.append("%scale")
        types.append(T)
        out.append("  %%y = call @layer(%s) : (%s) -> %s" % (
            ", ".join(args), ", ".join(types), ty))
        static_y = "tensor<%dx%s>" % (m, T) if vec_out else st(m, p)
        if self.dynamic:
            out.append("  %%ys = tensor.cast %%y : %s to %s" % (ty, static_y))
        else:
            out.append("  %%ys = arith.addi %%c0, %%c0 : index  // (static)")
            out[-1] = ""
        yname = "%ys" if self.dynamic else "%y"
        out += ["  %%rows = arith.constant %d : index" % m,
                "  %%cols = arith.constant %d : index" % (1 if vec_out else p),
                "  scf.for %i = %c0 to %rows step %c1 {",
                "    scf.for %j = %c0 to %cols step %c1 {"]
        if vec_out:
            out.append("      %%x = tensor.extract %s[%%i] : %s" % (yname, static_y))
        else:
            out.append("      %%x = tensor.extract %s[%%i, %%j] : %s" % (yname, static_y))
        out += ["      vector.print %%x : %s" % T,
                "    }",
                "  }",
                "  bufferization.dealloc_tensor %%s : %s" % ts,
                "  return",
                "}", ""]
        return [l for l in out if l != ""] + [""]
