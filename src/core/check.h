// check.h: the three kinds of checks (STYLE.md, "user errors and bugs are different things").
//   STRATA_CHECK(cond, code, fmt, ...)  - something the user did wrong or a file that is malformed: throws strata::Error
//                                         with that code and a message naming file, node, op, what was expected.
//   STRATA_UNSUPPORTED(fmt, ...)        - valid input strata does not implement: "unsupported: <op> <attribute> ...".
//   STRATA_ASSERT(cond, fmt, ...)       - an internal invariant; failing it is a bug in strata.
// The public API (src/runtime/api.cpp) catches strata::Error and returns it as a Status.
#pragma once

#include <fmt/format.h>

#include "strata/status.h"

namespace strata::detail {
[[noreturn]] void throw_error(StatusCode code, std::string message);
[[noreturn]] void throw_bug(const char* file, int line, const char* cond, std::string message);
}  // namespace strata::detail

#define STRATA_THROW(code, ...) ::strata::detail::throw_error((code), ::fmt::format(__VA_ARGS__))

#define STRATA_CHECK(cond, code, ...)              \
    do {                                           \
        if (!(cond)) STRATA_THROW(code, __VA_ARGS__); \
    } while (0)

#define STRATA_UNSUPPORTED(...) \
    ::strata::detail::throw_error(::strata::StatusCode::unsupported, "unsupported: " + ::fmt::format(__VA_ARGS__))

#define STRATA_ASSERT(cond, ...)                                                             \
    do {                                                                                     \
        if (!(cond)) ::strata::detail::throw_bug(__FILE__, __LINE__, #cond, ::fmt::format(__VA_ARGS__)); \
    } while (0)
