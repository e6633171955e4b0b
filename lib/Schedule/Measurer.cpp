//===- Measurer.cpp - Measurer interface ----------------------------------===//

#include "sptune/Target/Measurer.h"

using namespace sptune;

Measurer::~Measurer() = default;

const char *sptune::toString(MeasureStatus s) {
  switch (s) {
  case MeasureStatus::Ok:
    return "ok";
  case MeasureStatus::Illegal:
    return "illegal";
  case MeasureStatus::CompileError:
    return "compile_error";
  case MeasureStatus::Crash:
    return "crash";
  case MeasureStatus::Timeout:
    return "timeout";
  case MeasureStatus::WrongResult:
    return "wrong_result";
  case MeasureStatus::Error:
    return "error";
  }
  return "error";
}
