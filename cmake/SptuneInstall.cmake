# What `cmake --install <build> --prefix P` puts under P, besides the
# libraries and tools that sptune_add_library / sptune_add_tool install:
#
#   include/sptune/**                 public headers, .td files, generated .inc
#                                     files and Config.h (cost-model's headers
#                                     too: sptune/CostModel, sptune/Learn)
#   include/sptune/targets/{cpu,...}  the targets' headers, included as
#                                     "cpu/CpuPasses.h" (the target libraries
#                                     put include/sptune/targets on the path)
#   share/sptune/models               the shipped cost models
#   lib/python3/dist-packages/sptune  the Python package
#   lib/cmake/sptune                  SptuneConfig.cmake, its version file and
#                                     the exported targets (Sptune::*)
#
# Included at the end of the top-level CMakeLists.txt, when every target
# exists.

include(CMakePackageConfigHelpers)

#===- Friendly names -----------------------------------------------------===#
# Sptune::Passes     dialect, passes, pipelines and targets (InitAll.h);
#                    ranks with the cost model, never measures.
# Sptune::CostModel  the cost model's C++ interface (CostModel.h), without
#                    LibTorch; training is Sptune::SptuneCostModel.
# Sptune::Measurers  registerAllMeasurers(): the targets' measurers (JIT,
#                    simulator, baselines), for tools that measure in process.
# Sptune::Collect    the worker pool, the collector and the worker-backed
#                    candidate measurer (sptune-opt's measure-top-k).
sptune_add_library_alias(Passes SptuneRegistration)
sptune_add_library_alias(CostModel SptuneCostModelRanking)
sptune_add_library_alias(Measurers SptuneMeasurers)
sptune_add_library_alias(Collect SptuneCollect)

#===- Headers ------------------------------------------------------------===#
set(_sptune_inc ${SPTUNE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/sptune
                  ${PROJECT_SOURCE_DIR}/cost-model/include/sptune
        DESTINATION ${_sptune_inc}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/sptune
        DESTINATION ${_sptune_inc}
        FILES_MATCHING PATTERN "*.inc" PATTERN "*.h"
        PATTERN "CMakeFiles" EXCLUDE)
get_property(_sptune_target_folders GLOBAL PROPERTY SPTUNE_TARGET_FOLDERS)
foreach(_t IN LISTS _sptune_target_folders)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/targets/${_t}
          DESTINATION ${_sptune_inc}/sptune/targets
          FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
  install(DIRECTORY ${PROJECT_BINARY_DIR}/targets/${_t}
          DESTINATION ${_sptune_inc}/sptune/targets
          FILES_MATCHING PATTERN "*.inc"
          PATTERN "CMakeFiles" EXCLUDE)
endforeach()

#===- Models, Python package ---------------------------------------------===#
install(DIRECTORY ${PROJECT_SOURCE_DIR}/cost-model/models/
        DESTINATION ${SPTUNE_INSTALL_DATADIR}/models)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/sptune
        DESTINATION ${SPTUNE_INSTALL_PYTHONDIR}
        PATTERN "__pycache__" EXCLUDE
        PATTERN "*.pyc" EXCLUDE)

#===- Package configuration ----------------------------------------------===#
# LibTorch is a link dependency of the installed libraries when the cost
# model or the torch baseline was built with it.
if(SPTUNE_ENABLE_TORCH OR SPTUNE_TORCH_BASELINE_BUILT)
  set(SPTUNE_CONFIG_NEEDS_TORCH ON)
else()
  set(SPTUNE_CONFIG_NEEDS_TORCH OFF)
endif()
set(SPTUNE_CONFIG_MLIR_DIR "${MLIR_DIR}")
set(SPTUNE_CONFIG_TORCH_DIR "${Torch_DIR}")
set(SPTUNE_CONFIG_BINDIR ${SPTUNE_INSTALL_BINDIR})
set(SPTUNE_CONFIG_LIBDIR ${SPTUNE_INSTALL_LIBDIR})
set(SPTUNE_CONFIG_INCLUDEDIR ${SPTUNE_INSTALL_INCLUDEDIR})
set(SPTUNE_CONFIG_MODELSDIR ${SPTUNE_INSTALL_DATADIR}/models)
set(SPTUNE_CONFIG_PYTHONDIR ${SPTUNE_INSTALL_PYTHONDIR})

install(EXPORT SptuneTargets
        NAMESPACE Sptune::
        FILE SptuneTargets.cmake
        DESTINATION ${SPTUNE_INSTALL_CMAKEDIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/SptuneConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/SptuneConfig.cmake
  INSTALL_DESTINATION ${SPTUNE_INSTALL_CMAKEDIR}
  PATH_VARS SPTUNE_CONFIG_BINDIR SPTUNE_CONFIG_LIBDIR SPTUNE_CONFIG_INCLUDEDIR
            SPTUNE_CONFIG_MODELSDIR SPTUNE_CONFIG_PYTHONDIR)
# 0.x: a minor version may break the API.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/SptuneConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/SptuneConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/SptuneConfigVersion.cmake
        DESTINATION ${SPTUNE_INSTALL_CMAKEDIR})
