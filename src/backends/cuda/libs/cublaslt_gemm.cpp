// cublaslt_gemm.cpp: the cuBLASLt tactics `cublaslt.fc` (FullyConnected), `cublaslt.matmul` (MatMul) and
// `cublaslt.gemm` (Gemm), all from one GemmProblem (kernels/gemm/gemm_problem.h). A config is the index of one of
// the first kConfigs results of cublasLtMatmulAlgoGetHeuristic, asked again (same inputs, same answer) in make().
//
// cuBLASLt is column-major: row-major Y [m, n] is column-major D [n, m] = op(B)^T-side first, so the library's "A"
// is our B and its "B" our A (D = B^T A^T read column-major). A bias per column of Y is then a bias per row of D,
// which is what cuBLASLt's BIAS epilogue adds; it is used where D is fp32 (the bias has D's type, and ours is
// float32), and strata's in-place epilogue does the rest. A and B may be fp16/bf16 with C and D fp32 (compute 32F).
// Batches must be one strided batch per operand (0 = broadcast). Assumes every buffer is 16-byte aligned (the heuristic
// is told so, and the batch strides' own alignment).
#include <fmt/format.h>

#include <limits>

#include "backends/cuda/kernels/gemm/gemm_problem.h"
#include "backends/cuda/libs/cublaslt_loader.h"
#include "backends/cuda/libs/lib_epilogue.h"
#include "backends/cuda/libs/lib_tactics.h"
#include "backends/cuda/libs/warm_up.h"
#include "core/check.h"

namespace strata::cuda::libs {

namespace {
constexpr int kConfigs = 4;
constexpr size_t kMaxWorkspace = size_t{32} << 20;

const CublasLtApi& api() {
    return *cublaslt_api();
}
int device_of(const StepDesc& desc) {
    return desc.device ? desc.device->index : 0;
}

cudaDataType_t data_type(DType t) {
    return t == DType::f16 ? CUDA_R_16F : t == DType::bf16 ? CUDA_R_16BF : CUDA_R_32F;
}

// The cuBLASLt epilogue that matches the problem's bias and activation, if any does (fp32 D only, see above).
cublasLtEpilogue_t fused_epilogue(const GemmProblem& p) {
    bool relu = p.act.kind == static_cast<int>(ir::UnaryKind::Relu);
    if (p.out_dtype != DType::f32 || (p.act.kind >= 0 && !relu)) return CUBLASLT_EPILOGUE_DEFAULT;
    if (p.has_bias) return relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
    return relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_DEFAULT;
}

// The largest power of two <= 16 dividing `bytes` (16 for 0): the alignment of every matrix of a batch.
uint32_t alignment(int64_t bytes) {
    uint32_t a = 16;
    while (a > 1 && bytes % a != 0) a /= 2;
    return a;
}

// Everything cuBLASLt needs to describe one problem, owned (destroyed in reverse).
struct LtDescriptors {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;  // cuBLASLt's A (our B), B (our A)
    cublasLtMatmulPreference_t pref = nullptr;

    LtDescriptors(const GemmProblem& p, bool allow_tf32) {
        try {
            init(p, allow_tf32);
        } catch (...) {
            release();
            throw;
        }
    }
    ~LtDescriptors() { release(); }
    LtDescriptors(const LtDescriptors&) = delete;
    LtDescriptors& operator=(const LtDescriptors&) = delete;

private:
    void init(const GemmProblem& p, bool allow_tf32);
    void layout(cublasLtMatrixLayout_t& l, const GemmProblem& p, DType dtype, uint64_t rows, uint64_t cols, int64_t ld,
                int64_t batch_stride);
    void release() {
        const CublasLtApi* x = cublaslt_api();
        if (!x) return;
        if (pref) x->cublasLtMatmulPreferenceDestroy(pref);
        for (auto l : {d, c, b, a})
            if (l) x->cublasLtMatrixLayoutDestroy(l);
        if (op) x->cublasLtMatmulDescDestroy(op);
    }
};

template <class V>
void set_desc(cublasLtMatmulDesc_t op, cublasLtMatmulDescAttributes_t attr, V value, const char* what) {
    STRATA_CUBLASLT_CHECK(api(), cublasLtMatmulDescSetAttribute(op, attr, &value, sizeof(value)), what);
}

void LtDescriptors::layout(cublasLtMatrixLayout_t& l, const GemmProblem& p, DType dtype, uint64_t rows, uint64_t cols,
                           int64_t ld, int64_t batch_stride) {
    const char* what = "cuBLASLt matrix layout";
    STRATA_CUBLASLT_CHECK(api(), cublasLtMatrixLayoutCreate(&l, data_type(dtype), rows, cols, ld), what);
    if (p.batch() <= 1) return;
    int32_t count = static_cast<int32_t>(p.batch());
    STRATA_CUBLASLT_CHECK(
        api(), cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)), what);
    STRATA_CUBLASLT_CHECK(api(),
                          cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                           &batch_stride, sizeof(batch_stride)),
                          what);
}

void LtDescriptors::init(const GemmProblem& p, bool allow_tf32) {
    cublasComputeType_t compute =
        p.dtype == DType::f32 && allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    STRATA_CUBLASLT_CHECK(api(), cublasLtMatmulDescCreate(&op, compute, CUDA_R_32F), "cuBLASLt matmul descriptor");
    set_desc(op, CUBLASLT_MATMUL_DESC_TRANSA, p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, "cuBLASLt transA");
    set_desc(op, CUBLASLT_MATMUL_DESC_TRANSB, p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, "cuBLASLt transB");
    set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE, fused_epilogue(p), "cuBLASLt epilogue");

    int64_t stride_b = p.linear_batch_stride(true).value_or(0), stride_a = p.linear_batch_stride(false).value_or(0);
    if (p.trans_b)
        layout(a, p, p.dtype, p.k, p.n, p.k, stride_b);
    else
        layout(a, p, p.dtype, p.n, p.k, p.n, stride_b);
    if (p.trans_a)
        layout(b, p, p.dtype, p.m, p.k, p.m, stride_a);
    else
        layout(b, p, p.dtype, p.k, p.m, p.k, stride_a);
    layout(c, p, p.out_dtype, p.n, p.m, p.n, p.m * p.n);
    layout(d, p, p.out_dtype, p.n, p.m, p.n, p.m * p.n);

    const char* what = "cuBLASLt preference";
    STRATA_CUBLASLT_CHECK(api(), cublasLtMatmulPreferenceCreate(&pref), what);
    uint64_t workspace = kMaxWorkspace;
    STRATA_CUBLASLT_CHECK(api(),
                          cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                               &workspace, sizeof(workspace)),
                          what);
    const int64_t esize = static_cast<int64_t>(dtype_size(p.dtype)), out_esize = dtype_size(p.out_dtype);
    int64_t stride_y = p.batch() > 1 ? p.m * p.n : 0;  // one product: only the (16-byte aligned) base pointer counts
    std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> aligns[] = {
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment(stride_b * esize)},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment(stride_a * esize)},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignment(stride_y * out_esize)},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment(stride_y * out_esize)}};
    for (auto [attr, bytes] : aligns)
        STRATA_CUBLASLT_CHECK(api(), cublasLtMatmulPreferenceSetAttribute(pref, attr, &bytes, sizeof(bytes)), what);
    // NOTE [cuBLASLt partial sums in float32]
    // A split-K algorithm whose reduction is INPLACE or OUTPUT_TYPE adds its partial dot products in the output type:
    // with fp16/bf16 outputs each partial sum is rounded to 8 or 11 bits before the next is added, which strata's own
    // GEMMs never do (float32 accumulation to the end). On 2026-12-06 (H100) heuristic #2 of a bf16 FullyConnected
    // N27 K38 M140 + Tanh missed the reference by 1.1e-2 of max |y|, where rounding the float32 result to bf16 before
    // and after the Tanh can cost at most 2.8e-3. So 16-bit outputs allow only reductions in the compute type.
    if (p.out_dtype != DType::f32) {
        uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;  // NONE (no split-K) is always allowed
        STRATA_CUBLASLT_CHECK(api(),
                              cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                                                   &schemes, sizeof(schemes)),
                              what);
    }
}

// "split-K 3, partial sums in the compute type" (or "no split-K"): where a heuristic result adds its partial sums.
std::string split_k_str(const cublasLtMatmulAlgo_t& algo) {
    int32_t splits = 1;
    uint32_t scheme = CUBLASLT_REDUCTION_SCHEME_NONE;
    size_t written = 0;
    const char* what = "cuBLASLt algorithm config";
    STRATA_CUBLASLT_CHECK(api(),
                          cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits,
                                                               sizeof(splits), &written),
                          what);
    STRATA_CUBLASLT_CHECK(api(),
                          cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme,
                                                               sizeof(scheme), &written),
                          what);
    if (splits <= 1) return "no split-K";
    const char* where = scheme == CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE ? "the compute type"
                        : scheme == CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE ? "the output type"
                        : scheme == CUBLASLT_REDUCTION_SCHEME_INPLACE     ? "the output buffer (output type)"
                                                                          : "one sequence";
    return fmt::format("split-K {}, partial sums in {}", splits, where);
}

// Up to kConfigs algorithms for the problem, best first by cuBLASLt's heuristic (empty when it has none).
std::vector<cublasLtMatmulHeuristicResult_t> heuristics(cublasLtHandle_t handle, const LtDescriptors& d) {
    cublasLtMatmulHeuristicResult_t results[kConfigs] = {};
    int returned = 0;
    cublasStatus_t status =
        api().cublasLtMatmulAlgoGetHeuristic(handle, d.op, d.a, d.b, d.c, d.d, d.pref, kConfigs, results, &returned);
    std::vector<cublasLtMatmulHeuristicResult_t> found;
    if (status != CUBLAS_STATUS_SUCCESS) return found;  // NOT_SUPPORTED: no algorithm for this problem
    for (int i = 0; i < returned; ++i)
        if (results[i].state == CUBLAS_STATUS_SUCCESS) found.push_back(results[i]);
    return found;
}

std::string lt_unsupported(const StepDesc& desc, GemmProblem& p) {
    if (auto r = cublaslt_unavailable(); !r.empty()) return r;
    if (auto r = gemm_problem(desc, p); !r.empty()) return r;
    if (!p.linear_batch_stride(false) || !p.linear_batch_stride(true))
        return "batch broadcast is not one strided batch per operand";
    if (p.batch() > std::numeric_limits<int32_t>::max()) return "batch > 2^31";
    return {};
}

std::string lt_can_implement(const StepDesc& desc, int config) {
    GemmProblem p;
    if (auto r = lt_unsupported(desc, p); !r.empty()) return r;
    size_t count = 0;
    try {
        LtDescriptors d(p, desc.allow_tf32);
        count = heuristics(cublaslt_handle(device_of(desc)), d).size();
    } catch (const Error& e) {
        return e.what();
    }
    if (static_cast<size_t>(config) >= count)
        return fmt::format("cuBLASLt's heuristic has {} algorithm(s) for {}", count, p.str());
    return {};
}

class LtGemmKernel final : public CudaKernel {
public:
    LtGemmKernel(const StepDesc& desc, int config) : name_(desc.name) {
        std::string why = lt_unsupported(desc, problem_);
        STRATA_CHECK(why.empty(), StatusCode::unsupported, "unsupported: cuBLASLt on {}: {}", desc.name, why);
        descriptors_ = std::make_unique<LtDescriptors>(problem_, desc.allow_tf32);
        handle_ = cublaslt_handle(device_of(desc));
        auto found = heuristics(handle_, *descriptors_);
        STRATA_CHECK(static_cast<size_t>(config) < found.size(), StatusCode::unsupported,
                     "unsupported: cuBLASLt config {} on {}: the heuristic has {} algorithm(s)", config, desc.name,
                     found.size());
        algo_ = found[config];
        epilogue_ = fused_epilogue(problem_);
        bool fused_bias = epilogue_ == CUBLASLT_EPILOGUE_BIAS || epilogue_ == CUBLASLT_EPILOGUE_RELU_BIAS;
        own_bias_ = problem_.has_bias && !fused_bias;
        if (epilogue_ == CUBLASLT_EPILOGUE_DEFAULT) own_act_ = problem_.act;
    }

    size_t workspace_bytes() const override { return algo_.workspaceSize; }
    std::string detail() const override {
        return fmt::format("{} (heuristic result, {}, {} bytes workspace)", problem_.str(), split_k_str(algo_.algo),
                           algo_.workspaceSize);
    }

    void launch(const StepBuffers& b, cudaStream_t stream) override {
        const GemmProblem& p = problem_;
        const LtDescriptors& d = *descriptors_;
        if (epilogue_ == CUBLASLT_EPILOGUE_BIAS || epilogue_ == CUBLASLT_EPILOGUE_RELU_BIAS)
            set_desc(d.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, b.inputs[2], "cuBLASLt bias pointer");
        const float alpha = p.alpha, beta = p.c == GemmC::full ? p.beta : 0.0f;
        const void* c = p.c == GemmC::full ? b.inputs[2] : b.outputs[0];
        STRATA_CUBLASLT_CHECK(api(),
                              cublasLtMatmul(handle_, d.op, &alpha, b.inputs[1], d.a, b.inputs[0], d.b, &beta, c, d.c,
                                             b.outputs[0], d.d, &algo_.algo, b.workspace, algo_.workspaceSize, stream),
                              name_);
        if (p.c == GemmC::broadcast)
            launch_add_broadcast(p.out_dtype, b.outputs[0], b.inputs[2], p.beta, p.m, p.n, p.c_row, p.c_col, stream);
        EpilogueParams ep;
        ep.bias = own_bias_ ? static_cast<const float*>(b.inputs[2]) : nullptr;
        ep.act = own_act_;
        launch_epilogue(p.out_dtype, b.outputs[0], ep, {p.batch() * p.m * p.n, p.n, 1}, stream);
    }

private:
    std::string name_;
    GemmProblem problem_;
    std::unique_ptr<LtDescriptors> descriptors_;
    cublasLtHandle_t handle_ = nullptr;
    cublasLtMatmulHeuristicResult_t algo_ = {};
    cublasLtEpilogue_t epilogue_ = CUBLASLT_EPILOGUE_DEFAULT;
    bool own_bias_ = false;
    ActivationParams own_act_;
};

std::unique_ptr<CudaKernel> make_lt(const StepDesc& desc, int config) {
    auto kernel = std::make_unique<LtGemmKernel>(desc, config);
    warm_up(*kernel, desc);
    return kernel;
}

std::string lt_config_name(int config) {
    return fmt::format("heuristic #{}", config);
}
}  // namespace

void register_cublaslt_tactics(CudaTacticRegistry& registry) {
    for (auto [name, op] :
         {std::pair{"cublaslt.fc", ir::OpKind::FullyConnected}, std::pair{"cublaslt.matmul", ir::OpKind::MatMul},
          std::pair{"cublaslt.gemm", ir::OpKind::Gemm}})
        registry.add(CudaTactic{.name = name,
                                .op = op,
                                .num_configs = kConfigs,
                                .can_implement = lt_can_implement,
                                .make = make_lt,
                                .config_name = lt_config_name,
                                .from_library = true});
}

}  // namespace strata::cuda::libs
