// conformance_runner.cpp: see conformance_runner.h.
#include "conformance_runner.h"

#include <algorithm>
#include <filesystem>

#include "frontend/onnx/onnx_import.h"
#include "test_support.h"

namespace strata::test {

namespace fs = std::filesystem;

namespace {

Tensor read_pb(const fs::path& path) { return frontend::read_tensor_proto_file(path.string()); }

// Only an unsupported-coded "...unsupported: <what>" message (maybe prefixed by the file name) is a clean refusal.
CaseResult refusal(const Status& s) {
    bool clean = s.code() == StatusCode::unsupported && s.message().find("unsupported: ") != std::string::npos;
    return {clean ? Outcome::unsupported : Outcome::error, s.message()};
}

CaseResult run_unguarded(const std::string& c, const BuildOptions& options) {
    fs::path dir = fs::path(shared_dir()) / "conformance" / c;
    auto model = Model::from_onnx((dir / "model.onnx").string());
    if (!model) return refusal(model.status());
    auto engine = Engine::build(*model, options);
    if (!engine) return refusal(engine.status());
    auto ctx = engine->make_context();
    if (!ctx) return refusal(ctx.status());
    fs::path data = dir / "test_data_set_0";
    TensorMap inputs;
    auto infos = engine->inputs();
    for (size_t i = 0; i < infos.size(); ++i)
        inputs[infos[i].name] = read_pb(data / ("input_" + std::to_string(i) + ".pb"));
    auto outputs = ctx->run(inputs);
    if (!outputs) return refusal(outputs.status());
    auto out_infos = engine->outputs();
    for (size_t i = 0; i < out_infos.size(); ++i) {
        Tensor want = read_pb(data / ("output_" + std::to_string(i) + ".pb"));
        auto it = outputs->find(out_infos[i].name);
        if (it == outputs->end()) return {Outcome::wrong, "output '" + out_infos[i].name + "' missing"};
        int64_t bad = count_mismatches(it->second, want, 1e-3, 1e-7);
        if (bad) return {Outcome::wrong, std::to_string(bad) + " elements of '" + out_infos[i].name + "' differ"};
    }
    return {Outcome::pass, ""};
}

}  // namespace

std::vector<std::string> list_conformance_cases() {
    std::vector<std::string> cases;
    auto root = shared_path("conformance");
    if (!root) return cases;
    for (const char* suite : {"pytorch-converted", "pytorch-operator"}) {
        fs::path dir = fs::path(*root) / suite;
        if (!fs::is_directory(dir)) continue;
        for (const auto& entry : fs::directory_iterator(dir))
            if (fs::exists(entry.path() / "model.onnx"))
                cases.push_back(std::string(suite) + "/" + entry.path().filename().string());
    }
    std::sort(cases.begin(), cases.end());
    return cases;
}

std::string conformance_case_name(const std::string& c) { return c.substr(c.find('/') + 1); }

CaseResult run_conformance_case(const std::string& c, const BuildOptions& options) {
    try {
        return run_unguarded(c, options);
    } catch (const Error& e) {  // from reading the .pb files: the test data is broken, not the engine
        return {Outcome::error, std::string("reading test data: ") + e.what()};
    }
}

const std::set<std::string>& pinned_passing_cases() {
    static const std::set<std::string> pinned = {
#include "../e2e/conformance_passing.inc"
    };
    return pinned;
}

}  // namespace strata::test
