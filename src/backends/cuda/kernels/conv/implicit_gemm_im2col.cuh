// implicit_gemm_im2col.cuh: how both implicit-GEMM convolution kernels (mma.sync and the sm90 wgmma one) address
// the never-materialised im2col matrix A: the output pixels a thread's A rows stand for, and the (r, s, c) tap of
// the 16-byte chunk it copies along the reduction.
#pragma once

#include <climits>

#include "backends/cuda/kernels/conv/conv_geometry.h"

namespace strata::cuda {

// Where one thread's A rows start: the image base and the top-left input position of each row's window. A row
// past the last output pixel gets a window far above the image, so every tap of it is zero-filled. Row i of the
// thread is GEMM row block_m + first_row + i * kRowsPerPass.
template <int kIters, int kRowsPerPass>
struct ImplicitGemmRows {
    int base[kIters];
    int ih0[kIters];
    int iw0[kIters];

    __device__ void init(const ConvGeometry& g, int gemm_m, int block_m, int first_row) {
        const int pq = g.p * g.q;
#pragma unroll
        for (int i = 0; i < kIters; ++i) {
            const int m = block_m + first_row + i * kRowsPerPass;
            if (m < gemm_m) {
                const int n = m / pq, rem = m - n * pq;
                const int p = rem / g.q, q = rem - p * g.q;
                base[i] = n * g.h * g.w * g.c;
                ih0[i] = p * g.stride_h - g.pad_h;
                iw0[i] = q * g.stride_w - g.pad_w;
            } else {
                base[i] = 0, ih0[i] = INT_MIN / 2, iw0[i] = 0;
            }
        }
    }
};

// The (r, s, c) tap of the 16-byte chunk this thread copies, advanced one slice per copy. Chunks of one slice may
// lie in different taps when C is smaller than a slice; C % (16 bytes) == 0 keeps each chunk inside one tap.
struct ImplicitGemmKCursor {
    int kk, r, s, c;

    __device__ void init(const ConvGeometry& g, int first_k) {
        kk = first_k;
        c = kk % g.c;
        const int rs = kk / g.c;
        s = rs % g.s;
        r = rs / g.s;
    }
    __device__ void advance(const ConvGeometry& g, int step) {
        kk += step;
        c += step;
        while (c >= g.c) {
            c -= g.c;
            if (++s == g.s) s = 0, ++r;
        }
    }
};

}  // namespace strata::cuda
