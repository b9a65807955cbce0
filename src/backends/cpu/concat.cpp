// concat.cpp: Concat along any axis, any dtype (cpu.concat): viewed as [outer, axis*inner], each input contributes
// one contiguous run per outer index, so the copy is a memcpy per (outer, input); along channels of NCHW that is
// one run per image and input.
#include <cstring>

#include "backends/cpu/cpu_common.h"
#include "core/check.h"

namespace strata::backends::cpu {

std::string concat_can_implement(const ir::Graph& graph, const ir::Node& node) {
    return require_static_shapes(graph, node, "cpu.concat");
}

void concat(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs, const KernelContext& ctx) {
    Tensor& y = outputs[0];
    int64_t axis = node.attr<ir::AxisAttrs>().axis;
    if (axis < 0) axis += y.rank();
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= y.dim(static_cast<int>(d));
    const size_t out_run = outer > 0 ? y.nbytes() / static_cast<size_t>(outer) : 0;
    std::vector<size_t> offsets;  // byte offset of each input's run inside one output run
    size_t offset = 0;
    for (const Tensor& x : inputs) {
        offsets.push_back(offset);
        offset += outer > 0 ? x.nbytes() / static_cast<size_t>(outer) : 0;
    }
    STRATA_ASSERT(offset == out_run, "concat inputs ({} bytes per run) do not fill the output ({})", offset, out_run);
    auto* dst = static_cast<char*>(y.raw());
    parallel_for(ctx, outer * static_cast<int64_t>(inputs.size()), [&](int64_t begin, int64_t end) {
        for (int64_t item = begin; item < end; ++item) {
            const int64_t o = item / static_cast<int64_t>(inputs.size());
            const size_t i = static_cast<size_t>(item % static_cast<int64_t>(inputs.size()));
            const size_t run = inputs[i].nbytes() / static_cast<size_t>(outer);
            std::memcpy(dst + o * out_run + offsets[i], static_cast<const char*>(inputs[i].raw()) + o * run, run);
        }
    });
}

}  // namespace strata::backends::cpu
