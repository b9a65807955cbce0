# Third-party dependencies, all from Debian 12's packages (README: the set-up command installs them).
# Everything that the target machine may lack is linked statically: protobuf-lite, OpenBLAS (+ libgfortran).
find_package(Threads REQUIRED)

# --- ONNX schema: onnx.proto from libonnx-dev, compiled by protoc at build time (lite runtime, as the file asks).
find_program(STRATA_PROTOC protoc REQUIRED)
set(STRATA_ONNX_PROTO "/usr/include/onnx/onnx.proto" CACHE FILEPATH "onnx.proto from libonnx-dev")
if(NOT EXISTS "${STRATA_ONNX_PROTO}")
    message(FATAL_ERROR "onnx.proto not found at ${STRATA_ONNX_PROTO}: install libonnx-dev (see README)")
endif()
set(_proto_out "${CMAKE_BINARY_DIR}/generated/onnx")
file(MAKE_DIRECTORY "${_proto_out}")
add_custom_command(
    OUTPUT "${_proto_out}/onnx.pb.cc" "${_proto_out}/onnx.pb.h"
    COMMAND ${CMAKE_COMMAND} -E copy "${STRATA_ONNX_PROTO}" "${_proto_out}/onnx.proto"
    COMMAND ${STRATA_PROTOC} --cpp_out=. onnx.proto
    WORKING_DIRECTORY "${_proto_out}"
    DEPENDS "${STRATA_ONNX_PROTO}"
    COMMENT "protoc onnx.proto")
find_library(STRATA_PROTOBUF_LITE_STATIC NAMES libprotobuf-lite.a REQUIRED)
add_library(strata_onnx_proto STATIC "${_proto_out}/onnx.pb.cc")
target_include_directories(strata_onnx_proto SYSTEM PUBLIC "${CMAKE_BINARY_DIR}/generated")
target_link_libraries(strata_onnx_proto PUBLIC "${STRATA_PROTOBUF_LITE_STATIC}" Threads::Threads)
target_compile_options(strata_onnx_proto PRIVATE -w)
add_library(strata::onnx_proto ALIAS strata_onnx_proto)

# --- OpenBLAS, the static pthread build, and the Fortran runtime its LAPACK half pulls in.
find_file(STRATA_OPENBLAS_STATIC libopenblas.a PATHS /usr/lib/x86_64-linux-gnu/openblas-pthread
          /usr/lib/aarch64-linux-gnu/openblas-pthread NO_DEFAULT_PATH)
if(NOT STRATA_OPENBLAS_STATIC)
    find_library(STRATA_OPENBLAS_STATIC NAMES libopenblas.a REQUIRED)
endif()
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libgfortran.a OUTPUT_VARIABLE _gfortran
                OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libquadmath.a OUTPUT_VARIABLE _quadmath
                OUTPUT_STRIP_TRAILING_WHITESPACE)
add_library(strata_blas INTERFACE)
target_link_libraries(strata_blas INTERFACE "${STRATA_OPENBLAS_STATIC}")
if(EXISTS "${_gfortran}" AND IS_ABSOLUTE "${_gfortran}")
    target_link_libraries(strata_blas INTERFACE "${_gfortran}")
endif()
if(EXISTS "${_quadmath}" AND IS_ABSOLUTE "${_quadmath}")
    target_link_libraries(strata_blas INTERFACE "${_quadmath}")
endif()
target_link_libraries(strata_blas INTERFACE m Threads::Threads)
find_path(STRATA_CBLAS_INCLUDE cblas.h PATHS /usr/include/x86_64-linux-gnu/openblas-pthread
          /usr/include/aarch64-linux-gnu/openblas-pthread /usr/include/openblas REQUIRED)
target_include_directories(strata_blas SYSTEM INTERFACE "${STRATA_CBLAS_INCLUDE}")
add_library(strata::blas ALIAS strata_blas)

# --- fmt's headers (its compiled part is src/core/fmt_library.cpp, so no libfmt.so at run time), and the
# header-only libraries nlohmann-json, CLI11, stb_image.
find_path(STRATA_FMT_INCLUDE fmt/format.h REQUIRED)
add_library(strata_fmt_headers INTERFACE)
target_include_directories(strata_fmt_headers SYSTEM INTERFACE "${STRATA_FMT_INCLUDE}")
find_path(STRATA_JSON_INCLUDE nlohmann/json.hpp REQUIRED)
add_library(nlohmann_json_header_only INTERFACE)
target_include_directories(nlohmann_json_header_only SYSTEM INTERFACE "${STRATA_JSON_INCLUDE}")
find_path(STRATA_CLI11_INCLUDE CLI/CLI.hpp REQUIRED)
add_library(cli11_header_only INTERFACE)
target_include_directories(cli11_header_only SYSTEM INTERFACE "${STRATA_CLI11_INCLUDE}")
find_path(STRATA_STB_INCLUDE stb_image.h PATHS /usr/include/stb REQUIRED)
add_library(stb_image_header INTERFACE)
target_include_directories(stb_image_header SYSTEM INTERFACE "${STRATA_STB_INCLUDE}")
