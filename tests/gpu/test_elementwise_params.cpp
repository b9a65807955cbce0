// test_elementwise_params.cpp: the loops that cuda.binary, cuda.reduce, cuda.softmax and the pools build from
// TensorDescs, checked without a GPU: a host emulation of each kernel's index arithmetic (the loops of
// elementwise_kernel.cu, reduce_kernel.cu, softmax_kernel.cu and pool_kernel.cu) runs on packed nchw/nhwc bytes and
// must match the reference backend.
// Broadcasting and layouts are where these kernels can go wrong; the GPU tests then prove the device code.
#include <fmt/ranges.h>

#include <cmath>
#include <limits>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/host_pack.h"
#include "backends/cuda/kernels/elementwise/elementwise.h"
#include "backends/cuda/kernels/pool/pool.h"
#include "backends/cuda/kernels/reduce/reduce.h"
#include "backends/cuda/kernels/softmax/softmax.h"
#include "backends/cuda/param_forms.h"
#include "backends/reference/reference.h"
#include "membound_check.h"

namespace strata::test {
namespace {

cuda::StepDesc host_desc(const ir::Graph& g, const ir::Node& node, Layout layout) {
    cuda::StepDesc desc;
    desc.node = &node;
    desc.name = node.name;
    for (ir::ValueId v : node.inputs) desc.inputs.push_back(cuda::value_desc(g.value(v), DType::f32, layout));
    for (ir::ValueId v : node.outputs) desc.outputs.push_back(cuda::value_desc(g.value(v), DType::f32, layout));
    return desc;
}

// elementwise_kernel.cu's strided loop, for Sub (order matters, so swapped operands would show).
void emulate_binary(const cuda::BinaryParams& p, const float* a, const float* b, float* c) {
    for (uint32_t idx = 0; idx < p.total; ++idx) {
        uint32_t rest = idx;
        int64_t ia = 0, ib = 0;
        for (int d = p.rank - 1; d >= 0; --d) {
            uint32_t o = rest % p.size[d];
            rest /= p.size[d];
            ia += static_cast<int64_t>(o) * p.a_stride[d];
            ib += static_cast<int64_t>(o) * p.b_stride[d];
        }
        c[idx] = a[ia] - b[ib];
    }
}

// reduce_kernel.cu's thread-per-output loop, for Sum.
void emulate_reduce(const cuda::ReduceParams& p, const float* x, float* y) {
    for (uint32_t idx = 0; idx < p.outputs; ++idx) {
        int64_t in = 0, out = 0;
        uint32_t rest = idx;
        for (int d = p.kept_rank - 1; d >= 0; --d) {
            uint32_t o = rest % p.kept_size[d];
            rest /= p.kept_size[d];
            in += static_cast<int64_t>(o) * p.kept_in_stride[d];
            out += static_cast<int64_t>(o) * p.kept_out_stride[d];
        }
        double acc = 0;
        for (uint32_t r = 0; r < p.count; ++r) {
            int64_t off = 0;
            uint32_t rr = r;
            for (int d = p.reduced_rank - 1; d >= 0; --d) {
                off += static_cast<int64_t>(rr % p.reduced_size[d]) * p.reduced_stride[d];
                rr /= p.reduced_size[d];
            }
            acc += x[in + off];
        }
        y[out] = static_cast<float>(acc);
    }
}

// softmax_kernel.cu's [outer, n, inner] rows, in double.
void emulate_softmax(const cuda::SoftmaxParams& p, const float* x, float* y) {
    for (int64_t o = 0; o < p.outer; ++o) {
        for (int64_t i = 0; i < p.inner; ++i) {
            const int64_t base = o * p.n * p.inner + i;
            double max = -std::numeric_limits<double>::infinity(), sum = 0;
            for (int64_t j = 0; j < p.n; ++j) max = std::max<double>(max, x[base + j * p.inner]);
            for (int64_t j = 0; j < p.n; ++j) sum += std::exp(x[base + j * p.inner] - max);
            for (int64_t j = 0; j < p.n; ++j) y[base + j * p.inner] = std::exp(x[base + j * p.inner] - max) / sum;
        }
    }
}

int ceil_div(int a, int b) {
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

// pool_kernel.cu's window walk (one channel per thread), max or average.
void emulate_pool(const cuda::PoolParams& p, bool nhwc, const float* x, float* y) {
    auto taps = [](int o, int stride, int pad, int dil, int k, int lo, int hi) {
        int start = o * stride - pad;
        int first = std::max(0, ceil_div(lo - start, dil));
        return std::pair<int, int>{first, std::max(first, std::min(k, ceil_div(hi - start, dil)))};
    };
    for (uint32_t idx = 0; idx < p.total; ++idx) {
        int n, c, oh, ow;
        uint32_t t = idx;
        if (nhwc) {
            c = t % p.c, t /= p.c, ow = t % p.out_w, t /= p.out_w, oh = t % p.out_h, n = t / p.out_h;
        } else {
            ow = t % p.out_w, t /= p.out_w, oh = t % p.out_h, t /= p.out_h, c = t % p.c, n = t / p.c;
        }
        auto rows = taps(oh, p.stride_h, p.pad_top, p.dil_h, p.k_h, 0, p.in_h);
        auto cols = taps(ow, p.stride_w, p.pad_left, p.dil_w, p.k_w, 0, p.in_w);
        const int64_t plane = int64_t{p.in_h} * p.in_w;
        const int64_t base = nhwc ? n * plane * p.c + c : (int64_t{n} * p.c + c) * plane;
        const int64_t col_step = nhwc ? p.c : 1, row_step = col_step * p.in_w;
        double best = -INFINITY, sum = 0;
        for (int kh = rows.first; kh < rows.second; ++kh)
            for (int kw = cols.first; kw < cols.second; ++kw) {
                double v = x[base + int64_t{oh * p.stride_h - p.pad_top + kh * p.dil_h} * row_step +
                             int64_t{ow * p.stride_w - p.pad_left + kw * p.dil_w} * col_step];
                best = std::max(best, v);
                sum += v;
            }
        int count = (rows.second - rows.first) * (cols.second - cols.first);
        if (!p.max && p.count_include_pad) {
            auto pr = taps(oh, p.stride_h, p.pad_top, p.dil_h, p.k_h, -p.pad_top, p.in_h + p.pad_bottom);
            auto pc = taps(ow, p.stride_w, p.pad_left, p.dil_w, p.k_w, -p.pad_left, p.in_w + p.pad_right);
            count = (pr.second - pr.first) * (pc.second - pc.first);
        }
        y[idx] = static_cast<float>(p.max ? best : (count > 0 ? sum / count : 0.0));
    }
}

// Runs node 0 of `g` through `emulate` in both layouts against the reference.
template <class Emulate>
void check_emulation(ir::Graph& g, const std::string& what, uint64_t seed, double tolerance, Emulate&& emulate) {
    ir::infer_shapes(g);
    const ir::Node& node = g.nodes()[0];
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < node.inputs.size(); ++i)
        inputs.push_back(random_tensor(DType::f32, g.value(node.inputs[i]).shape, seed + i));
    Tensor want = backends::evaluate_node(g, node, inputs)[0];
    for (Layout layout : {Layout::nchw, Layout::nhwc}) {
        cuda::StepDesc desc = host_desc(g, node, layout);
        std::vector<std::vector<uint8_t>> packed;
        for (size_t i = 0; i < inputs.size(); ++i) packed.push_back(cuda::pack_host(inputs[i], desc.inputs[i]));
        std::vector<float> out(static_cast<size_t>(desc.outputs[0].numel()), NAN);
        emulate(desc, packed, out.data());
        Tensor got = cuda::unpack_host(out.data(), desc.outputs[0]);
        EXPECT_LE(max_rel_error(got, want), tolerance) << what << " [" << layout_name(layout) << "] seed " << seed;
    }
}

const float* as_floats(const std::vector<uint8_t>& bytes) {
    return reinterpret_cast<const float*>(bytes.data());
}

TEST(ElementwiseParams, BinaryBroadcastingMatchesReferenceInBothLayouts) {
    const uint64_t seed = test_seed();
    const std::pair<Shape, Shape> cases[] = {
        {{2, 5, 3, 7}, {2, 5, 1, 1}}, {{2, 5, 3, 7}, {5, 1, 1}}, {{5, 1, 1}, {2, 5, 3, 7}},
        {{2, 1, 3, 1}, {1, 5, 1, 7}}, {{3, 7}, {2, 5, 3, 7}},    {{2, 5, 3, 7}, {}},
        {{2, 5, 3, 7}, {2, 5, 3, 7}}, {{4, 1, 6}, {5, 1}},
    };
    for (const auto& [sa, sb] : cases) {
        ir::Builder b("binary");
        b.output(b.binary(ir::BinaryKind::Sub, b.input("a", DType::f32, sa), b.input("b", DType::f32, sb)));
        auto g = b.finish();
        check_emulation(*g, fmt::format("{} - {}", shape_str(sa), shape_str(sb)), seed, 0.0,
                        [](const cuda::StepDesc& desc, const auto& in, float* out) {
                            emulate_binary(cuda::binary_params(desc), as_floats(in[0]), as_floats(in[1]), out);
                        });
    }
}

TEST(ElementwiseParams, ReduceAxesMatchReferenceInBothLayouts) {
    const uint64_t seed = test_seed();
    const std::vector<std::vector<int64_t>> axes_list = {{1}, {2, 3}, {0, 2}, {}, {-1}, {1, 2, 3}, {0}};
    for (const auto& axes : axes_list) {
        for (bool keepdims : {true, false}) {
            ir::ReduceAttrs a;
            a.kind = ir::ReduceKind::Sum;
            a.axes = axes;
            a.keepdims = keepdims;
            ir::Builder b("reduce");
            b.output(b.op(ir::OpKind::Reduce, {b.input("x", DType::f32, {3, 5, 4, 7})}, a));
            auto g = b.finish();
            check_emulation(*g, fmt::format("sum axes [{}] keepdims {}", fmt::join(axes, ","), keepdims), seed, 1e-6,
                            [](const cuda::StepDesc& desc, const auto& in, float* out) {
                                emulate_reduce(cuda::reduce_params(desc), as_floats(in[0]), out);
                            });
        }
    }
}

TEST(ElementwiseParams, SoftmaxRowsMatchReferenceInBothLayouts) {
    const uint64_t seed = test_seed();
    for (int64_t axis = -4; axis < 4; ++axis) {
        for (bool coerce : {false, true}) {
            ir::Builder b("softmax");
            b.output(
                b.op(ir::OpKind::Softmax, {b.input("x", DType::f32, {3, 5, 4, 7})}, ir::SoftmaxAttrs{axis, coerce}));
            auto g = b.finish();
            check_emulation(*g, fmt::format("softmax axis {} coerce_2d {}", axis, coerce), seed, 1e-6,
                            [](const cuda::StepDesc& desc, const auto& in, float* out) {
                                emulate_softmax(cuda::softmax_params(desc), as_floats(in[0]), out);
                            });
        }
    }
}

TEST(ElementwiseParams, PoolWindowsMatchReferenceInBothLayouts) {
    const uint64_t seed = test_seed();
    struct Case {
        Shape shape;
        ir::PoolAttrs attrs;
    };
    ir::PoolAttrs ceil = ir::pool2d_attrs(3, 2, 1, true);
    ceil.count_include_pad = true;
    ir::PoolAttrs dilated = ir::pool2d_attrs(3, 1, 2);
    dilated.dilations = {2, 2};
    ir::PoolAttrs one_d;
    one_d.kernel = {3}, one_d.strides = {2}, one_d.pads_begin = {1}, one_d.pads_end = {0}, one_d.ceil_mode = true;
    const Case cases[] = {{{2, 5, 13, 15}, ir::pool2d_attrs(3, 2, 1)},
                          {{1, 7, 17, 18}, ceil},
                          {{2, 3, 18, 17}, dilated},
                          {{3, 4, 29}, one_d}};
    for (const Case& c : cases) {
        for (ir::OpKind op : {ir::OpKind::MaxPool, ir::OpKind::AveragePool}) {
            ir::Builder b("pool");
            b.output(b.op(op, {b.input("x", DType::f32, c.shape)}, c.attrs));
            auto g = b.finish();
            check_emulation(*g, fmt::format("{} {}", ir::op_name(op), shape_str(c.shape)), seed, 1e-6,
                            [](const cuda::StepDesc& desc, const auto& in, float* out) {
                                emulate_pool(cuda::pool_params(desc), desc.inputs[0].channels_last(), as_floats(in[0]),
                                             out);
                            });
        }
    }
}

}  // namespace
}  // namespace strata::test
