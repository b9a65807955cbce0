// test_data.cpp: the data-movement tactics against the reference, all exact (0 error in fp32): Concat and Split on
// every axis (nhwc's axis 1 is the innermost memory dim) with odd sizes and more parts than one launch batches,
// Slice (negative starts and steps), Transpose, Pad (constant/reflect/edge, crops), Tile, Expand, Gather (int32 and
// int64 indices, negative ones; its fast path for whole channels), the plain copies (Identity, Dropout, Reshape,
// Flatten, Squeeze, Unsqueeze, also across the nhwc/row-major boundary), ConstantOfShape and Shape. Slice, Transpose,
// Pad, Tile, Expand and Gather also run on random shapes of every rank from 1 to 5 with random attributes.
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_tactic.h"
#include "membound_check.h"

namespace strata::test {
namespace {

// Registration is host code: checked on every machine, so a duplicate or missing tactic shows up in CI.
TEST(MemoryBoundTactics, EveryOpHasItsCudaTactic) {
    const auto& registry = cuda::CudaTacticRegistry::global();
    const std::pair<const char*, ir::OpKind> expected[] = {
        {"cuda.unary", ir::OpKind::Unary},
        {"cuda.binary", ir::OpKind::Binary},
        {"cuda.cast", ir::OpKind::Cast},
        {"cuda.identity", ir::OpKind::Identity},
        {"cuda.dropout", ir::OpKind::Dropout},
        {"cuda.maxpool", ir::OpKind::MaxPool},
        {"cuda.avgpool", ir::OpKind::AveragePool},
        {"cuda.global_avgpool", ir::OpKind::GlobalAveragePool},
        {"cuda.global_maxpool", ir::OpKind::GlobalMaxPool},
        {"cuda.softmax", ir::OpKind::Softmax},
        {"cuda.logsoftmax", ir::OpKind::LogSoftmax},
        {"cuda.concat", ir::OpKind::Concat},
        {"cuda.split", ir::OpKind::Split},
        {"cuda.slice", ir::OpKind::Slice},
        {"cuda.transpose", ir::OpKind::Transpose},
        {"cuda.pad", ir::OpKind::Pad},
        {"cuda.tile", ir::OpKind::Tile},
        {"cuda.expand", ir::OpKind::Expand},
        {"cuda.gather", ir::OpKind::Gather},
        {"cuda.reshape", ir::OpKind::Reshape},
        {"cuda.flatten", ir::OpKind::Flatten},
        {"cuda.squeeze", ir::OpKind::Squeeze},
        {"cuda.unsqueeze", ir::OpKind::Unsqueeze},
        {"cuda.constant_of_shape", ir::OpKind::ConstantOfShape},
        {"cuda.shape", ir::OpKind::Shape},
        {"cuda.reduce", ir::OpKind::Reduce},
        {"cuda.batchnorm", ir::OpKind::BatchNorm},
        {"cuda.instancenorm", ir::OpKind::InstanceNorm},
    };
    for (const auto& [name, op] : expected) {
        const cuda::CudaTactic* t = registry.find(name);
        ASSERT_NE(t, nullptr) << "no CUDA tactic " << name;
        EXPECT_EQ(t->op, op) << name;
    }
}

FormCheck exact() {
    FormCheck check;
    check.f32_tolerance = 0;
    return check;
}

// A one-node graph of `op` on one f32 input of `shape`, checked exactly by `tactic` in every form; `what` is the case.
void check_one_input(ir::OpKind op, ir::Attrs attrs, const Shape& shape, const std::string& tactic,
                     const std::string& what, uint64_t seed) {
    ir::Builder b("one_input");
    ir::ValueId x = b.input("x", DType::f32, shape);
    b.output(b.op(op, {x}, std::move(attrs)));
    auto g = b.finish();
    expect_all_forms(*g, tactic, what, seed, exact());
}

// Gather of `x_shape` data along `axis` with constant `indices`.
void check_gather(const Shape& x_shape, DType x_dtype, const Tensor& indices, int64_t axis, uint64_t seed,
                  const std::string& what, const FormCheck& check) {
    ir::Builder b("gather");
    ir::ValueId x = b.input("x", x_dtype, x_shape);
    b.output(b.op(ir::OpKind::Gather, {x, b.constant("idx", indices)}, ir::AxisAttrs{axis}));
    auto g = b.finish();
    expect_all_forms(*g, "cuda.gather",
                     fmt::format("{} {} {} axis {} indices {} {}", what, dtype_name(x_dtype), shape_str(x_shape), axis,
                                 dtype_name(indices.dtype()), shape_str(indices.shape())),
                     seed, check);
}

// The random cases: trial t has rank 1 + t % 5, so that every rank from 1 to 5 comes up in every run.
constexpr int kRandomTrials = 10;

// `rank` random dims, odd sizes included; the larger the rank, the smaller the dims, so that rank 5 stays cheap.
Shape random_shape(std::mt19937_64& rng, int rank) {
    static constexpr int64_t kMaxDim[] = {1, 300, 40, 13, 9, 6};
    Shape shape;
    for (int d = 0; d < rank; ++d) shape.push_back(random_dim(rng, 1, kMaxDim[rank]));
    return shape;
}

bool coin(std::mt19937_64& rng) {
    return rng() % 2 == 0;
}

// 0..rank-1 in a random order.
std::vector<int64_t> random_permutation(std::mt19937_64& rng, size_t rank) {
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), int64_t{0});
    std::shuffle(perm.begin(), perm.end(), rng);
    return perm;
}

TEST(GpuConcat, EveryAxisMatchesReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    for (int rank : {4, 3, 2}) {
        for (int axis = -1; axis < rank; ++axis) {
            for (int parts : {1, 2, 3, 20}) {
                Shape base = {random_dim(rng, 1, 3), random_dim(rng, 1, 9), random_dim(rng, 1, 7),
                              random_dim(rng, 1, 5)};
                base.resize(rank);
                ir::Builder b("concat");
                std::vector<ir::ValueId> xs;
                std::string sizes;
                for (int p = 0; p < parts; ++p) {
                    Shape s = base;
                    s[axis < 0 ? rank - 1 : axis] = random_dim(rng, 1, 17);
                    xs.push_back(b.input(fmt::format("x{}", p), DType::f32, s));
                    sizes += shape_str(s);
                }
                b.output(b.concat(xs, axis));
                auto g = b.finish();
                expect_all_forms(*g, "cuda.concat", fmt::format("axis {} of {}", axis, sizes), seed, exact());
            }
        }
    }
}

TEST(GpuSplit, EveryAxisMatchesReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    for (int axis = 0; axis < 4; ++axis) {
        Shape shape = {random_dim(rng, 1, 3), random_dim(rng, 1, 9), random_dim(rng, 1, 9), random_dim(rng, 1, 9)};
        shape[axis] = 12;
        for (auto split : {std::optional<std::vector<int64_t>>{}, std::optional<std::vector<int64_t>>{{5, 0, 7}},
                           std::optional<std::vector<int64_t>>{{1, 2, 9}}}) {
            ir::Builder b("split");
            ir::ValueId x = b.input("x", DType::f32, shape);
            auto ys = b.op_n(ir::OpKind::Split, {x}, 3, ir::SplitAttrs{axis, split});
            for (auto y : ys) b.output(y);
            auto g = b.finish();
            expect_all_forms(*g, "cuda.split",
                             fmt::format("{} axis {} split {}", shape_str(shape), axis,
                                         split ? fmt::format("{}", fmt::join(*split, ",")) : "equal"),
                             seed, exact());
        }
    }
}

TEST(GpuSlice, StartsEndsStepsMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    const Shape shape = {2, 9, 11, 13};
    struct SliceCase {
        std::vector<int64_t> starts, ends, axes, steps;
    };
    const SliceCase cases[] = {
        {{1, 2}, {8, 10}, {1, 2}, {}},
        {{-3}, {1000}, {3}, {}},
        {{10, 0}, {-100, 9}, {2, 1}, {-2, 3}},  // a negative step, clamped end
        {{0, 1, 2, 3}, {1, 9, 11, 13}, {}, {1, 2, 3, 4}},
        {{5}, {5}, {1}, {}},        // empty result
        {{-1}, {-12}, {-1}, {-1}},  // reverse the last dim
        // Pitched row copies (map_params.h's slice_rows): channel halves, other channel ranges, a batch slice, a
        // channel step (rows in nchw only).
        {{0}, {4}, {1}, {}},
        {{4}, {9}, {1}, {}},
        {{1}, {-1}, {-3}, {}},
        {{1}, {2}, {0}, {}},
        {{0}, {9}, {1}, {2}},
    };
    for (const SliceCase& sc : cases) {
        check_one_input(
            ir::OpKind::Slice, ir::SliceAttrs{sc.starts, sc.ends, sc.axes, sc.steps}, shape, "cuda.slice",
            fmt::format("{} starts {} ends {} axes {} steps {}", shape_str(shape), fmt::join(sc.starts, ","),
                        fmt::join(sc.ends, ","), fmt::join(sc.axes, ","), fmt::join(sc.steps, ",")),
            seed);
    }
}

// One nonempty slice of a dim of size n, spelt any way ONNX allows: starts and ends counted from the end, bounds past
// the dim (clamped), steps of either sign.
struct DimSlice {
    int64_t start = 0, end = 0, step = 1;
};

DimSlice random_dim_slice(std::mt19937_64& rng, int64_t n) {
    const int64_t step = random_dim(rng, 1, 3) * (coin(rng) ? 1 : -1);
    const int64_t first = random_dim(rng, 0, n - 1);
    // The bound the slice stops before: above `first` for positive steps, below it (down to -1) for negative ones.
    const int64_t stop = step > 0 ? random_dim(rng, first + 1, n) : random_dim(rng, -1, first - 1);
    DimSlice s;
    s.step = step;
    s.start = coin(rng) ? first : first - n;
    if (first == (step > 0 ? 0 : n - 1) && coin(rng)) s.start = step > 0 ? -1000 : 1000;  // clamped to the border
    if (stop == n)
        s.end = coin(rng) ? n : 1000;
    else if (stop == -1)
        s.end = -n - random_dim(rng, 1, 3);  // below -n: clamped to "before the first element"
    else
        s.end = coin(rng) ? stop : stop - n;
    return s;
}

TEST(GpuSlice, RandomShapesAndSlicesMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 1);
    for (int trial = 0; trial < kRandomTrials; ++trial) {
        const Shape shape = random_shape(rng, 1 + trial % 5);
        const int64_t rank = static_cast<int64_t>(shape.size());
        std::vector<int64_t> dims = random_permutation(rng, shape.size());
        dims.resize(static_cast<size_t>(random_dim(rng, 1, rank)));  // the sliced dims, in a random order
        ir::SliceAttrs a{std::vector<int64_t>{}, std::vector<int64_t>{}, {}, {}};
        for (int64_t d : dims) {
            DimSlice s = random_dim_slice(rng, shape[d]);
            a.starts->push_back(s.start);
            a.ends->push_back(s.end);
            a.axes.push_back(coin(rng) ? d : d - rank);
            a.steps.push_back(s.step);
        }
        const std::string what =
            fmt::format("{} starts {} ends {} axes {} steps {}", shape_str(shape), fmt::join(*a.starts, ","),
                        fmt::join(*a.ends, ","), fmt::join(a.axes, ","), fmt::join(a.steps, ","));
        check_one_input(ir::OpKind::Slice, a, shape, "cuda.slice", what, seed);
    }
}

// ShuffleNetV2's split: both channel halves of its stages' widths (word sizes from 16 bytes down as C/2 varies).
TEST(GpuSlice, ChannelHalvesAsRowCopiesMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    for (auto [c, hw] : std::vector<std::pair<int64_t, int64_t>>{{116, 28}, {232, 14}, {464, 7}, {50, 3}, {7, 5}}) {
        for (bool second : {false, true}) {
            std::vector<int64_t> starts{second ? c / 2 : 0}, ends{second ? c : c / 2};
            check_one_input(ir::OpKind::Slice, ir::SliceAttrs{starts, ends, {1}, {}}, {3, c, hw, hw}, "cuda.slice",
                            fmt::format("[3,{},{},{}] channels {}..{}", c, hw, hw, starts[0], ends[0]), seed);
        }
    }
}

TEST(GpuTranspose, PermutationsMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    const std::vector<std::vector<int64_t>> perms4 = {{0, 2, 3, 1}, {0, 3, 1, 2}, {3, 2, 1, 0}, {1, 0, 2, 3}, {}};
    for (const auto& perm : perms4) {
        check_one_input(ir::OpKind::Transpose, ir::TransposeAttrs{perm}, {3, 5, 7, 33}, "cuda.transpose",
                        fmt::format("[3,5,7,33] perm {}", fmt::join(perm, ",")), seed);
    }
    // ShuffleNet's channel shuffle: [N, g, C/g, HW] -> [N, C/g, g, HW] as rank 3.
    check_one_input(ir::OpKind::Transpose, ir::TransposeAttrs{{1, 0, 2}}, {2, 29, 17}, "cuda.transpose",
                    "[2,29,17] perm 1,0,2", seed);
}

TEST(GpuTranspose, RandomShapesAndPermutationsMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 2);
    for (int trial = 0; trial < kRandomTrials; ++trial) {
        const Shape shape = random_shape(rng, 1 + trial % 5);
        const std::vector<int64_t> perm = random_permutation(rng, shape.size());
        check_one_input(ir::OpKind::Transpose, ir::TransposeAttrs{perm}, shape, "cuda.transpose",
                        fmt::format("{} perm {}", shape_str(shape), fmt::join(perm, ",")), seed);
    }
}

TEST(GpuPad, EveryModeMatchesReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    const std::vector<std::vector<int64_t>> pad_sets = {
        {0, 0, 1, 2, 0, 0, 3, 1},    // spatial pads
        {0, 1, 0, 0, 1, 2, 0, 0},    // channel pads
        {0, 0, -1, 2, 0, 0, 1, -2},  // crops mixed with pads
        {1, 0, 4, 4, 0, 0, 4, 4},    // reflect across most of a dim
    };
    for (ir::PadMode mode : {ir::PadMode::constant, ir::PadMode::reflect, ir::PadMode::edge}) {
        for (const auto& pads : pad_sets) {
            check_one_input(ir::OpKind::Pad, ir::PadAttrs{mode, pads, 0.75f}, {2, 3, 7, 6}, "cuda.pad",
                            fmt::format("[2,3,7,6] mode {} pads {}", static_cast<int>(mode), fmt::join(pads, ",")),
                            seed);
        }
    }
}

// The begin and end pads of a dim of size n: none, or growths and crops of up to 3 each (growths at most n - 1 in
// reflect mode, which mirrors without repeating the border element, as ONNX requires; crops leave an element).
std::pair<int64_t, int64_t> random_dim_pads(std::mt19937_64& rng, int64_t n, ir::PadMode mode) {
    if (rng() % 3 == 0) return {0, 0};
    const int64_t grow = mode == ir::PadMode::reflect ? std::min<int64_t>(3, n - 1) : 3;
    const int64_t begin = random_dim(rng, -std::min<int64_t>(3, n - 1), grow);
    const int64_t end = random_dim(rng, -std::min<int64_t>(3, n - 1 - std::max<int64_t>(0, -begin)), grow);
    return {begin, end};
}

TEST(GpuPad, RandomShapesPadsAndModesMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 3);
    const ir::PadMode modes[] = {ir::PadMode::constant, ir::PadMode::reflect, ir::PadMode::edge};
    for (int trial = 0; trial < kRandomTrials; ++trial) {
        const Shape shape = random_shape(rng, 1 + trial % 5);
        const ir::PadMode mode = modes[trial % 3];
        const size_t rank = shape.size();
        std::vector<int64_t> pads(2 * rank);
        for (size_t d = 0; d < rank; ++d) std::tie(pads[d], pads[rank + d]) = random_dim_pads(rng, shape[d], mode);
        const float value = static_cast<float>(random_dim(rng, -8, 8)) / 4;  // exact in every float dtype
        check_one_input(ir::OpKind::Pad, ir::PadAttrs{mode, pads, value}, shape, "cuda.pad",
                        fmt::format("{} mode {} pads {} value {}", shape_str(shape), static_cast<int>(mode),
                                    fmt::join(pads, ","), value),
                        seed);
    }
}

TEST(GpuTileExpand, MatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    check_one_input(ir::OpKind::Tile, ir::TileAttrs{std::vector<int64_t>{2, 1, 3, 2}}, {2, 3, 5, 7}, "cuda.tile",
                    "[2,3,5,7] repeats 2,1,3,2", seed);
    const std::pair<Shape, std::vector<int64_t>> expands[] = {
        {{5, 1, 1}, {2, 5, 3, 7}}, {{1}, {3, 4, 5, 6}}, {{2, 1, 6, 1}, {2, 5, 6, 3}}, {{7}, {4, 7}}};
    for (const auto& [from, to] : expands) {
        check_one_input(ir::OpKind::Expand, ir::ExpandAttrs{to}, from, "cuda.expand",
                        fmt::format("{} to {}", shape_str(from), fmt::join(to, ",")), seed);
    }
}

TEST(GpuTileExpand, RandomTileRepeatsMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 4);
    for (int trial = 0; trial < kRandomTrials; ++trial) {
        const Shape shape = random_shape(rng, 1 + trial % 5);
        std::vector<int64_t> repeats;
        for (size_t d = 0; d < shape.size(); ++d) repeats.push_back(random_dim(rng, 1, 3));
        check_one_input(ir::OpKind::Tile, ir::TileAttrs{repeats}, shape, "cuda.tile",
                        fmt::format("{} repeats {}", shape_str(shape), fmt::join(repeats, ",")), seed);
    }
}

// Expand's input and target shape for an output of shape `out`: an input of rank up to out's whose dims are out's
// or 1, and a target that broadcasts with it to `out` both ways (1 where the input supplies the dim; leading dims
// left out where the input has them all).
std::pair<Shape, std::vector<int64_t>> random_expand(std::mt19937_64& rng, const Shape& out) {
    const size_t rank = out.size(), x_rank = static_cast<size_t>(random_dim(rng, 1, static_cast<int64_t>(rank)));
    Shape x(x_rank);
    std::vector<int64_t> target = out;
    for (size_t i = 0; i < x_rank; ++i) {
        const size_t d = rank - x_rank + i;
        x[i] = coin(rng) ? out[d] : 1;
        if (x[i] == out[d] && rng() % 3 == 0) target[d] = 1;
    }
    while (x_rank == rank && target.size() > 1 && target.front() == 1 && coin(rng)) target.erase(target.begin());
    return {x, target};
}

TEST(GpuTileExpand, RandomExpandShapesMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 5);
    for (int trial = 0; trial < kRandomTrials; ++trial) {
        const Shape out = random_shape(rng, 1 + trial % 5);
        const auto [from, to] = random_expand(rng, out);
        check_one_input(ir::OpKind::Expand, ir::ExpandAttrs{to}, from, "cuda.expand",
                        fmt::format("{} to {} (output {})", shape_str(from), fmt::join(to, ","), shape_str(out)), seed);
    }
}

TEST(GpuGather, IndicesOfBothTypesMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    for (DType index_type : {DType::i64, DType::i32}) {
        for (int axis : {0, 1, 3, -1}) {
            for (Shape index_shape : {Shape{}, Shape{4}, Shape{2, 3}}) {
                const Shape data_shape = {5, 6, 3, 7};
                int64_t size = data_shape[axis < 0 ? 3 : axis];
                Tensor indices = random_tensor(index_type, index_shape, seed + axis, -static_cast<double>(size),
                                               static_cast<double>(size));
                check_gather(data_shape, DType::f32, indices, axis, seed, "fixed", exact());
            }
        }
    }
}

std::string index_values(const Tensor& indices) {
    std::vector<int64_t> v;
    for (int64_t i = 0; i < indices.numel(); ++i)
        v.push_back(indices.dtype() == DType::i64 ? indices.data<int64_t>()[i] : indices.data<int32_t>()[i]);
    return fmt::format("[{}]", fmt::join(v, ","));
}

// The generic kernel on data of every rank from 1 to 5, a random axis (negative ones too) and random in-range indices
// (negative ones too) of rank 0 to 2, either index type.
TEST(GpuGather, RandomShapesAxesAndIndicesMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 6);
    for (int trial = 0; trial < kRandomTrials; ++trial) {
        const Shape data_shape = random_shape(rng, 1 + trial % 5);
        const int64_t rank = static_cast<int64_t>(data_shape.size());
        const int64_t axis = random_dim(rng, -rank, rank - 1);
        const double size = static_cast<double>(data_shape[axis < 0 ? axis + rank : axis]);
        Shape index_shape(static_cast<size_t>(random_dim(rng, 0, 2)));
        for (int64_t& d : index_shape) d = random_dim(rng, 1, 5);
        const DType index_type = coin(rng) ? DType::i64 : DType::i32;
        const Tensor indices = random_tensor(index_type, index_shape, rng(), -size, size);
        check_gather(data_shape, DType::f32, indices, axis, seed, "values " + index_values(indices), exact());
    }
}

// Gather's fast path for whole channels (rank-4 data, axis 1, 1-D indices; kernels/data/channel_gather.cu): channel
// shuffles of ShuffleNetV2's widths and of random sizes and group counts, and random index lists (other output counts,
// repeats, negative indices), in every float dtype and both layouts, so that C * element size gives words of 16 down
// to 2 bytes; then 1-, 4- and 8-byte integer data, a grid-stride loop of several rounds, and more output channels
// than the table holds (the generic kernel).
Tensor channel_indices(const std::vector<int64_t>& v, DType dtype) {
    Tensor t = Tensor::empty(dtype, {static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i) {
        if (dtype == DType::i64)
            t.data<int64_t>()[i] = v[i];
        else
            t.data<int32_t>()[i] = static_cast<int32_t>(v[i]);
    }
    return t;
}

std::vector<int64_t> shuffle_permutation(int64_t channels, int64_t groups) {
    std::vector<int64_t> p(static_cast<size_t>(channels));
    for (int64_t j = 0; j < channels; ++j) p[j] = (j % groups) * (channels / groups) + j / groups;
    return p;
}

void check_channel_gather(const Shape& x_shape, DType x_dtype, const Tensor& indices, uint64_t seed,
                          const std::string& what, const FormCheck& check) {
    check_gather(x_shape, x_dtype, indices, 1, seed, what, check);
}

TEST(GpuGather, WholeChannelsFastPathMatchesReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    for (auto [c, hw] : std::vector<std::pair<int64_t, int64_t>>{{116, 5}, {232, 3}, {464, 2}, {24, 7}}) {
        check_channel_gather({2, c, hw, hw}, DType::f32, channel_indices(shuffle_permutation(c, 2), DType::i64), seed,
                             fmt::format("shufflenet shuffle g=2 C={}", c), exact());
    }
    for (int trial = 0; trial < 16; ++trial) {
        const int64_t c = random_dim(rng, 1, 300);
        const Shape shape = {random_dim(rng, 1, 3), c, random_dim(rng, 1, 9), random_dim(rng, 1, 9)};
        const DType index_type = trial % 4 < 2 ? DType::i64 : DType::i32;
        std::vector<int64_t> v;
        std::string what;
        if (trial % 2 == 0) {
            std::vector<int64_t> divisors;
            for (int64_t g = 1; g <= c; ++g)
                if (c % g == 0) divisors.push_back(g);
            int64_t groups = divisors[rng() % divisors.size()];
            v = shuffle_permutation(c, groups);
            what = fmt::format("shuffle g={} ({})", groups, dtype_name(index_type));
        } else {
            v.resize(static_cast<size_t>(random_dim(rng, 1, 300)));
            for (int64_t& i : v) i = std::uniform_int_distribution<int64_t>(-c, c - 1)(rng);
            what = fmt::format("{} random channels ({})", v.size(), dtype_name(index_type));
        }
        check_channel_gather(shape, DType::f32, channel_indices(v, index_type), seed + trial, what, exact());
    }
    FormCheck ints = exact();
    ints.dtypes = {DType::f32};  // integer data keeps its dtype whatever the compute dtype
    ints.lo = -100000;
    ints.hi = 100000;
    for (DType dt : {DType::u8, DType::i32, DType::i64}) {
        for (int64_t c : {13, 16, 40}) {
            check_channel_gather({2, c, 3, 5}, dt, channel_indices(shuffle_permutation(c, c % 2 ? 1 : 2), DType::i64),
                                 seed, fmt::format("C={}", c), ints);
        }
    }
    // More words than the capped grid has threads (each thread loops); and 8193 output channels: the generic kernel.
    check_channel_gather({16, 232, 28, 28}, DType::f32, channel_indices(shuffle_permutation(232, 2), DType::i64), seed,
                         "large shuffle", exact());
    check_channel_gather({1, 3, 2, 2}, DType::f32, channel_indices(std::vector<int64_t>(8193, 1), DType::i64), seed,
                         "beyond the table", exact());
}

TEST(GpuCopies, ReshapeFamilyMatchesReferenceAcrossLayouts) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    const Shape shape = {2, 5, 3, 7};
    auto check = [&](ir::OpKind op, ir::Attrs attrs, const Shape& in, const char* tactic, const std::string& what) {
        check_one_input(op, std::move(attrs), in, tactic, what, seed);
    };
    check(ir::OpKind::Identity, ir::NoAttrs{}, shape, "cuda.identity", "[2,5,3,7]");
    check(ir::OpKind::Dropout, ir::NoAttrs{}, {3, 1001}, "cuda.dropout", "[3,1001]");
    check(ir::OpKind::Flatten, ir::FlattenAttrs{1}, shape, "cuda.flatten", "[2,5,3,7] axis 1 (nhwc -> row-major)");
    check(ir::OpKind::Flatten, ir::FlattenAttrs{1}, {2, 9, 1, 1}, "cuda.flatten", "[2,9,1,1] axis 1");
    check(ir::OpKind::Reshape, ir::ReshapeAttrs{std::vector<int64_t>{2, 15, 7}}, shape, "cuda.reshape",
          "[2,5,3,7] -> [2,15,7]");
    check(ir::OpKind::Reshape, ir::ReshapeAttrs{std::vector<int64_t>{2, 7, 5, 3}}, {2, 105}, "cuda.reshape",
          "[2,105] -> [2,7,5,3] (row-major -> nhwc)");
    check(ir::OpKind::Squeeze, ir::AxesAttrs{std::vector<int64_t>{2}}, {2, 5, 1, 7}, "cuda.squeeze",
          "[2,5,1,7] axis 2");
    check(ir::OpKind::Unsqueeze, ir::AxesAttrs{std::vector<int64_t>{3}}, {2, 5, 7}, "cuda.unsqueeze",
          "[2,5,7] axis 3 (row-major -> nhwc)");
}

TEST(GpuFill, ConstantOfShapeAndShapeMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    for (DType dt : {DType::f32, DType::i64, DType::i32, DType::boolean}) {
        ir::Builder b("constant_of_shape");
        b.output(
            b.op(ir::OpKind::ConstantOfShape, {}, ir::ConstantOfShapeAttrs{std::vector<int64_t>{3, 5, 7}, dt, 2.5}));
        auto g = b.finish();
        expect_all_forms(*g, "cuda.constant_of_shape", fmt::format("[3,5,7] of {} 2.5", dtype_name(dt)), seed, exact());
    }
    const std::pair<int64_t, std::optional<int64_t>> ranges[] = {{0, {}}, {1, 3}, {-2, {}}, {-1, -3}};
    for (const auto& [start, end] : ranges) {
        ir::Builder b("shape");
        ir::ValueId x = b.input("x", DType::f32, {2, 5, 3, 7});
        b.output(b.op(ir::OpKind::Shape, {x}, ir::ShapeAttrs{start, end}));
        auto g = b.finish();
        expect_all_forms(*g, "cuda.shape", fmt::format("start {} end {}", start, end ? *end : 99), seed, exact());
    }
}

}  // namespace
}  // namespace strata::test
