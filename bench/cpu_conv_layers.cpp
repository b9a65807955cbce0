// cpu_conv_layers.cpp: times the CPU backend's convolution tactics on a list of layers (one per line on stdin:
// "batch C H W M KH KW stride pad group"; bench/conv_layers.py prints a model's), to choose how threads are used
// (NOTE [cpu threading] in src/backends/cpu/conv_gemm.cpp) before the `strata bench` tool can time whole models.
// Build and use: see bench/README.md.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/cpu_common.h"
#include "core/thread_pool.h"

using namespace strata;

namespace {

struct Layer {
    int64_t n, c, h, w, m, kh, kw, stride, pad, group;
};

Tensor random_f32(const Shape& shape, std::mt19937& rng) {
    Tensor t = Tensor::empty(DType::f32, shape);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
    return t;
}

// Median milliseconds of `reps` runs of one layer (after one warm-up run).
double time_layer(const Layer& l, const backends::KernelContext& ctx, int reps, std::mt19937& rng, bool& depthwise) {
    ir::ConvAttrs a;
    a.kernel = {l.kh, l.kw}, a.strides = {l.stride, l.stride}, a.dilations = {1, 1};
    a.pads_begin = {l.pad, l.pad}, a.pads_end = {l.pad, l.pad}, a.group = l.group;
    a.activation = ir::UnaryAttrs{ir::UnaryKind::Relu};
    ir::Node node;
    node.op = ir::OpKind::Conv;
    node.attrs = a;
    const int64_t oh = (l.h + 2 * l.pad - l.kh) / l.stride + 1, ow = (l.w + 2 * l.pad - l.kw) / l.stride + 1;
    std::vector<Tensor> in{random_f32({l.n, l.c, l.h, l.w}, rng), random_f32({l.m, l.c / l.group, l.kh, l.kw}, rng),
                           random_f32({l.m}, rng)};
    std::vector<Tensor> out{Tensor::empty(DType::f32, {l.n, l.m, oh, ow})};
    depthwise = l.group > 1 && l.group == l.c;
    auto run = depthwise ? backends::cpu::conv_depthwise : backends::cpu::conv_gemm;
    run(node, in, out, ctx);
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        run(node, in, out, ctx);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    int threads = 2, blas_threads = 1, reps = 5;
    bool verbose = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--threads" && i + 1 < argc)
            threads = std::atoi(argv[++i]);
        else if (arg == "--blas-threads" && i + 1 < argc)
            blas_threads = std::atoi(argv[++i]);
        else if (arg == "--reps" && i + 1 < argc)
            reps = std::atoi(argv[++i]);
        else if (arg == "-v")
            verbose = true;
        else {
            std::fprintf(stderr, "usage: %s [--threads T (0: no pool)] [--blas-threads B] [--reps R] [-v] < layers\n",
                         argv[0]);
            return 2;
        }
    }
    std::vector<Layer> layers;
    Layer l;
    while (std::cin >> l.n >> l.c >> l.h >> l.w >> l.m >> l.kh >> l.kw >> l.stride >> l.pad >> l.group)
        layers.push_back(l);
    ThreadPool pool(std::max(threads, 1));
    const backends::KernelContext ctx{threads > 0 ? &pool : nullptr};
    backends::cpu::single_threaded_blas();   // what the kernels do on their first call...
    openblas_set_num_threads(blas_threads);  // ...overridden here to compare the two ways of threading
    std::mt19937 rng(1);
    std::map<std::string, double> by_kind;
    double total = 0;
    for (const Layer& layer : layers) {
        bool depthwise = false;
        const double ms = time_layer(layer, ctx, reps, rng, depthwise);
        const bool pointwise = layer.kh == 1 && layer.kw == 1 && layer.stride == 1 && layer.pad == 0;
        by_kind[depthwise ? "depthwise" : pointwise ? "pointwise" : "im2col"] += ms;
        total += ms;
        if (verbose)
            std::printf("%3ld %4ld %4ld %4ld %4ld %ldx%ld s%ld p%ld g%ld: %8.3f ms\n", layer.n, layer.c, layer.h,
                        layer.w, layer.m, layer.kh, layer.kw, layer.stride, layer.pad, layer.group, ms);
    }
    std::printf("pool threads %d, blas threads %d: total %.2f ms", threads, blas_threads, total);
    for (const auto& [kind, ms] : by_kind) std::printf(", %s %.2f", kind.c_str(), ms);
    std::printf("\n");
    return 0;
}
