// npy.cpp: numpy .npy reading and writing, and uncompressed .npz writing, so that `strata run` takes inputs and gives
// outputs in the format every Python user already has. The header is a Python dict literal; it is parsed with a
// small recursive-descent reader (not a regex), so key order, quotes, trailing commas and padding all follow numpy.
// Every malformed file is a parse_error naming the file and what is wrong; nothing here trusts a length it read.
#include "core/npy.h"

#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <string_view>
#include <variant>

#include "core/check.h"
#include "core/half.h"

namespace strata {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

// ---------------------------------------------------------------------------------------------------------------
// Reading

struct NpyHeader {
    DType dtype = DType::f32;
    Shape shape;
};

std::string read_file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    STRATA_CHECK(in.good(), StatusCode::not_found, "{}: cannot open file ({})", path, std::strerror(errno));
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    STRATA_CHECK(!in.bad(), StatusCode::parse_error, "{}: read error", path);
    return bytes;
}

// One value of the header dict: a string, a bool or a tuple of non-negative integers.
using HeaderValue = std::variant<std::string, bool, Shape>;

// A reader for the subset of Python literals numpy writes into .npy headers.
class HeaderParser {
public:
    HeaderParser(const std::string& file, std::string_view text) : file_(file), text_(text) {}

    NpyHeader parse() {
        std::optional<HeaderValue> descr, fortran, shape;
        skip_space();
        expect('{', "the header is not a Python dict (it must start with '{')");
        for (skip_space(); !at('}'); skip_space()) {
            std::string key = parse_string("a dict key");
            skip_space();
            expect(':', "expected ':' after key '" + key + "'");
            std::optional<HeaderValue>* slot = key == "descr" ? &descr
                                               : key == "fortran_order" ? &fortran
                                               : key == "shape" ? &shape
                                                                : nullptr;
            fail_if(!slot, "unexpected key '" + key + "' in the header (expected descr, fortran_order, shape)");
            fail_if(slot->has_value(), "key '" + key + "' appears twice in the header");
            *slot = parse_value(key);
            skip_space();
            if (!at('}')) expect(',', "expected ',' or '}' after the value of '" + key + "'");
        }
        ++pos_;
        check_trailer();
        fail_if(!descr || !fortran || !shape, "the header must have the keys descr, fortran_order and shape");
        return finish(*descr, *fortran, *shape);
    }

private:
    [[noreturn]] void fail(const std::string& problem) const {
        STRATA_THROW(StatusCode::parse_error, "{}: {}", file_, problem);
    }
    void fail_if(bool bad, const std::string& problem) const {
        if (bad) fail(problem);
    }
    bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
    void skip_space() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                       text_[pos_] == '\r'))
            ++pos_;
    }
    void expect(char c, const std::string& problem) {
        fail_if(!at(c), problem);
        ++pos_;
    }

    std::string parse_string(const char* what) {
        fail_if(!at('\'') && !at('"'), std::string("expected ") + what + " (a quoted string) in the header");
        char quote = text_[pos_++];
        size_t end = text_.find(quote, pos_);
        fail_if(end == std::string_view::npos, "unterminated string in the header");
        std::string s(text_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return s;
    }

    HeaderValue parse_value(const std::string& key) {
        skip_space();
        if (at('\'') || at('"')) return parse_string("a value");
        if (at('(')) return parse_tuple();
        for (std::string_view word : {"True", "False"}) {
            if (text_.substr(pos_, word.size()) == word) {
                pos_ += word.size();
                return word == "True";
            }
        }
        if (at('[')) fail("'" + key + "' is a list: structured dtypes are not supported");
        fail("cannot parse the value of '" + key + "' in the header");
    }

    int64_t parse_int() {
        fail_if(at('-'), "shape has a negative dimension");
        fail_if(pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9', "shape must be a tuple of integers");
        int64_t v = 0;
        while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
            int digit = text_[pos_++] - '0';
            fail_if(v > (std::numeric_limits<int64_t>::max() - digit) / 10, "shape dimension is too large");
            v = v * 10 + digit;
        }
        if (at('L')) ++pos_;  // Python 2 wrote long integers as 3L
        return v;
    }

    Shape parse_tuple() {
        ++pos_;
        Shape dims;
        for (skip_space(); !at(')'); skip_space()) {
            dims.push_back(parse_int());
            skip_space();
            if (!at(')')) expect(',', "expected ',' or ')' in the shape tuple");
        }
        ++pos_;
        return dims;
    }

    void check_trailer() {
        skip_space();
        fail_if(pos_ != text_.size(), "unexpected text after the header dict");
    }

    NpyHeader finish(const HeaderValue& descr, const HeaderValue& fortran, const HeaderValue& shape) const;
    DType parse_descr(const std::string& descr) const;

    const std::string& file_;
    std::string_view text_;
    size_t pos_ = 0;
};

DType HeaderParser::parse_descr(const std::string& descr) const {
    fail_if(descr.size() < 2 || std::string_view("<>|=").find(descr[0]) == std::string_view::npos,
            "descr '" + descr + "' is not a numpy dtype string such as '<f4'");
    const char order = descr[0];
    const std::string type = descr.substr(1);
    static const std::array<std::pair<const char*, DType>, 7> kTypes{{{"f4", DType::f32},
                                                                      {"f2", DType::f16},
                                                                      {"i8", DType::i64},
                                                                      {"i4", DType::i32},
                                                                      {"i1", DType::i8},
                                                                      {"u1", DType::u8},
                                                                      {"b1", DType::boolean}}};
    fail_if(type == "f8", "dtype float64 ('" + descr +
                              "') is not supported (it is refused, not converted): save it as float32, "
                              "e.g. x.astype(numpy.float32)");
    for (const auto& [name, dtype] : kTypes) {
        if (type != name) continue;
        fail_if(order == '>' && dtype_size(dtype) > 1, "big-endian dtype '" + descr + "' is not supported");
        return dtype;
    }
    fail("dtype '" + descr + "' is not supported (supported: <f4 <f2 <i8 <i4 |i1 |u1 |b1)");
}

NpyHeader HeaderParser::finish(const HeaderValue& descr, const HeaderValue& fortran, const HeaderValue& shape) const {
    fail_if(!std::holds_alternative<std::string>(descr), "'descr' must be a string such as '<f4'");
    fail_if(!std::holds_alternative<bool>(fortran), "'fortran_order' must be True or False");
    fail_if(!std::holds_alternative<Shape>(shape), "'shape' must be a tuple of integers");
    NpyHeader h;
    h.dtype = parse_descr(std::get<std::string>(descr));
    h.shape = std::get<Shape>(shape);
    // A Fortran-ordered array of rank <= 1 has the same bytes as a C-ordered one, but numpy never writes that; refuse
    // uniformly so the rule is simple to state.
    fail_if(std::get<bool>(fortran), "fortran_order True is not supported (save with numpy.ascontiguousarray)");
    return h;
}

uint32_t read_le(const std::string& bytes, size_t offset, int width) {
    uint32_t v = 0;
    for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(bytes[offset + i]);
    return v;
}

// Bytes the data needs, or a parse error when the shape's product overflows.
uint64_t data_bytes(const std::string& path, const NpyHeader& h) {
    uint64_t n = dtype_size(h.dtype);
    for (int64_t d : h.shape) {
        if (d == 0) return 0;
        STRATA_CHECK(n <= std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d) / 2, StatusCode::parse_error,
                     "{}: shape {} is too large", path, shape_str(h.shape));
        n *= static_cast<uint64_t>(d);
    }
    return n;
}

}  // namespace

Tensor read_npy(const std::string& path) {
    const std::string bytes = read_file_bytes(path);
    STRATA_CHECK(bytes.size() >= 10 && std::string_view(bytes).substr(0, 6) == kMagic, StatusCode::parse_error,
                 "{}: not a .npy file (it does not start with \\x93NUMPY)", path);
    const int major = static_cast<uint8_t>(bytes[6]), minor = static_cast<uint8_t>(bytes[7]);
    STRATA_CHECK(major >= 1 && major <= 3 && minor == 0, StatusCode::parse_error,
                 "{}: .npy version {}.{} is not supported (supported: 1.0, 2.0, 3.0)", path, major, minor);
    const size_t len_width = major == 1 ? 2 : 4;
    STRATA_CHECK(bytes.size() >= 8 + len_width, StatusCode::parse_error, "{}: file ends inside the header", path);
    const uint64_t header_len = read_le(bytes, 8, static_cast<int>(len_width));
    const uint64_t data_offset = 8 + len_width + header_len;
    STRATA_CHECK(data_offset <= bytes.size(), StatusCode::parse_error,
                 "{}: header length {} runs past the end of the file ({} bytes)", path, header_len, bytes.size());

    std::string_view text = std::string_view(bytes).substr(8 + len_width, header_len);
    NpyHeader header = HeaderParser(path, text).parse();

    const uint64_t want = data_bytes(path, header);
    const uint64_t have = bytes.size() - data_offset;
    STRATA_CHECK(want == have, StatusCode::parse_error, "{}: header says {} bytes of data, file has {}", path, want,
                 have);
    Tensor t = Tensor::empty(header.dtype, header.shape);
    if (want) std::memcpy(t.raw(), bytes.data() + data_offset, want);
    if (header.dtype == DType::boolean) {
        for (int64_t i = 0; i < t.numel(); ++i) t.data<uint8_t>()[i] = t.data<uint8_t>()[i] != 0;
    }
    return t;
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

namespace {

const char* npy_descr(DType t) {
    switch (t) {
        case DType::f32: return "<f4";
        case DType::bf16: return "<f4";  // numpy has no bfloat16: widened to float32
        case DType::f16: return "<f2";
        case DType::i8: return "|i1";
        case DType::u8: return "|u1";
        case DType::i32: return "<i4";
        case DType::i64: return "<i8";
        case DType::boolean: return "|b1";
    }
    return "?";
}

std::string shape_tuple(const Shape& shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

void append_le(std::string& out, uint64_t v, int width) {
    for (int i = 0; i < width; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// The complete .npy file (version 1.0; the header is padded with spaces so the data starts 64-byte aligned).
std::string npy_file_bytes(const Tensor& tensor) {
    STRATA_CHECK(tensor.defined(), StatusCode::invalid_argument, "cannot write an undefined tensor to .npy");
    std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   npy_descr(tensor.dtype()), shape_tuple(tensor.shape()));
    size_t total = 10 + dict.size() + 1;
    dict.append((64 - total % 64) % 64, ' ');
    dict.push_back('\n');
    STRATA_CHECK(dict.size() <= 0xffff, StatusCode::invalid_argument, "shape {} is too long for a .npy header",
                 shape_str(tensor.shape()));

    std::string out(kMagic);
    out.push_back('\x01');
    out.push_back('\x00');
    append_le(out, dict.size(), 2);
    out += dict;
    if (tensor.dtype() == DType::bf16) {
        for (int64_t i = 0; i < tensor.numel(); ++i) {
            float f = bf16_to_float(tensor.data<uint16_t>()[i]);
            out.append(reinterpret_cast<const char*>(&f), 4);
        }
    } else {
        out.append(static_cast<const char*>(tensor.raw()), tensor.nbytes());
    }
    return out;
}

void write_file_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    STRATA_CHECK(out.good(), StatusCode::invalid_argument, "{}: cannot create file ({})", path, std::strerror(errno));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    STRATA_CHECK(out.good(), StatusCode::runtime_error, "{}: write failed ({})", path, std::strerror(errno));
}

// CRC-32 as zip defines it (reflected polynomial 0xEDB88320, initial and final XOR with all ones).
uint32_t crc32(std::string_view data) {
    static const std::array<uint32_t, 256> kTable = [] {
        std::array<uint32_t, 256> t{};
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    uint32_t crc = 0xffffffffu;
    for (unsigned char b : data) crc = kTable[(crc ^ b) & 0xff] ^ (crc >> 8);
    return crc ^ 0xffffffffu;
}

// The fields that a zip local header and central directory entry share, from "version needed" to "extra length".
void append_zip_entry_fields(std::string& out, const std::string& name, uint32_t crc, uint64_t size) {
    append_le(out, 20, 2);      // version needed to extract: 2.0
    append_le(out, 0, 2);       // flags
    append_le(out, 0, 2);       // compression: stored
    append_le(out, 0, 2);       // modification time 00:00:00
    append_le(out, 0x21, 2);    // modification date 1980-01-01 (fixed, so output files are reproducible)
    append_le(out, crc, 4);
    append_le(out, size, 4);    // compressed size
    append_le(out, size, 4);    // uncompressed size
    append_le(out, name.size(), 2);
    append_le(out, 0, 2);       // extra field length
}

}  // namespace

void write_npy(const std::string& path, const Tensor& tensor) { write_file_bytes(path, npy_file_bytes(tensor)); }

void write_npz(const std::string& path, const std::map<std::string, Tensor>& tensors) {
    std::string out, central;
    for (const auto& [key, tensor] : tensors) {
        const std::string name = key + ".npy";
        const std::string data = npy_file_bytes(tensor);
        STRATA_CHECK(data.size() < 0xffffffffu && out.size() < 0xffffffffu && name.size() <= 0xffff,
                     StatusCode::unsupported, "unsupported: {}: entry '{}' needs zip64 (over 4 GiB)", path, name);
        const uint32_t crc = crc32(data);
        const uint64_t offset = out.size();
        append_le(out, 0x04034b50, 4);
        append_zip_entry_fields(out, name, crc, data.size());
        out += name;
        out += data;

        append_le(central, 0x02014b50, 4);
        append_le(central, 20, 2);  // version made by: 2.0, MS-DOS attributes
        append_zip_entry_fields(central, name, crc, data.size());
        append_le(central, 0, 2);   // comment length
        append_le(central, 0, 2);   // disk number
        append_le(central, 0, 2);   // internal attributes
        append_le(central, 0, 4);   // external attributes
        append_le(central, offset, 4);
        central += name;
    }
    const uint64_t central_offset = out.size();
    out += central;
    append_le(out, 0x06054b50, 4);
    append_le(out, 0, 2);  // this disk
    append_le(out, 0, 2);  // disk with the central directory
    append_le(out, tensors.size(), 2);
    append_le(out, tensors.size(), 2);
    append_le(out, central.size(), 4);
    append_le(out, central_offset, 4);
    append_le(out, 0, 2);  // comment length
    write_file_bytes(path, out);
}

}  // namespace strata
