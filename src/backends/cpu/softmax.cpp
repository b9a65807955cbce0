// softmax.cpp: Softmax and LogSoftmax (cpu.softmax, cpu.log_softmax) viewed as [outer, length, inner]: opset-13
// semantics normalise over `axis` alone; the older coerced form (SoftmaxAttrs::coerce_2d) over every dim from `axis`
// on. The max is subtracted first so exp cannot overflow. Threaded over the outer rows.
#include <cmath>

#include "backends/cpu/cpu_common.h"

namespace strata::backends::cpu {

namespace {

struct SoftmaxView {
    int64_t outer = 1, length = 1, inner = 1;
};

SoftmaxView softmax_view(const ir::SoftmaxAttrs& a, const Shape& s) {
    const int64_t rank = static_cast<int64_t>(s.size());
    const int64_t axis = a.axis < 0 ? a.axis + rank : a.axis;
    SoftmaxView v;
    for (int64_t d = 0; d < rank; ++d) {
        const int64_t size = s[static_cast<size_t>(d)];
        if (d < axis)
            v.outer *= size;
        else if (d == axis || a.coerce_2d)
            v.length *= size;
        else
            v.inner *= size;
    }
    return v;
}

template <bool kLog>
void softmax_rows(const float* x, float* y, const SoftmaxView& v, int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o)
        for (int64_t in = 0; in < v.inner; ++in) {
            const float* src = x + o * v.length * v.inner + in;
            float* dst = y + o * v.length * v.inner + in;
            float top = src[0];
            for (int64_t i = 1; i < v.length; ++i) top = std::max(top, src[i * v.inner]);
            float sum = 0.0f;
            for (int64_t i = 0; i < v.length; ++i) {
                const float e = std::exp(src[i * v.inner] - top);
                dst[i * v.inner] = e;
                sum += e;
            }
            if (kLog) {
                const float log_sum = std::log(sum);
                for (int64_t i = 0; i < v.length; ++i) dst[i * v.inner] = src[i * v.inner] - top - log_sum;
            } else {
                const float scale = 1.0f / sum;
                for (int64_t i = 0; i < v.length; ++i) dst[i * v.inner] *= scale;
            }
        }
}

template <bool kLog>
void run_softmax(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                 const KernelContext& ctx) {
    const SoftmaxView v = softmax_view(node.attr<ir::SoftmaxAttrs>(), inputs[0].shape());
    const float* x = inputs[0].data<float>();
    float* y = outputs[0].data<float>();
    parallel_for(ctx, v.outer, [&](int64_t begin, int64_t end) { softmax_rows<kLog>(x, y, v, begin, end); });
}

}  // namespace

std::string softmax_can_implement(const ir::Graph& graph, const ir::Node& node) {
    if (std::string r = require_f32(graph, node, "cpu.softmax"); !r.empty()) return r;
    return require_static_shapes(graph, node, "cpu.softmax");
}

void softmax(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
             const KernelContext& ctx) {
    run_softmax<false>(node, inputs, outputs, ctx);
}

void log_softmax(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                 const KernelContext& ctx) {
    run_softmax<true>(node, inputs, outputs, ctx);
}

}  // namespace strata::backends::cpu
