// test_loop_dims.cpp: the index space of the memory-bound kernels (kernels/data/loop_dims.h) is host code, checked
// on every machine: memory order per layout, broadcast strides, and which dims make_loop merges (a same-layout
// elementwise op must become one flat loop; an nhwc per-channel broadcast must keep C innermost).
#include <gtest/gtest.h>

#include "backends/cuda/kernels/data/loop_dims.h"

namespace strata::test {
namespace {

using cuda::LoopDims;
using cuda::Strides;
using cuda::TensorDesc;

TEST(LoopDims, MemoryOrderFollowsTheLayout) {
    EXPECT_EQ(cuda::memory_order(TensorDesc{DType::f16, Layout::nhwc, {2, 3, 4, 5}}), (std::vector<int>{0, 2, 3, 1}));
    EXPECT_EQ(cuda::memory_order(TensorDesc{DType::f16, Layout::nchw, {2, 3, 4, 5}}), (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(cuda::memory_order(TensorDesc{DType::f16, Layout::nhwc, {2, 3, 4}}), (std::vector<int>{0, 1, 2}));
}

TEST(LoopDims, SameLayoutOperandsMergeIntoOneFlatLoop) {
    TensorDesc t{DType::f32, Layout::nhwc, {2, 3, 4, 5}};
    Strides s = t.logical_strides();
    LoopDims loop = cuda::make_loop(t.shape, cuda::memory_order(t), {s, s});
    ASSERT_EQ(loop.rank, 1);
    EXPECT_EQ(loop.size[0], 120);
    EXPECT_EQ(loop.stride[0][0], 1);
    EXPECT_EQ(loop.stride[1][0], 1);
}

TEST(LoopDims, NhwcPerChannelBroadcastKeepsChannelsInnermost) {
    TensorDesc x{DType::f16, Layout::nhwc, {2, 8, 3, 5}};
    TensorDesc se{DType::f16, Layout::nhwc, {2, 8, 1, 1}};
    Strides bs = cuda::broadcast_strides(se.shape, se.logical_strides(), x.shape);
    EXPECT_EQ(bs[2], 0);
    EXPECT_EQ(bs[3], 0);
    LoopDims loop = cuda::make_loop(x.shape, cuda::memory_order(x), {x.logical_strides(), bs});
    ASSERT_EQ(loop.rank, 3);  // [N, H*W, C]
    EXPECT_EQ(loop.size[0], 2);
    EXPECT_EQ(loop.size[1], 15);
    EXPECT_EQ(loop.size[2], 8);
    EXPECT_EQ(loop.stride[1][0], 8);  // the scale steps by C per image
    EXPECT_EQ(loop.stride[1][1], 0);
    EXPECT_EQ(loop.stride[1][2], 1);
}

TEST(LoopDims, LowerRankOperandsAlignRightAndKeptDimsStay) {
    Strides bias = cuda::broadcast_strides({3, 1, 1}, cuda::row_major_strides({3, 1, 1}), {2, 3, 4, 5});
    EXPECT_EQ(bias[0], 0);
    EXPECT_EQ(bias[1], 1);
    EXPECT_EQ(bias[2], 0);
    EXPECT_EQ(bias[3], 0);
    Strides s = cuda::row_major_strides({2, 3, 4, 5});
    LoopDims loop = cuda::make_loop({2, 3, 4, 5}, {0, 1, 2, 3}, {s}, {false, false, true, false});
    ASSERT_EQ(loop.rank, 3);  // dim 2 stays on its own; dims 0 and 1 merge
    EXPECT_EQ(loop.size[0], 6);
    EXPECT_EQ(loop.dim[1], 2);
    EXPECT_EQ(loop.dim[2], 3);
}

}  // namespace
}  // namespace strata::test
