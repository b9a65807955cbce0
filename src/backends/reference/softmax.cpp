// softmax.cpp: Softmax and LogSoftmax over one axis (opset-13 semantics), or with SoftmaxAttrs::coerce_2d over all
// dims from `axis` on (opset < 13). In double: subtract the max, exponentiate, divide by the sum.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

namespace {
void softmax(const ir::Node& node, Inputs inputs, Outputs outputs, bool log) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    require_dtype(node, x, {DType::f32});
    const auto& a = node.attr<ir::SoftmaxAttrs>();
    int64_t rank = x.rank();
    // A scalar behaves as a one-element vector.
    int64_t axis = rank == 0 ? 0 : normalize_axis(node, a.axis, rank);
    // The input is [outer, n, inner] with the normalisation over n (stride inner).
    int64_t outer = dims_product(x.shape(), 0, axis);
    int64_t n = rank == 0 ? 1 : (a.coerce_2d ? dims_product(x.shape(), axis, rank) : x.dim(static_cast<int>(axis)));
    int64_t inner = a.coerce_2d || rank == 0 ? 1 : dims_product(x.shape(), axis + 1, rank);
    const float* in = x.data<float>();
    float* out = outputs[0].data<float>();
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
            int64_t base = o * n * inner + i;
            double max = -std::numeric_limits<double>::infinity();
            for (int64_t j = 0; j < n; ++j) max = std::max<double>(max, in[base + j * inner]);
            double sum = 0.0;
            for (int64_t j = 0; j < n; ++j) sum += std::exp(in[base + j * inner] - max);
            for (int64_t j = 0; j < n; ++j) {
                double shifted = in[base + j * inner] - max;
                out[base + j * inner] = static_cast<float>(log ? shifted - std::log(sum) : std::exp(shifted) / sum);
            }
        }
    }
}
}  // namespace

void softmax_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    softmax(node, inputs, outputs, false);
}

void log_softmax_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    softmax(node, inputs, outputs, true);
}

}  // namespace strata::backends::reference
