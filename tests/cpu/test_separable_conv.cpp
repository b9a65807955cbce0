// test_separable_conv.cpp: cpu.separable_conv (the CPU depthwise kernel, then the 1x1 GEMM) against the reference
// SeparableConv over a table of MobileNet-like shapes, biases or not, activations on either half; and its refusals.
#include <fmt/format.h>

#include "cpu_check.h"

namespace strata::test {
namespace {

struct SepCase {
    int64_t n, c, h, w, k_out, kernel, stride, pad, dilation;
    bool bd, bp;
    std::optional<ir::UnaryKind> act_d, act_p;

    std::string str() const {
        return fmt::format("N{} C{} H{} W{} K{} k{} s{} p{} d{} bd{} bp{} act_d {} act_p {}", n, c, h, w, k_out, kernel,
                           stride, pad, dilation, bd, bp, act_d ? kind_label(*act_d) : "none",
                           act_p ? kind_label(*act_p) : "none");
    }
};

// A one-node SeparableConv graph (weights constant, X and the optional residual Z graph inputs) and its feeds.
ir::Graph sep_graph(const SepCase& sc, uint64_t seed, bool residual, std::map<ir::ValueId, Tensor>& feeds) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {sc.n, sc.c, sc.h, sc.w});
    feeds[x] = random_tensor(DType::f32, {sc.n, sc.c, sc.h, sc.w}, seed, -2.0, 2.0);
    ir::SeparableConvAttrs a{ir::conv2d_attrs(sc.kernel, sc.stride, sc.pad, sc.c, sc.dilation), ir::conv2d_attrs(1)};
    if (sc.act_d) a.depthwise.activation = ir::UnaryAttrs{*sc.act_d};
    if (sc.act_p) a.pointwise.activation = ir::UnaryAttrs{*sc.act_p};
    std::vector<ir::ValueId> in = {
        x, b.constant("wd", random_tensor(DType::f32, {sc.c, 1, sc.kernel, sc.kernel}, seed + 1)),
        sc.bd ? b.constant("bd", random_tensor(DType::f32, {sc.c}, seed + 2)) : ir::kNoValue,
        b.constant("wp", random_tensor(DType::f32, {sc.k_out, sc.c, 1, 1}, seed + 3)),
        sc.bp ? b.constant("bp", random_tensor(DType::f32, {sc.k_out}, seed + 4)) : ir::kNoValue};
    if (residual) in.push_back(b.input("z", DType::f32, {sc.n, sc.k_out, sc.h, sc.w}));
    b.output(b.op(ir::OpKind::SeparableConv, in, a, "sep"), "y");
    return *b.finish();
}

TEST(CpuSeparableConv, MatchesReference) {
    using K = ir::UnaryKind;
    const SepCase cases[] = {
        {1, 16, 12, 12, 24, 3, 1, 1, 1, true, true, K::Relu6, std::nullopt},
        {2, 24, 13, 11, 16, 3, 2, 1, 1, true, false, K::Relu6, K::Relu},
        {1, 7, 9, 10, 5, 5, 2, 2, 1, false, true, std::nullopt, K::HardSwish},
        {3, 5, 8, 8, 3, 3, 1, 2, 2, false, false, K::SiLU, std::nullopt},
        {1, 32, 7, 7, 64, 1, 1, 0, 1, true, true, std::nullopt, std::nullopt},
    };
    const uint64_t seed = test_seed();
    for (const SepCase& sc : cases) {
        std::map<ir::ValueId, Tensor> feeds;
        ir::Graph g = sep_graph(sc, seed, false, feeds);
        expect_tactic_matches_reference(g, feeds, "cpu.separable_conv", sc.str(), seed);
    }
}

TEST(CpuSeparableConv, ResidualIsLeftToTheReference) {
    std::map<ir::ValueId, Tensor> feeds;
    ir::Graph g =
        sep_graph({1, 4, 6, 6, 4, 3, 1, 1, 1, true, true, ir::UnaryKind::Relu6, std::nullopt}, 1, true, feeds);
    EXPECT_EQ(tactic_reason(g, "cpu.separable_conv"), "cpu.separable_conv: no fused residual input (GPU plans only)");
}

}  // namespace
}  // namespace strata::test
