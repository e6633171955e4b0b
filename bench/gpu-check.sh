#!/usr/bin/env bash
# The GPU device check, in one short run on a machine with an NVIDIA GPU:
#   1. checks that a GPU and the toolchain are there (fails at once if not);
#   2. builds what it needs (sptune-opt, the CUDA runtime, sptune-gpu-bench);
#   3. runs the NVVM lit tests, the executed GPU tests included;
#   4. measures tuned (best of sptune-gpu-bench's NVVM candidates) against
#      cuSPARSE for SpMM and SDDMM on a few shared matrices;
#   5. writes everything as JSON.
# Budget: well under 8 minutes on a 16-core machine (each phase has a
# timeout; a phase that runs out is reported, not hung on).
#
#   bash bench/gpu-check.sh [--out DIR] [--build DIR] [--quick] [--bundle FILE]
#
# --bundle FILE: on a GPU machine without LLVM/MLIR 22 (this project's device
# machines), use what bench/gpu-bundle.sh packed on a machine that has them
# (LLVM's libraries and tools, this build's binaries) instead of building.
#
# Environment: SPTUNE_MATRICES (folder of .mtx files; default the shared
# matrices next to the repository), EXTRA_MATRICES (more .mtx paths or gen:
# specs, space-separated, measured after them), JOBS (build parallelism), BUILD_TIMEOUT,
# TEST_TIMEOUT, BENCH_TIMEOUT (seconds). Output: DIR/gpu-check.json (summary),
# DIR/bench.jsonl (every measurement), DIR/lit.log, DIR/build.log; DIR
# defaults to $OUT when set (the device runner's output folder), else
# build-gpu/gpu-check.
#
# Exit status: 0 all passed, 1 a phase failed, 2 no GPU or missing toolchain.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-$root/build-gpu/gpu-check}"
build="$root/build-gpu"
quick=0
bundle=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --build) mkdir -p "$2" && build="$(cd "$2" && pwd)"; shift 2 ;;
    --quick) quick=1; shift ;;
    --bundle) bundle="$2"; [ -f "$bundle" ] && bundle="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
start=$(date +%s)
log() { echo "gpu-check [$(( $(date +%s) - start ))s]: $*" >&2; }
die() { log "error: $1"; exit "${2:-1}"; }

#===- 1. A GPU and the toolchain -----------------------------------------===#
command -v nvidia-smi > /dev/null 2>&1 ||
  die "no GPU here: nvidia-smi is not installed (this check needs an NVIDIA GPU and its driver)" 2
gpus="$(timeout 30 nvidia-smi -L 2>&1)" ||
  die "no GPU here: 'nvidia-smi -L' failed: $gpus" 2
echo "$gpus" | grep -q "GPU" || die "no GPU here: nvidia-smi lists none" 2
gpu_name="$(timeout 30 nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null | head -1)"
log "GPU: $gpu_name"

lit=/usr/lib/llvm-22/bin/lit
# lit's launcher names /usr/bin/python3; run it with a Python that exists.
python_exe=/usr/bin/python3
[ -x "$python_exe" ] || python_exe="$(command -v python3)"
cuda_root="${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}"
bundled_matrices=""
if [ -n "$bundle" ]; then
  #===- 2. Unpack the bundle (no build here) ------------------------------===#
  [ -f "$bundle" ] || die "no bundle at $bundle (make one with bench/gpu-bundle.sh)" 2
  unpacked="$build/bundle"
  rm -rf "$unpacked" && mkdir -p "$unpacked"
  log "unpacking $bundle"
  if command -v xz > /dev/null 2>&1; then
    tar -C "$unpacked" -xJf "$bundle" || die "cannot unpack $bundle" 2
  else
    python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" \
      "$bundle" "$unpacked" || die "cannot unpack $bundle" 2
  fi
  if [ ! -e /usr/lib/llvm-22 ]; then
    # Only where no LLVM 22 is installed at all: its tools and libraries at
    # their paths (what this build and lit's configuration name). A machine
    # with some of LLVM 22 is left alone.
    mkdir -p /usr/lib/llvm-22 && cp -a "$unpacked/usr/lib/llvm-22/." /usr/lib/llvm-22/ ||
      die "cannot install the bundled LLVM 22 under /usr/lib/llvm-22" 2
  fi
  for tool in "$lit" /usr/lib/llvm-22/bin/mlir-runner /usr/lib/llvm-22/bin/FileCheck; do
    [ -x "$tool" ] || die "missing $tool: this machine has part of LLVM 22 (install llvm-22-tools and mlir-22-tools, or run without --bundle)" 2
  done
  mkdir -p "$build/bin" "$build/lib" "$build/test/NVVM"
  cp -a "$unpacked/build/bin/." "$build/bin/" && cp -a "$unpacked/build/lib/." "$build/lib/"
  # The lit configuration names the paths of the machine that built it.
  old_obj="$(sed -n 's/^obj_root=//p' "$unpacked/build/bundle-paths")"
  old_src="$(sed -n 's/^src_root=//p' "$unpacked/build/bundle-paths")"
  sed -e "s|\"$old_obj|\"$build|g" -e "s|\"$old_src|\"$root|g" \
      -e "s|^config.python_executable = .*|config.python_executable = \"$python_exe\"|" \
      "$unpacked/build/test/lit.site.cfg.py" > "$build/test/lit.site.cfg.py"
  # The CUDA libraries the runtime links (libcusparse, libnvJitLink: the
  # names its build asked for), wherever this machine's toolkit or Python
  # wheels put them.
  cuda_libs=""
  for lib in $(LD_LIBRARY_PATH=/usr/lib/llvm-22/lib ldd "$build/lib/libsptune_cuda_runtime.so" |
               awk '/not found/ { print $1 }' | grep -v '^libcuda\.so'); do
    found="$(find "$cuda_root/" /usr/local /usr/lib /opt -name "$lib" 2>/dev/null | head -1)"
    [ -n "$found" ] && cuda_libs="$cuda_libs:$(dirname "$found")"
  done
  export LD_LIBRARY_PATH="/usr/lib/llvm-22/lib$cuda_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  log "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  missing="$(ldd "$build/bin/sptune-opt" "$build/bin/sptune-gpu-bench" \
    "$build/lib/libsptune_cuda_runtime.so" /usr/lib/llvm-22/bin/mlir-runner | grep "not found" | sort -u)"
  [ -z "$missing" ] || die "libraries not found: $missing" 2
  # lit's configuration insists on mlir-opt, which no device test runs and the
  # bundle leaves out (size): a stand-in that says so if anything calls it.
  if ! command -v mlir-opt > /dev/null 2>&1 && [ ! -x /usr/lib/llvm-22/bin/mlir-opt ]; then
    printf '#!/bin/sh\necho "mlir-opt is not in the gpu-check bundle" >&2\nexit 2\n' > "$build/bin/mlir-opt"
    chmod +x "$build/bin/mlir-opt"
  fi
  ls "$unpacked/matrices/"*.mtx > /dev/null 2>&1 && bundled_matrices="$unpacked/matrices"
  "$build/bin/sptune-opt" --help 2>/dev/null | grep -- "--sptune-lower-nvvm" > /dev/null ||
    die "the bundled sptune-opt does not run here or lacks the NVVM target"
else
  mlir_dir=/usr/lib/llvm-22/lib/cmake/mlir
  for tool in cmake ninja; do
    command -v "$tool" > /dev/null 2>&1 || die "missing $tool" 2
  done
  [ -d "$mlir_dir" ] || die "missing MLIR 22 ($mlir_dir; apt-get install libmlir-22-dev mlir-22-tools, or pass --bundle from bench/gpu-bundle.sh)" 2
  [ -x "$lit" ] || die "missing lit ($lit)" 2
  [ -f "$cuda_root/include/cuda.h" ] && [ -f "$cuda_root/include/cusparse.h" ] ||
    die "missing the CUDA toolkit (cuda.h, cusparse.h under $cuda_root/include)" 2

  #===- 2. Build ----------------------------------------------------------===#
  jobs="${JOBS:-$(nproc)}"
  torch=ON
  ls /usr/lib/x86_64-linux-gnu/libtorch.so* > /dev/null 2>&1 || torch=OFF
  log "configuring $build (torch $torch)"
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT="$lit" -DSPTUNE_ENABLE_CUDA=ON \
    -DSPTUNE_ENABLE_TORCH="$torch" -DCUDAToolkit_ROOT="$cuda_root" \
    > "$out/build.log" 2>&1 || die "cmake failed (see $out/build.log)"
  log "building sptune-opt, sptune_cuda_runtime, sptune-gpu-bench (-j$jobs)"
  timeout "${BUILD_TIMEOUT:-330}" ninja -C "$build" -j "$jobs" \
    sptune-opt sptune_cuda_runtime sptune-gpu-bench >> "$out/build.log" 2>&1 ||
    die "build failed or timed out (see $out/build.log)"
  "$build/bin/sptune-opt" --help 2>/dev/null | grep -- "--sptune-lower-nvvm" > /dev/null ||
    die "sptune-opt does not register the NVVM target (lib/InitAll.cpp must call registerNvvmTargetPasses())"
fi
build_s=$(( $(date +%s) - start ))

#===- 3. Tests ------------------------------------------------------------===#
# With a bundle, only the tests that need the device (the others ran where the
# bundle was made, and need tools it leaves out).
lit_filter=()
[ -n "$bundle" ] && lit_filter=(--filter "exec-|gpu-bench-device")
log "running the NVVM lit tests${bundle:+ that need the device}"
test_start=$(date +%s)
PATH="$build/bin:/usr/lib/llvm-22/bin:$PATH" timeout "${TEST_TIMEOUT:-150}" \
  "$python_exe" "$lit" -v "${lit_filter[@]}" "$build/test/NVVM" > "$out/lit.log" 2>&1
lit_status=$?
count() { grep -c "^$1: " "$out/lit.log" || true; }
passed=$(count PASS); failed=$(count FAIL); unsupported=$(count UNSUPPORTED)
log "lit: $passed passed, $failed failed, $unsupported unsupported (status $lit_status)"
grep -q "^PASS: SPTUNE :: NVVM/exec-spmm.mlir" "$out/lit.log" ||
  log "warning: the executed SpMM test did not pass (see $out/lit.log)"
test_s=$(( $(date +%s) - test_start ))

#===- 4. Tuned vs cuSPARSE ------------------------------------------------===#
matrices_dir=""
for d in "${SPTUNE_MATRICES:-}" "$bundled_matrices" "$root/../shared/matrices" "$root/shared/matrices" /work/shared/matrices; do
  if [ -n "$d" ] && [ -d "$d" ]; then matrices_dir="$d"; break; fi
done
names="HB_bcsstk13 SNAP_wiki-Vote DIMACS10_rgg_n_2_15_s0 vanHeukelum_cage11"
[ "$quick" = 1 ] && names="HB_bcsstk13 SNAP_wiki-Vote"
inputs=()
if [ -n "$matrices_dir" ]; then
  for n in $names; do
    [ -f "$matrices_dir/$n.mtx" ] && inputs+=("$matrices_dir/$n.mtx")
  done
fi
if [ ${#inputs[@]} -eq 0 ]; then
  log "no shared matrices found; using generated ones"
  inputs=("gen:rmat:rows=32768,nnz=300000,seed=3"
          "gen:banded:rows=65536,nnz=600000,bw=9,seed=1"
          "gen:block:rows=32768,nnz=400000,bs=4,seed=2")
fi
# More inputs (e.g. a large generated matrix) from the environment.
for extra in ${EXTRA_MATRICES:-}; do inputs+=("$extra"); done
log "measuring ${#inputs[@]} matrices: ${inputs[*]##*/}"
bench_start=$(date +%s)
timeout "${BENCH_TIMEOUT:-200}" "$build/bin/sptune-gpu-bench" --free=64 \
  --min-seconds=0.02 --min-reps=10 --max-reps=200 --warmups=3 \
  --json="$out/bench.jsonl" "${inputs[@]}" > "$out/bench-summary.jsonl" \
  2> "$out/bench.log"
bench_status=$?
log "bench: status $bench_status (0 = all measured; see $out/bench.log)"
bench_s=$(( $(date +%s) - bench_start ))

#===- 5. JSON -------------------------------------------------------------===#
total_s=$(( $(date +%s) - start ))
/usr/bin/env python3 - "$out" "$gpu_name" "$passed" "$failed" "$unsupported" \
  "$lit_status" "$bench_status" "$build_s" "$test_s" "$bench_s" "$total_s" <<'EOF'
import json, sys
out, gpu, passed, failed, unsupported, lit_status, bench_status, *times = sys.argv[1:]
summaries = []
try:
    for line in open(out + "/bench-summary.jsonl"):
        line = line.strip()
        if line:
            summaries.append(json.loads(line))
except OSError:
    pass
def geomean(values):
    values = [v for v in values if v]
    if not values:
        return None
    prod = 1.0
    for v in values:
        prod *= v
    return prod ** (1.0 / len(values))

def ratio(s, num, den):
    return s[num] / s[den] if s.get(num) and s.get(den) else None

geo = geomean([s.get("speedup") for s in summaries])
# The untuned choices: the nvvm heuristic (cuSPARSE on CSR) and the
# reference (MLIR's code generation, the heuristic before 2026-12-04).
heuristic_geo = geomean([ratio(s, "cusparse_s", "heuristic_s") for s in summaries])
heuristic_over_reference = geomean([ratio(s, "reference_s", "heuristic_s") for s in summaries])
report = {
    "gpu": gpu,
    "lit": {"passed": int(passed), "failed": int(failed),
            "unsupported": int(unsupported), "status": int(lit_status)},
    "bench": {"status": int(bench_status), "results": summaries,
              "geomean_speedup_tuned_over_cusparse": geo,
              "geomean_speedup_heuristic_over_cusparse": heuristic_geo,
              "geomean_speedup_heuristic_over_reference": heuristic_over_reference},
    "seconds": dict(zip(["build", "tests", "bench", "total"], map(int, times))),
}
json.dump(report, open(out + "/gpu-check.json", "w"), indent=2)
print(json.dumps(report, indent=2))
EOF
log "wrote $out/gpu-check.json in ${total_s}s"
[ "$lit_status" = 0 ] && [ "$bench_status" = 0 ] || exit 1
