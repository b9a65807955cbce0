// onnx_external_data.cpp: external tensor data (TensorProto.data_location = EXTERNAL). A model file is untrusted
// input: its `location` could point anywhere, so it is confined to the model's folder, lexically and after
// resolving symlinks, and offset/length are checked against the file's real size before reading.
#include "frontend/onnx/onnx_external_data.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>

#include "core/check.h"

namespace strata::frontend {
namespace {

namespace fs = std::filesystem;

struct ExternalRef {
    std::string location;
    std::optional<uint64_t> offset;
    std::optional<uint64_t> length;
};

uint64_t parse_size(const std::string& text, const std::string& key, const std::string& where) {
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    STRATA_CHECK(ec == std::errc() && end == text.data() + text.size() && !text.empty(), StatusCode::parse_error,
                 "{}: external data {} '{}' is not a non-negative integer", where, key, text);
    return v;
}

ExternalRef parse_ref(const onnx::TensorProto& proto, const std::string& where) {
    ExternalRef ref;
    for (const auto& kv : proto.external_data()) {
        if (kv.key() == "location")
            ref.location = kv.value();
        else if (kv.key() == "offset")
            ref.offset = parse_size(kv.value(), "offset", where);
        else if (kv.key() == "length")
            ref.length = parse_size(kv.value(), "length", where);
        // "checksum" and unknown keys carry nothing we need.
    }
    STRATA_CHECK(!ref.location.empty(), StatusCode::parse_error, "{}: external data has no 'location'", where);
    return ref;
}

// The location must be a relative path without '..' components, and must still be inside base_dir once
// symlinks are resolved (a link inside the folder could point elsewhere).
fs::path confined_path(const std::string& location, const std::string& base_dir, const std::string& where) {
    fs::path rel(location);
    STRATA_CHECK(!rel.is_absolute() && !rel.has_root_name() && !rel.has_root_directory(), StatusCode::parse_error,
                 "{}: external data location '{}' is an absolute path (it must be relative to the model's folder)",
                 where, location);
    for (const fs::path& part : rel)
        STRATA_CHECK(part != "..", StatusCode::parse_error,
                     "{}: external data location '{}' escapes the model's folder ('..')", where, location);
    STRATA_CHECK(location.find('\0') == std::string::npos, StatusCode::parse_error,
                 "{}: external data location contains a NUL byte", where);
    std::error_code ec;
    fs::path base = fs::weakly_canonical(fs::path(base_dir), ec);
    STRATA_CHECK(!ec, StatusCode::not_found, "{}: model folder '{}' cannot be resolved", where, base_dir);
    fs::path full = fs::weakly_canonical(base / rel, ec);
    STRATA_CHECK(!ec, StatusCode::not_found, "{}: external data file '{}' cannot be resolved", where, location);
    auto [b, f] = std::mismatch(base.begin(), base.end(), full.begin(), full.end());
    STRATA_CHECK(b == base.end(), StatusCode::parse_error,
                 "{}: external data location '{}' resolves outside the model's folder", where, location);
    return full;
}

}  // namespace

Tensor read_external_data(const onnx::TensorProto& proto, const std::string& where, const std::string& base_dir,
                          DType dtype, const Shape& shape) {
    const size_t nbytes = static_cast<size_t>(shape_numel(shape)) * dtype_size(dtype);
    ExternalRef ref = parse_ref(proto, where);
    STRATA_CHECK(!base_dir.empty(), StatusCode::invalid_argument,
                 "{}: data is in external file '{}', but the model was parsed from memory (no folder to read it from)",
                 where, ref.location);
    fs::path path = confined_path(ref.location, base_dir, where);
    std::error_code ec;
    STRATA_CHECK(fs::is_regular_file(path, ec), StatusCode::not_found, "{}: external data file '{}': no such file",
                 where, ref.location);
    const uint64_t file_size = fs::file_size(path, ec);
    STRATA_CHECK(!ec, StatusCode::not_found, "{}: external data file '{}' cannot be read", where, ref.location);
    const uint64_t offset = ref.offset.value_or(0);
    STRATA_CHECK(offset <= file_size, StatusCode::parse_error,
                 "{}: external data offset {} is past the end of '{}' ({} bytes)", where, offset, ref.location,
                 file_size);
    const uint64_t length = ref.length.value_or(file_size - offset);
    STRATA_CHECK(length <= file_size - offset, StatusCode::parse_error,
                 "{}: external data offset {} + length {} is past the end of '{}' ({} bytes)", where, offset, length,
                 ref.location, file_size);
    STRATA_CHECK(length == nbytes, StatusCode::parse_error,
                 "{}: external data length {} does not match the {} bytes its dims and type need", where, length,
                 nbytes);
    Tensor t = Tensor::empty(dtype, shape);
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(static_cast<char*>(t.raw()), static_cast<std::streamsize>(nbytes));
    STRATA_CHECK(in.good() || (nbytes == 0 && !in.bad()), StatusCode::not_found,
                 "{}: reading {} bytes at offset {} of '{}' failed", where, nbytes, offset, ref.location);
    return t;
}

}  // namespace strata::frontend
