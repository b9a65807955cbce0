// conv_gpu_check.h: what the convolution GPU tests share: a conv case (shape, strides, pads, dilation, groups, bias,
// activation), random cases drawn from a seed within what a tactic claims, and one checker that runs a tactic on a
// one-node graph against the reference backend (run_tactic) and prints the whole case on failure.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/param_forms.h"
#include "gpu_support.h"
#include "ir/builder.h"
#include "ir/shape_inference.h"
#include "test_support.h"

namespace strata::test {

struct GpuConvCase {
    int64_t n, c, h, w, m;  // h == 0: a 1-D convolution over w
    int64_t kh, kw, sh, sw, dh, dw;
    int64_t pt, pl, pb, pr;
    int64_t group = 1;
    bool bias = true;
    std::optional<ir::UnaryKind> act = std::nullopt;
    float act_alpha = 0.0f, act_beta = 0.0f;  ///< LeakyRelu's slope; Clip's bounds

    std::string str() const {
        return fmt::format("N{} C{} H{} W{} M{} k{}x{} s{}x{} d{}x{} pads[{},{},{},{}] g{} bias{} act{}({}, {})", n, c,
                           h, w, m, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, group, bias,
                           act ? std::to_string(static_cast<int>(*act)) : "none", act_alpha, act_beta);
    }
};

/// A one-node graph holding the case's Conv (weights and bias constants drawn from `seed`), shapes inferred. With
/// `residual`, the Conv also reads a graph input "z" of its output's shape as input 3 (Y = act(conv + B + Z)).
inline std::shared_ptr<ir::Graph> conv_case_graph(const GpuConvCase& cc, uint64_t seed, bool residual = false) {
    const bool one_d = cc.h == 0;
    ir::ConvAttrs a;
    if (one_d) {
        a.kernel = {cc.kw}, a.strides = {cc.sw}, a.dilations = {cc.dw}, a.pads_begin = {cc.pl}, a.pads_end = {cc.pr};
    } else {
        a.kernel = {cc.kh, cc.kw}, a.strides = {cc.sh, cc.sw}, a.dilations = {cc.dh, cc.dw};
        a.pads_begin = {cc.pt, cc.pl}, a.pads_end = {cc.pb, cc.pr};
    }
    a.group = cc.group;
    if (cc.act) a.activation = ir::UnaryAttrs{*cc.act, cc.act_alpha, cc.act_beta};
    const Shape x_shape = one_d ? Shape{cc.n, cc.c, cc.w} : Shape{cc.n, cc.c, cc.h, cc.w};
    const Shape w_shape = one_d ? Shape{cc.m, cc.c / cc.group, cc.kw} : Shape{cc.m, cc.c / cc.group, cc.kh, cc.kw};
    ir::Builder b("gpu_conv_case");
    ir::ValueId x = b.input("x", DType::f32, x_shape);
    std::optional<Tensor> bias;
    if (cc.bias) bias = random_tensor(DType::f32, {cc.m}, seed + 2);
    if (!residual) {
        b.output(b.conv(x, random_tensor(DType::f32, w_shape, seed + 1), bias, a));
    } else {
        auto out_dim = [](int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t p1) {
            return (in + p0 + p1 - ((k - 1) * d + 1)) / s + 1;
        };
        const int64_t q = out_dim(cc.w, cc.kw, cc.sw, cc.dw, cc.pl, cc.pr);
        const Shape y_shape =
            one_d ? Shape{cc.n, cc.m, q} : Shape{cc.n, cc.m, out_dim(cc.h, cc.kh, cc.sh, cc.dh, cc.pt, cc.pb), q};
        ir::ValueId z = b.input("z", DType::f32, y_shape);
        ir::ValueId w = b.constant("w", random_tensor(DType::f32, w_shape, seed + 1));
        ir::ValueId bv = bias ? b.constant("b", *bias) : ir::kNoValue;
        b.output(b.op(ir::OpKind::Conv, {x, w, bv, z}, a));
    }
    auto graph = b.finish();
    ir::infer_shapes(*graph);
    return graph;
}

/// A one-node FullyConnected graph: X [rows, in] (a graph input), W [out, in] and bias [out] constants from `seed`.
inline std::shared_ptr<ir::Graph> fc_case_graph(int64_t rows, int64_t in, int64_t out, bool bias,
                                                std::optional<ir::UnaryKind> act, uint64_t seed) {
    ir::Builder b("gpu_fc_case");
    ir::ValueId x = b.input("x", DType::f32, {rows, in});
    ir::ValueId w = b.constant("w", random_tensor(DType::f32, {out, in}, seed + 1));
    ir::FullyConnectedAttrs a;
    if (act) a.activation = ir::UnaryAttrs{*act, 0.0f, 0.0f};
    std::vector<ir::ValueId> inputs{x, w};
    if (bias) inputs.push_back(b.constant("b", random_tensor(DType::f32, {out}, seed + 2)));
    b.output(b.op(ir::OpKind::FullyConnected, inputs, a));
    auto graph = b.finish();
    ir::infer_shapes(*graph);
    return graph;
}

/// `tactic`'s can_implement on the case's one-node graph, as the builder would describe the step but without a
/// device (so its device checks are off): runs on the host, also in CI.
inline std::string host_can_implement(const GpuConvCase& cc, const std::string& tactic_name, DType dtype, Layout layout,
                                      int config = 0) {
    auto graph = conv_case_graph(cc, 1);
    const ir::Node& node = graph->nodes()[0];
    cuda::StepDesc desc;
    desc.node = &node;
    desc.name = node.name;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (node.inputs[i] == ir::kNoValue) {
            desc.inputs.push_back(cuda::TensorDesc{DType::f32, Layout::rowmajor, {}, false});
            continue;
        }
        desc.inputs.push_back(
            cuda::value_desc(graph->value(node.inputs[i]), dtype, layout, cuda::keeps_float32(node, i)));
    }
    desc.outputs.push_back(cuda::value_desc(graph->value(node.outputs[0]), dtype, layout));
    const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find(tactic_name);
    EXPECT_NE(tactic, nullptr) << tactic_name;
    return tactic ? tactic->can_implement(desc, config) : "no tactic";
}

inline double gpu_tolerance(DType dtype) {
    return dtype == DType::f32 ? 1e-4 : 1e-2;
}

// FullyConnected: X [rows, in] x W [out, in]^T + b, then the activation.
inline void expect_fc_matches(const std::string& tactic, int config, int64_t rows, int64_t in, int64_t out, bool bias,
                              std::optional<ir::UnaryKind> act, DType dtype, uint64_t seed) {
    const std::string what = fmt::format("{} config {} {}: FC rows {} in {} out {} bias {} act {} (seed {})", tactic,
                                         config, dtype_name(dtype), rows, in, out, bias,
                                         act ? std::to_string(static_cast<int>(*act)) : "none", seed);
    auto graph = fc_case_graph(rows, in, out, bias, act, seed);
    TacticRun r = run_tactic(*graph, 0, tactic, config, dtype, Layout::nhwc, seed);
    ASSERT_TRUE(r.ran) << what << ": refused: " << r.refused;
    EXPECT_LE(r.max_rel_error, gpu_tolerance(dtype)) << what;
    EXPECT_EQ(r.unwritten, 0) << what;
}

/// Runs `tactic`/`config` on the case and expects it to run, match the reference and write every output. With
/// `residual` the Conv also adds a graph input z before its activation (conv_case_graph).
inline void expect_conv_matches(const GpuConvCase& cc, const std::string& tactic, int config, DType dtype,
                                Layout layout, uint64_t seed, bool residual = false) {
    const std::string what =
        fmt::format("{} config {} {} {}{}: {} (STRATA_SEED base, case seed {})", tactic, config, dtype_name(dtype),
                    layout_name(layout), residual ? " with residual" : "", cc.str(), seed);
    auto graph = conv_case_graph(cc, seed, residual);
    TacticRun r = run_tactic(*graph, 0, tactic, config, dtype, layout, seed);
    ASSERT_TRUE(r.ran) << what << ": refused: " << r.refused;
    EXPECT_LE(r.max_rel_error, gpu_tolerance(dtype)) << what;
    EXPECT_EQ(r.unwritten, 0) << what;
}

/// Expects `tactic`/`config` to refuse the case, with a reason.
inline void expect_conv_refused(const GpuConvCase& cc, const std::string& tactic, int config, DType dtype,
                                Layout layout) {
    auto graph = conv_case_graph(cc, 1);
    TacticRun r = run_tactic(*graph, 0, tactic, config, dtype, layout, 1);
    EXPECT_FALSE(r.ran) << tactic << " config " << config << " " << dtype_name(dtype) << " " << layout_name(layout)
                        << " should refuse " << cc.str();
    EXPECT_FALSE(r.refused.empty()) << cc.str();
}

/// What random cases may contain.
struct ConvCaseLimits {
    std::vector<int64_t> channels;  ///< input channel counts to draw from (per group)
    std::vector<int64_t> outputs;   ///< output channel counts to draw from (per group)
    std::vector<int64_t> kernels = {1, 3, 5, 7};
    std::vector<int64_t> groups = {1};
    bool depthwise = false;  ///< also draw depthwise (group == C, multiplier 1 or 2)
    bool one_d = false;
    int64_t max_hw = 21;
};

/// A random case within `lim`: odd and even sizes, strides 1/2, dilation 1/2, asymmetric pads, batch 1 or 3.
inline GpuConvCase random_conv_case(std::mt19937_64& rng, const ConvCaseLimits& lim) {
    auto pick = [&](const std::vector<int64_t>& v) { return v[rng() % v.size()]; };
    auto range = [&](int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng() % (hi - lo + 1)); };
    GpuConvCase cc{};
    cc.n = rng() % 2 ? 1 : 3;
    cc.group = pick(lim.groups);
    cc.c = pick(lim.channels) * cc.group;
    cc.m = pick(lim.outputs) * cc.group;
    if (lim.depthwise && rng() % 3 == 0) cc.group = cc.c, cc.m = cc.c * range(1, 2);
    cc.kh = pick(lim.kernels), cc.kw = rng() % 4 ? cc.kh : pick(lim.kernels);
    cc.sh = range(1, 2), cc.sw = rng() % 4 ? cc.sh : range(1, 2);
    cc.dh = rng() % 4 ? 1 : 2, cc.dw = rng() % 4 ? cc.dh : 1;
    cc.pt = range(0, cc.kh / 2 + 1), cc.pb = rng() % 2 ? cc.pt : range(0, cc.kh / 2);
    cc.pl = range(0, cc.kw / 2 + 1), cc.pr = rng() % 2 ? cc.pl : range(0, cc.kw / 2);
    // The input must hold at least one dilated window (after padding).
    const int64_t ekh = (cc.kh - 1) * cc.dh + 1, ekw = (cc.kw - 1) * cc.dw + 1;
    cc.h = std::max(range(3, lim.max_hw), ekh - cc.pt - cc.pb);
    cc.w = std::max(range(3, lim.max_hw), ekw - cc.pl - cc.pr);
    if (lim.one_d && rng() % 4 == 0) cc.h = 0, cc.kh = 1, cc.sh = 1, cc.dh = 1, cc.pt = 0, cc.pb = 0;
    cc.bias = rng() % 4 != 0;
    // Every kind fuse_conv_activation folds into a convolution; LeakyRelu and Clip with their parameters.
    static const ir::UnaryKind kActs[] = {ir::UnaryKind::Relu,    ir::UnaryKind::Relu6,     ir::UnaryKind::SiLU,
                                          ir::UnaryKind::Sigmoid, ir::UnaryKind::HardSwish, ir::UnaryKind::LeakyRelu,
                                          ir::UnaryKind::Clip};
    if (rng() % 2) {
        cc.act = kActs[rng() % 7];
        if (*cc.act == ir::UnaryKind::LeakyRelu) cc.act_alpha = 0.1f;
        // Bounds that clip most cases' outputs but are not so tight that max |reference| (the error's yardstick) is
        // the bound itself while a long reduction's rounding error stays the same size (TF32: 5x5x64 taps).
        if (*cc.act == ir::UnaryKind::Clip) cc.act_alpha = -1.5f, cc.act_beta = 2.0f;
    }
    return cc;
}

}  // namespace strata::test
