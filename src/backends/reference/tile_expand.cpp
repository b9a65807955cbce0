// tile_expand.cpp: Tile (output coordinate o reads o mod dim) and Expand (numpy broadcast of X to the output
// shape: broadcast dims read coordinate 0), any dtype. Both are index maps (index_map.h).
#include <vector>

#include "backends/reference/common.h"
#include "backends/reference/index_map.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

namespace {
void copy_with_maps(const Tensor& x, Tensor& y, const std::vector<AxisMap>& maps) {
    dispatch_bytes(x, [&](auto zero) {
        using T = decltype(zero);
        copy_mapped<T>(x.data<T>(), 0, maps, T{}, y.data<T>());
    });
}
}  // namespace

void tile_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    Tensor& y = outputs[0];
    const auto& a = node.attr<ir::TileAttrs>();
    if (!a.repeats) STRATA_UNSUPPORTED("dynamic Tile repeats (node '{}')", node.name);
    int64_t rank = x.rank();
    STRATA_CHECK(static_cast<int64_t>(a.repeats->size()) == rank && y.rank() == rank, StatusCode::invalid_argument,
                 "{}: repeats has {} entries for a rank-{} input", ir::node_label(node), a.repeats->size(), rank);
    std::vector<int64_t> strides = row_major_strides(x.shape());
    std::vector<AxisMap> maps(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) {
        int64_t size = x.dim(static_cast<int>(d));
        STRATA_ASSERT(y.dim(static_cast<int>(d)) == size * (*a.repeats)[d], "{}: output {} does not fit",
                      ir::node_label(node), shape_str(y.shape()));
        for (int64_t o = 0; o < y.dim(static_cast<int>(d)); ++o) maps[d].push_back((o % size) * strides[d]);
    }
    copy_with_maps(x, y, maps);
}

void expand_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    Tensor& y = outputs[0];
    std::vector<int64_t> strides = broadcast_strides(node, x.shape(), y.shape());
    std::vector<AxisMap> maps(y.shape().size());
    for (size_t d = 0; d < maps.size(); ++d)
        for (int64_t o = 0; o < y.shape()[d]; ++o) maps[d].push_back(o * strides[d]);
    copy_with_maps(x, y, maps);
}

}  // namespace strata::backends::reference
