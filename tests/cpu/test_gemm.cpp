// test_gemm.cpp: the CPU Gemm (every transpose, C broadcast, alpha/beta) and FullyConnected (bias or not, fused
// activation) kernels against the reference, with odd sizes and more output columns than one block.
#include <fmt/format.h>

#include "cpu_check.h"

namespace strata::test {
namespace {

struct GemmCase {
    int64_t m, n, k;
    bool trans_a, trans_b;
    Shape c;  // empty: no C
    bool has_c;
    float alpha, beta;
};

const GemmCase kCases[] = {
    {1, 1000, 67, false, true, {1000}, true, 1.0f, 1.0f},  // classifier at batch 1
    {7, 131, 29, false, false, {7, 131}, true, 0.5f, 2.0f}, {5, 17, 13, true, false, {}, false, 1.0f, 1.0f},
    {9, 150, 11, true, true, {9, 1}, true, -1.5f, 0.25f},   {3, 70, 5, false, true, {1, 70}, true, 1.0f, 1.0f},
    {4, 65, 9, false, false, {1}, true, 1.0f, -1.0f},
};

TEST(CpuGemm, MatchesReferenceOnShapeTable) {
    uint64_t seed = test_seed() + 9000;
    for (const GemmCase& gc : kCases) {
        ir::Builder b("gemm");
        const Shape a_shape = gc.trans_a ? Shape{gc.k, gc.m} : Shape{gc.m, gc.k};
        const Shape b_shape = gc.trans_b ? Shape{gc.n, gc.k} : Shape{gc.k, gc.n};
        seed += 10;
        ir::ValueId a = b.input("a", DType::f32, a_shape);
        std::vector<ir::ValueId> inputs{a, b.constant("b", random_tensor(DType::f32, b_shape, seed + 1))};
        if (gc.has_c) inputs.push_back(b.constant("c", random_tensor(DType::f32, gc.c, seed + 2)));
        b.output(b.op(ir::OpKind::Gemm, inputs, ir::GemmAttrs{gc.alpha, gc.beta, gc.trans_a, gc.trans_b}));
        auto graph = b.finish();
        const std::string config =
            fmt::format("M{} N{} K{} transA{} transB{} C{} alpha{} beta{}", gc.m, gc.n, gc.k, gc.trans_a, gc.trans_b,
                        gc.has_c ? shape_str(gc.c) : "none", gc.alpha, gc.beta);
        expect_tactic_matches_reference(*graph, {{a, random_tensor(DType::f32, a_shape, seed)}}, "cpu.gemm", config,
                                        seed);
    }
}

TEST(CpuFullyConnected, MatchesReferenceWithBiasAndActivations) {
    uint64_t seed = test_seed() + 10000;
    const std::optional<ir::UnaryAttrs> activations[] = {std::nullopt, ir::UnaryAttrs{ir::UnaryKind::Relu},
                                                         ir::UnaryAttrs{ir::UnaryKind::SiLU}};
    for (const auto& act : activations)
        for (bool bias : {false, true})
            for (int64_t n : {1, 3}) {
                const int64_t m = 197, k = 45;
                seed += 10;
                ir::Builder b("fc");
                ir::ValueId x = b.input("x", DType::f32, {n, k});
                std::vector<ir::ValueId> inputs{x, b.constant("w", random_tensor(DType::f32, {m, k}, seed + 1))};
                if (bias) inputs.push_back(b.constant("bias", random_tensor(DType::f32, {m}, seed + 2)));
                b.output(b.op(ir::OpKind::FullyConnected, inputs, ir::FullyConnectedAttrs{act}));
                auto graph = b.finish();
                const std::string config =
                    fmt::format("N{} M{} K{} bias{} act {}", n, m, k, bias, act ? kind_label(act->kind) : "none");
                expect_tactic_matches_reference(*graph, {{x, random_tensor(DType::f32, {n, k}, seed)}},
                                                "cpu.fully_connected", config, seed);
            }
}

}  // namespace
}  // namespace strata::test
