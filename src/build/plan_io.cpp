// plan_io.cpp: the plan file format, version 1 (little-endian; see byte_io.h for strings and lists):
//   header  "STRATAPLAN", format version u32, payload size u64, FNV-1a 64 of the payload u64   (30 bytes)
//   payload "TRGT" device_kind, gpu_name, cc i32, driver i32, runtime i32, precision, batch i64, strata_version
//           the graph section (graph_io.cpp)
//           "STEP" count, per step: node u32, tactic, config i32
//           "VALU" count, per value: dtype u8, layout u8, arena_offset i64
//           "ARNA" arena_bytes u64
//           "OPTS" count, per option: key, value
//           "PEND"
// The checksum turns most damage into one clear message; the parser still checks every byte, because a file can
// be damaged and resealed (the fuzzer does exactly that).
#include "build/plan_io.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include "build/byte_io.h"
#include "build/graph_io.h"
#include "core/check.h"
#include "ir/verify.h"
#include "strata/engine.h"

namespace strata::build {
namespace {

constexpr char kMagic[] = "STRATAPLAN";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;
constexpr size_t kHeaderSize = kMagicSize + 4 + 8 + 8;
constexpr size_t kPayloadSizeAt = kMagicSize + 4;
constexpr size_t kChecksumAt = kPayloadSizeAt + 8;

void write_target(ByteWriter& w, const PlanFileTarget& t) {
    w.tag("TRGT");
    w.str(t.device_kind);
    w.str(t.gpu_name);
    w.i32(t.cc);
    w.i32(t.driver);
    w.i32(t.runtime);
    w.str(t.precision);
    w.i64(t.batch);
    w.str(t.strata_version);
}

PlanFileTarget read_target(ByteReader& r) {
    PlanFileTarget t;
    r.tag("TRGT");
    t.device_kind = r.str("target device_kind");
    t.gpu_name = r.str("target gpu_name");
    t.cc = r.i32("target cc");
    t.driver = r.i32("target driver");
    t.runtime = r.i32("target runtime");
    t.precision = r.str("target precision");
    t.batch = r.i64("target batch");
    t.strata_version = r.str("target strata_version");
    return t;
}

void write_payload(ByteWriter& w, const PlanFile& p) {
    write_target(w, p.target);
    write_graph(w, p.graph);
    w.tag("STEP");
    w.count(p.steps.size(), "the step list");
    for (const PlanFileStep& s : p.steps) {
        w.u32(s.node);
        w.str(s.tactic);
        w.i32(s.config);
    }
    w.tag("VALU");
    w.count(p.values.size(), "the value list");
    for (const PlanFileValue& v : p.values) {
        w.u8(v.dtype);
        w.u8(v.layout);
        w.i64(v.arena_offset);
    }
    w.tag("ARNA");
    w.u64(p.arena_bytes);
    w.tag("OPTS");
    w.count(p.options.size(), "the option list");
    for (const auto& [key, value] : p.options) {
        w.str(key);
        w.str(value);
    }
    w.tag("PEND");
}

PlanFile read_payload(ByteReader& r) {
    PlanFile p;
    p.target = read_target(r);
    p.graph = read_graph(r);
    r.tag("STEP");
    p.steps.resize(r.count("step count", 12));
    for (PlanFileStep& s : p.steps) {
        s.node = r.u32("step node");
        s.tactic = r.str("step tactic");
        s.config = r.i32("step config");
    }
    r.tag("VALU");
    p.values.resize(r.count("value storage count", 10));
    for (PlanFileValue& v : p.values) {
        v.dtype = r.u8("value storage dtype");
        v.layout = r.u8("value storage layout");
        v.arena_offset = r.i64("value arena offset");
    }
    r.tag("ARNA");
    p.arena_bytes = r.u64("arena size");
    r.tag("OPTS");
    const size_t num_options = r.count("option count", 8);
    for (size_t i = 0; i < num_options; ++i) {
        std::string key = r.str("option key");
        std::string value = r.str("option value");
        r.check(p.options.emplace(key, std::move(value)).second, "option '{}' appears twice", key);
    }
    r.tag("PEND");
    return p;
}

// Bytes a value needs in the arena (numel x its storage dtype), or nullopt when its shape is not fully known.
// Overflow is reported as a huge size, which no arena holds.
std::optional<uint64_t> logical_bytes(const ir::Value& v, DType storage) {
    if (!v.has_shape) return std::nullopt;
    uint64_t bytes = dtype_size(storage);
    for (int64_t d : v.shape) {
        if (d < 0) return std::nullopt;
        const auto ud = static_cast<uint64_t>(d);
        if (ud != 0 && bytes > std::numeric_limits<uint64_t>::max() / ud) return std::numeric_limits<uint64_t>::max();
        bytes *= ud;
    }
    return bytes;
}

// "" when the steps and storage are consistent with the graph, else the first problem.
std::string storage_problem(const PlanFile& p) {
    if (p.values.size() != p.graph.num_values())
        return fmt::format("{} value storage entries for {} graph values", p.values.size(), p.graph.num_values());
    for (size_t i = 0; i < p.steps.size(); ++i)
        if (p.steps[i].node >= p.graph.nodes().size())
            return fmt::format("step {} runs node {}, the graph has {} nodes", i, p.steps[i].node,
                               p.graph.nodes().size());
    for (size_t i = 0; i < p.values.size(); ++i) {
        const PlanFileValue& v = p.values[i];
        const ir::Value& gv = p.graph.value(static_cast<ir::ValueId>(i));
        if (v.dtype > static_cast<uint8_t>(DType::boolean) || v.layout > static_cast<uint8_t>(Layout::chwn))
            return fmt::format("value '{}' has storage dtype {} and layout {}", gv.name, v.dtype, v.layout);
        if (v.arena_offset < -1) return fmt::format("value '{}' has arena offset {}", gv.name, v.arena_offset);
        if (v.arena_offset == -1) continue;
        const uint64_t offset = static_cast<uint64_t>(v.arena_offset);
        const std::optional<uint64_t> bytes = logical_bytes(gv, static_cast<DType>(v.dtype));
        if (offset > p.arena_bytes || (bytes && *bytes > p.arena_bytes - offset))
            return fmt::format("value '{}' at arena offset {} ({} bytes) does not fit the {}-byte arena", gv.name,
                               offset, bytes.value_or(0), p.arena_bytes);
    }
    return "";
}

// A CUDA version integer (13000) as "13.0".
std::string cuda_version_str(int32_t v) {
    return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

std::string describe_target(const PlanFileTarget& t) {
    if (t.device_kind != "cuda") return t.device_kind.empty() ? std::string("an unnamed device") : t.device_kind;
    return fmt::format("{} (sm_{}, driver {}, runtime {})", t.gpu_name, t.cc, cuda_version_str(t.driver),
                       cuda_version_str(t.runtime));
}

}  // namespace

std::vector<uint8_t> save_plan_bytes(const PlanFile& plan) {
    ir::verify(plan.graph);  // a plan that would not load back is refused here, where the mistake is made
    const std::string problem = storage_problem(plan);
    STRATA_CHECK(problem.empty(), StatusCode::invalid_argument, "cannot save plan: {}", problem);
    // The header's size and checksum are filled in once the payload is written (one buffer: weights are large).
    ByteWriter w;
    w.raw(kMagic, kMagicSize);
    w.u32(kPlanFormatVersion);
    w.u64(0);
    w.u64(0);
    write_payload(w, plan);
    reseal_plan_bytes(w.bytes());
    return std::move(w.bytes());
}

PlanFile load_plan_bytes(const void* data, size_t size, const std::string& name_for_errors) {
    ByteReader r(data, size, name_for_errors);
    const size_t magic_bytes = std::min(size, kMagicSize);
    r.check(magic_bytes == 0 || std::memcmp(data, kMagic, magic_bytes) == 0,
            "not a strata plan (it does not start with \"{}\")", kMagic);
    r.check(size >= kHeaderSize, "truncated: {} bytes, the header alone takes {}", size, kHeaderSize);
    r.raw(kMagicSize, "magic");
    const uint32_t version = r.u32("format version");
    STRATA_CHECK(version <= kPlanFormatVersion, StatusCode::unsupported,
                 "{}: plan format version {} is newer than this strata reads ({}); rebuild the plan with strata {}",
                 name_for_errors, version, kPlanFormatVersion, strata::version());
    r.check(version == kPlanFormatVersion, "unknown plan format version {}", version);
    const uint64_t payload_size = r.u64("payload size");
    const uint64_t checksum = r.u64("checksum");
    r.check(payload_size == r.left(), "truncated or padded: the header announces {} payload bytes, {} follow",
            payload_size, r.left());
    const uint8_t* payload = r.raw(r.left(), "payload");
    r.check(fnv1a64(payload, payload_size) == checksum, "checksum mismatch: the file is damaged");

    ByteReader pr(payload, static_cast<size_t>(payload_size), name_for_errors);
    PlanFile plan = read_payload(pr);
    pr.check(pr.left() == 0, "{} unexpected bytes after the plan", pr.left());
    try {
        ir::verify(plan.graph);
    } catch (const Error& e) {
        pr.fail(fmt::format("its graph fails verification: {}", e.what()));
    }
    const std::string problem = storage_problem(plan);
    pr.check(problem.empty(), "{}", problem);
    return plan;
}

void save_plan_file(const PlanFile& plan, const std::string& path) {
    const std::vector<uint8_t> bytes = save_plan_bytes(plan);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    STRATA_CHECK(out.good(), StatusCode::invalid_argument, "{}: cannot create the plan file", path);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    STRATA_CHECK(out.good(), StatusCode::runtime_error, "{}: writing the plan failed (disk full?)", path);
}

PlanFile load_plan_file(const std::string& path) {
    std::error_code ec;
    STRATA_CHECK(std::filesystem::is_regular_file(path, ec), StatusCode::not_found, "{}: no such plan file", path);
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    STRATA_CHECK(in.good(), StatusCode::not_found, "{}: cannot open the plan file", path);
    const std::streamsize size = in.tellg();
    STRATA_CHECK(size >= 0, StatusCode::runtime_error, "{}: cannot read the plan file's size", path);
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(bytes.data()), size);
    STRATA_CHECK(in.gcount() == size, StatusCode::runtime_error, "{}: reading the plan failed", path);
    return load_plan_bytes(bytes.data(), bytes.size(), path);
}

std::string target_mismatch(const PlanFileTarget& plan, const PlanFileTarget& here) {
    std::vector<std::string> why;
    if (plan.device_kind != here.device_kind) why.push_back("the device kind differs");
    if (plan.gpu_name != here.gpu_name || plan.cc != here.cc) why.push_back("the GPU differs");
    if (here.driver < plan.driver) why.push_back("the driver is older");
    if (plan.runtime != here.runtime) why.push_back("the CUDA runtime differs");
    if (plan.strata_version != here.strata_version) why.push_back("the strata version differs");
    if (why.empty()) return "";
    return fmt::format("plan was built for {} by strata {}; this machine has {} and strata {}: {}",
                       describe_target(plan), plan.strata_version, describe_target(here), here.strata_version,
                       fmt::join(why, ", "));
}

void reseal_plan_bytes(std::vector<uint8_t>& bytes) {
    if (bytes.size() < kHeaderSize) return;
    const uint64_t payload_size = bytes.size() - kHeaderSize;
    const uint64_t checksum = fnv1a64(bytes.data() + kHeaderSize, payload_size);
    for (int i = 0; i < 8; ++i) {
        bytes[kPayloadSizeAt + i] = static_cast<uint8_t>(payload_size >> (8 * i));
        bytes[kChecksumAt + i] = static_cast<uint8_t>(checksum >> (8 * i));
    }
}

}  // namespace strata::build
