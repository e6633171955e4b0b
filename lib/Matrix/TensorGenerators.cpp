//===- TensorGenerators.cpp - Seeded synthetic 3-D sparse tensors ---------===//

#include "sptune/Matrix/TensorGenerators.h"

#include "sptune/Matrix/SparseMatrix.h"
#include "sptune/Support/Error.h"

#include "GeneratorSupport.h"
#include "Random.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

using namespace sptune;
using namespace sptune::detail;

namespace {

/// Largest nnz a spec may ask for (as for matrices: keeps a typo from
/// exhausting memory).
constexpr int64_t kMaxNnz = int64_t(1) << 30;
/// Largest number of cells: an entry's position in the tensor (row-major)
/// must fit in 64 bits with room to spare.
constexpr uint64_t kMaxCells = uint64_t(1) << 62;

struct KindName {
  TensorGenKind kind;
  const char *name;
};
constexpr KindName kKinds[] = {{TensorGenKind::Uniform, "uniform"},
                               {TensorGenKind::PowerLaw, "powerlaw"}};

/// I J K as a 128-bit product (each size is below 2^28).
unsigned __int128 cellsOf(const std::array<int64_t, 3> &dims) {
  return static_cast<unsigned __int128>(dims[0]) * uint64_t(dims[1]) *
         uint64_t(dims[2]);
}

/// A random permutation of [0, n) (Fisher-Yates).
std::vector<int32_t> permutation(int64_t n, Rng &rng) {
  std::vector<int32_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(p[size_t(i)], p[size_t(rng.below(uint64_t(i) + 1))]);
  return p;
}

/// parseTensorGenSpec's work: false with the message in `error`.
bool parseInto(std::string_view text, TensorGenSpec &spec, std::string &error) {
  auto fail = [&](const std::string &message) {
    error = "bad tensor generator spec '" + std::string(text) + "': " + message;
    return false;
  };
  if (!isTensorGenSpec(text))
    return fail("expected 'gen3:<kind>:dims=IxJxK,nnz=N[,seed=S]'");
  std::string_view kindName, params;
  splitSpec(text, 5, kindName, params);
  TensorGenSpec s;
  bool known = false;
  for (const KindName &k : kKinds)
    if (kindName == k.name) {
      s.kind = k.kind;
      known = true;
    }
  if (!known)
    return fail("unknown kind '" + std::string(kindName) +
                "' (expected uniform, powerlaw)");
  bool hasDims = false, hasNnz = false, hasSeed = false;
  std::vector<SpecItem> items;
  std::string itemError;
  if (!splitSpecItems(params, items, itemError))
    return fail(itemError);
  for (const SpecItem &item : items) {
    const std::string &key = item.key;
    std::string_view value = item.value;
    bool *seen = key == "dims"   ? &hasDims
                 : key == "nnz"  ? &hasNnz
                 : key == "seed" ? &hasSeed
                                 : nullptr;
    if (!seen)
      return fail("unknown key '" + key + "' (expected dims, nnz, seed)");
    if (*seen)
      return fail("key '" + key + "' given twice");
    *seen = true;
    if (key == "dims") {
      for (int m = 0; m < 3; ++m) {
        size_t x = value.find('x');
        if ((m < 2) == (x == std::string_view::npos) ||
            !parseInt(value.substr(0, x), s.dims[m]))
          return fail("bad value '" + std::string(item.value) +
                      "' for 'dims' (expected three sizes IxJxK)");
        value = m < 2 ? value.substr(x + 1) : std::string_view();
      }
    } else if (key == "nnz" ? !parseInt(value, s.nnz)
                            : !parseUnsigned(value, s.seed)) {
      return fail("bad value '" + std::string(value) + "' for '" + key +
                  "' (expected " +
                  (key == "nnz" ? "an integer" : "a non-negative integer") +
                  ")");
    }
  }
  if (!hasDims)
    return fail("missing key 'dims'");
  if (!hasNnz)
    return fail("missing key 'nnz'");
  for (int m = 0; m < 3; ++m)
    if (s.dims[m] < 1 || s.dims[m] > kMaxMatrixDim)
      return fail("each size must be in [1, " + std::to_string(kMaxMatrixDim) +
                  "]");
  const unsigned __int128 cells = cellsOf(s.dims);
  if (cells > kMaxCells)
    return fail("the tensor has more than 2^62 cells");
  if (s.nnz < 0 || s.nnz > kMaxNnz)
    return fail("nnz must be in [0, " + std::to_string(kMaxNnz) + "]");
  if (uint64_t(s.nnz) > uint64_t(cells) / 2)
    return fail("nnz " + std::to_string(s.nnz) + " exceeds half of the " +
                std::to_string(uint64_t(cells)) + " cells");
  spec = s;
  return true;
}

} // namespace

const char *sptune::tensorGenKindName(TensorGenKind kind) {
  for (const KindName &k : kKinds)
    if (k.kind == kind)
      return k.name;
  return "uniform";
}

bool sptune::isTensorGenSpec(std::string_view source) {
  return source.substr(0, 5) == "gen3:";
}

std::string TensorGenSpec::str() const {
  std::string s = "gen3:";
  s += tensorGenKindName(kind);
  s += ":dims=";
  for (int m = 0; m < 3; ++m) {
    appendNumber(s, dims[m]);
    if (m < 2)
      s += 'x';
  }
  s += ",nnz=";
  appendNumber(s, nnz);
  s += ",seed=";
  appendNumber(s, seed);
  return s;
}

bool sptune::operator==(const TensorGenSpec &x, const TensorGenSpec &y) {
  return x.str() == y.str();
}

llvm::Expected<TensorGenSpec>
sptune::parseTensorGenSpec(std::string_view text) {
  TensorGenSpec spec;
  std::string error;
  if (!parseInto(text, spec, error))
    return makeError(error);
  return spec;
}

llvm::Expected<CooTensor> sptune::generateTensor(const TensorGenSpec &spec) {
  // Re-validate (the spec may have been built by hand).
  if (llvm::Expected<TensorGenSpec> checked = parseTensorGenSpec(spec.str());
      !checked)
    return checked.takeError();
  const uint64_t cells = uint64_t(cellsOf(spec.dims));
  const uint64_t nnz = uint64_t(spec.nnz);
  const uint64_t J = uint64_t(spec.dims[1]), K = uint64_t(spec.dims[2]);
  Rng rng(Rng::derive(spec.seed, kStructure));
  // Row-major positions of the entries, sorted and distinct.
  std::vector<uint64_t> picks;
  if (spec.kind == TensorGenKind::Uniform) {
    sampleDistinct(cells, nnz, rng, picks);
  } else {
    std::array<std::vector<int32_t>, 3> relabel;
    for (int m = 0; m < 3; ++m)
      relabel[m] = permutation(spec.dims[m], rng);
    auto coordinate = [&](int m) {
      double u = rng.uniform();
      int64_t c = static_cast<int64_t>(double(spec.dims[m]) * u * u * u);
      return uint64_t(relabel[m][size_t(std::min(c, spec.dims[m] - 1))]);
    };
    std::vector<uint64_t> batch;
    uint64_t drawn = 0;
    while (picks.size() < nnz) {
      if (drawn >= 50 * nnz)
        return makeError("tensor generator spec '" + spec.str() +
                         "': could not draw " + std::to_string(nnz) +
                         " distinct entries in " + std::to_string(drawn) +
                         " draws (too dense for a power law: ask for fewer "
                         "entries or larger sizes)");
      batch.resize(nnz - picks.size());
      for (uint64_t &p : batch) {
        uint64_t i = coordinate(0), j = coordinate(1), k = coordinate(2);
        p = (i * J + j) * K + k;
      }
      drawn += batch.size();
      mergeDistinct(picks, batch);
    }
  }
  CooTensor t;
  t.dims = spec.dims;
  for (auto &c : t.coords)
    c.reserve(picks.size());
  Rng values(Rng::derive(spec.seed, kValues));
  t.values.reserve(picks.size());
  for (uint64_t p : picks)
    t.add(int32_t(p / (J * K)), int32_t(p / K % J), int32_t(p % K),
          values.uniformPositive());
  return t;
}

const char *sptune::tensorGenSpecHelp() {
  return R"(Tensor generator specs: gen3:<kind>:dims=IxJxK,nnz=N[,seed=S]
  nnz distinct entries (at most half the cells), seed 1 by default; values
  uniform in (0, 1].
    uniform    coordinates uniform
    powerlaw   each coordinate floor(n u^3), relabelled by a random
               permutation of its mode: heavy slices and fibers, scattered
  Specs print back canonically, e.g.
    gen3:powerlaw:dims=5000x5000x5000,nnz=2000000,seed=2
)";
}
