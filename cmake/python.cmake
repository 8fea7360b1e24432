# The Python wheel's contents, used only under scikit-build-core (pip install .; SKBUILD set):
#   hipdnn_jit/*.py                 the pure-Python package (python/hipdnn_jit/)
#   hipdnn_jit/_enums.py            generated from include/*.h and the graph schema at build time
#                                   (cmake/gen_py_enums.py)
#   hipdnn_jit/libhipdnn_backend.so the library, one file (no soname links: wheels hold no links)
# The install prefix is the wheel's root. GPU vendor libraries are not linked (the library loads
# them with dlopen at run time), so the wheel carries none.
set(HIPDNN_PY_ENUMS ${CMAKE_BINARY_DIR}/python/_enums.py)
file(GLOB HIPDNN_ENUM_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/*.h)
add_custom_command(OUTPUT ${HIPDNN_PY_ENUMS}
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/cmake/gen_py_enums.py ${CMAKE_SOURCE_DIR} ${HIPDNN_PY_ENUMS}
  DEPENDS ${HIPDNN_ENUM_HEADERS} ${CMAKE_SOURCE_DIR}/serialize/schema/hipdnn_graph.fbs
          ${CMAKE_SOURCE_DIR}/cmake/gen_py_enums.py
  COMMENT "Generating hipdnn_jit/_enums.py from include/ (cmake/gen_py_enums.py)" VERBATIM)
add_custom_target(hipdnn_py_enums ALL DEPENDS ${HIPDNN_PY_ENUMS})

install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/hipdnn_jit/ DESTINATION hipdnn_jit
        FILES_MATCHING PATTERN "*.py" PATTERN "_enums.py" EXCLUDE PATTERN "__pycache__" EXCLUDE)
install(FILES ${HIPDNN_PY_ENUMS} DESTINATION hipdnn_jit)
install(FILES $<TARGET_FILE:hipdnn_backend> DESTINATION hipdnn_jit RENAME libhipdnn_backend.so)
