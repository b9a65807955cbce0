# The CUDA backend: on when nvcc is found (STRATA_CUDA=OFF forces a CPU-only build). The CUDA runtime is linked
# statically; cuDNN and cuBLASLt are loaded at run time (backends/cuda/libs/), so a machine without them still runs
# strata with its own kernels. Architectures: STRATA_CUDA_ARCHS, CMake's CUDA_ARCHITECTURES syntax ("90" = sm_90
# machine code + compute_90 PTX). CI builds 80/86/89/90 to prove the code builds for every supported GPU.
include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
    set(_strata_cuda_default ON)
else()
    set(_strata_cuda_default OFF)
endif()
option(STRATA_CUDA "Build the CUDA backend (needs nvcc)" ${_strata_cuda_default})
set(STRATA_CUDA_ARCHS "90" CACHE STRING "GPU architectures to build for (CMake CUDA_ARCHITECTURES syntax)")

if(STRATA_CUDA)
    if(NOT CMAKE_CUDA_COMPILER)
        message(FATAL_ERROR "STRATA_CUDA=ON but no CUDA compiler (nvcc) was found; set CMAKE_CUDA_COMPILER or "
                            "configure with -DSTRATA_CUDA=OFF")
    endif()
    set(CMAKE_CUDA_ARCHITECTURES ${STRATA_CUDA_ARCHS})
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc 13's C++20 flag; tell it.
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    message(STATUS "strata: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, archs ${STRATA_CUDA_ARCHS})")
else()
    message(STATUS "strata: CUDA backend OFF (CPU-only build)")
endif()

# Applies the CUDA settings to a target that holds CUDA code or calls the CUDA runtime.
function(strata_cuda_target target)
    if(NOT STRATA_CUDA)
        return()
    endif()
    target_compile_definitions(${target} PUBLIC STRATA_HAVE_CUDA=1)
    target_link_libraries(${target} PUBLIC CUDA::cudart_static ${CMAKE_DL_LIBS})
    target_include_directories(${target} PUBLIC ${CUDAToolkit_INCLUDE_DIRS})
    # -lineinfo: compute-sanitizer and ncu point at source lines; relaxed constexpr: std:: constants in kernels.
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo --expt-relaxed-constexpr
                           -Xcompiler=-Wall,-Wno-unused-parameter>)
    set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
endfunction()

# Kernels that use sm_90a-only instructions (wgmma): `sources` (the *_sm90*.cu files) become an object library
# compiled for sm_90a alone (-gencode arch=compute_90a,code=sm_90a; "90a" code runs on compute capability 9.0
# only), added to `target`, which then gets STRATA_HAVE_SM90A=1. Only when STRATA_CUDA_ARCHS includes 90: builds
# for 80/86/89 alone (and CPU-only builds) leave them out, and the tactics that need them refuse with a reason.
# `deps` are the target's libraries, for their include paths.
function(strata_sm90a_objects target sources deps)
    if(NOT STRATA_CUDA OR NOT sources OR NOT STRATA_CUDA_ARCHS MATCHES "(^|;)90")
        return()
    endif()
    set(objects ${target}_sm90a)
    add_library(${objects} OBJECT ${sources})
    set_target_properties(${objects} PROPERTIES CUDA_ARCHITECTURES OFF)
    target_compile_options(${objects} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-gencode=arch=compute_90a,code=sm_90a>)
    target_include_directories(${objects} PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/src)
    target_compile_definitions(${objects} PRIVATE STRATA_VERSION="${PROJECT_VERSION}")
    target_link_libraries(${objects} PRIVATE ${deps})
    strata_cuda_target(${objects})
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${objects}>)
    target_compile_definitions(${target} PRIVATE STRATA_HAVE_SM90A=1)
    message(STATUS "strata: sm_90a kernels ON (${sources})")
endfunction()
