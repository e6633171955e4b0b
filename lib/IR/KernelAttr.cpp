//===- KernelAttr.cpp - #sptune.kernel ------------------------------------===//
//
// Parsing, printing and verification of #sptune.kernel.
//
//===----------------------------------------------------------------------===//

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Schedule/KernelTypes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::sptune;

//===----------------------------------------------------------------------===//
// Parsing and printing
//===----------------------------------------------------------------------===//

/// Parses a bare enum keyword with the tablegen'd `symbolize` function.
template <typename EnumT>
static ParseResult parseEnumKeyword(AsmParser &parser, EnumT &result,
                                    std::optional<EnumT> (*symbolize)(StringRef),
                                    StringRef what) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<EnumT> value = symbolize(keyword);
  if (!value)
    return parser.emitError(loc) << "unknown " << what << " '" << keyword << "'";
  result = *value;
  return success();
}

static ParseResult parseRole(AsmParser &parser, LoopRole &role) {
  return parseEnumKeyword<LoopRole>(parser, role, symbolizeLoopRole,
                                    "loop role");
}

Attribute KernelAttr::parse(AsmParser &parser, Type) {
  // Initialized only to keep -Wmaybe-uninitialized quiet; parsing sets them.
  KernelKind kind = KernelKind::SpMM;
  SmallVector<LoopRole> loopRoles, operandDims;
  SmallVector<int64_t> loopSizes, operandRanks;
  SmallVector<OperandKind> operandKinds;
  Type elementType;
  sparse_tensor::SparseTensorEncodingAttr encoding;

  if (parser.parseLess() ||
      parseEnumKeyword<KernelKind>(parser, kind, symbolizeKernelKind,
                                   "kernel kind") ||
      parser.parseComma() || parser.parseKeyword("loops") ||
      parser.parseEqual())
    return {};
  auto parseLoop = [&]() -> ParseResult {
    LoopRole role = LoopRole::I;
    if (parseRole(parser, role) || parser.parseColon())
      return failure();
    int64_t size = ShapedType::kDynamic;
    if (parser.parseOptionalQuestion() && parser.parseInteger(size))
      return failure();
    loopRoles.push_back(role);
    loopSizes.push_back(size);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseLoop))
    return {};

  if (parser.parseComma() || parser.parseKeyword("operands") ||
      parser.parseEqual())
    return {};
  auto parseOperand = [&]() -> ParseResult {
    OperandKind operandKind = OperandKind::Sparse;
    if (parseEnumKeyword<OperandKind>(parser, operandKind, symbolizeOperandKind,
                                      "operand kind"))
      return failure();
    int64_t rank = 0;
    auto parseDim = [&]() -> ParseResult {
      LoopRole role = LoopRole::I;
      if (parseRole(parser, role))
        return failure();
      operandDims.push_back(role);
      ++rank;
      return success();
    };
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren, parseDim))
      return failure();
    operandKinds.push_back(operandKind);
    operandRanks.push_back(rank);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     parseOperand))
    return {};

  SMLoc encLoc;
  Attribute encAttr;
  if (parser.parseComma() || parser.parseKeyword("type") ||
      parser.parseEqual() || parser.parseType(elementType) ||
      parser.parseComma() || parser.parseKeyword("encoding") ||
      parser.parseEqual() || (encLoc = parser.getCurrentLocation(), false) ||
      parser.parseAttribute(encAttr) || parser.parseGreater())
    return {};
  encoding = dyn_cast<sparse_tensor::SparseTensorEncodingAttr>(encAttr);
  if (!encoding) {
    parser.emitError(encLoc, "expected a #sparse_tensor.encoding");
    return {};
  }
  // ArrayRefs, so that the generated (out-of-line) getChecked is chosen.
  return parser.getChecked<KernelAttr>(
      parser.getContext(), kind, ArrayRef<LoopRole>(loopRoles),
      ArrayRef<int64_t>(loopSizes), ArrayRef<OperandKind>(operandKinds),
      ArrayRef<LoopRole>(operandDims), ArrayRef<int64_t>(operandRanks),
      elementType, encoding);
}

void KernelAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyKernelKind(getKind()) << ", loops = [";
  llvm::interleaveComma(llvm::seq<size_t>(0, getLoopRoles().size()), printer,
                        [&](size_t l) {
                          printer << stringifyLoopRole(getLoopRoles()[l])
                                  << " : ";
                          if (ShapedType::isDynamic(getLoopSizes()[l]))
                            printer << "?";
                          else
                            printer << getLoopSizes()[l];
                        });
  printer << "], operands = [";
  llvm::interleaveComma(llvm::seq<unsigned>(0, getNumOperands()), printer,
                        [&](unsigned o) {
                          printer << stringifyOperandKind(getOperandKinds()[o])
                                  << "(";
                          llvm::interleaveComma(
                              getOperandRoles(o), printer, [&](LoopRole r) {
                                printer << stringifyLoopRole(r);
                              });
                          printer << ")";
                        });
  printer << "], type = " << getElementType() << ", encoding = ";
  printer.printAttribute(getEncoding());
  printer << ">";
}

//===----------------------------------------------------------------------===//
// Accessors
//===----------------------------------------------------------------------===//

SmallVector<LoopRole> KernelAttr::getOperandRoles(unsigned idx) const {
  int64_t start = 0;
  for (unsigned o = 0; o < idx; ++o)
    start += getOperandRanks()[o];
  ArrayRef<LoopRole> dims = getOperandDims();
  return SmallVector<LoopRole>(dims.slice(start, getOperandRanks()[idx]));
}

unsigned KernelAttr::getSparseOperand() const {
  ArrayRef<OperandKind> kinds = getOperandKinds();
  // Of SpGEMM's two sparse inputs, the schedule's is A(i, k) (the one that
  // indexes the row loop); either may come first in the op.
  for (unsigned o = 0; o < kinds.size(); ++o)
    if (kinds[o] == OperandKind::Sparse &&
        (getKind() != KernelKind::SpGEMM ||
         llvm::is_contained(getOperandRoles(o), LoopRole::I)))
      return o;
  // The SDDMM form whose sampling operand is its own (sparse) output.
  for (unsigned o = 0; o < kinds.size(); ++o)
    if (kinds[o] == OperandKind::SparseOut)
      return o;
  llvm_unreachable("verified kernel has a sparse operand");
}

int KernelAttr::getLoopPosition(LoopRole role) const {
  for (auto [pos, r] : llvm::enumerate(getLoopRoles()))
    if (r == role)
      return pos;
  return -1;
}

int64_t KernelAttr::getLoopSize(LoopRole role) const {
  int pos = getLoopPosition(role);
  return pos < 0 ? ShapedType::kDynamic : getLoopSizes()[pos];
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

namespace {
/// The operand signature each kernel kind must have, as role sets.
struct OperandSignature {
  OperandKind kind;
  SmallVector<LoopRole> roles; // as a set: order in the operand may differ
};
} // namespace

static std::string rolesToString(ArrayRef<LoopRole> roles) {
  std::string s = "(";
  for (auto [n, r] : llvm::enumerate(roles))
    s += (n ? ", " : "") + stringifyLoopRole(r).str();
  return s + ")";
}

static bool sameRoleSet(ArrayRef<LoopRole> a, ArrayRef<LoopRole> b) {
  if (a.size() != b.size())
    return false;
  return llvm::all_of(a, [&](LoopRole r) { return llvm::is_contained(b, r); });
}

LogicalResult
KernelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   KernelKind kind, ArrayRef<LoopRole> loopRoles,
                   ArrayRef<int64_t> loopSizes,
                   ArrayRef<OperandKind> operandKinds,
                   ArrayRef<LoopRole> operandDims,
                   ArrayRef<int64_t> operandRanks, Type elementType,
                   sparse_tensor::SparseTensorEncodingAttr encoding) {
  StringRef kindName = stringifyKernelKind(kind);
  // Loops: the roles of the kind, each once, with valid sizes.
  const ::sptune::KernelTypeInfo &info = ::sptune::kernelTypeInfo(kind);
  SmallVector<LoopRole> expectedRoles = {LoopRole::I, LoopRole::K};
  if (info.pattern) { // an added kernel type: the roles of its canonical form
    expectedRoles.clear();
    for (const ::sptune::KernelLoop &l : info.pattern->loops)
      expectedRoles.push_back(*::sptune::parseRole(l.name));
  } else if (kind != KernelKind::SpMV) {
    expectedRoles.insert(expectedRoles.begin() + 1, LoopRole::J);
  }
  if (kind == KernelKind::MTTKRP)
    expectedRoles.push_back(LoopRole::L);
  if (kind == KernelKind::BatchedSpMM)
    expectedRoles.insert(expectedRoles.begin(), LoopRole::B);
  if (loopRoles.size() != loopSizes.size())
    return emitError() << "loop roles and loop sizes differ in length";
  if (!sameRoleSet(loopRoles, expectedRoles) ||
      llvm::SmallDenseSet<LoopRole>(loopRoles.begin(), loopRoles.end())
              .size() != loopRoles.size())
    return emitError() << "'" << kindName << "' kernel needs one loop per role "
                       << rolesToString(expectedRoles) << ", got "
                       << rolesToString(loopRoles);
  for (int64_t size : loopSizes)
    if (!ShapedType::isDynamic(size) && size <= 0)
      return emitError() << "loop size must be positive or '?', got " << size;

  // Operands.
  if (operandKinds.size() != operandRanks.size())
    return emitError() << "operand kinds and ranks differ in length";
  int64_t totalRank = 0;
  for (int64_t r : operandRanks)
    totalRank += r;
  if (totalRank != static_cast<int64_t>(operandDims.size()))
    return emitError() << "operand ranks do not add up to the operand dims";
  SmallVector<SmallVector<LoopRole>> roles;
  for (int64_t r : operandRanks) {
    roles.emplace_back(operandDims.take_front(r));
    operandDims = operandDims.drop_front(r);
  }
  for (auto [o, rs] : llvm::enumerate(roles))
    for (LoopRole r : rs)
      if (!llvm::is_contained(loopRoles, r))
        return emitError() << "operand #" << o << " uses role '"
                           << stringifyLoopRole(r) << "' that has no loop";

  // The output is the last operand, and the only one.
  if (operandKinds.empty() || (operandKinds.back() != OperandKind::Out &&
                               operandKinds.back() != OperandKind::SparseOut))
    return emitError() << "the last operand must be the output";
  if (llvm::count_if(operandKinds, [](OperandKind k) {
        return k == OperandKind::Out || k == OperandKind::SparseOut;
      }) != 1)
    return emitError() << "a kernel has exactly one output";
  // An SDDMM samples through its output; an elementwise product's result
  // has its sparse input's pattern, so it may be stored like that input.
  bool elementwise =
      info.pattern &&
      info.pattern->body ==
          ::sptune::KernelDescriptor::Body::ElementwiseProduct &&
      llvm::is_contained(operandKinds, OperandKind::Sparse);
  if (operandKinds.back() == OperandKind::SparseOut &&
      kind != KernelKind::SDDMM && kind != KernelKind::SpGEMM && !elementwise)
    return emitError() << "only 'sddmm', 'spgemm' and elementwise products "
                          "may have a sparse output";
  if (kind == KernelKind::SpGEMM &&
      operandKinds.back() != OperandKind::SparseOut)
    return emitError() << "a 'spgemm' kernel's output is sparse";
  // SpGEMM is matched untransposed only (SpgemmForm.h): A(i, k), B(k, j),
  // C(i, j), each with its dimensions in this order.
  if (kind == KernelKind::SpGEMM)
    for (auto [o, rs] : llvm::enumerate(roles)) {
      auto is = [&](LoopRole a, LoopRole b) {
        return rs.size() == 2 && rs[0] == a && rs[1] == b;
      };
      if (!is(LoopRole::I, LoopRole::K) && !is(LoopRole::K, LoopRole::J) &&
          !is(LoopRole::I, LoopRole::J))
        return emitError() << "operand #" << o << " of a 'spgemm' kernel is "
                           << rolesToString(rs)
                           << ": its operands are (i, k), (k, j) and (i, j), "
                              "none transposed";
    }

  // MTTKRP is matched untransposed only (MttkrpForm.h): B(i, k, l),
  // C(k, j), D(l, j), A(i, j), each with its dimensions in this order.
  if (kind == KernelKind::MTTKRP)
    for (auto [o, rs] : llvm::enumerate(roles)) {
      using R = LoopRole;
      SmallVector<LoopRole> r(rs.begin(), rs.end());
      if (r != SmallVector<LoopRole>{R::I, R::K, R::L} &&
          r != SmallVector<LoopRole>{R::K, R::J} &&
          r != SmallVector<LoopRole>{R::L, R::J} &&
          r != SmallVector<LoopRole>{R::I, R::J})
        return emitError() << "operand #" << o << " of a 'mttkrp' kernel is "
                           << rolesToString(rs)
                           << ": its operands are (i, k, l), (k, j), (l, j) "
                              "and (i, j), none transposed";
    }

  // The batched SpMM likewise (BatchedSpmmForm.h): A(b, i, k), B(b, k, j),
  // C(b, i, j).
  if (kind == KernelKind::BatchedSpMM)
    for (auto [o, rs] : llvm::enumerate(roles)) {
      using R = LoopRole;
      SmallVector<LoopRole> r(rs.begin(), rs.end());
      if (r != SmallVector<LoopRole>{R::B, R::I, R::K} &&
          r != SmallVector<LoopRole>{R::B, R::K, R::J} &&
          r != SmallVector<LoopRole>{R::B, R::I, R::J})
        return emitError() << "operand #" << o
                           << " of a 'batched_spmm' kernel is "
                           << rolesToString(rs)
                           << ": its operands are (b, i, k), (b, k, j) and "
                              "(b, i, j), none transposed";
    }

  // Kind-specific signature, compared as multisets of (kind, role set).
  SmallVector<OperandSignature> signature;
  using K = OperandKind;
  using R = LoopRole;
  switch (kind) {
  case KernelKind::SpMM:
    signature = {{K::Sparse, {R::I, R::K}},
                 {K::Dense, {R::K, R::J}},
                 {K::Out, {R::I, R::J}}};
    break;
  case KernelKind::SpMV:
    signature = {{K::Sparse, {R::I, R::K}},
                 {K::Dense, {R::K}},
                 {K::Out, {R::I}}};
    break;
  case KernelKind::SpGEMM:
    signature = {{K::Sparse, {R::I, R::K}},
                 {K::Sparse, {R::K, R::J}},
                 {K::SparseOut, {R::I, R::J}}};
    break;
  case KernelKind::MTTKRP:
    signature = {{K::Sparse, {R::I, R::K, R::L}},
                 {K::Dense, {R::K, R::J}},
                 {K::Dense, {R::L, R::J}},
                 {K::Out, {R::I, R::J}}};
    break;
  case KernelKind::BatchedSpMM:
    signature = {{K::Sparse, {R::B, R::I, R::K}},
                 {K::Dense, {R::B, R::K, R::J}},
                 {K::Out, {R::B, R::I, R::J}}};
    break;
  case KernelKind::SDDMM:
    if (operandKinds.size() == 3) // sampling through the sparse output
      signature = {{K::Dense, {R::I, R::K}},
                   {K::Dense, {R::K, R::J}},
                   {K::SparseOut, {R::I, R::J}}};
    else
      signature = {{K::Sparse, {R::I, R::J}},
                   {K::Dense, {R::I, R::K}},
                   {K::Dense, {R::K, R::J}},
                   {operandKinds.back(), {R::I, R::J}}};
    break;
  default: // an added kernel type: the operands of its canonical form
    if (!info.pattern)
      return emitError() << "unknown kernel kind";
    for (const ::sptune::KernelOperand &o : info.pattern->operands) {
      OperandSignature sig;
      sig.kind = o.kind == ::sptune::KernelOperand::Kind::Sparse ? K::Sparse
                 : o.output() ? operandKinds.back() // Out or SparseOut
                              : K::Dense;
      for (unsigned d : o.dims)
        sig.roles.push_back(expectedRoles[d]);
      signature.push_back(std::move(sig));
    }
    break;
  }
  if (signature.size() != operandKinds.size())
    return emitError() << "'" << kindName << "' kernel expects "
                       << signature.size() << " operands, got "
                       << operandKinds.size();
  llvm::SmallBitVector used(signature.size());
  for (auto [o, k] : llvm::enumerate(operandKinds)) {
    bool found = false;
    for (auto [s, sig] : llvm::enumerate(signature)) {
      if (used[s] || sig.kind != k || !sameRoleSet(sig.roles, roles[o]))
        continue;
      used.set(s);
      found = true;
      break;
    }
    if (!found)
      return emitError() << "operand #" << o << " "
                         << stringifyOperandKind(k) << rolesToString(roles[o])
                         << " does not fit a '" << kindName << "' kernel";
  }

  if (!elementType || !isKernelElementType(elementType))
    return emitError() << "element type must be " << kernelElementTypesText()
                       << ", got " << elementType;
  if (!encoding)
    return emitError() << "missing sparse encoding";
  if (kind == KernelKind::MTTKRP || kind == KernelKind::BatchedSpMM) {
    if (encoding.getDimRank() != 3)
      return emitError() << (kind == KernelKind::MTTKRP ? "an '" : "a '")
                         << kindName
                         << "' kernel's sparse operand is a 3-D "
                            "tensor, its encoding has dimension rank "
                         << encoding.getDimRank();
  } else if (encoding.getDimRank() != 2) {
    return emitError() << "the sparse operand must be a matrix, its encoding "
                          "has dimension rank "
                       << encoding.getDimRank();
  }
  return success();
}
