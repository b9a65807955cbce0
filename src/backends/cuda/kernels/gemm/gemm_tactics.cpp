// gemm_tactics.cpp: the tactics of strata's tiled GEMM (gemm.cu): `cuda.matmul`, `cuda.gemm` and `cuda.gemm.fc`.
#include <fmt/format.h>

#include "backends/cuda/kernels/gemm/gemm_problem.h"
#include "core/check.h"

namespace strata::cuda {

namespace {
constexpr int64_t kMaxGridYZ = 65535;

std::string tiled_can_implement(const StepDesc& desc, int /*config*/) {
    GemmProblem p;
    if (auto why = gemm_problem(desc, p); !why.empty()) return why;
    if ((p.m + 63) / 64 > kMaxGridYZ) return fmt::format("m = {} needs more than {} row blocks", p.m, kMaxGridYZ);
    if (p.batch() > kMaxGridYZ) return fmt::format("batch {} > {}", p.batch(), kMaxGridYZ);
    return {};
}

class GemmTiledKernel final : public CudaKernel {
public:
    explicit GemmTiledKernel(const StepDesc& desc) {
        std::string why = tiled_can_implement(desc, 0);
        STRATA_CHECK(why.empty(), StatusCode::unsupported, "unsupported: tiled GEMM on {}: {}", desc.name, why);
        gemm_problem(desc, problem_);
    }
    std::string detail() const override { return problem_.str(); }
    void launch(const StepBuffers& b, cudaStream_t stream) override {
        const void* c = problem_.c != GemmC::none ? b.inputs[2] : nullptr;
        const float* bias = problem_.has_bias ? static_cast<const float*>(b.inputs[2]) : nullptr;
        gemm_tiled_launch(problem_, b.inputs[0], b.inputs[1], c, bias, b.outputs[0], stream);
    }

private:
    GemmProblem problem_;
};

std::unique_ptr<CudaKernel> make_tiled(const StepDesc& desc, int /*config*/) {
    return std::make_unique<GemmTiledKernel>(desc);
}
}  // namespace

void register_gemm_tactics(CudaTacticRegistry& registry) {
    for (auto [name, op] : {std::pair{"cuda.matmul", ir::OpKind::MatMul}, std::pair{"cuda.gemm", ir::OpKind::Gemm},
                            std::pair{"cuda.gemm.fc", ir::OpKind::FullyConnected}})
        registry.add(CudaTactic{.name = name, .op = op, .can_implement = tiled_can_implement, .make = make_tiled});
}

}  // namespace strata::cuda
