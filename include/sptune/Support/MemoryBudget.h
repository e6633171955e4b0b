//===- MemoryBudget.h - How much a request may allocate ---------*- C++ -*-===//
//
// Part of sptune. A request for a huge dense operand (100,000 rows x 65,536
// columns: 26 GB) ended in "LLVM ERROR: out of memory" and exit 134. The
// tools that allocate dense operands or workspaces check their size against
// a budget first and refuse with the size named. The budget is
// SPTUNE_MEMORY_BUDGET (bytes, or with a K, M or G suffix) or, by default,
// half the physical memory.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SUPPORT_MEMORYBUDGET_H
#define SPTUNE_SUPPORT_MEMORYBUDGET_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace sptune {

/// Physical memory in bytes (0 when the system does not say).
inline double physicalMemoryBytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 0;
}

/// The budget in bytes, and where it comes from. An unreadable
/// SPTUNE_MEMORY_BUDGET falls back to the default and says so.
inline double memoryBudgetBytes(std::string *source = nullptr) {
  if (const char *env = std::getenv("SPTUNE_MEMORY_BUDGET")) {
    char *end = nullptr;
    double v = std::strtod(env, &end);
    double scale = 1;
    if (end && (*end == 'K' || *end == 'k'))
      scale = 1024.0, ++end;
    else if (end && (*end == 'M' || *end == 'm'))
      scale = 1024.0 * 1024, ++end;
    else if (end && (*end == 'G' || *end == 'g'))
      scale = 1024.0 * 1024 * 1024, ++end;
    if (end != env && end && *end == 0 && std::isfinite(v) && v > 0) {
      if (source)
        *source = "SPTUNE_MEMORY_BUDGET";
      return v * scale;
    }
    if (source)
      *source = "half the physical memory; SPTUNE_MEMORY_BUDGET='" +
                std::string(env) + "' is not a size";
  } else if (source) {
    *source = "half the physical memory; set SPTUNE_MEMORY_BUDGET=BYTES to "
              "change it";
  }
  double physical = physicalMemoryBytes();
  return physical > 0 ? physical / 2 : 1e18;
}

/// "26.0 GB".
inline std::string formatBytes(double bytes) {
  const char *units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000 && u < 5)
    bytes /= 1000, ++u;
  char buf[32];
  std::snprintf(buf, sizeof(buf), u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
  return buf;
}

/// Why `bytes` of `what` cannot be allocated ("" when they fit the budget).
inline std::string whyOverMemoryBudget(double bytes, const std::string &what) {
  std::string source;
  double budget = memoryBudgetBytes(&source);
  if (!(bytes > budget))
    return "";
  return what + " need " + formatBytes(bytes) + ", more than the memory " +
         "budget of " + formatBytes(budget) + " (" + source + ")";
}

} // namespace sptune

#endif // SPTUNE_SUPPORT_MEMORYBUDGET_H
