# hipdnn_cache_man.cmake — writes the man page from the tool itself (`hipdnn-cache --man`), so
# its text comes from the one command table in hipdnn_cache_help.c.
# Usage: cmake -DTOOL=<hipdnn-cache> -DOUT=<hipdnn-cache.1> -P hipdnn_cache_man.cmake
execute_process(COMMAND "${TOOL}" --man OUTPUT_FILE "${OUT}.tmp" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}.tmp")
  message(FATAL_ERROR "hipdnn-cache --man failed (${rc}): ${err}")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
