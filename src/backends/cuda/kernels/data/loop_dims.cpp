// loop_dims.cpp: see loop_dims.h.
#include "backends/cuda/kernels/data/loop_dims.h"

#include <algorithm>

#include "core/check.h"

namespace strata::cuda {

int64_t LoopDims::numel() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= size[d];
    return n;
}

std::vector<int> memory_order(const TensorDesc& desc) {
    if (desc.channels_last()) return {0, 2, 3, 1};
    std::vector<int> order(desc.shape.size());
    for (size_t d = 0; d < order.size(); ++d) order[d] = static_cast<int>(d);
    return order;
}

Strides row_major_strides(const Shape& shape) {
    STRATA_ASSERT(shape.size() <= kMaxRank, "rank {} exceeds {}", shape.size(), kMaxRank);
    Strides s{};
    int64_t step = 1;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
        s[d] = step;
        step *= shape[d];
    }
    return s;
}

Strides broadcast_strides(const Shape& in, const Strides& in_strides, const Shape& out) {
    STRATA_ASSERT(in.size() <= out.size() && out.size() <= kMaxRank, "cannot broadcast rank {} to rank {}", in.size(),
                  out.size());
    Strides s{};
    size_t lead = out.size() - in.size();
    for (size_t d = 0; d < in.size(); ++d) {
        STRATA_ASSERT(in[d] == out[lead + d] || in[d] == 1, "dim {} of size {} does not broadcast to {}", d, in[d],
                      out[lead + d]);
        s[lead + d] = in[d] == 1 ? 0 : in_strides[d];
    }
    return s;
}

LoopDims make_loop(const Shape& shape, const std::vector<int>& order, const std::vector<Strides>& strides,
                   const std::vector<bool>& keep) {
    STRATA_ASSERT(order.size() == shape.size() && shape.size() <= kMaxRank, "bad loop order for rank {}", shape.size());
    LoopDims loop;
    loop.stride.assign(strides.size(), Strides{});
    std::vector<bool> kept;  // per loop dim: must not be merged
    for (int d : order) {
        bool must_keep = !keep.empty() && keep[d];
        if (shape[d] == 1 && !must_keep) continue;
        int r = loop.rank;
        bool merge = r > 0 && !must_keep && !kept[r - 1];
        for (size_t k = 0; merge && k < strides.size(); ++k) merge = loop.stride[k][r - 1] == strides[k][d] * shape[d];
        if (merge) {
            loop.size[r - 1] *= shape[d];
            loop.dim[r - 1] = d;
            for (size_t k = 0; k < strides.size(); ++k) loop.stride[k][r - 1] = strides[k][d];
            continue;
        }
        loop.size[r] = shape[d];
        loop.dim[r] = d;
        for (size_t k = 0; k < strides.size(); ++k) loop.stride[k][r] = strides[k][d];
        kept.push_back(must_keep);
        ++loop.rank;
    }
    return loop;
}

int grid_blocks(int64_t items, int threads, const DeviceInfo* device) {
    int64_t want = (items + threads - 1) / threads;
    int64_t cap = static_cast<int64_t>(device && device->sm_count > 0 ? device->sm_count : 132) * 16;
    return static_cast<int>(std::clamp<int64_t>(want, 1, cap));
}

bool rowmajor_bytes(const TensorDesc& desc) {
    return !desc.channels_last() || desc.shape[2] * desc.shape[3] == 1 || desc.shape[1] == 1;
}

std::string check_index_space(const std::vector<TensorDesc>& inputs, const std::vector<TensorDesc>& outputs) {
    for (const auto* list : {&inputs, &outputs})
        for (const TensorDesc& t : *list) {
            if (!t.present) continue;
            if (t.rank() > kMaxRank) return "rank above 8";
            if (t.numel() >= (int64_t{1} << 31)) return "2^31 or more elements";
        }
    return {};
}

}  // namespace strata::cuda
