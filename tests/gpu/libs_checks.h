// libs_checks.h: what the library and GEMM tactic tests share: one-node graphs for Conv, ConvTranspose, MatMul,
// Gemm and FullyConnected built from a case struct, and the loop that runs one tactic over every config, float
// dtype and layout against the reference (run_tactic), printing the case, config, dtype, layout and seed on failure.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "gpu_support.h"
#include "ir/builder.h"
#include "ir/shape_inference.h"
#include "test_support.h"

namespace strata::test {

/// fp32 (no TF32) must be as exact as float accumulation allows; fp16/bf16 get their precision.
inline double tolerance(DType dt) {
    return dt == DType::f32 ? 1e-4 : 1e-2;
}

struct TacticSweep {
    int ran = 0;              ///< (config, dtype, layout) combinations that ran
    int ran_config0_f32 = 0;  ///< of those, config 0 in float32
    std::string refusals;     ///< "config/dtype/layout: reason" lines, for failure messages
};

/// Runs `tactic` on node 0 of `graph` for every config < num_configs, every float dtype and each of `layouts`;
/// expects every run within tolerance with nothing left unwritten.
inline TacticSweep sweep_tactic(const ir::Graph& graph, const std::string& tactic, int num_configs,
                                const std::string& what, uint64_t seed, std::vector<Layout> layouts) {
    TacticSweep sweep;
    for (int config = 0; config < num_configs; ++config) {
        for (DType dt : {DType::f32, DType::f16, DType::bf16}) {
            for (Layout layout : layouts) {
                std::string label = fmt::format("{} config {} {} {} | {} | STRATA_SEED={}", tactic, config,
                                                dtype_name(dt), layout_name(layout), what, seed);
                // A run that never returns (a hang inside a library, as LibsCublasLt.RandomShapesMatchReference timed
                // out once on 2026-12-07) is then named.
                if (test_trace()) std::fprintf(stderr, "[trace] %s\n", label.c_str());
                TacticRun r = run_tactic(graph, 0, tactic, config, dt, layout, seed);
                if (!r.ran) {
                    sweep.refusals +=
                        fmt::format("  config {} {} {}: {}\n", config, dtype_name(dt), layout_name(layout), r.refused);
                    continue;
                }
                ++sweep.ran;
                if (config == 0 && dt == DType::f32) ++sweep.ran_config0_f32;
                EXPECT_LE(r.max_rel_error, tolerance(dt)) << label;
                EXPECT_EQ(r.unwritten, 0) << label;
            }
        }
    }
    return sweep;
}

inline std::shared_ptr<ir::Graph> finish_graph(ir::Builder& b, ir::ValueId y) {
    b.output(y);
    auto graph = b.finish();
    ir::infer_shapes(*graph);
    return graph;
}

// ---- Conv -----------------------------------------------------------------------------------------------------------

struct ConvCase {
    int64_t n, c, h, w, m;  // h == 0: 1-D over w
    int64_t kh, kw, sh, sw, dh, dw;
    int64_t pt, pl, pb, pr;
    int64_t group;
    bool bias;
    std::optional<ir::UnaryKind> act = std::nullopt;
    bool residual = false;  // input 3, Z: Y = act(conv + B + Z)

    std::string str() const {
        return fmt::format("Conv{} N{} C{} H{} W{} M{} k{}x{} s{}x{} d{}x{} pads[{},{},{},{}] g{} bias{} act{}",
                           residual ? "+residual" : "", n, c, h, w, m, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, group,
                           bias, act ? static_cast<int>(*act) : -1);
    }

    std::shared_ptr<ir::Graph> graph() const {
        bool one_d = h == 0;
        ir::ConvAttrs a;
        if (one_d) {
            a.kernel = {kw}, a.strides = {sw}, a.dilations = {dw}, a.pads_begin = {pl}, a.pads_end = {pr};
        } else {
            a.kernel = {kh, kw}, a.strides = {sh, sw}, a.dilations = {dh, dw};
            a.pads_begin = {pt, pl}, a.pads_end = {pb, pr};
        }
        a.group = group;
        if (act) a.activation = ir::UnaryAttrs{*act, *act == ir::UnaryKind::LeakyRelu ? 0.1f : -0.5f, 0.5f};
        ir::Builder b("conv_case");
        Shape xs = one_d ? Shape{n, c, w} : Shape{n, c, h, w};
        Shape ws = one_d ? Shape{m, c / group, kw} : Shape{m, c / group, kh, kw};
        std::vector<ir::ValueId> in = {b.input("x", DType::f32, xs), b.input("w", DType::f32, ws)};
        if (bias) in.push_back(b.input("b", DType::f32, {m}));
        if (residual) {
            int64_t ow = (w + pl + pr - dw * (kw - 1) - 1) / sw + 1, oh = (h + pt + pb - dh * (kh - 1) - 1) / sh + 1;
            if (!bias) in.push_back(ir::kNoValue);
            in.push_back(b.input("z", DType::f32, one_d ? Shape{n, m, ow} : Shape{n, m, oh, ow}));
        }
        return finish_graph(b, b.op(ir::OpKind::Conv, in, a));
    }
};

// ---- ConvTranspose
// ----------------------------------------------------------------------------------------------------

struct ConvTransposeCase {
    int64_t n, c, h, w, m;  // m: output channels (W is [C, M/group, kh, kw]); h == 0: 1-D over w
    int64_t kh, kw, sh, sw, dh, dw;
    int64_t pt, pl, pb, pr;
    int64_t oph, opw;  // output_padding
    int64_t group;
    bool bias;
    std::vector<int64_t> output_shape = {};  // spatial output size, when given (pads are then derived)

    std::string str() const {
        std::string os;
        for (auto v : output_shape) os += std::to_string(v) + " ";
        return fmt::format(
            "ConvTranspose N{} C{} H{} W{} M{} k{}x{} s{}x{} d{}x{} pads[{},{},{},{}] outpad[{},{}] g{} "
            "bias{} output_shape[{}]",
            n, c, h, w, m, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, oph, opw, group, bias, os);
    }

    std::shared_ptr<ir::Graph> graph() const {
        bool one_d = h == 0;
        ir::ConvTransposeAttrs a;
        if (one_d) {
            a.kernel = {kw}, a.strides = {sw}, a.dilations = {dw}, a.pads_begin = {pl}, a.pads_end = {pr};
            a.output_padding = {opw};
        } else {
            a.kernel = {kh, kw}, a.strides = {sh, sw}, a.dilations = {dh, dw};
            a.pads_begin = {pt, pl}, a.pads_end = {pb, pr}, a.output_padding = {oph, opw};
        }
        a.output_shape = output_shape;
        a.group = group;
        ir::Builder b("conv_transpose_case");
        Shape xs = one_d ? Shape{n, c, w} : Shape{n, c, h, w};
        Shape ws = one_d ? Shape{c, m / group, kw} : Shape{c, m / group, kh, kw};
        std::vector<ir::ValueId> in = {b.input("x", DType::f32, xs), b.input("w", DType::f32, ws)};
        if (bias) in.push_back(b.input("b", DType::f32, {m}));
        return finish_graph(b, b.op(ir::OpKind::ConvTranspose, in, a));
    }
};

// ---- MatMul, Gemm, FullyConnected ---------------------------------------------------------------------------------

struct MatMulCase {
    Shape a, b;
    std::string str() const { return fmt::format("MatMul A{} B{}", shape_str(a), shape_str(b)); }
    std::shared_ptr<ir::Graph> graph() const {
        ir::Builder bld("matmul_case");
        ir::ValueId va = bld.input("a", DType::f32, a), vb = bld.input("b", DType::f32, b);
        return finish_graph(bld, bld.op(ir::OpKind::MatMul, {va, vb}));
    }
};

struct GemmCase {
    int64_t m, n, k;
    bool trans_a, trans_b;
    float alpha, beta;
    std::optional<Shape> c;  // C's shape (broadcast to [m, n]) or none
    std::string str() const {
        return fmt::format("Gemm m{} n{} k{} transA{} transB{} alpha{} beta{} C{}", m, n, k, trans_a, trans_b, alpha,
                           beta, c ? shape_str(*c) : "none");
    }
    std::shared_ptr<ir::Graph> graph() const {
        ir::Builder b("gemm_case");
        std::vector<ir::ValueId> in = {b.input("a", DType::f32, trans_a ? Shape{k, m} : Shape{m, k}),
                                       b.input("b", DType::f32, trans_b ? Shape{n, k} : Shape{k, n})};
        if (c) in.push_back(b.input("c", DType::f32, *c));
        return finish_graph(b, b.op(ir::OpKind::Gemm, in, ir::GemmAttrs{alpha, beta, trans_a, trans_b}));
    }
};

struct FcCase {
    int64_t n, k, m;
    bool bias;
    std::optional<ir::UnaryKind> act = std::nullopt;
    std::string str() const {
        return fmt::format("FullyConnected N{} K{} M{} bias{} act{}", n, k, m, bias, act ? static_cast<int>(*act) : -1);
    }
    std::shared_ptr<ir::Graph> graph() const {
        ir::Builder b("fc_case");
        std::vector<ir::ValueId> in = {b.input("x", DType::f32, {n, k}), b.input("w", DType::f32, {m, k})};
        if (bias) in.push_back(b.input("b", DType::f32, {m}));
        ir::FullyConnectedAttrs a;
        if (act) a.activation = ir::UnaryAttrs{*act, *act == ir::UnaryKind::LeakyRelu ? 0.1f : -0.5f, 0.5f};
        return finish_graph(b, b.op(ir::OpKind::FullyConnected, in, a));
    }
};

// NOTE [fp32 outputs]: `tactic` on FullyConnected cases with fp16/bf16 operands and a float32 result, at float32's
// tolerance: a result rounded to 16 bits on the way (bf16: 2^-9 relative) would fail it.
inline void expect_unrounded_fp32_results(const std::string& tactic, uint64_t seed) {
    const FcCase cases[] = {FcCase{3, 64, 100, true}, FcCase{2, 1024, 1000, true},
                            FcCase{5, 40, 9, true, ir::UnaryKind::Relu}};
    for (const FcCase& c : cases)
        for (DType dt : {DType::f16, DType::bf16}) {
            auto graph = c.graph();
            TacticRun r = run_tactic(*graph, 0, tactic, 0, dt, Layout::nchw, seed += 10, -1.0, 1.0, DType::f32);
            ASSERT_TRUE(r.ran) << tactic << " " << c.str() << " " << dtype_name(dt) << ": " << r.refused;
            EXPECT_LE(r.max_rel_error, 1e-5)
                << tactic << " " << c.str() << " " << dtype_name(dt) << " (seed " << seed << ")";
            EXPECT_EQ(r.unwritten, 0) << tactic << " " << c.str();
        }
}

// Shapes shared by the cuBLASLt and tiled-GEMM tests: odd sizes, tails past 64, 1-D operands, every batch pattern.
inline const std::vector<MatMulCase>& matmul_cases() {
    static const std::vector<MatMulCase> cases = {
        {{5, 7}, {7, 3}},
        {{1, 9}, {9, 130}},
        {{3, 5, 7}, {3, 7, 6}},        // batched
        {{2, 3, 5, 7}, {7, 4}},        // B without batch: folds into one product
        {{5, 7}, {2, 3, 7, 4}},        // A broadcast over B's batch
        {{2, 1, 5, 7}, {1, 3, 7, 4}},  // both broadcast (not one strided batch)
        {{7}, {7, 3}},                 // 1-D A
        {{4, 7}, {7}},                 // 1-D B
        {{7}, {7}},                    // dot product
        {{33, 65}, {65, 70}},
        {{1, 130, 17}, {1, 17, 129}},
        {{3, 64, 64}, {3, 64, 64}},
    };
    return cases;
}

inline const std::vector<GemmCase>& gemm_cases() {
    static const std::vector<GemmCase> cases = {
        {5, 7, 9, false, false, 1.0f, 1.0f, Shape{5, 7}},
        {13, 4, 6, true, false, 0.5f, 2.0f, Shape{4}},
        {17, 65, 33, false, true, 1.5f, 0.25f, Shape{17, 1}},
        {3, 3, 3, true, true, 1.0f, 1.0f, std::nullopt},
        {70, 66, 129, false, false, 1.0f, 0.5f, Shape{1, 66}},
        {8, 8, 8, false, false, 1.0f, 1.0f, Shape{}},          // scalar C
        {1, 1000, 512, false, true, 1.0f, 1.0f, Shape{1000}},  // a classifier head as ONNX exports it
    };
    return cases;
}

inline const std::vector<FcCase>& fc_cases() {
    using K = ir::UnaryKind;
    static const std::vector<FcCase> cases = {
        {1, 37, 11, true, K::Relu},       {3, 64, 100, true}, {5, 17, 9, false, K::SiLU},
        {2, 129, 65, true, K::HardSwish}, {1, 8, 8, false},   {64, 256, 130, true, K::Relu},
        {7, 33, 1, true, K::Sigmoid},
    };
    return cases;
}

// ---- Random shapes drawn from the test seed (printed with each case on failure) ----------------------------------

inline int64_t draw(std::mt19937_64& rng, int64_t lo, int64_t hi) {  // uniform in [lo, hi]
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

/// A 2-D convolution with symmetric pads (what every convolution tactic takes), batch 1 or 3, and an activation.
inline ConvCase random_conv_case(std::mt19937_64& rng) {
    using K = ir::UnaryKind;
    for (;;) {
        int64_t g = draw(rng, 1, 3), kh = 2 * draw(rng, 0, 2) + 1, kw = 2 * draw(rng, 0, 2) + 1;
        int64_t dh = draw(rng, 1, 2), dw = draw(rng, 1, 2), ph = draw(rng, 0, 2), pw = draw(rng, 0, 2);
        ConvCase c{draw(rng, 0, 1) ? 3 : 1,
                   g * draw(rng, 1, 6),
                   draw(rng, 1, 21),
                   draw(rng, 1, 21),
                   g * draw(rng, 1, 6),
                   kh,
                   kw,
                   draw(rng, 1, 3),
                   draw(rng, 1, 3),
                   dh,
                   dw,
                   ph,
                   pw,
                   ph,
                   pw,
                   g,
                   draw(rng, 0, 1) == 1};
        const K acts[] = {K::Relu, K::Relu6, K::SiLU, K::HardSwish, K::Sigmoid, K::LeakyRelu};
        if (draw(rng, 0, 1)) c.act = acts[draw(rng, 0, 5)];
        c.residual = draw(rng, 0, 2) == 0;
        if (c.h + 2 * ph >= dh * (kh - 1) + 1 && c.w + 2 * pw >= dw * (kw - 1) + 1) return c;
    }
}

/// A 2-D ConvTranspose: pads up to the dilated kernel, output_padding below the stride; unequal pads unless
/// `symmetric`.
inline ConvTransposeCase random_conv_transpose_case(std::mt19937_64& rng, bool symmetric) {
    for (;;) {
        int64_t g = draw(rng, 1, 3), kh = draw(rng, 1, 4), kw = draw(rng, 1, 4), sh = draw(rng, 1, 3),
                sw = draw(rng, 1, 3), dh = draw(rng, 1, 2), dw = draw(rng, 1, 2);
        int64_t pt = draw(rng, 0, dh * (kh - 1)), pl = draw(rng, 0, dw * (kw - 1));
        int64_t pb = symmetric ? pt : draw(rng, 0, dh * (kh - 1)), pr = symmetric ? pl : draw(rng, 0, dw * (kw - 1));
        ConvTransposeCase c{draw(rng, 0, 1) ? 3 : 1,
                            g * draw(rng, 1, 5),
                            draw(rng, 1, 9),
                            draw(rng, 1, 9),
                            g * draw(rng, 1, 5),
                            kh,
                            kw,
                            sh,
                            sw,
                            dh,
                            dw,
                            pt,
                            pl,
                            pb,
                            pr,
                            draw(rng, 0, sh - 1),
                            draw(rng, 0, sw - 1),
                            g,
                            draw(rng, 0, 1) == 1};
        int64_t out_h = sh * (c.h - 1) + c.oph + dh * (kh - 1) + 1 - pt - pb;
        int64_t out_w = sw * (c.w - 1) + c.opw + dw * (kw - 1) + 1 - pl - pr;
        if (out_h >= 1 && out_w >= 1) return c;
    }
}

/// A MatMul with up to two batch dims, each operand's dims broadcast at random; `strided_only`: one strided batch
/// per operand (each operand has all of the batch or none of it).
inline MatMulCase random_matmul_case(std::mt19937_64& rng, bool strided_only) {
    int64_t m = draw(rng, 1, 80), k = draw(rng, 1, 80), n = draw(rng, 1, 80);
    Shape batch;
    for (int64_t i = 0, r = draw(rng, 0, 2); i < r; ++i) batch.push_back(draw(rng, 1, 3));
    Shape ba = batch, bb = batch;
    if (strided_only) {
        if (draw(rng, 0, 2) == 0)
            ba.clear();
        else if (draw(rng, 0, 1) == 0)
            bb.clear();
    } else {
        for (size_t i = 0; i < batch.size(); ++i) (draw(rng, 0, 1) ? ba : bb)[i] = draw(rng, 0, 1) ? 1 : batch[i];
    }
    ba.push_back(m), ba.push_back(k), bb.push_back(k), bb.push_back(n);
    return MatMulCase{ba, bb};
}

inline GemmCase random_gemm_case(std::mt19937_64& rng) {
    int64_t m = draw(rng, 1, 100), n = draw(rng, 1, 100), k = draw(rng, 1, 100);
    std::optional<Shape> c;
    switch (draw(rng, 0, 4)) {
        case 0:
            break;
        case 1:
            c = Shape{m, n};
            break;
        case 2:
            c = Shape{n};
            break;
        case 3:
            c = Shape{m, 1};
            break;
        default:
            c = Shape{1, 1};
            break;
    }
    return GemmCase{
        m, n, k, draw(rng, 0, 1) == 1, draw(rng, 0, 1) == 1, 0.25f * draw(rng, 1, 8), 0.25f * draw(rng, 0, 8), c};
}

inline FcCase random_fc_case(std::mt19937_64& rng) {
    using K = ir::UnaryKind;
    FcCase c{draw(rng, 1, 70), draw(rng, 1, 300), draw(rng, 1, 200), draw(rng, 0, 1) == 1};
    const K acts[] = {K::Relu, K::Relu6, K::SiLU, K::HardSwish, K::Sigmoid, K::Tanh};
    if (draw(rng, 0, 1)) c.act = acts[draw(rng, 0, 5)];
    return c;
}

}  // namespace strata::test
