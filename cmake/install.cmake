# Install rules: public headers under include/hipdnn and again under include/hipdnn/backend
# (where hipDNN installs its backend headers, so programs written against hipDNN find ours), the
# shared library, a CMake package config (find_package(hipdnn_jit) -> target
# hipdnn_jit::hipdnn_backend), a second one under the name hipDNN's users look for
# (find_package(hipdnn_backend CONFIG) -> targets hipdnn_backend and hipdnn::backend, the same
# library) and a relocatable pkg-config file (pkg-config --cflags --libs hipdnn_backend; its
# prefix is found from the .pc file's own directory, so a moved install tree still works).
#
# Components: Runtime holds libhipdnn_backend.so.0.* and .so.0 *and* the unversioned
# libhipdnn_backend.so: hipDNN builds its backend without a soname version, so programs linked
# against hipDNN record NEEDED libhipdnn_backend.so and must find that name at run time.
# Development holds the headers, the CMake package and the pkg-config file.
include(CMakePackageConfigHelpers)

install(TARGETS hipdnn_backend EXPORT hipdnn_jit_targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Runtime NAMELINK_COMPONENT Runtime
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development)
foreach(dir hipdnn hipdnn/backend)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${dir}
          COMPONENT Development FILES_MATCHING PATTERN "*.h")
endforeach()
install(EXPORT hipdnn_jit_targets NAMESPACE hipdnn_jit::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hipdnn_jit COMPONENT Development)

file(WRITE ${CMAKE_BINARY_DIR}/hipdnn_jitConfig.cmake.in
  "@PACKAGE_INIT@\ninclude(\"\${CMAKE_CURRENT_LIST_DIR}/hipdnn_jit_targets.cmake\")\n")
configure_package_config_file(${CMAKE_BINARY_DIR}/hipdnn_jitConfig.cmake.in
  ${CMAKE_BINARY_DIR}/hipdnn_jitConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hipdnn_jit)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/hipdnn_jitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/hipdnn_jitConfig.cmake ${CMAKE_BINARY_DIR}/hipdnn_jitConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hipdnn_jit COMPONENT Development)

file(WRITE ${CMAKE_BINARY_DIR}/hipdnn_backend.pc.in
"prefix=\${pcfiledir}/@HIPDNN_PC_TO_PREFIX@
libdir=\${prefix}/@CMAKE_INSTALL_LIBDIR@
includedir=\${prefix}/@CMAKE_INSTALL_INCLUDEDIR@/hipdnn

Name: hipdnn_backend
Description: hipdnn-jit, a hipDNN-compatible graph backend that JIT-compiles fused kernels
Version: @PROJECT_VERSION@
Libs: -L\${libdir} -lhipdnn_backend
Cflags: -I\${includedir}
")
# The prefix relative to the .pc file's directory (lib/pkgconfig -> ../..).
file(RELATIVE_PATH HIPDNN_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_BINARY_DIR}/hipdnn_backend.pc.in ${CMAKE_BINARY_DIR}/hipdnn_backend.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/hipdnn_backend.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT Development)

# find_package(hipdnn_backend CONFIG), as programs written for hipDNN say: our exported target
# under hipDNN's names, hipdnn_backend (newer hipDNN) and hipdnn::backend (older).
file(WRITE ${CMAKE_BINARY_DIR}/hipdnn_backendConfig.cmake
"# hipdnn_backendConfig.cmake — hipdnn-jit under the package name hipDNN's users look for.
include(\"\${CMAKE_CURRENT_LIST_DIR}/../hipdnn_jit/hipdnn_jit_targets.cmake\")
foreach(t hipdnn_backend hipdnn::backend)
  if(NOT TARGET \${t})
    add_library(\${t} INTERFACE IMPORTED)
    set_target_properties(\${t} PROPERTIES INTERFACE_LINK_LIBRARIES hipdnn_jit::hipdnn_backend)
  endif()
endforeach()
")
write_basic_package_version_file(${CMAKE_BINARY_DIR}/hipdnn_backendConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY AnyNewerVersion)
install(FILES ${CMAKE_BINARY_DIR}/hipdnn_backendConfig.cmake ${CMAKE_BINARY_DIR}/hipdnn_backendConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hipdnn_backend COMPONENT Development)
