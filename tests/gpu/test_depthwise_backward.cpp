// test_depthwise_backward.cpp: the depthwise backward kernels (backends/cuda/kernels/depthwise/depthwise_backward.h)
// against the host reference in double (tests/support/depthwise_reference.h, itself proved by the adjoint identities
// in tests/reference/test_depthwise_reference.cpp): random and fixed shapes (odd sizes, kernels 1..7 and beyond,
// strides 1..3, dilation 1..2, asymmetric pads, multiplier 1..3, batch 1..5), nchw and nhwc, fp32, fp16 and bf16,
// aligned and unaligned pointers, 1-D; outputs and workspace poisoned with NaN so that anything unwritten fails.
// Also: wgrad is bit-identical from run to run, the plan covers every kernel variant, bad params are refused.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/host_pack.h"
#include "backends/cuda/kernels/depthwise/depthwise_backward.h"
#include "backends/cuda/kernels/depthwise/depthwise_backward_plan.h"
#include "depthwise_reference.h"
#include "gpu_support.h"
#include "test_support.h"

namespace strata::test {
namespace {

constexpr DType kDtypes[] = {DType::f32, DType::f16, DType::bf16};
constexpr Layout kLayouts[] = {Layout::nchw, Layout::nhwc};

double tolerance(DType dtype) {
    return dtype == DType::f32 ? 1e-5 : 1e-2;
}

cuda::ConvGeometry geometry(const DepthwiseProblem& pb, bool one_d) {
    cuda::ConvGeometry g;
    g.n = static_cast<int>(pb.n), g.c = static_cast<int>(pb.c), g.h = static_cast<int>(pb.h);
    g.w = static_cast<int>(pb.w), g.k = static_cast<int>(pb.k()), g.p = static_cast<int>(pb.p());
    g.q = static_cast<int>(pb.q()), g.r = static_cast<int>(pb.r), g.s = static_cast<int>(pb.s);
    g.stride_h = static_cast<int>(pb.stride_h), g.stride_w = static_cast<int>(pb.stride_w);
    g.dil_h = static_cast<int>(pb.dil_h), g.dil_w = static_cast<int>(pb.dil_w);
    g.pad_h = static_cast<int>(pb.pad_top), g.pad_w = static_cast<int>(pb.pad_left);
    g.group = g.c;
    g.one_d = one_d;
    return g;
}

// The descs of X, W and dY: rank 4 in `layout`, or rank 3 row-major for a 1-D problem (H = R = 1, no pads on H).
struct Descs {
    cuda::TensorDesc x, w, dy;
};
Descs descs(const DepthwiseProblem& pb, DType dtype, Layout layout, bool one_d) {
    if (!one_d) return {{dtype, layout, pb.x_shape()}, {dtype, layout, pb.w_shape()}, {dtype, layout, pb.y_shape()}};
    return {{dtype, Layout::rowmajor, {pb.n, pb.c, pb.w}},
            {dtype, Layout::rowmajor, {pb.k(), 1, pb.s}},
            {dtype, Layout::rowmajor, {pb.n, pb.k(), pb.q()}}};
}

// A device tensor placed `offset` elements into its buffer (offset 1 breaks the 16-byte alignment).
struct DevTensor {
    cuda::DeviceBuffer buffer;
    cuda::TensorDesc desc;
    size_t offset_bytes = 0;
    void* ptr() const { return static_cast<char*>(buffer.data()) + offset_bytes; }
};

DevTensor poisoned(const cuda::TensorDesc& desc, int offset) {
    DevTensor t{cuda::DeviceBuffer(desc.bytes() + 16, "a test tensor"), desc, offset * dtype_size(desc.dtype)};
    // All bits set: NaN in float32, float16 and bfloat16.
    STRATA_CUDA_CHECK(cudaMemset(t.buffer.data(), 0xFF, t.buffer.bytes()), "poisoning a test tensor");
    return t;
}

DevTensor upload(const Tensor& logical, const cuda::TensorDesc& desc, int offset) {
    DevTensor t = poisoned(desc, offset);
    const auto bytes = cuda::pack_host(logical.reshaped(desc.shape), desc);
    STRATA_CUDA_CHECK(cudaMemcpy(t.ptr(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice), "test upload");
    return t;
}

Tensor download(const DevTensor& t) {
    std::vector<uint8_t> bytes(t.desc.bytes());
    STRATA_CUDA_CHECK(cudaMemcpy(bytes.data(), t.ptr(), bytes.size(), cudaMemcpyDeviceToHost), "test download");
    return cuda::unpack_host(bytes.data(), t.desc);
}

// Random X, W, dY (logical 4-D, float32 holding values of `dtype`) and the reference gradients from them.
struct Problem {
    DepthwiseProblem pb;
    Tensor x, w, dy;
    std::vector<double> dx_ref, dw_ref;
};

Problem make_problem(const DepthwiseProblem& pb, DType dtype, uint64_t seed) {
    Problem p{pb,
              round_to(random_tensor(DType::f32, pb.x_shape(), seed + 1), dtype),
              round_to(random_tensor(DType::f32, pb.w_shape(), seed + 2), dtype),
              round_to(random_tensor(DType::f32, pb.y_shape(), seed + 3), dtype),
              {},
              {}};
    p.dx_ref = depthwise_dgrad_ref(pb, tensor_doubles(p.dy), tensor_doubles(p.w));
    p.dw_ref = depthwise_wgrad_ref(pb, tensor_doubles(p.x), tensor_doubles(p.dy));
    return p;
}

struct Outputs {
    Tensor dx, dw;
    std::string plan;  // the kernels the plans chose, for failure messages
};

std::string plan_str(const cuda::DepthwiseBackwardParams& prm, DType dtype) {
    const cuda::DwDgradPlan d = cuda::dw_dgrad_plan(prm, dtype_size(dtype));
    const cuda::DwWgradPlan w = cuda::dw_wgrad_plan(prm, dtype_size(dtype));
    auto name = [](cuda::DwMapping m) { return m == cuda::DwMapping::planes ? "planes" : "channels"; };
    return fmt::format("dgrad {} V{} lanes {}, wgrad {} V{} lanes {} slices {}x{} rows", name(d.mapping), d.vector,
                       d.lanes, name(w.mapping), w.vector, w.lanes, w.slices, w.rows_per_slice);
}

// Runs dgrad and wgrad once on poisoned outputs and a poisoned workspace.
Outputs run_backward(const Problem& pr, DType dtype, Layout layout, int offset, bool one_d) {
    const Descs d = descs(pr.pb, dtype, layout, one_d);
    const DevTensor x = upload(pr.x, d.x, offset), w = upload(pr.w, d.w, offset), dy = upload(pr.dy, d.dy, offset);
    const DevTensor dx = poisoned(d.x, offset), dw = poisoned(d.w, offset);
    cuda::DepthwiseBackwardParams prm = cuda::depthwise_backward_params(geometry(pr.pb, one_d), d.x, d.w, d.dy);
    prm.x = x.ptr(), prm.w = w.ptr(), prm.dy = dy.ptr(), prm.dx = dx.ptr(), prm.dw = dw.ptr();
    cuda::depthwise_dgrad_launch(prm, dtype, nullptr);
    cuda::check_launch("depthwise_dgrad_launch");
    const size_t ws_bytes = cuda::depthwise_wgrad_workspace_bytes(prm);
    cuda::DeviceBuffer workspace(ws_bytes, "a test workspace");
    if (ws_bytes > 0) STRATA_CUDA_CHECK(cudaMemset(workspace.data(), 0xFF, ws_bytes), "poisoning the workspace");
    cuda::depthwise_wgrad_launch(prm, dtype, workspace.data(), nullptr);
    cuda::check_launch("depthwise_wgrad_launch");
    STRATA_CUDA_CHECK(cudaDeviceSynchronize(), "depthwise backward");
    return {download(dx), download(dw), plan_str(prm, dtype)};
}

// Runs `pr` in `layout` and expects both gradients to match the reference and to be written everywhere.
void expect_matches(const Problem& pr, DType dtype, Layout layout, const std::string& context, int offset = 0,
                    bool one_d = false) {
    const Outputs out = run_backward(pr, dtype, layout, offset, one_d);
    const RefError dx = compare_to_ref(out.dx, pr.dx_ref), dw = compare_to_ref(out.dw, pr.dw_ref);
    const std::string what =
        fmt::format("{} {} {}{}{} [{}] {}", pr.pb.str(), dtype_name(dtype), one_d ? "1-D" : layout_name(layout),
                    offset ? " offset " : "", offset ? std::to_string(offset) : "", out.plan, context);
    EXPECT_EQ(dx.nan_count, 0) << "dX unwritten: " << what;
    EXPECT_LE(dx.max_rel, tolerance(dtype)) << "dX: " << what;
    EXPECT_EQ(dw.nan_count, 0) << "dW unwritten: " << what;
    EXPECT_LE(dw.max_rel, tolerance(dtype)) << "dW: " << what;
}

DepthwiseProblem problem(int64_t n, int64_t c, int64_t h, int64_t w, int64_t mult, int64_t r, int64_t s, int64_t stride,
                         int64_t dil, int64_t pt, int64_t pl, int64_t pb, int64_t pr) {
    DepthwiseProblem p;
    p.n = n, p.c = c, p.h = h, p.w = w, p.mult = mult, p.r = r, p.s = s;
    p.stride_h = p.stride_w = stride, p.dil_h = p.dil_w = dil;
    p.pad_top = pt, p.pad_left = pl, p.pad_bottom = pb, p.pad_right = pr;
    return p;
}

TEST(DepthwiseBackward, RandomShapesMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 40; ++i) {
        const DepthwiseProblem pb = random_depthwise_problem(rng);
        for (DType dtype : kDtypes) {
            const Problem pr = make_problem(pb, dtype, seed + 1000 * i);
            for (Layout layout : kLayouts)
                expect_matches(pr, dtype, layout, fmt::format("STRATA_SEED={} case {}", seed, i));
        }
    }
}

TEST(DepthwiseBackward, FixedShapesMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    // problem(n, c, h, w, multiplier, r, s, stride, dilation, pad top, left, bottom, right)
    const DepthwiseProblem cases[] = {
        problem(2, 32, 14, 14, 1, 3, 3, 1, 1, 1, 1, 1, 1),       // MobileNet 3x3 s1
        problem(3, 48, 15, 17, 1, 3, 3, 2, 1, 0, 1, 1, 0),       // 3x3 s2, SAME-style uneven pads
        problem(1, 144, 9, 9, 1, 5, 5, 1, 1, 2, 2, 2, 2),        // 5x5, two channel tiles for fp32 vectors
        problem(2, 264, 8, 7, 1, 7, 7, 2, 1, 3, 3, 3, 3),        // 7x7 s2, C past one fp16 vector tile
        problem(4, 3, 70, 70, 1, 3, 3, 1, 1, 1, 1, 1, 1),        // many wgrad slices (stage 2 loops over > 32)
        problem(1, 1, 64, 64, 3, 3, 3, 1, 1, 1, 1, 1, 1),        // C = 1, multiplier 3: the planes mapping in nhwc
        problem(2, 8, 19, 19, 2, 4, 4, 3, 2, 2, 1, 0, 3),        // even kernel, stride 3, dilation 2
        problem(1, 128, 20, 20, 1, 15, 15, 1, 1, 7, 7, 7, 7),    // 225 taps: fewer lanes so the W tile fits
        problem(2, 4, 113, 113, 1, 112, 112, 1, 1, 0, 0, 0, 0),  // 12544 taps: W tile too large, planes in nhwc
        problem(5, 7, 1, 1, 2, 1, 1, 1, 1, 0, 0, 0, 0),          // 1x1 maps
        problem(1, 8, 5, 6, 1, 3, 3, 3, 1, 0, 0, 0, 0),          // stride 3 leaves input columns no output reads
    };
    int i = 0;
    for (const DepthwiseProblem& pb : cases) {
        for (DType dtype : kDtypes) {
            const Problem pr = make_problem(pb, dtype, seed + 1000 * i);
            for (Layout layout : kLayouts)
                expect_matches(pr, dtype, layout, fmt::format("STRATA_SEED={} fixed case {}", seed, i));
        }
        ++i;
    }
}

TEST(DepthwiseBackward, UnalignedPointersMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    const DepthwiseProblem pb = problem(2, 64, 9, 11, 1, 3, 3, 1, 1, 1, 1, 1, 1);
    for (DType dtype : kDtypes) {
        const Problem pr = make_problem(pb, dtype, seed);
        for (Layout layout : kLayouts) expect_matches(pr, dtype, layout, fmt::format("STRATA_SEED={}", seed), 1);
    }
}

TEST(DepthwiseBackward, OneDimensionalMatchesReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 8; ++i) {
        DepthwiseProblem pb = random_depthwise_problem(rng, 40);
        pb.h = 1, pb.r = 1, pb.stride_h = 1, pb.dil_h = 1, pb.pad_top = 0, pb.pad_bottom = 0;
        for (DType dtype : kDtypes)
            expect_matches(make_problem(pb, dtype, seed + 1000 * i), dtype, Layout::rowmajor,
                           fmt::format("STRATA_SEED={} case {}", seed, i), 0, true);
    }
}

TEST(DepthwiseBackward, WgradIsBitIdenticalAcrossRuns) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    const DepthwiseProblem pb = problem(4, 40, 33, 35, 1, 3, 3, 1, 1, 1, 1, 1, 1);
    for (DType dtype : {DType::f32, DType::f16}) {
        const Problem pr = make_problem(pb, dtype, seed);
        for (Layout layout : kLayouts) {
            const Outputs a = run_backward(pr, dtype, layout, 0, false);
            const Outputs b = run_backward(pr, dtype, layout, 0, false);
            EXPECT_TRUE(same_bits(a.dw, b.dw)) << pb.str() << " " << dtype_name(dtype) << " " << layout_name(layout);
            EXPECT_TRUE(same_bits(a.dx, b.dx)) << pb.str() << " " << dtype_name(dtype) << " " << layout_name(layout);
        }
    }
}

// The fixed and unaligned cases above reach every kernel variant; this pins down which one each shape gets.
TEST(DepthwiseBackward, PlansPickTheExpectedKernels) {
    auto params = [](const DepthwiseProblem& pb, Layout layout, DType dtype, uintptr_t address) {
        const Descs d = descs(pb, dtype, layout, false);
        cuda::DepthwiseBackwardParams prm = cuda::depthwise_backward_params(geometry(pb, false), d.x, d.w, d.dy);
        void* ptr = reinterpret_cast<void*>(address);
        prm.x = prm.w = prm.dy = ptr, prm.dx = prm.dw = ptr;
        return prm;
    };
    using cuda::DwMapping;
    const DepthwiseProblem mobilenet = problem(2, 32, 14, 14, 1, 3, 3, 1, 1, 1, 1, 1, 1);
    auto nhwc = params(mobilenet, Layout::nhwc, DType::f32, 0x1000);
    EXPECT_EQ(cuda::dw_dgrad_plan(nhwc, 4).mapping, DwMapping::channels);
    EXPECT_EQ(cuda::dw_dgrad_plan(nhwc, 4).vector, 4);
    EXPECT_EQ(cuda::dw_dgrad_plan(nhwc, 2).vector, 8);
    EXPECT_EQ(cuda::dw_wgrad_plan(nhwc, 4).mapping, DwMapping::channels);
    EXPECT_EQ(cuda::dw_wgrad_plan(nhwc, 2).vector, 8);
    auto unaligned = params(mobilenet, Layout::nhwc, DType::f32, 0x1004);
    EXPECT_EQ(cuda::dw_dgrad_plan(unaligned, 4).vector, 1);
    EXPECT_EQ(cuda::dw_wgrad_plan(unaligned, 4).vector, 1);
    auto nchw = params(mobilenet, Layout::nchw, DType::f32, 0x1000);
    EXPECT_EQ(cuda::dw_dgrad_plan(nchw, 4).mapping, DwMapping::planes);
    EXPECT_EQ(cuda::dw_wgrad_plan(nchw, 4).mapping, DwMapping::planes);
    auto mult2 = params(problem(1, 8, 19, 19, 2, 4, 4, 3, 2, 2, 1, 0, 3), Layout::nhwc, DType::f32, 0x1000);
    EXPECT_EQ(cuda::dw_dgrad_plan(mult2, 4).mapping, DwMapping::channels);
    EXPECT_EQ(cuda::dw_dgrad_plan(mult2, 4).vector, 1);
    auto taps225 = params(problem(1, 128, 20, 20, 1, 15, 15, 1, 1, 7, 7, 7, 7), Layout::nhwc, DType::f32, 0x1000);
    EXPECT_EQ(cuda::dw_dgrad_plan(taps225, 4).mapping, DwMapping::channels);
    EXPECT_LT(cuda::dw_dgrad_plan(taps225, 4).lanes, 32);
    EXPECT_LE(cuda::dw_dgrad_plan(taps225, 4).smem_bytes, cuda::kDwMaxSmemBytes);
    auto huge = params(problem(2, 4, 113, 113, 1, 112, 112, 1, 1, 0, 0, 0, 0), Layout::nhwc, DType::f32, 0x1000);
    EXPECT_EQ(cuda::dw_dgrad_plan(huge, 4).mapping, DwMapping::planes);
    auto many = params(problem(4, 3, 70, 70, 1, 3, 3, 1, 1, 1, 1, 1, 1), Layout::nchw, DType::f32, 0x1000);
    EXPECT_GT(cuda::dw_wgrad_plan(many, 4).slices, 32);
    // The workspace depends on the geometry and layout only, not on the dtype or the pointers.
    EXPECT_EQ(cuda::depthwise_wgrad_workspace_bytes(nhwc), cuda::depthwise_wgrad_workspace_bytes(unaligned));
    EXPECT_EQ(cuda::dw_wgrad_plan(nhwc, 4).slices, cuda::dw_wgrad_plan(nhwc, 2).slices);
}

TEST(DepthwiseBackward, RefusesWhatIsNotDepthwise) {
    DepthwiseProblem pb = problem(1, 4, 5, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1);
    const Descs d = descs(pb, DType::f32, Layout::nchw, false);
    cuda::DepthwiseBackwardParams prm = cuda::depthwise_backward_params(geometry(pb, false), d.x, d.w, d.dy);
    EXPECT_TRUE(cuda::depthwise_backward_problem(prm, DType::f32).empty());
    EXPECT_FALSE(cuda::depthwise_backward_problem(prm, DType::i8).empty());
    cuda::DepthwiseBackwardParams grouped = prm;
    grouped.g.group = 2;
    EXPECT_FALSE(cuda::depthwise_backward_problem(grouped, DType::f32).empty());
    EXPECT_THROW(cuda::depthwise_dgrad_launch(grouped, DType::f32, nullptr), Error);
    EXPECT_THROW(cuda::depthwise_wgrad_launch(grouped, DType::f32, nullptr, nullptr), Error);
    cuda::DepthwiseBackwardParams odd_k = prm;
    odd_k.g.k = 6;
    EXPECT_FALSE(cuda::depthwise_backward_problem(odd_k, DType::f32).empty());
    cuda::DepthwiseBackwardParams no_pointers = prm;  // a well-formed problem without buffers
    EXPECT_THROW(cuda::depthwise_dgrad_launch(no_pointers, DType::f32, nullptr), Error);
    EXPECT_THROW(cuda::depthwise_wgrad_launch(no_pointers, DType::f32, nullptr, nullptr), Error);
}

}  // namespace
}  // namespace strata::test
