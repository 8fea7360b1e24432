# Copied to CMakeLists.txt beside consumer.c / consumer.cpp by run.sh (a CMakeLists.txt here would
# be taken for a test folder by tests/CMakeLists.txt).
# A consumer of an installed hipdnn-jit, found one of three ways (-DHOW=):
#   jit      find_package(hipdnn_jit)               -> hipdnn_jit::hipdnn_backend
#   backend  find_package(hipdnn_backend CONFIG)    -> hipdnn_backend (newer hipDNN's name)
#   legacy   find_package(hipdnn_backend CONFIG)    -> hipdnn::backend (older hipDNN's name)
cmake_minimum_required(VERSION 3.16)
project(hipdnn_consumer C CXX)
if(HOW STREQUAL "jit")
  find_package(hipdnn_jit REQUIRED)
  set(lib hipdnn_jit::hipdnn_backend)
elseif(HOW STREQUAL "backend")
  find_package(hipdnn_backend CONFIG REQUIRED)
  set(lib hipdnn_backend)
else()
  find_package(hipdnn_backend CONFIG REQUIRED)
  set(lib hipdnn::backend)
endif()
add_executable(consumer_c consumer.c)
add_executable(consumer_cpp consumer.cpp)
target_link_libraries(consumer_c PRIVATE ${lib})
target_link_libraries(consumer_cpp PRIVATE ${lib})
