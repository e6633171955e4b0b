//===- Json.h - JSON parsing with a nesting limit ---------------*- C++ -*-===//
//
// Part of sptune. llvm::json::parse recurses once per nested array or
// object, so a line of 100,000 '[' overflows the stack: a dead worker, a
// dead collector reading its dataset, a dead compiler reading its tuning
// database. sptune reads JSON it did not write (worker requests, datasets,
// tuning databases, model files) through `parseJson`, which refuses input
// nested deeper than a bound before LLVM's parser sees it.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SUPPORT_JSON_H
#define SPTUNE_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace sptune {

/// Deeper than any JSON sptune writes (records nest 3 or 4 levels), far
/// shallower than what overflows a thread's stack.
constexpr unsigned kMaxJsonDepth = 256;

/// Whether `text` opens more than `maxDepth` arrays or objects inside each
/// other (brackets inside strings do not count).
inline bool jsonNestsDeeperThan(llvm::StringRef text, unsigned maxDepth) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0, n = text.size(); i < n; ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

/// llvm::json::parse, refusing input nested deeper than `maxDepth`.
inline llvm::Expected<llvm::json::Value>
parseJson(llvm::StringRef text, unsigned maxDepth = kMaxJsonDepth) {
  if (jsonNestsDeeperThan(text, maxDepth))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "JSON nested more than %u levels deep",
                                   maxDepth);
  return llvm::json::parse(text);
}

} // namespace sptune

#endif // SPTUNE_SUPPORT_JSON_H
