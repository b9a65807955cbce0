// gemm_problem.cpp: see gemm_problem.h.
#include "backends/cuda/kernels/gemm/gemm_problem.h"

#include <fmt/format.h>

namespace strata::cuda {

namespace {
// A rank-4 operand in the nhwc layout is row-major only where the two orders agree (H*W == 1 or C == 1).
bool row_major(const TensorDesc& t) {
    if (!t.channels_last()) return true;
    TensorDesc plain = t;
    plain.layout = Layout::rowmajor;
    return same_bytes(t, plain);
}

std::string fully_connected(const StepDesc& desc, GemmProblem& p) {
    const TensorDesc &x = desc.inputs[0], &w = desc.inputs[1];
    if (x.rank() != 2 || w.rank() != 2 || x.shape[1] != w.shape[1])
        return fmt::format("X {} and W {} are not [N, K] and [M, K]", shape_str(x.shape), shape_str(w.shape));
    p.m = x.shape[0];
    p.k = x.shape[1];
    p.n = w.shape[0];
    p.trans_b = true;
    p.has_bias = desc.inputs.size() > 2 && desc.inputs[2].present;
    if (p.has_bias && (desc.inputs[2].dtype != DType::f32 || desc.inputs[2].numel() != p.n))
        return "bias is not float32 [M]";
    p.act = activation_params(desc.attr<ir::FullyConnectedAttrs>().activation);
    return {};
}

std::string gemm(const StepDesc& desc, GemmProblem& p) {
    const TensorDesc &a = desc.inputs[0], &b = desc.inputs[1];
    const auto& attrs = desc.attr<ir::GemmAttrs>();
    if (a.rank() != 2 || b.rank() != 2) return "A or B is not 2-D";
    p.trans_a = attrs.trans_a;
    p.trans_b = attrs.trans_b;
    p.m = p.trans_a ? a.shape[1] : a.shape[0];
    p.k = p.trans_a ? a.shape[0] : a.shape[1];
    p.n = p.trans_b ? b.shape[0] : b.shape[1];
    if ((p.trans_b ? b.shape[1] : b.shape[0]) != p.k) return "inner dims differ";
    p.alpha = attrs.alpha;
    p.beta = attrs.beta;
    if (desc.inputs.size() < 3 || !desc.inputs[2].present || attrs.beta == 0.0f) return {};
    const TensorDesc& c = desc.inputs[2];
    if (c.dtype != desc.outputs[0].dtype || c.rank() > 2) return "C is not a tensor of the output dtype of rank <= 2";
    int64_t rows = c.rank() == 2 ? c.shape[0] : 1, cols = c.rank() >= 1 ? c.shape.back() : 1;
    if ((rows != 1 && rows != p.m) || (cols != 1 && cols != p.n))
        return fmt::format("C {} does not broadcast to [{}, {}]", shape_str(c.shape), p.m, p.n);
    p.c = rows == p.m && cols == p.n && c.rank() == 2 ? GemmC::full : GemmC::broadcast;
    p.c_row = rows == 1 ? 0 : cols;
    p.c_col = cols == 1 ? 0 : 1;
    return {};
}

// numpy matmul: 1-D operands promoted ([k] -> [1, k] for A, [k, 1] for B), batch dims broadcast.
std::string matmul(const StepDesc& desc, GemmProblem& p) {
    Shape sa = desc.inputs[0].shape, sb = desc.inputs[1].shape;
    if (sa.empty() || sb.empty()) return "scalar operand";
    if (sa.size() == 1) sa.insert(sa.begin(), 1);
    if (sb.size() == 1) sb.push_back(1);
    p.m = sa[sa.size() - 2];
    p.k = sa.back();
    p.n = sb.back();
    if (sb[sb.size() - 2] != p.k) return "inner dims differ";
    int rank = static_cast<int>(std::max(sa.size(), sb.size())) - 2;
    if (rank > kMaxGemmBatchDims) return "too many batch dims";
    p.batch_rank = rank;
    // Walk the batch dims from the right; each operand's stride is its contiguous stride, 0 where it is 1.
    int64_t stride_a = p.m * p.k, stride_b = p.k * p.n;
    for (int i = rank - 1; i >= 0; --i) {
        int from_right = rank - i;  // 1 = the innermost batch dim
        int64_t da = from_right + 2 <= static_cast<int>(sa.size()) ? sa[sa.size() - 2 - from_right] : 1;
        int64_t db = from_right + 2 <= static_cast<int>(sb.size()) ? sb[sb.size() - 2 - from_right] : 1;
        if (da != db && da != 1 && db != 1) return "batch dims do not broadcast";
        p.batch_dims[i] = da == 1 ? db : da;
        p.a_batch_stride[i] = da == 1 ? 0 : stride_a;
        p.b_batch_stride[i] = db == 1 ? 0 : stride_b;
        stride_a *= da;
        stride_b *= db;
    }
    // B without a batch and A with all of it: one product of [batch*m, k] x [k, n] (Y is laid out the same).
    if (p.linear_batch_stride(true) == 0 && p.linear_batch_stride(false) == p.m * p.k) {
        p.m *= p.batch();
        p.batch_rank = 0;
    }
    return {};
}
}  // namespace

int64_t GemmProblem::batch() const {
    int64_t b = 1;
    for (int i = 0; i < batch_rank; ++i) b *= batch_dims[i];
    return b;
}

std::optional<int64_t> GemmProblem::linear_batch_stride(bool operand_b) const {
    const int64_t* strides = operand_b ? b_batch_stride : a_batch_stride;
    int64_t matrix = operand_b ? k * n : m * k;
    bool all_zero = true, contiguous = true;
    int64_t expect = matrix;
    for (int i = batch_rank - 1; i >= 0; --i) {
        if (batch_dims[i] == 1) continue;  // a dim of 1 never steps, whatever its stride
        all_zero = all_zero && strides[i] == 0;
        contiguous = contiguous && strides[i] == expect;
        expect *= batch_dims[i];
    }
    if (all_zero) return 0;
    if (contiguous) return matrix;
    return std::nullopt;
}

std::string GemmProblem::str() const {
    std::string dims;
    for (int i = 0; i < batch_rank; ++i) dims += fmt::format("{}{}", i ? "," : "", batch_dims[i]);
    return fmt::format("m={} n={} k={} batch=[{}] transA={} transB={} alpha={} beta={} C={} bias={} act={} {}", m, n, k,
                       dims, trans_a, trans_b, alpha, beta, static_cast<int>(c), has_bias, act.kind,
                       out_dtype == dtype ? std::string(dtype_name(dtype))
                                          : fmt::format("{}->{}", dtype_name(dtype), dtype_name(out_dtype)));
}

std::string gemm_problem(const StepDesc& desc, GemmProblem& out) {
    GemmProblem p;
    if (desc.inputs.size() < 2 || desc.outputs.size() != 1) return "needs two inputs and one output";
    p.dtype = desc.inputs[0].dtype;
    p.out_dtype = desc.outputs[0].dtype;
    const bool widened = p.out_dtype == DType::f32 && (p.dtype == DType::f16 || p.dtype == DType::bf16);
    if (!is_float_dtype(p.dtype) || desc.inputs[1].dtype != p.dtype || (p.out_dtype != p.dtype && !widened))
        return "dtypes differ (A and B must match, Y match them or be float32) or are not float";
    for (const auto* list : {&desc.inputs, &desc.outputs})
        for (const TensorDesc& t : *list)
            if (t.present && !row_major(t)) return fmt::format("channels-last operand {}", t.str());
    std::string why;
    switch (desc.node->op) {
        case ir::OpKind::FullyConnected:
            why = fully_connected(desc, p);
            break;
        case ir::OpKind::Gemm:
            why = gemm(desc, p);
            break;
        case ir::OpKind::MatMul:
            why = matmul(desc, p);
            break;
        default:
            return "not a MatMul, Gemm or FullyConnected";
    }
    if (!why.empty()) return why;
    if (desc.outputs[0].numel() != p.batch() * p.m * p.n) return "output size does not fit";
    out = p;
    return {};
}

}  // namespace strata::cuda
