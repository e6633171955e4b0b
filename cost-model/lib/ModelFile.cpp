//===- ModelFile.cpp - The container format of model files ----------------===//

#include "sptune/CostModel/ModelFile.h"
#include "sptune/CostModel/FeatureSpec.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/Files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace sptune;

static constexpr char kMagic[8] = {'S', 'P', 'T', 'U', 'N', 'E', 'C', 'M'};
/// magic, version, spec hash, payload length, checksum.
static constexpr size_t kHeaderSize = 8 + 4 + 8 + 8 + 8;

static void putU32(std::string &out, uint32_t v) {
  for (int b = 0; b < 4; ++b)
    out.push_back(static_cast<char>((v >> (8 * b)) & 0xff));
}
static void putU64(std::string &out, uint64_t v) {
  for (int b = 0; b < 8; ++b)
    out.push_back(static_cast<char>((v >> (8 * b)) & 0xff));
}

namespace {
/// Bounds-checked little-endian reader.
struct Cursor {
  std::string_view data;
  size_t pos = 0;
  bool u32(uint32_t &v) {
    if (data.size() - pos < 4)
      return false;
    v = 0;
    for (int b = 0; b < 4; ++b)
      v |= static_cast<uint32_t>(static_cast<unsigned char>(data[pos + b]))
           << (8 * b);
    pos += 4;
    return true;
  }
  bool u64(uint64_t &v) {
    if (data.size() - pos < 8)
      return false;
    v = 0;
    for (int b = 0; b < 8; ++b)
      v |= static_cast<uint64_t>(static_cast<unsigned char>(data[pos + b]))
           << (8 * b);
    pos += 8;
    return true;
  }
  bool bytes(uint64_t n, std::string &out) {
    if (data.size() - pos < n)
      return false;
    out.assign(data.substr(pos, n));
    pos += n;
    return true;
  }
};
} // namespace

static std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016llx",
                static_cast<unsigned long long>(v));
  return buf;
}

std::string sptune::encodeModelFile(std::string_view kind, uint64_t specHash,
                                    const ModelFileSections &sections) {
  std::string payload;
  putU32(payload, static_cast<uint32_t>(kind.size()));
  payload.append(kind);
  putU32(payload, static_cast<uint32_t>(sections.size()));
  for (const auto &[name, bytes] : sections) {
    putU32(payload, static_cast<uint32_t>(name.size()));
    payload.append(name);
    putU64(payload, bytes.size());
    payload.append(bytes);
  }
  std::string checked;
  putU32(checked, kModelFormatVersion);
  putU64(checked, specHash);
  uint64_t checksum = fnv1a64(payload, fnv1a64(checked));

  std::string out(kMagic, sizeof(kMagic));
  out += checked;
  putU64(out, payload.size());
  putU64(out, checksum);
  out += payload;
  return out;
}

bool sptune::hasModelFileMagic(std::string_view bytes) {
  return bytes.size() >= sizeof(kMagic) &&
         std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) == 0;
}

llvm::Expected<ModelFileContents>
sptune::decodeModelFile(std::string_view bytes, std::string_view expectedKind,
                        const std::string &what) {
  if (bytes.size() < sizeof(kMagic) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return makeError("'" + what +
                     "' is not a sptune cost model file (bad magic)");
  Cursor c{bytes, sizeof(kMagic)};
  uint32_t version = 0;
  uint64_t specHash = 0, length = 0, checksum = 0;
  if (!c.u32(version))
    return makeError("'" + what + "' is truncated (incomplete header)");
  if (version != kModelFormatVersion)
    return makeError("'" + what + "' has model format version " +
                     std::to_string(version) +
                     "; this build of sptune reads version " +
                     std::to_string(kModelFormatVersion) +
                     " (retrain the model with this build's sptune-train)");
  if (!c.u64(specHash) || !c.u64(length) || !c.u64(checksum))
    return makeError("'" + what + "' is truncated (incomplete header)");
  if (bytes.size() - kHeaderSize != length)
    return makeError(
        "'" + what + "' is " +
        (bytes.size() - kHeaderSize < length ? "truncated" : "corrupt") +
        ": the header announces " + std::to_string(length) +
        " bytes of payload, the file has " +
        std::to_string(bytes.size() - kHeaderSize));
  std::string_view payload = bytes.substr(kHeaderSize);
  std::string_view checked = bytes.substr(sizeof(kMagic), 12);
  if (fnv1a64(payload, fnv1a64(checked)) != checksum)
    return makeError("'" + what + "' is corrupt (checksum mismatch)");
  Cursor p{payload, 0};
  uint32_t kindLen = 0, count = 0;
  std::string kind;
  if (!p.u32(kindLen) || !p.bytes(kindLen, kind) || !p.u32(count))
    return makeError("'" + what + "' is corrupt (bad payload)");
  if (kind != expectedKind)
    return makeError("'" + what + "' is a " + kind + " file, expected a " +
                     std::string(expectedKind) + " file");
  ModelFileContents contents;
  contents.featureSpecHash = specHash;
  for (uint32_t n = 0; n < count; ++n) {
    uint32_t nameLen = 0;
    uint64_t size = 0;
    std::string name, body;
    if (!p.u32(nameLen) || !p.bytes(nameLen, name) || !p.u64(size) ||
        !p.bytes(size, body))
      return makeError("'" + what + "' is corrupt (bad section table)");
    contents.sections[name] = std::move(body);
  }
  return std::move(contents);
}

llvm::Error sptune::checkFeatureSpec(uint64_t fileHash, uint64_t expected,
                                     const std::string &what) {
  if (fileHash == expected)
    return llvm::Error::success();
  return makeError("'" + what +
                   "' was trained on a different feature specification "
                   "(file " +
                   hex(fileHash) + ", this build " + hex(expected) +
                   "); retrain it with this build's sptune-train");
}

llvm::Expected<std::string> sptune::readFileBytes(const std::string &path) {
  if (std::string why = whyNotAFile(path); !why.empty())
    return makeError("cannot read the model: " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return makeError("cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    return makeError("cannot read '" + path + "'");
  return ss.str();
}
