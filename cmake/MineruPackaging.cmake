# Debian packages with CPack: `cpack -G DEB` in the build folder (after the build) writes
#   minerud_VERSION_ARCH.deb           the daemon and mineructl, the systemd units, the sysusers.d and
#                                      tmpfiles.d snippets (the user and group `minerud`, /run/minerud),
#                                      the manual pages, bash completion, the example configuration
#   libmineru-client_VERSION_ARCH.deb  libmineru-client.so, its headers, its pkg-config file and the
#                                      Python binding (MIT, no libtorch, no MuPDF)
# Both install under /usr whatever CMAKE_INSTALL_PREFIX the build has. Dependencies come from
# dpkg-shlibdeps. The daemon package's maintainer scripts (packaging/deb/) create the user and group
# and reload systemd; they enable nothing.

set(MINERU_PACKAGE_CONTACT "minerud maintainers <minerud@example.org>"
    CACHE STRING "The Maintainer: of the Debian packages")

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "minerud")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${MINERU_PACKAGE_CONTACT}")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION "misc")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://huggingface.co/opendatalab/MinerU2.0-2505-0.9B")

# Components -> packages: daemon, systemd and man make `minerud`; client makes `libmineru-client`.
set(CPACK_COMPONENTS_ALL daemon systemd man client)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
include(CPackComponent)
cpack_add_component_group(minerud)
cpack_add_component_group(client)
cpack_add_component(daemon GROUP minerud)
cpack_add_component(systemd GROUP minerud)
cpack_add_component(man GROUP minerud)
cpack_add_component(client GROUP client)

set(CPACK_DEBIAN_MINERUD_PACKAGE_NAME "minerud")
set(CPACK_DEBIAN_MINERUD_DESCRIPTION
    "Local daemon that parses documents with MinerU 2.0
minerud keeps one copy of the MinerU 2.0 document-parsing model resident for every program on the
machine, within the GPU memory it is given, and parses PDFs into Markdown and MinerU's JSON. Without
a model it reads born-digital PDFs from their text layer and scans with Tesseract. mineructl submits
documents and downloads the model (mineructl model pull).")
set(CPACK_DEBIAN_MINERUD_PACKAGE_RECOMMENDS "systemd")
set(CPACK_DEBIAN_MINERUD_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/packaging/deb/postinst ${PROJECT_SOURCE_DIR}/packaging/deb/prerm
    ${PROJECT_SOURCE_DIR}/packaging/deb/postrm)
set(CPACK_DEBIAN_MINERUD_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_CLIENT_PACKAGE_NAME "libmineru-client")
set(CPACK_DEBIAN_CLIENT_PACKAGE_SECTION "libs")
set(CPACK_DEBIAN_CLIENT_DESCRIPTION
    "Client library for minerud (C, C++ and Python)
libmineru-client submits documents to the minerud daemon, follows their progress and reads the
results, in C or C++ (pkg-config mineru-client) or from Python (mineru_client). It links neither
libtorch nor MuPDF.")
set(CPACK_DEBIAN_CLIENT_PACKAGE_SUGGESTS "python3, minerud")

include(CPack)
