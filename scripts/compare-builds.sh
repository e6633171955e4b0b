#!/usr/bin/env bash
# Behaviour unchanged? Runs the same commands with two builds of sptune (on
# the same machine) and compares what they produce:
#
#   bash scripts/compare-builds.sh OLD_BIN_DIR NEW_BIN_DIR [--out DIR] [--quick]
#
# OLD_BIN_DIR / NEW_BIN_DIR hold a build's tools (sptune-opt, sptune-train:
# a build's bin/ folder). Checks (every tool call under `timeout`, one at a
# time; inputs are the same files for both builds):
#
#   1. autotune decisions: for every matrix of ../shared/matrices
#      (MANIFEST.tsv; generated specs when the folder is absent) and mode
#      release and heuristic, `sptune-opt examples/kernels.mlir
#      --sptune-extract-kernels --sptune-autotune="mode=M matrix=X"` (the
#      file's three kernels, SpMM, SDDMM and SpMV, have dynamic shapes, so
#      any matrix fits them); compares the chosen #sptune.schedule
#      attributes, the whole output IR, the remarks (ranking time masked)
#      and the exit status.
#   2. lowered modules: for the 14 largest shared matrices (nnz per
#      MANIFEST.tsv), the output of `sptune-opt F --sptune-extract-kernels
#      --sptune-autotune="mode=release matrix=X" --sptune-apply-schedule
#      --sptune-lower-cpu` must be byte-identical (also the remarks and the
#      exit status); F: examples/kernels.mlir, and each of its kernels in a
#      module of its own (inputs/kernels/; in one module the kernels' vector
#      lengths disagree and --sptune-lower-cpu applies none, alone each
#      kernel's is applied).
#   3. datasets read the same: for each cost-model/data/*.jsonl.gz,
#      `sptune-train --evaluate cost-model/models/<target>-default.pt
#      --data D --target <target> --metrics M --scores S` (target: the
#      file name's prefix, cpu-* or spade-*); compares stdout, metrics,
#      scores (each problem's printed schedules, times and scores), the
#      warnings and the exit status.
#   4. training is reproducible: `sptune-train --data D --out model.pt
#      --epochs E --seed 1 --holdout 0.2` on one shipped dataset; compares
#      the model files byte for byte except the training time stamp the
#      model embeds in its provenance (and the container checksum that
#      covers it), the metrics file (same time stamp masked), stdout, the
#      warnings and the exit status. Each build trains in its own folder
#      with the same relative --out, so the paths recorded in the files
#      are equal.
#
# --quick: check 1 on 4 matrices, check 2 on 2, for a smoke run.
# --out DIR (default: a new mktemp folder): everything is kept there:
#   old/ and new/ (per check and item: outputs, normalized outputs, raw
#   stderr, exit status), diffs/ (a unified diff per differing item),
#   commands.log (every command run), report.txt (the summary printed).
#
# Prints one line per check, "same" or "DIFFERENT" (with the first lines of
# each differing item's diff), and exits 1 if any check differs or a tool
# timed out, 2 on a usage error, 0 otherwise. Progress goes to stderr.
#
# Environment: SPTUNE_MATRICES (default ../shared/matrices), SPTUNE_COMPARE_TIMEOUT
# (seconds per tool call, default 600), SPTUNE_COMPARE_TRAIN_DATA (check 4's
# dataset, default cost-model/data/cpu-2026-12-01-c.jsonl.gz),
# SPTUNE_COMPARE_EPOCHS (default 20), SPTUNE_COMPARE_DIFF_LINES (lines of each
# differing item's diff printed, default 20; the first 5 items of a check).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py=/usr/bin/python3

usage() {
  sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}
die() { echo "compare-builds.sh: $*" >&2; exit 2; }

old_bin="" new_bin="" out="" quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out="$2"; shift 2 ;;
    --out=*) out="${1#--out=}"; shift ;;
    --quick) quick=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) if [ -z "$old_bin" ]; then old_bin="$1"
       elif [ -z "$new_bin" ]; then new_bin="$1"
       else die "too many arguments (see --help)"; fi
       shift ;;
  esac
done
[ -n "$old_bin" ] && [ -n "$new_bin" ] || { usage >&2; exit 2; }
for d in "$old_bin" "$new_bin"; do
  [ -d "$d" ] || die "'$d' is not a folder"
  for t in sptune-opt sptune-train; do
    [ -x "$d/$t" ] || die "'$d' has no executable $t"
  done
done
old_bin="$(cd "$old_bin" && pwd)"
new_bin="$(cd "$new_bin" && pwd)"
if [ -z "$out" ]; then
  out="$(mktemp -d "${TMPDIR:-/tmp}/sptune-compare.XXXXXX")" || die "mktemp failed"
else
  if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
    die "--out '$out' exists and is not empty (give a new or empty folder)"
  fi
  mkdir -p "$out" || die "cannot create '$out'"
  out="$(cd "$out" && pwd)"
fi

tool_timeout="${SPTUNE_COMPARE_TIMEOUT:-600}"
matrices="${SPTUNE_MATRICES:-$root/../shared/matrices}"
kernels_mlir="$root/examples/kernels.mlir"
train_data="${SPTUNE_COMPARE_TRAIN_DATA:-$root/cost-model/data/cpu-2026-12-01-c.jsonl.gz}"
train_epochs="${SPTUNE_COMPARE_EPOCHS:-20}"
diff_lines="${SPTUNE_COMPARE_DIFF_LINES:-20}"
diff_items=5  # per check, items whose diff is printed (the others: named)
[ -f "$kernels_mlir" ] || die "no $kernels_mlir"

mkdir -p "$out/old" "$out/new" "$out/diffs" "$out/inputs"
report="$out/report.txt"
: >"$report"
: >"$out/commands.log"
start_all=$(date +%s)

say() { echo "$*" | tee -a "$report"; }
progress() { echo "[compare-builds] $*" >&2; }
sanitize() { printf '%s' "$1" | tr -c 'A-Za-z0-9._=-' '_'; }

# run_tool SIDE_BIN ITEM_DIR WORKDIR TOOL ARGS... : runs BIN/TOOL ARGS in
# WORKDIR under timeout; ITEM_DIR gets stdout, stderr.raw, rc.
run_tool() {
  local bin="$1" dir="$2" wd="$3" tool="$4"; shift 4
  mkdir -p "$dir"
  printf '(cd %q &&' "$wd" >>"$out/commands.log"
  printf ' %q' timeout -k 10 "$tool_timeout" "$bin/$tool" "$@" >>"$out/commands.log"
  printf ')\n' >>"$out/commands.log"
  (cd "$wd" && timeout -k 10 "$tool_timeout" "$bin/$tool" "$@") \
    >"$dir/stdout" 2>"$dir/stderr.raw" </dev/null
  echo $? >"$dir/rc"
}

# Normalizations (each reads $1, writes $2).
# sptune-opt's stderr: the remarks and diagnostics, the ranking time masked.
norm_opt_stderr() {
  sed -E 's/ranked in [0-9.]+ ms/ranked in <T> ms/g' "$1" >"$2"
}
# sptune-train's stderr: only its warnings and errors (the notes carry
# durations).
norm_train_stderr() {
  grep -E '^(warning|error|sptune-train: error)' "$1" >"$2" || true
}
# The chosen schedules of an IR file: each function and the #sptune.schedule
# attributes in it, in order.
extract_decisions() {
  "$py" - "$1" "$2" <<'EOF'
import re, sys
text = open(sys.argv[1], errors="replace").read()
out = []
func = None
for m in re.finditer(r"func\.func (?:\w+ )?@([\w.$-]+)|#sptune\.schedule<", text):
    if m.group(1):
        func = m.group(1)
        continue
    # the attribute, up to its balanced '>' ("->" is not a bracket)
    i, depth = m.end(), 1
    while i < len(text) and depth:
        if text[i] == "<":
            depth += 1
        elif text[i] == ">" and text[i - 1] != "-":
            depth -= 1
        i += 1
    out.append(f"@{func}: {text[m.start():i]}")
open(sys.argv[2], "w").write("\n".join(out) + ("\n" if out else "(no #sptune.schedule)\n"))
EOF
}
# split_kernels FILE DIR: each function of FILE's top-level module in a
# module of its own, DIR/<name>.mlir (what precedes the module, the
# encodings and attribute aliases, kept); prints the names.
split_kernels() {
  "$py" - "$1" "$2" <<'EOF'
import re, sys
src, outdir = sys.argv[1], sys.argv[2]
text = open(src).read()
m = re.search(r"^module\s*\{", text, re.M)
if not m:
    sys.exit("no top-level module")
header, pos, names = text[:m.start()], m.end(), []
func = re.compile(r"^\s*func\.func\s+(?:\w+\s+)?@([\w.$-]+)", re.M)
while True:
    f = func.search(text, pos)
    if not f:
        break
    j, depth = text.index("{", f.end()), 0
    while j < len(text):  # to the '}' that closes the body (comments skipped)
        if text.startswith("//", j):
            j = text.find("\n", j)
            if j < 0:
                sys.exit("unbalanced function")
            continue
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            break
        j += 1
    if depth:
        sys.exit("unbalanced function")
    name = f.group(1)
    with open(f"{outdir}/{name}.mlir", "w") as out:
        out.write(header + "module {\n" + text[f.start():j + 1] + "\n}\n")
    names.append(name)
    pos = j + 1
print(" ".join(names))
EOF
}
# Time stamps masked in a text file (metrics JSON).
mask_timestamps() {
  sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/YYYY-MM-DDTHH:MM:SSZ/g' "$1" >"$2"
}
# A model file: $2 = the file with the time stamps of its config section
# masked and its checksum zeroed (otherwise byte for byte), $3 = a readable
# dump (header, config JSON, sha256 of every other section).
normalize_model() {
  "$py" - "$1" "$2" "$3" <<'EOF'
import hashlib, json, re, struct, sys
src, masked_path, dump_path = sys.argv[1:4]
try:
    b = open(src, "rb").read()
except OSError as e:
    open(masked_path, "wb").write(b""); open(dump_path, "w").write(f"no model file: {e}\n")
    sys.exit(0)
TS = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
MASK = b"YYYY-MM-DDTHH:MM:SSZ"
dump = []
masked = bytearray(b)
try:
    if b[:8] != b"SPTUNECM":
        raise ValueError("bad magic")
    version, spec, length, checksum = struct.unpack_from("<IQQQ", b, 8)
    masked[28:36] = bytes(8)  # the checksum covers the time stamp
    dump += [f"version {version}", f"feature_spec_hash 0x{spec:016x}", f"payload_bytes {length}"]
    p = 36
    (klen,) = struct.unpack_from("<I", b, p); p += 4
    kind = b[p:p + klen].decode(); p += klen
    (count,) = struct.unpack_from("<I", b, p); p += 4
    dump.append(f"kind {kind}, {count} sections")
    for _ in range(count):
        (nlen,) = struct.unpack_from("<I", b, p); p += 4
        name = b[p:p + nlen].decode(); p += nlen
        (size,) = struct.unpack_from("<Q", b, p); p += 8
        body = b[p:p + size]
        if name == "config":
            body = TS.sub(MASK, body)
            masked[p:p + size] = body
            try:
                cfg = json.loads(body)
                if isinstance(cfg.get("provenance"), str):
                    try:
                        cfg["provenance"] = json.loads(cfg["provenance"])
                    except ValueError:
                        pass
                dump.append("section config (time stamps masked):")
                dump.append(json.dumps(cfg, indent=1, sort_keys=True))
            except ValueError:
                dump.append(f"section config: not JSON, sha256 {hashlib.sha256(body).hexdigest()}")
        else:
            dump.append(f"section {name}: {size} bytes, sha256 {hashlib.sha256(body).hexdigest()}")
        p += size
    if p != len(b):
        dump.append(f"trailing bytes: {len(b) - p}")
except (ValueError, struct.error, UnicodeDecodeError) as e:
    dump.append(f"cannot parse the model container ({e}); compared raw")
    masked = bytearray(b)
open(masked_path, "wb").write(bytes(masked))
open(dump_path, "w").write("\n".join(dump) + "\n")
EOF
}

# Per check counters and the overall result.
any_bad=0
declare -a check_lines=()
c_diff=0 c_fail=0 c_items=0
declare -a c_notes=()
check_begin() {
  c_diff=0 c_fail=0 c_items=0 c_notes=()
  c_start=$(date +%s)
}
# compare_item CHECK ITEM FILE... : compares old/CHECK/ITEM/FILE with
# new/CHECK/ITEM/FILE for each FILE (in this order).
compare_item() {
  local check="$1" item="$2"; shift 2
  local o="$out/old/$check/$item" n="$out/new/$check/$item"
  local d="$out/diffs/$check/$item.diff" f differs=0 timed_out=0 orc nrc
  c_items=$((c_items + 1))
  orc=$(cat "$o/rc" 2>/dev/null || echo missing)
  nrc=$(cat "$n/rc" 2>/dev/null || echo missing)
  for rc in "$orc" "$nrc"; do
    case "$rc" in 124|137|missing) timed_out=1 ;; esac
  done
  mkdir -p "$(dirname "$d")"
  for f in "$@"; do
    if ! cmp -s "$o/$f" "$n/$f"; then
      differs=1
      { echo "=== $item: $f"
        if [ -f "$o/$f" ] && [ -f "$n/$f" ] && grep -Iq . "$o/$f" "$n/$f" 2>/dev/null; then
          diff -u --label "old/$check/$item/$f" --label "new/$check/$item/$f" "$o/$f" "$n/$f"
        else
          cmp "$o/$f" "$n/$f" 2>&1
        fi
      } >>"$d"
    fi
  done
  if [ "$timed_out" = 1 ]; then
    c_fail=$((c_fail + 1))
    c_notes+=("  FAILED $item: exit status old $orc, new $nrc (timed out after ${tool_timeout}s?); see $o and $n")
  elif [ "$differs" = 1 ]; then
    c_diff=$((c_diff + 1))
    if [ "$c_diff" -le "$diff_items" ]; then
      c_notes+=("  DIFFERENT $item ($d):")
      c_notes+=("$(head -n "$diff_lines" "$d" | sed 's/^/    /')")
    else
      c_notes+=("  DIFFERENT $item ($d)")
    fi
  else
    rm -f "$d"
    if [ "$orc" != 0 ]; then
      c_notes+=("  note: $item: same, but both builds exited $orc ($(head -c 300 "$o/stderr.raw" | tr '\n' ' '))")
    fi
  fi
}
check_end() {
  local name="$1" result secs
  secs=$(( $(date +%s) - c_start ))
  if [ "$c_items" = 0 ]; then
    result="SKIPPED (nothing to compare)"
  elif [ "$c_fail" -gt 0 ]; then
    result="FAILED ($c_fail of $c_items items failed to run, $c_diff differ)"; any_bad=1
  elif [ "$c_diff" -gt 0 ]; then
    result="DIFFERENT ($c_diff of $c_items items differ)"; any_bad=1
  else
    result="same ($c_items items)"
  fi
  say "$name: $result [${secs}s]"
  local l
  for l in "${c_notes[@]}"; do say "$l"; done
}

# ---------------------------------------------------------------- matrices
# The shared matrices (path, nnz) sorted by nnz (descending, then name), or
# generated specs when the folder is absent.
declare -a mat_all=() mat_largest=()
if [ -f "$matrices/MANIFEST.tsv" ]; then
  matrices="$(cd "$matrices" && pwd)"
  while IFS=$'\t' read -r file nnz; do
    [ -f "$matrices/$file" ] || { progress "warning: $file (MANIFEST.tsv) is missing; skipped"; continue; }
    mat_all+=("$matrices/$file")
  done < <(awk -F'\t' 'NR > 1 && $1 != "" { print $1 "\t" $6 }' "$matrices/MANIFEST.tsv" |
           sort -t$'\t' -k2,2nr -k1,1)
  matrix_origin="$matrices (MANIFEST.tsv, ${#mat_all[@]} matrices)"
else
  progress "no $matrices/MANIFEST.tsv: using generated matrices"
  mat_all=(
    "gen:rmat:rows=16384,nnz=262144,seed=7"
    "gen:uniform:rows=8192,nnz=100000,seed=7"
    "gen:rmat:rows=4096,nnz=40000,seed=7"
    "gen:banded:rows=4096,nnz=40000,bw=32,seed=7"
    "gen:block:rows=4096,nnz=40000,bs=4,seed=7"
    "gen:clustered:rows=4096,nnz=40000,group=8,noise=0.1,seed=7"
    "gen:uniform:rows=2000,cols=500,nnz=10000,seed=7"
    "gen:banded:rows=1000,nnz=5000,bw=8,seed=7"
  )
  matrix_origin="generated specs (no $matrices/MANIFEST.tsv)"
fi
mat_largest=("${mat_all[@]:0:14}")
declare -a mat_c1=("${mat_all[@]}") mat_c2=("${mat_largest[@]}")
if [ "$quick" = 1 ]; then
  # 4 matrices spread over the nnz range (largest, ..., smallest); the 2 largest.
  mat_c1=()
  n=${#mat_all[@]}
  if [ "$n" -le 4 ]; then mat_c1=("${mat_all[@]}")
  else for q in 0 1 2 3; do mat_c1+=("${mat_all[$(( q * (n - 1) / 3 ))]}"); done; fi
  mat_c2=("${mat_largest[@]:0:2}")
fi
item_name() { local m="$1"; [[ "$m" == gen:* ]] && sanitize "$m" || basename "$m" .mtx; }

{
  echo "compare-builds: old $old_bin"
  echo "compare-builds: new $new_bin"
  echo "compare-builds: out $out$([ "$quick" = 1 ] && echo ' (--quick)')"
  echo "compare-builds: matrices: $matrix_origin"
} | tee -a "$report"

# ------------------------------------------------- check 1: autotune decisions
check_begin
c=c1-autotune
modes=(release heuristic)
total=$(( ${#mat_c1[@]} * ${#modes[@]} ))
i=0
for m in "${mat_c1[@]}"; do
  for mode in "${modes[@]}"; do
    i=$((i + 1))
    item="$(item_name "$m").$mode"
    for side in old new; do
      bin=$old_bin; [ "$side" = new ] && bin=$new_bin
      progress "check 1/4 autotune decisions: $i/$total $item ($side)"
      dir="$out/$side/$c/$item"
      run_tool "$bin" "$dir" "$root" sptune-opt "$kernels_mlir" --sptune-extract-kernels \
        --sptune-autotune="mode=$mode matrix=$m" --mlir-print-op-on-diagnostic=false -o "$dir/ir.mlir"
      [ -f "$dir/ir.mlir" ] || : >"$dir/ir.mlir"
      extract_decisions "$dir/ir.mlir" "$dir/decisions.txt"
      norm_opt_stderr "$dir/stderr.raw" "$dir/remarks.txt"
    done
    compare_item "$c" "$item" decisions.txt rc ir.mlir remarks.txt stdout
  done
done
check_end "check 1/4 autotune decisions (${#mat_c1[@]} matrices x {${modes[*]}}, SpMM/SDDMM/SpMV of examples/kernels.mlir)"

# ---------------------------------------------------- check 2: lowered modules
check_begin
c=c2-lowered
# The whole file (as the README runs it: in one module the kernels' vector
# lengths disagree, so --sptune-lower-cpu applies none) and each kernel in a
# module of its own (its schedule's vectorization applied).
declare -a c2_inputs=("all=$kernels_mlir")
mkdir -p "$out/inputs/kernels"
if split_names=$(split_kernels "$kernels_mlir" "$out/inputs/kernels") && [ -n "$split_names" ]; then
  for k in $split_names; do c2_inputs+=("$k=$out/inputs/kernels/$k.mlir"); done
else
  c_notes+=("  note: could not split $kernels_mlir into one module per kernel; the whole file only")
fi
total=$(( ${#mat_c2[@]} * ${#c2_inputs[@]} ))
i=0
for m in "${mat_c2[@]}"; do
  for input in "${c2_inputs[@]}"; do
    i=$((i + 1))
    item="$(item_name "$m").${input%%=*}"
    for side in old new; do
      bin=$old_bin; [ "$side" = new ] && bin=$new_bin
      progress "check 2/4 lowered modules: $i/$total $item ($side)"
      dir="$out/$side/$c/$item"
      run_tool "$bin" "$dir" "$root" sptune-opt "${input#*=}" --sptune-extract-kernels \
        --sptune-autotune="mode=release matrix=$m" --sptune-apply-schedule --sptune-lower-cpu \
        --mlir-print-op-on-diagnostic=false -o "$dir/lowered.mlir"
      [ -f "$dir/lowered.mlir" ] || : >"$dir/lowered.mlir"
      norm_opt_stderr "$dir/stderr.raw" "$dir/remarks.txt"
    done
    compare_item "$c" "$item" lowered.mlir rc remarks.txt stdout
  done
done
check_end "check 2/4 lowered modules (${#mat_c2[@]} largest matrices x {${c2_inputs[*]%%=*}}, autotune release + apply-schedule + lower-cpu)"

# --------------------------------------------- check 3: datasets read the same
check_begin
c=c3-evaluate
mkdir -p "$out/inputs/data"
datasets=("$root"/cost-model/data/*.jsonl.gz)
[ -e "${datasets[0]}" ] || datasets=()
total=${#datasets[@]}
i=0
for gz in "${datasets[@]}"; do
  i=$((i + 1))
  name="$(basename "$gz" .jsonl.gz)"
  target="${name%%-*}"
  model="$root/cost-model/models/$target-default.pt"
  data="$out/inputs/data/$name.jsonl"
  [ -f "$data" ] || zcat "$gz" >"$data"
  if [ ! -f "$model" ]; then
    c_notes+=("  note: $name: no model $model for target '$target'; skipped")
    continue
  fi
  for side in old new; do
    bin=$old_bin; [ "$side" = new ] && bin=$new_bin
    progress "check 3/4 datasets: $i/$total $name with $(basename "$model") ($side)"
    dir="$out/$side/$c/$name"
    mkdir -p "$dir"
    run_tool "$bin" "$dir" "$dir" sptune-train --evaluate "$model" --data "$data" \
      --target "$target" --metrics metrics.json --scores scores.jsonl --quiet
    for f in metrics.json scores.jsonl; do [ -f "$dir/$f" ] || : >"$dir/$f"; done
    norm_train_stderr "$dir/stderr.raw" "$dir/warnings.txt"
  done
  compare_item "$c" "$name" rc stdout metrics.json scores.jsonl warnings.txt
done
check_end "check 3/4 datasets read the same (sptune-train --evaluate, shipped models, ${total} datasets)"

# ---------------------------------------------- check 4: training reproducible
check_begin
c=c4-train
if [ -f "$train_data" ]; then
  name="$(basename "$train_data" .gz)"; name="${name%.jsonl}"
  target="${name%%-*}"
  data="$out/inputs/data/$name.jsonl"
  case "$train_data" in
    *.gz) [ -f "$data" ] || zcat "$train_data" >"$data" ;;
    *) data="$train_data" ;;
  esac
  item="$name.seed1.e$train_epochs"
  for side in old new; do
    bin=$old_bin; [ "$side" = new ] && bin=$new_bin
    progress "check 4/4 training: 1/1 $name, $train_epochs epochs, seed 1 ($side)"
    dir="$out/$side/$c/$item"
    mkdir -p "$dir"
    # The same relative --out in each build's folder: the paths the model
    # and metrics record are then equal.
    run_tool "$bin" "$dir" "$dir" sptune-train --data "$data" --target "$target" \
      --out model.pt --metrics model.metrics.json --epochs "$train_epochs" --seed 1 \
      --holdout 0.2 --quiet
    # The model file embeds the time of training (provenance.time, in its
    # config section and in the metrics): compared with it masked.
    normalize_model "$dir/model.pt" "$dir/model.masked.pt" "$dir/model.dump.txt"
    if [ -f "$dir/model.metrics.json" ]; then
      mask_timestamps "$dir/model.metrics.json" "$dir/metrics.masked.json"
    else
      : >"$dir/metrics.masked.json"
    fi
    norm_train_stderr "$dir/stderr.raw" "$dir/warnings.txt"
  done
  compare_item "$c" "$item" rc model.masked.pt model.dump.txt metrics.masked.json stdout warnings.txt
  if cmp -s "$out/old/$c/$item/model.pt" "$out/new/$c/$item/model.pt"; then
    c_notes+=("  note: the raw model files are identical")
  elif [ "$c_diff" = 0 ] && [ "$c_fail" = 0 ]; then
    c_notes+=("  note: the raw model files differ only in the training time stamp (and checksum)")
  fi
else
  c_notes+=("  note: no dataset $train_data; skipped")
fi
check_end "check 4/4 training reproducible (sptune-train, $(basename "$train_data"), $train_epochs epochs, seed 1)"

say "compare-builds: $([ "$any_bad" = 0 ] && echo 'all checks same' || echo 'DIFFERENCES FOUND') in $(( $(date +%s) - start_all ))s; outputs in $out"
exit "$any_bad"
