//===- Schedule.cpp - The sparse format + loop schedule value -------------===//

#include "sptune/Schedule/Schedule.h"

#include <algorithm>
#include <deque>
#include <functional>
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
  case Role::L:
    return "l";
  case Role::B:
    return "b";
  }
  return "?";
}

std::optional<Role> sptune::parseRole(std::string_view s) {
  for (Role r : {Role::I, Role::J, Role::K, Role::L, Role::B})
    if (s == toString(r))
      return r;
  return std::nullopt;
}

std::string DimPart::str() const {
  std::string s = toString(role);
  if (part == Part::Outer)
    s += '1';
  else if (part == Part::Inner)
    s += '0';
  return s;
}

std::optional<DimPart> DimPart::parse(std::string_view s) {
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

/// The knob block of `s` as the values layer compares it: null when it is
/// another target's (a schedule whose target was reassigned).
static const KnobValues *effectiveKnobs(const Schedule &s) {
  const KnobValues *k = s.knobBlock.get();
  if (k)
    if (const TargetKnobs *t = lookupTargetKnobs(s.target))
      if (k->typeId() != t->valuesTypeId())
        return nullptr;
  return k;
}

/// Knob blocks compare by value; a missing block is all defaults.
static bool sameKnobs(const Schedule &a, const Schedule &b) {
  const KnobValues *ka = effectiveKnobs(a), *kb = effectiveKnobs(b);
  if (!ka || !kb)
    return (!ka || ka->isDefault()) && (!kb || kb->isDefault());
  return ka->equals(*kb);
}

bool Schedule::operator==(const Schedule &o) const {
  return target == o.target && kernel == o.kernel && splitRow == o.splitRow &&
         splitCol == o.splitCol && levels == o.levels &&
         loopOrder == o.loopOrder && posWidth == o.posWidth &&
         crdWidth == o.crdWidth && tile == o.tile &&
         denseTransposed == o.denseTransposed && sameKnobs(*this, o);
}

size_t Schedule::hash() const { return std::hash<std::string>()(str()); }

std::string Schedule::str() const {
  const TargetKnobs *knobs = lookupTargetKnobs(target);
  bool storage = !knobs || knobs->hasStorageLevels();
  std::ostringstream os;
  os << toString(target) << " " << toString(kernel);
  if (storage) {
    os << ", levels = [";
    for (size_t n = 0; n < levels.size(); ++n)
      os << (n ? ", " : "") << levels[n].dim.str() << " : "
         << toString(levels[n].format);
    os << "]";
  }
  os << ", split = [" << splitRow << ", " << splitCol << "]";
  if (storage) {
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
  std::string out = os.str();
  if (knobs)
    knobs->print(*this, out);
  return out;
}

Schedule sptune::canonicalize(const Schedule &input) {
  Schedule s = input;
  const TargetKnobs *knobs = lookupTargetKnobs(s.target);
  if (!knobs || !knobs->hasDenseLayouts())
    s.denseTransposed = 0;
  // Another target's block (the target was reassigned) or all defaults:
  // no block, so that equal schedules also share the cheapest form.
  if (s.knobBlock && knobs && s.knobBlock->typeId() != knobs->valuesTypeId())
    s.knobBlock.reset();
  if (knobs)
    knobs->canonicalize(s);
  if (s.knobBlock && s.knobBlock->isDefault())
    s.knobBlock.reset();
  return s;
}
