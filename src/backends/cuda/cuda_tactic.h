// cuda_tactic.h: the contract between the CUDA builder and every CUDA kernel family.
//
// A CudaTactic is one kernel family for one op (strata's implicit-GEMM convolution, cuDNN's convolution, the
// elementwise kernel, ...). It may come in several configurations (tile shapes, cuDNN algorithms): a candidate is a
// (tactic, config) pair. For each step the builder asks every candidate can_implement(), makes a CudaKernel of those
// that can, times them on the real shapes and writes the winner's name and config into the Plan. At run time the
// Engine makes the chosen kernel once per step (make()) and launches it on every run.
//
// Tensors arrive as TensorDesc (dtype, logical shape, physical layout) and raw device pointers. Constant inputs
// (weights) arrive on the device already in the step's dtype and layout, with these standard forms:
//   Conv / ConvTranspose weight: the compute dtype, logical [K, C/g, R, S] in the activations' layout (nhwc:
//   K, R, S, C/g); bias: float32 [K]. FullyConnected: W [M, K] in the compute dtype, bias float32 [M]. Any other
//   constant: the dtype and layout its TensorDesc says.
// Kernels never see the graph beyond their node (DESIGN.md: one direction, no back-edges).
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/device.h"
#include "backends/cuda/tensor_desc.h"
#include "ir/graph.h"

namespace strata::cuda {

/// Everything a kernel may know about its step, fixed at build time.
struct StepDesc {
    const ir::Node* node = nullptr;  ///< op and attributes; outlives every kernel made from this desc
    std::string name;                ///< the node's name, for error messages
    std::vector<TensorDesc> inputs;  ///< per node input (present == false where omitted)
    std::vector<TensorDesc> outputs;
    bool allow_tf32 = false;         ///< fp32 convolutions and GEMMs may use TF32 tensor cores
    const DeviceInfo* device = nullptr;

    template <class A> const A& attr() const { return node->attr<A>(); }
};

/// Device pointers for one launch, in the order of StepDesc::inputs / outputs (null where absent).
struct StepBuffers {
    std::vector<const void*> inputs;
    std::vector<void*> outputs;
    void* workspace = nullptr;  ///< workspace_bytes() of scratch, private to this step during the launch
};

/// One step's kernel, made once per Engine. launch() is captured into CUDA graphs: it may only enqueue work on
/// `stream` (no allocation, no synchronisation, no host reads of device memory). Every launch is checked by the
/// caller (check_launch) after launch() returns.
class CudaKernel {
public:
    virtual ~CudaKernel() = default;
    virtual size_t workspace_bytes() const { return 0; }
    virtual void launch(const StepBuffers& buffers, cudaStream_t stream) = 0;
    /// What was chosen inside the tactic (tile shape, algorithm), shown by `strata profile`; may be empty.
    virtual std::string detail() const { return {}; }
};

struct CudaTactic {
    std::string name;  ///< unique and stable, written into plans: "cuda.conv.implicit_gemm", "cudnn.conv"
    ir::OpKind op = ir::OpKind::Identity;
    int num_configs = 1;
    /// Empty when (desc, config) can run; otherwise why not ("groups > 1", "needs C % 8 == 0"). Null = always.
    std::string (*can_implement)(const StepDesc& desc, int config) = nullptr;
    /// Makes the kernel; may throw strata::Error (a library call failed). Called for each candidate at build time
    /// and for the chosen one when an Engine is made or loaded.
    std::unique_ptr<CudaKernel> (*make)(const StepDesc& desc, int config) = nullptr;
    /// A short name of a config for plans and profiles ("128x128x32 s3"); null = the number.
    std::string (*config_name)(int config) = nullptr;
    /// Library tactics that are only worth timing (cuDNN, cuBLASLt) set this; own kernels are always candidates.
    bool from_library = false;
};

class CudaTacticRegistry {
public:
    void add(CudaTactic tactic);
    std::vector<const CudaTactic*> candidates(ir::OpKind op) const;
    const CudaTactic* find(const std::string& name) const;
    /// Every family's tactics, registered once.
    static const CudaTacticRegistry& global();

private:
    std::vector<CudaTactic> tactics_;
};

/// A kernel that is one plain function: the common case for straightforward kernels. `Launch` receives the desc it
/// was made with.
using LaunchFn = void (*)(const StepDesc& desc, const StepBuffers& buffers, cudaStream_t stream);

class FunctionKernel final : public CudaKernel {
public:
    FunctionKernel(const StepDesc& desc, LaunchFn fn) : desc_(desc), fn_(fn) {}
    void launch(const StepBuffers& buffers, cudaStream_t stream) override { fn_(desc_, buffers, stream); }

private:
    StepDesc desc_;
    LaunchFn fn_;
};

/// `make` for a FunctionKernel tactic: CudaTactic{..., .make = make_function_kernel<my_launch>}.
template <LaunchFn Fn>
std::unique_ptr<CudaKernel> make_function_kernel(const StepDesc& desc, int /*config*/) {
    return std::make_unique<FunctionKernel>(desc, Fn);
}

// Each family registers its tactics in one function (explicit, no static initialisers); register.cpp calls them.
void register_conv_tactics(CudaTacticRegistry& registry);         // kernels/conv/: implicit GEMM, direct, depthwise
void register_memory_bound_tactics(CudaTacticRegistry& registry); // kernels/{elementwise,pool,softmax,data,...}
void register_library_tactics(CudaTacticRegistry& registry);      // libs/: cuDNN, cuBLASLt (when present)
void register_fused_tactics(CudaTacticRegistry& registry);        // kernels/fused/: SeparableConv

}  // namespace strata::cuda
