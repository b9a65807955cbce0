// transpose.cpp: Transpose, any rank and dtype: output dim j walks input dim perm[j] (perm empty = reversed dims).
#include <vector>

#include "backends/reference/common.h"
#include "backends/reference/index_map.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

void transpose_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    Tensor& y = outputs[0];
    int64_t rank = x.rank();
    std::vector<int64_t> perm = node.attr<ir::TransposeAttrs>().perm;
    if (perm.empty())
        for (int64_t d = rank - 1; d >= 0; --d) perm.push_back(d);
    STRATA_CHECK(static_cast<int64_t>(perm.size()) == rank && y.rank() == rank, StatusCode::invalid_argument,
                 "{}: perm has {} entries for a rank-{} input", ir::node_label(node), perm.size(), rank);
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    std::vector<int64_t> strides = row_major_strides(x.shape());
    std::vector<AxisMap> maps(static_cast<size_t>(rank));
    for (int64_t j = 0; j < rank; ++j) {
        int64_t src = normalize_axis(node, perm[j], rank);
        STRATA_CHECK(!seen[src], StatusCode::invalid_argument, "{}: perm repeats dim {}", ir::node_label(node), src);
        seen[src] = true;
        STRATA_ASSERT(y.dim(static_cast<int>(j)) == x.dim(static_cast<int>(src)), "{}: output {} does not fit",
                      ir::node_label(node), shape_str(y.shape()));
        for (int64_t o = 0; o < x.dim(static_cast<int>(src)); ++o) maps[j].push_back(o * strides[src]);
    }
    dispatch_bytes(x, [&](auto zero) {
        using T = decltype(zero);
        copy_mapped<T>(x.data<T>(), 0, maps, T{}, y.data<T>());
    });
}

}  // namespace strata::backends::reference
