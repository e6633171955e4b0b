//===- OpenMpBinding.cpp - Two OpenMP runtimes and thread binding ---------===//

#include "cpu/OpenMpBinding.h"
#include "sptune/Support/HostCpu.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <link.h>
#include <mutex>
#include <strings.h>
#include <unistd.h>

using namespace sptune;

cpu::OpenMpBindingState cpu::currentOpenMpBindingState() {
  OpenMpBindingState s;
  const char *bind = std::getenv("OMP_PROC_BIND");
  const char *places = std::getenv("OMP_PLACES");
  s.bindingRequested = (bind && *bind && strcasecmp(bind, "false") != 0) ||
                       (places && *places);
  dl_iterate_phdr(
      [](struct dl_phdr_info *info, size_t, void *data) -> int {
        // libgomp.so.1, or a bundled copy such as libgomp-a34b3233.so.1.
        const char *name = info->dlpi_name ? std::strrchr(info->dlpi_name, '/')
                                           : nullptr;
        name = name ? name + 1 : info->dlpi_name;
        if (name && std::strncmp(name, "libgomp", 7) == 0 &&
            std::strstr(name, ".so")) {
          *static_cast<bool *>(data) = true;
          return 1;
        }
        return 0;
      },
      &s.gompLoaded);
  s.allowedCpus = allowedCpuCount();
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  s.onlineCpus = online > 0 ? static_cast<int>(online) : 0;
  return s;
}

std::string cpu::openMpBindingWarning(const OpenMpBindingState &s) {
  if (!s.bindingRequested || !s.gompLoaded || s.allowedCpus <= 0 ||
      s.allowedCpus >= s.onlineCpus)
    return "";
  return "OMP_PROC_BIND or OMP_PLACES is set, and this process loads GNU "
         "libgomp (for librsb and LibTorch), which binds the initial thread "
         "to its first place when it is loaded, before LLVM's libomp, the "
         "runtime of the measured kernels, starts: kernels and baselines run "
         "on " +
         std::to_string(s.allowedCpus) + " of the " +
         std::to_string(s.onlineCpus) +
         " online CPUs. Unset OMP_PROC_BIND and OMP_PLACES to measure on all "
         "of them (to restrict the CPUs, use taskset; if this process was "
         "started restricted, that is the cause instead).";
}

void cpu::warnOnceAboutOpenMpBinding() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::string w = openMpBindingWarning(currentOpenMpBindingState());
    if (!w.empty())
      llvm::errs() << "warning: " << w << "\n";
  });
}
