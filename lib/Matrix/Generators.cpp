//===- Generators.cpp - Seeded synthetic sparse matrices ------------------===//

#include "sptune/Matrix/Generators.h"

#include "sptune/Support/Error.h"

#include "GeneratorSupport.h"
#include "Random.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <vector>

using namespace sptune;
using namespace sptune::detail;

namespace {

constexpr int64_t kMaxDim = kMaxMatrixDim;
/// Largest nnz a spec may ask for (16 GiB of COO); keeps a typo from
/// exhausting memory.
constexpr int64_t kMaxNnz = int64_t(1) << 30;

struct KindInfo {
  GenKind kind;
  const char *name;
  /// Kind-specific keys in canonical order.
  std::vector<const char *> keys;
};

const std::vector<KindInfo> &kinds() {
  static const std::vector<KindInfo> all = {
      {GenKind::Uniform, "uniform", {}},
      {GenKind::RMat, "rmat", {"a", "b", "c"}},
      {GenKind::Banded, "banded", {"bw"}},
      {GenKind::Block, "block", {"bs", "fill"}},
      {GenKind::Clustered, "clustered", {"group", "noise"}},
  };
  return all;
}

const KindInfo &kindInfo(GenKind kind) {
  for (const KindInfo &k : kinds())
    if (k.kind == kind)
      return k;
  return kinds().front();
}

/// Random values in (0, 1] for the (canonical) entries of `m`.
void fillValues(CooMatrix &m, uint64_t seed) {
  Rng rng(Rng::derive(seed, kValues));
  m.values.resize(m.rowIdx.size());
  for (double &v : m.values)
    v = rng.uniformPositive();
}

/// Row r's band [lo, hi] of columns with |c - r| <= bw; empty if lo > hi.
inline void bandOfRow(int64_t r, int64_t cols, int64_t bw, int64_t &lo,
                      int64_t &hi) {
  lo = std::max<int64_t>(0, r - bw);
  hi = std::min<int64_t>(cols - 1, r + bw);
}

int64_t bandArea(int64_t rows, int64_t cols, int64_t bw) {
  int64_t total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t lo, hi;
    bandOfRow(r, cols, bw, lo, hi);
    if (lo > r + bw || lo >= cols)
      break; // rows further down are past the last column
    total += std::max<int64_t>(0, hi - lo + 1);
  }
  return total;
}

//===----------------------------------------------------------------------===//
// The kinds
//===----------------------------------------------------------------------===//

void genUniform(const GenSpec &s, CooMatrix &m) {
  Rng rng(Rng::derive(s.seed, kStructure));
  std::vector<uint64_t> picks;
  sampleDistinct(static_cast<uint64_t>(s.rows) * s.cols, s.nnz, rng, picks);
  m.rowIdx.reserve(picks.size());
  m.colIdx.reserve(picks.size());
  for (uint64_t p : picks) {
    m.rowIdx.push_back(static_cast<int32_t>(p / s.cols));
    m.colIdx.push_back(static_cast<int32_t>(p % s.cols));
  }
}

int levelsFor(int64_t n) {
  int l = 0;
  while ((int64_t(1) << l) < n)
    ++l;
  return l;
}

void genRMat(const GenSpec &s, CooMatrix &m) {
  Rng rng(Rng::derive(s.seed, kStructure));
  const int lr = levelsFor(s.rows), lc = levelsFor(s.cols);
  const int levels = std::max(lr, lc);
  // Thresholds on 64 random bits: quadrant a | b | c | d.
  auto scaled = [](double p) -> uint64_t {
    if (p >= 1.0)
      return std::numeric_limits<uint64_t>::max();
    return static_cast<uint64_t>(std::ldexp(p, 64));
  };
  const double d = std::max(0.0, 1.0 - s.a - s.b - s.c);
  const uint64_t ta = scaled(s.a), tab = scaled(s.a + s.b),
                 tabc = scaled(s.a + s.b + s.c);
  // A level that splits only rows (cols) uses the marginal probability of
  // the lower half: c + d (b + d).
  const uint64_t rowLower = scaled(s.c + d), colRight = scaled(s.b + d);

  auto draw = [&]() -> uint64_t {
    for (;;) {
      int64_t r = 0, c = 0;
      for (int level = 0; level < levels; ++level) {
        const bool splitRow = level < lr, splitCol = level < lc;
        uint64_t x = rng.next();
        int rb = 0, cb = 0;
        if (splitRow && splitCol) {
          rb = x >= tab;
          cb = (x >= ta && x < tab) || x >= tabc;
        } else if (splitRow) {
          rb = x < rowLower;
        } else {
          cb = x < colRight;
        }
        if (splitRow)
          r = (r << 1) | rb;
        if (splitCol)
          c = (c << 1) | cb;
      }
      if (r < s.rows && c < s.cols)
        return static_cast<uint64_t>(r) * s.cols + c;
    }
  };

  std::vector<uint64_t> picks, batch;
  // Skewed distributions repeat hubs: top up until the count is reached or
  // rounds stop adding entries.
  int stalled = 0;
  for (int round = 0; round < 200 && int64_t(picks.size()) < s.nnz; ++round) {
    size_t before = picks.size();
    size_t missing = static_cast<size_t>(s.nnz) - picks.size();
    batch.resize(missing);
    for (uint64_t &v : batch)
      v = draw();
    mergeDistinct(picks, batch);
    if (picks.size() - before < missing / 1000 + 1) {
      if (++stalled == 3)
        break;
    } else {
      stalled = 0;
    }
  }
  m.rowIdx.reserve(picks.size());
  m.colIdx.reserve(picks.size());
  for (uint64_t p : picks) {
    m.rowIdx.push_back(static_cast<int32_t>(p / s.cols));
    m.colIdx.push_back(static_cast<int32_t>(p % s.cols));
  }
}

void genBanded(const GenSpec &s, CooMatrix &m) {
  Rng rng(Rng::derive(s.seed, kStructure));
  std::vector<uint64_t> picks;
  sampleDistinct(static_cast<uint64_t>(bandArea(s.rows, s.cols, s.bw)), s.nnz,
                 rng, picks);
  m.rowIdx.reserve(picks.size());
  m.colIdx.reserve(picks.size());
  // Walk the rows and the sorted band offsets together.
  size_t i = 0;
  uint64_t rowStart = 0;
  for (int64_t r = 0; r < s.rows && i < picks.size(); ++r) {
    int64_t lo, hi;
    bandOfRow(r, s.cols, s.bw, lo, hi);
    uint64_t len = hi >= lo ? static_cast<uint64_t>(hi - lo + 1) : 0;
    for (; i < picks.size() && picks[i] < rowStart + len; ++i) {
      m.rowIdx.push_back(static_cast<int32_t>(r));
      m.colIdx.push_back(static_cast<int32_t>(lo + (picks[i] - rowStart)));
    }
    rowStart += len;
  }
}

void genBlock(const GenSpec &s, CooMatrix &m) {
  Rng rng(Rng::derive(s.seed, kStructure));
  const int64_t bs = s.bs;
  const int64_t blockRows = (s.rows + bs - 1) / bs;
  const int64_t blockCols = (s.cols + bs - 1) / bs;
  const uint64_t totalBlocks = static_cast<uint64_t>(blockRows) * blockCols;
  auto area = [&](uint64_t block) -> int64_t {
    int64_t br = block / blockCols, bc = block % blockCols;
    return (std::min(s.rows, (br + 1) * bs) - br * bs) *
           (std::min(s.cols, (bc + 1) * bs) - bc * bs);
  };
  // Enough blocks for nnz at the requested fill; blocks clipped at the edges
  // are smaller, so add blocks until they hold nnz entries.
  uint64_t want = static_cast<uint64_t>(
      std::ceil(static_cast<double>(s.nnz) / (s.fill * bs * bs)));
  std::vector<uint64_t> blocks;
  int64_t positions = 0;
  for (;;) {
    want = std::min(want, totalBlocks);
    sampleDistinct(totalBlocks, want, rng, blocks);
    positions = 0;
    for (uint64_t b : blocks)
      positions += area(b);
    if (positions >= s.nnz || want == totalBlocks)
      break;
    want += static_cast<uint64_t>((s.nnz - positions) / (bs * bs)) + 1;
  }
  std::vector<uint64_t> picks;
  sampleDistinct(static_cast<uint64_t>(positions), s.nnz, rng, picks);
  m.rowIdx.reserve(picks.size());
  m.colIdx.reserve(picks.size());
  size_t i = 0;
  uint64_t blockStart = 0;
  for (uint64_t b : blocks) {
    const int64_t r0 = (b / blockCols) * bs, c0 = (b % blockCols) * bs;
    const int64_t width = std::min(s.cols, c0 + bs) - c0;
    const uint64_t len = static_cast<uint64_t>(area(b));
    for (; i < picks.size() && picks[i] < blockStart + len; ++i) {
      int64_t off = static_cast<int64_t>(picks[i] - blockStart);
      m.rowIdx.push_back(static_cast<int32_t>(r0 + off / width));
      m.colIdx.push_back(static_cast<int32_t>(c0 + off % width));
    }
    blockStart += len;
  }
}

void genClustered(const GenSpec &s, CooMatrix &m) {
  Rng rng(Rng::derive(s.seed, kStructure));
  Rng noiseRng(Rng::derive(s.seed, kExtra));
  // Row lengths: nnz / rows each, one more for nnz % rows random rows.
  const int64_t base = s.nnz / s.rows;
  std::vector<uint64_t> longer;
  sampleDistinct(static_cast<uint64_t>(s.rows),
                 static_cast<uint64_t>(s.nnz % s.rows), rng, longer);
  std::vector<int64_t> length(s.rows, base);
  for (uint64_t r : longer)
    ++length[r];

  m.rowIdx.reserve(s.nnz);
  m.colIdx.reserve(s.nnz);
  std::vector<uint64_t> set;
  std::vector<int32_t> row;
  std::vector<int64_t> stamp(s.cols, -1); // last row holding the column
  for (int64_t g0 = 0; g0 < s.rows; g0 += s.group) {
    const int64_t g1 = std::min(s.rows, g0 + s.group);
    int64_t longest = 0;
    for (int64_t r = g0; r < g1; ++r)
      longest = std::max(longest, length[r]);
    // The group's column set, in random order; row r takes a prefix.
    sampleDistinct(static_cast<uint64_t>(s.cols),
                   static_cast<uint64_t>(longest), rng, set);
    for (size_t i = set.size(); i > 1; --i)
      std::swap(set[i - 1], set[rng.below(i)]);
    for (int64_t r = g0; r < g1; ++r) {
      row.assign(set.begin(), set.begin() + length[r]);
      for (int32_t c : row)
        stamp[c] = r;
      if (s.noise > 0) {
        // Move each entry with probability `noise` to a column the row
        // does not hold yet.
        for (int32_t &c : row) {
          if (noiseRng.uniform() >= s.noise)
            continue;
          stamp[c] = -1;
          int64_t fresh;
          do
            fresh = static_cast<int64_t>(noiseRng.below(s.cols));
          while (stamp[fresh] == r);
          c = static_cast<int32_t>(fresh);
          stamp[fresh] = r;
        }
      }
      std::sort(row.begin(), row.end());
      for (int32_t c : row) {
        m.rowIdx.push_back(static_cast<int32_t>(r));
        m.colIdx.push_back(c);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Spec parsing
//===----------------------------------------------------------------------===//

} // namespace

const char *sptune::genKindName(GenKind kind) { return kindInfo(kind).name; }

bool sptune::isGenSpec(std::string_view source) {
  return source.substr(0, 4) == "gen:";
}

int64_t GenSpec::capacity() const {
  if (rows <= 0 || cols <= 0)
    return 0;
  if (kind == GenKind::Banded)
    return bandArea(rows, cols, bw);
  return rows * cols;
}

std::string GenSpec::str() const {
  std::string s = "gen:";
  s += genKindName(kind);
  s += ":rows=";
  appendNumber(s, rows);
  s += ",cols=";
  appendNumber(s, cols);
  s += ",nnz=";
  appendNumber(s, nnz);
  auto real = [&](const char *key, double v) {
    s += ',';
    s += key;
    s += '=';
    appendNumber(s, v);
  };
  auto integer = [&](const char *key, int64_t v) {
    s += ',';
    s += key;
    s += '=';
    appendNumber(s, v);
  };
  switch (kind) {
  case GenKind::Uniform:
    break;
  case GenKind::RMat:
    real("a", a);
    real("b", b);
    real("c", c);
    break;
  case GenKind::Banded:
    integer("bw", bw);
    break;
  case GenKind::Block:
    integer("bs", bs);
    real("fill", fill);
    break;
  case GenKind::Clustered:
    integer("group", group);
    real("noise", noise);
    break;
  }
  s += ",seed=";
  appendNumber(s, seed);
  return s;
}

bool sptune::operator==(const GenSpec &x, const GenSpec &y) {
  return x.str() == y.str();
}

/// parseGenSpec's work: false with the message in `error`.
static bool parseGenSpecInto(std::string_view text, GenSpec &spec,
                             std::string &error) {
  const std::string quotedSpec = "'" + std::string(text) + "'";
  auto fail = [&](const std::string &message) {
    error = "bad generator spec " + quotedSpec + ": " + message;
    return false;
  };
  if (!isGenSpec(text))
    return fail("expected 'gen:<kind>:key=value,...'");
  std::string_view kindName, params;
  splitSpec(text, 4, kindName, params);

  std::string kindList;
  const KindInfo *info = nullptr;
  for (const KindInfo &k : kinds()) {
    kindList += kindList.empty() ? "" : ", ";
    kindList += k.name;
    if (kindName == k.name)
      info = &k;
  }
  if (!info)
    return fail("unknown kind '" + std::string(kindName) + "' (expected " +
                kindList + ")");

  GenSpec s;
  s.kind = info->kind;
  std::vector<std::string> allowed = {"rows", "cols", "nnz", "density"};
  allowed.insert(allowed.end(), info->keys.begin(), info->keys.end());
  allowed.push_back("seed");
  std::vector<std::string> seen;
  bool hasNnz = false, hasDensity = false;
  double density = 0;

  std::vector<SpecItem> items;
  std::string itemError;
  if (!splitSpecItems(params, items, itemError))
    return fail(itemError);
  for (const SpecItem &item : items) {
    const std::string &key = item.key;
    std::string_view value = item.value;
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string list;
      for (const std::string &k : allowed)
        list += (list.empty() ? "" : ", ") + k;
      return fail("unknown key '" + key + "' for kind '" + info->name +
                  "' (expected " + list + ")");
    }
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      return fail("key '" + key + "' given twice");
    seen.push_back(key);

    auto badValue = [&](const char *what) {
      return fail("bad value '" + std::string(value) + "' for '" + key +
                  "' (expected " + what + ")");
    };
    bool ok = true;
    if (key == "rows")
      ok = parseInt(value, s.rows) || badValue("an integer");
    else if (key == "cols")
      ok = parseInt(value, s.cols) || badValue("an integer");
    else if (key == "nnz")
      ok = (hasNnz = parseInt(value, s.nnz)) || badValue("an integer");
    else if (key == "density")
      ok = (hasDensity = parseReal(value, density)) || badValue("a number");
    else if (key == "seed")
      ok = parseUnsigned(value, s.seed) || badValue("a non-negative integer");
    else if (key == "a")
      ok = parseReal(value, s.a) || badValue("a number");
    else if (key == "b")
      ok = parseReal(value, s.b) || badValue("a number");
    else if (key == "c")
      ok = parseReal(value, s.c) || badValue("a number");
    else if (key == "bw")
      ok = parseInt(value, s.bw) || badValue("an integer");
    else if (key == "bs")
      ok = parseInt(value, s.bs) || badValue("an integer");
    else if (key == "fill")
      ok = parseReal(value, s.fill) || badValue("a number");
    else if (key == "group")
      ok = parseInt(value, s.group) || badValue("an integer");
    else if (key == "noise")
      ok = parseReal(value, s.noise) || badValue("a number");
    if (!ok)
      return false;
  }

  auto has = [&](const char *key) {
    return std::find(seen.begin(), seen.end(), key) != seen.end();
  };
  if (!has("rows"))
    return fail("missing key 'rows'");
  if (!has("cols"))
    s.cols = s.rows;
  if (s.rows < 1 || s.rows > kMaxDim)
    return fail("rows must be in [1, " + std::to_string(kMaxDim) + "]");
  if (s.cols < 1 || s.cols > kMaxDim)
    return fail("cols must be in [1, " + std::to_string(kMaxDim) + "]");
  if (hasNnz == hasDensity)
    return fail("give exactly one of 'nnz' and 'density'");

  switch (s.kind) {
  case GenKind::Uniform:
    break;
  case GenKind::RMat:
    if (s.a < 0 || s.b < 0 || s.c < 0 || s.a + s.b + s.c > 1.0 + 1e-12)
      return fail("rmat needs a, b, c >= 0 with a + b + c <= 1 (d = 1 - a - "
                  "b - c)");
    break;
  case GenKind::Banded:
    if (s.bw < 0 || s.bw >= std::max(s.rows, s.cols))
      return fail("bw (half bandwidth) must be in [0, max(rows, cols))");
    break;
  case GenKind::Block:
    if (s.bs < 1 || s.bs > std::min(s.rows, s.cols))
      return fail("bs (block size) must be in [1, min(rows, cols)]");
    if (!(s.fill > 0 && s.fill <= 1))
      return fail("fill must be in (0, 1]");
    break;
  case GenKind::Clustered:
    if (s.group < 1 || s.group > s.rows)
      return fail("group (rows per group) must be in [1, rows]");
    if (!(s.noise >= 0 && s.noise <= 1))
      return fail("noise must be in [0, 1]");
    break;
  }

  const int64_t capacity = s.capacity();
  if (hasDensity) {
    if (!(density >= 0 && density <= 1))
      return fail("density must be in [0, 1]");
    long double want = static_cast<long double>(density) * s.rows * s.cols;
    s.nnz = static_cast<int64_t>(std::llround(want));
  }
  if (s.nnz < 0)
    return fail("nnz must be non-negative");
  if (s.nnz > kMaxNnz)
    return fail("nnz " + std::to_string(s.nnz) + " exceeds the limit of " +
                std::to_string(kMaxNnz));
  if (s.nnz > capacity)
    return fail("nnz " + std::to_string(s.nnz) + " exceeds the " +
                std::to_string(capacity) + " positions the " + info->name +
                " structure has");
  spec = s;
  return true;
}

llvm::Expected<GenSpec> sptune::parseGenSpec(std::string_view text) {
  GenSpec spec;
  std::string error;
  if (!parseGenSpecInto(text, spec, error))
    return makeError(error);
  return spec;
}

llvm::Expected<CooMatrix> sptune::generate(const GenSpec &spec) {
  // Re-validate (the spec may have been built by hand).
  if (llvm::Expected<GenSpec> checked = parseGenSpec(spec.str()); !checked)
    return checked.takeError();
  CooMatrix out;
  out.rows = spec.rows;
  out.cols = spec.cols;
  switch (spec.kind) {
  case GenKind::Uniform:
    genUniform(spec, out);
    break;
  case GenKind::RMat:
    genRMat(spec, out);
    break;
  case GenKind::Banded:
    genBanded(spec, out);
    break;
  case GenKind::Block:
    genBlock(spec, out);
    break;
  case GenKind::Clustered:
    genClustered(spec, out);
    break;
  }
  out.values.resize(out.rowIdx.size());
  out.canonicalize();
  fillValues(out, spec.seed);
  return out;
}

const char *sptune::genSpecHelp() {
  return R"(Generator specs: gen:<kind>:key=value,key=value,...
  Every kind: rows=N (required), cols=N (default rows), exactly one of
  nnz=N (exact stored entries) or density=D (nnz = round(D*rows*cols)),
  seed=N (default 1). Values are uniform in (0, 1].
  Kinds and their own keys (defaults in parentheses):
    uniform                   positions uniformly at random
    rmat      a, b, c         R-MAT power law (0.57, 0.19, 0.19; d=1-a-b-c)
    banded    bw              uniformly within |col - row| <= bw (8)
    block     bs, fill        random aligned bs x bs blocks (4), each filled
                              to fill (1.0)
    clustered group, noise    groups of `group` consecutive rows share a
                              column set (8); each entry moves to a random
                              column with probability noise (0)
  Specs print back canonically with every key, e.g.
    gen:rmat:rows=4096,cols=4096,nnz=40000,a=0.57,b=0.19,c=0.19,seed=3
)";
}
