# Install rules: public headers under include/hipdnn, the shared library, a CMake package
# config (find_package(hipdnn_jit) -> target hipdnn_jit::hipdnn_backend) and a pkg-config
# file (pkg-config --cflags --libs hipdnn_backend).
include(CMakePackageConfigHelpers)

install(TARGETS hipdnn_backend EXPORT hipdnn_jit_targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hipdnn
        FILES_MATCHING PATTERN "*.h")
install(EXPORT hipdnn_jit_targets NAMESPACE hipdnn_jit::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hipdnn_jit)

file(WRITE ${CMAKE_BINARY_DIR}/hipdnn_jitConfig.cmake.in
  "@PACKAGE_INIT@\ninclude(\"\${CMAKE_CURRENT_LIST_DIR}/hipdnn_jit_targets.cmake\")\n")
configure_package_config_file(${CMAKE_BINARY_DIR}/hipdnn_jitConfig.cmake.in
  ${CMAKE_BINARY_DIR}/hipdnn_jitConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hipdnn_jit)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/hipdnn_jitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/hipdnn_jitConfig.cmake ${CMAKE_BINARY_DIR}/hipdnn_jitConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hipdnn_jit)

file(WRITE ${CMAKE_BINARY_DIR}/hipdnn_backend.pc.in
"prefix=@CMAKE_INSTALL_PREFIX@
libdir=\${prefix}/@CMAKE_INSTALL_LIBDIR@
includedir=\${prefix}/@CMAKE_INSTALL_INCLUDEDIR@/hipdnn

Name: hipdnn_backend
Description: hipdnn-jit, a hipDNN-compatible graph backend that JIT-compiles fused kernels
Version: @PROJECT_VERSION@
Libs: -L\${libdir} -lhipdnn_backend
Cflags: -I\${includedir}
")
configure_file(${CMAKE_BINARY_DIR}/hipdnn_backend.pc.in ${CMAKE_BINARY_DIR}/hipdnn_backend.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/hipdnn_backend.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
