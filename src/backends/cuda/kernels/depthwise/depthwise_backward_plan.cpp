// depthwise_backward_plan.cpp: see depthwise_backward_plan.h.
#include "backends/cuda/kernels/depthwise/depthwise_backward_plan.h"

#include <algorithm>
#include <initializer_list>

namespace strata::cuda {

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

// The smallest power of two >= `count`, at most `most`.
int pow2_at_least(int64_t count, int most) {
    int v = 1;
    while (v < most && v < count) v *= 2;
    return v;
}

// Channels per 16-byte load: only with multiplier 1 (a thread's channels of X and dY then coincide), C a multiple of
// it, channels contiguous, the other strides multiples of it and every pointer 16-byte aligned; else 1.
int dw_vector_width(const DepthwiseBackwardParams& p, size_t elem_bytes, std::initializer_list<const void*> ptrs) {
    if (elem_bytes == 0 || elem_bytes > 16 || 16 % elem_bytes != 0) return 1;
    const int v = static_cast<int>(16 / elem_bytes);
    if (p.multiplier() != 1 || p.g.c % v != 0 || !dw_channels_contiguous(p)) return 1;
    for (int d : {0, 2, 3})
        if (p.x_stride[d] % v != 0 || p.y_stride[d] % v != 0) return 1;
    for (const void* ptr : ptrs)
        if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0) return 1;
    return v;
}

}  // namespace

bool dw_channels_contiguous(const DepthwiseBackwardParams& p) {
    return p.g.c > 1 && p.x_stride[1] == 1 && p.y_stride[1] == 1;
}

DwDgradPlan dw_dgrad_plan(const DepthwiseBackwardParams& p, size_t elem_bytes) {
    const ConvGeometry& g = p.g;
    DwDgradPlan plan;
    if (dw_channels_contiguous(p)) {
        const int v = dw_vector_width(p, elem_bytes, {p.dy, p.dx});
        const int64_t vectors = ceil_div(g.c, v);
        const int64_t k_per_lane = int64_t{v} * p.multiplier();
        auto smem = [&](int lanes) {
            return static_cast<size_t>(int64_t{g.r} * g.s * lanes * k_per_lane) * sizeof(float);
        };
        int lanes = pow2_at_least(vectors, 32);
        while (lanes > 1 && smem(lanes) > kDwMaxSmemBytes) lanes /= 2;
        // A filter too large for shared memory even at one lane (over 12288 taps) takes the planes mapping below.
        if (smem(lanes) <= kDwMaxSmemBytes) {
            plan.mapping = DwMapping::channels;
            plan.vector = v;
            plan.lanes = lanes;
            plan.smem_bytes = smem(lanes);
            plan.grid_x = ceil_div(vectors, lanes);
            const int64_t pixels = int64_t{g.n} * g.h * g.w;
            const int64_t per_tile = std::max<int64_t>(1, kDwDgradTargetBlocks / plan.grid_x);
            plan.grid_y = std::clamp<int64_t>(std::min(ceil_div(pixels, kDwThreads / lanes), per_tile), 1, kDwMaxGridY);
            return plan;
        }
    }
    const int64_t hw = int64_t{g.h} * g.w;
    plan.mapping = DwMapping::planes;
    plan.lanes = 32;
    while (plan.lanes < kDwThreads && plan.lanes < hw) plan.lanes *= 2;
    plan.grid_x = ceil_div(int64_t{g.n} * g.c, kDwThreads / plan.lanes);
    plan.grid_y = std::clamp<int64_t>(ceil_div(hw, plan.lanes), 1, kDwMaxGridY);
    return plan;
}

DwWgradPlan dw_wgrad_plan(const DepthwiseBackwardParams& p, size_t elem_bytes) {
    const ConvGeometry& g = p.g;
    DwWgradPlan plan;
    const bool channels = dw_channels_contiguous(p);
    // Slices first, from the geometry and the mapping alone: about kDwWgradTargetBlocks stage-1 blocks, estimated
    // with 128 channels per channels-mapping block, each slice keeping at least kDwWgradMinSlicePixels pixels.
    plan.rows = int64_t{g.n} * g.p;
    const int64_t pixels = plan.rows * g.q;
    if (pixels > 0) {
        const int64_t per_slice = (channels ? ceil_div(g.k, 128) : g.k) * g.r * ceil_div(g.s, 8);
        const int64_t want = ceil_div(kDwWgradTargetBlocks, per_slice);
        const int64_t most = std::max<int64_t>(1, pixels / kDwWgradMinSlicePixels);
        const int64_t slices = std::max<int64_t>(1, std::min({want, most, plan.rows}));
        plan.rows_per_slice = ceil_div(plan.rows, slices);
        plan.slices = ceil_div(plan.rows, plan.rows_per_slice);
    }
    plan.mapping = channels ? DwMapping::channels : DwMapping::planes;
    if (channels) {
        plan.vector = dw_vector_width(p, elem_bytes, {p.x, p.dy});
        const int64_t vectors = ceil_div(g.k, plan.vector);
        plan.lanes = pow2_at_least(vectors, 32);
        plan.k_tiles = ceil_div(vectors, plan.lanes);
    } else {
        plan.k_tiles = g.k;
    }
    plan.s_chunk = dw_wgrad_s_chunk(plan.vector);
    plan.s_chunks = static_cast<int>(ceil_div(g.s, plan.s_chunk));
    plan.stage1_blocks = plan.slices * plan.k_tiles * g.r * plan.s_chunks;
    return plan;
}

}  // namespace strata::cuda
