// test_graph_io.cpp: graph serialization is exact (every field of every value, node and attrs struct survives,
// compared field by field and by re-serializing to the same bytes; the reference backend gives bit-identical outputs
// on the original and the reloaded graph) and its reader refuses damaged bytes with a "corrupt plan" error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>

#include "backends/reference/reference.h"
#include "build/byte_io.h"
#include "build/graph_io.h"
#include "graph_io_test_util.h"
#include "ir/builder.h"
#include "zoo/zoo.h"

namespace strata::build {
namespace {

using test::Optionals;

ir::Graph reload(const ir::Graph& g) {
    const std::vector<uint8_t> bytes = save_graph_bytes(g);
    return load_graph_bytes(bytes.data(), bytes.size(), "test.graph");
}

// Saves, loads, compares field by field and byte for byte.
void expect_exact_round_trip(const ir::Graph& g, const std::string& what) {
    const std::vector<uint8_t> bytes = save_graph_bytes(g);
    ir::Graph back = load_graph_bytes(bytes.data(), bytes.size(), "test.graph");
    EXPECT_TRUE(test::same_graph(g, back)) << what;
    EXPECT_EQ(save_graph_bytes(back), bytes) << what << ": re-serialized bytes differ";
}

// Outputs of the reference backend on both graphs, from the same random inputs, must be bit-identical.
void expect_same_reference_outputs(const ir::Graph& a, const ir::Graph& b, const Shape& input_shape) {
    const uint64_t seed = test::test_seed();
    std::map<std::string, Tensor> feeds;
    for (ir::ValueId id : a.inputs())
        feeds[a.value(id).name] = test::random_tensor(a.value(id).dtype, input_shape, seed + static_cast<uint64_t>(id));
    const auto out_a = backends::run_reference(a, feeds);
    const auto out_b = backends::run_reference(b, feeds);
    ASSERT_FALSE(out_a.empty()) << a.name;
    ASSERT_EQ(out_a.size(), out_b.size()) << a.name << " seed " << seed;
    for (const auto& [name, t] : out_a) {
        ASSERT_EQ(out_b.count(name), 1u) << a.name << ": output " << name << " missing after reload";
        EXPECT_TRUE(test::same_tensor(t, out_b.at(name)))
            << a.name << ": output " << name << " differs after reload, seed " << seed;
    }
}

TEST(GraphIo, EveryOpEveryFieldRoundTrips) {
    const uint64_t seed = test::test_seed();
    for (uint64_t i = 0; i < 40; ++i) {
        for (Optionals mode : {Optionals::random, Optionals::all_set, Optionals::all_unset}) {
            const ir::Graph g = test::every_op_graph(seed + i, mode);
            expect_exact_round_trip(g, fmt::format("every_op_graph seed {} optionals {}", seed + i, int(mode)));
        }
    }
}

TEST(GraphIo, FloatBitPatternsSurvive) {
    // NaN payloads and -0 compare unequal/equal wrongly as floats: the bytes must survive exactly.
    ir::Graph g;
    const ir::ValueId x = g.add_value("x", DType::f32, {1, 4});
    const ir::ValueId y = g.add_value("y", DType::f32, {1, 4});
    g.add_node(ir::OpKind::Unary, "u", {x}, {y},
               ir::UnaryAttrs{ir::UnaryKind::Clip, -0.0f, std::numeric_limits<float>::quiet_NaN()});
    g.inputs() = {x};
    g.outputs() = {y};
    const std::vector<uint8_t> bytes = save_graph_bytes(g);
    const ir::Graph back = load_graph_bytes(bytes.data(), bytes.size(), "t");
    const auto& u = back.nodes()[0].attr<ir::UnaryAttrs>();
    EXPECT_TRUE(std::signbit(u.alpha));
    EXPECT_TRUE(std::isnan(u.beta));
    EXPECT_EQ(save_graph_bytes(back), bytes);
}

class ZooGraphIo : public ::testing::TestWithParam<const char*> {};

// The zoo's networks end in global average pooling, so they run on any image size: the same edit on both graphs
// frees the input's spatial dims, and a 64x64 image runs every layer at a twelfth of the 224x224 cost.
ir::Graph with_free_spatial_dims(ir::Graph g) {
    for (ir::ValueId id : g.inputs()) g.value(id).shape = {-1, 3, -1, -1};
    return g;
}

TEST_P(ZooGraphIo, RoundTripsExactlyAndRunsIdentically) {
    auto g = zoo::build(GetParam());
    const ir::Graph back = reload(*g);
    EXPECT_TRUE(test::same_graph(*g, back));
    EXPECT_EQ(save_graph_bytes(back), save_graph_bytes(*g));
    expect_same_reference_outputs(with_free_spatial_dims(*g), with_free_spatial_dims(back), {1, 3, 64, 64});
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooGraphIo, ::testing::Values("squeezenet1_1", "mobilenet_v2", "resnet50"),
                         [](const auto& info) { return std::string(info.param); });

// A small network through ops the zoo does not use, with optional fields set and unset.
std::shared_ptr<ir::Graph> mixed_ops_graph(uint64_t seed) {
    using namespace ir;
    Builder b("mixed_ops");
    const ValueId x = b.input("x", DType::f32, {-1, 3, 9, 7});
    ConvAttrs ca = conv2d_attrs(3, 2, 1, 1, 1);
    ca.activation = UnaryAttrs{UnaryKind::LeakyRelu, 0.1f, 0.0f};
    const ValueId c = b.conv(x, test::random_tensor(DType::f32, {6, 3, 3, 3}, seed), std::nullopt, ca);
    const ValueId h = b.unary(UnaryKind::HardSigmoid, c, 0.2f, 0.5f);
    const ValueId p = b.op(OpKind::Pad, {h}, PadAttrs{PadMode::reflect, std::vector<int64_t>{0, 0, 1, 2, 0, 0, 2, 1}});
    const ValueId t = b.op(OpKind::Transpose, {p}, TransposeAttrs{{0, 2, 3, 1}});
    const ValueId s =
        b.op(OpKind::Slice, {t}, SliceAttrs{std::vector<int64_t>{1, 0}, std::vector<int64_t>{-1, 5}, {1, 3}, {2, 1}});
    const ValueId r = b.op(OpKind::Reduce, {s}, ReduceAttrs{ReduceKind::Max, {1}, false, false});
    const ValueId m = b.binary(BinaryKind::Mul, r, b.constant("k", test::random_tensor(DType::f32, {5}, seed + 1)));
    const ValueId f = b.flatten(m, 1);
    const ValueId sm = b.op(OpKind::Softmax, {f}, SoftmaxAttrs{-1, false});
    const ValueId rs = b.op(OpKind::Reshape, {sm}, ReshapeAttrs{std::vector<int64_t>{0, -1, 5}, false});
    b.output(rs, "y");
    return b.finish();
}

TEST(GraphIo, MixedOpsRunIdentically) {
    const uint64_t seed = test::test_seed();
    auto g = mixed_ops_graph(seed);
    const ir::Graph back = reload(*g);
    EXPECT_TRUE(test::same_graph(*g, back));
    expect_same_reference_outputs(*g, back, {2, 3, 9, 7});
}

// Every prefix of a small graph's bytes is refused with a "corrupt plan" error naming the file.
TEST(GraphIo, EveryTruncationIsRefused) {
    const std::vector<uint8_t> bytes = save_graph_bytes(test::every_op_graph(7, Optionals::random));
    for (size_t n = 0; n < bytes.size(); ++n) {
        try {
            load_graph_bytes(bytes.data(), n, "cut.graph");
            ADD_FAILURE() << "a prefix of " << n << " of " << bytes.size() << " bytes loaded";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), kCorruptPlanCode) << e.what();
            EXPECT_NE(std::string(e.what()).find("cut.graph: corrupt plan: "), std::string::npos) << e.what();
        }
    }
}

// Every byte of a small graph replaced by several values: the load succeeds or throws strata::Error (any other
// exception or a crash fails the test; the sanitizer build checks memory too).
TEST(GraphIo, EverySingleByteChangeLoadsOrThrows) {
    const uint64_t seed = test::test_seed();
    const std::vector<uint8_t> bytes = save_graph_bytes(test::every_op_graph(seed, Optionals::random));
    std::mt19937_64 rng(seed);
    int refused = 0, loaded = 0;
    for (size_t at = 0; at < bytes.size(); ++at) {
        for (uint8_t v : {uint8_t(0), uint8_t(0xff), uint8_t(0x80), static_cast<uint8_t>(rng())}) {
            std::vector<uint8_t> bad = bytes;
            if (bad[at] == v) continue;
            bad[at] = v;
            try {
                load_graph_bytes(bad.data(), bad.size(), "flip.graph");
                ++loaded;
            } catch (const Error& e) {
                EXPECT_EQ(e.code(), kCorruptPlanCode) << "byte " << at << " = " << int(v) << ": " << e.what();
                ++refused;
            }
        }
    }
    EXPECT_GT(refused, 0);
    EXPECT_GT(loaded, 0);  // constant data and float attrs take any bytes
}

// A graph section written by hand, for the specific refusals.
struct HandGraph {
    uint8_t op = static_cast<uint8_t>(ir::OpKind::Unary);
    uint8_t attrs_index = static_cast<uint8_t>(ir::Attrs(ir::UnaryAttrs{}).index());
    uint8_t unary_kind = 0;
    uint8_t dtype = 0;
    int32_t input = 0;
    uint32_t value_count = 2;
    const char* values_tag = "VALS";
};

std::vector<uint8_t> hand_graph(const HandGraph& h) {
    ByteWriter w;
    w.tag("GRPH");
    w.str("hand");
    w.tag(h.values_tag);
    w.u32(h.value_count);
    for (const char* name : {"x", "y"}) {
        w.str(name);
        w.u8(h.dtype);
        w.boolean(true);
        w.i64s({1, 2});
        w.boolean(false);
    }
    w.tag("NODS");
    w.u32(1);
    w.u8(h.op);
    w.str("n");
    w.u32(1);
    w.i32(h.input);
    w.u32(1);
    w.i32(1);
    w.u8(h.attrs_index);
    w.u8(h.unary_kind);
    w.f32(0.0f);
    w.f32(0.0f);
    w.tag("GIOS");
    w.u32(1);
    w.i32(0);
    w.u32(1);
    w.i32(1);
    w.tag("GEND");
    return std::move(w.bytes());
}

void expect_refused(const HandGraph& h, const std::string& needle) {
    const std::vector<uint8_t> bytes = hand_graph(h);
    try {
        load_graph_bytes(bytes.data(), bytes.size(), "hand.graph");
        ADD_FAILURE() << "loaded; expected an error containing '" << needle << "'";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), kCorruptPlanCode) << e.what();
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(GraphIo, HandWrittenGraphLoads) {
    const std::vector<uint8_t> bytes = hand_graph({});
    const ir::Graph g = load_graph_bytes(bytes.data(), bytes.size(), "hand.graph");
    ASSERT_EQ(g.nodes().size(), 1u);
    EXPECT_EQ(g.nodes()[0].op, ir::OpKind::Unary);
    EXPECT_EQ(save_graph_bytes(g), bytes);
}

TEST(GraphIo, RefusesEachKindOfDamage) {
    expect_refused({.op = ir::kOpCount}, "is not an op");
    expect_refused({.attrs_index = 0}, "attrs alternative 0, expected");
    expect_refused({.unary_kind = 200}, "Unary kind has out-of-range value 200");
    expect_refused({.dtype = 8}, "value dtype has out-of-range value 8");
    expect_refused({.input = 2}, "node inputs names value 2, the graph has 2 values");
    expect_refused({.input = -2}, "names value -2");
    expect_refused({.value_count = 0xfffffff0u}, "cannot fit in the");
    expect_refused({.values_tag = "VALX"}, "expected section 'VALS'");
    std::vector<uint8_t> extra = hand_graph({});
    extra.push_back(0);
    EXPECT_THROW(load_graph_bytes(extra.data(), extra.size(), "x"), Error);
}

TEST(GraphIo, RefusesConstantWithWrongByteCount) {
    ir::Graph g;
    g.add_constant("w", test::random_tensor(DType::f32, {2, 3}, 1));
    g.outputs() = {0};
    std::vector<uint8_t> bytes = save_graph_bytes(g);
    // The u64 byte count sits right before the 24 data bytes: claim one byte more.
    const size_t count_at = bytes.size() - 24 - 8 - (4 + 4 + 4 + 4 + 4 + 4 + 4);  // data, then NODS/GIOS/GEND
    ASSERT_EQ(bytes[count_at], 24) << "layout assumption of this test";
    bytes[count_at] = 25;
    try {
        load_graph_bytes(bytes.data(), bytes.size(), "w.graph");
        ADD_FAILURE() << "loaded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("has 25 data bytes, expected 24"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace strata::build
