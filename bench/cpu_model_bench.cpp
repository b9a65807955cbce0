// cpu_model_bench.cpp: times whole models on the CPU backend through the public API (build once, then median of N
// runs after a warm-up), for use until `strata bench` exists; with -v it prints the chosen kernel of every step.
// Build and use: see bench/README.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "strata/strata.h"

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s MODEL.onnx BATCH [ITERS] [-v]\n", argv[0]);
        return 2;
    }
    const int batch = std::atoi(argv[2]);
    const int iters = argc > 3 && argv[3][0] != '-' ? std::atoi(argv[3]) : 10;
    const bool verbose = std::string(argv[argc - 1]) == "-v";
    auto model = strata::Model::from_onnx(argv[1]);
    if (!model.ok()) {
        std::fprintf(stderr, "%s\n", model.status().message().c_str());
        return 1;
    }
    auto engine = strata::Engine::build(*model, {.device = strata::Device::cpu(), .batch = batch, .threads = 2});
    if (!engine.ok()) {
        std::fprintf(stderr, "%s\n", engine.status().message().c_str());
        return 1;
    }
    if (verbose) std::printf("%s\n", engine->describe().c_str());
    auto ctx = engine->make_context();
    strata::TensorMap inputs;
    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    for (const strata::TensorInfo& info : engine->inputs()) {
        strata::Tensor t = strata::Tensor::empty(info.dtype, info.shape);
        for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = normal(rng);
        inputs[info.name] = t;
    }
    std::vector<double> ms;
    for (int i = 0; i < iters + 2; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        auto out = ctx->run(inputs);
        const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (!out.ok()) {
            std::fprintf(stderr, "%s\n", out.status().message().c_str());
            return 1;
        }
        if (i >= 2) ms.push_back(elapsed);  // two warm-up runs
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%s batch %d: median %.2f ms, min %.2f ms over %d runs\n", argv[1], batch, ms[ms.size() / 2], ms[0],
                iters);
    return 0;
}
