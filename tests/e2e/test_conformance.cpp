// test_conformance.cpp: the ONNX project's operator test cases (../shared/conformance) through the public API on the
// CPU. Every case must end in a pass (rtol 1e-3, atol 1e-7, the ONNX runner's defaults) or a clean
// "unsupported: ..." error; never a wrong answer, a crash or another kind of error. The cases that pass today are
// pinned below, so a regression fails CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "frontend/onnx/onnx_import.h"
#include "strata/strata.h"
#include "test_support.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

// Cases that pass today. A case leaving this list is a regression; a case joining it is progress (add it here).
const std::set<std::string> kPinnedPassing = {
#include "conformance_passing.inc"
};
constexpr size_t kMinimumPassing = 75;

enum class Outcome { pass, unsupported, wrong, error };

struct CaseResult {
    Outcome outcome;
    std::string detail;
};

std::vector<std::string> list_cases() {
    std::vector<std::string> cases;
    auto root = test::shared_path("conformance");
    if (!root) return cases;
    for (const char* suite : {"pytorch-converted", "pytorch-operator"}) {
        fs::path dir = fs::path(*root) / suite;
        if (!fs::is_directory(dir)) continue;
        for (const auto& entry : fs::directory_iterator(dir))
            if (fs::exists(entry.path() / "model.onnx")) cases.push_back(std::string(suite) + "/" + entry.path().filename().string());
    }
    std::sort(cases.begin(), cases.end());
    return cases;
}

std::string case_name(const std::string& c) { return c.substr(c.find('/') + 1); }

Tensor read_pb(const fs::path& path) { return frontend::read_tensor_proto_file(path.string()); }

// Turns a failed Status into an outcome: only an unsupported-coded "...unsupported: <what>" message (it may be
// prefixed by the file name) counts as a clean refusal.
CaseResult refusal(const Status& s) {
    bool clean = s.code() == StatusCode::unsupported && s.message().find("unsupported: ") != std::string::npos;
    return {clean ? Outcome::unsupported : Outcome::error, s.message()};
}

CaseResult run_case_unguarded(const std::string& c) {
    fs::path dir = fs::path(test::shared_dir()) / "conformance" / c;
    auto model = Model::from_onnx((dir / "model.onnx").string());
    if (!model) return refusal(model.status());
    auto engine = Engine::build(*model, BuildOptions{});
    if (!engine) return refusal(engine.status());
    auto ctx = engine->make_context();
    if (!ctx) return refusal(ctx.status());

    fs::path data = dir / "test_data_set_0";
    TensorMap inputs;
    auto infos = engine->inputs();
    for (size_t i = 0; i < infos.size(); ++i) inputs[infos[i].name] = read_pb(data / ("input_" + std::to_string(i) + ".pb"));
    auto outputs = ctx->run(inputs);
    if (!outputs) return refusal(outputs.status());

    auto out_infos = engine->outputs();
    for (size_t i = 0; i < out_infos.size(); ++i) {
        Tensor want = read_pb(data / ("output_" + std::to_string(i) + ".pb"));
        auto it = outputs->find(out_infos[i].name);
        if (it == outputs->end()) return {Outcome::wrong, "output '" + out_infos[i].name + "' missing"};
        int64_t bad = test::count_mismatches(it->second, want, 1e-3, 1e-7);
        if (bad) return {Outcome::wrong, std::to_string(bad) + " elements of '" + out_infos[i].name + "' differ"};
    }
    return {Outcome::pass, ""};
}

CaseResult run_case(const std::string& c) {
    try {
        return run_case_unguarded(c);
    } catch (const Error& e) {  // from reading the .pb files: the test data is broken, not the engine
        return {Outcome::error, std::string("reading test data: ") + e.what()};
    }
}

class Conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(Conformance, PassesOrIsCleanlyUnsupported) {
    const std::string c = GetParam();
    CaseResult r = run_case(c);
    bool pinned = kPinnedPassing.count(case_name(c)) > 0;
    switch (r.outcome) {
        case Outcome::pass: break;
        case Outcome::unsupported:
            EXPECT_FALSE(pinned) << c << " is pinned as passing but now reports: " << r.detail;
            std::cout << "[unsupported] " << c << ": " << r.detail << "\n";
            break;
        case Outcome::wrong: ADD_FAILURE() << c << ": wrong answer: " << r.detail; break;
        case Outcome::error: ADD_FAILURE() << c << ": failed with an error that is not a clean refusal: " << r.detail; break;
    }
}

INSTANTIATE_TEST_SUITE_P(Onnx, Conformance, ::testing::ValuesIn(list_cases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return case_name(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Conformance);

TEST(ConformanceSummary, PinnedListPassesAndCoversEnough) {
    STRATA_REQUIRE_SHARED_PATH(root, "conformance");
    auto cases = list_cases();
    EXPECT_EQ(cases.size(), 117u) << "the conformance folder changed";
    size_t passing = 0;
    std::set<std::string> names;
    for (const auto& c : cases) {
        names.insert(case_name(c));
        if (run_case(c).outcome == Outcome::pass) ++passing;
    }
    for (const auto& p : kPinnedPassing) EXPECT_TRUE(names.count(p)) << "pinned case " << p << " does not exist";
    std::cout << "conformance: " << passing << " of " << cases.size() << " cases pass\n";
    EXPECT_GE(passing, kMinimumPassing);
    EXPECT_GE(kPinnedPassing.size(), kMinimumPassing);
}

}  // namespace
}  // namespace strata
