/// strata/status.h: how the public API reports failure. No exception crosses the public API: functions that can
/// fail return a Status or an Expected<T>, whose message names the file, node, op and what was expected.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace strata {

/// The kind of failure; the message carries the specifics.
enum class StatusCode {
    ok,
    invalid_argument,  ///< the caller passed something wrong (shape, dtype, option)
    not_found,         ///< a file, input or model name does not exist
    parse_error,       ///< a file is malformed (truncated, corrupted, wrong header)
    unsupported,       ///< valid input that strata does not implement ("unsupported: <op> <attribute>")
    runtime_error,     ///< a failure while running (device error, out of memory)
    internal,          ///< a bug in strata
};

const char* status_code_name(StatusCode code);

/// Success, or a code and a one-line message.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
    static Status ok() { return {}; }

    bool is_ok() const { return code_ == StatusCode::ok; }
    explicit operator bool() const { return is_ok(); }
    StatusCode code() const { return code_; }
    const std::string& message() const { return message_; }

private:
    StatusCode code_ = StatusCode::ok;
    std::string message_;
};

/// The exception strata uses inside the library; the public API turns it into a Status. Users meet it only
/// through Expected::value() on an error, as with std::expected's bad_expected_access.
class Error : public std::runtime_error {
public:
    Error(StatusCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
    StatusCode code() const { return code_; }
    Status status() const { return {code_, what()}; }

private:
    StatusCode code_;
};

/// A value or the Status saying why there is none.
template <class T>
class [[nodiscard]] Expected {
public:
    Expected(T value) : v_(std::move(value)) {}
    Expected(Status status) : v_(std::move(status)) {}

    bool ok() const { return std::holds_alternative<T>(v_); }
    explicit operator bool() const { return ok(); }
    /// The error (Status::ok() when there is a value).
    Status status() const { return ok() ? Status::ok() : std::get<Status>(v_); }

    /// The value; throws strata::Error carrying the status when there is none.
    T& value() & { check(); return std::get<T>(v_); }
    const T& value() const& { check(); return std::get<T>(v_); }
    T&& value() && { check(); return std::get<T>(std::move(v_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }

private:
    void check() const {
        if (!ok()) {
            const Status& s = std::get<Status>(v_);
            throw Error(s.code(), s.message());
        }
    }
    std::variant<T, Status> v_;
};

}  // namespace strata
