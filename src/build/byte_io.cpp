// byte_io.cpp: the little-endian writer and the bounds-checked reader of graph and plan files (see byte_io.h).
#include "build/byte_io.h"

#include <bit>
#include <cstring>
#include <limits>

#include "core/check.h"

namespace strata::build {

uint64_t fnv1a64(const void* data, size_t size) {
    constexpr uint64_t kOffsetBasis = 14695981039346656037ull;
    constexpr uint64_t kPrime = 1099511628211ull;
    const auto* p = static_cast<const uint8_t*>(data);
    uint64_t h = kOffsetBasis;
    for (size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= kPrime;
    }
    return h;
}

// ---- writer

void ByteWriter::put_le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void ByteWriter::f32(float v) {
    u32(std::bit_cast<uint32_t>(v));
}
void ByteWriter::f64(double v) {
    u64(std::bit_cast<uint64_t>(v));
}

void ByteWriter::raw(const void* data, size_t size) {
    if (size == 0) return;  // data may be null for an empty tensor
    const auto* p = static_cast<const uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + size);
}

void ByteWriter::tag(std::string_view four_chars) {
    STRATA_ASSERT(four_chars.size() == 4, "section tag '{}' is not 4 characters", four_chars);
    raw(four_chars.data(), 4);
}

void ByteWriter::count(size_t n, const char* what) {
    STRATA_CHECK(n <= std::numeric_limits<uint32_t>::max(), StatusCode::invalid_argument,
                 "cannot save plan: {} has {} entries (at most 2^32-1)", what, n);
    u32(static_cast<uint32_t>(n));
}

void ByteWriter::str(std::string_view s) {
    count(s.size(), "a string");
    raw(s.data(), s.size());
}

void ByteWriter::i64s(const std::vector<int64_t>& v) {
    count(v.size(), "an integer list");
    for (int64_t x : v) i64(x);
}

// ---- reader

void ByteReader::fail(const std::string& what) const {
    STRATA_THROW(kCorruptPlanCode, "{}: corrupt plan: {}", name_, what);
}

void ByteReader::need(size_t n, const char* what) const {
    if (n > left()) fail(fmt::format("truncated: {} needs {} bytes at offset {}, {} left", what, n, pos_, left()));
}

uint64_t ByteReader::get_le(int n, const char* what) {
    need(static_cast<size_t>(n), what);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
    pos_ += static_cast<size_t>(n);
    return v;
}

uint8_t ByteReader::u8(const char* what) {
    return static_cast<uint8_t>(get_le(1, what));
}
uint32_t ByteReader::u32(const char* what) {
    return static_cast<uint32_t>(get_le(4, what));
}
uint64_t ByteReader::u64(const char* what) {
    return get_le(8, what);
}
int32_t ByteReader::i32(const char* what) {
    return static_cast<int32_t>(u32(what));
}
int64_t ByteReader::i64(const char* what) {
    return static_cast<int64_t>(u64(what));
}
float ByteReader::f32(const char* what) {
    return std::bit_cast<float>(u32(what));
}
double ByteReader::f64(const char* what) {
    return std::bit_cast<double>(u64(what));
}

bool ByteReader::boolean(const char* what) {
    const uint8_t v = u8(what);
    check(v <= 1, "{} is {}, not a boolean (0 or 1)", what, v);
    return v == 1;
}

const uint8_t* ByteReader::raw(size_t size, const char* what) {
    need(size, what);
    const uint8_t* p = data_ + pos_;
    pos_ += size;
    return p;
}

void ByteReader::tag(std::string_view four_chars) {
    const size_t at = pos_;
    const uint8_t* p = raw(4, "a section tag");
    if (std::memcmp(p, four_chars.data(), 4) != 0) {
        std::string got;
        for (int i = 0; i < 4; ++i) got += (p[i] >= 32 && p[i] < 127) ? static_cast<char>(p[i]) : '?';
        fail(fmt::format("expected section '{}' at offset {}, found '{}'", four_chars, at, got));
    }
}

size_t ByteReader::count(const char* what, size_t min_item_bytes) {
    const size_t n = u32(what);
    // Each item takes at least min_item_bytes, so a count the bytes left cannot hold is corrupt: this is what keeps
    // a flipped length from allocating gigabytes.
    check(min_item_bytes == 0 || n <= left() / min_item_bytes, "{}: count {} cannot fit in the {} bytes left", what, n,
          left());
    return n;
}

std::string ByteReader::str(const char* what) {
    const size_t n = count(what, 1);
    const uint8_t* p = raw(n, what);
    return std::string(reinterpret_cast<const char*>(p), n);
}

std::vector<int64_t> ByteReader::i64s(const char* what) {
    const size_t n = count(what, 8);
    std::vector<int64_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = i64(what);
    return v;
}

}  // namespace strata::build
