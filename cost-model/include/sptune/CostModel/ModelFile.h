//===- ModelFile.h - The container format of model files --------*- C++ -*-===//
//
// Part of sptune. Model and checkpoint files are a small container around
// named byte sections (the model's JSON configuration, the LibTorch archive of
// its weights, the optimizer state of a checkpoint):
//
//   "SPTUNECM"  u32 format version  u64 feature spec hash
//   u64 payload length  u64 checksum (FNV-1a over version, hash and payload)
//   payload: u32 kind length, kind, u32 section count,
//            then per section: u32 name length, name, u64 size, bytes
//
// All integers little-endian. Reading checks, in order: magic, format
// version, length, checksum and kind, each failure with its own message, so a
// file from another version and a truncated or corrupted file are told apart
// and never decoded. The feature spec hash depends on the targets the model
// was built for, which its configuration section lists: the model's reader
// checks it (`checkFeatureSpec`) before it reads the configuration further,
// so a model trained on other features is never decoded either.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_MODELFILE_H
#define SPTUNE_COSTMODEL_MODELFILE_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace sptune {

/// Bump when the container or the meaning of a section changes.
constexpr uint32_t kModelFormatVersion = 1;

using ModelFileSections = std::map<std::string, std::string>;

/// Encodes a file of `kind` ("model", "checkpoint") with this build's format
/// version and the feature spec hash of its model.
std::string encodeModelFile(std::string_view kind, uint64_t specHash,
                            const ModelFileSections &sections);

/// A decoded file: its sections and the feature spec hash it was written
/// with.
struct ModelFileContents {
  uint64_t featureSpecHash = 0;
  ModelFileSections sections;
};

/// Whether `bytes` start as every sptune model and checkpoint file does
/// (whatever its version and feature spec).
bool hasModelFileMagic(std::string_view bytes);

/// Decodes `bytes`; the error names `what` (usually the path).
llvm::Expected<ModelFileContents> decodeModelFile(std::string_view bytes,
                                                  std::string_view expectedKind,
                                                  const std::string &what);

/// Fails, naming `what`, when a file's feature spec hash is not `expected`
/// (this build's hash for the file's targets).
llvm::Error checkFeatureSpec(uint64_t fileHash, uint64_t expected,
                             const std::string &what);

/// Reads a whole file.
llvm::Expected<std::string> readFileBytes(const std::string &path);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_MODELFILE_H
