// test_model_loading.cpp: Model's constructors through the public API: failures come back as a Status with the
// right code (never an exception or a crash), and a zoo network or builder graph reports its inputs and outputs.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "ir/builder.h"
#include "strata/engine.h"
#include "test_support.h"
#include "zoo/zoo.h"

namespace strata {
namespace {

TEST(ModelLoading, MissingOnnxFileIsAnError) {
    auto m = Model::from_onnx("/nonexistent/strata/model.onnx");
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.status().message().find("/nonexistent/strata/model.onnx"), std::string::npos) << m.status().message();
}

TEST(ModelLoading, GarbageBytesAreAParseError) {
    std::string garbage = "this is not an ONNX model \x01\x02\x03\xff\xfe";
    auto m = Model::from_onnx_bytes(garbage.data(), garbage.size(), "garbage.onnx");
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), StatusCode::parse_error) << m.status().message();
    EXPECT_NE(m.status().message().find("garbage.onnx"), std::string::npos) << m.status().message();
}

TEST(ModelLoading, UnknownZooNameIsNotFound) {
    auto m = Model::from_zoo("no_such_network");
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), StatusCode::not_found) << m.status().message();
}

TEST(ModelLoading, ZooNetworkHasDynamicBatchInputAndBuilds) {
    ASSERT_FALSE(zoo::names().empty());
    auto m = Model::from_zoo(zoo::names().front());
    ASSERT_TRUE(m.ok()) << m.status().message();
    ASSERT_EQ(m->inputs().size(), 1u);
    EXPECT_EQ(m->inputs()[0].name, "input");
    EXPECT_EQ(m->inputs()[0].shape, (Shape{-1, 3, 224, 224}));
    EXPECT_EQ(m->outputs()[0].name, "logits");
    auto e = Engine::build(*m, {.batch = 2});
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ(e->outputs()[0].shape, (Shape{2, 1000}));
}

TEST(ModelLoading, BuilderGraphReportsItsInterface) {
    ir::Builder b("tiny");
    ir::ValueId x = b.input("x", DType::f32, {-1, 7});
    b.output(b.relu(x), "y");
    Model model(b.finish());
    ASSERT_EQ(model.inputs().size(), 1u);
    EXPECT_EQ(model.inputs()[0].shape, (Shape{-1, 7}));
    EXPECT_EQ(model.outputs()[0].name, "y");
    auto e = Engine::build(model, {.batch = 5});
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ(e->inputs()[0].shape, (Shape{5, 7}));
    EXPECT_EQ(e->options().batch, 5);
}

}  // namespace
}  // namespace strata
