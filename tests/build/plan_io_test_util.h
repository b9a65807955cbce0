// plan_io_test_util.h: PlanFiles for the plan file tests and the fuzzer's seeds, made the way the builder will make
// them: build_plan on a zoo network (CPU, fp32), its steps, tactics and memory plan copied into a PlanFile.
#pragma once

#include <string>

#include "build/plan.h"
#include "build/plan_io.h"
#include "strata/engine.h"
#include "zoo/zoo.h"

namespace strata::test {

inline build::PlanFileTarget cpu_target() {
    build::PlanFileTarget t;
    t.device_kind = "cpu";
    t.precision = "fp32";
    t.batch = 1;
    t.strata_version = strata::version();
    return t;
}

inline build::PlanFileTarget h200_target() {
    build::PlanFileTarget t;
    t.device_kind = "cuda";
    t.gpu_name = "NVIDIA H200";
    t.cc = 90;
    t.driver = 13000;
    t.runtime = 13000;
    t.precision = "fp16";
    t.batch = 64;
    t.strata_version = "0.1.0";
    return t;
}

/// The builder's plan as a PlanFile. `shrink_constants` replaces each constant's data by one element (the value
/// keeps its shape): a small file with the structure of a real plan, for truncation tests and fuzzer seeds.
inline build::PlanFile plan_file_from(const build::Plan& plan, bool shrink_constants) {
    build::PlanFile f;
    f.target = cpu_target();
    f.target.batch = plan.batch;
    f.graph = plan.graph;
    for (const build::Step& s : plan.steps)
        f.steps.push_back({static_cast<uint32_t>(s.node), s.tactic ? s.tactic->name : std::string(), -1});
    for (size_t i = 0; i < f.graph.num_values(); ++i) {
        ir::Value& v = f.graph.value(static_cast<ir::ValueId>(i));
        const Layout layout = v.shape.size() == 4 ? Layout::nchw : Layout::rowmajor;
        f.values.push_back({static_cast<uint8_t>(v.dtype), static_cast<uint8_t>(layout), plan.memory.offsets.at(i)});
        if (shrink_constants && v.constant) v.constant = Tensor::zeros(v.constant->dtype(), {1});
    }
    f.arena_bytes = plan.memory.arena_bytes;
    f.options = {{"device", "cpu"}, {"precision", "fp32"}, {"batch", std::to_string(plan.batch)}, {"optimize", "1"}};
    return f;
}

inline build::PlanFile zoo_plan_file(const std::string& name, int batch, bool shrink_constants) {
    BuildOptions options;
    options.batch = batch;
    options.threads = 1;
    const build::Plan plan = build::build_plan(*zoo::build(name), options);
    return plan_file_from(plan, shrink_constants);
}

}  // namespace strata::test
