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
// version, length, checksum, feature spec hash and kind, each failure with its
// own message, so a file from another version, a truncated or corrupted file
// and a model trained on other features are told apart and never decoded.
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
/// version and feature spec hash.
std::string encodeModelFile(std::string_view kind,
                            const ModelFileSections &sections);

/// Whether `bytes` start as every sptune model and checkpoint file does
/// (whatever its version and feature spec).
bool hasModelFileMagic(std::string_view bytes);

/// Decodes `bytes` into `sections`; the error names `what` (usually the
/// path).
llvm::Error decodeModelFile(std::string_view bytes,
                            std::string_view expectedKind,
                            const std::string &what,
                            ModelFileSections &sections);

/// Reads a whole file.
llvm::Expected<std::string> readFileBytes(const std::string &path);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_MODELFILE_H
