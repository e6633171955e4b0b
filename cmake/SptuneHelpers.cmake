# Helpers shared by every sptune CMakeLists.
#
# Every library made by sptune_add_library and every tool made by
# sptune_add_tool is installed by `cmake --install`: libraries into lib/ and
# the export set `SptuneTargets` (imported by SptuneConfig.cmake as
# Sptune::<name>), tools into bin/. The custom target `sptune-installables`
# depends on all of them, so a build of it leaves `cmake --install` with
# nothing missing.

if(NOT TARGET sptune-installables)
  add_custom_target(sptune-installables)
endif()

# Where `cmake --install` puts things, relative to the prefix.
set(SPTUNE_INSTALL_BINDIR bin)
set(SPTUNE_INSTALL_LIBDIR lib)
set(SPTUNE_INSTALL_INCLUDEDIR include)
set(SPTUNE_INSTALL_DATADIR share/sptune)
set(SPTUNE_INSTALL_CMAKEDIR lib/cmake/sptune)
set(SPTUNE_INSTALL_PYTHONDIR lib/python3/dist-packages)

# sptune_install_library(name)
#   Installs library `name` into lib/ and adds it to the export set.
function(sptune_install_library name)
  install(TARGETS ${name} EXPORT SptuneTargets
    ARCHIVE DESTINATION ${SPTUNE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${SPTUNE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${SPTUNE_INSTALL_BINDIR})
  get_target_property(_type ${name} TYPE)
  if(NOT _type STREQUAL "INTERFACE_LIBRARY")
    add_dependencies(sptune-installables ${name})
  endif()
endfunction()

# sptune_add_library(name SOURCES... [LINK lib...] [DEPENDS target...] [EH])
#   A library of the project. MLIR-facing code links the MLIR/LLVM dylibs.
#   Code that calls LibTorch and needs try/catch passes EH (exceptions on);
#   everything else follows LLVM's convention (exceptions off).
#   Its users get sptune's headers (SptuneHeaders: include/ in the build
#   tree, <prefix>/include once installed). Installed and exported.
function(sptune_add_library name)
  cmake_parse_arguments(ARG "EH" "" "LINK;DEPENDS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  if(NOT ARG_EH)
    target_compile_options(${name} PRIVATE -fno-exceptions)
  endif()
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${name} PUBLIC SptuneHeaders)
  if(ARG_LINK)
    target_link_libraries(${name} PUBLIC ${ARG_LINK})
  endif()
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  sptune_install_library(${name})
endfunction()

# sptune_add_library_alias(alias target)
#   A friendly name for a library: Sptune::<alias> in the build tree and in
#   the installed package (an interface library that links `target`).
function(sptune_add_library_alias alias target)
  add_library(Sptune${alias}Alias INTERFACE)
  target_link_libraries(Sptune${alias}Alias INTERFACE ${target})
  set_target_properties(Sptune${alias}Alias PROPERTIES EXPORT_NAME ${alias})
  add_library(Sptune::${alias} ALIAS Sptune${alias}Alias)
  sptune_install_library(Sptune${alias}Alias)
endfunction()

# sptune_add_tool(name SOURCES... [LINK lib...] [EH] [NO_INSTALL])
#   An executable in build/bin, installed into <prefix>/bin unless
#   NO_INSTALL (benchmarks, test helpers).
function(sptune_add_tool name)
  cmake_parse_arguments(ARG "EH;NO_INSTALL" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  if(NOT ARG_EH)
    target_compile_options(${name} PRIVATE -fno-exceptions)
  endif()
  if(ARG_LINK)
    target_link_libraries(${name} PRIVATE ${ARG_LINK})
  endif()
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${name} RUNTIME DESTINATION ${SPTUNE_INSTALL_BINDIR})
    add_dependencies(sptune-installables ${name})
  endif()
endfunction()

# sptune_register_target(NAME
#     DESCRIPTION lib REGISTER fn HEADER header
#     [PASSES lib REGISTER_PASSES fn PASSES_HEADER header]
#     [MEASURER lib REGISTER_MEASURER fn])
#   Called by a target folder's CMakeLists.txt (targets/<NAME>/): adds the
#   target to the generated registerAllTargets() (the description library
#   and its registration function, declared in `header`), to
#   registerAllTargetPasses() (its lowering passes) and to
#   registerAllMeasurers() (its measurer). Functions are fully qualified
#   (::sptune::registerCpuTarget). targets/CMakeLists.txt lists the folders
#   and writes the three functions, so a new target edits no shared file.
function(sptune_register_target name)
  set(keys DESCRIPTION REGISTER HEADER PASSES REGISTER_PASSES PASSES_HEADER
           MEASURER REGISTER_MEASURER)
  cmake_parse_arguments(ARG "" "${keys}" "" ${ARGN})
  if(NOT ARG_DESCRIPTION OR NOT ARG_REGISTER OR NOT ARG_HEADER)
    message(FATAL_ERROR
      "sptune_register_target(${name}): DESCRIPTION, REGISTER and HEADER are required")
  endif()
  set_property(GLOBAL APPEND PROPERTY SPTUNE_TARGETS ${name})
  foreach(key IN LISTS keys)
    set_property(GLOBAL PROPERTY SPTUNE_TARGET_${name}_${key} "${ARG_${key}}")
  endforeach()
endfunction()
