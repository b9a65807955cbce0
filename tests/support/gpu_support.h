// gpu_support.h: what GPU tests share (tests/gpu, ctest label `gpu`). Every GPU test starts with
// STRATA_REQUIRE_GPU(), which skips it cleanly on a machine without a CUDA device (CI).
//
// The harness run_tactic() checks one CUDA tactic on one node against the reference backend: it draws fresh random
// inputs, rounds them to the compute dtype (so both sides see the same numbers), uploads them in the dtype and
// layout param_forms.h gives, poisons the outputs (NaN), launches the kernel, and returns the worst
// max|got - want| / max|want| over the node's outputs.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/device_buffer.h"
#include "backends/cuda/tensor_desc.h"
#include "ir/graph.h"
#include "strata/tensor.h"

namespace strata::test {

bool gpu_available();

/// The timing cache a GPU test's plan build uses: "none" (every build times its candidates, so a test sees the
/// timing code), unless STRATA_TEST_TIMING_CACHE names a file. gpu_suite.sh's sanitize stage sets it after one
/// plain run of the tests, so that under a sanitizer a build reads its times instead of timing every candidate
/// again (which made the plan-building tests outlast the device call's limit under racecheck).
std::string test_timing_cache();

#define STRATA_REQUIRE_GPU()                                                    \
    do {                                                                        \
        if (!::strata::test::gpu_available()) GTEST_SKIP() << "no CUDA device"; \
    } while (0)

/// A tensor on the device with its description.
struct DeviceTensor {
    cuda::DeviceBuffer buffer;
    cuda::TensorDesc desc;
};
/// Uploads a logical host tensor in `desc`'s dtype and layout (desc.shape must equal the tensor's shape).
DeviceTensor to_device(const Tensor& logical, const cuda::TensorDesc& desc);
/// The step the builder would describe for `node` of `graph` on device 0, every value in `dtype` and `layout`
/// (weights and biases that kernels keep in fp32 stay so).
cuda::StepDesc make_desc(const ir::Graph& graph, const ir::Node& node, DType dtype, Layout layout);
/// Downloads to a logical host tensor (float dtypes come back as f32).
Tensor from_device(const DeviceTensor& t);
/// The tensor with each value rounded to `dtype` and back (identity for f32 and non-float dtypes).
Tensor round_to(const Tensor& t, DType dtype);

struct TacticRun {
    bool ran = false;
    std::string refused;       ///< can_implement's reason when it did not run
    double max_rel_error = 0;  ///< worst over the outputs
    int64_t unwritten = 0;     ///< output elements still NaN from the poison where the reference is not NaN
};

/// Runs node `node_index` of `graph` (shapes inferred; its inputs are graph inputs or constants) with the CUDA
/// tactic `tactic` / `config` at compute dtype `dtype` and activation layout `layout`, against the reference
/// backend. Graph inputs get random values in [lo, hi) from `seed` (integer inputs keep the graph's constants).
/// `output_dtype`, when given, is the float outputs' dtype instead of `dtype` (a step that widens its result).
TacticRun run_tactic(const ir::Graph& graph, size_t node_index, const std::string& tactic, int config, DType dtype,
                     Layout layout, uint64_t seed, double lo = -1.0, double hi = 1.0,
                     std::optional<DType> output_dtype = std::nullopt);

}  // namespace strata::test
