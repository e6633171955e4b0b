#!/usr/bin/env bash
# Packs what bench/gpu-check.sh needs on a GPU machine that has the NVIDIA
# driver and CUDA toolkit but no LLVM/MLIR 22 and cannot install it (a
# GPU machine with CUDA and CMake but no access to apt.llvm.org):
#
#   - this build's sptune-opt, sptune-gpu-bench and libsptune_cuda_runtime.so
#     (built here with the CUDA toolkit) and its lit configuration;
#   - LLVM 22's shared libraries and the tools the executed NVVM lit tests run
#     (mlir-runner, FileCheck, not, count, split-file, lit), with every library
#     they load that is not glibc's, libstdc++'s or CUDA's;
#   - the smaller shared matrices gpu-check measures, when they are here.
#
# To keep the archive small (47 MB, where the copy to a GPU machine may be
# limited), two libraries libLLVM links but sptune never calls are stubs
# that carry only what the dynamic loader checks (their symbol versions and
# data symbols): libz3 (the SMT solver of clang's analyzer, 7 MB packed) and
# libxml2 with ICU (LLVM's Windows manifest tool, 9 MB). Calling into either
# would fail with a symbol lookup error, which nothing on sptune's path does.
#
#   bash bench/gpu-bundle.sh [--build DIR] [--out FILE]
#
# Default: --build build, --out .gpu-bundle/bundle.tar.xz (git ignores the
# folder). Copy the checkout and the archive to the GPU machine, and there:
#   bash bench/gpu-check.sh --bundle .gpu-bundle/bundle.tar.xz
# The archive holds usr/lib/llvm-22/... (unpacked at / there), build/...
# (unpacked into gpu-check's build folder) and matrices/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
out="$root/.gpu-bundle/bundle.tar.xz"
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "gpu-bundle: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
die() { echo "gpu-bundle: error: $1" >&2; exit 1; }

llvm=/usr/lib/llvm-22
for tool in file ldd readelf cc xz tar; do
  command -v "$tool" > /dev/null 2>&1 || die "missing $tool"
done
for f in "$build/bin/sptune-opt" "$build/bin/sptune-gpu-bench" \
         "$build/lib/libsptune_cuda_runtime.so" "$build/test/lit.site.cfg.py"; do
  [ -e "$f" ] || die "missing $f (build with the CUDA toolkit: cmake -DSPTUNE_ENABLE_CUDA=ON, then ninja sptune-opt sptune-gpu-bench sptune_cuda_runtime)"
done
[ -d "$llvm/utils/lit" ] || die "missing $llvm/utils/lit (apt-get install llvm-22-tools)"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

# LLVM's tools and runner libraries, at their own paths.
tools="mlir-runner FileCheck not count split-file lit"
libs="libmlir_c_runner_utils.so libmlir_runner_utils.so"
mkdir -p "$stage/usr/lib/llvm-22/bin" "$stage/usr/lib/llvm-22/lib" "$stage/usr/lib/llvm-22/utils"
for t in $tools; do cp -L "$llvm/bin/$t" "$stage/usr/lib/llvm-22/bin/"; done
for l in $libs; do cp -L "$llvm/lib/$l"* "$stage/usr/lib/llvm-22/lib/" 2>/dev/null || true; done
cp -rL "$llvm/utils/lit" "$stage/usr/lib/llvm-22/utils/"
find "$stage/usr/lib/llvm-22/utils" -name __pycache__ -prune -exec rm -rf {} +

# Every library the binaries load, but glibc's, the compiler runtime's and
# CUDA's (the GPU machine has its own), next to LLVM's.
is_system() {
  case "$1" in
    libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|linux-vdso*) return 0 ;;
    libstdc++.so*|libgcc_s.so*) return 0 ;;
    libcuda.so*|libcudart.so*|libcusparse.so*|libnvJitLink.so*|libcublas*) return 0 ;;
    libz3.so*|libxml2.so*|libicu*) return 0 ;; # stubbed below
  esac
  return 1
}
binaries=("$build/bin/sptune-opt" "$build/bin/sptune-gpu-bench" "$build/lib/libsptune_cuda_runtime.so")
for t in $tools; do binaries+=("$llvm/bin/$t"); done
for l in $libs; do binaries+=("$llvm/lib/$l"); done
for b in "${binaries[@]}"; do
  file -L "$b" | grep -q ELF || continue
  missing="$(ldd "$b" 2>/dev/null | awk '/not found/ { print $1 }' | grep -v '^libcuda\.so' || true)"
  [ -z "$missing" ] || die "$b needs libraries this machine lacks: $missing"
  while read -r name _ path _; do
    [ -n "$path" ] && [ -f "$path" ] || continue
    is_system "$name" && continue
    [ -e "$stage/usr/lib/llvm-22/lib/$name" ] || cp -L "$path" "$stage/usr/lib/llvm-22/lib/$name"
  done < <(ldd "$b" 2>/dev/null | grep "=>")
done

# The stubs: a library of the same soname defining the symbol versions libLLVM
# asks of it and the data symbols it binds at load time (functions bind lazily).
stub() { # soname
  local soname="$1" llvm_lib="$llvm/lib/libLLVM.so.22.1" dir="$stage/stub-src"
  mkdir -p "$dir"
  local versions data
  versions="$(readelf -V -W "$llvm_lib" | awk -v f="$soname" '
    /File:/ { take = ($0 ~ "File: " f) } take && /Name:/ { print $3 }')"
  data="$(readelf -r -W "$llvm_lib" | awk -v vs="$versions" '
    BEGIN { n = split(vs, v, "\n"); for (i = 1; i <= n; i++) want[v[i]] = 1 }
    $3 == "R_X86_64_GLOB_DAT" { split($5, p, "@"); if (p[2] in want) print p[1], p[2] }' | sort -u)"
  echo "void sptune_gpu_bundle_stub(void) {}" > "$dir/$soname.c"
  : > "$dir/$soname.map"
  local prev=""
  for v in $versions; do
    local syms
    syms="$(echo "$data" | awk -v v="$v" '$2 == v { printf "%s; ", $1 }')"
    for s in $syms; do echo "void *${s%;} = 0;" >> "$dir/$soname.c"; done
    echo "$v { global: sptune_gpu_bundle_stub; $syms local: *; } $prev;" >> "$dir/$soname.map"
    prev="$v"
  done
  local flags=""
  [ -s "$dir/$soname.map" ] && flags="-Wl,--version-script=$dir/$soname.map"
  cc -shared -fPIC -o "$stage/usr/lib/llvm-22/lib/$soname" -Wl,-soname,"$soname" $flags "$dir/$soname.c" ||
    die "cannot build the $soname stub"
}
stub libz3.so.4
stub libxml2.so.2
rm -rf "$stage/stub-src"
# Proof that the stubs are enough: sptune-opt lowers a kernel with them.
echo '#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
func.func @f(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}' | LD_LIBRARY_PATH="$stage/usr/lib/llvm-22/lib" "$build/bin/sptune-opt" \
  --sptune-extract-kernels --sptune-lower-nvvm > /dev/null ||
  die "sptune-opt does not run with the bundled libraries and stubs"

# This build: the tools, the runtime and the lit configuration.
mkdir -p "$stage/build/bin" "$stage/build/lib" "$stage/build/test"
cp "$build/bin/sptune-opt" "$build/bin/sptune-gpu-bench" "$stage/build/bin/"
cp "$build/lib/libsptune_cuda_runtime.so" "$stage/build/lib/"
cp "$build/test/lit.site.cfg.py" "$stage/build/test/"
# The build and source paths it was configured with, rewritten on the GPU machine.
{ echo "obj_root=$build"; echo "src_root=$root"; } > "$stage/build/bundle-paths"

# The matrices gpu-check measures, when the shared ones are here.
matrices="${SPTUNE_MATRICES:-$root/../shared/matrices}"
mkdir -p "$stage/matrices"
for n in HB_bcsstk13 SNAP_wiki-Vote DIMACS10_rgg_n_2_15_s0; do
  [ -f "$matrices/$n.mtx" ] && cp "$matrices/$n.mtx" "$stage/matrices/"
done

mkdir -p "$(dirname "$out")"
echo "gpu-bundle: packing $(du -sh "$stage" | cut -f1) into $out" >&2
tar -C "$stage" -cf - . | xz -T0 -9e > "$out.tmp"
mv "$out.tmp" "$out"
echo "gpu-bundle: wrote $out ($(du -h "$out" | cut -f1))" >&2
