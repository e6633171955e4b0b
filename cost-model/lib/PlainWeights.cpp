//===- PlainWeights.cpp - A model's weights as plain arrays ---------------===//

#include "sptune/CostModel/PlainWeights.h"

#include "sptune/Support/Error.h"

#include "llvm/Support/Endian.h"

#include <cassert>
#include <cmath>
#include <cstring>

using namespace sptune;

static constexpr const char kMagic[] = "sptune-plain-weights\n";
static constexpr size_t kMagicSize = sizeof(kMagic) - 1;
/// Bounds that no network of this project comes near; they keep a corrupt
/// count from allocating without limit.
static constexpr uint32_t kMaxArrays = 4096;
static constexpr uint32_t kMaxRank = 8;
static constexpr uint32_t kMaxNameSize = 1024;

namespace {

template <typename T> void put(std::string &out, T value) {
  char bytes[sizeof(T)];
  llvm::support::endian::write<T, llvm::endianness::little>(bytes, value);
  out.append(bytes, sizeof(T));
}

/// Reads little-endian values from a byte string, failing past its end.
class Reader {
public:
  explicit Reader(const std::string &bytes) : bytes(bytes) {}

  template <typename T> bool get(T &value) {
    if (bytes.size() - pos < sizeof(T))
      return false;
    value = llvm::support::endian::read<T, llvm::endianness::little>(
        bytes.data() + pos);
    pos += sizeof(T);
    return true;
  }
  bool get(std::string &text, size_t size) {
    if (bytes.size() - pos < size)
      return false;
    text.assign(bytes.data() + pos, size);
    pos += size;
    return true;
  }
  size_t left() const { return bytes.size() - pos; }

private:
  const std::string &bytes;
  size_t pos = 0;
};

} // namespace

std::string sptune::encodePlainWeights(const PlainArrays &arrays) {
  std::string out(kMagic, kMagicSize);
  put<uint32_t>(out, kPlainWeightsVersion);
  put<uint32_t>(out, static_cast<uint32_t>(arrays.size()));
  for (const auto &[name, array] : arrays) {
    int64_t count = 1;
    for (int64_t d : array.shape)
      count *= d;
    assert(count == static_cast<int64_t>(array.values.size()) &&
           "plain array of another size than its shape");
    (void)count;
    put<uint32_t>(out, static_cast<uint32_t>(name.size()));
    out += name;
    put<uint32_t>(out, static_cast<uint32_t>(array.shape.size()));
    for (int64_t d : array.shape)
      put<int64_t>(out, d);
    for (float v : array.values) {
      uint32_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      put<uint32_t>(out, bits);
    }
  }
  return out;
}

llvm::Expected<PlainArrays>
sptune::decodePlainWeights(const std::string &bytes) {
  auto bad = [](const llvm::Twine &why) {
    return makeError("plain weights: " + why);
  };
  if (bytes.compare(0, kMagicSize, kMagic) != 0)
    return bad("not a plain weights section");
  std::string skip;
  Reader in(bytes);
  uint32_t version = 0, count = 0;
  if (!in.get(skip, kMagicSize) || !in.get(version) || !in.get(count))
    return bad("truncated header");
  if (version != kPlainWeightsVersion)
    return bad("layout version " + llvm::Twine(version) +
               ", this build reads " + llvm::Twine(kPlainWeightsVersion));
  if (count > kMaxArrays)
    return bad("implausible array count " + llvm::Twine(count));
  PlainArrays arrays;
  for (uint32_t n = 0; n < count; ++n) {
    uint32_t nameSize = 0, rank = 0;
    std::string name;
    if (!in.get(nameSize) || nameSize > kMaxNameSize ||
        !in.get(name, nameSize) || !in.get(rank) || rank > kMaxRank)
      return bad("array #" + llvm::Twine(n) +
                 " has a truncated or "
                 "implausible header");
    PlainArray array;
    uint64_t values = 1;
    for (uint32_t d = 0; d < rank; ++d) {
      int64_t dim = 0;
      if (!in.get(dim) || dim < 0)
        return bad("array '" + name + "' has a bad shape");
      array.shape.push_back(dim);
      values *= static_cast<uint64_t>(dim);
      if (values > in.left() / sizeof(float))
        return bad("array '" + name + "' is larger than the section");
    }
    array.values.resize(values);
    for (float &v : array.values) {
      uint32_t bits = 0;
      if (!in.get(bits))
        return bad("array '" + name + "' is truncated");
      std::memcpy(&v, &bits, sizeof v);
      if (!std::isfinite(v))
        return bad("array '" + name + "' has a non-finite value");
    }
    if (!arrays.emplace(name, std::move(array)).second)
      return bad("array '" + name + "' appears twice");
  }
  if (in.left() != 0)
    return bad(llvm::Twine(in.left()) + " bytes after the last array");
  return std::move(arrays);
}
