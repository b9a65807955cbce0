// cpu_common.cpp: the helpers every CPU kernel shares (see cpu_common.h).
#include "backends/cpu/cpu_common.h"

#include <cblas.h>
#include <fmt/format.h>

#include <mutex>

#include "core/thread_pool.h"

namespace strata::backends::cpu {

void parallel_for(const KernelContext& ctx, int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
    if (n <= 0) return;
    if (ctx.pool == nullptr) {
        fn(0, n);
        return;
    }
    ctx.pool->parallel_for(n, fn);
}

int num_threads(const KernelContext& ctx) {
    return ctx.pool ? ctx.pool->size() : 1;
}

void single_threaded_blas() {
    static std::once_flag once;
    std::call_once(once, [] { openblas_set_num_threads(1); });
}

namespace {
template <class Visit>
std::string for_each_value(const ir::Graph& graph, const ir::Node& node, Visit visit) {
    for (const auto* ids : {&node.inputs, &node.outputs}) {
        for (ir::ValueId id : *ids) {
            if (id == ir::kNoValue) continue;
            std::string reason = visit(graph.value(id));
            if (!reason.empty()) return reason;
        }
    }
    return {};
}
}  // namespace

std::string require_f32(const ir::Graph& graph, const ir::Node& node, const char* tactic) {
    return for_each_value(graph, node, [&](const ir::Value& v) -> std::string {
        if (v.dtype == DType::f32) return {};
        return fmt::format("{}: dtype {} not supported (value '{}')", tactic, dtype_name(v.dtype), v.name);
    });
}

std::string require_static_shapes(const ir::Graph& graph, const ir::Node& node, const char* tactic) {
    return for_each_value(graph, node, [&](const ir::Value& v) -> std::string {
        bool known = v.has_shape;
        for (int64_t d : v.shape) known = known && d >= 0;
        if (known) return {};
        return fmt::format("{}: shape of '{}' not known ({})", tactic, v.name, shape_str(v.shape));
    });
}

}  // namespace strata::backends::cpu
