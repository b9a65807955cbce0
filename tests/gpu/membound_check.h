// membound_check.h: the one checker of the memory-bound CUDA kernel tests: a one-node graph (shapes inferred) run by
// one tactic with run_tactic() in every float dtype and both activation layouts, against the reference backend. A
// failure prints the case, dtype, layout, seed (STRATA_SEED replays it) and the tactic's refusal if it refused.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpu_support.h"
#include "ir/builder.h"
#include "ir/shape_inference.h"
#include "test_support.h"

namespace strata::test {

inline constexpr double kHalfTolerance = 1e-2;
inline const std::vector<DType> kFloatDTypes = {DType::f32, DType::f16, DType::bf16};

struct FormCheck {
    double f32_tolerance = 1e-4;  ///< 0 for exact ops (copies, max)
    double lo = -1.0, hi = 1.0;   ///< range of the random inputs
    std::vector<DType> dtypes = kFloatDTypes;
    size_t node = 0;
};

/// Runs `tactic` on node `check.node` of `graph` in every dtype of `check` and both layouts.
inline void expect_all_forms(ir::Graph& graph, const std::string& tactic, const std::string& what, uint64_t seed,
                             const FormCheck& check = {}) {
    ir::infer_shapes(graph);
    for (DType dt : check.dtypes) {
        for (Layout layout : {Layout::nchw, Layout::nhwc}) {
            std::string label =
                fmt::format("{} on {} [{} {}] seed {}", tactic, what, dtype_name(dt), layout_name(layout), seed);
            TacticRun r = run_tactic(graph, check.node, tactic, 0, dt, layout, seed, check.lo, check.hi);
            ASSERT_TRUE(r.ran) << label << ": refused: " << r.refused;
            double tolerance = dt == DType::f32 ? check.f32_tolerance : kHalfTolerance;
            EXPECT_LE(r.max_rel_error, tolerance) << label;
            EXPECT_EQ(r.unwritten, 0) << label << ": output elements left unwritten";
        }
    }
}

/// A dim in [lo, hi], odd sizes included; deterministic in the generator.
inline int64_t random_dim(std::mt19937_64& rng, int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

}  // namespace strata::test
