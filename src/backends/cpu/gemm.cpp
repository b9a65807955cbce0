// gemm.cpp: Gemm and FullyConnected through cblas_sgemm (cpu.gemm, cpu.fully_connected). The output columns are
// split into one block per thread (OpenBLAS itself runs single-threaded: NOTE [cpu threading] in conv_gemm.cpp), so
// a batch-1 classifier layer also uses every core; each block's bias/C term and activation follow its sgemm.
#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "backends/cpu/cpu_common.h"
#include "backends/cpu/unary_fn.h"

namespace strata::backends::cpu {

namespace {

constexpr int64_t kMinBlockCols = 64;

struct GemmShape {
    bool trans_a = false, trans_b = false;
    int64_t m = 0, n = 0, k = 0;
};

// Y[M,N] = alpha * op(A) * op(B) in column blocks; epilogue(first_col, count) runs after each block's sgemm.
template <class Epilogue>
void blocked_sgemm(const KernelContext& ctx, const GemmShape& s, float alpha, const float* a, const float* b, float* y,
                   Epilogue epilogue) {
    const int64_t blocks = std::clamp<int64_t>(s.n / kMinBlockCols, 1, num_threads(ctx));
    const int64_t block = (s.n + blocks - 1) / blocks;
    const int64_t lda = s.trans_a ? s.m : s.k, ldb = s.trans_b ? s.k : s.n;
    parallel_for(ctx, blocks, [&](int64_t begin, int64_t end) {
        for (int64_t blk = begin; blk < end; ++blk) {
            const int64_t first = blk * block, count = std::min(block, s.n - first);
            if (count <= 0) continue;
            const float* b_block = s.trans_b ? b + first * s.k : b + first;
            cblas_sgemm(CblasRowMajor, s.trans_a ? CblasTrans : CblasNoTrans, s.trans_b ? CblasTrans : CblasNoTrans,
                        s.m, count, s.k, alpha, a, lda, b_block, ldb, 0.0f, y + first, s.n);
            epilogue(first, count);
        }
    });
}

// C's broadcast to [M, N] as strides: element (i, j) is c[i * row_stride + j * col_stride].
std::optional<std::pair<int64_t, int64_t>> c_strides(const Shape& c, int64_t m, int64_t n) {
    Shape s(c);
    while (s.size() < 2) s.insert(s.begin(), 1);
    if (s.size() != 2) return std::nullopt;
    if ((s[0] != 1 && s[0] != m) || (s[1] != 1 && s[1] != n)) return std::nullopt;
    return std::make_pair(s[0] == 1 ? int64_t{0} : s[1], s[1] == 1 ? int64_t{0} : int64_t{1});
}

}  // namespace

std::string gemm_can_implement(const ir::Graph& graph, const ir::Node& node) {
    if (std::string r = require_f32(graph, node, "cpu.gemm"); !r.empty()) return r;
    if (std::string r = require_static_shapes(graph, node, "cpu.gemm"); !r.empty()) return r;
    const Shape& y = graph.value(node.outputs[0]).shape;
    if (graph.value(node.input(0)).shape.size() != 2 || graph.value(node.input(1)).shape.size() != 2 || y.size() != 2)
        return "cpu.gemm: A and B must be 2-D";
    if (node.input(2) != ir::kNoValue && !c_strides(graph.value(node.input(2)).shape, y[0], y[1]))
        return fmt::format("cpu.gemm: C of shape {} does not broadcast to {}",
                           shape_str(graph.value(node.input(2)).shape), shape_str(y));
    return {};
}

void gemm(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs, const KernelContext& ctx) {
    single_threaded_blas();
    const auto& attrs = node.attr<ir::GemmAttrs>();
    GemmShape s{attrs.trans_a, attrs.trans_b, outputs[0].dim(0), outputs[0].dim(1), 0};
    s.k = attrs.trans_a ? inputs[0].dim(0) : inputs[0].dim(1);
    float* y = outputs[0].data<float>();
    const bool has_c = inputs.size() > 2 && inputs[2].defined() && attrs.beta != 0.0f;
    const float* c = has_c ? inputs[2].data<float>() : nullptr;
    const auto strides = has_c ? *c_strides(inputs[2].shape(), s.m, s.n) : std::make_pair(int64_t{0}, int64_t{0});
    blocked_sgemm(ctx, s, attrs.alpha, inputs[0].data<float>(), inputs[1].data<float>(), y,
                  [&](int64_t first, int64_t count) {
                      if (!c) return;
                      for (int64_t i = 0; i < s.m; ++i)
                          for (int64_t j = first; j < first + count; ++j)
                              y[i * s.n + j] += attrs.beta * c[i * strides.first + j * strides.second];
                  });
}

std::string fully_connected_can_implement(const ir::Graph& graph, const ir::Node& node) {
    if (std::string r = require_f32(graph, node, "cpu.fully_connected"); !r.empty()) return r;
    if (std::string r = require_static_shapes(graph, node, "cpu.fully_connected"); !r.empty()) return r;
    if (graph.value(node.input(0)).shape.size() != 2) return "cpu.fully_connected: X must be 2-D";
    return {};
}

void fully_connected(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                     const KernelContext& ctx) {
    single_threaded_blas();
    const auto& act = node.attr<ir::FullyConnectedAttrs>().activation;
    const GemmShape s{false, true, outputs[0].dim(0), outputs[0].dim(1), inputs[0].dim(1)};
    float* y = outputs[0].data<float>();
    const float* bias = inputs.size() > 2 && inputs[2].defined() ? inputs[2].data<float>() : nullptr;
    with_activation_fn(act, [&](auto f) {
        blocked_sgemm(ctx, s, 1.0f, inputs[0].data<float>(), inputs[1].data<float>(), y,
                      [&](int64_t first, int64_t count) {
                          if (!bias && !act) return;
                          for (int64_t i = 0; i < s.m; ++i)
                              for (int64_t j = first; j < first + count; ++j)
                                  y[i * s.n + j] = f(y[i * s.n + j] + (bias ? bias[j] : 0.0f));
                      });
    });
}

}  // namespace strata::backends::cpu
