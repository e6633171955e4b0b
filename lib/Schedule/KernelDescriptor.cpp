//===- KernelDescriptor.cpp - A sparse kernel as data, not an enum --------===//

#include "sptune/Schedule/KernelDescriptor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace sptune;

const char *sptune::toString(KernelDescriptor::Body body) {
  switch (body) {
  case KernelDescriptor::Body::MultiplyAccumulate:
    return "multiply-accumulate";
  case KernelDescriptor::Body::SampledMultiplyAccumulate:
    return "sampled multiply-accumulate";
  case KernelDescriptor::Body::ElementwiseProduct:
    return "elementwise product";
  case KernelDescriptor::Body::Other:
    return "other";
  }
  return "?";
}

unsigned KernelDescriptor::numReductions() const {
  return static_cast<unsigned>(
      std::count_if(loops.begin(), loops.end(),
                    [](const KernelLoop &l) { return l.reduction; }));
}

unsigned KernelDescriptor::numSparseInputs() const {
  return static_cast<unsigned>(std::count_if(
      operands.begin(), operands.end(), [](const KernelOperand &o) {
        return o.kind == KernelOperand::Kind::Sparse;
      }));
}

std::string KernelDescriptor::shapeName() const {
  if (operands.empty())
    return "";
  const KernelOperand &out = operands.back();
  std::vector<const KernelOperand *> inputs;
  for (size_t n = 0; n + 1 < operands.size(); ++n)
    inputs.push_back(&operands[n]);
  unsigned sparseInputs = numSparseInputs();
  unsigned reductions = numReductions();
  auto rankOf = [](const KernelOperand *o) { return o->dims.size(); };
  bool mac = body == Body::MultiplyAccumulate ||
             body == Body::SampledMultiplyAccumulate;

  if (body == Body::ElementwiseProduct && reductions == 0 &&
      (sparseInputs > 0 || out.sparse()))
    return "sparse-elementwise";
  if (!mac || inputs.size() < 2)
    return "";
  // The sampled product of two dense matrices: the sparse pattern is the
  // output itself, or the one sparse input, indexed like the output.
  if (loops.size() == 3 && reductions == 1 && out.dims.size() == 2) {
    if (inputs.size() == 2 && sparseInputs == 0 && out.sparse())
      return "sddmm";
    if (inputs.size() == 3 && sparseInputs == 1 &&
        std::any_of(inputs.begin(), inputs.end(), [&](const KernelOperand *o) {
          return o->sparse() && o->dims == out.dims;
        }))
      return "sddmm";
  }
  if (inputs.size() != 2)
    return inputs.size() == 3 && loops.size() == 4 && reductions == 2 &&
                   sparseInputs == 1 && out.dims.size() == 2 &&
                   std::any_of(inputs.begin(), inputs.end(),
                               [&](const KernelOperand *o) {
                                 return o->sparse() && rankOf(o) == 3;
                               })
               ? "mttkrp"
               : "";
  size_t r0 = rankOf(inputs[0]), r1 = rankOf(inputs[1]);
  if (sparseInputs == 2 && loops.size() == 3 && reductions == 1 && r0 == 2 &&
      r1 == 2)
    return "spgemm";
  if (sparseInputs != 1 || reductions != 1)
    return "";
  if (loops.size() == 2 && std::min(r0, r1) == 1 && std::max(r0, r1) == 2)
    return "spmv";
  if (loops.size() == 3 && r0 == 2 && r1 == 2)
    return "spmm";
  if (loops.size() == 4 && r0 == 3 && r1 == 3 && out.dims.size() == 3)
    return "batched-spmm";
  return "";
}

static std::string sizeText(int64_t size) {
  return size < 0 ? "?" : std::to_string(size);
}

std::string KernelDescriptor::str() const {
  std::string out = "loops (";
  for (size_t n = 0; n < loops.size(); ++n)
    out += (n ? ", " : "") + loops[n].name +
           (loops[n].reduction ? " red " : " par ") + sizeText(loops[n].size);
  out += ");";
  static const char *kNames[] = {"A", "B", "C", "D", "E", "F", "G", "H"};
  for (size_t n = 0; n < operands.size(); ++n) {
    const KernelOperand &o = operands[n];
    bool last = n + 1 == operands.size();
    out += last ? " -> " : n ? ", " : " ";
    out += n < 8 ? kNames[n] : "X" + std::to_string(n);
    out += "(";
    for (size_t d = 0; d < o.dims.size(); ++d)
      out += (d ? ", " : "") +
             (o.dims[d] < loops.size() ? loops[o.dims[d]].name : "?");
    out += ")";
    if (o.sparse()) {
      out += " sparse";
    }
    out += " " + o.elementType;
    if (o.sparse()) {
      out += " [";
      for (size_t l = 0; l < o.levels.size(); ++l)
        out += (l ? ", " : "") + o.levels[l];
      out += "]";
      if (o.posWidth || o.crdWidth)
        out += " widths " + std::to_string(o.posWidth) + "/" +
               std::to_string(o.crdWidth);
    }
  }
  out += std::string("; ") + toString(body);
  if (scaled)
    out += ", scaled by an invariant";
  return out;
}

namespace {
const char *kindName(KernelOperand::Kind kind) {
  switch (kind) {
  case KernelOperand::Kind::Sparse:
    return "sparse";
  case KernelOperand::Kind::Dense:
    return "dense";
  case KernelOperand::Kind::Output:
    return "output";
  case KernelOperand::Kind::SparseOutput:
    return "sparse_output";
  }
  return "?";
}

bool isLoopName(llvm::StringRef name) {
  if (name.empty() || name.size() > 16 || !llvm::isLower(name.front()))
    return false;
  return llvm::all_of(name, [](char c) {
    return llvm::isLower(c) || llvm::isDigit(c) || c == '_';
  });
}

bool isElementType(llvm::StringRef type) {
  static const char *kTypes[] = {"f16", "bf16", "f32", "f64",
                                 "i8",  "i16",  "i32", "i64"};
  return llvm::is_contained(kTypes, type);
}

/// An MLIR level type as printed: `compressed`, `compressed(nonunique)`,
/// `loose_compressed(nonordered, nonunique)`, ...
bool isLevelName(llvm::StringRef level) {
  return !level.empty() && level.size() <= 64 &&
         llvm::all_of(level, [](char c) {
           return llvm::isLower(c) || c == '_' || c == '(' || c == ')' ||
                  c == ',' || c == ' ';
         });
}
} // namespace

llvm::json::Value sptune::toJson(const KernelDescriptor &d) {
  llvm::json::Array loops, operands;
  for (const KernelLoop &l : d.loops)
    loops.push_back(llvm::json::Object{
        {"name", l.name}, {"reduction", l.reduction}, {"size", l.size}});
  for (const KernelOperand &o : d.operands) {
    llvm::json::Array dims, levels;
    for (unsigned dim : o.dims)
      dims.push_back(static_cast<int64_t>(dim));
    for (const std::string &level : o.levels)
      levels.push_back(level);
    operands.push_back(llvm::json::Object{{"kind", kindName(o.kind)},
                                          {"type", o.elementType},
                                          {"dims", std::move(dims)},
                                          {"levels", std::move(levels)},
                                          {"pos_width", o.posWidth},
                                          {"crd_width", o.crdWidth}});
  }
  llvm::json::Object out{{"loops", std::move(loops)},
                         {"operands", std::move(operands)},
                         {"body", toString(d.body)}};
  if (d.scaled)
    out["scaled"] = true;
  return out;
}

llvm::Expected<KernelDescriptor>
sptune::descriptorFromJson(const llvm::json::Value &v) {
  auto fail = [](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "kernel descriptor: " + why);
  };
  const llvm::json::Object *o = v.getAsObject();
  if (!o)
    return fail("not a JSON object");
  const llvm::json::Array *loops = o->getArray("loops");
  const llvm::json::Array *operands = o->getArray("operands");
  std::optional<llvm::StringRef> body = o->getString("body");
  if (!loops || !operands || !body)
    return fail("needs 'loops', 'operands' and 'body'");
  if (loops->empty() || loops->size() > 16)
    return fail("needs 1 to 16 loops");
  if (operands->size() < 2 || operands->size() > 8)
    return fail("needs 2 to 8 operands");
  KernelDescriptor d;
  for (const llvm::json::Value &lv : *loops) {
    const llvm::json::Object *l = lv.getAsObject();
    std::optional<llvm::StringRef> name =
        l ? l->getString("name") : std::nullopt;
    std::optional<bool> reduction =
        l ? l->getBoolean("reduction") : std::nullopt;
    std::optional<int64_t> size = l ? l->getInteger("size") : std::nullopt;
    if (!name || !reduction || !size || !isLoopName(*name) || *size < -1)
      return fail("a loop needs a lower-case 'name', 'reduction' and a 'size' "
                  ">= -1 (-1: dynamic)");
    d.loops.push_back({name->str(), *reduction, *size});
  }
  for (size_t n = 0; n < operands->size(); ++n) {
    const llvm::json::Object *p = (*operands)[n].getAsObject();
    if (!p)
      return fail("operand #" + llvm::Twine(n) + " is not an object");
    KernelOperand op;
    std::optional<llvm::StringRef> kind = p->getString("kind");
    static const KernelOperand::Kind kKinds[] = {
        KernelOperand::Kind::Sparse, KernelOperand::Kind::Dense,
        KernelOperand::Kind::Output, KernelOperand::Kind::SparseOutput};
    const KernelOperand::Kind *k =
        kind ? llvm::find_if(
                   kKinds,
                   [&](KernelOperand::Kind x) { return *kind == kindName(x); })
             : std::end(kKinds);
    if (k == std::end(kKinds))
      return fail("operand #" + llvm::Twine(n) + " has no known 'kind'");
    op.kind = *k;
    if (op.output() != (n + 1 == operands->size()))
      return fail("the last operand, and only it, is the output");
    std::optional<llvm::StringRef> type = p->getString("type");
    if (!type || !isElementType(*type))
      return fail("operand #" + llvm::Twine(n) +
                  " needs a 'type' among f16 bf16 f32 f64 i8 i16 i32 i64");
    op.elementType = type->str();
    const llvm::json::Array *dims = p->getArray("dims");
    if (!dims || dims->size() > d.loops.size())
      return fail("operand #" + llvm::Twine(n) + " needs 'dims'");
    for (const llvm::json::Value &dv : *dims) {
      std::optional<int64_t> dim = dv.getAsInteger();
      if (!dim || *dim < 0 || *dim >= static_cast<int64_t>(d.loops.size()))
        return fail("operand #" + llvm::Twine(n) + " indexes a loop it lacks");
      op.dims.push_back(static_cast<unsigned>(*dim));
    }
    if (const llvm::json::Array *levels = p->getArray("levels"))
      for (const llvm::json::Value &lv : *levels) {
        std::optional<llvm::StringRef> level = lv.getAsString();
        if (!level || !isLevelName(*level))
          return fail("operand #" + llvm::Twine(n) + " has a bad level");
        op.levels.push_back(level->str());
      }
    std::optional<int64_t> pos = p->getInteger("pos_width");
    std::optional<int64_t> crd = p->getInteger("crd_width");
    auto width = [](std::optional<int64_t> w) {
      return !w || *w == 0 || *w == 8 || *w == 16 || *w == 32 || *w == 64;
    };
    if (!width(pos) || !width(crd))
      return fail("operand #" + llvm::Twine(n) +
                  " has a width other than 0, 8, 16, 32, 64");
    op.posWidth = static_cast<unsigned>(pos.value_or(0));
    op.crdWidth = static_cast<unsigned>(crd.value_or(0));
    d.operands.push_back(std::move(op));
  }
  static const KernelDescriptor::Body kBodies[] = {
      KernelDescriptor::Body::MultiplyAccumulate,
      KernelDescriptor::Body::SampledMultiplyAccumulate,
      KernelDescriptor::Body::ElementwiseProduct,
      KernelDescriptor::Body::Other};
  const KernelDescriptor::Body *b = llvm::find_if(
      kBodies, [&](KernelDescriptor::Body x) { return *body == toString(x); });
  if (b == std::end(kBodies))
    return fail("unknown 'body' '" + *body + "'");
  d.body = *b;
  if (const llvm::json::Value *scaled = o->get("scaled")) {
    std::optional<bool> flag = scaled->getAsBoolean();
    if (!flag)
      return fail("'scaled' must be true or false");
    d.scaled = *flag;
  }
  return d;
}
