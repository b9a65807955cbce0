// fuzz_onnx_loader.cpp: libFuzzer target for the ONNX loader. Any input must end in a graph or a strata::Error
// with a user-facing code; a crash, a sanitizer report, another exception or an internal error is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "frontend/onnx/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        strata::frontend::import_onnx_bytes(data, size, "fuzz.onnx", "");
    } catch (const strata::Error& e) {
        if (e.code() == strata::StatusCode::internal) {
            std::fprintf(stderr, "internal error (a bug): %s\n", e.what());
            std::abort();
        }
    }
    return 0;
}
