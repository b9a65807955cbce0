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
// Off unless STRATA_PDL=1 while the mechanism has not yet been measured on a GPU; kernels without a PDL path always
// launch plainly, and on devices before sm_90 the attribute is never set.
#pragma once

#include <cstdlib>
#include <string>

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

}  // namespace strata::cuda
