// depthwise_tactic.cpp: the tactic cuda.conv.depthwise: strata's depthwise kernels (depthwise.h) for every Conv
// with group == C. Config 0 lets the kernel pick its tile from the shape (select_depthwise_tile); configs 1..8 force
// the strip (rows 1/2/4/8 x narrow/wide columns) of the tiled kernels so that the builder's timing can check the
// selector; configs 9-12 run the staged NHWC kernel with 32 or 8 lanes on channels, one block per tile or persistent
// blocks (NOTE [depthwise staged tile]); configs 13-16 the tiled NHWC kernel with its rows through a cp.async ring
// (NOTE [depthwise async rows]), strips of 4 or 8 rows, one or two columns; configs 17-18 that kernel with strips of
// 16 rows (a 14-row map in one strip: its 5x5 walk then reads 18 input rows for 14 outputs, not 22), appended so
// that the timing caches' config numbers keep their meaning; config 19 the selector's tile in blocks small enough to
// give every SM one (NOTE [depthwise blocks for every SM]); configs 20-22 strips of 4, 8 or 16 rows and two columns in
// 8-byte vectors with the taps in registers (NOTE [depthwise register taps]). 19-22 ran on the H100 on 2026-12-06
// (tests, memcheck and racecheck clean; fp16 geometric mean over cuDNN 1.44 -> 1.56) and compete like the others.
// Configs 23-26: the staged kernel with blocked walkers (NOTE [depthwise blocked walkers]), 32 or 8 lanes on
// channels, one block per tile or persistent; fp32 and fp16, 3x3 and 5x5, clamp epilogues. They ran behind the
// unverified gate on an H100 on 2026-12-07 (tests and memcheck clean; batch 128 x0.93 against the build without
// them, 5x5 fp32 x0.68-0.79) before it came off.
// Configs 27-28: configs 23-24 with two accumulator chains per output (NOTE [depthwise two chains]). They ran behind
// the unverified gate on an H100 on 2026-12-07 (tests, memcheck and racecheck clean; 5x5 at batch 32-128 x0.93-0.98
// against the build without them) before it came off.
// Configs 29-30: configs 27-28 with the tile copied by the tensor memory accelerator (NOTE [depthwise tma tile]; sm_90
// and later). They ran behind the unverified gate on an H100 on 2026-12-07 (tests, memcheck and racecheck clean; 5x5
// at batch 128 x0.82-0.94 in fp16 and fp32 against 06e36a6's build, d984028's trims included) before it came off.
// Configs 31-32: configs 29-30 with tiles of up to kDepthwiseWideTileBudget (NOTE [depthwise wide tma tile]). They
// ran behind the unverified gate on an H100 on 2026-12-07 (tests, memcheck and racecheck clean; 5x5 at batch 32-128
// x0.95-0.98 in fp16, 144x56k5s2 fp32 x0.84-0.87 against the build without them) before it came off.
// detail() names the tile, so `strata profile` shows the choice.
#include <fmt/format.h>

#include "backends/cuda/kernels/conv/conv_tactics.h"
#include "backends/cuda/kernels/depthwise/depthwise.h"
#include "backends/cuda/pdl.h"
#include "core/check.h"

namespace strata::cuda {

namespace {

constexpr int kStripRows[] = {1, 2, 4, 8};
constexpr int kFirstStaged = 1 + 2 * 4;
constexpr int kStagedLanes[] = {32, 8, 32, 8};
constexpr bool kStagedPersistent[] = {false, false, true, true};
constexpr int kFirstAsync = kFirstStaged + 4;
constexpr int kAsyncRows[] = {4, 4, 8, 8, 16, 16};
constexpr bool kAsyncWide[] = {false, true, false, true, false, true};
constexpr int kFillingSms = kFirstAsync + 6;
constexpr int kFirstRegisterTaps = kFillingSms + 1;
constexpr int kRegisterTapsRows[] = {4, 8, 16};
constexpr int kFirstBlocked = kFirstRegisterTaps + 3;
constexpr int kFirstTwoChains = kFirstBlocked + 4;
constexpr int kTwoChainsLanes[] = {32, 8};
constexpr int kFirstTma = kFirstTwoChains + 2;
constexpr int kFirstWideTma = kFirstTma + 2;
constexpr int kNumConfigs = kFirstWideTma + 2;

DepthwiseParams depthwise_params(const StepDesc& desc) {
    DepthwiseParams prm;
    prm.g = conv_geometry(desc);
    prm.multiplier = prm.g.k / prm.g.c;
    conv_strides(desc.inputs[0], prm.x_stride);
    conv_strides(desc.inputs[1], prm.w_stride);
    conv_strides(desc.outputs[0], prm.y_stride);
    return prm;
}

/// The tile of `config` for the step; false when that config does not apply to it.
bool depthwise_tile(const StepDesc& desc, const DepthwiseParams& prm, int config, DepthwiseTile& tile) {
    const int sms = desc.device && desc.device->sm_count > 0 ? desc.device->sm_count : 132;
    if (config >= kFirstTwoChains) {
        const int i = (config - kFirstTwoChains) % 2;
        const size_t budget = config >= kFirstWideTma ? kDepthwiseWideTileBudget : kDepthwiseStagedTileBudget;
        if (!desc.outputs[0].channels_last() ||
            !block_depthwise_tile(tile, prm, desc.outputs[0].dtype, sms, kTwoChainsLanes[i], false, budget))
            return false;
        tile.chains = 2;
        tile.tma = config >= kFirstTma;
        return true;
    }
    if (config >= kFirstBlocked) {
        const int i = config - kFirstBlocked;
        return desc.outputs[0].channels_last() &&
               block_depthwise_tile(tile, prm, desc.outputs[0].dtype, sms, kStagedLanes[i], kStagedPersistent[i]);
    }
    if (config >= kFirstRegisterTaps) {
        tile = select_depthwise_tile(prm, desc.outputs[0].dtype, desc.outputs[0].channels_last(), sms);
        return make_depthwise_register_taps(tile, prm, desc.outputs[0].dtype,
                                            kRegisterTapsRows[config - kFirstRegisterTaps]);
    }
    if (config == kFillingSms) {
        tile = select_depthwise_tile(prm, desc.outputs[0].dtype, desc.outputs[0].channels_last(), sms);
        return fill_sms_with_blocks(tile, prm, sms);
    }
    if (config >= kFirstAsync) {
        const int i = config - kFirstAsync;
        const size_t optin = desc.device && desc.device->smem_per_block_optin > 0 ? desc.device->smem_per_block_optin
                                                                                  : 227 * 1024;
        tile = select_depthwise_tile(prm, desc.outputs[0].dtype, desc.outputs[0].channels_last(), sms);
        return force_depthwise_strip(tile, prm, kAsyncRows[i], kAsyncWide[i]) &&
               make_depthwise_async(tile, prm, desc.outputs[0].dtype, optin);
    }
    if (config >= kFirstStaged)
        return desc.outputs[0].channels_last() &&
               stage_depthwise_tile(tile, prm, desc.outputs[0].dtype, sms, kStagedLanes[config - kFirstStaged],
                                    kStagedPersistent[config - kFirstStaged]);
    tile = select_depthwise_tile(prm, desc.outputs[0].dtype, desc.outputs[0].channels_last(), sms);
    if (config == 0) return true;
    return force_depthwise_strip(tile, prm, kStripRows[(config - 1) / 2], (config - 1) % 2 == 1);
}

std::string depthwise_can_implement(const StepDesc& desc, int config) {
    if (desc.inputs[0].rank() != 3 && desc.inputs[0].rank() != 4) return "only 1-D and 2-D convolutions";
    if (std::string p = conv_dtype_problem(desc); !p.empty()) return p;
    const DepthwiseParams prm = depthwise_params(desc);
    if (std::string p = depthwise_problem(prm.g); !p.empty()) return p;
    if (config >= kFirstTma && desc.device && desc.device->compute_capability() < 90)
        return "the tensor memory accelerator needs sm_90 or later";
    if (config >= kFirstBlocked) {
        if (!clamp_activation(activation_params(desc.attr<ir::ConvAttrs>().activation)))
            return "the blocked staged kernel is compiled for clamp activations only (none, ReLU, ReLU6)";
    }
    DepthwiseTile tile;
    if (!depthwise_tile(desc, prm, config, tile))
        return config >= kFirstBlocked
                   ? "the blocked staged kernel needs NHWC, fp32 or fp16, k 3 or 5, stride 1/2, no dilation, "
                     "multiplier 1, C a multiple of 16 bytes"
               : config >= kFirstRegisterTaps
                   ? "the register-taps strips need the tiled NHWC kernel, fp32 or fp16, 3x3 or 5x5, and C a multiple "
                     "of 8 bytes"
               : config == kFillingSms ? "the selector's tile fills every SM with blocks already (or is not tiled NHWC)"
               : config >= kFirstAsync
                   ? "the async-row strips need the tiled NHWC kernel with 16-byte vectors (C a multiple of 16 bytes), "
                     "a strip that fits its registers and a ring that fits shared memory"
               : config >= kFirstStaged
                   ? "the staged kernel needs NHWC, k 3/5/7, stride 1/2, no dilation, multiplier 1, C a multiple of 16 "
                     "bytes"
                   : "this strip needs the tiled kernels (k 3/5/7, stride 1/2, no dilation, multiplier 1) and few "
                     "registers";
    return {};
}

std::string depthwise_config_name(int config) {
    if (config == 0) return "auto";
    if (config >= kFirstTwoChains)
        return fmt::format("staged blocked lanes{} two chains{}", kTwoChainsLanes[(config - kFirstTwoChains) % 2],
                           config >= kFirstWideTma ? " tma wide tile" : config >= kFirstTma ? " tma" : "");
    if (config >= kFirstBlocked)
        return fmt::format("staged blocked lanes{}{}", kStagedLanes[config - kFirstBlocked],
                           kStagedPersistent[config - kFirstBlocked] ? " persistent" : "");
    if (config >= kFirstRegisterTaps)
        return fmt::format("register taps rows{}", kRegisterTapsRows[config - kFirstRegisterTaps]);
    if (config == kFillingSms) return "auto, blocks for every SM";
    if (config >= kFirstAsync)
        return fmt::format("async rows{} {}", kAsyncRows[config - kFirstAsync],
                           kAsyncWide[config - kFirstAsync] ? "wide" : "narrow");
    if (config >= kFirstStaged)
        return fmt::format("staged lanes{}{}", kStagedLanes[config - kFirstStaged],
                           kStagedPersistent[config - kFirstStaged] ? " persistent" : "");
    return fmt::format("rows{} {}", kStripRows[(config - 1) / 2], (config - 1) % 2 ? "wide" : "narrow");
}

class DepthwiseKernel final : public CudaKernel {
public:
    DepthwiseKernel(const StepDesc& desc, int config)
        : desc_(desc), params_(depthwise_params(desc)), dtype_(desc.outputs[0].dtype) {
        STRATA_ASSERT(depthwise_tile(desc, params_, config, tile_), "{}: depthwise config {} does not apply", desc.name,
                      config);
        params_.pdl = use_pdl(desc.device) && tile_.kind != DepthwiseKernelKind::generic;
    }

    void launch(const StepBuffers& buffers, cudaStream_t stream) override {
        DepthwiseParams prm = params_;
        prm.x = buffers.inputs[0];
        prm.w = buffers.inputs[1];
        prm.y = buffers.outputs[0];
        prm.epilogue = conv_epilogue(desc_, buffers);
        depthwise_forward_launch(prm, tile_, dtype_, stream);
    }

    std::string detail() const override {
        std::string d = tile_.str();
        if (depthwise_one_row(params_.g, tile_, static_cast<int>(dtype_size(dtype_)))) d += ", one-row kernel";
        return params_.pdl ? d + ", pdl" : d;
    }

private:
    StepDesc desc_;
    DepthwiseParams params_;
    DType dtype_;
    DepthwiseTile tile_;
};

std::unique_ptr<CudaKernel> make_depthwise(const StepDesc& desc, int config) {
    return std::make_unique<DepthwiseKernel>(desc, config);
}

}  // namespace

CudaTactic depthwise_conv_tactic() {
    return CudaTactic{.name = "cuda.conv.depthwise",
                      .op = ir::OpKind::Conv,
                      .num_configs = kNumConfigs,
                      .can_implement = depthwise_can_implement,
                      .make = make_depthwise,
                      .config_name = depthwise_config_name};
}

}  // namespace strata::cuda
