//===- ScheduleGrammar.cpp - Parsing the printed form of a schedule -------===//

#include "sptune/Schedule/ScheduleGrammar.h"
#include "sptune/Support/Error.h"

#include <algorithm>
#include <cctype>

using namespace sptune;

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

bool sptune::parseBool(ScheduleTokenSource &t, bool &out) {
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

bool sptune::parseList(ScheduleTokenSource &t,
                       const std::function<bool()> &parseElem) {
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
  auto parsed = DimPart::parse(kw);
  if (!parsed) {
    t.emitError("expected a loop name such as 'i', 'i1' or 'k0', got '" + kw +
                "'");
    return false;
  }
  d = *parsed;
  return true;
}

/// `[a, b]`: exactly two integers that fit `T`, else `usage` (both values
/// are assigned only when the pair parses).
template <typename T>
static bool parsePair(ScheduleTokenSource &t, T &first, T &second,
                      const char *usage) {
  std::vector<T> v;
  bool ok = parseList(t, [&] {
    T x;
    if (!parseInt(t, x))
      return false;
    v.push_back(x);
    return true;
  });
  if (ok && v.size() != 2) {
    t.emitError(usage);
    ok = false;
  }
  if (ok) {
    first = v[0];
    second = v[1];
  }
  return ok;
}

/// "cpu, nvvm or ...": the targets this program can parse schedules of.
static std::string knownTargets() {
  std::vector<TargetKind> targets = targetsWithKnobs();
  std::string out;
  for (size_t n = 0; n < targets.size(); ++n)
    out += std::string(n == 0 ? "" : n + 1 == targets.size() ? " or " : ", ") +
           toString(targets[n]);
  return out.empty() ? "none registered" : out;
}

std::optional<Schedule> sptune::parseScheduleBody(ScheduleTokenSource &t) {
  std::string kw;
  if (!t.parseKeyword(kw))
    return std::nullopt;
  std::optional<TargetKind> target = parseTargetKind(kw);
  const TargetKnobs *knobs = target ? lookupTargetKnobs(*target) : nullptr;
  if (!knobs) {
    t.emitError("unknown target '" + kw + "' (expected " + knownTargets() +
                ")");
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
  bool storage = knobs->hasStorageLevels();

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
    bool ok = true;
    if (key == "levels" && storage) {
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
      ok = parsePair(t, s.splitRow, s.splitCol,
                     "split takes two sizes: [rows, cols]");
    } else if (key == "order" && storage) {
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
    } else if (key == "widths" && storage) {
      ok = parsePair(t, s.posWidth, s.crdWidth,
                     "widths takes two bit widths: [positions, coordinates]");
    } else if (key == "tile") {
      ok = parseInt(t, s.tile);
    } else if (key == "layout" && knobs->hasDenseLayouts()) {
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
    } else if (KnobParseResult r = knobs->parseKnob(key, t, s);
               r != KnobParseResult::NotAKnob) {
      ok = r == KnobParseResult::Parsed;
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

llvm::Expected<Schedule> sptune::parseSchedule(std::string_view text) {
  StringTokenSource tokens(text);
  std::optional<Schedule> s = parseScheduleBody(tokens);
  if (s && !tokens.atEnd()) {
    tokens.emitError("unexpected trailing text");
    s.reset();
  }
  if (!s)
    return makeError(tokens.error);
  return std::move(*s);
}
