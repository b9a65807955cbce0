// device_names.cpp: the text forms of Device and Precision, as the command line and error messages use them.
#include <charconv>

#include "core/check.h"
#include "strata/engine.h"

namespace strata {

namespace {

constexpr Precision kPrecisions[] = {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16,
                                     Precision::int8};

Status bad_device(const std::string& text) {
    return {StatusCode::invalid_argument, "unknown device '" + text + "' (expected cpu, cuda or cuda:N)"};
}

}  // namespace

Expected<Device> Device::parse(const std::string& text) {
    if (text == "cpu") return Device::cpu();
    if (text == "cuda") return Device::cuda(0);
    if (text.rfind("cuda:", 0) != 0 || text.size() == 5) return bad_device(text);
    int index = -1;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data() + 5, end, index);
    if (ec != std::errc() || ptr != end || index < 0) return bad_device(text);
    return Device::cuda(index);
}

std::string Device::str() const {
    if (kind == Kind::cpu) return "cpu";
    return "cuda:" + std::to_string(index);
}

const char* precision_name(Precision p) {
    switch (p) {
        case Precision::fp32: return "fp32";
        case Precision::tf32: return "tf32";
        case Precision::fp16: return "fp16";
        case Precision::bf16: return "bf16";
        case Precision::int8: return "int8";
    }
    return "?";
}

Expected<Precision> parse_precision(const std::string& text) {
    for (Precision p : kPrecisions)
        if (text == precision_name(p)) return p;
    return Status(StatusCode::invalid_argument,
                  "unknown precision '" + text + "' (expected fp32, tf32, fp16, bf16 or int8)");
}

}  // namespace strata
