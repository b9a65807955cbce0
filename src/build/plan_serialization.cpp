// plan_serialization.cpp: see plan_serialization.h. The plan file's generic option map carries what PlanFile has no
// field for: the activations' compute dtype and layout, the memory plan's total, the measured step times.
#include "build/plan_serialization.h"

#include <fmt/format.h>

#include <charconv>

#include "core/check.h"

namespace strata::build {

namespace {

std::string join_ms(const std::vector<Step>& steps) {
    std::string r;
    for (const Step& s : steps) r += fmt::format("{}{:.6g}", r.empty() ? "" : ",", s.measured_ms);
    return r;
}

const std::string& option(const PlanFile& f, const std::string& key, const std::string& name) {
    auto it = f.options.find(key);
    STRATA_CHECK(it != f.options.end(), StatusCode::parse_error, "{}: corrupt plan: option '{}' is missing", name, key);
    return it->second;
}

int64_t to_int(const std::string& text, const std::string& what, const std::string& name) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    STRATA_CHECK(ec == std::errc() && end == text.data() + text.size(), StatusCode::parse_error,
                 "{}: corrupt plan: {} '{}' is not an integer", name, what, text);
    return v;
}

void read_step_times(const std::string& text, std::vector<Step>& steps) {
    size_t i = 0, start = 0;
    while (i < steps.size() && start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        steps[i++].measured_ms = std::strtod(part.c_str(), nullptr);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
}

}  // namespace

PlanFile to_plan_file(const Plan& plan) {
    PlanFile f;
    f.target = current_target(plan.options, plan.batch);
    f.graph = plan.graph;
    for (const Step& s : plan.steps) {
        std::string tactic = s.tactic ? s.tactic->name : s.device_tactic;
        f.steps.push_back({static_cast<uint32_t>(s.node), tactic, s.config});
    }
    for (size_t v = 0; v < plan.graph.num_values(); ++v) {
        Layout layout = plan.on_gpu() ? plan.storage.layouts.at(v) : Layout::rowmajor;
        f.values.push_back({static_cast<uint8_t>(plan.graph.value(static_cast<ir::ValueId>(v)).dtype),
                            static_cast<uint8_t>(layout), plan.memory.offsets.at(v)});
    }
    f.arena_bytes = plan.memory.arena_bytes;
    f.options = {{"device", plan.options.device.str()},
                 {"precision", precision_name(plan.options.precision)},
                 {"batch", std::to_string(plan.batch)},
                 {"threads", std::to_string(plan.options.threads)},
                 {"activation_bytes", std::to_string(plan.memory.activation_bytes)},
                 {"compute", std::to_string(static_cast<int>(plan.storage.compute))},
                 {"layout", std::to_string(static_cast<int>(plan.storage.layout))},
                 {"device_name", plan.device_name},
                 {"step_ms", join_ms(plan.steps)}};
    for (size_t s = 0; s < plan.steps.size(); ++s)
        if (!plan.steps[s].refused.empty()) f.options["refused." + std::to_string(s)] = plan.steps[s].refused;
    return f;
}

Plan from_plan_file(PlanFile f, const std::string& name) {
    Plan plan;
    Expected<Device> device = Device::parse(option(f, "device", name));
    STRATA_CHECK(device.ok(), StatusCode::parse_error, "{}: corrupt plan: {}", name, device.status().message());
    Expected<Precision> precision = parse_precision(option(f, "precision", name));
    STRATA_CHECK(precision.ok(), StatusCode::parse_error, "{}: corrupt plan: {}", name, precision.status().message());
    plan.options.device = *device;
    plan.options.precision = *precision;
    plan.batch = to_int(option(f, "batch", name), "batch", name);
    plan.options.batch = static_cast<int>(plan.batch);
    plan.options.threads = static_cast<int>(to_int(option(f, "threads", name), "threads", name));
    plan.device_name = option(f, "device_name", name);
    plan.graph = std::move(f.graph);
    size_t nodes = plan.graph.nodes().size(), values = plan.graph.num_values();
    STRATA_CHECK(f.values.size() == values && f.steps.size() == nodes, StatusCode::parse_error,
                 "{}: corrupt plan: {} steps and {} value records for {} nodes and {} values", name, f.steps.size(),
                 f.values.size(), nodes, values);
    const auto& registry = backends::TacticRegistry::global();
    plan.memory.aliased.assign(nodes, false);
    for (size_t s = 0; s < nodes; ++s) {
        const PlanFileStep& fs = f.steps[s];
        STRATA_CHECK(fs.node == s, StatusCode::parse_error, "{}: corrupt plan: step {} runs node {}", name, s, fs.node);
        Step step;
        step.node = s;
        step.config = fs.config;
        plan.memory.aliased[s] = fs.tactic.empty();
        if (plan.on_gpu()) {
            step.device_tactic = fs.tactic;
        } else if (!fs.tactic.empty()) {
            step.tactic = registry.find(fs.tactic);
            STRATA_CHECK(step.tactic, StatusCode::invalid_argument,
                         "{}: the plan names CPU kernel '{}', which this strata lacks: rebuild the plan", name,
                         fs.tactic);
        }
        plan.steps.push_back(std::move(step));
    }
    read_step_times(option(f, "step_ms", name), plan.steps);
    for (size_t s = 0; s < nodes; ++s)
        if (auto it = f.options.find("refused." + std::to_string(s)); it != f.options.end()) plan.steps[s].refused = it->second;
    int64_t compute = to_int(option(f, "compute", name), "compute", name);
    int64_t layout = to_int(option(f, "layout", name), "layout", name);
    auto is_layout = [](int64_t l) { return l >= 0 && l <= static_cast<int64_t>(Layout::nhwc); };
    STRATA_CHECK(compute == static_cast<int64_t>(DType::f32) || compute == static_cast<int64_t>(DType::f16) ||
                     compute == static_cast<int64_t>(DType::bf16),
                 StatusCode::parse_error, "{}: corrupt plan: compute dtype {}", name, compute);
    STRATA_CHECK(is_layout(layout), StatusCode::parse_error, "{}: corrupt plan: layout {}", name, layout);
    STRATA_CHECK(plan.batch >= 1 && plan.options.threads >= 0, StatusCode::parse_error,
                 "{}: corrupt plan: batch {} or threads {}", name, plan.batch, plan.options.threads);
    plan.storage.compute = static_cast<DType>(compute);
    plan.storage.layout = static_cast<Layout>(layout);
    for (size_t v = 0; v < values; ++v) {
        STRATA_CHECK(is_layout(f.values[v].layout), StatusCode::parse_error, "{}: corrupt plan: value {} layout {}",
                     name, v, f.values[v].layout);
        plan.memory.offsets.push_back(f.values[v].arena_offset);
        plan.storage.layouts.push_back(static_cast<Layout>(f.values[v].layout));
    }
    plan.memory.arena_bytes = f.arena_bytes;
    plan.memory.activation_bytes =
        static_cast<size_t>(to_int(option(f, "activation_bytes", name), "activation_bytes", name));
    return plan;
}

}  // namespace strata::build
