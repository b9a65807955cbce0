// unary.cpp: elementwise functions of one tensor (cpu.unary), in parallel chunks over the flat data; the function
// is chosen once per call (unary_fn.h) so the loop vectorises for the piecewise-linear kinds.
#include <fmt/format.h>

#include "backends/cpu/cpu_common.h"
#include "backends/cpu/simd.h"
#include "backends/cpu/unary_fn.h"

namespace strata::backends::cpu {

namespace {
constexpr int64_t kGrain = 16384;  // elements per chunk: below this a thread's wake-up costs more than it saves
}

std::string unary_can_implement(const ir::Graph& graph, const ir::Node& node) {
    if (std::string r = require_f32(graph, node, "cpu.unary"); !r.empty()) return r;
    return require_static_shapes(graph, node, "cpu.unary");
}

void unary(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs, const KernelContext& ctx) {
    const float* x = inputs[0].data<float>();
    float* y = outputs[0].data<float>();
    const int64_t n = inputs[0].numel();
    with_unary_fn(node.attr<ir::UnaryAttrs>(), [&](auto f) {
        parallel_for(ctx, (n + kGrain - 1) / kGrain, [&](int64_t begin, int64_t end) {
            const int64_t first = begin * kGrain, last = std::min(n, end * kGrain);
            map(x + first, y + first, last - first, f);
        });
    });
}

}  // namespace strata::backends::cpu
