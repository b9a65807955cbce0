// test_context_errors.cpp: every way Context::run refuses its inputs, each an invalid_argument Status whose message
// names the input, what was expected and what came; the context still runs correctly afterwards.
#include <gtest/gtest.h>

#include "backends/reference/reference.h"
#include "ir/builder.h"
#include "strata/engine.h"
#include "test_support.h"

namespace strata {
namespace {

// y = relu(a) + b, with a [N,5,3] and b [N,1,3] (broadcast).
std::shared_ptr<ir::Graph> two_input_graph() {
    ir::Builder b("two_inputs");
    ir::ValueId a = b.input("a", DType::f32, {-1, 5, 3});
    ir::ValueId c = b.input("b", DType::f32, {-1, 1, 3});
    b.output(b.add(b.relu(a), c), "y");
    return b.finish();
}

std::string run_error(Context& ctx, const TensorMap& inputs) {
    auto r = ctx.run(inputs);
    EXPECT_FALSE(r.ok());
    if (r.ok()) return "";
    EXPECT_EQ(r.status().code(), StatusCode::invalid_argument) << r.status().message();
    return r.status().message();
}

class ContextErrors : public ::testing::Test {
protected:
    uint64_t seed_ = test::test_seed();
    Tensor a_ = test::random_tensor(DType::f32, {2, 5, 3}, seed_);
    Tensor b_ = test::random_tensor(DType::f32, {2, 1, 3}, seed_ + 1);
    Engine engine_ = Engine::build(Model(two_input_graph()), {.batch = 2}).value();
    Context ctx_ = engine_.make_context().value();
};

TEST_F(ContextErrors, MissingInput) {
    EXPECT_EQ(run_error(ctx_, {{"a", a_}}), "input 'b' is missing: expected float32 [2,1,3]");
}

TEST_F(ContextErrors, UnknownInput) {
    EXPECT_EQ(run_error(ctx_, {{"a", a_}, {"b", b_}, {"c", b_}}),
              "unknown input 'c' (the engine's inputs: 'a', 'b')");
}

TEST_F(ContextErrors, OutputNameIsNotAnInput) {
    EXPECT_EQ(run_error(ctx_, {{"a", a_}, {"b", b_}, {"y", b_}}),
              "unknown input 'y' (the engine's inputs: 'a', 'b')");
}

TEST_F(ContextErrors, WrongShape) {
    Tensor a3 = test::random_tensor(DType::f32, {3, 5, 3}, seed_ + 2);
    EXPECT_EQ(run_error(ctx_, {{"a", a3}, {"b", b_}}), "input 'a': expected float32 [2,5,3], got float32 [3,5,3]");
}

TEST_F(ContextErrors, WrongRank) {
    Tensor flat = test::random_tensor(DType::f32, {6}, seed_ + 3);
    EXPECT_EQ(run_error(ctx_, {{"a", a_}, {"b", flat}}), "input 'b': expected float32 [2,1,3], got float32 [6]");
}

TEST_F(ContextErrors, WrongDtype) {
    Tensor bi = test::random_tensor(DType::i32, {2, 1, 3}, seed_ + 4, -5, 5);
    EXPECT_EQ(run_error(ctx_, {{"a", a_}, {"b", bi}}), "input 'b': expected float32 [2,1,3], got int32 [2,1,3]");
}

TEST_F(ContextErrors, UndefinedTensor) {
    EXPECT_EQ(run_error(ctx_, {{"a", a_}, {"b", Tensor()}}), "input 'b': expected float32 [2,1,3], got float32 []");
    Tensor no_data = Tensor::wrap(nullptr, DType::f32, {2, 1, 3});
    EXPECT_EQ(run_error(ctx_, {{"a", a_}, {"b", no_data}}),
              "input 'b': the tensor has no data (expected float32 [2,1,3])");
}

TEST_F(ContextErrors, StillRunsCorrectlyAfterErrors) {
    (void)run_error(ctx_, {{"a", a_}});
    TensorMap inputs{{"a", a_}, {"b", b_}};
    auto got = ctx_.run(inputs);
    ASSERT_TRUE(got.ok()) << got.status().message();
    auto want = backends::run_reference(*two_input_graph(), inputs);
    EXPECT_LE(test::max_rel_error(got->at("y"), want.at("y")), 1e-6);
}

}  // namespace
}  // namespace strata
