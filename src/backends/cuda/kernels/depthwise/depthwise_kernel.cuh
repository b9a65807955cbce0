// depthwise_kernel.cuh: the tiled depthwise kernels of depthwise.h (NHWC and NCHW strips) and their launchers;
// depthwise_launch.cuh dispatches to them per dtype.
//
// NOTE [depthwise rolling rows]
// A thread owns output rows p_first..p_end-1 of one strip (COLS columns, VEC channels). Output row p reads input rows
// p*S - pad + r, r = 0..K-1. Walking p upwards, only S input rows are new at each step (offsets K-S..K-1 of row p's
// window); a new row at offset r_in also lies in the windows of rows p+1, p+2, ... at offsets r_in - S, r_in - 2S, ...
// So each input row is loaded once and multiplied into A = (K-1)/S + 1 accumulator rows: acc[d] holds row p+d. After
// the step acc[0] (row p) is complete: it is stored and the accumulators shift down. The walk starts A-1 steps before
// p_first so that the first row also sees its top taps.
//
// NOTE [depthwise strip ends]
// Of a step's A accumulator rows, those above the strip (p + d < p_first, in the first A-1 steps) and those below it
// (p + d >= p_end, in the last A-1 steps) are never stored, so their products are skipped. Multiplying them anyway
// cost (R + A - 1) * A row products for the R * A a strip of R rows needs: 1.5x for 5x5 strips of 8 rows (60 for
// 40), 1.25x for 3x3. Every thread of a warp is at the same step of its walk, so the start's skips are uniform.
//
// NOTE [depthwise accumulator rotation]
// Shifting the accumulators down after every output row (acc[d] = acc[d + 1]) is (A - 1) * COLS * lanes register moves
// a step: 16 for a 3x3 stride-1 strip of two fp16 columns, against its 72 HFMA2. A walk unrolled by A output rows
// names the slots instead: output row p lives in slot (p - p_start) % A, a constant in each unrolled copy, so row p's
// slot is stored and zeroed and then serves row p + A, and nothing moves. The two-rows-ahead walk is unrolled by three
// for its register ring already, so where A divides three (3x3 stride 1, and 5x5 stride 2 on 4-byte vectors) the
// rotation costs no code, and it rotates.
// The other walks shift (but see NOTE [depthwise clamp epilogues]). Unrolled by A they were slower on the H200
// (2026-12-03, bench/depthwise_gpu, fp16): the 5x5 cases by 5-9% (672x14k5s1 b128 42.64 -> 45.50 us, 1152x7k5s1 b8
// 5.17 -> 5.59 us), and back at their old times once those walks shifted again (42.56 and 5.10 us,
// bench/RESULTS.md). Their kernels had grown 4.5x (the 5x5 stride-1 async kernel from 8208 to 37176 SASS
// instructions, most of them the float epilogue's activation code, copied into every unrolled step), while the fast
// step's multiply stayed as it was: 243 instructions, 200 of them HFMA2.
//
// NOTE [depthwise clamp epilogues]
// That growth was the epilogue's: an activation chosen at run time compiles every activation's code into every
// store. Most depthwise layers end in at most a clamp (none, ReLU, ReLU6: MobileNet v1/v2, MnasNet, ShuffleNet), so
// the fp32 and fp16 NHWC kernels of 16-byte vectors are compiled twice, once for any activation and once for clamps
// alone (CLAMP), and the launcher picks by the step's activation. The clamp kernels store with max and min only (the
// 5x5 stride-1 register walk of two fp16 columns: 8792 SASS instructions -> 2080), and the 5x5 async walk rotates
// (unrolled by A; stride 1, two columns: 4872 instructions, 59 MOV where the shifting one has 734), while the kernels
// for any activation (SiLU, HardSwish: EfficientNet, MobileNet v3) shift as before. Where rotating spilled, the walks
// shift in the clamp kernels too: the register walk (5x5 stride 1, two columns: 42 local accesses, stride 2: 14; none
// shifting), the 3x3 async walk at its 80 registers (16-25 local accesses, none shifting), and 7x7 stride 2 (45,
// against 15).
// Measured on an H100 (2026-12-06, scripts/gpu_call_ab.sh, fp16 against the build before in the same call, 3x3 async
// walks rotating then too): the 5x5 cases x0.95-1.00 (672x14k5s1 b32 16.27 -> 15.84 us), but the 3x3 cases whose
// async walk had won before lost it, x1.03-1.09 (960x7k3s1 b128 12.12 -> 13.20), hence the 3x3 rule. With it (same
// card and method, bench/RESULTS.md 2026-12-06), fp16 x0.98-1.00 by batch, and fp32 x0.95 at batch 128, where the
// 5x5 async strips of 14 rows (configs 17-18, new in the same build, so the two are not told apart) took 240x28k5s1
// from 138.0 to 117.3 us and 672x14k5s1 from 92.3 to 76.0. Tests and both sanitizers clean on the H100.
#pragma once

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels/common/activation_vec.cuh"
#include "backends/cuda/kernels/common/fast_divmod.h"
#include "backends/cuda/kernels/common/mma.cuh"
#include "backends/cuda/kernels/common/pdl.cuh"
#include "backends/cuda/kernels/common/launch_limits.h"
#include "backends/cuda/kernels/conv/conv_epilogue.cuh"
#include "backends/cuda/kernels/depthwise/depthwise.h"
#include "backends/cuda/kernels/depthwise/depthwise_math.cuh"

namespace strata::cuda::dw {

/// y[off..off+VEC) = act(acc + bias + residual[off..]) for VEC contiguous channels; `bias` was loaded once per thread.
template <class T, int VEC>
__device__ __forceinline__ void store_epilogue(const EpilogueParams& e, const float (&acc)[VEC],
                                               const float (&bias)[VEC], T* y, int64_t off) {
    float res[VEC] = {};
    if (e.residual)
        widen<T, VEC>(__ldg(reinterpret_cast<const Raw<T, VEC>*>(static_cast<const T*>(e.residual) + off)), res);
    float out[VEC];
#pragma unroll
    for (int v = 0; v < VEC; ++v) out[v] = acc[v] + bias[v] + res[v];
    apply_activation_each(e.act, out);
    *reinterpret_cast<Raw<T, VEC>*>(y + off) = narrow<T, VEC>(out);
}

/// store_epilogue for an activation known to be a clamp (clamp_activation): no activation code beyond max and min.
template <class T, int VEC>
__device__ __forceinline__ void store_epilogue_clamp(const EpilogueParams& e, const float (&acc)[VEC],
                                                     const float (&bias)[VEC], T* y, int64_t off) {
    float res[VEC] = {};
    if (e.residual)
        widen<T, VEC>(__ldg(reinterpret_cast<const Raw<T, VEC>*>(static_cast<const T*>(e.residual) + off)), res);
    const bool relu = e.act.kind >= 0, relu6 = e.act.kind == static_cast<int>(ir::UnaryKind::Relu6);
    float out[VEC];
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
        float o = acc[v] + bias[v] + res[v];
        if (relu) o = fmaxf(o, 0.0f);
        if (relu6) o = fminf(o, 6.0f);
        out[v] = o;
    }
    *reinterpret_cast<Raw<T, VEC>*>(y + off) = narrow<T, VEC>(out);
}

template <int L>
__device__ __forceinline__ void store_epilogue_half2(const EpilogueParams& e, const __half2 (&acc)[L],
                                                     const __half2 (&bias)[L], __half* y, int64_t off) {
    __half2 res[L];
    if (e.residual) {
        const auto raw =
            __ldg(reinterpret_cast<const Raw<__half, 2 * L>*>(static_cast<const __half*>(e.residual) + off));
        memcpy(res, &raw, sizeof(raw));
    }
    const __half2 zero = __float2half2_rn(0.0f), six = __float2half2_rn(6.0f);
    __half2 out[L];
#pragma unroll
    for (int l = 0; l < L; ++l) {
        __half2 v = __hadd2(acc[l], bias[l]);
        if (e.residual) v = __hadd2(v, res[l]);
        if (e.act.kind >= 0) v = __hmax2(v, zero);
        if (e.act.kind == static_cast<int>(ir::UnaryKind::Relu6)) v = __hmin2(v, six);
        out[l] = v;
    }
    Raw<__half, 2 * L> raw;
    memcpy(&raw, out, sizeof(raw));
    *reinterpret_cast<Raw<__half, 2 * L>*>(y + off) = raw;
}

// NOTE [depthwise pinned addresses]
// nvcc recomputes values derived from kernel parameters where they are used rather than keep them in registers: in
// the sm_90 SASS of the async NHWC fp16 3x3 kernel every input row rebuilt X's 64-bit address of (n, c0) from the
// strides (IMAD.WIDE and sign extensions, ~15 instructions), every column re-tested its bounds and reloaded the
// column stride from constant memory, and every store rebuilt Y's (n, c0) offset the same way: ~90 instructions to
// issue a row's four cp.async and ~20 per 16-byte store, against 72 HFMA2 a row. Nsight Compute (H200, 2026-12-04,
// 144x56k3s1 b32) counted 3303 instructions per warp of that kernel, 19% of them HFMA2. A value passed through an
// empty asm volatile cannot be recomputed (the compiler does not know what the asm did to it), so it stays in a
// register: `pinned` does that for the strip's base addresses and the loop invariants of its loads.
// Measured on the H200 (2026-12-04, bench/depthwise_gpu fp16, against the build before): 144x56k3s1 b32 23.75 ->
// 22.36 us (predicted ~19-20 from ~25% fewer instructions: these kernels are not issue-bound alone; Nsight Compute
// shows 4 warps a scheduler, each issuing once in ~6 cycles), x0.97 over 44 cases, x0.95 at batch 128.
template <class T>
__device__ __forceinline__ T* pinned(T* p) {
    auto bits = reinterpret_cast<uintptr_t>(p);
    asm volatile("" : "+l"(bits));
    return reinterpret_cast<T*>(bits);
}
__device__ __forceinline__ int64_t pinned(int64_t v) {
    asm volatile("" : "+l"(v));
    return v;
}
__device__ __forceinline__ int pinned(int v) {
    asm volatile("" : "+r"(v));
    return v;
}
__device__ __forceinline__ uint32_t pinned(uint32_t v) {
    asm volatile("" : "+r"(v));
    return v;
}

/// The input rows of one strip: N vectors a row from column iw0 on. A row outside the map, or a column outside it, is
/// never read and its registers are never written: the walk zeroes its row registers once before the first load
/// (columns outside the map then stay zero: all-zero bits are +0 in every float type) and skips the multiply of a row
/// outside the map, so nothing is zeroed per row. Offsets in 32 bits (image_offsets_fit_32_bits). Zeroing every row
/// and 64-bit addresses were 12 CS2R and 5 constant loads of the ~150 instructions before a step's first HFMA2 in the
/// 5x5 NHWC fp16 kernel (sm_90 SASS, 2026-12-02). The row's start, the strides and which columns lie inside the map
/// are computed once and pinned (NOTE [depthwise pinned addresses]): rebuilt per row, a row's six loads took 53
/// instructions in the 5x5 stride-1 kernel (Nsight Compute source counters, H200, 2026-12-04), each column's address
/// from its index and each column's bounds anew. In its sm_90 SASS they take 27 now: a predicate from the mask, a
/// 64-bit pointer step and the load per column. On an H100 (2026-12-05) it passed the tests and sanitizers; that call
/// had no same-card baseline, so its effect on time is not yet measured.
template <class T, int VEC, int N>
struct StripRows {
    static_assert(N <= 32, "one bit a column");
    const T* x_col;  // column iw0 of input row 0; where iw0 < 0 only an origin for the columns inside the map
    int row_stride, col_stride, h;
    uint32_t cols_in;  // bit j: column iw0 + j lies inside the map

    __device__ __forceinline__ StripRows(const DepthwiseParams& prm, const T* xb, int iw0)
        : row_stride(pinned(static_cast<int>(prm.x_stride[2]))),
          col_stride(pinned(static_cast<int>(prm.x_stride[3]))),
          h(prm.g.h) {
        x_col = pinned(xb + iw0 * col_stride);
        uint32_t in = 0;
#pragma unroll
        for (int j = 0; j < N; ++j)
            if (iw0 + j >= 0 && iw0 + j < prm.g.w) in |= 1u << j;
        cols_in = pinned(in);
    }
    __device__ __forceinline__ void load(int ih, Raw<T, VEC> (&row)[N]) const {
        if (ih < 0 || ih >= h) return;
        const T* at = x_col + ih * row_stride;
#pragma unroll
        for (int j = 0; j < N; ++j) {
            if (cols_in & (1u << j)) row[j] = __ldg(reinterpret_cast<const Raw<T, VEC>*>(at));
            at += col_stride;
        }
    }
};

template <class T, int VEC, int N>
__device__ __forceinline__ void copy_row(Raw<T, VEC> (&dst)[N], const Raw<T, VEC> (&src)[N]) {
#pragma unroll
    for (int j = 0; j < N; ++j) dst[j] = src[j];
}

/// The accumulators of one strip: acc[d] is output row p + d of NOTE [depthwise rolling rows].
template <class Math, int A, int COLS>
using StripAcc = typename Math::Acc[A][COLS][Math::kLanes];

/// Input row `cur`, at offset r_in = K - S + t of output row p's window, into every accumulator row whose window
/// holds it; with kEnds only into those the strip stores, rows p + d for d in [d_first, d_last] (NOTE [depthwise strip
/// ends]). Row p + d is slot (d + rot) % A (NOTE [depthwise accumulator rotation]; rot is 0 where the rows shift and a
/// constant of the unrolled walk where they rotate).
template <class T, int VEC, int K, int S, int COLS, class Math, int A, bool kEnds, class Taps, int N>
__device__ __forceinline__ void multiply_row(const Taps& taps, const Raw<T, VEC> (&cur)[N], int t,
                                             StripAcc<Math, A, COLS>& acc, int rot, int d_first, int d_last) {
    using Acc = typename Math::Acc;
    constexpr int L = Math::kLanes;
    const int r_in = K - S + t;
    Acc x[N][L];
#pragma unroll
    for (int j = 0; j < N; ++j) Math::unpack(cur[j], x[j]);
#pragma unroll
    for (int d = 0; d < A; ++d) {
        const int rr = r_in - S * d;
        if (rr < 0) continue;
        if (kEnds && (d < d_first || d > d_last)) continue;
        const int slot = (d + rot) % A;
#pragma unroll
        for (int cc = 0; cc < K; ++cc) {
            Acc w[L];
            taps.load(rr * K + cc, w);
#pragma unroll
            for (int c = 0; c < COLS; ++c)
#pragma unroll
                for (int l = 0; l < L; ++l) acc[slot][c][l] = Math::fma(x[c * S + cc][l], w[l], acc[slot][c][l]);
        }
    }
}

/// multiply_row at step p of a strip [p_first, p_end): the skips of NOTE [depthwise strip ends] only in the first and
/// last A-1 steps, so that the steps between carry no test per accumulator row (those tests and the branches around
/// them cost ~55 SASS instructions a step in the 5x5 NHWC fp16 kernel). Two copies of the multiply need registers:
/// in the bf16 wide strips (8 float lanes a vector, and the row widened to float) the second copy raised the spills
/// of kernels that spilled already (5x5 stride 2: 122 -> 286 local accesses, 7x7: 458 -> 877), so those and any
/// strip whose accumulators alone take more than 64 registers keep one copy, with the tests.
template <class T, int VEC, int K, int S, int COLS, class Math, int A, class Taps, int N>
__device__ __forceinline__ void multiply_row_in_strip(const Taps& taps, const Raw<T, VEC> (&cur)[N], int t,
                                                      StripAcc<Math, A, COLS>& acc, int rot, int p, int p_first,
                                                      int p_end) {
    constexpr bool kTwoCopies = Math::kLanes <= 4 && sizeof(StripAcc<Math, A, COLS>) <= 64 * 4;
    if (kTwoCopies && p >= p_first && p + (A - 1) < p_end)
        multiply_row<T, VEC, K, S, COLS, Math, A, false>(taps, cur, t, acc, rot, 0, A - 1);
    else
        multiply_row<T, VEC, K, S, COLS, Math, A, true>(taps, cur, t, acc, rot, p_first - p, p_end - 1 - p);
}

/// The float bias of channels [c0, c0 + VEC), zeros without one.
template <int VEC>
__device__ __forceinline__ void load_bias(const EpilogueParams& e, int c0, float (&bias)[VEC]) {
#pragma unroll
    for (int v = 0; v < VEC; ++v) bias[v] = e.bias ? __ldg(e.bias + c0 + v) : 0.0f;
}

/// After output row p's last input row: stores slot `slot` (row p) when p is in the strip; then, rotating (NOTE
/// [depthwise accumulator rotation]), zeroes that slot for row p + A, or else (slot 0) shifts the accumulators down one
/// row. `bias` serves the float arithmetic; the fp16 kernels hold only `bias_h2` and read the float bias again
/// (from L1) for the epilogues that are not half2: a float copy held all along cost them 8 of their 128 registers, and
/// ptxas spilled the strip's bounds in the row loop instead. kClamp: the activation is a clamp (clamp_activation), so
/// only that epilogue is compiled (NOTE [depthwise clamp epilogues]).
template <class T, int VEC, int COLS, class Math, int A, bool kRotate, bool kClamp>
__device__ __forceinline__ void finish_output_row(const DepthwiseParams& prm, StripAcc<Math, A, COLS>& acc, int slot,
                                                  const float (&bias)[VEC],
                                                  const __half2 (&bias_h2)[Math::kLanes], bool fast_epilogue,
                                                  int64_t y_base, int c0, int q0, int p, int p_first) {
    constexpr int L = Math::kLanes;
    const ConvGeometry& g = prm.g;
    if (p >= p_first) {
        T* y = static_cast<T*>(prm.y);
#pragma unroll
        for (int c = 0; c < COLS; ++c) {
            const int q = q0 + c;
            if (q >= g.q) continue;
            const int64_t off =
                y_base + (p * static_cast<int>(prm.y_stride[2]) + q * static_cast<int>(prm.y_stride[3]));
            if constexpr (std::is_same_v<Math, Half2Math<VEC>>) {
                if (kClamp || fast_epilogue) {
                    store_epilogue_half2<L>(prm.epilogue, acc[slot][c], bias_h2, y, off);
                    continue;
                }
            }
            float out[VEC];
            Math::to_floats(acc[slot][c], out);
            if constexpr (kClamp) {
                store_epilogue_clamp<T, VEC>(prm.epilogue, out, bias, y, off);
            } else if constexpr (std::is_same_v<Math, Half2Math<VEC>>) {
                float bias_again[VEC];
                load_bias<VEC>(prm.epilogue, c0, bias_again);
                store_epilogue<T, VEC>(prm.epilogue, out, bias_again, y, off);
            } else {
                store_epilogue<T, VEC>(prm.epilogue, out, bias, y, off);
            }
        }
    }
    if constexpr (kRotate) {
#pragma unroll
        for (int c = 0; c < COLS; ++c)
#pragma unroll
            for (int l = 0; l < L; ++l) acc[slot][c][l] = Math::zero();
    } else {
#pragma unroll
        for (int d = 0; d + 1 < A; ++d)
#pragma unroll
            for (int c = 0; c < COLS; ++c)
#pragma unroll
                for (int l = 0; l < L; ++l) acc[d][c][l] = acc[d + 1][c][l];
#pragma unroll
        for (int c = 0; c < COLS; ++c)
#pragma unroll
            for (int l = 0; l < L; ++l) acc[A - 1][c][l] = Math::zero();
    }
}

/// For fp16 pairs, the float bias as half2 (the strip walks' epilogue). A strip walk loads the bias first and pairs it
/// only after `before_walk` (NOTE [depthwise bias after the taps]).
template <int VEC, class Math>
__device__ __forceinline__ void pair_strip_bias(const float (&bias)[VEC], __half2 (&bias_h2)[Math::kLanes]) {
    if constexpr (std::is_same_v<Math, Half2Math<VEC>>)
#pragma unroll
        for (int l = 0; l < Math::kLanes; ++l) bias_h2[l] = __floats2half2_rn(bias[2 * l], bias[2 * l + 1]);
}

// NOTE [depthwise bias after the taps]
// The half2 conversion of the bias waits for the bias loads, and in the sm_90 SASS those share their scoreboard with
// the first rows' loads (the register walk) or stand alone (the async walk). Converted where it was loaded, before
// `before_walk`, it made the NHWC kernel wait a whole memory round trip before its taps' loads even went out: two
// round trips at batch 1 instead of one (the SASS of dw_tiled_nhwc_kernel<__half, 8, 3, 1, 1, false>, 2026-12-03:
// F2FP.F16.F32.PACK_AB waiting on the rows' scoreboard ahead of the taps' LDG). The conversion comes after it now.
// Measured on the H200 (2026-12-03), it bought far less than a round trip: 384x14k3s1 b1 went from 3.02 to 2.93 us (the
// prediction was ~2.3), and the batch-1 fp16 cases x0.96 on the geometric mean, so that wait was not where the time
// went.

/// True when the async walk rotates its accumulators instead of shifting them (NOTE [depthwise clamp epilogues]).
template <int K>
constexpr bool depthwise_async_rotates(bool clamp) {
    return clamp && K == 5;
}

template <class Math, int A, int COLS>
__device__ __forceinline__ void zero_strip(StripAcc<Math, A, COLS>& acc) {
#pragma unroll
    for (int d = 0; d < A; ++d)
#pragma unroll
        for (int c = 0; c < COLS; ++c)
#pragma unroll
            for (int l = 0; l < Math::kLanes; ++l) acc[d][c][l] = Math::zero();
}

// NOTE [depthwise row ring]
// With two rows in flight, the rows live in a ring of three register sets: input row j of the walk sits in slot
// j % 3, and once row j is multiplied the load of row j + 3 goes into its slot (NOTE [depthwise three rows first];
// before 2026-12-03, row j + 2 went into slot (j + 2) % 3 just before row j was multiplied). Rotating
// three named sets instead (cur = next1; next1 = next2; load next2) costs a register move of next2 at the start of
// every row, and a move waits for its register's load: the sm_90 SASS of the NHWC fp16 kernel opened each row with
// 40 such moves, so a thread stalled on row j + 1 before it could even issue row j + 2, and the second row in flight
// never was. The ring needs the slot of every row known at compile time, so the walk is unrolled by three output rows
// (3S input rows: a whole number of turns of the ring for S = 1 and 2), each guarded by p < p_end. With one row in
// flight (the wide 5x5 and 7x7 rows) there is nothing to gain, and the walk keeps the plain loop and its moves.

// NOTE [depthwise three rows first]
// At batch 1 a strip is one output row, and a 3x3 stride-1 strip reads exactly three input rows. The two-rows-ahead
// walk loaded two of them before staging the taps and the third at its first step, after the taps' barrier: a second
// memory round trip, in series with the first, on the path of every batch-1 3x3 NHWC case (384x14k3s1 b1: 2.93 us on
// the H200, 2026-12-03, against a launch floor of 0.64 us and cuDNN's 2.53). Now all three slots are loaded before the
// taps, and each step reloads the slot its row has just left with the row three on, so the walk keeps two rows in
// flight as before. Rows above p_first * S - pad feed only the warm-up outputs, whose products the walk skips (NOTE
// [depthwise strip ends]): they are not loaded (stride 2 started one row early), and their slot keeps zeros.
// Measured on the H200 (2026-12-03), the prediction (2.93 -> ~2.3 us) was wrong: 3.09 us, and batch 1 moved as much on
// kernels this did not touch. Nsight Compute then found the time in instruction fetch (NOTE [depthwise one-row strips]),
// and batch-1 3x3 strips no longer take this walk.

/// One strip of one thread: rows [p_first, p_end) x columns [q0, q0 + COLS) x channels [c0, c0 + VEC), with the
/// rolling accumulators of NOTE [depthwise rolling rows]. xb points at (n, c0) of X, y_base is the offset of (n, c0)
/// in Y, c0 indexes the bias. The input rows are walked in order with the next one or two rows in flight while one is
/// multiplied (NOTE [depthwise row ring]), so a short strip (batch 1) waits for memory about once rather than once per
/// row. `before_walk` runs once the first rows are in flight (the NHWC kernel stages its taps there, so that the taps'
/// load and the rows' load overlap instead of taking two memory round trips at batch 1); a thread that is not
/// `active` only joins it (its indices are clamped in range) and stops. kClamp: as finish_output_row's.
template <class T, int VEC, int K, int S, int COLS, class Math, bool kClamp, class Taps, class BeforeWalk>
__device__ __forceinline__ void dw_strip(const DepthwiseParams& prm, Taps taps, const T* xb, int64_t y_base, int c0,
                                         int q0, int p_first, int p_end, bool active, BeforeWalk before_walk) {
    constexpr int L = Math::kLanes;
    constexpr int A = (K - 1) / S + 1;
    constexpr int kInCols = (COLS - 1) * S + K;
    const ConvGeometry& g = prm.g;
    const int iw0 = q0 * S - g.pad_w;
    float bias[VEC];
    __half2 bias_h2[L];
    load_bias<VEC>(prm.epilogue, c0, bias);  // paired after before_walk: NOTE [depthwise bias after the taps]
    const bool fast_epilogue = clamp_activation(prm.epilogue.act);
    // Row (p, t) of the walk is input row p*S - pad + K - S + t: consecutive rows, so the next is ih + 1.
    const int ih_last = (p_end - 1) * S - g.pad_h + K - 1;
    int ih = (p_first - (A - 1)) * S - g.pad_h + K - S;
    constexpr bool kTwoAhead =
        !Taps::kOneRowAhead && depthwise_two_rows_ahead(kInCols * static_cast<int>(sizeof(Raw<T, VEC>)),
                                                        static_cast<int>(sizeof(typename Math::Acc)) * L);
    constexpr int kSlots = kTwoAhead ? 3 : 1;
    const StripRows<T, VEC, kInCols> rows(prm, xb, iw0);
    Raw<T, VEC> ring[kSlots][kInCols];
#pragma unroll
    for (int slot = 0; slot < kSlots; ++slot)
#pragma unroll
        for (int j = 0; j < kInCols; ++j) ring[slot][j] = Raw<T, VEC>{};
    if constexpr (kTwoAhead) {
        // All three slots before the taps are staged: NOTE [depthwise three rows first].
        const int ih_first = p_first * S - g.pad_h;
#pragma unroll
        for (int j = 0; j < 3; ++j)
            rows.load(ih + j >= ih_first && ih + j <= ih_last ? ih + j : -1, ring[j]);
    } else {
        rows.load(ih, ring[0]);
    }
    before_walk();
    if (!active) return;
    taps.fetch();
    pair_strip_bias<VEC, Math>(bias, bias_h2);
    StripAcc<Math, A, COLS> acc;
    zero_strip<Math, A, COLS>(acc);
    // NOTE [depthwise accumulator rotation]: in the two-rows-ahead walk, step u's row p is slot u.
    constexpr bool kRotate = kTwoAhead && 3 % A == 0;
    auto finish = [&](int slot, int p) {
        finish_output_row<T, VEC, COLS, Math, A, kRotate, kClamp>(prm, acc, slot, bias, bias_h2, fast_epilogue,
                                                                  y_base, c0, q0, p, p_first);
    };
    if constexpr (kTwoAhead) {
        for (int p0 = p_first - (A - 1); p0 < p_end; p0 += 3) {
#pragma unroll
            for (int u = 0; u < 3; ++u) {
                if (p0 + u >= p_end) break;
                const int rot = kRotate ? u : 0;
                taps.reload_each_row();
#pragma unroll
                for (int t = 0; t < S; ++t, ++ih) {
                    const int j = u * S + t;  // this row's slot is j % 3: the pass starts on slot 0
                    if (ih >= 0 && ih < g.h)  // padding rows add nothing
                        multiply_row_in_strip<T, VEC, K, S, COLS, Math, A>(taps, ring[j % 3], t, acc, rot, p0 + u,
                                                                           p_first, p_end);
                    if (ih + 3 <= ih_last) rows.load(ih + 3, ring[j % 3]);  // the slot row ih has just left
                }
                finish(rot, p0 + u);
            }
        }
    } else {
        for (int p = p_first - (A - 1); p < p_end; ++p) {
            taps.reload_each_row();
#pragma unroll
            for (int t = 0; t < S; ++t, ++ih) {
                Raw<T, VEC> cur[kInCols];
                copy_row<T, VEC>(cur, ring[0]);
                if (ih + 1 <= ih_last) rows.load(ih + 1, ring[0]);
                if (ih >= 0 && ih < g.h)
                    multiply_row_in_strip<T, VEC, K, S, COLS, Math, A>(taps, cur, t, acc, 0, p, p_first, p_end);
            }
            finish(0, p);
        }
    }
}

// NOTE [depthwise one-row strips]
// A strip of one output row (batch 1 and the small maps at batch 8) needs no walk: its K input rows are loaded at
// once, multiplied into one accumulator row, and stored. dw_strip's walks ran it through code built for long strips:
// the two-rows-ahead walk, unrolled by three output rows, each with two copies of the multiply and the float
// epilogue's activation code, made dw_tiled_nhwc_kernel<__half, 8, 3, 1, 1, false> 11288 SASS instructions (5x5:
// 4560), and a one-row strip executes a little of each copy. Under Nsight Compute (H200, 2026-12-03, caches warm)
// 384x14k3s1 b1 fp16 ran 9881 cycles against cuDNN's 5664, with 54 of its ~120 PC samples stalled on "no
// instruction" (cuDNN: 6 of ~110), and ~3000 more of its elapsed cycles outside any SM's active time than cuDNN's or
// strata's own 5x5 kernel. So the 3x3 one-row strips of 16-byte vectors run a kernel of their own, dw_one_row: a few
// hundred straight-line instructions. 5x5 and 7x7 are left out: their K input rows of 16-byte vectors would take
// 100-200 registers at once. Measured (H200, 2026-12-03, bench/depthwise_gpu): 384x14k3s1 b1 fp16 3.09 -> 2.39 us
// (2.62 in a second call; predicted ~2.3), the batch-1 3x3 fp16 cases x0.77-0.94, the one-row batch-8 ones x0.82-0.90.

// NOTE [depthwise 5x5 one-row strips]
// The 5x5 one-row strips ran the walk: its rows one or two ahead, each a memory round trip after the one before, so
// a batch-1 5x5 launch took 4.1-5.0 us where the 3x3 ones, all K rows loaded at once, took 2.5-3.7 (H100, 2026-12-06:
// 672x14k5s1 b1 fp32 4.89 us, cuDNN 4.78). In one column of 16-byte vectors a 5x5 row window is 25 vectors, 100
// registers: dw_one_row holds them all, so the launch is one round trip for the rows, as in 3x3. Two columns (30
// vectors for stride 1, 35 for stride 2) are left to the walk. The kernel asks for one block per SM, not two, so
// that ptxas may use up to 255 registers: a one-row strip is the tile of small launches (batch 1, small maps at batch
// 8), which have fewer threads than the SMs could hold anyway; where more would pay, the tactic's configs of more
// rows compete by timing. Predicted: 5x5 batch-1 cases from 4.1-5.0 us to ~2.7. Measured (H100, 2026-12-06, fp16,
// one call, against the same build without it): 144x56k5s2 4.27 -> 3.64 us, 240x28k5s1 4.46 -> 3.70, 672x14k5s1
// 4.14 -> 3.19, 1152x7k5s1 3.90 -> 3.12 (cuDNN 4.5-7.6): a fifth faster, not the predicted third.

/// One output row p of a strip (NOTE [depthwise one-row strips]): columns [q0, q0 + COLS) x channels [c0, c0 + VEC),
/// arguments as dw_strip's.
template <class T, int VEC, int K, int S, int COLS, class Math, bool kClamp, class Taps, class BeforeWalk>
__device__ __forceinline__ void dw_one_row(const DepthwiseParams& prm, Taps taps, const T* xb, int64_t y_base, int c0,
                                           int q0, int p, bool active, BeforeWalk before_walk) {
    constexpr int L = Math::kLanes;
    constexpr int kInCols = (COLS - 1) * S + K;
    const ConvGeometry& g = prm.g;
    float bias[VEC];
    __half2 bias_h2[L];
    load_bias<VEC>(prm.epilogue, c0, bias);  // paired after before_walk: NOTE [depthwise bias after the taps]
    const bool fast_epilogue = clamp_activation(prm.epilogue.act);
    const StripRows<T, VEC, kInCols> rows(prm, xb, q0 * S - g.pad_w);
    const int ih0 = p * S - g.pad_h;
    Raw<T, VEC> in[K][kInCols];
#pragma unroll
    for (int r = 0; r < K; ++r) {
#pragma unroll
        for (int j = 0; j < kInCols; ++j) in[r][j] = Raw<T, VEC>{};
        rows.load(ih0 + r, in[r]);
    }
    before_walk();
    if (!active) return;
    taps.fetch();
    pair_strip_bias<VEC, Math>(bias, bias_h2);
    StripAcc<Math, 1, COLS> acc;
    zero_strip<Math, 1, COLS>(acc);
#pragma unroll
    for (int r = 0; r < K; ++r)  // input row r is at offset r of the window: t = r - (K - S) in multiply_row's terms
        if (ih0 + r >= 0 && ih0 + r < g.h)
            multiply_row<T, VEC, K, S, COLS, Math, 1, false>(taps, in[r], r - (K - S), acc, 0, 0, 0);
    finish_output_row<T, VEC, COLS, Math, 1, true, kClamp>(prm, acc, 0, bias, bias_h2, fast_epilogue, y_base, c0, q0, p,
                                                           p);
}

// NOTE [depthwise async rows]
// The register ring above does not keep two rows in flight after all. In the sm_90 SASS of the NHWC fp16 3x3 kernel
// every row load of a thread sets the same scoreboard (SB5), and the first HFMA2 of each row waits for that whole
// scoreboard, so for the row loaded two steps ahead too: each input row costs a full memory round trip. On
// 144x56k3s1 at batch 128 the bench's 96.5 us (2026-12-02, 61% of the copy bandwidth) is ~2850 cycles per input row
// of a warp at 16 warps per SM, about one loaded DRAM latency. cp.async groups have a counted wait instead
// (cp.async.wait_group N compiles to DEPBAR.LE SB0, N), so this walk copies each row's (COLS-1)*S+K vectors into
// the thread's own slots of a ring in shared memory, kDepthwiseAsyncAhead rows ahead of the row it multiplies, waits
// for that row alone, and reads it into registers. No barrier: a thread reads only what it copied, and its copies are
// visible to it after its wait. The copy into a slot goes where the row two before the current one was (the ring
// has kDepthwiseAsyncAhead + 2 slots): a copy is not ordered after the same thread's shared loads, and a whole row
// of arithmetic then lies between the read and the overwrite. Layout [slot][column][thread] of 16-byte vectors: a
// warp's copies and reads of one column are 512 contiguous bytes (four wavefronts, no conflicts).

/// dw_strip with its rows through the ring of NOTE [depthwise async rows]. `ring` is this thread's (slot 0, column 0)
/// vector in shared memory; its columns are `threads` vectors apart, its slots kInCols columns.
template <class T, int VEC, int K, int S, int COLS, class Math, bool kClamp, class Taps, class BeforeWalk>
__device__ __forceinline__ void dw_strip_async(const DepthwiseParams& prm, Taps taps, const T* xb, int64_t y_base,
                                               int c0, int q0, int p_first, int p_end, bool active,
                                               Raw<T, VEC>* ring, int threads, BeforeWalk before_walk) {
    constexpr int L = Math::kLanes;
    constexpr int A = (K - 1) / S + 1;
    constexpr int kInCols = (COLS - 1) * S + K;
    constexpr int kAhead = kDepthwiseAsyncAhead, kSlots = kDepthwiseAsyncSlots;
    static_assert(sizeof(Raw<T, VEC>) == 16, "the ring copies 16-byte vectors");
    const ConvGeometry& g = prm.g;
    const int iw0 = q0 * S - g.pad_w;
    float bias[VEC];
    __half2 bias_h2[L];
    load_bias<VEC>(prm.epilogue, c0, bias);  // paired after before_walk: NOTE [depthwise bias after the taps]
    const bool fast_epilogue = clamp_activation(prm.epilogue.act);
    const int ih_last = (p_end - 1) * S - g.pad_h + K - 1;
    int ih = (p_first - (A - 1)) * S - g.pad_h + K - S;  // row j of the walk is input row ih + j
    // The copies' loop invariants, computed once and pinned (NOTE [depthwise pinned addresses]): each column's offset
    // from xb in elements and its source size (0 for a column outside the map: zeros, nothing read, from the row's
    // start), the rows the walk reads, and the ring's addresses.
    const uint32_t ring_s = pinned(shared_address(ring));
    const uint32_t column_bytes = pinned(static_cast<uint32_t>(threads) * 16);
    const uint32_t slot_bytes = pinned(kInCols * column_bytes);
    const int row_stride = pinned(static_cast<int>(prm.x_stride[2]));
    const int row_last = pinned(active ? min(ih_last, g.h - 1) : -1);
    int col_off[kInCols], col_src_bytes[kInCols];
#pragma unroll
    for (int c = 0; c < kInCols; ++c) {
        const int iw = iw0 + c;
        const bool in = iw >= 0 && iw < g.w;
        col_off[c] = pinned(in ? iw * static_cast<int>(prm.x_stride[3]) : 0);
        col_src_bytes[c] = pinned(in ? 16 : 0);
    }
    // Input row `row` into `slot`: zeros for columns outside the map; nothing for rows outside it or past the strip
    // (never multiplied). Always one commit, so that every row of the walk is one group.
    auto copy_row = [&](int row, int slot) {
        if (row >= 0 && row <= row_last) {
            const T* src = xb + row * row_stride;
            const uint32_t dst = ring_s + static_cast<uint32_t>(slot) * slot_bytes;
#pragma unroll
            for (int c = 0; c < kInCols; ++c) cp_async_16(dst + c * column_bytes, src + col_off[c], col_src_bytes[c]);
        }
        cp_async_commit();
    };
#pragma unroll
    for (int j = 0; j < kAhead; ++j) copy_row(ih + j, j);
    before_walk();
    if (!active) return;
    taps.fetch();
    pair_strip_bias<VEC, Math>(bias, bias_h2);
    StripAcc<Math, A, COLS> acc;
    zero_strip<Math, A, COLS>(acc);
    int slot = 0;  // of row ih; the row kAhead on goes kAhead slots on (two behind, with kSlots = kAhead + 2)
    // NOTE [depthwise clamp epilogues]: unrolled by A where it rotates, step u's row p is accumulator slot u.
    constexpr bool kRotate = depthwise_async_rotates<K>(kClamp);
    constexpr int kSteps = kRotate ? A : 1;
    for (int p0 = p_first - (A - 1); p0 < p_end; p0 += kSteps) {
#pragma unroll
        for (int u = 0; u < kSteps; ++u) {
            const int p = p0 + u;
            if (p >= p_end) break;
            taps.reload_each_row();
#pragma unroll
            for (int t = 0; t < S; ++t, ++ih) {
                const int ahead = slot + kAhead < kSlots ? slot + kAhead : slot + kAhead - kSlots;
                copy_row(ih + kAhead, ahead);
                cp_async_wait<kAhead>();  // row ih has landed; the kAhead rows after it may still be in flight
                if (ih >= 0 && ih < g.h) {
                    const Raw<T, VEC>* row = ring + slot * kInCols * threads;
                    Raw<T, VEC> cur[kInCols];
#pragma unroll
                    for (int c = 0; c < kInCols; ++c) cur[c] = row[c * threads];
                    multiply_row_in_strip<T, VEC, K, S, COLS, Math, A>(taps, cur, t, acc, u, p, p_first, p_end);
                }
                slot = slot + 1 < kSlots ? slot + 1 : 0;
            }
            finish_output_row<T, VEC, COLS, Math, A, kRotate, kClamp>(prm, acc, u, bias, bias_h2, fast_epilogue,
                                                                      y_base, c0, q0, p, p_first);
        }
    }
}

/// Launch arguments shared by both tiled kernels (strip counts precomputed on the host).
struct TiledArgs {
    DepthwiseParams prm;
    int rows = 1;        ///< output rows per strip
    int strips_q = 1;    ///< ceil(Q / COLS)
    int strips_p = 1;    ///< ceil(P / rows)
    int64_t strips = 0;  ///< nhwc: N * strips_p * strips_q; nchw: N * C * strips_p * strips_q; < 2^31
    int cvecs = 0;       ///< nhwc: C / VEC
    int ring_offset = 0; ///< nhwc with async rows: bytes from the start of shared memory to the ring
    // A thread's strip index splits into (n, [c,] sp, sq) by these (fast_divmod.h): the 64-bit `/` and `%` they
    // replace were about half of the ~200 SASS instructions before a thread's first load (NCHW fp16 3x3), a
    // dependent chain that batch 1 waits on.
    FastDivmod by_strips_q, by_strips_p, by_channels;
};

/// The strip's coordinates: strip = ((n * C + c) * strips_p + sp) * strips_q + sq (nhwc: without c).
struct StripAt {
    uint32_t n, c, sp, sq;
};
__device__ __forceinline__ StripAt strip_at(const TiledArgs& a, uint32_t strip, bool with_channel) {
    StripAt s;
    uint32_t rows, images;
    a.by_strips_q.divmod(strip, rows, s.sq);
    a.by_strips_p.divmod(rows, images, s.sp);
    s.c = 0, s.n = images;
    if (with_channel) a.by_channels.divmod(images, s.n, s.c);
    return s;
}

// NOTE [depthwise dense taps]
// A block stages the taps of its block_c channels, K*K each, into shared memory as [tap][channel]. Element by element
// that took ceil(K*K * block_c / threads / 4) memory round trips one after another (batches of 4 loads in flight per
// thread): 2 for 144x56k3s2 (1296 taps, 252 threads), 7 for 240x28k5s1 (6000 taps, 240 threads), before the first
// multiply. Where W holds each channel's K*K taps together and the channels one after another ([C][K][K], strides
// K*K, K, 1: a depthwise filter in NCHW and in NHWC alike), the block's taps are one contiguous run of whole 16-byte
// vectors (block_c * sizeof(T) and C * sizeof(T) are multiples of 16 for the wide kernels), so each thread loads its
// vectors at once (one round trip for up to 4 per thread) and scatters their elements into the [tap][channel] layout.
// Measured (H200, 2026-12-04, bench/depthwise_gpu fp16, against the same morning's run): 240x28k5s1 b8 10.33 ->
// 8.95 us (predicted ~9.0), b1 5.95 -> 4.68, b128 63.67 -> 57.14; 144x56k3s2 b1 2.90 -> 2.74 (predicted ~2.6); the
// batch-1 3x3 maps of 14 and 7, whose taps took one round trip already, 2.30-2.57 -> 2.57-2.65 in that call. Within
// one call (bench/depthwise_gpu --weights-offset 4 puts W off 16-byte alignment, so the element path runs) the dense
// path was the faster on every case, twice over: 384x14k3s1 b1 2.47 against 2.55-2.58 us, 960x7k3s1 b1 2.55-2.57
// against 2.66-2.70, 144x56k3s2 b1 2.72 against 3.15, 240x28k5s1 b8 8.93 against 10.37: the slower batch-1 times
// were the spread between calls.

/// True when W is [C][K][K] with 16-byte alignment: stage_dense_taps applies.
__device__ __forceinline__ bool dense_taps(const DepthwiseParams& prm, int k) {
    return prm.w_stride[3] == 1 && prm.w_stride[2] == k && prm.w_stride[0] == int64_t{k} * k &&
           reinterpret_cast<uintptr_t>(prm.w) % 16 == 0;
}

/// Stages channels [c_first, c_first + block_c) of a [C][K][K] W into w_s[tap * block_c + channel] (NOTE [depthwise
/// dense taps]); channels at or past C get zeros. The caller synchronises.
template <class T, int K, class Math, int kPer>
__device__ __forceinline__ void stage_dense_taps(const T* w, int c_first, int block_c, int c, typename Math::Tap* w_s,
                                                 int nthreads) {
    constexpr int KK = K * K, kBatch = 4;
    const int nc = min(block_c, c - c_first);
    const int vecs = nc * KK / kPer;
    const uint4* src = reinterpret_cast<const uint4*>(w + c_first * KK);
    const int first = threadIdx.y * blockDim.x + threadIdx.x;
    for (int base = first; base < vecs; base += kBatch * nthreads) {
        uint4 v[kBatch];
#pragma unroll
        for (int b = 0; b < kBatch; ++b)
            if (base + b * nthreads < vecs) v[b] = __ldg(src + base + b * nthreads);
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
            const int i = base + b * nthreads;
            if (i >= vecs) break;
            T vals[kPer];
            memcpy(vals, &v[b], sizeof(vals));
#pragma unroll
            for (int e = 0; e < kPer; ++e) {
                const int elem = i * kPer + e, channel = elem / KK, tap = elem - channel * KK;
                w_s[tap * block_c + channel] = Math::stage(vals[e]);
            }
        }
    }
    for (int i = nc * KK + first; i < block_c * KK; i += nthreads) {
        const int channel = i / KK, tap = i - channel * KK;
        w_s[tap * block_c + channel] = Math::stage(from_float<T>(0.0f));
    }
}

// NOTE [depthwise async occupancy]
// The async 3x3 NHWC kernels ran at 96 registers a thread, so two blocks of 256 fit an SM (16 warps), and they are
// bound by latency there more than by issue: Nsight Compute (H200, 2026-12-04, 144x56k3s1 b32 fp16) counted 20%
// fewer instructions after NOTE [depthwise pinned addresses] for 6% less time, 0.55 instructions issued per
// scheduler-cycle. Asked for three blocks, ptxas fits the fp16 kernels in 80 registers without spilling (stride 2,
// two columns: 3 local accesses), fp32 likewise (2-3); the bf16 ones, whose lanes are floats, spilled up to 112 and
// keep two. Three blocks take 3 x ~66 KiB of shared memory for the 3x3 stride-1 ring of two columns (the stride-2 ring
// is larger: those launches stay at two blocks whatever the registers allow). Run on an H100 (2026-12-05): tests
// and both sanitizers clean, but with no same-card baseline in that call its effect on time is not yet measured.
template <class T, int K, bool ASYNC, bool ONE_ROW>
constexpr int dw_tiled_nhwc_min_blocks() {
    if (ONE_ROW && K > 3) return 1;  // NOTE [depthwise 5x5 one-row strips]
    return ASYNC && K == 3 && !std::is_same_v<T, __nv_bfloat16> ? 3 : 2;
}

// Grid: x over strips (block_y per block), y over channel blocks (blockDim.x vectors of VEC channels each). At least
// two blocks per SM (16 warps, registers capped at 128): fewer warps leave too few loads in flight to cover DRAM;
// three for the async 3x3 kernels (NOTE [depthwise async occupancy]).
// ASYNC: the rows go through a cp.async ring in shared memory after the taps (NOTE [depthwise async rows]). ONE_ROW:
// strips of one output row (a.rows == 1), NOTE [depthwise one-row strips]. CLAMP: the activation is at most a clamp
// (clamp_activation), NOTE [depthwise clamp epilogues].
template <class T, int VEC, int K, int S, int COLS, bool ASYNC, bool ONE_ROW = false, bool CLAMP = false>
__global__ void __launch_bounds__(256, (dw_tiled_nhwc_min_blocks<T, K, ASYNC, ONE_ROW>())) dw_tiled_nhwc_kernel(TiledArgs a) {
    static_assert(!(ASYNC && ONE_ROW), "a one-row strip has no rows to stream");
    using Math = typename MathFor<T, VEC>::type;
    extern __shared__ __align__(16) unsigned char smem[];
    auto* w_s = reinterpret_cast<typename Math::Tap*>(smem);  // [K*K][blockDim.x * VEC]
    const DepthwiseParams& prm = a.prm;
    const int block_c = blockDim.x * VEC;
    const int c_first = blockIdx.y * block_c;
    const T* w = static_cast<const T*>(prm.w);
    const int nthreads = blockDim.x * blockDim.y;
    // Element i of w_s is (tap i / block_c, channel i % block_c); a thread's elements are nthreads apart, so after
    // two divisions its (tap, channel) advance by addition. The loads go out kTapBatch at a time before any of them is
    // stored: storing each one as it came made a thread wait a memory round trip per element (~7 for 3x3 over 192
    // channels and 240 threads), the longest chain before a batch-1 block's first multiply.
    // Offsets into W in 32 bits: a depthwise filter has K*K*C elements.
    auto stage_taps_each = [&] {
        constexpr int kTapBatch = 4;
        const int ws0 = static_cast<int>(prm.w_stride[0]), ws2 = static_cast<int>(prm.w_stride[2]),
                  ws3 = static_cast<int>(prm.w_stride[3]);
        const int total = K * K * block_c;
        const int first = threadIdx.y * blockDim.x + threadIdx.x;
        const int step_taps = nthreads / block_c, step_c = nthreads % block_c;
        int tap = first / block_c, c = first % block_c;
        for (int base = first; base < total; base += kTapBatch * nthreads) {
            T v[kTapBatch];
#pragma unroll
            for (int b = 0; b < kTapBatch; ++b) {
                const int channel = c_first + c;
                v[b] = base + b * nthreads < total && channel < prm.g.c
                           ? __ldg(w + (channel * ws0 + (tap / K) * ws2 + (tap % K) * ws3))
                           : from_float<T>(0.0f);
                tap += step_taps, c += step_c;
                if (c >= block_c) c -= block_c, ++tap;
            }
#pragma unroll
            for (int b = 0; b < kTapBatch; ++b)
                if (base + b * nthreads < total) w_s[base + b * nthreads] = Math::stage(v[b]);
        }
    };
    auto stage_taps = [&] {
        if constexpr (VEC * sizeof(T) == 16) {
            if (dense_taps(prm, K)) {
                stage_dense_taps<T, K, Math, 16 / sizeof(T)>(w, c_first, block_c, prm.g.c, w_s, nthreads);
                __syncthreads();
                return;
            }
        }
        stage_taps_each();
        __syncthreads();
    };
    const int cvec_raw = blockIdx.y * blockDim.x + threadIdx.x;
    const uint32_t strip_raw = blockIdx.x * blockDim.y + threadIdx.y;  // < 2^31 (launch_tiled_nhwc)
    const uint32_t strips = static_cast<uint32_t>(a.strips);
    const bool active = cvec_raw < a.cvecs && strip_raw < strips;
    const int cvec = min(cvec_raw, a.cvecs - 1);
    const StripAt at = strip_at(a, strip_raw < strips ? strip_raw : strips - 1, false);
    const int sq = static_cast<int>(at.sq), sp = static_cast<int>(at.sp), n = static_cast<int>(at.n);
    const int c0 = cvec * VEC;
    const int p_first = sp * a.rows;
    const int p_end = min(p_first + a.rows, prm.g.p);
    // Pinned: NOTE [depthwise pinned addresses].
    const T* xb = pinned(static_cast<const T*>(prm.x) + n * prm.x_stride[0] + c0 * prm.x_stride[1]);
    const int64_t y_base = pinned(n * prm.y_stride[0] + c0 * prm.y_stride[1]);
    const SharedTaps<Math, VEC> taps{w_s + threadIdx.x * VEC, block_c};
    // Launched with PDL, the taps (weights) are staged while the earlier kernel ends and the rows are read after the
    // wait; without it the rows' loads go first and the taps' overlap them (one memory round trip at batch 1).
    if (prm.pdl) {
        stage_taps();
        pdl_wait();
        pdl_launch_dependents();
    }
    auto before_walk = [&] {
        if (!prm.pdl) stage_taps();
    };
    if constexpr (ONE_ROW) {
        dw_one_row<T, VEC, K, S, COLS, Math, CLAMP>(prm, taps, xb, y_base, c0, sq * COLS, p_first, active, before_walk);
    } else if constexpr (ASYNC) {
        // The thread's index pinned, not the pointer: through the asm a pointer loses its shared address space and
        // the ring's reads became generic loads.
        const int thread = pinned(static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x));
        auto* ring = reinterpret_cast<Raw<T, VEC>*>(smem + a.ring_offset) + thread;
        dw_strip_async<T, VEC, K, S, COLS, Math, CLAMP>(prm, taps, xb, y_base, c0, sq * COLS, p_first, p_end, active,
                                                        ring, nthreads, before_walk);
    } else if constexpr (VEC * sizeof(T) == 8) {  // NOTE [depthwise register taps]
        static_assert(K <= 5, "7x7 taps do not fit in registers");
        dw_strip<T, VEC, K, S, COLS, Math, CLAMP>(prm, RegisterTaps<Math, VEC, K>{taps}, xb, y_base, c0, sq * COLS,
                                                  p_first, p_end, active, before_walk);
    } else {
        dw_strip<T, VEC, K, S, COLS, Math, CLAMP>(prm, taps, xb, y_base, c0, sq * COLS, p_first, p_end, active,
                                                  before_walk);
    }
}

// One thread per strip of one channel; strips of a row are neighbours so that lanes walk along W.
template <class T, int K, int S, int COLS>
__global__ void __launch_bounds__(256) dw_tiled_nchw_kernel(TiledArgs a) {
    const DepthwiseParams& prm = a.prm;
    if (prm.pdl) {  // before any thread can leave: NOTE [programmatic dependent launch]
        pdl_wait();
        pdl_launch_dependents();
    }
    const uint32_t strip = blockIdx.x * blockDim.x + threadIdx.x;  // < 2^31 (launch_tiled_nchw)
    if (strip >= static_cast<uint32_t>(a.strips)) return;
    const StripAt at = strip_at(a, strip, true);
    const int sq = static_cast<int>(at.sq), sp = static_cast<int>(at.sp);
    const int c = static_cast<int>(at.c), n = static_cast<int>(at.n);
    const int p_first = sp * a.rows;
    const int p_end = min(p_first + a.rows, prm.g.p);
    const T* xb = static_cast<const T*>(prm.x) + n * prm.x_stride[0] + c * prm.x_stride[1];
    const int64_t y_base = n * prm.y_stride[0] + c * prm.y_stride[1];
    GlobalTaps<T, K> taps{static_cast<const T*>(prm.w) + c * prm.w_stride[0], prm.w_stride[2], prm.w_stride[3]};
    taps.prefetch();
    dw_strip<T, 1, K, S, COLS, FloatMath<T, 1>, false>(prm, taps, xb, y_base, c, sq * COLS, p_first, p_end, true,
                                                       [] {});
}

/// Calls f(integral_constant K, integral_constant S) for the specialised (K, S); false when there is none.
template <class F>
bool with_kernel_stride(int k, int s, F&& f) {
    auto one = [&](auto kc, auto sc) {
        if (k != decltype(kc)::value || s != decltype(sc)::value) return false;
        f(kc, sc);
        return true;
    };
    using std::integral_constant;
    return one(integral_constant<int, 3>{}, integral_constant<int, 1>{}) ||
           one(integral_constant<int, 3>{}, integral_constant<int, 2>{}) ||
           one(integral_constant<int, 5>{}, integral_constant<int, 1>{}) ||
           one(integral_constant<int, 5>{}, integral_constant<int, 2>{}) ||
           one(integral_constant<int, 7>{}, integral_constant<int, 1>{}) ||
           one(integral_constant<int, 7>{}, integral_constant<int, 2>{});
}

inline TiledArgs tiled_args(const DepthwiseParams& prm, const DepthwiseTile& tile, bool nhwc) {
    const ConvGeometry& g = prm.g;
    TiledArgs a;
    a.prm = prm;
    a.rows = tile.rows;
    a.strips_q = (g.q + tile.cols - 1) / tile.cols;
    a.strips_p = (g.p + tile.rows - 1) / tile.rows;
    a.strips = int64_t{g.n} * a.strips_p * a.strips_q * (nhwc ? 1 : g.c);
    a.cvecs = nhwc ? g.c / tile.vec : 0;
    a.ring_offset = tile.async_rows ? static_cast<int>(depthwise_async_ring_offset(prm, tile)) : 0;
    a.by_strips_q = FastDivmod(static_cast<uint32_t>(a.strips_q));
    a.by_strips_p = FastDivmod(static_cast<uint32_t>(a.strips_p));
    a.by_channels = FastDivmod(static_cast<uint32_t>(g.c));
    return a;
}

/// The kernels index strips (and, in NHWC, the grid's strip rows) in 32 bits.
inline bool strips_fit_32_bits(const TiledArgs& a, unsigned grid_x, unsigned per_block) {
    return a.strips < (int64_t{1} << 31) && int64_t{grid_x} * per_block < (int64_t{1} << 31);
}

/// The kernels index inside one image (from X's and Y's element (n, c0) on) in 32 bits: StripRows, the stores.
inline bool image_offsets_fit_32_bits(const DepthwiseParams& prm) {
    const ConvGeometry& g = prm.g;
    auto reach = [](int64_t rows, int64_t row_stride, int64_t cols, int64_t col_stride) {
        return (rows - 1) * (row_stride < 0 ? -row_stride : row_stride) +
               (cols - 1) * (col_stride < 0 ? -col_stride : col_stride);
    };
    const int64_t limit = (int64_t{1} << 31) - 64;  // 64: a vector's channels beyond the last offset
    return reach(g.h, prm.x_stride[2], g.w, prm.x_stride[3]) < limit &&
           reach(g.p, prm.y_stride[2], g.q, prm.y_stride[3]) < limit;
}

/// The async-row kernel: its ring takes more than the 48 KiB a launch gets without opting in
/// (allow_shared_memory_optin). The tactic refuses tiles beyond the opt-in maximum (make_depthwise_async).
template <class Kernel>
void launch_async_nhwc(Kernel kernel, dim3 grid, dim3 block, size_t smem, cudaStream_t stream, const TiledArgs& a) {
    allow_shared_memory_optin(kernel, "depthwise async launch");
    launch_kernel(kernel, grid, block, smem, stream, a.prm.pdl, a);
}

/// The NHWC kernel of `tile` for T, compiled for clamp epilogues where CLAMP (NOTE [depthwise clamp epilogues]).
template <class T, bool CLAMP>
bool launch_tiled_nhwc_for(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    constexpr int kWide = 16 / sizeof(T), kNarrow = 4 / sizeof(T), kMid = 8 / sizeof(T);
    // 8-byte vectors: the register-taps strips of two columns, 3x3 and 5x5, not bf16 (NOTE [depthwise register
    // taps]; make_depthwise_register_taps).
    constexpr bool kHasMid = !std::is_same_v<T, __nv_bfloat16>;
    const bool mid = kHasMid && tile.register_taps && tile.vec == kMid;
    if (tile.register_taps && !mid) return false;
    const TiledArgs a = tiled_args(prm, tile, true);
    const dim3 grid(static_cast<unsigned>((a.strips + tile.block_y - 1) / tile.block_y),
                    static_cast<unsigned>((a.cvecs + tile.block_x - 1) / tile.block_x));
    const dim3 block(tile.block_x, tile.block_y);
    const size_t smem = depthwise_smem_bytes(prm, tile);
    const bool wide = tile.vec == kWide;
    if (!wide && !mid && tile.vec != kNarrow) return false;  // no kernel for this width: the generic one runs
    if (mid && (tile.async_rows || tile.cols != 2 || prm.g.r > 5)) return false;
    if (!strips_fit_32_bits(a, grid.x, block.y) || !image_offsets_fit_32_bits(prm)) return false;
    if (tile.async_rows && !wide) return false;
    return with_kernel_stride(prm.g.r, prm.g.stride_h, [&](auto kc, auto sc) {
        constexpr int K = decltype(kc)::value, S = decltype(sc)::value;
        auto go = [&](auto vc, auto cc) {
            constexpr int VEC = decltype(vc)::value;
            // Narrow vectors (odd channel counts) keep one kernel for every epilogue.
            launch_kernel(dw_tiled_nhwc_kernel<T, VEC, K, S, decltype(cc)::value, false, false, CLAMP && VEC != kNarrow>,
                          grid, block, smem, stream, prm.pdl, a);
        };
        using std::integral_constant;
        if constexpr (K == 3 || K == 5) {  // NOTE [depthwise one-row strips], [depthwise 5x5 one-row strips]
            if (depthwise_one_row(prm.g, tile, static_cast<int>(sizeof(T)))) {
                if (K == 3 && tile.cols == 2)
                    launch_kernel(dw_tiled_nhwc_kernel<T, kWide, K, S, K == 3 ? 2 : 1, false, true, CLAMP>, grid,
                                  block, smem, stream, prm.pdl, a);
                else
                    launch_kernel(dw_tiled_nhwc_kernel<T, kWide, K, S, 1, false, true, CLAMP>, grid, block, smem,
                                  stream, prm.pdl, a);
                return;
            }
        }
        if constexpr (kHasMid && K <= 5) {
            if (mid) {
                go(integral_constant<int, kMid>{}, integral_constant<int, 2>{});
                return;
            }
        }
        if (tile.async_rows) {
            if (tile.cols == 2)
                launch_async_nhwc(dw_tiled_nhwc_kernel<T, kWide, K, S, 2, true, false, CLAMP>, grid, block, smem,
                                  stream, a);
            else
                launch_async_nhwc(dw_tiled_nhwc_kernel<T, kWide, K, S, 1, true, false, CLAMP>, grid, block, smem,
                                  stream, a);
        } else if (wide && tile.cols == 2)
            go(integral_constant<int, kWide>{}, integral_constant<int, 2>{});
        else if (wide)
            go(integral_constant<int, kWide>{}, integral_constant<int, 1>{});
        else if (tile.cols == 2)
            go(integral_constant<int, kNarrow>{}, integral_constant<int, 2>{});
        else
            go(integral_constant<int, kNarrow>{}, integral_constant<int, 1>{});
    });
}

/// bf16 keeps one kernel per tile, which holds down the library's compile time: the clamp kernels are a second copy
/// of every wide one, and bf16's 5x5 and 7x7 wide strips spill already.
template <class T>
bool launch_tiled_nhwc(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    if constexpr (!std::is_same_v<T, __nv_bfloat16>)
        if (clamp_activation(prm.epilogue.act)) return launch_tiled_nhwc_for<T, true>(prm, tile, stream);
    return launch_tiled_nhwc_for<T, false>(prm, tile, stream);
}

template <class T>
bool launch_tiled_nchw(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    const TiledArgs a = tiled_args(prm, tile, false);
    const unsigned blocks = static_cast<unsigned>((a.strips + tile.block_x - 1) / tile.block_x);
    if (!strips_fit_32_bits(a, blocks, static_cast<unsigned>(tile.block_x)) || !image_offsets_fit_32_bits(prm))
        return false;
    return with_kernel_stride(prm.g.r, prm.g.stride_h, [&](auto kc, auto sc) {
        constexpr int K = decltype(kc)::value, S = decltype(sc)::value;
        if (tile.cols == 4)
            launch_kernel(dw_tiled_nchw_kernel<T, K, S, 4>, blocks, tile.block_x, 0, stream, prm.pdl, a);
        else
            launch_kernel(dw_tiled_nchw_kernel<T, K, S, 1>, blocks, tile.block_x, 0, stream, prm.pdl, a);
    });
}

}  // namespace strata::cuda::dw
