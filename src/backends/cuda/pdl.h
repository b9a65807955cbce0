// pdl.h: when strata's kernels launch with programmatic dependent launch (PDL, compute capability 9.0 and newer).
//
// NOTE [programmatic dependent launch]
// A kernel launched with cudaLaunchAttributeProgrammaticStreamSerialization may start while the kernel before it in
// the stream is still running (its blocks are scheduled once every block of the earlier grid has triggered
// launch_dependents or exited), so its launch latency and its prologue hide behind the earlier kernel's tail. At
// batch 1 a depthwise layer's whole kernel is a few microseconds and most of it is that latency (the anchors: 2-5 us
// per launch through cuDNN). The price is a rule every such kernel keeps: each thread runs pdl_wait()
// (griddepcontrol.wait: the earlier grids have completed and their memory is visible) before it reads anything an
// earlier kernel wrote and before it writes anything (its output buffer may be one the earlier kernel still reads:
// the memory plan reuses buffers), and no thread exits before it waited, so that this grid's completion still
// implies the earlier grid's for whatever comes after it. Only weights and biases, written once when the engine was
// made, are read before the wait. After the wait the kernel triggers launch_dependents at once, so a PDL kernel after
// it may be scheduled as soon as every block of this one is resident.
// Off unless STRATA_PDL=1, because it was measured to lose in networks (H200, 2026-12-01): in bench/depthwise_gpu's
// graphs of one kernel launched many times it took 0.82x the plain time (geometric mean over the 11 fp16 layers at
// batch 1 and at batch 8), but in whole networks it slowed batch 1 down: mobilenet_v2 0.2775 ms against 0.2700 ms,
// efficientnet_b0 0.7016 ms against 0.6704 ms.
// The likely reason, not yet checked: there a depthwise kernel's neighbours are plain launches, so nothing overlaps,
// and the graph only gains programmatic edges. If so, it pays only once most kernels of a network have a PDL path.
// Those with one: the tiled and staged depthwise kernels, the sm90 implicit GEMM and the narrow pointwise kernel
// (together most steps of mobilenet_v2's fp16 plan at batch 64); networks have not yet been measured with all of
// them. Kernels without a PDL path always launch plainly, and on devices before sm_90 the attribute is never set.
#pragma once

#include <cstdlib>
#include <string>

#include "backends/cuda/device.h"

namespace strata::cuda {

/// True when STRATA_PDL=1 asks for programmatic dependent launches.
inline bool pdl_requested() {
    const char* env = std::getenv("STRATA_PDL");
    return env && std::string(env) == "1";
}

/// Whether a kernel with a PDL path launches with it on a device of `compute_capability` (90 for sm_90).
inline bool use_pdl(int compute_capability) {
    return compute_capability >= 90 && pdl_requested();
}

/// The same for the device a step runs on; false when the step does not know its device.
inline bool use_pdl(const DeviceInfo* device) {
    return device && use_pdl(device->compute_capability());
}

}  // namespace strata::cuda
