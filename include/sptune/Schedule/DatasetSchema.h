//===- DatasetSchema.h - The dataset record's vocabulary --------*- C++ -*-===//
//
// Part of sptune. One place for the measurement dataset's schema (see
// docs/dataset.md): its version, the JSON keys of a record and the roles a
// record can have. The collector writes records with these names
// (lib/Collect/Dataset.cpp) and the cost model reads them
// (cost-model/lib/Dataset.cpp); neither spells them itself. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SCHEDULE_DATASETSCHEMA_H
#define SPTUNE_SCHEDULE_DATASETSCHEMA_H

#include <optional>
#include <string>
#include <string_view>

namespace sptune {
namespace dataset {

/// The schema version records carry; readers skip other versions.
inline constexpr int kSchemaVersion = 1;

/// Keys of a record (one JSON object per line).
namespace field {
inline constexpr const char *kSchema = "schema";
inline constexpr const char *kKey = "key"; ///< resume key (RecordKey::str)
inline constexpr const char *kMatrix = "matrix";
inline constexpr const char *kKernel = "kernel";
inline constexpr const char *kFree = "free";
inline constexpr const char *kBits = "bits";
inline constexpr const char *kTarget = "target";
inline constexpr const char *kRole = "role";
inline constexpr const char *kSchedule = "schedule";
inline constexpr const char *kStatus = "status";
inline constexpr const char *kReason = "reason";
inline constexpr const char *kTimes = "time_s";
inline constexpr const char *kCompileSeconds = "compile_s";
/// Wall-clock seconds the collector waited for the measurement (its cost).
inline constexpr const char *kWallSeconds = "wall_s";
inline constexpr const char *kCycles = "cycles";
inline constexpr const char *kDetails = "details";
inline constexpr const char *kMachine = "machine";
inline constexpr const char *kToolVersion = "tool_version";
inline constexpr const char *kTime = "time";
} // namespace field

/// Keys of the "matrix" object.
namespace matrix_field {
inline constexpr const char *kId = "id";
/// 16 hex digits of the matrix's content hash (shape, pattern, values):
/// part of the record key, so a different matrix under the same name is
/// measured, not taken as done.
inline constexpr const char *kHash = "hash";
inline constexpr const char *kSource = "source";
inline constexpr const char *kRows = "rows";
inline constexpr const char *kCols = "cols";
inline constexpr const char *kNnz = "nnz";
} // namespace matrix_field

/// Keys of the "time_s" object.
namespace time_field {
inline constexpr const char *kMedian = "median";
inline constexpr const char *kMin = "min";
inline constexpr const char *kMax = "max";
inline constexpr const char *kMad = "mad";
inline constexpr const char *kReps = "reps";
} // namespace time_field

/// Keys of the "machine" object.
namespace machine_field {
inline constexpr const char *kHost = "host";
inline constexpr const char *kCpu = "cpu";
inline constexpr const char *kCores = "cores";
/// The rest of the machine descriptor (sptune/Machine/MachineDescriptor.h);
/// absent from records written before it existed.
inline constexpr const char *kSimdBits = "simd_bits";
inline constexpr const char *kL1dBytes = "l1d_bytes";
inline constexpr const char *kL2Bytes = "l2_bytes";
inline constexpr const char *kLlcBytes = "llc_bytes";
inline constexpr const char *kBandwidthGBs = "bandwidth_gbs";
inline constexpr const char *kForkJoinMicros = "fork_join_us";
} // namespace machine_field

/// Roles: a sampled schedule, a cost model's pick (active learning), the
/// heuristic's knob neighbourhood, or a baseline ("baseline:<name>", the
/// name a target's measurer knows).
inline constexpr std::string_view kRoleSample = "sample";
inline constexpr std::string_view kRoleModel = "model";
inline constexpr std::string_view kRoleNeighbour = "neighbour";
inline constexpr std::string_view kBaselinePrefix = "baseline:";
/// Baselines that are schedules of the target (their records carry the
/// schedule they stand for) rather than libraries.
inline constexpr std::string_view kBaselineMlirDefault = "mlir-default";
inline constexpr std::string_view kBaselineHeuristic = "heuristic";

/// "baseline:<name>".
inline std::string baselineRole(std::string_view name) {
  return std::string(kBaselinePrefix) + std::string(name);
}

/// What a key (a record's resume key, a problem's group key) ends with
/// for kernels of `elementBits`-bit elements: "" for 32 (f32, the keys of
/// records written before the width was a key's), else "|<bits>-bit", so
/// that an f64 measurement is never an f32 one's.
inline std::string elementWidthKeySuffix(int elementBits) {
  return elementBits == 32 ? std::string()
                           : "|" + std::to_string(elementBits) + "-bit";
}

/// The baseline's name of a "baseline:<name>" role, else nullopt.
inline std::optional<std::string_view> baselineOfRole(std::string_view role) {
  if (role.substr(0, kBaselinePrefix.size()) != kBaselinePrefix)
    return std::nullopt;
  return role.substr(kBaselinePrefix.size());
}

} // namespace dataset
} // namespace sptune

#endif // SPTUNE_SCHEDULE_DATASETSCHEMA_H
