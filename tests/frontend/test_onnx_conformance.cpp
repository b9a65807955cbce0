// test_onnx_conformance.cpp: the ONNX backend conformance cases in shared/conformance, imported by the frontend and
// run on the reference backend. Every case must pass (rtol 1e-3, atol 1e-7, the ONNX runner's defaults) or end in
// a clean "unsupported" Error; never another error or a wrong answer. The cases known to pass are listed so that a
// regression fails.
#include <algorithm>
#include <filesystem>
#include <set>

#include "backends/reference/reference.h"
#include "frontend/onnx/onnx_import.h"
#include "test_support.h"

namespace strata::test {
namespace {

namespace fs = std::filesystem;

enum class Outcome { pass, unsupported, fail };

struct CaseResult {
    Outcome outcome;
    std::string detail;
};

std::vector<Tensor> read_set(const fs::path& dir, const char* prefix) {
    std::vector<Tensor> tensors;
    for (int i = 0;; ++i) {
        fs::path p = dir / ("test_data_set_0/" + std::string(prefix) + std::to_string(i) + ".pb");
        if (!fs::exists(p)) return tensors;
        tensors.push_back(frontend::read_tensor_proto_file(p.string()));
    }
}

CaseResult run_case(const fs::path& dir) {
    try {
        auto g = frontend::import_onnx_file((dir / "model.onnx").string());
        std::vector<Tensor> inputs = read_set(dir, "input_"), want = read_set(dir, "output_");
        if (inputs.size() != g->inputs().size() || want.size() != g->outputs().size())
            return {Outcome::fail, "input/output count differs from the model's"};
        std::map<std::string, Tensor> feed;
        for (size_t i = 0; i < inputs.size(); ++i) feed[g->value(g->inputs()[i]).name] = inputs[i];
        std::map<std::string, Tensor> got = backends::run_reference(*g, feed);
        for (size_t i = 0; i < want.size(); ++i) {
            const Tensor& out = got.at(g->value(g->outputs()[i]).name);
            if (out.shape() != want[i].shape())
                return {Outcome::fail, "output shape " + shape_str(out.shape()) + " != " + shape_str(want[i].shape())};
            int64_t bad = count_mismatches(out, want[i], 1e-3, 1e-7);
            if (bad) return {Outcome::fail, std::to_string(bad) + " mismatching elements"};
        }
        return {Outcome::pass, ""};
    } catch (const Error& e) {
        bool clean =
            e.code() == StatusCode::unsupported && std::string(e.what()).find("unsupported: ") != std::string::npos;
        return {clean ? Outcome::unsupported : Outcome::fail, e.what()};
    }
}

// Cases that pass today; a case dropping out of this list is a regression.
const std::set<std::string> kPassing = {
#include "conformance_passing.inc"
};

TEST(OnnxConformance, EveryCasePassesOrIsCleanlyUnsupported) {
    STRATA_REQUIRE_SHARED_PATH(root, "conformance");
    std::vector<fs::path> cases;
    for (const char* suite : {"pytorch-converted", "pytorch-operator"})
        for (const auto& entry : fs::directory_iterator(fs::path(root) / suite))
            if (fs::exists(entry.path() / "model.onnx")) cases.push_back(entry.path());
    std::sort(cases.begin(), cases.end());
    ASSERT_EQ(cases.size(), 117u);
    std::set<std::string> passing;
    for (const fs::path& dir : cases) {
        CaseResult r = run_case(dir);
        const std::string name = dir.filename().string();
        EXPECT_NE(r.outcome, Outcome::fail) << name << ": " << r.detail;
        if (r.outcome == Outcome::pass) passing.insert(name);
        if (r.outcome == Outcome::unsupported) std::cout << "[ unsupported ] " << name << ": " << r.detail << "\n";
    }
    for (const std::string& name : kPassing) EXPECT_TRUE(passing.count(name)) << name << " no longer passes";
    std::cout << passing.size() << " of " << cases.size() << " cases pass\n";
}

}  // namespace
}  // namespace strata::test
