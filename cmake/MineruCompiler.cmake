# Compiler flags, ccache and sanitizer switches shared by every target.

find_program(CCACHE_EXE ccache)
if(CCACHE_EXE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${CCACHE_EXE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_EXE})
endif()

set(MINERU_SANITIZE "" CACHE STRING "Sanitizers: empty, 'address;undefined' or 'thread'")

add_library(mineru_warnings INTERFACE)
target_compile_options(mineru_warnings INTERFACE -Wall -Wextra)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # GCC 12 reports -Wrestrict inside libstdc++ for `"literal" + std::string(...)` at -O2/-O3, a
  # known false positive (GCC bug 105329) fixed in GCC 13.
  target_compile_options(mineru_warnings INTERFACE -Wno-restrict)
endif()
if(MINERU_WERROR)
  target_compile_options(mineru_warnings INTERFACE -Werror)
endif()

if(MINERU_SANITIZE)
  list(JOIN MINERU_SANITIZE "," _san)
  add_compile_options(-fsanitize=${_san} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${_san})
  if("thread" IN_LIST MINERU_SANITIZE)
    add_compile_definitions(MINERU_TSAN=1)
  endif()
endif()

# mineru_add_library(NAME SOURCES ... [DEPS ...] [PRIVATE_DEPS ...])
# A folder's library: its sources, the project's include root, and the warning flags.
function(mineru_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS} mineru_warnings)
endfunction()
