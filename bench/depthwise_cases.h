// depthwise_cases.h: the cases and the arithmetic of bench/depthwise_gpu.cpp (issue 4's depthwise benchmark), kept
// apart from the GPU code so that a CPU test (tests/bench) checks them: the 12 layer shapes of
// ../shared/anchors/README.md, the bytes a case must move, how many buffer slots keep a large case out of the L2,
// GB/s and floors, and the acceptance summaries (2), (3) and (4) of issue 4.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "strata/tensor.h"

namespace strata::bench::dw {

// ---- cases -------------------------------------------------------------------------------------------------------

/// One depthwise layer: C channels in and out (group = C, multiplier 1), an H = W map, a k x k kernel, stride s,
/// padding k/2 on every side, no bias.
struct DwShape {
    int64_t c, hw, k, stride;

    std::string name() const { return fmt::format("{}x{}k{}s{}", c, hw, k, stride); }  ///< "144x56k3s2"
    int64_t out_hw() const { return (hw + 2 * (k / 2) - k) / stride + 1; }
};

/// ../shared/anchors/README.md, "Depthwise convolution through cuDNN": MobileNetV2 and EfficientNet layers.
inline const std::vector<DwShape>& anchor_shapes() {
    static const std::vector<DwShape> shapes = {
        {32, 112, 3, 1}, {96, 112, 3, 2}, {144, 56, 3, 1}, {144, 56, 3, 2}, {192, 28, 3, 1}, {384, 14, 3, 1},
        {576, 14, 3, 1}, {960, 7, 3, 1},  {144, 56, 5, 2}, {240, 28, 5, 1}, {672, 14, 5, 1}, {1152, 7, 5, 1},
    };
    return shapes;
}

/// The shapes named in a comma-separated list, each a 1-based index into anchor_shapes() or a name() such as
/// "144x56k3s2"; "all" (or an empty list) is every shape. Throws std::invalid_argument naming an unknown entry.
std::vector<DwShape> select_shapes(const std::string& list);

struct DwCase {
    DwShape shape;
    int64_t batch = 1;
    DType dtype = DType::f32;
};

/// "fp32", "fp16", "bf16", "int8".
inline const char* precision_name(DType t) {
    switch (t) {
        case DType::f32:
            return "fp32";
        case DType::f16:
            return "fp16";
        case DType::bf16:
            return "bf16";
        case DType::i8:
            return "int8";
        default:
            return dtype_name(t);
    }
}

/// "144x56k3s2 b32 fp16"
inline std::string case_name(const DwCase& c) {
    return fmt::format("{} b{} {}", c.shape.name(), c.batch, precision_name(c.dtype));
}

// ---- bytes -------------------------------------------------------------------------------------------------------

inline size_t input_bytes(const DwCase& c) {
    return static_cast<size_t>(c.batch * c.shape.c * c.shape.hw * c.shape.hw) * dtype_size(c.dtype);
}
inline size_t output_bytes(const DwCase& c) {
    const int64_t q = c.shape.out_hw();
    return static_cast<size_t>(c.batch * c.shape.c * q * q) * dtype_size(c.dtype);
}
inline size_t weight_bytes(const DwCase& c) {
    return static_cast<size_t>(c.shape.c * c.shape.k * c.shape.k) * dtype_size(c.dtype);
}
/// The fewest bytes the layer must move: input, output and weights once each (the floor's numerator, and what
/// GB/s counts, as in ../shared/anchors/README.md).
inline size_t moved_bytes(const DwCase& c) {
    return input_bytes(c) + output_bytes(c) + weight_bytes(c);
}

/// Issue 4, acceptance 2: cases whose input + output exceed 16 MB are judged against the copy bandwidth. 16 MiB
/// here; no anchor case lies between 16e6 and 2^24 bytes, so the two readings pick the same cases.
inline constexpr size_t kLargeCaseBytes = size_t{16} << 20;

inline bool is_large(const DwCase& c) {
    return input_bytes(c) + output_bytes(c) > kLargeCaseBytes;
}

// ---- rotation and graphs -----------------------------------------------------------------------------------------

/// Buffers of all slots together must exceed this many L2s, so that a slot is long gone from the L2 when the graph
/// comes back to it: the time is DRAM time.
inline constexpr size_t kL2Multiple = 4;

/// The fewest slots of `slot_bytes` each whose total exceeds kL2Multiple * l2_bytes (at least 1).
inline int slots_beyond_l2(size_t slot_bytes, size_t l2_bytes) {
    if (slot_bytes == 0) throw std::invalid_argument("slots_beyond_l2: empty slot");
    return static_cast<int>(kL2Multiple * l2_bytes / slot_bytes + 1);
}

/// How many sets of buffers a case cycles through: a large case enough to run from DRAM (each slot holds its own
/// input, weights and output), any other case one, as it runs inside a network (its data may stay in the L2).
inline int rotation_slots(const DwCase& c, size_t l2_bytes) {
    return is_large(c) ? slots_beyond_l2(moved_bytes(c), l2_bytes) : 1;
}

/// Launches per CUDA graph: at least this many, so that the graph's own launch cost is spread thin.
inline constexpr int kMinLaunchesPerGraph = 20;
/// Timed replays of each graph; the median is reported (issue 4 asks for >= 15).
inline constexpr int kReplays = 21;

/// The smallest multiple of `slots` that is >= kMinLaunchesPerGraph: every slot is used equally often, and
/// consecutive replays keep cycling in the same order.
inline int launches_per_graph(int slots) {
    if (slots < 1) throw std::invalid_argument("launches_per_graph: slots < 1");
    return (kMinLaunchesPerGraph + slots - 1) / slots * slots;
}

// ---- rates and floors --------------------------------------------------------------------------------------------

/// Decimal GB/s of `bytes` moved in `us` microseconds.
inline double gb_per_s(double bytes, double us) {
    return us > 0 ? bytes / (us * 1e3) : 0.0;
}
/// The copy probe's bandwidth: a device-to-device copy of `bytes_per_copy` reads and writes each byte once.
inline double copy_gb_per_s(size_t bytes_per_copy, double us_per_copy) {
    return gb_per_s(2.0 * static_cast<double>(bytes_per_copy), us_per_copy);
}
/// Bytes of each copy of the bandwidth probe: far past the L2 (and at least 1 GiB), so it is DRAM to DRAM.
inline size_t copy_probe_bytes(size_t l2_bytes) {
    return std::max(size_t{1} << 30, 16 * l2_bytes);
}
/// Microseconds to move `bytes` at `copy_gbps`: the time of a kernel that only streams its bytes once.
inline double floor_us(double bytes, double copy_gbps) {
    return copy_gbps > 0 ? bytes / (copy_gbps * 1e3) : 0.0;
}
/// Percent of the copy bandwidth reached moving `bytes` in `us`.
inline double percent_of_copy(double bytes, double us, double copy_gbps) {
    return copy_gbps > 0 ? 100.0 * gb_per_s(bytes, us) / copy_gbps : 0.0;
}

// ---- rows and summaries ------------------------------------------------------------------------------------------

/// One side of a row: the fastest candidate over configs and layouts.
struct Side {
    double us = 0;       ///< per launch; 0: nothing ran
    std::string layout;  ///< "nchw" / "nhwc"
    std::string config;  ///< "cudnn.conv#1 (IMPLICIT_PRECOMP_GEMM)"
    std::string detail;  ///< the kernel's detail(): the tile it chose
    std::string note;    ///< why nothing ran
    double pdl_us = 0;   ///< the same config launched with PDL (depthwise_gpu --pdl column); 0: not timed

    bool ran() const { return us > 0; }
};

struct Row {
    DwCase c;
    int slots = 1;  ///< rotation_slots()
    Side strata;
    Side peer;  ///< cuDNN for float rows; strata's fp16 kernel for int8 rows
    std::string peer_name = "cuDNN";
    /// A large case's bytes moved by a plain 16-byte copy kernel (half read, half written) through the same number
    /// of rotating slots: what any kernel that streams this much data once can reach at this size (0: not timed)
    double same_size_copy_us = 0;

    /// peer time / strata time (above 1: strata is faster); 0 when either did not run.
    double speedup() const { return strata.ran() && peer.ran() ? peer.us / strata.us : 0.0; }
};

inline constexpr double kLargeTargetPercent = 85.0;  ///< acceptance 2
inline constexpr double kSmallTargetSpeedup = 1.5;   ///< acceptance 3, geometric mean per dtype
inline constexpr double kInt8TargetRatio = 0.6;      ///< acceptance 4: int8 time / fp16 time, batch >= 32
inline constexpr int64_t kInt8MinBatch = 32;

/// Acceptance 2 over every row with is_large(), int8 rows too ("every case (shape, batch, dtype)").
struct LargeSummary {
    int cases = 0;
    double min_percent = 0;  ///< over the cases strata ran
    std::string min_case;
    std::vector<std::string> under;    ///< below kLargeTargetPercent, with their percent
    std::vector<std::string> missing;  ///< strata did not run
    /// The lowest percent of the copy bandwidth that a same-size copy (Row::same_size_copy_us) reached, and where
    double min_copy_percent = 0;
    std::string min_copy_case;
    bool met() const { return cases > 0 && under.empty() && missing.empty(); }
};
LargeSummary summarize_large(const std::vector<Row>& rows, double copy_gbps);

/// Acceptance 3 over the float rows of one dtype without is_large().
struct SmallSummary {
    DType dtype = DType::f32;
    int cases = 0;
    int compared = 0;                  ///< both sides ran
    double geomean = 0;                ///< of peer / strata over the compared cases
    std::vector<std::string> slower;   ///< strata slower than cuDNN, with the ratio
    std::vector<std::string> missing;  ///< strata or cuDNN did not run
    /// cuDNN under kSmallTargetSpeedup x the launch floor, with its time: there no single kernel launch in the
    /// chain can be kSmallTargetSpeedup x faster than cuDNN, whatever it computes
    std::vector<std::string> beyond_floor;
    bool met() const { return compared > 0 && missing.empty() && slower.empty() && geomean >= kSmallTargetSpeedup; }
};
/// One summary per float dtype present among the rows, in order of first appearance. `launch_floor_us`: the time of
/// an empty kernel in the same chain of launches (0: not measured, beyond_floor stays empty).
std::vector<SmallSummary> summarize_small(const std::vector<Row>& rows, double launch_floor_us = 0);

/// Acceptance 4 over the int8 rows at batch >= kInt8MinBatch (their peer is strata's fp16 kernel).
struct Int8Summary {
    int cases = 0;
    double worst_ratio = 0;  ///< max int8 / fp16 time
    std::string worst_case;
    std::vector<std::string> missing;
    bool met() const { return cases > 0 && missing.empty() && worst_ratio <= kInt8TargetRatio; }
};
Int8Summary summarize_int8(const std::vector<Row>& rows);

// ---- definitions -------------------------------------------------------------------------------------------------

inline std::vector<DwShape> select_shapes(const std::string& list) {
    const std::vector<DwShape>& all = anchor_shapes();
    if (list.empty() || list == "all") return all;
    std::vector<DwShape> out;
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = std::min(list.find(',', start), list.size());
        std::string item = list.substr(start, end - start);
        start = end + 1;
        auto by_name = std::find_if(all.begin(), all.end(), [&](const DwShape& s) { return s.name() == item; });
        if (by_name != all.end()) {
            out.push_back(*by_name);
            continue;
        }
        bool digits = !item.empty() && item.size() <= 2 &&
                      std::all_of(item.begin(), item.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        int index = digits ? std::stoi(item) : 0;
        if (index < 1 || index > static_cast<int>(all.size()))
            throw std::invalid_argument(
                fmt::format("unknown shape '{}': give 1..{} or a name such as {} (--help lists them)", item, all.size(),
                            all[3].name()));
        out.push_back(all[static_cast<size_t>(index - 1)]);
    }
    return out;
}

inline LargeSummary summarize_large(const std::vector<Row>& rows, double copy_gbps) {
    LargeSummary s;
    for (const Row& r : rows) {
        if (!is_large(r.c)) continue;
        ++s.cases;
        if (r.same_size_copy_us > 0) {  // the copy's reach does not depend on whether strata ran
            double copy_pct = percent_of_copy(static_cast<double>(moved_bytes(r.c)), r.same_size_copy_us, copy_gbps);
            if (s.min_copy_case.empty() || copy_pct < s.min_copy_percent)
                s.min_copy_percent = copy_pct, s.min_copy_case = case_name(r.c);
        }
        if (!r.strata.ran()) {
            s.missing.push_back(case_name(r.c));
            continue;
        }
        double pct = percent_of_copy(static_cast<double>(moved_bytes(r.c)), r.strata.us, copy_gbps);
        if (s.min_case.empty() || pct < s.min_percent) s.min_percent = pct, s.min_case = case_name(r.c);
        if (pct < kLargeTargetPercent) s.under.push_back(fmt::format("{} ({:.1f}%)", case_name(r.c), pct));
    }
    return s;
}

inline std::vector<SmallSummary> summarize_small(const std::vector<Row>& rows, double launch_floor_us) {
    std::vector<SmallSummary> out;
    std::vector<double> log_sums;
    for (const Row& r : rows) {
        if (!is_float_dtype(r.c.dtype) || is_large(r.c)) continue;
        auto it = std::find_if(out.begin(), out.end(), [&](const SmallSummary& s) { return s.dtype == r.c.dtype; });
        if (it == out.end()) {
            out.emplace_back().dtype = r.c.dtype;
            log_sums.push_back(0.0);
            it = out.end() - 1;
        }
        SmallSummary& s = *it;
        double& log_sum = log_sums[static_cast<size_t>(it - out.begin())];
        ++s.cases;
        double ratio = r.speedup();
        if (ratio <= 0) {
            s.missing.push_back(
                fmt::format("{} ({} did not run)", case_name(r.c), r.strata.ran() ? r.peer_name : "strata"));
            continue;
        }
        ++s.compared;
        if (r.peer.us < kSmallTargetSpeedup * launch_floor_us)
            s.beyond_floor.push_back(fmt::format("{} ({:.2f} us)", case_name(r.c), r.peer.us));
        log_sum += std::log(ratio);
        s.geomean = std::exp(log_sum / s.compared);
        if (ratio < 1.0) s.slower.push_back(fmt::format("{} ({:.2f})", case_name(r.c), ratio));
    }
    return out;
}

inline Int8Summary summarize_int8(const std::vector<Row>& rows) {
    Int8Summary s;
    for (const Row& r : rows) {
        if (r.c.dtype != DType::i8 || r.c.batch < kInt8MinBatch) continue;
        ++s.cases;
        if (!r.strata.ran() || !r.peer.ran()) {
            s.missing.push_back(case_name(r.c));
            continue;
        }
        double ratio = r.strata.us / r.peer.us;
        if (s.worst_case.empty() || ratio > s.worst_ratio) s.worst_ratio = ratio, s.worst_case = case_name(r.c);
    }
    return s;
}

}  // namespace strata::bench::dw
