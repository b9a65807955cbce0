// test_onnx_tensor.cpp: TensorProto -> Tensor for every dtype strata holds, from raw_data and from the typed
// fields; external data read from a temporary model folder, and the ways its location, offset or length can be
// wrong; read_tensor_proto_file on a written .pb and on the conformance files.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "frontend/onnx/onnx_tensor.h"
#include "onnx_test_model.h"

namespace strata::test {
namespace {

namespace fs = std::filesystem;

bool same_bytes(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

TEST(OnnxTensor, RawDataEveryDtype) {
    for (DType t : {DType::f32, DType::f16, DType::bf16, DType::i8, DType::u8, DType::i32, DType::i64}) {
        Tensor want = random_tensor(t, {3, 5}, test_seed(), -9, 9);
        if (t == DType::u8) want = random_tensor(t, {3, 5}, test_seed(), 0, 200);
        Tensor got = frontend::tensor_from_proto(tensor_proto("t", want), "t", "");
        EXPECT_TRUE(same_bytes(got, want)) << dtype_name(t);
    }
    Tensor scalar = f32_scalar(3.25f);
    Tensor got = frontend::tensor_from_proto(tensor_proto("s", scalar), "s", "");
    EXPECT_EQ(got.shape(), Shape{});
    EXPECT_EQ(got.data<float>()[0], 3.25f);
}

TEST(OnnxTensor, TypedFields) {
    onnx::TensorProto f;
    f.set_data_type(onnx::TensorProto_DataType_FLOAT);
    f.add_dims(3);
    for (float v : {1.5f, -2.0f, 7.25f}) f.add_float_data(v);
    Tensor tf = frontend::tensor_from_proto(f, "f", "");
    EXPECT_EQ(tf.data<float>()[2], 7.25f);

    onnx::TensorProto i64;
    i64.set_data_type(onnx::TensorProto_DataType_INT64);
    i64.add_dims(2);
    i64.add_int64_data(-5);
    i64.add_int64_data(int64_t{1} << 40);
    EXPECT_EQ(frontend::tensor_from_proto(i64, "i", "").data<int64_t>()[1], int64_t{1} << 40);

    onnx::TensorProto h;  // fp16 bit patterns in int32_data: 1.0 = 0x3c00, -2.0 = 0xc000
    h.set_data_type(onnx::TensorProto_DataType_FLOAT16);
    h.add_dims(2);
    h.add_int32_data(0x3c00);
    h.add_int32_data(0xc000);
    Tensor th = frontend::tensor_from_proto(h, "h", "");
    EXPECT_EQ(th.dtype(), DType::f16);
    EXPECT_EQ(th.data<uint16_t>()[1], 0xc000);

    onnx::TensorProto b;
    b.set_data_type(onnx::TensorProto_DataType_BOOL);
    b.add_dims(3);
    for (int v : {1, 0, 1}) b.add_int32_data(v);
    Tensor tb = frontend::tensor_from_proto(b, "b", "");
    EXPECT_EQ(tb.data<uint8_t>()[0], 1);
    EXPECT_EQ(tb.data<uint8_t>()[1], 0);

    onnx::TensorProto i8;
    i8.set_data_type(onnx::TensorProto_DataType_INT8);
    i8.add_dims(2);
    i8.add_int32_data(-128);
    i8.add_int32_data(300);
    expect_error([&] { frontend::tensor_from_proto(i8, "q", ""); }, StatusCode::parse_error,
                 {"q", "value 300 does not fit int8"});
}

TEST(OnnxTensor, EmptyTensorNeedsNoData) {
    onnx::TensorProto e;
    e.set_data_type(onnx::TensorProto_DataType_FLOAT);
    e.add_dims(0);
    e.add_dims(4);
    EXPECT_EQ(frontend::tensor_from_proto(e, "e", "").numel(), 0);
    onnx::TensorProto missing;
    missing.set_data_type(onnx::TensorProto_DataType_INT64);
    missing.add_dims(2);
    expect_error([&] { frontend::tensor_from_proto(missing, "m", ""); }, StatusCode::parse_error,
                 {"int64_data holds 0 values", "need 2"});
    onnx::TensorProto undefined;
    expect_error([&] { frontend::tensor_from_proto(undefined, "u", ""); }, StatusCode::parse_error, {"no data_type"});
}

// A temporary model folder, removed at the end of the test.
class TempDir {
public:
    TempDir() {
        path_ = fs::temp_directory_path() /
                ("strata_frontend_" + std::to_string(::getpid()) + "_" + std::to_string(test_seed() % 100000));
        fs::create_directories(path_ / "sub");
    }
    ~TempDir() { fs::remove_all(path_); }
    const fs::path& path() const { return path_; }
    void write(const std::string& rel, const std::string& bytes) const {
        std::ofstream(path_ / rel, std::ios::binary) << bytes;
    }

private:
    fs::path path_;
};

onnx::TensorProto external(const Tensor& t, const std::string& location, int64_t offset, int64_t length) {
    onnx::TensorProto p = tensor_proto("w", t);
    p.clear_raw_data();
    p.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
    auto add = [&](const char* k, const std::string& v) {
        auto* kv = p.add_external_data();
        kv->set_key(k);
        kv->set_value(v);
    };
    add("location", location);
    if (offset >= 0) add("offset", std::to_string(offset));
    if (length >= 0) add("length", std::to_string(length));
    return p;
}

std::string bytes_of(const Tensor& t) {
    return std::string(static_cast<const char*>(t.raw()), t.nbytes());
}

TEST(OnnxExternalData, ReadsAtOffsetFromModelFolder) {
    TempDir dir;
    Tensor w = random_tensor(DType::f32, {3, 7}, test_seed());
    dir.write("sub/weights.bin", std::string(13, 'x') + bytes_of(w) + "tail");
    Tensor got = frontend::tensor_from_proto(external(w, "sub/weights.bin", 13, 84), "w", dir.path().string());
    EXPECT_TRUE(same_bytes(got, w));

    // Through a whole model file: import_onnx_file resolves locations relative to the model's folder.
    dir.write("plain.bin", bytes_of(w));
    OnnxModel m;
    m.input("x", {3, 7}).output("y");
    *m.graph().add_initializer() = external(w, "plain.bin", -1, -1);
    m.node("Add", {"x", "w"}, {"y"});
    dir.write("model.onnx", m.bytes());
    auto g = frontend::import_onnx_file((dir.path() / "model.onnx").string());
    EXPECT_TRUE(same_bytes(*g->value(only_node(*g, ir::OpKind::Binary).inputs[1]).constant, w));
}

TEST(OnnxExternalData, PathsEscapingTheFolderAreRefused) {
    TempDir dir;
    Tensor w = random_tensor(DType::f32, {2}, test_seed());
    dir.write("w.bin", bytes_of(w));
    const std::string base = (dir.path() / "sub").string();
    expect_error([&] { frontend::tensor_from_proto(external(w, "../w.bin", -1, -1), "w", base); },
                 StatusCode::parse_error, {"'../w.bin'", "escapes the model's folder"});
    expect_error([&] { frontend::tensor_from_proto(external(w, (dir.path() / "w.bin").string(), -1, -1), "w", base); },
                 StatusCode::parse_error, {"absolute path"});
    fs::create_symlink(dir.path() / "w.bin", dir.path() / "sub" / "link.bin");
    expect_error([&] { frontend::tensor_from_proto(external(w, "link.bin", -1, -1), "w", base); },
                 StatusCode::parse_error, {"'link.bin'", "resolves outside the model's folder"});
}

TEST(OnnxExternalData, BadOffsetLengthOrFile) {
    TempDir dir;
    Tensor w = random_tensor(DType::f32, {4}, test_seed());
    dir.write("w.bin", bytes_of(w));
    const std::string base = dir.path().string();
    expect_error([&] { frontend::tensor_from_proto(external(w, "w.bin", 20, -1), "w", base); }, StatusCode::parse_error,
                 {"offset 20 is past the end"});
    expect_error([&] { frontend::tensor_from_proto(external(w, "w.bin", 4, 16), "w", base); }, StatusCode::parse_error,
                 {"offset 4 + length 16"});
    expect_error([&] { frontend::tensor_from_proto(external(w, "w.bin", 0, 8), "w", base); }, StatusCode::parse_error,
                 {"length 8 does not match the 16 bytes"});
    expect_error([&] { frontend::tensor_from_proto(external(w, "missing.bin", -1, -1), "w", base); },
                 StatusCode::not_found, {"'missing.bin'", "no such file"});
    expect_error([&] { frontend::tensor_from_proto(external(w, "w.bin", -1, -1), "w", ""); },
                 StatusCode::invalid_argument, {"parsed from memory"});
    onnx::TensorProto bad = external(w, "w.bin", -1, -1);
    bad.mutable_external_data(0)->set_value("");
    expect_error([&] { frontend::tensor_from_proto(bad, "w", base); }, StatusCode::parse_error, {"no 'location'"});
    onnx::TensorProto text = external(w, "w.bin", -1, -1);
    auto* kv = text.add_external_data();
    kv->set_key("offset");
    kv->set_value("12abc");
    expect_error([&] { frontend::tensor_from_proto(text, "w", base); }, StatusCode::parse_error,
                 {"offset '12abc' is not a non-negative integer"});
}

TEST(OnnxTensorFile, WrittenProtoReadsBack) {
    TempDir dir;
    Tensor t = random_tensor(DType::i32, {2, 3, 5}, test_seed(), -1000, 1000);
    dir.write("t.pb", tensor_proto("t", t).SerializeAsString());
    EXPECT_TRUE(same_bytes(frontend::read_tensor_proto_file((dir.path() / "t.pb").string()), t));
    dir.write("bad.pb", "\x0a\xff\xff");
    expect_error([&] { frontend::read_tensor_proto_file((dir.path() / "bad.pb").string()); }, StatusCode::parse_error,
                 {"bad.pb", "not a valid ONNX TensorProto"});
}

TEST(OnnxTensorFile, ConformanceInputMatchesModelDeclaration) {
    STRATA_REQUIRE_SHARED_PATH(dir, "conformance/pytorch-converted/test_Conv2d");
    Tensor x = frontend::read_tensor_proto_file(dir + "/test_data_set_0/input_0.pb");
    auto g = frontend::import_onnx_file(dir + "/model.onnx");
    ASSERT_EQ(g->inputs().size(), 1u);
    EXPECT_EQ(x.shape(), g->value(g->inputs()[0]).shape);
    EXPECT_EQ(x.dtype(), DType::f32);
}

}  // namespace
}  // namespace strata::test
