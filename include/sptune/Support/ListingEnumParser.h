//===- ListingEnumParser.h - Enum options that list values ------*- C++ -*-===//
//
// Part of sptune. llvm::cl's enum parser answers a bad value with "Cannot
// find option named 'x'!"; sptune's enum options (pass options included)
// answer "unknown value 'x' (expected a, b or c)". The parser is
// llvm::cl::parser<T>'s own table, with only the error changed; it stays a
// generic_parser_base so that MLIR prints pass pipelines with it as before.
//
// Use: SPTUNE_LISTING_ENUM_PARSER(::ns::Enum) at global scope, before the
// first option of that type.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SUPPORT_LISTINGENUMPARSER_H
#define SPTUNE_SUPPORT_LISTINGENUMPARSER_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"

#include <string>

namespace sptune {

template <class DataType>
class ListingEnumParser : public llvm::cl::generic_parser_base {
protected:
  class OptionInfo : public GenericOptionInfo {
  public:
    OptionInfo(llvm::StringRef name, DataType v, llvm::StringRef helpStr)
        : GenericOptionInfo(name, helpStr), V(v) {}
    llvm::cl::OptionValue<DataType> V;
  };
  llvm::SmallVector<OptionInfo, 8> Values;

public:
  ListingEnumParser(llvm::cl::Option &o) : generic_parser_base(o) {}
  using parser_data_type = DataType;

  unsigned getNumOptions() const override { return unsigned(Values.size()); }
  llvm::StringRef getOption(unsigned n) const override {
    return Values[n].Name;
  }
  llvm::StringRef getDescription(unsigned n) const override {
    return Values[n].HelpStr;
  }
  const llvm::cl::GenericOptionValue &getOptionValue(unsigned n) const override {
    return Values[n].V;
  }

  /// "a, b or c".
  std::string allowedValues() const {
    std::string out;
    for (size_t n = 0; n < Values.size(); ++n) {
      if (n > 0)
        out += n + 1 == Values.size() ? " or " : ", ";
      out += Values[n].Name.str();
    }
    return out;
  }

  /// Returns true on error.
  bool parse(llvm::cl::Option &o, llvm::StringRef argName, llvm::StringRef arg,
             DataType &v) {
    llvm::StringRef value = Owner.hasArgStr() ? arg : argName;
    for (const OptionInfo &info : Values)
      if (info.Name == value) {
        v = info.V.getValue();
        return false;
      }
    return o.error("unknown value '" + value + "' (expected " +
                   allowedValues() + ")");
  }

  template <class DT>
  void addLiteralOption(llvm::StringRef name, const DT &v,
                        llvm::StringRef helpStr) {
    Values.push_back(OptionInfo(name, static_cast<DataType>(v), helpStr));
    AddLiteralOption(Owner, name);
  }

  void removeLiteralOption(llvm::StringRef name) {
    Values.erase(Values.begin() + findOption(name));
  }
};

} // namespace sptune

/// Makes llvm::cl (and MLIR pass options) parse `T` with ListingEnumParser.
#define SPTUNE_LISTING_ENUM_PARSER(T)                                          \
  namespace llvm {                                                             \
  namespace cl {                                                               \
  template <>                                                                  \
  class parser<T> : public ::sptune::ListingEnumParser<T> {                    \
  public:                                                                      \
    using ::sptune::ListingEnumParser<T>::ListingEnumParser;                   \
  };                                                                           \
  }                                                                            \
  }

#endif // SPTUNE_SUPPORT_LISTINGENUMPARSER_H
