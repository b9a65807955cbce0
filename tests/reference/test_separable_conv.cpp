// test_separable_conv.cpp: the reference SeparableConv against the definition written out here in double: the plain
// depthwise convolution (depthwise_reference.h) plus Bd and act_d, then sum over c of Wp[k,c] * mid plus Bp, Z and
// act_p, on random problems (any kernel, stride, dilation, asymmetric pads) with and without each optional input.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "depthwise_reference.h"
#include "reference_test_util.h"

namespace strata::test {
namespace {

double relu6(double v) {
    return std::min(std::max(v, 0.0), 6.0);
}

struct SepCase {
    DepthwiseProblem pb;
    int64_t k_out = 1;
    bool bd = false, bp = false, z = false, act_d = false, act_p = false;
};

std::vector<double> separable_ref(const SepCase& sc, const std::vector<Tensor>& in) {
    const DepthwiseProblem& pb = sc.pb;
    std::vector<double> mid = depthwise_forward_ref(pb, tensor_doubles(in[0]), tensor_doubles(in[1]));
    const int64_t plane = pb.p() * pb.q();
    for (int64_t i = 0; i < static_cast<int64_t>(mid.size()); ++i) {
        if (sc.bd) mid[i] += in[2].data<float>()[(i / plane) % pb.c];
        if (sc.act_d) mid[i] = relu6(mid[i]);
    }
    std::vector<double> y(static_cast<size_t>(pb.n * sc.k_out * plane));
    const float* wp = in[3].data<float>();
    for (int64_t n = 0; n < pb.n; ++n)
        for (int64_t k = 0; k < sc.k_out; ++k)
            for (int64_t j = 0; j < plane; ++j) {
                const int64_t at = (n * sc.k_out + k) * plane + j;
                double acc = sc.bp ? in[4].data<float>()[k] : 0.0;
                for (int64_t c = 0; c < pb.c; ++c) acc += wp[k * pb.c + c] * mid[(n * pb.c + c) * plane + j];
                if (sc.z) acc += in[5].data<float>()[at];
                y[at] = sc.act_p ? relu6(acc) : acc;
            }
    return y;
}

ir::SeparableConvAttrs sep_attrs(const SepCase& sc) {
    const DepthwiseProblem& pb = sc.pb;
    ir::ConvAttrs dw{{pb.r, pb.s},
                     {pb.stride_h, pb.stride_w},
                     {pb.dil_h, pb.dil_w},
                     {pb.pad_top, pb.pad_left},
                     {pb.pad_bottom, pb.pad_right},
                     pb.c,
                     ir::AutoPad::explicit_pads,
                     std::nullopt};
    ir::ConvAttrs pw{{1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, 1, ir::AutoPad::explicit_pads, std::nullopt};
    if (sc.act_d) dw.activation = ir::UnaryAttrs{ir::UnaryKind::Relu6};
    if (sc.act_p) pw.activation = ir::UnaryAttrs{ir::UnaryKind::Relu6};
    return {dw, pw};
}

TEST(ReferenceSeparableConv, MatchesTheDefinitionOnRandomProblems) {
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 40; ++i) {
        SepCase sc;
        sc.pb = random_depthwise_problem(rng, 13);
        sc.pb.mult = 1;
        sc.pb.c = std::min<int64_t>(sc.pb.c, 40);
        sc.k_out = 1 + static_cast<int64_t>(rng() % 24);
        sc.bd = rng() & 1, sc.bp = rng() & 1, sc.z = rng() & 1, sc.act_d = rng() & 1, sc.act_p = rng() & 1;
        const DepthwiseProblem& pb = sc.pb;
        const Shape y_shape{pb.n, sc.k_out, pb.p(), pb.q()};
        const uint64_t s = seed + 100 * static_cast<uint64_t>(i);
        std::vector<Tensor> in = {random_tensor(DType::f32, pb.x_shape(), s, -2.0, 2.0),
                                  random_tensor(DType::f32, pb.w_shape(), s + 1),
                                  sc.bd ? random_tensor(DType::f32, {pb.c}, s + 2) : Tensor(),
                                  random_tensor(DType::f32, {sc.k_out, pb.c, 1, 1}, s + 3),
                                  sc.bp ? random_tensor(DType::f32, {sc.k_out}, s + 4) : Tensor(),
                                  sc.z ? random_tensor(DType::f32, y_shape, s + 5) : Tensor()};
        Tensor y = run_reference_op1(ir::OpKind::SeparableConv, sep_attrs(sc), in, {DType::f32, y_shape});
        RefError e = compare_to_ref(y, separable_ref(sc, in));
        EXPECT_EQ(e.nan_count, 0);
        EXPECT_LE(e.max_rel, 1e-5) << pb.str() << " K" << sc.k_out << " bd" << sc.bd << " bp" << sc.bp << " z" << sc.z
                                   << " act " << sc.act_d << sc.act_p << ", seed " << seed << " case " << i;
    }
}

TEST(ReferenceSeparableConv, RefusesHalfPrecision) {
    SepCase sc;
    sc.pb.c = 2, sc.pb.h = 3, sc.pb.w = 3;
    std::vector<Tensor> in = {random_tensor(DType::f16, {1, 2, 3, 3}, 1), random_tensor(DType::f16, {2, 1, 1, 1}, 2),
                              Tensor(), random_tensor(DType::f16, {3, 2, 1, 1}, 3)};
    EXPECT_THROW(run_reference_op1(ir::OpKind::SeparableConv, sep_attrs(sc), in, {DType::f16, {1, 3, 3, 3}}), Error);
}

}  // namespace
}  // namespace strata::test
