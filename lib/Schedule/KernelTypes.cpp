//===- KernelTypes.cpp - The kernels a schedule can describe --------------===//

#include "sptune/Schedule/KernelTypes.h"

#include "sptune/Support/Error.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <mutex>
#include <numeric>

using namespace sptune;

namespace {
constexpr size_t kBuiltinKernels = 7;

llvm::Expected<KernelTypeInfo> infoFromPattern(std::string_view name,
                                               const KernelDescriptor &p);

/// The canonical form of the sparse ⊙ dense product.
KernelDescriptor hadamardForm() {
  KernelDescriptor d;
  d.loops = {{"i", false, -1}, {"j", false, -1}};
  for (KernelOperand::Kind kind :
       {KernelOperand::Kind::Sparse, KernelOperand::Kind::Dense,
        KernelOperand::Kind::Output}) {
    KernelOperand o;
    o.kind = kind;
    o.elementType = "f32";
    o.dims = {0, 1};
    if (o.sparse())
      o.levels = {"dense", "compressed"};
    d.operands.push_back(std::move(o));
  }
  d.body = KernelDescriptor::Body::ElementwiseProduct;
  return d;
}

const std::vector<KernelTypeInfo> &builtinKernels() {
  static const std::vector<KernelTypeInfo> kernels = [] {
    std::vector<KernelTypeInfo> k(3);
    // SpMM: C(i,j) += A(i,k) * B(k,j).
    k[0].name = "spmm";
    k[0].col = Role::K;
    k[0].free = Role::J;
    k[0].reduction = Role::K;
    k[0].denseOperands = {{"b", Role::K, Role::J}, {"c", Role::I, Role::J}};
    // SDDMM: X(i,j) = S(i,j) * sum_k A(i,k) * B(k,j); k is free and reduced.
    k[1].name = "sddmm";
    k[1].col = Role::J;
    k[1].free = Role::K;
    k[1].reduction = Role::K;
    k[1].denseOperands = {{"a", Role::I, Role::K}, {"b", Role::K, Role::J}};
    // SpMV: y(i) += A(i,k) * x(k).
    k[2].name = "spmv";
    k[2].col = Role::K;
    k[2].reduction = Role::K;
    // The sparse ⊙ dense product: built in, but defined by its form like a
    // type added at run time (and recognized by it).
    k.push_back(llvm::cantFail(infoFromPattern("hadamard", hadamardForm())));
    // The kernels computed by a target's own kernel on the operands' own
    // storage (keepsOperandStorage): a schedule's i and k stand for the
    // sparse operand's rows and columns, j is the loop it does not index,
    // k the reduction; no dense layouts (the kernels read their dense
    // operands with j contiguous).
    auto ownKernel = [](const char *name) {
      KernelTypeInfo info;
      info.name = name;
      info.col = Role::K;
      info.free = Role::J;
      info.reduction = Role::K;
      return info;
    };
    // SpGEMM: C(i,j) += A(i,k) * B(k,j), all three sparse. The schedule's
    // sparse operand is A; B and C are not scheduled operands.
    k.push_back(ownKernel("spgemm"));
    // MTTKRP: A(i,j) += B(i,k,l) * C(k,j) * D(l,j), B sparse. A schedule
    // describes B's slices (i) and fibers (k); j is the rank.
    k.push_back(ownKernel("mttkrp"));
    // The batched SpMM: C(b,i,j) += A(b,i,k) * B(b,k,j), A sparse. A
    // schedule describes A's rows (i) and columns (k); the batch loop b is
    // no part of it.
    k.push_back(ownKernel("batched_spmm"));
    return k;
  }();
  return kernels;
}

/// Added types, after the built-in enumerators. A deque keeps the entries'
/// addresses stable for kernelTypeInfo's callers.
struct AddedKernels {
  std::mutex mutex;
  std::deque<KernelTypeInfo> infos;
};
AddedKernels &added() {
  static AddedKernels a;
  return a;
}

const char *const kOperandNames[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
} // namespace

static bool sameDescriptor(const KernelDescriptor &a,
                           const KernelDescriptor &b) {
  return toJson(a) == toJson(b);
}

bool sptune::isKernelTypeName(std::string_view name) {
  return !name.empty() && name.size() <= 32 && name[0] >= 'a' &&
         name[0] <= 'z' && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
         });
}

/// Derives the schedule-level properties of `pattern`, or says why a schedule
/// cannot describe it.
namespace {
llvm::Expected<KernelTypeInfo> infoFromPattern(std::string_view name,
                                               const KernelDescriptor &p) {
  auto refuse = [&](const std::string &why) {
    return makeError("kernel type '" + std::string(name) + "': " + why);
  };
  if (!isKernelTypeName(name))
    return refuse("a name is a lower-case identifier of at most 32 characters");
  if (p.loops.size() < 2 || p.loops.size() > 3)
    return refuse("a schedule describes 2 or 3 loops, the pattern has " +
                  std::to_string(p.loops.size()));
  std::vector<Role> roles;
  for (const KernelLoop &l : p.loops) {
    std::optional<Role> r = parseRole(l.name);
    if (!r || *r == Role::L || *r == Role::B ||
        std::find(roles.begin(), roles.end(), *r) != roles.end())
      return refuse("loops are named 'i', 'j' and 'k', each once (got '" +
                    l.name + "')");
    roles.push_back(*r);
  }
  if (p.body != KernelDescriptor::Body::MultiplyAccumulate &&
      p.body != KernelDescriptor::Body::ElementwiseProduct)
    return refuse("the body must be a multiply-accumulate or an elementwise "
                  "product");
  if (p.operands.size() < 2 || p.operands.size() > std::size(kOperandNames))
    return refuse("expected 2 to 8 operands");
  KernelTypeInfo info;
  info.name = std::string(name);
  const KernelOperand *sparse = nullptr;
  for (size_t n = 0; n < p.operands.size(); ++n) {
    const KernelOperand &o = p.operands[n];
    bool last = n + 1 == p.operands.size();
    if (o.output() != last)
      return refuse("the last operand, and only it, is the output");
    if (o.kind == KernelOperand::Kind::SparseOutput)
      return refuse("a sparse output cannot be scheduled");
    if (o.dims.empty() || o.dims.size() > 2)
      return refuse("operands have rank 1 or 2");
    for (unsigned d : o.dims)
      if (d >= p.loops.size())
        return refuse("an operand dimension names no loop");
    if (o.sparse()) {
      if (sparse)
        return refuse("exactly one sparse input is supported");
      if (o.dims.size() != 2 || roles[o.dims[0]] != Role::I)
        return refuse("the sparse input is a matrix indexed (i, x)");
      sparse = &o;
      continue;
    }
    if (o.dims.size() == 2)
      info.denseOperands.push_back(
          {kOperandNames[n], roles[o.dims[0]], roles[o.dims[1]]});
  }
  if (!sparse)
    return refuse("the pattern has no sparse input");
  info.row = roles[sparse->dims[0]];
  info.col = roles[sparse->dims[1]];
  if (info.col == info.row)
    return refuse("the sparse input indexes two different loops");
  for (size_t l = 0; l < p.loops.size(); ++l) {
    bool indexedBySparse = l == sparse->dims[0] || l == sparse->dims[1];
    if (!indexedBySparse) {
      if (info.free)
        return refuse("at most one loop may lie outside the sparse operand");
      info.free = roles[l];
    }
    if (p.loops[l].reduction) {
      if (info.reduction)
        return refuse("at most one reduction loop is supported");
      info.reduction = roles[l];
    }
  }
  bool reduces = info.reduction.has_value();
  if (reduces != (p.body == KernelDescriptor::Body::MultiplyAccumulate))
    return refuse("a multiply-accumulate has one reduction loop, an "
                  "elementwise product none");
  KernelDescriptor pattern = p;
  for (KernelLoop &l : pattern.loops)
    l.size = -1;
  info.pattern = std::move(pattern);
  return info;
}

/// The loop renaming that makes `d` the pattern `p` (d's loop l is p's
/// loop map[l]), or nullopt. A body that multiplies its inputs (with or
/// without accumulating) does not care about their order: `d`'s inputs may
/// come in any order (dense ⊙ sparse is the sparse ⊙ dense product). An
/// elementwise product may store its result sparse.
std::optional<std::vector<unsigned>> unify(const KernelDescriptor &d,
                                           const KernelDescriptor &p) {
  // An elementwise product's result has its sparse input's pattern: stored
  // sparse (`o`), it is the pattern's dense output `po` all the same.
  auto intoSparseStorage = [&](const KernelOperand &o,
                               const KernelOperand &po) {
    return p.body == KernelDescriptor::Body::ElementwiseProduct &&
           o.kind == KernelOperand::Kind::SparseOutput &&
           po.kind == KernelOperand::Kind::Output;
  };
  if (d.body != p.body || d.loops.size() != p.loops.size() ||
      d.operands.size() != p.operands.size() || d.operands.empty())
    return std::nullopt;
  bool commutative = d.body == KernelDescriptor::Body::ElementwiseProduct ||
                     d.body == KernelDescriptor::Body::MultiplyAccumulate;
  // order[n]: the operand of `d` that plays p's operand n (the output,
  // last, stays last).
  std::vector<size_t> order(d.operands.size());
  std::iota(order.begin(), order.end(), size_t{0});
  do {
    bool kindsFit = true;
    for (size_t n = 0; n < order.size() && kindsFit; ++n)
      kindsFit = (d.operands[order[n]].kind == p.operands[n].kind ||
                  intoSparseStorage(d.operands[order[n]], p.operands[n])) &&
                 d.operands[order[n]].dims.size() == p.operands[n].dims.size();
    if (!kindsFit)
      continue;
    std::vector<unsigned> map(d.loops.size());
    std::iota(map.begin(), map.end(), 0u);
    do {
      bool ok = true;
      for (size_t l = 0; l < d.loops.size() && ok; ++l)
        ok = d.loops[l].reduction == p.loops[map[l]].reduction;
      for (size_t n = 0; n < order.size() && ok; ++n) {
        const KernelOperand &o = d.operands[order[n]];
        for (size_t x = 0; x < o.dims.size() && ok; ++x)
          ok = map[o.dims[x]] == p.operands[n].dims[x];
      }
      if (ok)
        return map;
    } while (std::next_permutation(map.begin(), map.end()));
  } while (commutative &&
           std::next_permutation(order.begin(), order.end() - 1));
  return std::nullopt;
}
} // namespace

const KernelTypeInfo &sptune::kernelTypeInfo(KernelType k) {
  size_t index = static_cast<size_t>(k);
  if (index < kBuiltinKernels)
    return builtinKernels()[index];
  AddedKernels &a = added();
  std::lock_guard<std::mutex> lock(a.mutex);
  index -= kBuiltinKernels;
  if (index >= a.infos.size()) {
    static const KernelTypeInfo unknown = [] {
      KernelTypeInfo i;
      i.name = "?";
      return i;
    }();
    return unknown;
  }
  return a.infos[index];
}

std::vector<KernelType> sptune::allKernelTypes() {
  std::vector<KernelType> out = {KernelType::SpMM,       KernelType::SDDMM,
                                 KernelType::SpMV,       KernelType::Hadamard,
                                 KernelType::SpGEMM,     KernelType::MTTKRP,
                                 KernelType::BatchedSpMM};
  AddedKernels &a = added();
  std::lock_guard<std::mutex> lock(a.mutex);
  for (size_t n = 0; n < a.infos.size(); ++n)
    out.push_back(static_cast<KernelType>(kBuiltinKernels + n));
  return out;
}

bool sptune::isBuiltinKernelType(KernelType k) {
  return static_cast<size_t>(k) < kBuiltinKernels;
}

bool sptune::keepsOperandStorage(KernelType k) {
  return k == KernelType::SpGEMM || k == KernelType::MTTKRP ||
         k == KernelType::BatchedSpMM;
}

bool sptune::isMeasuredOnTensor(KernelType k) {
  return k == KernelType::MTTKRP || k == KernelType::BatchedSpMM;
}

const char *sptune::toString(KernelType k) {
  return kernelTypeInfo(k).name.c_str();
}

std::optional<KernelType> sptune::parseKernelType(std::string_view s) {
  for (KernelType k : allKernelTypes())
    if (s == kernelTypeInfo(k).name)
      return k;
  return std::nullopt;
}

llvm::Expected<KernelType> sptune::addKernelType(std::string_view name,
                                                 KernelDescriptor pattern) {
  llvm::Expected<KernelTypeInfo> info = infoFromPattern(name, pattern);
  if (!info)
    return info.takeError();
  if (std::optional<KernelType> known = parseKernelType(name)) {
    const KernelTypeInfo &existing = kernelTypeInfo(*known);
    if (existing.pattern && sameDescriptor(*existing.pattern, *info->pattern))
      return *known;
    return makeError("kernel type '" + std::string(name) +
                     "' is already registered with another form");
  }
  for (KernelType k : allKernelTypes()) {
    const KernelTypeInfo &other = kernelTypeInfo(k);
    if (other.pattern && unify(*info->pattern, *other.pattern))
      return makeError("kernel type '" + std::string(name) +
                       "' has the form of '" + other.name + "'");
  }
  AddedKernels &a = added();
  std::lock_guard<std::mutex> lock(a.mutex);
  if (kBuiltinKernels + a.infos.size() > 255)
    return makeError("too many kernel types");
  a.infos.push_back(std::move(*info));
  return static_cast<KernelType>(kBuiltinKernels + a.infos.size() - 1);
}

std::optional<KernelTypeMatch>
sptune::matchKernelTypeByForm(const KernelDescriptor &d) {
  for (KernelType k : allKernelTypes()) {
    const KernelTypeInfo &info = kernelTypeInfo(k);
    if (!info.pattern)
      continue;
    std::optional<std::vector<unsigned>> map = unify(d, *info.pattern);
    if (!map)
      continue;
    KernelTypeMatch m{k, {}};
    for (unsigned l : *map)
      m.loopRoles.push_back(*parseRole(info.pattern->loops[l].name));
    return m;
  }
  return std::nullopt;
}

std::optional<KernelDescriptor> sptune::sizedKernelPattern(KernelType k,
                                                           int64_t rows,
                                                           int64_t cols,
                                                           int64_t free) {
  const KernelTypeInfo &info = kernelTypeInfo(k);
  if (!info.pattern)
    return std::nullopt;
  KernelDescriptor d = *info.pattern;
  for (KernelLoop &l : d.loops) {
    Role r = *parseRole(l.name);
    l.size = r == info.row ? rows : r == info.col ? cols : free;
  }
  return d;
}

ProductShape sptune::productShape(KernelType k) {
  const KernelTypeInfo &info = kernelTypeInfo(k);
  using Roles = std::vector<Role>;
  // The dense operands, inputs then the output, by the roles of their
  // dimensions. A built-in type's are its properties (rank 2 only: SpMV's
  // vectors follow from its loops). A form's are read off the form, rank-1
  // operands included; it has a shape only when it multiplies one sparse and
  // one dense input (3 operands with the output), and never the sampled one
  // (a form's output is dense, an SDDMM's is the sparse operand's entries).
  std::vector<Roles> dense;
  if (info.pattern) {
    if (info.pattern->operands.size() != 3)
      return ProductShape::Other;
    for (const KernelOperand &o : info.pattern->operands) {
      if (o.sparse())
        continue;
      Roles roles;
      for (unsigned d : o.dims)
        roles.push_back(*parseRole(info.pattern->loops[d].name));
      dense.push_back(std::move(roles));
    }
  } else {
    for (const DenseOperandInfo &d : info.denseOperands)
      dense.push_back({d.outer, d.inner});
  }
  const Role i = Role::I, j = Role::J, kk = Role::K;
  if (info.row != i)
    return ProductShape::Other;
  if (!info.reduction)
    return !info.free && info.col == j &&
                   dense == std::vector<Roles>{{i, j}, {i, j}}
               ? ProductShape::Elementwise
               : ProductShape::Other;
  if (*info.reduction != kk)
    return ProductShape::Other;
  if (info.col == kk && info.free == j &&
      dense == std::vector<Roles>{{kk, j}, {i, j}})
    return ProductShape::MatrixMatrix;
  if (!info.pattern && info.col == j && info.free == kk &&
      dense == std::vector<Roles>{{i, kk}, {kk, j}})
    return ProductShape::SampledMatrixMatrix;
  std::vector<Roles> vectors =
      info.pattern ? std::vector<Roles>{{kk}, {i}} : std::vector<Roles>{};
  if (info.col == kk && !info.free && dense == vectors)
    return ProductShape::MatrixVector;
  return ProductShape::Other;
}

bool sptune::hasMatrixProductShape(KernelType k) {
  ProductShape shape = productShape(k);
  return shape == ProductShape::MatrixMatrix ||
         shape == ProductShape::SampledMatrixMatrix ||
         shape == ProductShape::MatrixVector;
}
