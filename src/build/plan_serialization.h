// plan_serialization.h: a built Plan to and from the plan file (plan_io.h), so `strata build` saves what the
// builder decided and `strata run/bench x.plan` runs it without rebuilding. The runtime resolves the tactic names;
// a plan naming a kernel this strata lacks, or built for another GPU or version, is refused with a clear message.
#pragma once

#include <string>

#include "build/plan.h"
#include "build/plan_io.h"

namespace strata::build {

PlanFile to_plan_file(const Plan& plan);
/// Checks the file's consistency with itself (tactics exist for CPU plans, one value entry per graph value).
Plan from_plan_file(PlanFile file, const std::string& name_for_errors);
/// The target a plan built now for `device` would record (GPU: name, compute capability, driver and runtime).
PlanFileTarget current_target(const BuildOptions& options, int64_t batch);

}  // namespace strata::build
