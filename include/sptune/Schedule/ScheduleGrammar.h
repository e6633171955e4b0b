//===- ScheduleGrammar.h - Tokens of schedules ------------------*- C++ -*-===//
//
// Part of sptune. The printed form of a schedule is parsed in two places, by
// the plain text parser (`parseSchedule`) and by the `#sptune.schedule`
// attribute (mlir::AsmParser), from one grammar: both feed tokens through
// `ScheduleTokenSource`. A target's knob parser (TargetKnobs::parseKnob)
// reads its values with the helpers below, so every knob block has the same
// lexical conventions and error messages.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SCHEDULE_SCHEDULEGRAMMAR_H
#define SPTUNE_SCHEDULE_SCHEDULEGRAMMAR_H

#include "sptune/Schedule/Schedule.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>

namespace sptune {

/// The tokens the schedule grammar needs. Implementations: a plain lexer over
/// a string (parseSchedule) and mlir::AsmParser (#sptune.schedule).
class ScheduleTokenSource {
public:
  virtual ~ScheduleTokenSource();
  /// Identifiers such as `cpu`, `dense`, `i1`, `k0`, `true`.
  virtual bool parseKeyword(std::string &keyword) = 0;
  virtual bool parseInteger(int64_t &value) = 0;
  /// Single punctuation: one of , = [ ] :
  virtual bool parsePunct(char c) = 0;
  virtual bool parseOptionalPunct(char c) = 0;
  /// Reports an error at the current position.
  virtual void emitError(const std::string &message) = 0;
};

/// Parses the body of a schedule (the printed form) from `tokens`.
std::optional<Schedule> parseScheduleBody(ScheduleTokenSource &tokens);

/// `true` or `false`.
bool parseBool(ScheduleTokenSource &tokens, bool &out);

/// An integer that must fit `T`: a value that would wrap (threads = 2^32 + 2
/// for an int) is an error rather than 2.
template <typename T> bool parseInt(ScheduleTokenSource &tokens, T &out) {
  int64_t v;
  if (!tokens.parseInteger(v))
    return false;
  if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
    tokens.emitError("integer " + std::to_string(v) + " is out of range");
    return false;
  }
  out = static_cast<T>(v);
  return true;
}

/// `[elem, elem, ...]`, each element read by `parseElem`.
bool parseList(ScheduleTokenSource &tokens,
               const std::function<bool()> &parseElem);

/// A keyword naming one of `values` (as printed by `toString`); `what`
/// names the kind of value in the error ("unknown <what> '<keyword>'").
template <typename EnumT, size_t N>
bool parseEnum(ScheduleTokenSource &tokens, EnumT &out,
               const EnumT (&values)[N], const char *what) {
  std::string kw;
  if (!tokens.parseKeyword(kw))
    return false;
  for (EnumT v : values)
    if (kw == toString(v)) {
      out = v;
      return true;
    }
  tokens.emitError(std::string("unknown ") + what + " '" + kw + "'");
  return false;
}

} // namespace sptune

#endif // SPTUNE_SCHEDULE_SCHEDULEGRAMMAR_H
