// test_map_params.cpp: the index maps of the data-movement kernels checked without a GPU. The parameters that
// cuda.slice/transpose/pad/tile/expand/gather build (kernels/data/map_params.h) drive a host emulation of the
// kernels' index arithmetic (the same loops as copy_kernel.cu) on packed nchw/nhwc bytes, and the result must equal
// the reference backend's exactly. The GPU tests (test_data.cpp) then only have the device code left to prove.
#include <algorithm>
#include <cstring>
#include <random>

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

// A pitched row copy on the host.
void emulate_rows(const cuda::RowCopySegment& s) {
    for (int64_t r = 0; r < s.rows; ++r)
        std::memcpy(s.dst + r * s.dst_pitch, s.src + r * s.src_pitch, static_cast<size_t>(s.row_bytes));
}

// Runs node 0 of `g` (input 0 random f32, other inputs constants) through the emulation in both layouts; returns in
// how many layouts a Slice took the row-copy path.
int check_map(ir::Graph& g, const std::string& what, uint64_t seed) {
    int row_copies = 0;
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
        } else if (std::optional<cuda::RowCopySegment> rows = node.op == ir::OpKind::Slice
                                                                  ? cuda::slice_rows(desc, {{in.data()}, {out.data()}})
                                                                  : std::nullopt) {
            emulate_rows(*rows);
            ++row_copies;
        } else {
            emulate_strided(cuda::map_params(desc), reinterpret_cast<const uint32_t*>(in.data()), out.data());
        }
        Tensor got = cuda::unpack_host(out.data(), desc.outputs[0]);
        EXPECT_EQ(max_rel_error(got, want), 0.0) << what << " [" << layout_name(layout) << "] seed " << seed;
    }
    return row_copies;
}

// Slices whose output, walked in memory order, is rows of one run in both tensors take the row copy (the returned
// count is the layouts in which they did): ShuffleNetV2's channel halves and other channel ranges in both layouts; a
// channel step only in nchw (rows of H*W planes); a spatial window or reversed channels in neither.
TEST(MapParams, SliceRowCopiesMatchReference) {
    const uint64_t seed = test_seed();
    auto rows = [&](const Shape& shape, ir::SliceAttrs attrs, const std::string& what) {
        ir::Builder b("slice");
        b.output(b.op(ir::OpKind::Slice, {b.input("x", DType::f32, shape)}, attrs));
        auto g = b.finish();
        return check_map(*g, what, seed);
    };
    using V = std::vector<int64_t>;
    EXPECT_EQ(rows({2, 12, 3, 5}, ir::SliceAttrs{V{0}, V{6}, {1}, {}}, "first channel half"), 2);
    EXPECT_EQ(rows({2, 12, 3, 5}, ir::SliceAttrs{V{6}, V{12}, {1}, {}}, "second channel half"), 2);
    EXPECT_EQ(rows({2, 13, 3, 5}, ir::SliceAttrs{V{3}, V{-2}, {-3}, {}}, "middle channels"), 2);
    EXPECT_EQ(rows({4, 3, 2, 5}, ir::SliceAttrs{V{1}, V{3}, {0}, {}}, "batch slice"), 2);
    EXPECT_EQ(rows({2, 7, 1, 1}, ir::SliceAttrs{V{2}, V{5}, {1}, {}}, "channels of 1x1 maps"), 2);
    EXPECT_EQ(rows({1, 1, 1, 9}, ir::SliceAttrs{V{4}, V{5}, {3}, {}}, "one element"), 2);
    EXPECT_EQ(rows({2, 12, 3, 5}, ir::SliceAttrs{V{0}, V{12}, {1}, V{2}}, "every other channel"), 1);
    EXPECT_EQ(rows({2, 3, 4, 5}, ir::SliceAttrs{V{1, 1}, V{3, 4}, {2, 3}, {}}, "spatial window"), 0);
    EXPECT_EQ(rows({2, 12, 3, 5}, ir::SliceAttrs{V{-1}, V{-100}, {1}, V{-1}}, "reversed channels"), 0);
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

// copy.h's channel gather (channel_gather.cu) on the host: the shared-memory table, then word by word.
void emulate_channel_gather(const cuda::ChannelGatherParams& p, const uint8_t* data, const int64_t* indices,
                            uint8_t* out) {
    std::vector<int32_t> table(static_cast<size_t>(p.out_channels));
    for (int32_t j = 0; j < p.out_channels; ++j) {
        int64_t c = indices[j] < 0 ? indices[j] + p.in_channels : indices[j];
        table[j] = c >= 0 && c < p.in_channels ? static_cast<int32_t>(c) : -1;
    }
    const std::vector<uint8_t> zeros(16, 0);
    const int64_t word = p.word, elem = p.elem_size;
    for (uint32_t i = 0; i < p.words; ++i) {
        uint8_t* dst = out + i * word;
        if (p.channels_last) {
            const uint32_t pixel = i / p.row_words, w = i % p.row_words;
            const int64_t per_word = word / elem;
            for (int64_t k = 0; k < per_word; ++k) {
                int32_t c = table[w * per_word + k];
                const uint8_t* src =
                    c >= 0 ? data + (static_cast<int64_t>(pixel) * p.in_channels + c) * elem : zeros.data();
                std::memcpy(dst + k * elem, src, static_cast<size_t>(elem));
            }
        } else {
            const uint32_t plane = i / p.row_words, k = i % p.row_words;
            const uint32_t n = plane / p.out_channels, j = plane % p.out_channels;
            const int32_t c = table[j];
            const int64_t src_word = (static_cast<int64_t>(n) * p.in_channels + c) * p.row_words + k;
            std::memcpy(dst, c >= 0 ? data + src_word * word : zeros.data(), static_cast<size_t>(word));
        }
    }
}

// A Gather of whole channels: [n, in_channels, h, w] on axis 1 with `indices` (shape inferred with valid ones).
std::shared_ptr<ir::Graph> channel_gather_graph(const Shape& x_shape, const std::vector<int64_t>& indices) {
    ir::Builder b("channels");
    ir::ValueId x = b.input("x", DType::f32, x_shape);
    Tensor idx = Tensor::empty(DType::i64, {static_cast<int64_t>(indices.size())});
    std::copy(indices.begin(), indices.end(), idx.data<int64_t>());
    b.output(b.op(ir::OpKind::Gather, {x, b.constant("idx", idx)}, ir::AxisAttrs{1}));
    auto g = b.finish();
    ir::infer_shapes(*g);
    return g;
}

// The fast path's parameters drive the emulation on buffers placed `offset` bytes past 16-byte alignment (so the
// word narrows), in both layouts; the result must equal the reference's exactly.
void check_channel_gather(const ir::Graph& g, const std::string& what, uint64_t seed, int expected_nhwc_word) {
    const ir::Node& node = g.nodes()[0];
    Tensor x = random_tensor(DType::f32, g.value(node.inputs[0]).shape, seed);
    const Tensor& idx = *g.value(node.inputs[1]).constant;
    Tensor want = backends::evaluate_node(g, node, std::vector<Tensor>{x, idx})[0];
    for (Layout layout : {Layout::nchw, Layout::nhwc}) {
        for (int offset : {0, 4, 8}) {
            std::string label = fmt::format("{} [{}] offset {} seed {}", what, layout_name(layout), offset, seed);
            cuda::StepDesc desc = host_desc(g, node, layout);
            std::vector<uint8_t> packed = cuda::pack_host(x, desc.inputs[0]);
            std::vector<uint8_t> in(packed.size() + 32), out(desc.outputs[0].bytes() + 32, 0xFF);  // NaN poison
            uint8_t* in_at = in.data() + (16 - reinterpret_cast<uintptr_t>(in.data()) % 16) + offset;
            uint8_t* out_at = out.data() + (16 - reinterpret_cast<uintptr_t>(out.data()) % 16) + offset;
            std::memcpy(in_at, packed.data(), packed.size());
            cuda::StepBuffers b;
            b.inputs = {in_at, idx.raw()};
            b.outputs = {out_at};
            std::optional<cuda::ChannelGatherParams> p = cuda::channel_gather_params(desc, b);
            ASSERT_TRUE(p.has_value()) << label << ": the fast path declined";
            EXPECT_EQ(p->channels_last, layout == Layout::nhwc) << label;
            EXPECT_EQ(p->elem_size, 4) << label;
            if (layout == Layout::nhwc) {
                EXPECT_EQ(p->word, offset == 0 ? expected_nhwc_word : std::min(expected_nhwc_word, offset)) << label;
            }
            emulate_channel_gather(*p, in_at, idx.data<int64_t>(), out_at);
            Tensor got = cuda::unpack_host(out_at, desc.outputs[0]);
            EXPECT_EQ(max_rel_error(got, want), 0.0) << label;
        }
    }
}

TEST(MapParams, ChannelGatherFastPathMatchesReference) {
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    // Channel shuffles (C = 116 is ShuffleNetV2 x1.0's first stage: 464 bytes a float32 pixel).
    for (auto [c, groups] : std::vector<std::pair<int64_t, int64_t>>{{116, 2}, {12, 3}, {10, 5}, {7, 7}, {9, 1}}) {
        std::vector<int64_t> shuffle(static_cast<size_t>(c));
        for (int64_t j = 0; j < c; ++j) shuffle[j] = (j % groups) * (c / groups) + j / groups;
        int word = (c * 4) % 16 == 0 ? 16 : (c * 4) % 8 == 0 ? 8 : 4;
        check_channel_gather(*channel_gather_graph({2, c, 3, 5}, shuffle), fmt::format("shuffle C={} g={}", c, groups),
                             seed, word);
    }
    // Random index lists: other output counts, repeats, negative indices.
    for (int trial = 0; trial < 6; ++trial) {
        const int64_t c = random_dim(rng, 1, 40), out = random_dim(rng, 1, 40);
        std::vector<int64_t> indices(static_cast<size_t>(out));
        for (int64_t& i : indices) i = std::uniform_int_distribution<int64_t>(-c, c - 1)(rng);
        Shape shape = {random_dim(rng, 1, 3), c, random_dim(rng, 1, 6), random_dim(rng, 1, 6)};
        int word = (out * 4) % 16 == 0 ? 16 : (out * 4) % 8 == 0 ? 8 : 4;
        check_channel_gather(*channel_gather_graph(shape, indices),
                             fmt::format("{} channels of {}", out, shape_str(shape)), seed + trial, word);
    }
}

// Indices out of range (only possible when they are computed) give zero channels, as in the generic kernel; and the
// fast path leaves other gathers to the generic kernel.
TEST(MapParams, ChannelGatherOutOfRangeAndDeclinedCases) {
    const uint64_t seed = test_seed();
    auto g = channel_gather_graph({2, 5, 3, 4}, {0, 1, 2, 3, 4, 0});
    const ir::Node& node = g->nodes()[0];
    int64_t* idx = g->value(node.inputs[1]).constant->data<int64_t>();
    const int64_t bad[] = {4, 5, -1, -6, 1000, -3};  // channels 1, 3, 4 are out of range
    std::copy(std::begin(bad), std::end(bad), idx);
    Tensor x = random_tensor(DType::f32, {2, 5, 3, 4}, seed);
    for (Layout layout : {Layout::nchw, Layout::nhwc}) {
        cuda::StepDesc desc = host_desc(*g, node, layout);
        std::vector<uint8_t> in = cuda::pack_host(x, desc.inputs[0]);
        std::vector<uint8_t> out(desc.outputs[0].bytes(), 0xFF);
        cuda::StepBuffers b;
        b.inputs = {in.data(), idx};
        b.outputs = {out.data()};
        std::optional<cuda::ChannelGatherParams> p = cuda::channel_gather_params(desc, b);
        ASSERT_TRUE(p.has_value());
        emulate_channel_gather(*p, in.data(), idx, out.data());
        Tensor got = cuda::unpack_host(out.data(), desc.outputs[0]);
        for (int64_t n = 0; n < 2; ++n)
            for (int64_t j = 0; j < 6; ++j)
                for (int64_t s = 0; s < 12; ++s) {
                    int64_t c = bad[j] < 0 ? bad[j] + 5 : bad[j];
                    float want = c >= 0 && c < 5 ? x.data<float>()[(n * 5 + c) * 12 + s] : 0.0f;
                    EXPECT_EQ(got.data<float>()[(n * 6 + j) * 12 + s], want)
                        << layout_name(layout) << " n " << n << " channel " << j << " index " << bad[j];
                }
    }

    auto declined = [&](ir::Graph& graph, Layout layout, const std::string& what) {
        const ir::Node& n = graph.nodes()[0];
        cuda::StepDesc desc = host_desc(graph, n, layout);
        std::vector<uint8_t> in(desc.inputs[0].bytes()), out(desc.outputs[0].bytes());
        cuda::StepBuffers b;
        b.inputs = {in.data(), graph.value(n.inputs[1]).constant->raw()};
        b.outputs = {out.data()};
        EXPECT_FALSE(cuda::channel_gather_params(desc, b).has_value()) << what << " [" << layout_name(layout) << "]";
    };
    for (Layout layout : {Layout::nchw, Layout::nhwc}) {
        for (auto [axis, index_shape] : std::vector<std::pair<int, Shape>>{{1, {}}, {1, {2, 3}}, {0, {3}}, {2, {3}}}) {
            ir::Builder b("gather");
            ir::ValueId x = b.input("x", DType::f32, {3, 4, 5, 6});
            ir::ValueId i = b.constant("idx", random_tensor(DType::i64, index_shape, seed, 0, 3));
            b.output(b.op(ir::OpKind::Gather, {x, i}, ir::AxisAttrs{axis}));
            auto gg = b.finish();
            ir::infer_shapes(*gg);
            declined(*gg, layout, fmt::format("axis {} indices {}", axis, shape_str(index_shape)));
        }
        std::vector<int64_t> many(cuda::kMaxChannelTable + 1, 0);
        declined(*channel_gather_graph({1, 3, 1, 1}, many), layout, "more channels than the table holds");
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
