// fuzz_plan_loader.cpp: libFuzzer target for the plan loader (and from_plan_file after it). Each input is loaded twice:
// as given (mostly stopped by the header and the checksum) and resealed (header size and checksum rewritten, so the
// damage reaches the parser). Either ends in a PlanFile or a strata::Error with a user-facing code; a crash, a
// sanitizer report, another exception or an internal error is a finding. With STRATA_FUZZ_WRITE_SEEDS=DIR set, it first
// writes seed plans there (run_fuzz.sh does this).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "build/plan_io.h"
#include "build/plan_serialization.h"
#include "plan_io_test_util.h"

namespace {

void load(const uint8_t* data, size_t size) {
    try {
        // The loader, then the builder's glue that turns the file into a Plan (names, options, tactics).
        strata::build::from_plan_file(strata::build::load_plan_bytes(data, size, "fuzz.plan"), "fuzz.plan");
    } catch (const strata::Error& e) {
        if (e.code() == strata::StatusCode::internal) {
            std::fprintf(stderr, "internal error (a bug): %s\n", e.what());
            std::abort();
        }
    }
}

// Seeds: plans with the structure of the zoo's (one-element constants keep them small), one per network.
void write_seeds(const std::string& dir) {
    for (const std::string& name : strata::zoo::names()) {
        const std::vector<uint8_t> bytes = strata::build::save_plan_bytes(strata::test::zoo_plan_file(name, 1, true));
        std::ofstream out(dir + "/" + name + ".plan", std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        std::fprintf(stderr, "seed %s.plan: %zu bytes\n", name.c_str(), bytes.size());
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* dir = std::getenv("STRATA_FUZZ_WRITE_SEEDS")) write_seeds(dir);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    load(data, size);
    std::vector<uint8_t> resealed(data, data + size);
    strata::build::reseal_plan_bytes(resealed);
    load(resealed.data(), resealed.size());
    return 0;
}
