//===- ProgramText.cpp - Text form of SPADE tile programs -----------------===//

#include "spade/ProgramText.h"
#include "spade/SpadeKernels.h"
#include "spade/SpadeKnobs.h"
#include "sptune/Support/Files.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

using namespace sptune;

std::string sptune::printSpadeProgram(const SpadeProgram &p) {
  std::string out;
  out.reserve(64 + p.instrs.size() * 40);
  out += "spade-program 1\n";
  out += std::string("kernel ") + toString(p.kernel) + "\n";
  out +=
      "shape " + std::to_string(p.rows) + " " + std::to_string(p.cols) + "\n";
  out += "free " + std::to_string(p.free) + "\n";
  out += "pes " + std::to_string(p.pes) + "\n";
  out += "bypass";
  if (!p.bypassSparse && !p.bypassDense && !p.bypassOutput)
    out += " none";
  if (p.bypassSparse)
    out += " sparse";
  if (p.bypassDense)
    out += " dense";
  if (p.bypassOutput)
    out += " output";
  out += "\n";
  out += std::string("reorder ") + toString(p.reorder) + "\n";
  char buf[160];
  for (const SpadeInstr &i : p.instrs) {
    if (i.isBarrier()) {
      out += "barrier\n";
      continue;
    }
    const SpadeTile &t = i.tile;
    std::snprintf(buf, sizeof(buf), "tile %d %lld:%lld %lld:%lld %lld:%lld%s\n",
                  t.pe, (long long)t.rowBegin, (long long)t.rowEnd,
                  (long long)t.colBegin, (long long)t.colEnd,
                  (long long)t.freeBegin, (long long)t.freeEnd,
                  t.accumulate ? " acc" : "");
    out += buf;
  }
  return out;
}

namespace {

/// Splits a line into whitespace-separated words, dropping a '#' comment.
std::vector<std::string_view> words(std::string_view line) {
  if (size_t hash = line.find('#'); hash != std::string_view::npos)
    line = line.substr(0, hash);
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() &&
           (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
      ++i;
    size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' &&
           line[i] != '\r')
      ++i;
    if (i > b)
      out.push_back(line.substr(b, i - b));
  }
  return out;
}

bool parseInt(std::string_view w, int64_t &v) {
  if (w.empty() || w.size() > 20)
    return false;
  std::string s(w);
  errno = 0;
  char *end = nullptr;
  long long x = std::strtoll(s.c_str(), &end, 10);
  if (*end || errno || (s[0] != '-' && (s[0] < '0' || s[0] > '9')))
    return false;
  v = x;
  return true;
}

bool parseRange(std::string_view w, int64_t &b, int64_t &e) {
  size_t colon = w.find(':');
  if (colon == std::string_view::npos)
    return false;
  return parseInt(w.substr(0, colon), b) && parseInt(w.substr(colon + 1), e);
}

class Parser {
public:
  Parser(std::string_view name, std::string *error)
      : name(name), error(error) {}

  std::optional<SpadeProgram> run(std::string_view text);

private:
  bool fail(const std::string &msg) {
    if (error)
      *error = std::string(name) + ":" + std::to_string(lineNo) + ": " + msg;
    return false;
  }
  bool header(const std::vector<std::string_view> &w);
  bool instruction(const std::vector<std::string_view> &w);
  bool headerComplete();

  std::string_view name;
  std::string *error;
  int64_t lineNo = 0;
  SpadeProgram prog;
  bool sawMagic = false, sawKernel = false, sawShape = false, sawFree = false,
       sawPes = false, sawBypass = false, sawReorder = false;
  bool inBody = false;
};

bool Parser::headerComplete() {
  const char *missing = !sawKernel  ? "kernel"
                        : !sawShape ? "shape"
                        : !sawFree  ? "free"
                        : !sawPes   ? "pes"
                                    : nullptr;
  if (missing)
    return fail(std::string("missing '") + missing +
                "' before the first instruction");
  if (std::string why = whyInvalid(prog); !why.empty())
    return fail(why);
  return true;
}

bool Parser::header(const std::vector<std::string_view> &w) {
  std::string_view key = w[0];
  auto once = [&](bool &seen) {
    if (seen)
      return fail("duplicate '" + std::string(key) + "'");
    seen = true;
    return true;
  };
  auto arity = [&](size_t n) {
    if (w.size() != n + 1)
      return fail("'" + std::string(key) + "' takes " + std::to_string(n) +
                  " value" + (n == 1 ? "" : "s"));
    return true;
  };
  int64_t a = 0, b = 0;
  if (key == "kernel") {
    if (!once(sawKernel) || !arity(1))
      return false;
    std::optional<KernelType> k = parseKernelType(w[1]);
    if (!k || !spadeRunsKernel(*k))
      return fail("unknown kernel '" + std::string(w[1]) +
                  "' (expected spmm or sddmm)");
    prog.kernel = *k;
    return true;
  }
  if (key == "shape") {
    if (!once(sawShape) || !arity(2))
      return false;
    if (!parseInt(w[1], a) || !parseInt(w[2], b) || a < 1 || b < 1)
      return fail("'shape' needs two positive integers");
    prog.rows = a;
    prog.cols = b;
    return true;
  }
  if (key == "free") {
    if (!once(sawFree) || !arity(1))
      return false;
    if (!parseInt(w[1], a) || a < 1)
      return fail("'free' needs a positive integer");
    prog.free = a;
    return true;
  }
  if (key == "pes") {
    if (!once(sawPes) || !arity(1))
      return false;
    if (!parseInt(w[1], a) || a < 1 || a > 4096)
      return fail("'pes' needs an integer in [1, 4096]");
    prog.pes = int(a);
    return true;
  }
  if (key == "bypass") {
    if (!once(sawBypass))
      return false;
    if (w.size() < 2)
      return fail("'bypass' needs 'none' or streams (sparse, dense, output)");
    if (w.size() == 2 && w[1] == "none")
      return true;
    for (size_t n = 1; n < w.size(); ++n) {
      bool *flag = w[n] == "sparse"   ? &prog.bypassSparse
                   : w[n] == "dense"  ? &prog.bypassDense
                   : w[n] == "output" ? &prog.bypassOutput
                                      : nullptr;
      if (!flag)
        return fail("unknown stream '" + std::string(w[n]) +
                    "' (expected sparse, dense or output)");
      if (*flag)
        return fail("stream '" + std::string(w[n]) + "' named twice");
      *flag = true;
    }
    return true;
  }
  if (key == "reorder") {
    if (!once(sawReorder) || !arity(1))
      return false;
    for (RowReorder r :
         {RowReorder::None, RowReorder::ByLength, RowReorder::BySimilarity})
      if (w[1] == toString(r)) {
        prog.reorder = r;
        return true;
      }
    return fail("unknown reordering '" + std::string(w[1]) +
                "' (expected none, length or similarity)");
  }
  return fail("unknown directive '" + std::string(key) + "'");
}

bool Parser::instruction(const std::vector<std::string_view> &w) {
  if (w[0] == "barrier") {
    if (w.size() != 1)
      return fail("'barrier' takes no operands");
    prog.instrs.push_back(SpadeInstr::makeBarrier());
    return true;
  }
  if (w[0] != "tile")
    return fail("unknown instruction '" + std::string(w[0]) +
                "' (expected tile or barrier)");
  if (w.size() != 5 && w.size() != 6)
    return fail("'tile' takes a PE, three ranges b:e and an optional 'acc'");
  SpadeTile t;
  int64_t pe = 0;
  if (!parseInt(w[1], pe) || pe < 0 || pe > (1 << 30))
    return fail("bad PE '" + std::string(w[1]) + "'");
  t.pe = int32_t(pe);
  if (!parseRange(w[2], t.rowBegin, t.rowEnd))
    return fail("bad row range '" + std::string(w[2]) + "' (expected b:e)");
  if (!parseRange(w[3], t.colBegin, t.colEnd))
    return fail("bad column range '" + std::string(w[3]) + "' (expected b:e)");
  if (!parseRange(w[4], t.freeBegin, t.freeEnd))
    return fail("bad free range '" + std::string(w[4]) + "' (expected b:e)");
  if (w.size() == 6) {
    if (w[5] != "acc")
      return fail("unexpected '" + std::string(w[5]) + "' (expected acc)");
    t.accumulate = true;
  }
  if (std::string why = whyInvalidTile(prog, t); !why.empty())
    return fail(why);
  prog.instrs.push_back(SpadeInstr::makeTile(t));
  return true;
}

std::optional<SpadeProgram> Parser::run(std::string_view text) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos)
      nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++lineNo;
    std::vector<std::string_view> w = words(line);
    if (w.empty())
      continue;
    if (!sawMagic) {
      if (w.size() != 2 || w[0] != "spade-program")
        return fail("expected 'spade-program 1' first"), std::nullopt;
      if (w[1] != "1")
        return fail("unsupported program version '" + std::string(w[1]) +
                    "' (expected 1)"),
               std::nullopt;
      sawMagic = true;
      continue;
    }
    bool isInstr = w[0] == "tile" || w[0] == "barrier";
    if (isInstr && !inBody) {
      if (!headerComplete())
        return std::nullopt;
      inBody = true;
    } else if (!isInstr && inBody) {
      bool isHeader = w[0] == "kernel" || w[0] == "shape" || w[0] == "free" ||
                      w[0] == "pes" || w[0] == "bypass" || w[0] == "reorder";
      if (!isHeader)
        return fail("unknown instruction '" + std::string(w[0]) +
                    "' (expected tile or barrier)"),
               std::nullopt;
      return fail("'" + std::string(w[0]) +
                  "' after the first instruction (header lines come first)"),
             std::nullopt;
    }
    if (!(isInstr ? instruction(w) : header(w)))
      return std::nullopt;
  }
  if (!sawMagic) {
    lineNo = 1;
    return fail("empty program (expected 'spade-program 1')"), std::nullopt;
  }
  if (!inBody && !headerComplete())
    return std::nullopt;
  return std::move(prog);
}

} // namespace

llvm::Expected<SpadeProgram> sptune::parseSpadeProgram(std::string_view text,
                                                       std::string_view name) {
  std::string error;
  std::optional<SpadeProgram> p = Parser(name, &error).run(text);
  if (!p)
    return makeError(error.empty() ? std::string(name) + ": not a program"
                                   : error);
  return std::move(*p);
}

llvm::Expected<SpadeProgram>
sptune::readSpadeProgramFile(const std::string &path) {
  if (std::string why = whyNotAFile(path); !why.empty())
    return makeError("cannot read the program file: " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return makeError(path + ": cannot open the program file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parseSpadeProgram(ss.str(), path);
}

llvm::Error sptune::writeSpadeProgramFile(const std::string &path,
                                          const SpadeProgram &p) {
  std::string text = printSpadeProgram(p);
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return llvm::Error::success();
  }
  std::ofstream out(path, std::ios::binary);
  if (out)
    out.write(text.data(), std::streamsize(text.size()));
  if (!out)
    return makeError(path + ": cannot write the program file");
  return llvm::Error::success();
}
