//===- ScheduleAttr.cpp - #sptune.schedule --------------------------------===//
//
// The attribute is the printed form of sptune::Schedule. Parsing goes through
// sptune::parseScheduleBody with mlir::AsmParser as the token source, so the
// attribute and the plain-text parser accept exactly one grammar.
//
//===----------------------------------------------------------------------===//

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/Schedule/ScheduleGrammar.h"
#include "sptune/IR/SptuneDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::sptune;

namespace {
/// Feeds MLIR tokens to the schedule grammar.
class AsmParserTokenSource : public ::sptune::ScheduleTokenSource {
public:
  explicit AsmParserTokenSource(AsmParser &parser) : parser(parser) {}

  bool parseKeyword(std::string &keyword) override {
    StringRef kw;
    if (succeeded(parser.parseOptionalKeyword(&kw))) {
      keyword = kw.str();
      return true;
    }
    // MLIR lexes `i0` and `i1` (loop parts of role i) as integer types.
    Type type;
    OptionalParseResult typeResult = parser.parseOptionalType(type);
    if (typeResult.has_value() && succeeded(*typeResult)) {
      if (auto intType = dyn_cast<IntegerType>(type);
          intType && intType.isSignless()) {
        keyword = "i" + std::to_string(intType.getWidth());
        return true;
      }
    }
    emitError("expected a keyword");
    return false;
  }
  bool parseInteger(int64_t &value) override {
    return succeeded(parser.parseInteger(value));
  }
  bool parsePunct(char c) override {
    switch (c) {
    case ',':
      return succeeded(parser.parseComma());
    case '=':
      return succeeded(parser.parseEqual());
    case '[':
      return succeeded(parser.parseLSquare());
    case ']':
      return succeeded(parser.parseRSquare());
    case ':':
      return succeeded(parser.parseColon());
    }
    return false;
  }
  bool parseOptionalPunct(char c) override {
    switch (c) {
    case ',':
      return succeeded(parser.parseOptionalComma());
    case '=':
      return succeeded(parser.parseOptionalEqual());
    case '[':
      return succeeded(parser.parseOptionalLSquare());
    case ']':
      return succeeded(parser.parseOptionalRSquare());
    case ':':
      return succeeded(parser.parseOptionalColon());
    }
    return false;
  }
  void emitError(const std::string &message) override {
    if (!reported)
      parser.emitError(parser.getCurrentLocation(), message);
    reported = true;
  }

private:
  AsmParser &parser;
  bool reported = false;
};
} // namespace

Attribute ScheduleAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  AsmParserTokenSource tokens(parser);
  std::optional<::sptune::Schedule> schedule =
      ::sptune::parseScheduleBody(tokens);
  if (!schedule || parser.parseGreater())
    return {};
  return parser.getChecked<ScheduleAttr>(parser.getContext(), *schedule);
}

void ScheduleAttr::print(AsmPrinter &printer) const {
  printer << "<" << getSchedule().str() << ">";
}

LogicalResult
ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     ::sptune::Schedule schedule) {
  std::string why = ::sptune::whyIllegal(schedule);
  if (!why.empty())
    return emitError() << "illegal schedule: " << why;
  return success();
}
