# Helpers shared by every sptune CMakeLists.

# sptune_add_library(name SOURCES... [LINK lib...] [EH])
#   A library of the project. MLIR-facing code links the MLIR/LLVM dylibs.
#   Code that calls LibTorch and needs try/catch passes EH (exceptions on);
#   everything else follows LLVM's convention (exceptions off).
function(sptune_add_library name)
  cmake_parse_arguments(ARG "EH" "" "LINK;DEPENDS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  if(NOT ARG_EH)
    target_compile_options(${name} PRIVATE -fno-exceptions)
  endif()
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_LINK)
    target_link_libraries(${name} PUBLIC ${ARG_LINK})
  endif()
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
endfunction()

# sptune_add_tool(name SOURCES... [LINK lib...] [EH])
function(sptune_add_tool name)
  cmake_parse_arguments(ARG "EH" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  if(NOT ARG_EH)
    target_compile_options(${name} PRIVATE -fno-exceptions)
  endif()
  if(ARG_LINK)
    target_link_libraries(${name} PRIVATE ${ARG_LINK})
  endif()
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
endfunction()
