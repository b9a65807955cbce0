// conformance_runner.h: runs one ONNX conformance case (../shared/conformance) through the public API with given
// build options and classifies the outcome: a pass (rtol 1e-3, atol 1e-7, the ONNX runner's defaults), a clean
// "unsupported: ..." refusal, a wrong answer, or another error. tests/e2e runs every case on the CPU, tests/gpu the
// passing ones on the GPU.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "strata/engine.h"

namespace strata::test {

enum class Outcome { pass, unsupported, wrong, error };

struct CaseResult {
    Outcome outcome;
    std::string detail;
};

/// "suite/case" for every case found under shared_dir()/conformance (empty when absent), sorted.
std::vector<std::string> list_conformance_cases();
/// The case's own name (without the suite).
std::string conformance_case_name(const std::string& c);
CaseResult run_conformance_case(const std::string& c, const BuildOptions& options);
/// The cases that pass on the CPU today (tests/e2e/conformance_passing.inc).
const std::set<std::string>& pinned_passing_cases();

}  // namespace strata::test
