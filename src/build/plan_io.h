// plan_io.h: plan files, what passes between `strata build` and `strata run/bench` (TensorRT's serialized engine):
// a header (magic "STRATAPLAN", format version, payload size, FNV-1a checksum of the payload), then the target
// the plan was built for, the graph (graph_io.h), the steps, per-value storage and the build options. The builder
// fills a PlanFile and the runtime reads one; this file knows nothing of either (the layout is in plan_io.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace strata::build {

/// The plan format this strata writes; it reads this version only (a newer file is refused as unsupported).
inline constexpr uint32_t kPlanFormatVersion = 1;

/// One step: the node it runs, the tactic's registered name ("" for a view step that runs nothing) and the
/// tactic's configuration (tile shape index or similar; the tactic defines it, -1 = none).
struct PlanFileStep {
    uint32_t node = 0;
    std::string tactic;
    int32_t config = -1;
};

/// Where one value (indexed by ValueId) lives at run time: its storage dtype and layout (strata::DType and
/// strata::Layout as integers) and its byte offset in the activation arena (-1: not in the arena, e.g. constants).
struct PlanFileValue {
    uint8_t dtype = 0;
    uint8_t layout = 0;
    int64_t arena_offset = -1;
};

/// What the plan was built for. Versions are CUDA's integers (13000 = 13.0); cc is major*10+minor (90 = sm_90);
/// for a CPU plan device_kind is "cpu" and gpu_name/cc/driver/runtime are empty or 0.
struct PlanFileTarget {
    std::string device_kind, gpu_name;
    int32_t cc = 0, driver = 0, runtime = 0;
    std::string precision;
    int64_t batch = 1;
    std::string strata_version;
};

struct PlanFile {
    PlanFileTarget target;
    ir::Graph graph;
    std::vector<PlanFileStep> steps;
    std::vector<PlanFileValue> values;  ///< one per graph value (graph.num_values())
    uint64_t arena_bytes = 0;
    std::map<std::string, std::string> options;  ///< build options as text, for `strata inspect` and rebuilds
};

/// The plan as bytes. Throws strata::Error(invalid_argument) for a PlanFile that could not be loaded back
/// (values not one per graph value, a step naming no node, an arena offset outside the arena).
std::vector<uint8_t> save_plan_bytes(const PlanFile& plan);
/// Reads a plan; every byte is checked. Throws strata::Error: parse_error "<name>: corrupt plan: <what>" for a
/// damaged or truncated file (the checksum catches most damage), unsupported for a newer format version.
/// Never crashes on any input. Does not compare the target with this machine: see target_mismatch().
PlanFile load_plan_bytes(const void* data, size_t size, const std::string& name_for_errors);
void save_plan_file(const PlanFile& plan, const std::string& path);
/// Throws strata::Error(not_found) when `path` cannot be read, else as load_plan_bytes.
PlanFile load_plan_file(const std::string& path);

/// "" when a plan built for `plan` can run `here`, else why not, e.g. "plan was built for NVIDIA H200 (sm_90,
/// driver 13.0, runtime 13.0) by strata 0.1.0; this machine has NVIDIA A100 (sm_80, driver 12.8, runtime 13.0)
/// and strata 0.1.0: the GPU differs". Device kind, GPU name, compute capability, runtime and strata version must
/// be equal; the driver may be newer than the plan's (CUDA drivers are backward compatible), not older. Precision
/// and batch describe the plan, not the machine, and are not compared. The caller decides whether to refuse.
std::string target_mismatch(const PlanFileTarget& plan, const PlanFileTarget& here);

/// For tests and the fuzzer: rewrites the header's payload size and checksum to match the bytes that follow it,
/// so that damage inside the payload reaches the parser instead of the checksum. Inputs shorter than the header are
/// left alone.
void reseal_plan_bytes(std::vector<uint8_t>& bytes);

}  // namespace strata::build
