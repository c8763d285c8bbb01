# Installing Headroom like a Debian desktop program: `cmake --install build --prefix P` puts the
# programs in P/bin, the suites and reference tables in P/share/headroom (found relative to the
# binaries, core/io/install_paths.h), a desktop entry, an icon, AppStream metadata and a manual
# page per program; `cpack` (in the build tree) makes a .deb of the same tree under /usr.
include(GNUInstallDirs)

set(HEADROOM_PACKAGING_DIR ${PROJECT_SOURCE_DIR}/packaging)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/headroom)
install(FILES ${HEADROOM_PACKAGING_DIR}/headroom.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${HEADROOM_PACKAGING_DIR}/headroom.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${HEADROOM_PACKAGING_DIR}/io.github.headroom.headroom.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)

# Who the .deb names as its maintainer (and its changelog as the author of the release).
set(HEADROOM_PACKAGE_MAINTAINER "The Headroom developers <headroom@example.org>"
    CACHE STRING "Maintainer of the .deb: Name <address>")
configure_file(${HEADROOM_PACKAGING_DIR}/changelog.in ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog @ONLY)

# Manual pages and the changelog are installed gzip'ed (-n: no name or time stamp, so the
# package is reproducible), as Debian policy asks.
find_program(HEADROOM_GZIP gzip REQUIRED)
set(HEADROOM_GZIPPED)
foreach(source ${HEADROOM_PACKAGING_DIR}/man/headroom.1 ${HEADROOM_PACKAGING_DIR}/man/headroom-worker.1
               ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog)
  get_filename_component(name ${source} NAME)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/packaging/${name}.gz)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/packaging
    COMMAND ${HEADROOM_GZIP} -9n -c ${source} > ${out}
    DEPENDS ${source} VERBATIM)
  list(APPEND HEADROOM_GZIPPED ${out})
endforeach()
add_custom_target(headroom_packaging_files ALL DEPENDS ${HEADROOM_GZIPPED})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/packaging/headroom.1.gz
              ${CMAKE_CURRENT_BINARY_DIR}/packaging/headroom-worker.1.gz
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${HEADROOM_PACKAGING_DIR}/copyright ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# A LibTorch outside the system's library directories (a PyTorch wheel's, for GPU builds) stays
# found after installing; Debian's adds nothing here.
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME headroom)
set(CPACK_PACKAGE_VENDOR "The Headroom developers")
set(CPACK_PACKAGE_CONTACT "${HEADROOM_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "desktop lab for multi-head attention and its rank bottlenecks")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Headroom runs small attention models live, draws every head's attention\n\
map and the learned talking-heads projections, and lets you change width,\n\
heads, head size, embedding rank and context length to watch the rank\n\
deficits that the Low-Rank Bottleneck, Vocabulary Bottleneck and\n\
Talking-Heads papers predict.\n\
.\n\
headroom-worker trains the papers' model families on the King James Bible\n\
into one SQLite file, which the explorer browses while it is written.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Shared-library dependencies (LibTorch, GLFW, SQLite, ...) come from dpkg-shlibdeps; these are
# the ones no binary links: OpenBLAS (LibTorch otherwise runs the reference BLAS, ~60x slower
# here) and the GUI's font. The corpus and the BPE trainer are run as programs when asked for.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libopenblas0-pthread | libopenblas0, fonts-dejavu-core, fonts-dejavu-extra")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bible-kjv, sentencepiece")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "linux-source-6.1")  # the linux-docs corpus (paper-scale runs; 140 MB)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
