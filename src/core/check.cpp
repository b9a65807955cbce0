// check.cpp: the out-of-line halves of the STRATA_CHECK family, and status names.
#include "core/check.h"

namespace strata {

const char* status_code_name(StatusCode code) {
    switch (code) {
        case StatusCode::ok: return "ok";
        case StatusCode::invalid_argument: return "invalid argument";
        case StatusCode::not_found: return "not found";
        case StatusCode::parse_error: return "parse error";
        case StatusCode::unsupported: return "unsupported";
        case StatusCode::runtime_error: return "runtime error";
        case StatusCode::internal: return "internal error";
    }
    return "unknown";
}

namespace detail {

void throw_error(StatusCode code, std::string message) { throw Error(code, message); }

void throw_bug(const char* file, int line, const char* cond, std::string message) {
    throw Error(StatusCode::internal,
                fmt::format("bug in strata, please report: {} ({}:{}: {})", message, file, line, cond));
}

}  // namespace detail
}  // namespace strata
