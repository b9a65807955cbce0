// byte_io.h: the little-endian writer and the bounds-checked reader behind graph and plan files (graph_io, plan_io).
// Every read checks what is left before touching a byte, and every count is checked against the bytes left before
// anything is allocated, so a corrupt or hostile file ends in a strata::Error, never a crash, a hang or a huge
// allocation. NOTE [plan file errors]: all such errors read "<name>: corrupt plan: <what>" with kCorruptPlanCode.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/status.h"

namespace strata::build {

/// The code of every "corrupt plan" error (a malformed file, status.h's parse_error).
inline constexpr StatusCode kCorruptPlanCode = StatusCode::parse_error;

/// FNV-1a, 64 bits: the plan checksum (detects damage, not tampering).
uint64_t fnv1a64(const void* data, size_t size);

class ByteWriter {
public:
    void u8(uint8_t v) { bytes_.push_back(v); }
    void boolean(bool v) { u8(v ? 1 : 0); }
    void u32(uint32_t v) { put_le(v, 4); }
    void u64(uint64_t v) { put_le(v, 8); }
    void i32(int32_t v) { put_le(static_cast<uint32_t>(v), 4); }
    void i64(int64_t v) { put_le(static_cast<uint64_t>(v), 8); }
    void f32(float v);  ///< the IEEE bit pattern (NaNs and -0 survive)
    void f64(double v);
    void raw(const void* data, size_t size);
    void tag(std::string_view four_chars);     ///< a section tag, exactly 4 characters
    void str(std::string_view s);              ///< u32 length, then the bytes
    void i64s(const std::vector<int64_t>& v);  ///< u32 count, then the items
    /// u32 count: collections longer than 2^32-1 cannot be written (STRATA_CHECK).
    void count(size_t n, const char* what);

    size_t size() const { return bytes_.size(); }
    std::vector<uint8_t>& bytes() { return bytes_; }

private:
    void put_le(uint64_t v, int n);
    std::vector<uint8_t> bytes_;
};

class ByteReader {
public:
    /// `name` starts every error message (a file path, or a name the caller chose).
    ByteReader(const void* data, size_t size, std::string name)
        : data_(static_cast<const uint8_t*>(data)), size_(size), name_(std::move(name)) {}

    uint8_t u8(const char* what);
    bool boolean(const char* what);  ///< 0 or 1, anything else is corrupt
    uint32_t u32(const char* what);
    uint64_t u64(const char* what);
    int32_t i32(const char* what);
    int64_t i64(const char* what);
    float f32(const char* what);
    double f64(const char* what);
    /// Expects `four_chars` next.
    void tag(std::string_view four_chars);
    std::string str(const char* what);
    std::vector<int64_t> i64s(const char* what);
    /// A u32 count of items taking at least `min_item_bytes` each: refused when the bytes left cannot hold them.
    size_t count(const char* what, size_t min_item_bytes);
    /// `size` bytes, checked against what is left.
    const uint8_t* raw(size_t size, const char* what);
    /// A u8 enum value, checked against its last enumerator.
    template <class E>
    E enumeration(const char* what, E last) {
        const uint8_t v = u8(what);
        check(v <= static_cast<uint8_t>(last), "{} has out-of-range value {}", what, v);
        return static_cast<E>(v);
    }

    size_t pos() const { return pos_; }
    size_t left() const { return size_ - pos_; }
    const std::string& name() const { return name_; }

    /// Throws "<name>: corrupt plan: <message>" unless `cond`.
    template <class... Args>
    void check(bool cond, fmt::format_string<Args...> format, Args&&... args) const {
        if (!cond) fail(fmt::format(format, std::forward<Args>(args)...));
    }
    [[noreturn]] void fail(const std::string& what) const;

private:
    void need(size_t n, const char* what) const;
    uint64_t get_le(int n, const char* what);

    const uint8_t* data_;
    size_t size_;
    size_t pos_ = 0;
    std::string name_;
};

}  // namespace strata::build
