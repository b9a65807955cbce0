// conv_gemm.cpp: convolution as GEMM (cpu.conv2d_im2col_gemm). Per image and group, Y_g[M/g, OH*OW] =
// W_g[M/g, K] * col[K, OH*OW] with K = C/g*KH*KW; 1x1 stride-1 unpadded convolutions use X itself as `col`.
//
// NOTE [cpu threading]
// The pool, not OpenBLAS, owns the cores: OpenBLAS runs single-threaded and the work is split into items of
// (image, group, block of output columns[, block of output channels]), each an im2col into a thread-local scratch
// block and one sgemm, followed by bias and activation while the block is in cache. Column blocks make batch 1
// parallel too and bound the scratch to ~1 MB. Measured on the 2-core machine (bench/README.md): this beats
// OpenBLAS's own threads over a sequential loop on the mobilenet_v2 and googlenet conv layers.
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/conv_params.h"
#include "backends/cpu/cpu_common.h"
#include "backends/cpu/unary_fn.h"

namespace strata::backends::cpu {

namespace {

constexpr const char* kTactic = "cpu.conv2d_im2col_gemm";
constexpr int64_t kScratchFloats = int64_t{1} << 18;  // 1 MiB of im2col per block
constexpr int64_t kMinBlockCols = 64;                 // narrower GEMMs lose more to packing than they gain
constexpr int64_t kMinBlockRows = 16;                 // output channels per item when they are split

// One im2col row: the `count` output columns starting at output position (oh, ow) for kernel tap (ky, kx) of one
// input channel plane. Out-of-range taps read the zero padding.
void im2col_row(const float* plane, const Conv2dParams& p, int64_t ky, int64_t kx, int64_t first_col, int64_t count,
                float* dst) {
    int64_t oh = first_col / p.out_w, ow = first_col % p.out_w;
    while (count > 0) {
        const int64_t run = std::min(count, p.out_w - ow);
        const int64_t ih = oh * p.stride_h - p.pad_top + ky * p.dilation_h;
        if (ih < 0 || ih >= p.in_h) {
            std::memset(dst, 0, sizeof(float) * run);
        } else {
            const float* row = plane + ih * p.in_w;
            const int64_t offset = kx * p.dilation_w - p.pad_left;  // iw = ow * stride + offset
            // Columns whose iw lies in [0, in_w): lo <= ow < hi.
            int64_t lo = offset >= 0 ? 0 : (-offset + p.stride_w - 1) / p.stride_w;
            int64_t hi = p.in_w - offset <= 0 ? 0 : (p.in_w - offset + p.stride_w - 1) / p.stride_w;
            lo = std::clamp(lo, ow, ow + run);
            hi = std::clamp(hi, lo, ow + run);
            float* d = dst - ow;
            for (int64_t o = ow; o < lo; ++o) d[o] = 0.0f;
            if (p.stride_w == 1) {
                std::memcpy(d + lo, row + lo + offset, sizeof(float) * (hi - lo));
            } else {
                for (int64_t o = lo; o < hi; ++o) d[o] = row[o * p.stride_w + offset];
            }
            for (int64_t o = hi; o < ow + run; ++o) d[o] = 0.0f;
        }
        dst += run;
        count -= run;
        ow = 0;
        ++oh;
    }
}

// col[K, count] for one group of one image, columns [first_col, first_col + count).
void im2col(const float* x_group, const Conv2dParams& p, int64_t channels, int64_t first_col, int64_t count,
            float* col) {
    const int64_t plane = p.in_h * p.in_w;
    for (int64_t c = 0; c < channels; ++c)
        for (int64_t ky = 0; ky < p.kernel_h; ++ky)
            for (int64_t kx = 0; kx < p.kernel_w; ++kx) {
                im2col_row(x_group + c * plane, p, ky, kx, first_col, count, col);
                col += count;
            }
}

bool is_pointwise(const Conv2dParams& p) {
    return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
           p.pad_left == 0 && p.out_h == p.in_h && p.out_w == p.in_w;
}

// Columns per work item: enough items to keep every thread busy, blocks no narrower than kMinBlockCols, and an
// im2col block no larger than kScratchFloats.
int64_t column_block(const Conv2dParams& p, int64_t k, bool pointwise, int threads) {
    const int64_t cols = p.out_h * p.out_w;
    const int64_t per_image = p.batch * p.group;
    const int64_t want_blocks = std::max<int64_t>(1, (2 * threads + per_image - 1) / per_image);
    int64_t block = (cols + want_blocks - 1) / want_blocks;
    if (!pointwise) block = std::min(block, std::max<int64_t>(kMinBlockCols, kScratchFloats / k));
    block = std::max(block, std::min(cols, kMinBlockCols));
    return block;
}

// When images, groups and column blocks give fewer than two items per thread (late layers at batch 1: 7x7 maps),
// the output channels are split too, into blocks of at least kMinBlockRows; each such item redoes its im2col,
// which costs K*cols against the GEMM's M*K*cols.
int64_t row_block_count(int64_t items, int64_t rows, int threads) {
    if (items >= 2 * threads) return 1;
    const int64_t wanted = (2 * threads + items - 1) / items;
    return std::clamp<int64_t>(rows / kMinBlockRows, 1, wanted);
}

}  // namespace

std::string conv_gemm_can_implement(const ir::Graph& graph, const ir::Node& node) {
    return conv2d_reason(graph, node, kTactic);
}

void conv_gemm(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const KernelContext& ctx) {
    single_threaded_blas();
    const auto& attrs = node.attr<ir::ConvAttrs>();
    const Conv2dParams p = conv2d_params(attrs, inputs[0].shape(), inputs[1].shape(), outputs[0].shape());
    const float* x = inputs[0].data<float>();
    const float* w = inputs[1].data<float>();
    const float* bias = conv_bias(inputs);
    float* y = outputs[0].data<float>();

    const int64_t cg = p.in_channels / p.group, mg = p.out_channels / p.group;
    const int64_t k = cg * p.kernel_h * p.kernel_w;
    const int64_t cols = p.out_h * p.out_w;
    const bool pointwise = is_pointwise(p);
    const int threads = num_threads(ctx);
    const int64_t block = column_block(p, k, pointwise, threads);
    const int64_t blocks = (cols + block - 1) / block;
    const int64_t row_blocks = row_block_count(p.batch * p.group * blocks, mg, threads);
    const int64_t rows = (mg + row_blocks - 1) / row_blocks;

    parallel_for(ctx, p.batch * p.group * blocks * row_blocks, [&](int64_t begin, int64_t end) {
        thread_local std::vector<float> scratch;
        for (int64_t item = begin; item < end; ++item) {
            const int64_t r = item % row_blocks, b = item / row_blocks % blocks;
            const int64_t g = item / row_blocks / blocks % p.group, n = item / row_blocks / blocks / p.group;
            const int64_t first = b * block, count = std::min(block, cols - first);
            const int64_t first_row = g * mg + r * rows, row_count = std::min(rows, mg - r * rows);
            const float* xg = x + (n * p.in_channels + g * cg) * p.in_h * p.in_w;
            float* yg = y + (n * p.out_channels + first_row) * cols + first;
            const float* col = xg + first;
            int64_t ld_col = cols;
            if (!pointwise) {
                if (scratch.size() < static_cast<size_t>(k * count)) scratch.resize(k * count);
                im2col(xg, p, cg, first, count, scratch.data());
                col = scratch.data();
                ld_col = count;
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, row_count, count, k, 1.0f, w + first_row * k, k, col,
                        ld_col, 0.0f, yg, cols);
            bias_activation_rows(yg, row_count, count, cols, bias ? bias + first_row : nullptr, attrs.activation);
        }
    });
}

}  // namespace strata::backends::cpu
