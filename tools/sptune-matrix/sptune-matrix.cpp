//===- sptune-matrix.cpp - Generate matrices and print their statistics ---===//
//
//   sptune-matrix gen <spec> -o <out.mtx|out.tns>
//   sptune-matrix stats [--json] [--time] <path-or-spec>...
//   sptune-matrix spec <spec>
//   sptune-matrix reorder <path-or-spec> -o <out.mtx> [--order <order.txt>]
//                         [--rows-only]
//
// Exit status: 0 on success, 1 when an input could not be loaded or written,
// 2 on a usage error.
//
//===----------------------------------------------------------------------===//

#include "sptune/Matrix/Frostt.h"
#include "sptune/Matrix/Generators.h"
#include "sptune/Matrix/MatrixMarket.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Matrix/RowOrder.h"
#include "sptune/Matrix/TensorGenerators.h"
#include "sptune/Matrix/TensorSource.h"
#include "sptune/Matrix/TensorStats.h"
#include "sptune/Support/Error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace sptune;

namespace {

const char *kUsage = R"(usage: sptune-matrix <command> [options]

Commands:
  gen <spec> -o <out>       generate a synthetic matrix (gen:) and write it
                            as Matrix Market, or a 3-D tensor (gen3:) and
                            write it as extended FROSTT ('-o -' writes to
                            stdout)
      --pattern             write a pattern file (no values; matrices only)
  stats [--json] [--time] <path-or-spec>...
                            structural statistics of Matrix Market files or
                            generator specs: a table, or one JSON object per
                            line with --json; --time adds load and stats time
                            (matrices). Tensors (gen3: specs, .tns FROSTT
                            files) get their own table after the matrices'
                            (slices, fibers, entries per slice and fiber)
  spec <spec>               print the canonical form of a generator spec
                            (gen: or gen3:)
  reorder <path-or-spec> -o <out.mtx> [--order <order.txt>] [--rows-only]
                            renumber a square matrix's rows and columns in
                            reverse Cuthill-McKee order (P A P^T), as a graph
                            relabelled once: kernels on it read their dense
                            operands in the new order too (permute them with
                            the order). --order writes the order, one row
                            number (0-based, of the input) per line: line n
                            names the row that became row n. --rows-only
                            renumbers the rows only (P A). Prints the largest
                            distance of an entry from the diagonal before and
                            after.
  --help                    this message

)";

int usageError(const std::string &message) {
  std::fprintf(stderr, "sptune-matrix: error: %s\n", message.c_str());
  std::fprintf(stderr, "run 'sptune-matrix --help' for usage\n");
  return 2;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

int runGen(const std::vector<std::string> &args) {
  std::string spec, output;
  bool pattern = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "-o") {
      if (i + 1 == args.size())
        return usageError("'-o' needs a file name");
      output = args[++i];
    } else if (a == "--pattern") {
      pattern = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return usageError("unknown option '" + a + "' for 'gen'");
    } else if (spec.empty()) {
      spec = a;
    } else {
      return usageError("'gen' takes one spec, got '" + spec + "' and '" + a +
                        "'");
    }
  }
  if (spec.empty())
    return usageError("'gen' needs a spec (see --help)");
  if (output.empty())
    return usageError("'gen' needs '-o <out.mtx>' (or '-o <out.tns>')");

  auto fail = [](llvm::Error error) {
    std::fprintf(stderr, "sptune-matrix: error: %s\n",
                 llvm::toString(std::move(error)).c_str());
    return 1;
  };
  auto endsWith = [&](std::string_view ext) {
    return output.size() > ext.size() &&
           output.compare(output.size() - ext.size(), ext.size(), ext) == 0;
  };
  if (isTensorGenSpec(spec) ? endsWith(".mtx") : endsWith(".tns"))
    return usageError(std::string("'gen' writes ") +
                      (isTensorGenSpec(spec) ? "a gen3: tensor as FROSTT, not "
                                               "into '"
                                             : "a gen: matrix as Matrix "
                                               "Market, not into '") +
                      output + "'");
  if (isTensorGenSpec(spec)) {
    if (pattern)
      return usageError("'--pattern' writes matrices only (FROSTT files "
                        "have values)");
    llvm::Expected<TensorGenSpec> parsed = parseTensorGenSpec(spec);
    if (!parsed)
      return fail(parsed.takeError());
    llvm::Expected<CooTensor> t = generateTensor(*parsed);
    if (!t)
      return fail(t.takeError());
    if (llvm::Error error = writeFrostt(output, *t))
      return fail(std::move(error));
    return 0;
  }
  llvm::Expected<GenSpec> parsed = parseGenSpec(spec);
  if (!parsed)
    return fail(parsed.takeError());
  llvm::Expected<CooMatrix> m = generate(*parsed);
  if (!m)
    return fail(m.takeError());
  MatrixMarketWriteOptions options;
  options.field =
      pattern ? MatrixMarketField::Pattern : MatrixMarketField::Real;
  options.comments.push_back(" generated by sptune-matrix: " + parsed->str());
  if (llvm::Error error = writeMatrixMarket(output, *m, options))
    return fail(std::move(error));
  return 0;
}

int runStats(const std::vector<std::string> &args) {
  bool json = false, timing = false;
  std::vector<std::string> sources;
  for (const std::string &a : args) {
    if (a == "--json")
      json = true;
    else if (a == "--time")
      timing = true;
    else if (a.size() > 1 && a[0] == '-')
      return usageError("unknown option '" + a + "' for 'stats'");
    else
      sources.push_back(a);
  }
  if (sources.empty())
    return usageError("'stats' needs at least one matrix file or spec");

  int status = 0;
  auto failed = [&](const std::string &error) {
    std::fflush(stdout);
    std::fprintf(stderr, "sptune-matrix: error: %s\n", error.c_str());
    status = 1;
  };
  std::vector<std::string> tensors;
  bool headerPrinted = json;
  for (const std::string &source : sources) {
    if (isTensorSource(source)) {
      tensors.push_back(source);
      continue;
    }
    if (!headerPrinted)
      std::fputs(statsTableHeader(timing).c_str(), stdout);
    headerPrinted = true;
    CooMatrix coo;
    MatrixInfo info;
    std::string error;
    auto start = std::chrono::steady_clock::now();
    if (takeErrorMessage(loadMatrix(source, coo, info), error)) {
      failed(error);
      continue;
    }
    CsrMatrix csr = CsrMatrix::fromCoo(std::move(coo));
    double loadSeconds = secondsSince(start);
    start = std::chrono::steady_clock::now();
    MatrixStats stats = computeStats(csr);
    double statsSeconds = secondsSince(start);

    std::fputs((json ? statsJsonLine(stats, info.id, info.source, timing,
                                     loadSeconds, statsSeconds)
                      : statsTableRow(stats, info.id, timing, loadSeconds,
                                      statsSeconds))
                   .c_str(),
               stdout);
    std::fflush(stdout);
  }
  if (!json && !tensors.empty())
    std::fputs(tensorStatsTableHeader().c_str(), stdout);
  for (const std::string &source : tensors) {
    CooTensor t;
    MatrixInfo info;
    std::string error;
    if (takeErrorMessage(loadTensor(source, t, info), error)) {
      failed(error);
      continue;
    }
    TensorStats stats = computeTensorStats(t);
    std::fputs((json ? tensorStatsJsonLine(stats, info.id, info.source)
                     : tensorStatsTableRow(stats, info.id))
                   .c_str(),
               stdout);
    std::fflush(stdout);
  }
  return status;
}

int runSpec(const std::vector<std::string> &args) {
  if (args.size() != 1)
    return usageError("'spec' takes exactly one generator spec");
  auto print = [](auto spec) {
    if (!spec) {
      std::fprintf(stderr, "sptune-matrix: error: %s\n",
                   llvm::toString(spec.takeError()).c_str());
      return 1;
    }
    std::printf("%s\n", spec->str().c_str());
    return 0;
  };
  return isTensorGenSpec(args[0]) ? print(parseTensorGenSpec(args[0]))
                                  : print(parseGenSpec(args[0]));
}

/// The largest |row - column| over `m`'s entries under `position` (identity
/// when empty).
int64_t bandwidth(const CsrMatrix &m, const std::vector<int64_t> &position,
                  bool columnsToo) {
  int64_t width = 0;
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t p = m.rowPtr[r]; p < m.rowPtr[r + 1]; ++p) {
      int64_t c = m.colIdx[p];
      int64_t pr = position.empty() ? r : position[r];
      int64_t pc = position.empty() || !columnsToo ? c : position[c];
      width = std::max(width, std::abs(pr - pc));
    }
  return width;
}

int runReorder(const std::vector<std::string> &args) {
  std::string source, output, orderPath;
  bool rowsOnly = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "-o" || a == "--order") {
      if (i + 1 == args.size())
        return usageError("'" + a + "' needs a file name");
      (a == "-o" ? output : orderPath) = args[++i];
    } else if (a == "--rows-only") {
      rowsOnly = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return usageError("unknown option '" + a + "' for 'reorder'");
    } else if (source.empty()) {
      source = a;
    } else {
      return usageError("'reorder' takes one matrix, got '" + source +
                        "' and '" + a + "'");
    }
  }
  if (source.empty())
    return usageError("'reorder' needs a matrix (a .mtx path or a spec)");
  if (output.empty())
    return usageError("'reorder' needs '-o <out.mtx>'");

  auto fail = [](const std::string &message) {
    std::fprintf(stderr, "sptune-matrix: error: %s\n", message.c_str());
    return 1;
  };
  CooMatrix coo;
  MatrixInfo info;
  std::string error;
  if (takeErrorMessage(loadMatrix(source, coo, info), error))
    return fail(error);
  CsrMatrix m = CsrMatrix::fromCoo(std::move(coo));
  if (std::string why = whyNoReverseCuthillMcKee(m); !why.empty())
    return fail(source + ": " + why);
  auto start = std::chrono::steady_clock::now();
  std::vector<int32_t> order = reverseCuthillMcKee(m);
  double seconds = secondsSince(start);
  std::vector<int64_t> position(m.rows);
  for (size_t n = 0; n < order.size(); ++n)
    position[order[n]] = static_cast<int64_t>(n);

  CooMatrix out;
  out.rows = m.rows;
  out.cols = m.cols;
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t p = m.rowPtr[r]; p < m.rowPtr[r + 1]; ++p)
      out.add(static_cast<int32_t>(position[r]),
              rowsOnly ? m.colIdx[p]
                       : static_cast<int32_t>(position[m.colIdx[p]]),
              m.values[p]);
  out.canonicalize();
  MatrixMarketWriteOptions options;
  options.comments.push_back(
      std::string(" ") + (rowsOnly ? "rows" : "rows and columns") + " of " +
      info.id + " in reverse Cuthill-McKee order (sptune-matrix reorder)");
  if (llvm::Error e = writeMatrixMarket(output, out, options))
    return fail(llvm::toString(std::move(e)));
  if (!orderPath.empty()) {
    std::ofstream f(orderPath);
    for (int32_t r : order)
      f << r << "\n";
    f.close();
    if (!f)
      return fail("cannot write '" + orderPath + "'");
  }
  std::fprintf(stderr,
               "sptune-matrix: %s: %lld rows, largest distance from the "
               "diagonal %lld -> %lld (order in %.3f s)\n",
               info.id.c_str(), static_cast<long long>(m.rows),
               static_cast<long long>(bandwidth(m, {}, true)),
               static_cast<long long>(bandwidth(m, position, !rowsOnly)),
               seconds);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usageError("missing command (gen, stats, spec or reorder)");
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const std::string &a : args)
    if (a == "--help" || a == "-h")
      command = "--help";
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    std::fputs(genSpecHelp(), stdout);
    std::fputs(tensorGenSpecHelp(), stdout);
    return 0;
  }
  if (command == "gen")
    return runGen(args);
  if (command == "stats")
    return runStats(args);
  if (command == "spec")
    return runSpec(args);
  if (command == "reorder")
    return runReorder(args);
  return usageError("unknown command '" + command +
                    "' (expected gen, stats, spec or reorder)");
}
