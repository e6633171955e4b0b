//===- Schedule.cpp - The sparse format + loop schedule value -------------===//

#include "sptune/Schedule/Schedule.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <sstream>

using namespace sptune;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

/// Targets added at run time, after the built-in enumerators. A deque keeps
/// the names' addresses stable for toString.
static constexpr size_t kBuiltinTargets = 3;
static std::deque<std::string> &addedTargets() {
  static std::deque<std::string> names;
  return names;
}
static std::mutex &addedTargetsMutex() {
  static std::mutex m;
  return m;
}

const char *sptune::toString(TargetKind t) {
  switch (t) {
  case TargetKind::CPU:
    return "cpu";
  case TargetKind::NVVM:
    return "nvvm";
  case TargetKind::SPADE:
    return "spade";
  }
  std::lock_guard<std::mutex> lock(addedTargetsMutex());
  size_t index = static_cast<size_t>(t) - kBuiltinTargets;
  return index < addedTargets().size() ? addedTargets()[index].c_str() : "?";
}

const char *sptune::toString(KernelType k) {
  switch (k) {
  case KernelType::SpMM:
    return "spmm";
  case KernelType::SDDMM:
    return "sddmm";
  case KernelType::SpMV:
    return "spmv";
  }
  return "?";
}

const char *sptune::toString(LevelFormat f) {
  switch (f) {
  case LevelFormat::Dense:
    return "dense";
  case LevelFormat::Compressed:
    return "compressed";
  case LevelFormat::CompressedNU:
    return "compressed_nu";
  case LevelFormat::Singleton:
    return "singleton";
  }
  return "?";
}

const char *sptune::toString(ParallelKind p) {
  return p == ParallelKind::None ? "none" : "outer";
}

const char *sptune::toString(OmpScheduleKind k) {
  return k == OmpScheduleKind::Static ? "static" : "dynamic";
}

const char *sptune::toString(RowReorder r) {
  switch (r) {
  case RowReorder::None:
    return "none";
  case RowReorder::ByLength:
    return "length";
  case RowReorder::BySimilarity:
    return "similarity";
  }
  return "?";
}

std::optional<TargetKind> sptune::parseTargetKind(std::string_view s) {
  for (TargetKind t : {TargetKind::CPU, TargetKind::NVVM, TargetKind::SPADE})
    if (s == toString(t))
      return t;
  std::lock_guard<std::mutex> lock(addedTargetsMutex());
  for (size_t n = 0; n < addedTargets().size(); ++n)
    if (s == addedTargets()[n])
      return static_cast<TargetKind>(kBuiltinTargets + n);
  return std::nullopt;
}

TargetKind sptune::addTargetKind(std::string_view name) {
  if (std::optional<TargetKind> known = parseTargetKind(name))
    return *known;
  std::lock_guard<std::mutex> lock(addedTargetsMutex());
  addedTargets().emplace_back(name);
  return static_cast<TargetKind>(kBuiltinTargets + addedTargets().size() - 1);
}

const char *sptune::toString(Role r) {
  switch (r) {
  case Role::I:
    return "i";
  case Role::J:
    return "j";
  case Role::K:
    return "k";
  }
  return "?";
}

std::optional<Role> sptune::parseRole(std::string_view s) {
  for (Role r : {Role::I, Role::J, Role::K})
    if (s == toString(r))
      return r;
  return std::nullopt;
}

std::optional<KernelType> sptune::parseKernelType(std::string_view s) {
  for (KernelType k : {KernelType::SpMM, KernelType::SDDMM, KernelType::SpMV})
    if (s == toString(k))
      return k;
  return std::nullopt;
}

static char roleChar(Role r) {
  return r == Role::I ? 'i' : r == Role::J ? 'j' : 'k';
}

std::string DimPart::str() const {
  std::string s(1, roleChar(role));
  if (part == Part::Outer)
    s += '1';
  else if (part == Part::Inner)
    s += '0';
  return s;
}

static std::optional<DimPart> parseDimPart(std::string_view s) {
  if (s.empty() || s.size() > 2)
    return std::nullopt;
  DimPart d;
  switch (s[0]) {
  case 'i':
    d.role = Role::I;
    break;
  case 'j':
    d.role = Role::J;
    break;
  case 'k':
    d.role = Role::K;
    break;
  default:
    return std::nullopt;
  }
  if (s.size() == 2) {
    if (s[1] == '1')
      d.part = Part::Outer;
    else if (s[1] == '0')
      d.part = Part::Inner;
    else
      return std::nullopt;
  }
  return d;
}

//===----------------------------------------------------------------------===//
// Schedule
//===----------------------------------------------------------------------===//

bool CpuKnobs::operator==(const CpuKnobs &o) const {
  return parallel == o.parallel && threads == o.threads && omp == o.omp &&
         chunk == o.chunk && vectorLength == o.vectorLength &&
         simdIndex32 == o.simdIndex32;
}

bool GpuKnobs::operator==(const GpuKnobs &o) const {
  return threads == o.threads && libgen == o.libgen;
}

bool SpadeKnobs::operator==(const SpadeKnobs &o) const {
  return pes == o.pes && barrier == o.barrier &&
         bypassSparse == o.bypassSparse && bypassDense == o.bypassDense &&
         bypassOutput == o.bypassOutput && reorder == o.reorder;
}

std::optional<Role> Schedule::freeRole(KernelType k) {
  switch (k) {
  case KernelType::SpMM:
    return Role::J;
  case KernelType::SDDMM:
    return Role::K;
  case KernelType::SpMV:
    return std::nullopt;
  }
  return std::nullopt;
}

const std::vector<DenseOperandInfo> &
Schedule::denseOperands(KernelType k) {
  static const std::vector<DenseOperandInfo> spmm = {{"b", Role::K, Role::J},
                                                     {"c", Role::I, Role::J}};
  static const std::vector<DenseOperandInfo> sddmm = {
      {"a", Role::I, Role::K}, {"b", Role::K, Role::J}};
  static const std::vector<DenseOperandInfo> none;
  switch (k) {
  case KernelType::SpMM:
    return spmm;
  case KernelType::SDDMM:
    return sddmm;
  case KernelType::SpMV:
    return none;
  }
  return none;
}

Role Schedule::contiguousRole(unsigned operand) const {
  const DenseOperandInfo &d = denseOperands(kernel).at(operand);
  return isDenseTransposed(operand) ? d.outer : d.inner;
}

int64_t Schedule::splitOf(Role r) const {
  if (r == rowRole())
    return splitRow;
  if (r == colRole())
    return splitCol;
  return 1;
}

void Schedule::setLevels(std::vector<StorageLevel> newLevels) {
  levels = std::move(newLevels);
  loopOrder.clear();
  for (const StorageLevel &l : levels)
    loopOrder.push_back(l.dim);
  if (auto f = freeRole())
    loopOrder.push_back({*f, Part::Whole});
}

static Schedule twoLevel(TargetKind t, KernelType k, bool rowMajor,
                         LevelFormat outer, LevelFormat inner) {
  Schedule s;
  s.target = t;
  s.kernel = k;
  DimPart row{s.rowRole(), Part::Whole}, col{s.colRole(), Part::Whole};
  s.setLevels({{rowMajor ? row : col, outer}, {rowMajor ? col : row, inner}});
  return s;
}

Schedule Schedule::csr(TargetKind t, KernelType k) {
  return twoLevel(t, k, true, LevelFormat::Dense, LevelFormat::Compressed);
}
Schedule Schedule::csc(TargetKind t, KernelType k) {
  return twoLevel(t, k, false, LevelFormat::Dense, LevelFormat::Compressed);
}
Schedule Schedule::dcsr(TargetKind t, KernelType k) {
  return twoLevel(t, k, true, LevelFormat::Compressed, LevelFormat::Compressed);
}
Schedule Schedule::coo(TargetKind t, KernelType k) {
  return twoLevel(t, k, true, LevelFormat::CompressedNU, LevelFormat::Singleton);
}
Schedule Schedule::bsr(TargetKind t, KernelType k, int64_t br, int64_t bc) {
  Schedule s;
  s.target = t;
  s.kernel = k;
  s.splitRow = br;
  s.splitCol = bc;
  Role r = s.rowRole(), c = s.colRole();
  auto part = [](Role role, int64_t b, Part p) {
    return DimPart{role, b > 1 ? p : Part::Whole};
  };
  std::vector<StorageLevel> levels = {
      {part(r, br, Part::Outer), LevelFormat::Dense},
      {part(c, bc, Part::Outer), LevelFormat::Compressed}};
  if (br > 1)
    levels.push_back({{r, Part::Inner}, LevelFormat::Dense});
  if (bc > 1)
    levels.push_back({{c, Part::Inner}, LevelFormat::Dense});
  s.setLevels(levels);
  return s;
}

bool Schedule::operator==(const Schedule &o) const {
  return target == o.target && kernel == o.kernel && splitRow == o.splitRow &&
         splitCol == o.splitCol && levels == o.levels &&
         loopOrder == o.loopOrder && posWidth == o.posWidth &&
         crdWidth == o.crdWidth && tile == o.tile &&
         denseTransposed == o.denseTransposed && cpu == o.cpu &&
         gpu == o.gpu && spade == o.spade;
}

size_t Schedule::hash() const { return std::hash<std::string>()(str()); }

std::string Schedule::str() const {
  std::ostringstream os;
  os << toString(target) << " " << toString(kernel);
  if (target != TargetKind::SPADE) {
    os << ", levels = [";
    for (size_t n = 0; n < levels.size(); ++n)
      os << (n ? ", " : "") << levels[n].dim.str() << " : "
         << toString(levels[n].format);
    os << "]";
  }
  os << ", split = [" << splitRow << ", " << splitCol << "]";
  if (target != TargetKind::SPADE) {
    os << ", order = [";
    for (size_t n = 0; n < loopOrder.size(); ++n)
      os << (n ? ", " : "") << loopOrder[n].str();
    os << "], widths = [" << posWidth << ", " << crdWidth << "]";
  }
  // Printed only when it differs from the natural layouts, so that the
  // printed forms (and dataset keys) of schedules without it are unchanged.
  if (denseTransposed != 0) {
    const std::vector<DenseOperandInfo> &ops = denseOperands(kernel);
    os << ", layout = [";
    for (size_t n = 0; n < ops.size(); ++n)
      os << (n ? ", " : "") << ops[n].name << " : "
         << toString(contiguousRole(static_cast<unsigned>(n)));
    os << "]";
  }
  os << ", tile = " << tile;
  switch (target) {
  case TargetKind::CPU:
    os << ", parallel = " << toString(cpu.parallel)
       << ", threads = " << cpu.threads << ", omp = " << toString(cpu.omp)
       << ", chunk = " << cpu.chunk << ", vl = " << cpu.vectorLength
       << ", simd32 = " << (cpu.simdIndex32 ? "true" : "false");
    break;
  case TargetKind::NVVM:
    os << ", threads = " << gpu.threads
       << ", libgen = " << (gpu.libgen ? "true" : "false");
    break;
  case TargetKind::SPADE: {
    os << ", pes = " << spade.pes
       << ", barrier = " << (spade.barrier ? "true" : "false")
       << ", bypass = [";
    const char *sep = "";
    if (spade.bypassSparse)
      os << sep << "sparse", sep = ", ";
    if (spade.bypassDense)
      os << sep << "dense", sep = ", ";
    if (spade.bypassOutput)
      os << sep << "output", sep = ", ";
    os << "], reorder = " << toString(spade.reorder);
    break;
  }
  }
  return os.str();
}

//===----------------------------------------------------------------------===//
// Legality
//===----------------------------------------------------------------------===//

static std::string describeLevels(const Schedule &s) {
  std::string out;
  for (size_t n = 0; n < s.levels.size(); ++n)
    out += (n ? ", " : "") + s.levels[n].dim.str() + " : " +
           toString(s.levels[n].format);
  return "(" + out + ")";
}

static int findLevel(const Schedule &s, DimPart d) {
  for (size_t n = 0; n < s.levels.size(); ++n)
    if (s.levels[n].dim == d)
      return static_cast<int>(n);
  return -1;
}

/// Storage levels: the parts implied by the splits, outer before inner, and
/// level formats MLIR accepts.
static std::string checkLevels(const Schedule &s) {
  std::vector<DimPart> expected;
  for (Role r : {s.rowRole(), s.colRole()}) {
    if (s.splitOf(r) > 1) {
      expected.push_back({r, Part::Outer});
      expected.push_back({r, Part::Inner});
    } else {
      expected.push_back({r, Part::Whole});
    }
  }
  if (s.levels.size() != expected.size())
    return "levels " + describeLevels(s) + " do not match the splits [" +
           std::to_string(s.splitRow) + ", " + std::to_string(s.splitCol) +
           "]: expected " + std::to_string(expected.size()) + " levels";
  for (DimPart d : expected)
    if (findLevel(s, d) < 0)
      return "levels " + describeLevels(s) + " lack '" + d.str() + "'";
  for (Role r : {s.rowRole(), s.colRole()})
    if (s.splitOf(r) > 1 &&
        findLevel(s, {r, Part::Outer}) > findLevel(s, {r, Part::Inner}))
      return "level '" + DimPart{r, Part::Inner}.str() +
             "' comes before its outer part";

  for (size_t n = 0; n < s.levels.size(); ++n) {
    LevelFormat f = s.levels[n].format;
    LevelFormat prev = n ? s.levels[n - 1].format : LevelFormat::Dense;
    if (f == LevelFormat::Singleton &&
        (n == 0 || (prev != LevelFormat::CompressedNU &&
                    prev != LevelFormat::Singleton)))
      return "a singleton level must follow a compressed_nu level";
    if (f == LevelFormat::CompressedNU &&
        (n + 1 == s.levels.size() ||
         s.levels[n + 1].format != LevelFormat::Singleton))
      return "a compressed_nu level must be followed by a singleton level";
  }

  // Combinations that crash MLIR's sparsifier (no assertions in release
  // builds). Each was reproduced with mlir-opt 22.1; see docs/schedules.md.
  //
  // (1) The sparse operand's first dimension split while its second is not,
  //     e.g. (i floordiv 2 : dense, k : compressed, i mod 2 : dense) or
  //     (i floordiv 2 : dense, i mod 2 : dense, k : compressed): inferring
  //     the level-to-dimension map segfaults in AffineMap::compose. Splitting
  //     only the second dimension, or both, works.
  if (std::string why = whyIllegalForOrientation(s, /*transposed=*/false);
      !why.empty())
    return why;
  return "";
}

std::string sptune::whyIllegalForOrientation(const Schedule &s,
                                             bool transposed) {
  Role first = transposed ? s.colRole() : s.rowRole();
  Role second = transposed ? s.rowRole() : s.colRole();
  if (s.target != TargetKind::SPADE && s.splitOf(first) > 1 &&
      s.splitOf(second) == 1)
    return "splitting only the sparse operand's first dimension ('" +
           std::string(1, roleChar(first)) +
           "') crashes the sparsifier; split both dimensions or only the "
           "second";
  return "";
}

/// Loop order: every loop once; the sparse operand's levels in level order.
static std::string checkLoopOrder(const Schedule &s) {
  std::vector<DimPart> expected;
  for (const StorageLevel &l : s.levels)
    expected.push_back(l.dim);
  if (auto f = s.freeRole())
    expected.push_back({*f, Part::Whole});
  if (s.loopOrder.size() != expected.size())
    return "loop order has " + std::to_string(s.loopOrder.size()) +
           " loops, the kernel has " + std::to_string(expected.size());
  for (DimPart d : expected)
    if (std::count(s.loopOrder.begin(), s.loopOrder.end(), d) != 1)
      return "loop order must contain '" + d.str() + "' exactly once";
  int last = -1;
  for (const StorageLevel &l : s.levels) {
    int pos = static_cast<int>(
        std::find(s.loopOrder.begin(), s.loopOrder.end(), l.dim) -
        s.loopOrder.begin());
    if (pos < last)
      return "loop '" + l.dim.str() +
             "' must be nested inside the loops of the sparse operand's "
             "outer levels (levels are visited in storage order)";
    last = pos;
  }
  return "";
}

std::string sptune::whyIllegal(const Schedule &s) {
  if (s.splitRow < 1 || s.splitCol < 1 || s.splitRow > 4096 ||
      s.splitCol > 4096)
    return "split sizes must be in [1, 4096]";
  if (s.tile < 0)
    return "tile must be non-negative";
  if (s.tile > 0 && !s.freeRole())
    return std::string("a '") + toString(s.kernel) +
           "' kernel has no free dense loop to tile";
  if (s.denseTransposed >> Schedule::denseOperands(s.kernel).size())
    return std::string("a '") + toString(s.kernel) + "' kernel has " +
           std::to_string(Schedule::denseOperands(s.kernel).size()) +
           " dense operands with a layout";
  if (s.denseTransposed != 0 && s.target != TargetKind::CPU)
    return "dense operand layouts are a CPU knob";
  if (s.target != TargetKind::SPADE) {
    if (std::string why = checkLevels(s); !why.empty())
      return why;
    if (std::string why = checkLoopOrder(s); !why.empty())
      return why;
    for (int w : {s.posWidth, s.crdWidth})
      if (w != 32 && w != 64)
        return "position and coordinate widths must be 32 or 64";
  }
  switch (s.target) {
  case TargetKind::CPU: {
    const CpuKnobs &c = s.cpu;
    if (c.threads < 0 || c.threads > 1024)
      return "thread count must be in [0, 1024]";
    if (c.chunk < 0)
      return "chunk must be non-negative";
    if (c.vectorLength != 0 && c.vectorLength != 4 && c.vectorLength != 8 &&
        c.vectorLength != 16)
      return "vector length must be 0, 4, 8 or 16";
    // Reproduced with mlir-opt 22.1: after strip-mining, the sparse
    // vectorizer emits vector.load on the strided views of the tiles
    // ("most minor memref dim must have unit stride").
    // Found by sptune-fuzz, reproduced with mlir-opt 22.1: vectorized SpMV
    // over COO storage (either orientation) computes wrong sums; and so does
    // any vectorized innermost loop over a singleton level once its dense
    // operand is read with unit stride along it (SpMM over COO with
    // layout = [b : k] and k innermost, or [c : i] and i innermost: the
    // vectorizer gathers by coordinate and gets the sums wrong).
    if (c.vectorLength > 0) {
      for (const StorageLevel &l : s.levels)
        if (l.format == LevelFormat::Singleton &&
            (s.kernel == KernelType::SpMV ||
             (!s.loopOrder.empty() && s.loopOrder.back() == l.dim)))
          return "vectorizing an innermost loop over a COO (singleton) level "
                 "computes wrong results (MLIR sparse vectorizer)";
    }
    if (s.tile > 0 && c.vectorLength > 0)
      return "tiling the free loop and vectorizing cannot be combined (the "
             "sparse vectorizer fails on tiled views)";
    break;
  }
  case TargetKind::NVVM:
    if (s.gpu.threads < 1 || s.gpu.threads > 1024)
      return "GPU thread count must be in [1, 1024]";
    break;
  case TargetKind::SPADE:
    if (s.spade.pes < 0)
      return "PE count must be non-negative";
    break;
  }
  return "";
}

double sptune::estimateStoredValues(const Schedule &s, int64_t rows,
                                    int64_t cols, int64_t nnz) {
  // Entries of each level: a dense level has (entries of its parent) x size
  // of them, a compressed one at most nnz; positions arrays are as long as
  // the parent level's entries. The largest level bounds time and memory.
  double count = 1, largest = 1;
  for (const StorageLevel &l : s.levels) {
    int64_t dimSize = l.dim.role == s.rowRole() ? rows : cols;
    int64_t b = s.splitOf(l.dim.role);
    double size = l.dim.part == Part::Whole   ? static_cast<double>(dimSize)
                  : l.dim.part == Part::Inner ? static_cast<double>(b)
                                              : static_cast<double>((dimSize + b - 1) / b);
    if (l.format == LevelFormat::Dense)
      count *= size;
    else if (l.format != LevelFormat::Singleton)
      count = std::min(count * size, static_cast<double>(nnz));
    largest = std::max(largest, count);
  }
  return largest;
}

std::string sptune::whyIllegalForSparseOutput(const Schedule &s,
                                             bool inPlace) {
  if (s.kernel != KernelType::SDDMM || s.loopOrder.empty())
    return "";
  // The cuSPARSE path runs no loops of ours.
  if (s.target == TargetKind::NVVM && s.gpu.libgen)
    return "";
  Role k = Schedule::reductionRole(s.kernel);
  size_t n = s.loopOrder.size();
  bool innermost = s.loopOrder[n - 1].role == k;
  bool aboveInnermostSparseLevel =
      n >= 2 && s.loopOrder[n - 2].role == k && !s.levels.empty() &&
      s.loopOrder[n - 1] == s.levels.back().dim &&
      s.levels.back().format != LevelFormat::Dense;
  bool outermost = s.loopOrder[0].role == k;
  if (s.tile > 0)
    return "tiling the reduction of an SDDMM with a sparse output is not "
           "supported";
  if (inPlace) {
    if (outermost || aboveInnermostSparseLevel)
      return "";
    return "the in-place SDDMM computes a wrong result unless the reduction "
           "loop 'k' is outermost or directly above an innermost non-dense "
           "level (MLIR sparsifier limitation)";
  }
  if (innermost || aboveInnermostSparseLevel)
    return "";
  return "an SDDMM with a sparse output needs the reduction loop 'k' "
         "innermost or directly above an innermost non-dense level (MLIR "
         "sparsifier limitation)";
}

std::string sptune::whyIllegalForShape(const Schedule &s, int64_t rows,
                                       int64_t cols, int64_t nnz) {
  if (s.target == TargetKind::SPADE)
    return "";
  if (nnz > 0) {
    double stored = estimateStoredValues(s, rows, cols, nnz);
    double limit = 32.0 * static_cast<double>(nnz) + 1048576.0;
    if (stored > limit)
      return "storage " + describeLevels(s) + " may hold " +
             std::to_string(static_cast<int64_t>(stored)) +
             " values for " + std::to_string(nnz) + " nonzeros";
    if (s.posWidth == 32 && stored >= 2147483647.0)
      return "32-bit positions cannot address the storage";
  }
  // A block as large as the dimension leaves the outer level one position:
  // with static sizes MLIR folds `d floordiv size` to 0, and the sparsifier
  // then cannot order the loops or crashes (found by sptune-fuzz on 8x8).
  auto whyNotBlocked = [](int64_t size, int64_t block,
                          const char *dim) -> std::string {
    if (size < 0) // unknown until run time
      return "";
    if (size % block != 0)
      return "block size " + std::to_string(block) + " does not divide the " +
             std::to_string(size) + " " + dim;
    if (block > 1 && block == size)
      return "block size " + std::to_string(block) + " equals the " + dim +
             " (the outer level would be a constant)";
    return "";
  };
  std::string why = whyNotBlocked(rows, s.splitRow, "rows");
  return why.empty() ? whyNotBlocked(cols, s.splitCol, "columns") : why;
}

Schedule sptune::canonicalize(const Schedule &input) {
  Schedule s = input;
  if (s.target != TargetKind::CPU) {
    s.cpu = CpuKnobs();
    s.denseTransposed = 0;
  }
  if (s.target != TargetKind::NVVM)
    s.gpu = GpuKnobs();
  if (s.target != TargetKind::SPADE)
    s.spade = SpadeKnobs();
  switch (s.target) {
  case TargetKind::CPU: {
    CpuKnobs &c = s.cpu;
    // The sparsifier never parallelizes a reduction loop, nor the outer
    // loop over a non-unique (COO) level, which it emits as a while loop.
    if (c.parallel == ParallelKind::Outer && !s.loopOrder.empty()) {
      const DimPart &outer = s.loopOrder.front();
      if (outer.role == Schedule::reductionRole(s.kernel))
        c.parallel = ParallelKind::None;
      for (const StorageLevel &l : s.levels)
        if (l.dim == outer && l.format == LevelFormat::CompressedNU)
          c.parallel = ParallelKind::None;
    }
    if (c.parallel == ParallelKind::None) {
      c.threads = 0;
      c.omp = OmpScheduleKind::Static;
      c.chunk = 0;
    }
    if (c.vectorLength == 0)
      c.simdIndex32 = false;
    break;
  }
  case TargetKind::NVVM:
    // The cuSPARSE path runs the library's own kernel on the stored format:
    // loop order and code generation threads play no part.
    if (s.gpu.libgen) {
      s.gpu.threads = GpuKnobs().threads;
      std::vector<StorageLevel> levels = s.levels;
      s.setLevels(levels);
    }
    break;
  case TargetKind::SPADE: {
    // Without column tiles there is a single column phase: a barrier
    // between phases has nothing to separate.
    if (s.splitCol == 1 && s.tile == 0)
      s.spade.barrier = false;
    // SPADE's storage is its tiles; MLIR levels play no part.
    Schedule base = Schedule::csr(s.target, s.kernel);
    s.levels = base.levels;
    s.loopOrder = base.loopOrder;
    s.posWidth = s.crdWidth = 64;
    break;
  }
  }
  return s;
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

ScheduleTokenSource::~ScheduleTokenSource() = default;

namespace {
/// The plain lexer over a string.
class StringTokenSource : public ScheduleTokenSource {
public:
  explicit StringTokenSource(std::string_view text) : text(text) {}

  bool parseKeyword(std::string &keyword) override {
    skipSpace();
    size_t start = pos;
    while (pos < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[pos])) ||
            text[pos] == '_'))
      ++pos;
    if (pos == start || std::isdigit(static_cast<unsigned char>(text[start]))) {
      pos = start;
      emitError("expected a keyword");
      return false;
    }
    keyword = std::string(text.substr(start, pos - start));
    return true;
  }
  bool parseInteger(int64_t &value) override {
    skipSpace();
    size_t start = pos;
    if (pos < text.size() && text[pos] == '-')
      ++pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])))
      ++pos;
    std::string digits(text.substr(start, pos - start));
    if (digits.empty() || digits == "-" || digits.size() > 18) {
      pos = start;
      emitError("expected an integer");
      return false;
    }
    value = std::stoll(digits);
    return true;
  }
  bool parsePunct(char c) override {
    if (parseOptionalPunct(c))
      return true;
    emitError(std::string("expected '") + c + "'");
    return false;
  }
  bool parseOptionalPunct(char c) override {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  void emitError(const std::string &message) override {
    if (error.empty())
      error = message + " at offset " + std::to_string(pos);
  }
  bool atEnd() {
    skipSpace();
    return pos == text.size();
  }
  std::string error;

private:
  void skipSpace() {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  std::string_view text;
  size_t pos = 0;
};
} // namespace

static bool parseBool(ScheduleTokenSource &t, bool &out) {
  std::string kw;
  if (!t.parseKeyword(kw))
    return false;
  if (kw == "true" || kw == "false") {
    out = kw == "true";
    return true;
  }
  t.emitError("expected 'true' or 'false', got '" + kw + "'");
  return false;
}

static bool parseIntInRange(ScheduleTokenSource &t, int64_t &out) {
  return t.parseInteger(out);
}

/// Parses an integer that must fit `T` (a value that would wrap, such as
/// threads = 2^32 + 2 for an int, is an error rather than 2).
template <typename T>
static bool parseInt(ScheduleTokenSource &t, T &out) {
  int64_t v;
  if (!t.parseInteger(v))
    return false;
  if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
    t.emitError("integer " + std::to_string(v) + " is out of range");
    return false;
  }
  out = static_cast<T>(v);
  return true;
}

/// Parses `[elem, elem, ...]`.
template <typename Fn>
static bool parseList(ScheduleTokenSource &t, Fn parseElem) {
  if (!t.parsePunct('['))
    return false;
  if (t.parseOptionalPunct(']'))
    return true;
  do {
    if (!parseElem())
      return false;
  } while (t.parseOptionalPunct(','));
  return t.parsePunct(']');
}

static bool parseDim(ScheduleTokenSource &t, DimPart &d) {
  std::string kw;
  if (!t.parseKeyword(kw))
    return false;
  auto parsed = parseDimPart(kw);
  if (!parsed) {
    t.emitError("expected a loop name such as 'i', 'i1' or 'k0', got '" + kw +
                "'");
    return false;
  }
  d = *parsed;
  return true;
}

template <typename EnumT, size_t N>
static bool parseEnum(ScheduleTokenSource &t, EnumT &out,
                      const EnumT (&values)[N], const char *what) {
  std::string kw;
  if (!t.parseKeyword(kw))
    return false;
  for (EnumT v : values)
    if (kw == toString(v)) {
      out = v;
      return true;
    }
  t.emitError(std::string("unknown ") + what + " '" + kw + "'");
  return false;
}

std::optional<Schedule> sptune::parseScheduleBody(ScheduleTokenSource &t) {
  std::string kw;
  if (!t.parseKeyword(kw))
    return std::nullopt;
  auto target = parseTargetKind(kw);
  if (!target) {
    t.emitError("unknown target '" + kw + "' (expected cpu, nvvm or spade)");
    return std::nullopt;
  }
  if (!t.parseKeyword(kw))
    return std::nullopt;
  auto kernel = parseKernelType(kw);
  if (!kernel) {
    t.emitError("unknown kernel '" + kw + "' (expected spmm, sddmm or spmv)");
    return std::nullopt;
  }
  Schedule s = Schedule::csr(*target, *kernel);
  bool sawOrder = false, sawLevels = false;
  static const LevelFormat kFormats[] = {
      LevelFormat::Dense, LevelFormat::Compressed, LevelFormat::CompressedNU,
      LevelFormat::Singleton};
  static const ParallelKind kParallel[] = {ParallelKind::None,
                                           ParallelKind::Outer};
  static const OmpScheduleKind kOmp[] = {OmpScheduleKind::Static,
                                         OmpScheduleKind::Dynamic};
  static const RowReorder kReorder[] = {RowReorder::None, RowReorder::ByLength,
                                        RowReorder::BySimilarity};

  std::vector<std::string> seenKeys;
  while (t.parseOptionalPunct(',')) {
    std::string key;
    if (!t.parseKeyword(key))
      return std::nullopt;
    // A key given twice would silently keep the last value.
    if (std::find(seenKeys.begin(), seenKeys.end(), key) != seenKeys.end()) {
      t.emitError("duplicate key '" + key + "'");
      return std::nullopt;
    }
    seenKeys.push_back(key);
    if (!t.parsePunct('='))
      return std::nullopt;
    bool cpu = s.target == TargetKind::CPU;
    bool gpu = s.target == TargetKind::NVVM;
    bool spade = s.target == TargetKind::SPADE;
    bool ok = true;
    if (key == "levels" && !spade) {
      std::vector<StorageLevel> levels;
      ok = parseList(t, [&] {
        StorageLevel l;
        if (!parseDim(t, l.dim) || !t.parsePunct(':') ||
            !parseEnum(t, l.format, kFormats, "level format"))
          return false;
        levels.push_back(l);
        return true;
      });
      s.levels = levels;
      sawLevels = true;
    } else if (key == "split") {
      std::vector<int64_t> v;
      ok = parseList(t, [&] {
        int64_t x;
        if (!parseIntInRange(t, x))
          return false;
        v.push_back(x);
        return true;
      });
      if (ok && v.size() != 2) {
        t.emitError("split takes two sizes: [rows, cols]");
        ok = false;
      }
      if (ok) {
        s.splitRow = v[0];
        s.splitCol = v[1];
      }
    } else if (key == "order" && !spade) {
      std::vector<DimPart> order;
      ok = parseList(t, [&] {
        DimPart d;
        if (!parseDim(t, d))
          return false;
        order.push_back(d);
        return true;
      });
      s.loopOrder = order;
      sawOrder = true;
    } else if (key == "widths" && !spade) {
      std::vector<int64_t> v;
      ok = parseList(t, [&] {
        int x;
        if (!parseInt(t, x))
          return false;
        v.push_back(x);
        return true;
      });
      if (ok && v.size() != 2) {
        t.emitError("widths takes two bit widths: [positions, coordinates]");
        ok = false;
      }
      if (ok) {
        s.posWidth = static_cast<int>(v[0]);
        s.crdWidth = static_cast<int>(v[1]);
      }
    } else if (key == "tile") {
      ok = parseInt(t, s.tile);
    } else if (key == "layout" && cpu) {
      const std::vector<DenseOperandInfo> &ops = Schedule::denseOperands(s.kernel);
      std::vector<bool> seen(ops.size(), false);
      s.denseTransposed = 0;
      ok = parseList(t, [&] {
        std::string name, role;
        if (!t.parseKeyword(name))
          return false;
        auto it = std::find_if(ops.begin(), ops.end(), [&](const auto &d) {
          return name == d.name;
        });
        if (it == ops.end()) {
          std::string names;
          for (const DenseOperandInfo &d : ops)
            names += std::string(names.empty() ? "" : ", ") + d.name;
          t.emitError("'" + name + "' is not a dense operand of " +
                      toString(s.kernel) + " (expected " +
                      (names.empty() ? std::string("none") : names) + ")");
          return false;
        }
        size_t n = it - ops.begin();
        if (seen[n]) {
          t.emitError("dense operand '" + name + "' given twice");
          return false;
        }
        seen[n] = true;
        if (!t.parsePunct(':') || !t.parseKeyword(role))
          return false;
        std::optional<Role> r = parseRole(role);
        if (!r || (*r != it->outer && *r != it->inner)) {
          t.emitError(std::string("the contiguous dimension of '") + name +
                      "' must be '" + toString(it->inner) + "' or '" +
                      toString(it->outer) + "', got '" + role + "'");
          return false;
        }
        if (*r == it->outer)
          s.denseTransposed |= static_cast<uint8_t>(1u << n);
        return true;
      });
    } else if (key == "parallel" && cpu) {
      ok = parseEnum(t, s.cpu.parallel, kParallel, "parallelization");
    } else if (key == "threads" && cpu) {
      ok = parseInt(t, s.cpu.threads);
    } else if (key == "threads" && gpu) {
      ok = parseInt(t, s.gpu.threads);
    } else if (key == "omp" && cpu) {
      ok = parseEnum(t, s.cpu.omp, kOmp, "OpenMP schedule");
    } else if (key == "chunk" && cpu) {
      ok = parseInt(t, s.cpu.chunk);
    } else if (key == "vl" && cpu) {
      ok = parseInt(t, s.cpu.vectorLength);
    } else if (key == "simd32" && cpu) {
      ok = parseBool(t, s.cpu.simdIndex32);
    } else if (key == "libgen" && gpu) {
      ok = parseBool(t, s.gpu.libgen);
    } else if (key == "pes" && spade) {
      ok = parseInt(t, s.spade.pes);
    } else if (key == "barrier" && spade) {
      ok = parseBool(t, s.spade.barrier);
    } else if (key == "reorder" && spade) {
      ok = parseEnum(t, s.spade.reorder, kReorder, "row reordering");
    } else if (key == "bypass" && spade) {
      s.spade.bypassSparse = s.spade.bypassDense = s.spade.bypassOutput = false;
      ok = parseList(t, [&] {
        std::string stream;
        if (!t.parseKeyword(stream))
          return false;
        if (stream == "sparse")
          s.spade.bypassSparse = true;
        else if (stream == "dense")
          s.spade.bypassDense = true;
        else if (stream == "output")
          s.spade.bypassOutput = true;
        else {
          t.emitError("unknown stream '" + stream +
                      "' (expected sparse, dense or output)");
          return false;
        }
        return true;
      });
    } else {
      t.emitError("key '" + key + "' does not apply to target '" +
                  toString(s.target) + "'");
      return std::nullopt;
    }
    if (!ok)
      return std::nullopt;
  }
  if (sawLevels && !sawOrder) {
    std::vector<StorageLevel> levels = s.levels;
    s.setLevels(levels);
  }
  return s;
}

std::optional<Schedule> sptune::parseSchedule(std::string_view text,
                                              std::string *error) {
  StringTokenSource tokens(text);
  std::optional<Schedule> s = parseScheduleBody(tokens);
  if (s && !tokens.atEnd()) {
    tokens.emitError("unexpected trailing text");
    s.reset();
  }
  if (!s && error)
    *error = tokens.error;
  return s;
}
