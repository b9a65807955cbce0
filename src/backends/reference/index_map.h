// index_map.h: the one copy loop behind Transpose, Slice, Pad, Tile and Expand. Each of them is "output element at
// coordinates (o0, o1, ...) reads source element base + map0[o0] + map1[o1] + ...": a per-dim table of offsets.
// Transpose permutes the source strides, Slice steps them, Tile wraps coordinates, Expand zeroes broadcast dims,
// and Pad maps border coordinates to kFill (or clamps / reflects them). Writing the tables is each op's whole job.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace strata::backends::reference {

/// Offsets (in source elements) along one output dim, one per output coordinate.
using AxisMap = std::vector<int64_t>;
/// An AxisMap entry meaning "this output element is the fill value".
inline constexpr int64_t kFill = std::numeric_limits<int64_t>::min();

namespace detail {
template <class T>
T* copy_mapped_dim(const T* src, int64_t offset, bool fill_here, const std::vector<AxisMap>& maps, size_t dim, T fill,
                   T* dst) {
    if (dim + 1 == maps.size()) {
        for (int64_t off : maps[dim]) *dst++ = fill_here || off == kFill ? fill : src[offset + off];
        return dst;
    }
    for (int64_t off : maps[dim]) {
        bool is_fill = fill_here || off == kFill;
        dst = copy_mapped_dim(src, is_fill ? offset : offset + off, is_fill, maps, dim + 1, fill, dst);
    }
    return dst;
}
}  // namespace detail

/// Writes the output in row-major order: dst[o] = src[base + sum_d maps[d][o_d]], or `fill` where any entry is kFill.
template <class T>
void copy_mapped(const T* src, int64_t base, const std::vector<AxisMap>& maps, T fill, T* dst) {
    if (maps.empty()) {
        *dst = src[base];
        return;
    }
    detail::copy_mapped_dim(src, base, false, maps, 0, fill, dst);
}

}  // namespace strata::backends::reference
