// onnx_tensor.cpp: TensorProto -> Tensor. Data comes from raw_data (little-endian bytes), from the typed repeated
// fields (float_data, int32_data, int64_data) or from an external file; its length is checked against the dims
// before anything is allocated, so a malformed proto cannot make us read or allocate past what the file holds.
#include "frontend/onnx/onnx_tensor.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <utility>

#include "core/check.h"
#include "frontend/onnx/onnx_external_data.h"
#include "frontend/onnx/onnx_import.h"

namespace strata::frontend {

std::optional<DType> dtype_from_onnx(int32_t onnx_type) {
    switch (onnx_type) {
        case onnx::TensorProto_DataType_FLOAT:
            return DType::f32;
        case onnx::TensorProto_DataType_FLOAT16:
            return DType::f16;
        case onnx::TensorProto_DataType_BFLOAT16:
            return DType::bf16;
        case onnx::TensorProto_DataType_INT8:
            return DType::i8;
        case onnx::TensorProto_DataType_UINT8:
            return DType::u8;
        case onnx::TensorProto_DataType_INT32:
            return DType::i32;
        case onnx::TensorProto_DataType_INT64:
            return DType::i64;
        case onnx::TensorProto_DataType_BOOL:
            return DType::boolean;
        default:
            return std::nullopt;
    }
}

std::string onnx_dtype_name(int32_t onnx_type) {
    if (onnx::TensorProto_DataType_IsValid(onnx_type)) {
        std::string name = onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(onnx_type));
        if (!name.empty()) return name;
    }
    return fmt::format("type {}", onnx_type);
}

const char* supported_dtypes_text() {
    return "float32, float16, bfloat16, int8, uint8, int32, int64, bool";
}

namespace {

// Dims -> Shape, refusing negative dims and element counts whose byte size overflows (checked before multiplying).
Shape checked_shape(const onnx::TensorProto& proto, size_t elem_size, const std::string& where) {
    Shape shape;
    int64_t bytes = static_cast<int64_t>(elem_size);
    for (int64_t d : proto.dims()) {
        STRATA_CHECK(d >= 0, StatusCode::parse_error, "{} has a negative dimension {}", where, d);
        STRATA_CHECK(d == 0 || bytes <= std::numeric_limits<int64_t>::max() / d, StatusCode::parse_error,
                     "{}: element count of dims overflows", where);
        bytes *= d;
        shape.push_back(d);
    }
    return shape;
}

// int32_data holds int8/uint8/bool/fp16/bf16 values one per entry; each must fit the narrow type.
template <class T>
void copy_narrow(const google::protobuf::RepeatedField<int32_t>& src, Tensor& dst, int64_t lo, int64_t hi,
                 const std::string& where) {
    T* out = dst.data<T>();
    for (int i = 0; i < src.size(); ++i) {
        STRATA_CHECK(src[i] >= lo && src[i] <= hi, StatusCode::parse_error, "{}: int32_data value {} does not fit {}",
                     where, src[i], dtype_name(dst.dtype()));
        out[i] = static_cast<T>(src[i]);
    }
}

// The typed field that holds `dtype`'s values when raw_data is absent, and how many it holds.
std::pair<const char*, int64_t> typed_field(const onnx::TensorProto& proto, DType dtype) {
    switch (dtype) {
        case DType::f32:
            return {"float_data", proto.float_data_size()};
        case DType::i64:
            return {"int64_data", proto.int64_data_size()};
        default:
            return {"int32_data", proto.int32_data_size()};
    }
}

// Copies the typed field into `t`, whose element count the caller has checked against the field's.
void copy_typed_fields(const onnx::TensorProto& proto, Tensor& t, const std::string& where) {
    if (t.numel() == 0) return;
    switch (t.dtype()) {
        case DType::f32:
            std::memcpy(t.raw(), proto.float_data().data(), t.nbytes());
            return;
        case DType::i64:
            std::memcpy(t.raw(), proto.int64_data().data(), t.nbytes());
            return;
        case DType::i32:
            std::memcpy(t.raw(), proto.int32_data().data(), t.nbytes());
            return;
        case DType::i8:
            copy_narrow<int8_t>(proto.int32_data(), t, -128, 127, where);
            return;
        case DType::u8:
            copy_narrow<uint8_t>(proto.int32_data(), t, 0, 255, where);
            return;
        case DType::boolean:
            copy_narrow<uint8_t>(proto.int32_data(), t, 0, 1, where);
            return;
        case DType::f16:
        case DType::bf16:
            copy_narrow<uint16_t>(proto.int32_data(), t, 0, 65535, where);
            return;
    }
}

bool has_typed_fields(const onnx::TensorProto& proto) {
    return proto.float_data_size() || proto.int32_data_size() || proto.int64_data_size() || proto.double_data_size() ||
           proto.uint64_data_size() || proto.string_data_size();
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& where, const std::string& base_dir) {
    std::optional<DType> dtype = dtype_from_onnx(proto.data_type());
    STRATA_CHECK(proto.data_type() != onnx::TensorProto_DataType_UNDEFINED, StatusCode::parse_error,
                 "{} has no data_type", where);
    if (!dtype)
        STRATA_UNSUPPORTED("{} has data type {} (strata holds {}; double is not converted)", where,
                           onnx_dtype_name(proto.data_type()), supported_dtypes_text());
    if (proto.has_segment()) STRATA_UNSUPPORTED("{} is segmented (TensorProto.segment)", where);
    const size_t elem = dtype_size(*dtype);
    Shape shape = checked_shape(proto, elem, where);
    const int64_t numel = shape_numel(shape);
    const size_t nbytes = static_cast<size_t>(numel) * elem;

    if (proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
        return read_external_data(proto, where, base_dir, *dtype, shape);
    }
    if (proto.has_raw_data() && (!proto.raw_data().empty() || !has_typed_fields(proto))) {
        STRATA_CHECK(proto.raw_data().size() == nbytes, StatusCode::parse_error,
                     "{}: raw_data holds {} bytes, dims {} of {} need {}", where, proto.raw_data().size(),
                     shape_str(shape), dtype_name(*dtype), nbytes);
        Tensor t = Tensor::empty(*dtype, shape);
        if (nbytes) std::memcpy(t.raw(), proto.raw_data().data(), nbytes);  // little-endian host assumed
        return t;
    }
    auto [field, count] = typed_field(proto, *dtype);
    STRATA_CHECK(count == numel, StatusCode::parse_error, "{}: {} holds {} values, dims {} need {}", where, field,
                 count, shape_str(shape), numel);
    Tensor t = Tensor::empty(*dtype, shape);
    copy_typed_fields(proto, t, where);
    return t;
}

Tensor read_tensor_proto_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    STRATA_CHECK(in.good(), StatusCode::not_found, "{}: no such file", path);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    STRATA_CHECK(!in.bad(), StatusCode::not_found, "{}: read failed", path);
    onnx::TensorProto proto;
    STRATA_CHECK(bytes.size() <= static_cast<size_t>(std::numeric_limits<int>::max()) &&
                     proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())),
                 StatusCode::parse_error, "{}: not a valid ONNX TensorProto (protobuf parse failed)", path);
    std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
    return tensor_from_proto(proto, fmt::format("{}: tensor '{}'", path, proto.name()), dir.empty() ? "/" : dir);
}

}  // namespace strata::frontend
