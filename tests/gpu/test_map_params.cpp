// test_map_params.cpp: the index maps of the data-movement kernels checked without a GPU. The parameters that
// cuda.slice/transpose/pad/tile/expand/gather build (kernels/data/map_params.h) drive a host emulation of the
// kernels' index arithmetic (the same loops as copy_kernel.cu) on packed nchw/nhwc bytes, and the result must equal
// the reference backend's exactly. The GPU tests (test_data.cpp) then only have the device code left to prove.
#include <cstring>

#include "backends/cuda/host_pack.h"
#include "backends/cuda/kernels/data/map_params.h"
#include "backends/cuda/param_forms.h"
#include "backends/reference/reference.h"
#include "membound_check.h"

namespace strata::test {
namespace {

using cuda::MapMode;
using cuda::StridedCopyParams;

// copy_kernel.cu's source_coord, on the host.
int64_t source_coord(const StridedCopyParams& p, int d, int64_t o) {
    const int64_t n = p.in_size[d];
    int64_t i = o - p.shift[d];
    switch (p.mode[d]) {
        case MapMode::linear:
            return o;
        case MapMode::tile:
            return o % n;
        case MapMode::pad_constant:
            return i >= 0 && i < n ? i : -1;
        case MapMode::pad_edge:
            return i < 0 ? 0 : (i >= n ? n - 1 : i);
        case MapMode::pad_reflect: {
            if (i >= 0 && i < n) return i;
            if (n == 1) return 0;
            int64_t period = 2 * (n - 1);
            i %= period;
            if (i < 0) i += period;
            return i < n ? i : period - i;
        }
    }
    return -1;
}

void emulate_strided(const StridedCopyParams& p, const uint32_t* in, uint32_t* out) {
    uint32_t fill;
    std::memcpy(&fill, &p.fill, sizeof(fill));
    for (uint32_t idx = 0; idx < p.total; ++idx) {
        uint32_t rest = idx;
        int64_t src = p.in_base, dst = p.out_base;
        bool is_fill = false;
        for (int d = p.rank - 1; d >= 0; --d) {
            uint32_t o = rest % p.size[d];
            rest /= p.size[d];
            dst += static_cast<int64_t>(o) * p.out_stride[d];
            int64_t i = source_coord(p, d, o);
            is_fill |= i < 0;
            src += i * p.in_stride[d];
        }
        out[dst] = is_fill ? fill : in[src];
    }
}

void emulate_gather(const cuda::GatherParams& p, const uint32_t* data, const int64_t* indices, uint32_t* out) {
    for (uint32_t idx = 0; idx < p.total; ++idx) {
        uint32_t rest = idx;
        int64_t src = 0, at = 0;
        for (int d = p.rank - 1; d >= 0; --d) {
            uint32_t o = rest % p.size[d];
            rest /= p.size[d];
            src += static_cast<int64_t>(o) * p.data_stride[d];
            at += static_cast<int64_t>(o) * p.index_stride[d];
        }
        int64_t index = indices[at];
        if (index < 0) index += p.axis_size;
        out[idx] = data[src + index * p.axis_stride];
    }
}

cuda::StepDesc host_desc(const ir::Graph& g, const ir::Node& node, Layout layout) {
    cuda::StepDesc desc;
    desc.node = &node;
    desc.name = node.name;
    for (ir::ValueId v : node.inputs) desc.inputs.push_back(cuda::value_desc(g.value(v), DType::f32, layout));
    for (ir::ValueId v : node.outputs) desc.outputs.push_back(cuda::value_desc(g.value(v), DType::f32, layout));
    return desc;
}

// Runs node 0 of `g` (input 0 random f32, other inputs constants) through the emulation in both layouts.
void check_map(ir::Graph& g, const std::string& what, uint64_t seed) {
    ir::infer_shapes(g);
    const ir::Node& node = g.nodes()[0];
    std::vector<Tensor> inputs;
    for (ir::ValueId v : node.inputs) {
        const ir::Value& value = g.value(v);
        inputs.push_back(value.constant ? *value.constant : random_tensor(DType::f32, value.shape, seed));
    }
    Tensor want = backends::evaluate_node(g, node, inputs)[0];
    for (Layout layout : {Layout::nchw, Layout::nhwc}) {
        cuda::StepDesc desc = host_desc(g, node, layout);
        std::vector<uint8_t> in = cuda::pack_host(inputs[0], desc.inputs[0]);
        std::vector<uint32_t> out(static_cast<size_t>(desc.outputs[0].numel()), 0x7fc00000u);  // NaN poison
        if (node.op == ir::OpKind::Gather) {
            Tensor idx64 = inputs[1];
            if (idx64.dtype() == DType::i32) {
                idx64 = Tensor::empty(DType::i64, inputs[1].shape());
                for (int64_t i = 0; i < idx64.numel(); ++i) idx64.data<int64_t>()[i] = inputs[1].data<int32_t>()[i];
            }
            std::vector<uint8_t> packed = cuda::pack_host(idx64, {DType::i64, desc.inputs[1].layout, idx64.shape()});
            emulate_gather(cuda::gather_params(desc), reinterpret_cast<const uint32_t*>(in.data()),
                           reinterpret_cast<const int64_t*>(packed.data()), out.data());
        } else {
            emulate_strided(cuda::map_params(desc), reinterpret_cast<const uint32_t*>(in.data()), out.data());
        }
        Tensor got = cuda::unpack_host(out.data(), desc.outputs[0]);
        EXPECT_EQ(max_rel_error(got, want), 0.0) << what << " [" << layout_name(layout) << "] seed " << seed;
    }
}

TEST(MapParams, SliceTransposePadTileExpandGatherMatchReference) {
    const uint64_t seed = test_seed();
    auto one = [&](ir::OpKind op, ir::Attrs attrs, const Shape& shape, const std::string& what) {
        ir::Builder b("map");
        ir::ValueId x = b.input("x", DType::f32, shape);
        b.output(b.op(op, {x}, attrs));
        auto g = b.finish();
        check_map(*g, what, seed);
    };
    one(ir::OpKind::Slice, ir::SliceAttrs{{{10, 0}}, {{-100, 9}}, {2, 1}, {-2, 3}}, {2, 9, 11, 13}, "slice");
    one(ir::OpKind::Slice, ir::SliceAttrs{{{1, -3}}, {{8, 1000}}, {1, 3}, {}}, {2, 9, 11, 13}, "slice 2");
    for (auto perm : std::vector<std::vector<int64_t>>{{0, 2, 3, 1}, {0, 3, 1, 2}, {3, 2, 1, 0}, {}})
        one(ir::OpKind::Transpose, ir::TransposeAttrs{perm}, {3, 5, 7, 33}, "transpose");
    for (ir::PadMode mode : {ir::PadMode::constant, ir::PadMode::reflect, ir::PadMode::edge}) {
        one(ir::OpKind::Pad, ir::PadAttrs{mode, std::vector<int64_t>{0, 1, 2, 1, 1, 0, 3, 4}, 0.5f}, {2, 3, 7, 6},
            "pad");
        one(ir::OpKind::Pad, ir::PadAttrs{mode, std::vector<int64_t>{0, 0, -1, 2, 0, 0, 1, -2}, 0.5f}, {2, 3, 7, 6},
            "pad with crops");
    }
    one(ir::OpKind::Tile, ir::TileAttrs{std::vector<int64_t>{2, 1, 3, 2}}, {2, 3, 5, 7}, "tile");
    one(ir::OpKind::Expand, ir::ExpandAttrs{std::vector<int64_t>{2, 5, 3, 7}}, {5, 1, 1}, "expand");
    one(ir::OpKind::Expand, ir::ExpandAttrs{std::vector<int64_t>{2, 5, 6, 3}}, {2, 1, 6, 1}, "expand 2");
    for (int axis : {0, 1, 3}) {
        for (Shape index_shape : {Shape{}, Shape{4}, Shape{2, 3}}) {
            ir::Builder b("gather");
            ir::ValueId x = b.input("x", DType::f32, {5, 6, 3, 7});
            int64_t size = Shape{5, 6, 3, 7}[axis];
            ir::ValueId idx =
                b.constant("idx", random_tensor(DType::i64, index_shape, seed, -double(size), double(size)));
            b.output(b.op(ir::OpKind::Gather, {x, idx}, ir::AxisAttrs{axis}));
            auto g = b.finish();
            check_map(*g, fmt::format("gather axis {} indices {}", axis, shape_str(index_shape)), seed);
        }
    }
}

// Runs the copy jobs of node 0 of `g` (Concat, Split or a plain copy; f32 parts) on host buffers in both layouts;
// `mix` flips the first part (Concat's input 0, Split's output 0) to the other layout: the strided path.
void check_copy_jobs(ir::Graph& g, const std::string& what, uint64_t seed, bool mix = false) {
    ir::infer_shapes(g);
    const ir::Node& node = g.nodes()[0];
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < node.inputs.size(); ++i)
        inputs.push_back(random_tensor(DType::f32, g.value(node.inputs[i]).shape, seed + i));
    std::vector<Tensor> want = backends::evaluate_node(g, node, inputs);
    for (Layout layout : {Layout::nchw, Layout::nhwc}) {
        cuda::StepDesc desc = host_desc(g, node, layout);
        if (mix) {
            cuda::TensorDesc& part = node.op == ir::OpKind::Split ? desc.outputs[0] : desc.inputs[0];
            part.layout = layout == Layout::nhwc ? Layout::nchw : Layout::nhwc;
        }
        std::vector<std::vector<uint8_t>> in, out;
        cuda::StepBuffers b;
        for (size_t i = 0; i < inputs.size(); ++i) {
            in.push_back(cuda::pack_host(inputs[i], desc.inputs[i]));
            b.inputs.push_back(in.back().data());
        }
        for (const auto& od : desc.outputs) out.emplace_back(std::max<size_t>(od.bytes(), 1), 0xFF);  // NaN poison
        for (auto& o : out) b.outputs.push_back(o.data());
        for (const cuda::CopyJob& job : cuda::copy_jobs(desc, b)) {
            if (job.rows) {
                const auto& s = job.segment;
                for (int64_t r = 0; r < s.rows; ++r)
                    std::memcpy(s.dst + r * s.dst_pitch, s.src + r * s.src_pitch, static_cast<size_t>(s.row_bytes));
            } else {
                ASSERT_EQ(job.elem_size, 4);
                emulate_strided(job.strided, static_cast<const uint32_t*>(job.src), static_cast<uint32_t*>(job.dst));
            }
        }
        for (size_t o = 0; o < want.size(); ++o) {
            Tensor got = cuda::unpack_host(out[o].data(), desc.outputs[o]);
            EXPECT_EQ(max_rel_error(got, want[o]), 0.0)
                << what << " output " << o << " [" << layout_name(layout) << "] seed " << seed;
        }
    }
}

TEST(MapParams, ConcatSplitAndCopiesMatchReference) {
    const uint64_t seed = test_seed();
    for (int axis = -1; axis < 4; ++axis) {
        ir::Builder b("concat");
        std::vector<ir::ValueId> xs;
        for (int64_t size : {3, 1, 5}) {
            Shape s = {2, 4, 3, 5};
            s[axis < 0 ? 3 : axis] = size;
            xs.push_back(b.input(fmt::format("x{}", size), DType::f32, s));
        }
        b.output(b.concat(xs, axis));
        auto g = b.finish();
        check_copy_jobs(*g, fmt::format("concat axis {}", axis), seed);
        check_copy_jobs(*g, fmt::format("concat axis {}, part 0 in the other layout", axis), seed, true);
    }
    for (int axis = 0; axis < 4; ++axis) {
        Shape shape = {3, 4, 5, 6};
        shape[axis] = 9;
        ir::Builder b("split");
        auto ys = b.op_n(ir::OpKind::Split, {b.input("x", DType::f32, shape)}, 3,
                         ir::SplitAttrs{axis, std::vector<int64_t>{2, 0, 7}});
        for (auto y : ys) b.output(y);
        auto g = b.finish();
        check_copy_jobs(*g, fmt::format("split axis {}", axis), seed);
        check_copy_jobs(*g, fmt::format("split axis {}, part 0 in the other layout", axis), seed, true);
    }
    auto copy = [&](ir::OpKind op, ir::Attrs attrs, const Shape& shape, const std::string& what) {
        ir::Builder b("copy");
        b.output(b.op(op, {b.input("x", DType::f32, shape)}, attrs));
        auto g = b.finish();
        check_copy_jobs(*g, what, seed);
    };
    copy(ir::OpKind::Flatten, ir::FlattenAttrs{1}, {2, 5, 3, 7}, "flatten");
    copy(ir::OpKind::Reshape, ir::ReshapeAttrs{std::vector<int64_t>{2, 7, 5, 3}}, {2, 105}, "reshape to rank 4");
    copy(ir::OpKind::Unsqueeze, ir::AxesAttrs{std::vector<int64_t>{3}}, {2, 5, 7}, "unsqueeze");
    copy(ir::OpKind::Squeeze, ir::AxesAttrs{std::vector<int64_t>{2}}, {2, 5, 1, 7}, "squeeze");
    copy(ir::OpKind::Identity, ir::NoAttrs{}, {2, 5, 3, 7}, "identity");
}

}  // namespace
}  // namespace strata::test
