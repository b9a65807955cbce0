// test_onnx_errors.cpp: every way a model file can be wrong ends in a strata::Error with the right code and a
// message naming the file and the problem: corrupted bytes, missing file, unknown op, bad attributes, bad tensors,
// dangling names, and opsets or domains strata does not support.
#include <random>

#include "onnx_test_model.h"

namespace strata::test {
namespace {

OnnxModel small_model(int64_t opset = 17) {
    OnnxModel m(opset);
    m.input("x", {-1, 3, 7, 7}).output("y");
    m.initializer("w", random_tensor(DType::f32, {5, 3, 3, 3}, test_seed()));
    m.node("Conv", {"x", "w"}, {"c"}, "conv");
    m.node("Relu", {"c"}, {"y"}, "relu");
    return m;
}

std::shared_ptr<ir::Graph> import_bytes(const std::string& b) {
    return frontend::import_onnx_bytes(b.data(), b.size(), "bytes.onnx", "");
}

// Import must give a graph or a user-facing Error; anything else (another exception, an internal error) fails.
void expect_graph_or_user_error(const std::string& bytes, const std::string& what) {
    try {
        import_bytes(bytes);
    } catch (const Error& e) {
        EXPECT_NE(e.code(), StatusCode::internal) << what << ": " << e.what();
        EXPECT_EQ(std::string(e.what()).rfind("bytes.onnx: ", 0), 0u) << what << ": " << e.what();
    }
}

TEST(OnnxErrors, TruncatedModel) {
    const std::string full = small_model().bytes();
    // Cut inside the weight's raw_data: the length-delimited field runs past the end.
    expect_error([&] { import_bytes(full.substr(0, full.size() / 2)); }, StatusCode::parse_error,
                 {"bytes.onnx", "not a valid ONNX model (protobuf parse failed)"});
    for (size_t len = 0; len < full.size(); len += 7) expect_graph_or_user_error(full.substr(0, len), "truncated");
}

TEST(OnnxErrors, FlippedBytes) {
    const std::string full = small_model().bytes();
    std::mt19937_64 rng(test_seed());
    for (int trial = 0; trial < 500; ++trial) {
        std::string b = full;
        for (int k = 0; k < 1 + trial % 4; ++k) b[rng() % b.size()] ^= static_cast<char>(1 + rng() % 255);
        expect_graph_or_user_error(b, "flipped bytes, trial " + std::to_string(trial));
    }
}

TEST(OnnxErrors, RandomBytes) {
    std::mt19937_64 rng(test_seed());
    for (int trial = 0; trial < 200; ++trial) {
        std::string b(1 + rng() % 301, '\0');
        for (char& c : b) c = static_cast<char>(rng());
        expect_graph_or_user_error(b, "random bytes");
    }
    expect_error([] { import_bytes("\xff\xff\xff\xff"); }, StatusCode::parse_error, {"protobuf parse failed"});
}

TEST(OnnxErrors, MissingFile) {
    expect_error([] { frontend::import_onnx_file("/nonexistent/dir/model.onnx"); }, StatusCode::not_found,
                 {"/nonexistent/dir/model.onnx: no such file"});
    expect_error([] { frontend::read_tensor_proto_file("/nonexistent/input_0.pb"); }, StatusCode::not_found,
                 {"/nonexistent/input_0.pb", "no such file"});
}

TEST(OnnxErrors, UnknownOpNamesOpNodeOpsetAndSupportedOps) {
    OnnxModel m(17);
    m.input("x", {3}).output("y");
    m.node("Foo", {"x"}, {"y"}, "n");
    expect_error([&] { m.import(); }, StatusCode::unsupported,
                 {"test.onnx: unsupported: op 'Foo' (node 'n', opset 17); strata supports: ", "Conv", "Abs, Add"});
}

TEST(OnnxErrors, OtherDomainIsUnsupported) {
    OnnxModel m;
    m.input("x", {3}).output("y");
    m.node("Relu", {"x"}, {"y"}, "r").set_domain("com.microsoft");
    expect_error([&] { m.import(); }, StatusCode::unsupported, {"unsupported: op 'Relu' of domain 'com.microsoft'"});
}

TEST(OnnxErrors, OpsetOutOfRange) {
    expect_error([] { small_model(22).import(); }, StatusCode::unsupported,
                 {"test.onnx: unsupported: opset 22", "1 to 21"});
    OnnxModel none = small_model();
    none.proto().clear_opset_import();
    expect_error([&] { none.import(); }, StatusCode::parse_error, {"no default-domain"});
}

TEST(OnnxErrors, BadAttributeType) {
    OnnxModel m;
    m.input("x", {2, 3}).output("y");
    set_attr(m.node("LeakyRelu", {"x"}, {"y"}, "lr"), "alpha", int64_t{2});
    expect_error([&] { m.import(); }, StatusCode::parse_error,
                 {"test.onnx", "LeakyRelu 'lr'", "attribute 'alpha' has type INT, expected FLOAT"});
}

TEST(OnnxErrors, NegativeDims) {
    OnnxModel m = small_model();
    m.graph().mutable_initializer(0)->set_dims(1, -3);
    expect_error([&] { m.import(); }, StatusCode::parse_error, {"initializer 'w'", "negative dimension -3"});
    OnnxModel in = small_model();
    in.graph().mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(2)->set_dim_value(
        -7);
    expect_error([&] { in.import(); }, StatusCode::parse_error, {"graph input 'x'", "negative dimension -7"});
}

TEST(OnnxErrors, HugeDimsOverflow) {
    OnnxModel m = small_model();
    auto* w = m.graph().mutable_initializer(0);
    w->clear_dims();
    for (int i = 0; i < 4; ++i) w->add_dims(int64_t{1} << 20);
    expect_error([&] { m.import(); }, StatusCode::parse_error, {"initializer 'w'", "overflows"});
}

TEST(OnnxErrors, DataLengthMismatch) {
    OnnxModel m = small_model();
    m.graph().mutable_initializer(0)->mutable_raw_data()->resize(17);
    expect_error([&] { m.import(); }, StatusCode::parse_error,
                 {"initializer 'w'", "raw_data holds 17 bytes", "need 540"});
    OnnxModel typed = small_model();
    auto* w = typed.graph().mutable_initializer(0);
    w->clear_raw_data();
    for (int i = 0; i < 10; ++i) w->add_float_data(1.0f);
    expect_error([&] { typed.import(); }, StatusCode::parse_error, {"initializer 'w'", "float_data holds 10 values"});
}

TEST(OnnxErrors, DanglingInputName) {
    OnnxModel m = small_model();
    m.graph().mutable_node(1)->set_input(0, "nowhere");
    expect_error([&] { m.import(); }, StatusCode::parse_error, {"Relu 'relu'", "input 'nowhere'", "not a graph input"});
}

TEST(OnnxErrors, DuplicateOutputs) {
    OnnxModel m = small_model();
    m.graph().mutable_node(1)->set_output(0, "c");  // Relu writes Conv's output name again
    m.graph().mutable_output(0)->set_name("c");
    expect_error([&] { m.import(); }, StatusCode::parse_error, {"Relu 'relu'", "output 'c' is already defined"});
    OnnxModel twice = small_model();
    twice.output("y");
    expect_error([&] { twice.import(); }, StatusCode::parse_error, {"graph output 'y' is listed twice"});
    OnnxModel init = small_model();
    init.initializer("w", random_tensor(DType::f32, {1}, test_seed()));
    expect_error([&] { init.import(); }, StatusCode::parse_error, {"initializer 'w' is defined twice"});
}

TEST(OnnxErrors, MissingGraphOutputs) {
    OnnxModel none = small_model();
    none.graph().clear_output();
    expect_error([&] { none.import(); }, StatusCode::parse_error, {"test.onnx", "no outputs"});
    OnnxModel unknown = small_model();
    unknown.output("ghost");
    expect_error([&] { unknown.import(); }, StatusCode::parse_error, {"graph output 'ghost' is not produced"});
}

TEST(OnnxErrors, EmptyGraph) {
    OnnxModel m;
    m.input("x", {3}).output("x");
    expect_error([&] { m.import(); }, StatusCode::parse_error, {"test.onnx", "empty graph"});
    expect_error([] { import_bytes(""); }, StatusCode::parse_error, {"empty graph"});
}

TEST(OnnxErrors, UnsupportedTensorTypes) {
    OnnxModel m = small_model();
    onnx::TensorProto d;
    d.set_name("d");
    d.set_data_type(onnx::TensorProto_DataType_DOUBLE);
    d.add_double_data(1.0);
    *m.graph().add_initializer() = d;
    expect_error([&] { m.import(); }, StatusCode::unsupported, {"initializer 'd'", "data type DOUBLE"});
    OnnxModel in;
    in.output("y");
    in.graph().add_input()->set_name("s");
    in.graph().mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
        onnx::TensorProto_DataType_STRING);
    in.node("Identity", {"s"}, {"y"});
    expect_error([&] { in.import(); }, StatusCode::unsupported, {"graph input 's'", "STRING"});
}

TEST(OnnxErrors, WrongInputCount) {
    OnnxModel m;
    m.input("x", {3}).output("y");
    m.node("Relu", {"x", "x"}, {"y"}, "r");
    expect_error([&] { m.import(); }, StatusCode::parse_error, {"Relu 'r' has 2 inputs", "expects 1"});
    OnnxModel missing;
    missing.input("x", {1, 3, 5, 5}).output("y");
    missing.node("Conv", {"x", ""}, {"y"}, "c");
    expect_error([&] { missing.import(); }, StatusCode::parse_error, {"Conv 'c'", "input 1 (W) is missing"});
}

}  // namespace
}  // namespace strata::test
