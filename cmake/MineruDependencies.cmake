# Every external dependency, found the standard way. A missing one stops configure with the Debian
# package that provides it. scripts/install-deps installs all of them.

find_package(PkgConfig QUIET)

function(mineru_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "minerud needs ${what}: install the Debian package '${package}' "
                        "(or run scripts/install-deps).")
  endif()
endfunction()

# pkg-config module -> IMPORTED target mineru::<alias>
function(mineru_pkg alias module package)
  if(PkgConfig_FOUND)
    pkg_check_modules(MINERU_PKG_${alias} QUIET IMPORTED_TARGET GLOBAL ${module})
  endif()
  mineru_require(MINERU_PKG_${alias}_FOUND "${module} (pkg-config)" ${package})
  add_library(mineru::${alias} ALIAS PkgConfig::MINERU_PKG_${alias})
endfunction()

mineru_require(PkgConfig_FOUND "pkg-config" pkg-config)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3 QUIET)
mineru_require(nlohmann_json_FOUND "nlohmann/json" nlohmann-json3-dev)

# libsystemd: journald logging in common, sd-daemon in the daemon. Optional only in the core build,
# which must also build on machines without Debian packages.
if(PkgConfig_FOUND)
  pkg_check_modules(MINERU_PKG_systemd QUIET IMPORTED_TARGET GLOBAL libsystemd)
endif()
if(MINERU_PKG_systemd_FOUND)
  add_library(mineru::systemd ALIAS PkgConfig::MINERU_PKG_systemd)
  set(MINERU_HAVE_SYSTEMD ON)
elseif(NOT MINERU_CORE_ONLY)
  mineru_require(MINERU_PKG_systemd_FOUND "libsystemd (pkg-config)" libsystemd-dev)
endif()

# libtorch: the CPU build uses Debian's libtorch-dev; a CUDA build points CMAKE_PREFIX_PATH at a CUDA
# libtorch. Only residency/ and engine/ link it.
find_package(Torch QUIET)
mineru_require(Torch_FOUND "libtorch (TorchConfig.cmake)" "libtorch-dev")
add_library(mineru_torch INTERFACE)
target_link_libraries(mineru_torch INTERFACE ${TORCH_LIBRARIES})
target_include_directories(mineru_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
add_library(mineru::torch ALIAS mineru_torch)
set(MINERU_HAVE_CUDA OFF)
if(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES OR CUDA_FOUND)
  set(MINERU_HAVE_CUDA ON)
endif()
message(STATUS "minerud: libtorch ${Torch_VERSION}, CUDA sources ${MINERU_HAVE_CUDA}")

# Tokenizer: PCRE2 (pre-split regex with Unicode classes) and utf8proc (NFC).
mineru_pkg(pcre2 libpcre2-8 libpcre2-dev)
mineru_pkg(utf8proc libutf8proc libutf8proc-dev)

if(NOT MINERU_CORE_ONLY)
  mineru_pkg(uv libuv libuv1-dev)
  # The document workers' seccomp filter.
  mineru_pkg(seccomp libseccomp libseccomp-dev)

  # Boost.Beast and Asio (header-only): minerud's OpenAI-compatible HTTP listener (daemon/http_listener.h).
  find_package(Boost 1.74 QUIET CONFIG)
  mineru_require(Boost_FOUND "Boost.Beast (Boost 1.74 or later)" libboost-dev)

  find_package(cereal QUIET)
  mineru_require(cereal_FOUND "cereal" libcereal-dev)

  # MuPDF 1.21 in Debian is a static library whose pkg-config file omits its third-party libraries.
  mineru_pkg(mupdf_core mupdf libmupdf-dev)
  add_library(mineru_mupdf INTERFACE)
  target_link_libraries(mineru_mupdf INTERFACE mineru::mupdf_core)
  foreach(lib IN ITEMS mupdf-third harfbuzz freetype jbig2dec openjp2 jpeg gumbo mujs z m)
    find_library(MINERU_LIB_${lib} NAMES ${lib})
    string(REPLACE "-" "_" _pkg ${lib})
    set(_deb "libmupdf-dev")
    if(lib STREQUAL "jbig2dec")
      set(_deb libjbig2dec0-dev)
    elseif(lib STREQUAL "openjp2")
      set(_deb libopenjp2-7-dev)
    elseif(lib STREQUAL "gumbo")
      set(_deb libgumbo-dev)
    elseif(lib STREQUAL "mujs")
      set(_deb libmujs-dev)
    elseif(lib STREQUAL "harfbuzz")
      set(_deb libharfbuzz-dev)
    elseif(lib STREQUAL "freetype")
      set(_deb libfreetype-dev)
    elseif(lib STREQUAL "jpeg")
      set(_deb libjpeg-dev)
    elseif(lib STREQUAL "z")
      set(_deb zlib1g-dev)
    endif()
    mineru_require(MINERU_LIB_${lib} "lib${lib} (MuPDF's link line)" ${_deb})
    target_link_libraries(mineru_mupdf INTERFACE ${MINERU_LIB_${lib}})
  endforeach()
  add_library(mineru::mupdf ALIAS mineru_mupdf)

  # hub/ (`mineructl model pull`): HTTP(S) downloads and SHA-256/SHA-1 checksums; libcurl is also the
  # remote backend's HTTP client (pipeline/). The client library links neither.
  mineru_pkg(curl libcurl libcurl4-openssl-dev)
  mineru_pkg(crypto libcrypto libssl-dev)

  # OCR of pages without a usable text layer (document/ocr.h); Leptonica comes with it.
  mineru_pkg(tesseract tesseract libtesseract-dev)
  mineru_pkg(leptonica lept libleptonica-dev)
endif()

if(MINERU_BUILD_TESTS)
  find_package(GTest QUIET)
  mineru_require(GTest_FOUND "GoogleTest and GoogleMock" "libgtest-dev libgmock-dev")
endif()
