// plan_io_test_util.h: PlanFiles for the plan file tests and the fuzzer's seeds, made the way `strata build` makes
// them: build_plan on a zoo network (CPU, fp32), then to_plan_file (build/plan_serialization.h).
#pragma once

#include <string>

#include "build/plan.h"
#include "build/plan_io.h"
#include "build/plan_serialization.h"
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

/// A zoo network built for the CPU (fp32) and turned into a PlanFile by the builder's own to_plan_file.
/// `shrink_constants` replaces each constant's data by one element (the value keeps its shape): a small file with
/// the structure of a real plan, for truncation tests and fuzzer seeds.
inline build::PlanFile zoo_plan_file(const std::string& name, int batch, bool shrink_constants) {
    BuildOptions options;
    options.batch = batch;
    options.threads = 1;
    build::PlanFile f = build::to_plan_file(build::build_plan(*zoo::build(name), options));
    for (size_t i = 0; shrink_constants && i < f.graph.num_values(); ++i) {
        ir::Value& v = f.graph.value(static_cast<ir::ValueId>(i));
        if (v.constant) v.constant = Tensor::zeros(v.constant->dtype(), {1});
    }
    return f;
}

}  // namespace strata::test
