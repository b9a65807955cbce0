// test_support.cpp
#include "test_support.h"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include <unistd.h>

#include "core/half.h"

namespace strata::test {

namespace {
// Line-buffered stdout: ctest kills a test that outlasts its timeout, and what it had printf'ed into a full buffer
// is lost with it. A GPU test that timed out (LibsCublasLt.RandomShapesMatchReference, 2026-12-02) left only the
// seed line (stderr), not which case it had reached.
[[maybe_unused]] const bool kStdoutLineBuffered = std::setvbuf(stdout, nullptr, _IOLBF, 0) == 0;
}  // namespace

std::string shared_dir() {
    if (const char* env = std::getenv("STRATA_SHARED"); env && *env) return env;
    return STRATA_SHARED_DEFAULT;
}

bool shared_required() {
    if (const char* env = std::getenv("STRATA_REQUIRE_SHARED"); env && *env) return std::string(env) == "1";
    return STRATA_REQUIRE_SHARED_DEFAULT;
}

std::optional<std::string> shared_path(const std::string& relative) {
    std::string p = shared_dir() + "/" + relative;
    if (std::filesystem::exists(p)) return p;
    return std::nullopt;
}

uint64_t test_seed() {
    static const uint64_t seed = [] {
        if (const char* env = std::getenv("STRATA_SEED"); env && *env) return uint64_t{std::strtoull(env, nullptr, 10)};
        uint64_t s = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
        std::fprintf(stderr, "[strata test] seed %llu (replay with STRATA_SEED=%llu)\n", (unsigned long long)s,
                     (unsigned long long)s);
        return s;
    }();
    return seed;
}

bool test_trace() {
    static const bool on = [] {
        const char* env = std::getenv("STRATA_TEST_TRACE");
        return env && std::string(env) == "1";
    }();
    return on;
}

Tensor random_tensor(DType dtype, const Shape& shape, uint64_t seed, double lo, double hi) {
    Tensor t = Tensor::empty(dtype, shape);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uni(lo, hi);
    int64_t n = t.numel();
    auto int_draw = [&] { return static_cast<int64_t>(std::floor(uni(rng))); };
    for (int64_t i = 0; i < n; ++i) {
        switch (dtype) {
            case DType::f32: t.data<float>()[i] = static_cast<float>(uni(rng)); break;
            case DType::f16: t.data<uint16_t>()[i] = float_to_fp16(static_cast<float>(uni(rng))); break;
            case DType::bf16: t.data<uint16_t>()[i] = float_to_bf16(static_cast<float>(uni(rng))); break;
            case DType::i8: t.data<int8_t>()[i] = static_cast<int8_t>(int_draw()); break;
            case DType::u8: t.data<uint8_t>()[i] = static_cast<uint8_t>(int_draw()); break;
            case DType::i32: t.data<int32_t>()[i] = static_cast<int32_t>(int_draw()); break;
            case DType::i64: t.data<int64_t>()[i] = int_draw(); break;
            case DType::boolean: t.data<uint8_t>()[i] = uni(rng) > (lo + hi) / 2 ? 1 : 0; break;
        }
    }
    return t;
}

int64_t argmax_row(const Tensor& t, int64_t row) {
    const float* p = static_cast<const float*>(t.raw()) + row * t.shape()[1];
    int64_t best = 0;
    for (int64_t i = 1; i < t.shape()[1]; ++i)
        if (p[i] > p[best]) best = i;
    return best;
}

double max_rel_error(const Tensor& got, const Tensor& want) {
    EXPECT_EQ(shape_str(got.shape()), shape_str(want.shape()));
    EXPECT_EQ(got.dtype(), DType::f32);
    EXPECT_EQ(want.dtype(), DType::f32);
    if (got.shape() != want.shape() || got.dtype() != DType::f32 || want.dtype() != DType::f32) return INFINITY;
    double max_diff = 0, max_want = 0;
    for (int64_t i = 0; i < want.numel(); ++i) {
        double g = got.data<float>()[i], w = want.data<float>()[i];
        if (std::isnan(g) != std::isnan(w)) return INFINITY;
        max_diff = std::max(max_diff, std::abs(g - w));
        max_want = std::max(max_want, std::abs(w));
    }
    return max_want > 0 ? max_diff / max_want : max_diff;
}

int64_t count_mismatches(const Tensor& got, const Tensor& want, double rtol, double atol) {
    EXPECT_EQ(shape_str(got.shape()), shape_str(want.shape()));
    if (got.shape() != want.shape() || got.dtype() != want.dtype()) return want.numel() + 1;
    int64_t bad = 0;
    for (int64_t i = 0; i < want.numel(); ++i) {
        double g, w;
        switch (want.dtype()) {
            case DType::f32: g = got.data<float>()[i]; w = want.data<float>()[i]; break;
            case DType::i64: g = double(got.data<int64_t>()[i]); w = double(want.data<int64_t>()[i]); break;
            case DType::i32: g = got.data<int32_t>()[i]; w = want.data<int32_t>()[i]; break;
            default: g = got.data<uint8_t>()[i]; w = want.data<uint8_t>()[i]; break;
        }
        if (std::isnan(w) ? !std::isnan(g) : !(std::abs(g - w) <= atol + rtol * std::abs(w))) ++bad;
    }
    return bad;
}

std::string cli_path() { return STRATA_CLI_PATH; }

CommandResult run_command(const std::string& command) {
    CommandResult r{-1, {}};
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
    int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

bool same_bits(const Tensor& a, const Tensor& b) {
    return a.shape() == b.shape() && a.dtype() == b.dtype() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

std::string temp_path(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() / ("strata_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

}  // namespace strata::test
