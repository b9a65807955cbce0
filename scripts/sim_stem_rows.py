#!/usr/bin/env python3
"""sim_stem_rows.py: a numpy model of config 1 ("rows", kStemRows) of cuda.conv.stem_gemm, the tensor-core stem
convolution for 3-channel inputs (3x3 / 7x7, stride 2, NHWC fp16/bf16; NOTE [stem rows] in stem_gemm.cu), for
checking its index math and synchronisation on a machine without a GPU. It mirrors, step by step:
  - stem_gemm_tactic.cpp / stem_gemm.cu / stem_gemm.h (host): stem_gemm_can_implement's geometry checks (what the
    rows kernel refuses, in the same order, with the same reasons), kernel_for's (KS, R, S, C) per filter size,
    stem_gemm_smem_bytes(kStemRows, ...) on top of narrow_gemm_smem_bytes (pw_padded_c / pw_padded_k), the grid
    min(N * P * ceil(Q / 128), per_sm * sm_count), kNarrowThreads = 256 threads per block;
  - stem_rows_kernel (stem_gemm.cu): the shared-memory carve-up (w_frag, bias_s, rows [R + 1][kLen]), row_width /
    staged_row_length, RowsWeights::pair, the zero row, each lane's offset[KS][2], the persistent task loop (task ->
    image_row, q0, n, p), the two __syncthreads per task, the input-row staging (thread e % 256 copies element e of
    each of the R rows: column e / C, channel e % C, zero outside the image), `if (q_tile >= out_w) continue`, the
    32-bit shared loads of a[ks][0..3] from `base`;
  - narrow_gemm.cuh: narrow_stage_weights (i -> word, lane, half, ks, kg -> nt, reg, ch, c0; bias_s) and
    narrow_group_mma_store (the float4 bias reads, accumulators initialised from the bias, the uint4 B fragments
    lo / hi, 4 n-tiles x KS mma, `if (ch >= prm.k) return` after them, v[r * 8 + j], the 16-byte residual loads and
    Y stores of rows pix0 and pix0 + 8 below `end` = the end of the image row);
  - mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}: modelled from the PTX ISA's documented fragment layouts (a
    model of the ISA description, not of hardware), lane = 4 * groupID + threadID_in_group, g = groupID,
    t = threadID_in_group: A (row-major 16x16, 4 .b32 registers of 2 halves, lower half = lower column):
    a0a1 (row g, cols 2t, 2t+1), a2a3 (row g+8, same cols), a4a5 (row g, cols 2t+8, 2t+9), a6a7 (row g+8, cols
    2t+8, 2t+9); B (col-major 16x8, 2 registers): b0b1 (rows 2t, 2t+1, col g), b2b3 (rows 2t+8, 2t+9, col g);
    C / D (f32, 4 registers): c0c1 (row g, cols 2t, 2t+1), c2c3 (row g+8, cols 2t, 2t+1).
Shared memory is a flat byte array of exactly stem_gemm_smem_bytes per block (base 16-byte aligned). Every byte
records the thread that last wrote it and the barrier interval of that write, and the interval and thread(s) of its
last read. The model asserts: every shared access inside the allocation and aligned to its size (2-byte staging
stores, 4-byte weight / bias stores, 4-byte A loads, 16-byte B and float4 bias loads); no read of a byte nobody wrote;
no read of another thread's write, no write over another thread's write or read, without a __syncthreads in between
(conservative: no intra-warp ordering is assumed; the kernel has no __syncwarp). Every 2-byte element carries a tag
(the global X / W / bias element it came from, zero padding, the zero row), and each register half of every lane's
A and B fragments is checked against the definition: A[pixel][k] for reduction position k = r * row_width + j must be
the im2col tap (r, s = j / 3, c = j % 3) of that pixel (the X element, or zero padding outside the image); the pad
column j = 3S and the positions past R rows (the zero row) must meet zero weights in B, and B[k][n] of n-tile nt in
group kg must be W[channel][r][s][c] for the channel the epilogue stores column n to. Global memory: every X, W,
bias and residual read inside its tensor (X may be strided with NaN gaps, which a read would show); every Y store
16-byte aligned, inside Y and inside the current image row, every output element written exactly once (counted over
all blocks). Arithmetic is float64 on fp16-representable data and compared with a plain numpy convolution (bias,
optional residual, identity activation). T (__half or __nv_bfloat16) changes no index, so each case runs once.
What it cannot check: the hardware itself (mma.sync, ld.shared and bar.sync are taken as the ISA describes them);
fp16 / bf16 rounding of pack2 / unpack2 and the fp32 accumulation order; the activations (elementwise, not index
math); bank conflicts, register use and the real cudaOccupancyMaxActiveBlocksPerMultiprocessor value (per_sm here
is an estimate from shared memory and threads, plus small SM counts that make blocks walk several tasks);
concurrency between blocks (they run one after another; a second write to an output is still counted); NaN / Inf
inputs (the pad column of each staged row reads a neighbouring real input against a zero weight: 0 * Inf would be
NaN; finite data here); compiler behaviour (unrolling, `offset` in registers); the GPU test harness itself. The real
check is tests/gpu/test_conv_stem_gemm.cpp on a GPU. Needs numpy:
    python3 scripts/sim_stem_rows.py [seed]
"""
import sys
import time

import numpy as np

rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)

# ---- constants of pointwise_narrow.h / narrow_gemm.cuh / stem_gemm.h / stem_gemm.cu ----
K_PW_WARPS = 8
K_PW_TILE_ROWS = 16
K_PW_GROUP_CHANNELS = 32
K_NARROW_THREADS = K_PW_WARPS * 32
K_STEM_GATHER, K_STEM_ROWS = 0, 1
K_ROWS_SEGMENT = K_PW_WARPS * K_PW_TILE_ROWS  # kRowsSegment = 128
K_MAX_ELEMENTS = 2 ** 31 - 1
# H200 (sm_90): cudaDevAttrMaxSharedMemoryPerBlockOptin, shared memory per SM, 1 KiB reserved per block, SMs.
SMEM_OPTIN = 232448
SMEM_PER_SM = 233472
SMEM_RESERVED = 1024
SM_COUNT = 132


class SimError(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise SimError(msg() if callable(msg) else msg)


def ceil_div(a, b):
    return (a + b - 1) // b


def pw_padded_c(c):
    return (c + 15) // 16 * 16


def pw_padded_k(k):
    return (k + K_PW_GROUP_CHANNELS - 1) // K_PW_GROUP_CHANNELS * K_PW_GROUP_CHANNELS


def narrow_gemm_smem_bytes(c, k, rows):
    cp, kp = pw_padded_c(c), pw_padded_k(k)
    return kp * cp * 2 + kp * 4 + K_PW_WARPS * rows * (cp + 8) * 2


def row_width(s, c):  # row_width<S, C>()
    return (s * c + 1) // 2 * 2


def staged_row_length(s, c):  # staged_row_length<S, C>()
    return 2 * c * K_ROWS_SEGMENT + row_width(s, c)


def stem_gemm_smem_bytes(config, r, s, c, k):
    if config == K_STEM_ROWS:
        width = (s * c + 1) // 2 * 2
        length = 2 * c * K_ROWS_SEGMENT + width
        return narrow_gemm_smem_bytes(r * width, k, 0) + (r + 1) * length * 2
    return narrow_gemm_smem_bytes(r * s * c, k, 32)


def kernel_for(config, r, s, c):
    """(KS, R, S, C) of the template kernel_for picks, or None (nullptr)."""
    if c != 3 or r != s or r not in (3, 7):
        return None
    if config in (K_STEM_GATHER, K_STEM_ROWS):
        return (2, 3, 3, 3) if r == 3 else (10, 7, 7, 3)
    return None


class Geo:
    """ConvGeometry of the step: pad_h / pad_w are the top / left pads (bottom / right only shape P, Q)."""

    def __init__(self, n, c, h, w, k, r, s, sh=2, sw=2, dh=1, dw=1, pt=0, pl=0, pb=0, pr=0):
        self.n, self.c, self.h, self.w, self.k, self.r, self.s = n, c, h, w, k, r, s
        self.stride_h, self.stride_w, self.dil_h, self.dil_w = sh, sw, dh, dw
        self.pad_h, self.pad_w, self.pad_b, self.pad_r = pt, pl, pb, pr
        self.p = (h + pt + pb - ((r - 1) * dh + 1)) // sh + 1
        self.q = (w + pl + pr - ((s - 1) * dw + 1)) // sw + 1

    def out_pixels(self):
        return self.n * self.p * self.q

    def str(self):
        return (f"N{self.n} H{self.h} W{self.w} K{self.k} {self.r}x{self.s} s{self.stride_h}x{self.stride_w} "
                f"pad t{self.pad_h} l{self.pad_w} b{self.pad_b} r{self.pad_r} -> P{self.p} Q{self.q}")


def can_implement(g, config=K_STEM_ROWS, dtype="f16", rank=4, krsc=True, nhwc_out=True, group=1, cc=90,
                  optin=SMEM_OPTIN, gate_open=True):
    """stem_gemm_can_implement on the geometry (conv_dtype_problem taken as passing: every input in the compute
    dtype, bias float32)."""
    if rank != 4:
        return "2-D convolutions only"
    if not krsc or not nhwc_out:
        return "needs KRSC weights and an nhwc output"
    if dtype not in ("f16", "bf16"):
        return f"fp16 and bf16 only (dtype {dtype})"
    if group != 1:
        return f"groups > 1 (group = {group})"
    if not (g.c == 3 and g.r == g.s and g.r in (3, 7)):
        return f"3x3 or 7x7 kernels on 3 input channels only ({g.r}x{g.s} on C = {g.c})"
    if g.k % 8 != 0:
        return f"needs K % 8 == 0 (K = {g.k})"
    if config == K_STEM_ROWS and (g.stride_h != 2 or g.stride_w != 2 or g.dil_h != 1 or g.dil_w != 1):
        return (f"the rows kernel: stride 2 and dilation 1 only (stride {g.stride_h}x{g.stride_w}, dilation "
                f"{g.dil_h}x{g.dil_w})")
    if g.n * g.c * g.h * g.w > K_MAX_ELEMENTS or g.out_pixels() * g.k > K_MAX_ELEMENTS:
        return "a tensor has 2^31 elements or more"
    if cc < 80:
        return "needs sm_80 or newer (mma.sync m16n8k16, ldmatrix)"
    smem = stem_gemm_smem_bytes(config, g.r, g.s, g.c, g.k)
    if smem > optin:
        return f"needs {smem} bytes of shared memory per block (K = {g.k} too large; most {optin})"
    if config == K_STEM_ROWS and not gate_open:
        return "not yet verified on a GPU (STRATA_UNVERIFIED_TACTICS=1 enables it)"
    return ""


def per_sm_estimate(smem):
    """Blocks per SM from shared memory and threads only (registers are not known here)."""
    return max(0, min(2048 // K_NARROW_THREADS, 32, SMEM_PER_SM // (smem + SMEM_RESERVED)))


def tactic_grid(g, per_sm, sm_count):
    """StemGemmKernel's grid_ for config 1."""
    wanted = g.n * g.p * ((g.q + K_PW_WARPS * K_PW_TILE_ROWS - 1) // (K_PW_WARPS * K_PW_TILE_ROWS))
    return min(wanted, per_sm * sm_count)


# ---- tags of shared elements: where a 2-byte value came from ----
UNWRITTEN = -9  # (the writer array says so too)
ZERO_PAD = -1   # a zero written for a tap outside the image / a weight past the reduction or K / bias past K
ZERO_ROW = -2   # the extra zero row [R] of the staged rows


class Smem:
    """One block's dynamic shared memory with the bookkeeping of the docstring."""

    def __init__(self, nbytes):
        self.n = nbytes
        self.val = np.zeros((nbytes + 1) // 2)                # one value per 2-byte element
        self.tag = np.full((nbytes + 1) // 2, UNWRITTEN, np.int64)
        self.writer = np.full(nbytes, -1, np.int32)
        self.wep = np.full(nbytes, -1, np.int64)              # barrier interval of the last write
        self.rep = np.full(nbytes, -1, np.int64)              # barrier interval of the last read
        self.reader = np.full(nbytes, -1, np.int32)           # its reader, -2 = several threads
        self.epoch = 0

    def sync(self):  # __syncthreads(): every thread of the block at the same barrier
        self.epoch += 1

    def _bytes(self, addr, size, what):
        addr = np.asarray(addr, np.int64)
        check((addr % size == 0).all(), lambda: f"{what}: {size}-byte shared access not {size}-byte aligned")
        check(addr.size == 0 or (addr.min() >= 0 and addr.max() + size <= self.n),
              lambda: f"{what}: shared access outside the {self.n} allocated bytes "
                      f"({addr.min()}..{addr.max() + size - 1})")
        return (addr.reshape(-1, 1) + np.arange(size)).ravel()

    def write(self, addr, size, tids, vals, tags, what):
        """st.shared of `size` bytes at byte addresses addr (m,) by threads tids (m,): vals / tags (m, size // 2)."""
        b = self._bytes(addr, size, what)
        t = np.repeat(np.asarray(tids, np.int32).reshape(-1), size)
        check(len(np.unique(b)) == len(b), f"{what}: two stores of one statement write the same shared byte")
        same = self.wep[b] == self.epoch
        check(not (same & (self.writer[b] != t)).any(),
              f"{what}: write over another thread's write of the same barrier interval")
        rd = self.rep[b] == self.epoch
        check(not (rd & (self.reader[b] != t)).any(),
              f"{what}: write over a byte another thread read in the same barrier interval (no __syncthreads)")
        self.writer[b] = t
        self.wep[b] = self.epoch
        e = (np.asarray(addr, np.int64) // 2).reshape(-1, 1) + np.arange(size // 2)
        self.val[e] = np.asarray(vals).reshape(e.shape)
        self.tag[e] = np.asarray(tags).reshape(e.shape)

    def plan(self, addr, size, tids, what):
        """A read statement, addresses addr (any shape) by threads tids (broadcast): precomputed once, executed
        (read()) every time the kernel runs the statement with the same addresses."""
        addr = np.asarray(addr, np.int64)
        tids = np.broadcast_to(np.asarray(tids, np.int64), addr.shape)
        b = self._bytes(addr, size, what)
        t = np.repeat(tids.reshape(-1), size).astype(np.int32)
        key = b * 4096 + t
        uk = np.unique(key)
        ub, first, cnt = np.unique(uk // 4096, return_index=True, return_counts=True)
        reader = np.where(cnt > 1, -2, uk[first] % 4096).astype(np.int32)
        return dict(b=b, t=t, ub=ub, reader=reader, what=what, elems=addr // 2, size=size)

    def read(self, pl):
        b, t, what = pl["b"], pl["t"], pl["what"]
        w = self.writer[b]
        check((w >= 0).all(), lambda: f"{what}: read of shared bytes nobody wrote "
                                      f"(e.g. byte {b[np.argmax(w < 0)]})")
        fresh = self.wep[b] == self.epoch
        check(not (fresh & (w != t)).any(),
              f"{what}: read of another thread's write without a __syncthreads in between")
        ub, reader = pl["ub"], pl["reader"]
        prev = self.rep[ub] == self.epoch
        old = self.reader[ub]
        self.reader[ub] = np.where(prev & (old != reader), -2, reader)
        self.rep[ub] = self.epoch
        e = pl["elems"][..., None] + np.arange(pl["size"] // 2)
        return self.val[e], self.tag[e]


# ---- mma.sync m16n8k16 fragment layouts (PTX ISA) ----
LANE = np.arange(32)
GID, TIG = LANE // 4, LANE % 4


def a_frag_coords():
    """(32, 4 regs, 2 halves) -> (row, col) of A 16x16."""
    row = np.empty((32, 4, 2), np.int64)
    col = np.empty((32, 4, 2), np.int64)
    for reg in range(4):
        for e in range(2):
            row[:, reg, e] = GID + 8 * (reg % 2)
            col[:, reg, e] = 2 * TIG + e + 8 * (reg // 2)
    return row, col


def b_frag_coords():
    """(32, 2 regs, 2 halves) -> (k row, n col) of B 16x8."""
    row = np.empty((32, 2, 2), np.int64)
    col = np.empty((32, 2, 2), np.int64)
    for reg in range(2):
        for e in range(2):
            row[:, reg, e] = 2 * TIG + e + 8 * reg
            col[:, reg, e] = GID
    return row, col


def c_frag_coords():
    """(32, 4 regs) -> (row, col) of C / D 16x8."""
    row = np.empty((32, 4), np.int64)
    col = np.empty((32, 4), np.int64)
    for i in range(4):
        row[:, i] = GID + 8 * (i // 2)
        col[:, i] = 2 * TIG + i % 2
    return row, col


A_ROW, A_COL = a_frag_coords()
B_ROW, B_COL = b_frag_coords()
C_ROW, C_COL = c_frag_coords()


def isa_layout_self_check():
    """Each layout covers its matrix exactly once (a check of this transcription of the ISA)."""
    ok = True
    for (r, c, shape) in ((A_ROW, A_COL, (16, 16)), (B_ROW, B_COL, (16, 8)), (C_ROW, C_COL, (16, 8))):
        m = np.zeros(shape, np.int64)
        np.add.at(m, (r.ravel(), c.ravel()), 1)
        ok &= bool((m == 1).all())
    return ok


# ---- the kernel ----
class Launch:
    """Everything of one launch of stem_rows_kernel<T, KS, R, S, C> that does not depend on the block."""

    def __init__(self, g, smem_bytes):
        ks_r_s_c = kernel_for(K_STEM_ROWS, g.r, g.s, g.c)
        check(ks_r_s_c is not None, "kernel_for returned nullptr for a shape can_implement accepted")
        self.KS, self.R, self.S, self.C = ks_r_s_c
        KS, R, S, C = ks_r_s_c
        self.kWidth, self.kLen = row_width(S, C), staged_row_length(S, C)
        check(KS * 16 <= (R + 1) * self.kWidth, "static_assert: k-steps past the last row must land in the zero row")
        check(KS * 16 >= R * self.kWidth, "the k-steps do not cover the R staged rows")
        self.smem_bytes = smem_bytes
        self.groups = (g.k + K_PW_GROUP_CHANNELS - 1) // K_PW_GROUP_CHANNELS
        self.w_frag = 0
        self.bias_s = self.groups * K_PW_GROUP_CHANNELS * KS * 16 * 2
        self.rows = self.bias_s + self.groups * K_PW_GROUP_CHANNELS * 4   # byte offset of rows[0]
        check(self.rows % 16 == 0 and self.bias_s % 16 == 0, "shared regions not 16-byte aligned")
        check(self.rows + (R + 1) * self.kLen * 2 == smem_bytes,
              f"device carve-up ends at {self.rows + (R + 1) * self.kLen * 2}, host allocates {smem_bytes}")
        # offset[KS][2] per lane (in elements)
        ks = np.arange(KS)[:, None, None]
        h = np.arange(2)[None, :, None]
        k = ks * 16 + 2 * (LANE % 4)[None, None, :] + 8 * h
        self.offset = (k // self.kWidth * self.kLen + k % self.kWidth).transpose(2, 0, 1)  # (32, KS, 2)

    def make_plans(self, sm):
        """The read statements whose addresses depend neither on the task nor on the block (sm: for the bounds)."""
        KS, groups = self.KS, self.groups
        # A fragments for warps 0 .. na-1 (q_tile increases with the warp: the active warps are a prefix)
        self.a_plans = {}
        warp = np.arange(K_PW_WARPS)
        base = self.rows // 2 + 2 * self.C * (warp[:, None] * K_PW_TILE_ROWS + LANE[None, :] // 4)  # (8, 32) elems
        off = self.offset[None]  # (1, 32, KS, 2)
        el = np.empty((K_PW_WARPS, 32, KS, 4), np.int64)
        el[..., 0] = base[..., None] + off[..., 0]
        el[..., 1] = base[..., None] + 2 * self.C * 8 + off[..., 0]
        el[..., 2] = base[..., None] + off[..., 1]
        el[..., 3] = base[..., None] + 2 * self.C * 8 + off[..., 1]
        self.a_elems = el
        tid = warp[:, None, None, None] * 32 + LANE[None, :, None, None]
        for na in range(1, K_PW_WARPS + 1):
            self.a_plans[na] = sm.plan(el[:na] * 2, 4, tid[:na], "A fragment ld.shared.b32")
        # B fragments: w_frag[((kg * KS + ks) * 2 + half) * 32 + lane], uint4, by every lane of every active warp
        kg = np.arange(groups)[:, None, None, None]
        ksa = np.arange(KS)[None, :, None, None]
        half = np.arange(2)[None, None, :, None]
        idx = ((kg * KS + ksa) * 2 + half) * 32 + LANE[None, None, None, :]  # (groups, KS, 2, 32)
        self.b_plans, self.bias_plans = {}, {}
        ch = np.arange(groups)[:, None] * K_PW_GROUP_CHANNELS + 8 * TIG[None, :]  # (groups, 32)
        for na in range(1, K_PW_WARPS + 1):
            w = np.arange(na)[:, None, None, None, None]
            addr = np.broadcast_to(self.w_frag + idx[None] * 16, (na,) + idx.shape)
            self.b_plans[na] = sm.plan(addr, 16, w * 32 + LANE, "B fragment ld.shared.v4")
            ba = np.empty((na, groups, 32, 2), np.int64)
            ba[..., 0] = self.bias_s + ch[None] * 4
            ba[..., 1] = self.bias_s + (ch[None] + 4) * 4
            self.bias_plans[na] = sm.plan(ba, 16, np.arange(na)[:, None, None, None] * 32 + LANE[None, None, :, None],
                                          "bias float4 ld.shared")


def run_kernel(g, L, grid, X, x_stride, x_real, Wt, bias, Z, Y, count, io):
    """stem_rows_kernel over `grid` blocks of 256 threads. X, Wt, bias, Z: flat float64 (Wt KRSC, bias or None,
    Z the residual or None); x_real: which X elements are real (not gaps); Y / count: flat output and write counts;
    io: dict of counters."""
    KS, R, S, C, kWidth, kLen, groups = L.KS, L.R, L.S, L.C, L.kWidth, L.kLen, L.groups
    K = g.k
    segments = (g.q + K_ROWS_SEGMENT - 1) // K_ROWS_SEGMENT
    tasks = (g.out_pixels() // g.q) * segments
    check(tasks == g.n * g.p * segments, "tasks != N * P * segments")
    Ysize = g.out_pixels() * K

    # narrow_stage_weights: the same for every block
    total = groups * KS * 2 * 32 * 4
    i = np.arange(total)
    word, lane, half, ks, kg = i % 4, (i // 4) % 32, (i // 128) % 2, (i // 256) % KS, i // (256 * KS)
    nt, reg = 2 * half + word // 2, word % 2
    gg, tt = lane // 4, lane % 4
    ch = kg * K_PW_GROUP_CHANNELS + 8 * (gg >> 1) + 2 * nt + (gg & 1)
    c0 = ks * 16 + reg * 8 + 2 * tt
    # RowsWeights::pair(ch, c0)
    r_ = c0 // kWidth
    j_ = c0 - r_ * kWidth
    check((j_ % 2 == 0).all(), "a weight pair straddles two rows")
    live = (ch < K) & (r_ < R) & (j_ < S * C)
    at = (ch * R + r_) * S * C + j_
    hi_live = live & (j_ + 1 < S * C)
    check((at[live] >= 0).all() and (at[live] < Wt.size).all(), "weight read outside W")
    check((at[hi_live] + 1 < Wt.size).all(), "weight read outside W")
    w_vals = np.zeros((total, 2))
    w_tags = np.full((total, 2), ZERO_PAD, np.int64)
    w_vals[live, 0], w_tags[live, 0] = Wt[at[live]], at[live]
    w_vals[hi_live, 1], w_tags[hi_live, 1] = Wt[at[hi_live] + 1], at[hi_live] + 1
    nb = groups * K_PW_GROUP_CHANNELS
    bi = np.arange(nb)
    b_live = (bias is not None) & (bi < K)
    b_vals = np.where(b_live, bias[np.minimum(bi, K - 1)] if bias is not None else 0.0, 0.0)
    b_tags = np.where(b_live, bi, ZERO_PAD)
    zi = np.arange(kLen)

    # the expected B operand of each (kg, ks, nt) n-tile: B[k][n] for the channel the epilogue stores column n to
    kpos = np.arange(KS)[:, None] * 16 + np.arange(16)[None, :]  # (KS, 16) reduction positions
    rk, jk = kpos // kWidth, kpos % kWidth
    ncol = np.arange(8)
    chan = (np.arange(groups)[:, None, None] * K_PW_GROUP_CHANNELS + 8 * (ncol // 2)[None, None, :]
            + 2 * np.arange(4)[None, :, None] + (ncol % 2)[None, None, :])  # (groups, 4, 8): epilogue's channel
    exp_b = np.where((chan[:, None, :, None, :] < K) & (rk < R)[None, :, None, :, None]
                     & (jk < S * C)[None, :, None, :, None],
                     ((chan[:, None, :, None, :] * R + rk[None, :, None, :, None]) * S
                      + (jk // C)[None, :, None, :, None]) * C + (jk % C)[None, :, None, :, None],
                     ZERO_PAD)  # (groups, KS, 4, 16, 8): KRSC W[ch][r][s][c], zero past K and the taps
    pad_k = (rk >= R) | (jk >= S * C)  # (KS, 16) positions whose weights must be zero

    L.make_plans(Smem(L.smem_bytes))
    for bx in range(grid):
        sm = Smem(L.smem_bytes)
        sm.write(L.w_frag + 4 * i, 4, i % K_NARROW_THREADS, w_vals, w_tags, "weight staging st.shared.b32")
        sm.write(L.bias_s + 4 * bi, 4, bi % K_NARROW_THREADS, np.stack([b_vals, b_vals], 1),
                 np.stack([b_tags, b_tags], 1), "bias staging st.shared.f32")
        sm.write(L.rows + 2 * (R * kLen + zi), 2, zi % K_NARROW_THREADS, np.zeros(kLen),
                 np.full(kLen, ZERO_ROW), "zero row st.shared.b16")
        for task in range(bx, tasks, grid):
            image_row = task // segments
            q0 = (task - image_row * segments) * K_ROWS_SEGMENT
            n = image_row // g.p
            p = image_row - n * g.p
            sm.sync()
            iw0 = q0 * 2 - g.pad_w
            e = np.arange(kLen)
            col, c = e // C, e % C
            iw = iw0 + col
            addr, vals, tags = [], [], []
            for r in range(R):
                ih = p * 2 - g.pad_h + r
                row_ok = 0 <= ih < g.h
                ok = row_ok & (iw >= 0) & (iw < g.w)
                src = n * x_stride[0] + ih * x_stride[2] + iw * x_stride[3] + c * x_stride[1]
                s_ok = src[ok]
                check((s_ok >= 0).all() and (s_ok < X.size).all(), "X read outside X")
                check(x_real[s_ok].all(), "X read of an element that is not part of the tensor (a stride gap)")
                io["x_reads"] += s_ok.size
                v = np.zeros(kLen)
                tg = np.full(kLen, ZERO_PAD, np.int64)
                v[ok], tg[ok] = X[s_ok], s_ok
                addr.append(L.rows + 2 * (r * kLen + e))
                vals.append(v)
                tags.append(tg)
            sm.write(np.concatenate(addr), 2, np.tile(e % K_NARROW_THREADS, R), np.concatenate(vals),
                     np.concatenate(tags), "row staging st.shared.b16")
            sm.sync()
            na = sum(1 for w in range(K_PW_WARPS) if q0 + w * K_PW_TILE_ROWS < g.q)
            if na == 0:
                continue  # every warp: `if (q_tile >= gather.out_w) continue;`
            io["warp_tiles"] += na
            a_vals, a_tags = sm.read(L.a_plans[na])  # (na, 32, KS, 4, 2)
            # ---- A check against im2col: register half (reg, e) of lane (g, t) = A[row][col] of k-step ks ----
            m = A_ROW[None, :, None, :, :]                       # (1, 32, 1, 4, 2) pixel row of the m-tile
            kk = np.arange(KS)[None, None, :, None, None] * 16 + A_COL[None, :, None, :, :]
            q = q0 + np.arange(na)[:, None, None, None, None] * K_PW_TILE_ROWS + m  # (na, 32, KS, 4, 2)
            rr, jj = kk // kWidth, kk % kWidth
            s, cc = jj // C, jj % C
            ih = p * 2 - g.pad_h + rr
            iwq = q * 2 - g.pad_w + s
            inside = (ih >= 0) & (ih < g.h) & (iwq >= 0) & (iwq < g.w)
            want = np.where(inside, n * x_stride[0] + ih * x_stride[2] + iwq * x_stride[3] + cc * x_stride[1],
                            ZERO_PAD)
            stored = np.broadcast_to(q < g.q, a_tags.shape)
            tap = np.broadcast_to((rr < R) & (jj < S * C), a_tags.shape)
            bad = stored & tap & (a_tags != want)
            check(not bad.any(), lambda: _a_mismatch(bad, a_tags, want, q, rr, jj, p, n))
            zrow = stored & np.broadcast_to(rr >= R, a_tags.shape)
            check((a_tags[zrow] == ZERO_ROW).all(), "A positions past the R rows do not read the zero row")
            check(np.isfinite(a_vals).all(), "A fragment holds a non-finite value")
            # ---- B fragments (uint4 lo, hi -> b[nt][reg]) ----
            bw_vals, bw_tags = sm.read(L.b_plans[na])  # (na, groups, KS, 2 halves, 32, 4 words, 2)
            bias_vals, _ = sm.read(L.bias_plans[na])   # (na, groups, 32, 2 float4, 8 half-slots)
            # b[nt] = {lo.x, lo.y}, {lo.z, lo.w}, {hi.x, hi.y}, {hi.z, hi.w}: half nt // 2, words 2 * (nt % 2) + reg
            bv = bw_vals.reshape(na, groups, KS, 2, 32, 2, 2, 2)   # (.., half, lane, nt%2, reg, e)
            bt = bw_tags.reshape(na, groups, KS, 2, 32, 2, 2, 2)
            bv = bv.transpose(0, 1, 2, 3, 5, 4, 6, 7).reshape(na, groups, KS, 4, 32, 2, 2)  # (.., nt, lane, reg, e)
            bt = bt.transpose(0, 1, 2, 3, 5, 4, 6, 7).reshape(na, groups, KS, 4, 32, 2, 2)
            Bm = np.zeros((na, groups, KS, 4, 16, 8))
            Bt = np.full((na, groups, KS, 4, 16, 8), UNWRITTEN, np.int64)
            Bm[..., B_ROW, B_COL] = bv
            Bt[..., B_ROW, B_COL] = bt
            check((Bt == exp_b[None]).all(), lambda: _b_mismatch(Bt, exp_b))
            padv = np.broadcast_to(pad_k[None, None, :, None, :, None], Bm.shape)
            check((Bm[padv] == 0).all(), "a pad column or zero-row position meets a nonzero weight")
            # A matrix (na, KS, 16, 16)
            Am = np.zeros((na, KS, 16, 16))
            av = a_vals.transpose(0, 2, 1, 3, 4)  # (na, KS, 32, 4, 2)
            Am[..., A_ROW, A_COL] = av
            # accumulators from the bias: bias[8] = b_lo, b_hi; acc[nt][0] = acc[nt][2] = bias[2nt], [1],[3] = +1
            bias8 = bias_vals[..., ::2].reshape(na, groups, 32, 8)  # each float in its first 2-byte slot
            acc = np.empty((na, groups, 32, 4, 4))
            for ntt in range(4):
                acc[..., ntt, 0] = acc[..., ntt, 2] = bias8[..., 2 * ntt]
                acc[..., ntt, 1] = acc[..., ntt, 3] = bias8[..., 2 * ntt + 1]
            Cm = np.zeros((na, groups, 4, 16, 8))
            Cm[..., C_ROW, C_COL] = acc.transpose(0, 1, 3, 2, 4)  # (na, groups, nt, 32, 4)
            Dm = Cm + np.einsum("wsmk,wgsnkc->wgnmc", Am, Bm)
            d = Dm[..., C_ROW, C_COL]  # (na, groups, nt, 32, 4)
            # v[r * 8 + j] = acc[j / 2][(j % 2) + 2r]
            v = np.empty((na, groups, 32, 16))
            for jv in range(8):
                v[..., jv] = d[:, :, jv // 2, :, jv % 2]
                v[..., 8 + jv] = d[:, :, jv // 2, :, 2 + jv % 2]
            row_start = image_row * g.q
            end = row_start + g.q
            for w in range(na):
                q_tile = q0 + w * K_PW_TILE_ROWS
                pix0 = row_start + q_tile + LANE // 4
                for kgi in range(groups):
                    chl = kgi * K_PW_GROUP_CHANNELS + 8 * TIG
                    live = chl < K   # `if (ch >= prm.k) return;` after the mma
                    for rsel in range(2):
                        pix = pix0 + 8 * rsel
                        do = live & (pix < end)
                        if not do.any():
                            continue
                        off = pix[do] * K + chl[do]
                        vv = v[w, kgi, do, rsel * 8: rsel * 8 + 8]
                        check((off % 8 == 0).all(), "16-byte store / residual load not 16-byte aligned")
                        check((off >= 0).all() and (off + 8 <= Ysize).all(), "store outside Y")
                        row0 = (n * g.p + p) * g.q  # output row (n, p) of Y [N][P][Q][K], by definition
                        check((pix[do] >= row0).all() and (pix[do] < row0 + g.q).all(), "store outside the image row")
                        check((chl[do] + 8 <= K).all(), "store past K")
                        idx = off[:, None] + np.arange(8)
                        if Z is not None:
                            vv = vv + Z[idx]
                            io["z_reads"] += idx.size
                        Y[idx] = vv  # identity activation
                        np.add.at(count, idx.ravel(), 1)


def _a_mismatch(bad, tags, want, q, rr, jj, p, n):
    w_, l_, ks_, reg_, e_ = [int(x[0]) for x in np.nonzero(bad)]
    qq = np.broadcast_to(q, bad.shape)[w_, l_, ks_, reg_, e_]
    return (f"A fragment of warp {w_} lane {l_} k-step {ks_} reg {reg_} half {e_} (pixel n{n} p{p} q{qq}, tap row "
            f"{np.broadcast_to(rr, bad.shape)[w_, l_, ks_, reg_, e_]} j {np.broadcast_to(jj, bad.shape)[w_, l_, ks_, reg_, e_]}): "
            f"holds X element {tags[w_, l_, ks_, reg_, e_]}, im2col wants {want[w_, l_, ks_, reg_, e_]} "
            f"({int(bad.sum())} mismatching halves)")


def _b_mismatch(Bt, exp_b):
    bad = Bt != exp_b[None]
    w_, kg_, ks_, nt_, k_, n_ = [int(x[0]) for x in np.nonzero(bad)]
    return (f"B fragment group {kg_} k-step {ks_} n-tile {nt_} k {k_} n {n_}: holds W element "
            f"{Bt[w_, kg_, ks_, nt_, k_, n_]}, expected {exp_b[kg_, ks_, nt_, k_, n_]} ({int(bad.sum())} mismatches)")


def reference(g, x, wt, b, z):
    """Plain convolution: x [n,h,w,3], wt [k,r,s,3] (KRSC), b [k] or None, z [n,p,q,k] or None."""
    R, S, st = g.r, g.s, 2
    hp = max(g.h + g.pad_h, (g.p - 1) * st + R)
    wp = max(g.w + g.pad_w, (g.q - 1) * st + S)
    xp = np.zeros((g.n, hp, wp, 3))
    xp[:, g.pad_h:g.pad_h + g.h, g.pad_w:g.pad_w + g.w] = x
    out = np.zeros((g.n, g.p, g.q, g.k))
    for r in range(R):
        for s in range(S):
            patch = xp[:, r:r + (g.p - 1) * st + 1:st, s:s + (g.q - 1) * st + 1:st, :]
            out += np.einsum("npqc,kc->npqk", patch, wt[:, r, s, :])
    if b is not None:
        out += b
    if z is not None:
        out += z
    return out


def fp16_data(shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float16).astype(np.float64)


def run(n, h, w, k, kern, pad, residual=False, bias=True, sms=None, per_sm=None, xlayout="nhwc", label=""):
    """pad: one int (all sides) or (top, left, bottom, right). sms / per_sm: the persistent grid (default: the
    H200's 132 SMs and the shared-memory estimate). xlayout: nhwc, nchw, or nhwc_gaps (padded pixel and row strides,
    NaN in the gaps)."""
    pt, pl, pb, pr = (pad,) * 4 if isinstance(pad, int) else pad
    g = Geo(n, 3, h, w, k, kern, kern, 2, 2, 1, 1, pt, pl, pb, pr)
    name = f"{g.str()}{' +z' if residual else ''}{'' if bias else ' nobias'} X {xlayout}{' ' + label if label else ''}"
    if g.p < 1 or g.q < 1:
        print(f"{name}: no output (skipped)")
        return True
    why = can_implement(g)
    if why:
        print(f"{name}: REFUSED: {why}  <-- FAIL")
        return False
    smem = stem_gemm_smem_bytes(K_STEM_ROWS, g.r, g.s, g.c, g.k)
    ps = per_sm if per_sm is not None else per_sm_estimate(smem)
    sc = sms if sms is not None else SM_COUNT
    grid = tactic_grid(g, ps, sc)
    # data
    x = fp16_data((n, h, w, 3))
    if xlayout == "nhwc":
        xs = (h * w * 3, 1, w * 3, 3)
        size = n * h * w * 3
    elif xlayout == "nchw":
        xs = (3 * h * w, h * w, w, 1)
        size = n * 3 * h * w
    else:  # nhwc with a 4-element pixel stride and 5 spare elements per row: NaN gaps
        xs3, xs2 = 4, w * 4 + 5
        xs = (h * xs2 + 7, 1, xs2, xs3)
        size = n * xs[0]
    X = np.full(size, np.nan)
    x_real = np.zeros(size, bool)
    nn, hh, ww, cc = np.meshgrid(np.arange(n), np.arange(h), np.arange(w), np.arange(3), indexing="ij")
    idx = nn * xs[0] + cc * xs[1] + hh * xs[2] + ww * xs[3]
    X[idx.ravel()] = x.ravel()
    x_real[idx.ravel()] = True
    check(len(np.unique(idx)) == idx.size, "test layout bug")
    wt = fp16_data((k, kern, kern, 3), 0.3)
    b = rng.standard_normal(k).astype(np.float32).astype(np.float64) if bias else None
    z = fp16_data((n, g.p, g.q, k)) if residual else None
    Y = np.full(g.out_pixels() * k, np.nan)
    count = np.zeros(Y.size, np.int32)
    io = dict(x_reads=0, z_reads=0, warp_tiles=0)
    segs = ceil_div(g.q, K_ROWS_SEGMENT)
    tasks = g.n * g.p * segs
    desc = f"KS{kernel_for(1, kern, kern, 3)[0]} smem {smem} B, {tasks} tasks ({segs} seg/row), grid {grid}"
    try:
        check(grid > 0, f"grid {grid}: per_sm {ps} (the tactic asserts per_sm > 0)")
        L = Launch(g, smem)
        run_kernel(g, L, grid, X, xs, x_real, wt.reshape(-1), b, None if z is None else z.reshape(-1), Y, count, io)
    except SimError as e:
        print(f"{name}: {desc}: FAIL: {e}")
        return False
    ref = reference(g, x, wt, b, z).reshape(-1)
    unwritten = int((count == 0).sum())
    twice = int((count > 1).sum())
    err = float(np.nanmax(np.abs(Y - ref)) / max(1.0, np.abs(ref).max())) if unwritten < Y.size else float("inf")
    ok = err < 1e-12 and unwritten == 0 and twice == 0 and not np.isnan(Y).any()
    print(f"{name}: {desc}: rel err {err:.1e}, unwritten {unwritten}, twice {twice}{'' if ok else '  <-- FAIL'}")
    return ok


def refusals():
    """What can_implement refuses for config 1 (and that the accepted extremes fit the H200)."""
    ok = True
    base = dict(n=1, c=3, h=32, w=32, k=64, r=3, s=3, sh=2, sw=2, dh=1, dw=1, pt=1, pl=1, pb=1, pr=1)
    cases = [
        ("stride 1", dict(sh=1, sw=1), "stride 2"),
        ("stride 2x1", dict(sw=1), "stride 2"),
        ("dilation 2", dict(dh=2, dw=2, pt=2, pl=2, pb=2, pr=2), "dilation 1"),
        ("K = 20", dict(k=20), "K % 8"),
        ("K = 4", dict(k=4), "K % 8"),
        ("5x5", dict(r=5, s=5), "3x3 or 7x7"),
        ("3x7", dict(s=7), "3x3 or 7x7"),
        ("C = 4", dict(c=4), "3 input channels"),
        ("C = 1", dict(c=1), "3 input channels"),
    ]
    for label, over, part in cases:
        d = dict(base, **over)
        g = Geo(d["n"], d["c"], d["h"], d["w"], d["k"], d["r"], d["s"], d["sh"], d["sw"], d["dh"], d["dw"],
                d["pt"], d["pl"], d["pb"], d["pr"])
        why = can_implement(g)
        good = part in why
        ok &= good
        print(f"refuses {label}: '{why}'{'' if good else '  <-- FAIL'}")
    g = Geo(1, 3, 32, 32, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1)
    for label, kw, part in [("fp32", dict(dtype="f32"), "fp16 and bf16"), ("sm_75", dict(cc=75), "sm_80"),
                            ("gate closed", dict(gate_open=False), "not yet verified"),
                            ("NCHW output", dict(nhwc_out=False), "nhwc"), ("groups 3", dict(group=3), "groups")]:
        why = can_implement(g, **kw)
        good = part in why
        ok &= good
        print(f"refuses {label}: '{why}'{'' if good else '  <-- FAIL'}")
    # the largest K the H200's opt-in shared memory takes, per filter size; K = 8 accepted
    for kern in (3, 7):
        kmax = max(kk for kk in range(8, 4096, 8)
                   if not can_implement(Geo(1, 3, 32, 32, kk, kern, kern, 2, 2, 1, 1, 1, 1, 1, 1)))
        g1 = Geo(1, 3, 32, 32, kmax + 8, kern, kern, 2, 2, 1, 1, 1, 1, 1, 1)
        why = can_implement(g1)
        print(f"{kern}x{kern}: accepts K = 8 .. {kmax} (smem {stem_gemm_smem_bytes(1, kern, kern, 3, kmax)} B, "
              f"est. {per_sm_estimate(stem_gemm_smem_bytes(1, kern, kern, 3, kmax))} blocks/SM); K = {kmax + 8}: "
              f"'{why}'")
        ok &= "shared memory" in why and can_implement(Geo(1, 3, 32, 32, 8, kern, kern, 2, 2, 1, 1, 1, 1, 1, 1)) == ""
    # the host tests' two accepted stems (N = 64, 224 x 224)
    for kern, pad in ((3, 0), (7, 3)):
        why = can_implement(Geo(64, 3, 224, 224, 64, kern, kern, 2, 2, 1, 1, pad, pad, pad, pad))
        ok &= why == ""
        print(f"accepts N64 224x224 K64 {kern}x{kern} pad {pad}: '{why}'")
    return ok


def main():
    t0 = time.time()
    ok = True
    ok &= isa_layout_self_check()
    print(f"mma.m16n8k16 fragment layouts cover A, B, C once each: {'ok' if ok else 'FAIL'}")
    ok &= refusals()
    print("== tests/gpu/test_conv_stem_gemm.cpp: the shape table's stride-2 cases (config 1 takes them) ==")
    ok &= run(1, 57, 59, 64, 7, 3, label="ResNet stem, odd size")
    ok &= run(3, 33, 31, 32, 3, 1, label="MobileNet stem")
    ok &= run(2, 29, 30, 24, 3, (0, 0, 1, 1), label="SAME pads, K = 24")
    ok &= run(2, 35, 35, 64, 3, 0, label="SqueezeNet: no padding")
    ok &= run(2, 3, 3, 64, 7, 3, label="taps mostly outside")
    ok &= run(1, 21, 301, 32, 3, 1, label="Q = 151: two segments")
    ok &= run(1, 9, 520, 16, 7, 3, label="Q = 260: three segments")
    print("== AddsResidualBeforeActivation ==")
    ok &= run(2, 17, 19, 32, 3, 1, residual=True)
    ok &= run(1, 13, 11, 40, 7, 3, residual=True, bias=False)
    print("== LargeImageStridesOverRounds (the estimated H200 grid is smaller than the task count: blocks walk) ==")
    ok &= run(24, 224, 224, 64, 3, 0)
    ok &= run(8, 224, 224, 64, 7, 3)
    print("== paddings 0 .. k/2 + 1, odd / even H and W, Q around a segment, K 8 .. 96, batches, residual ==")
    for kern in (3, 7):
        for pad in range(0, kern // 2 + 2):
            for (h, w) in ((11, 12), (12, 11)):
                ok &= run(2 if pad % 2 else 1, h, w, 16 if pad % 2 else 24, kern, pad, residual=pad % 2 == 0)
    for kern in (3, 7):
        for q_target in (1, 15, 16, 17, 127, 128, 129, 256, 257):
            pad = kern // 2
            w = 2 * (q_target - 1) + kern - 2 * pad + int(rng.integers(0, 2))  # Q = q_target, odd or even W
            ok &= run(1, 5 + kern % 4, w, int(rng.choice([16, 32, 64])), kern, pad, residual=bool(rng.integers(0, 2)))
    for kern in (3, 7):
        for k in (8, 16, 24, 32, 40, 64, 72, 96):
            ok &= run(int(rng.integers(1, 3)), 9, 10, k, kern, (1, 0, 1, 2) if kern == 3 else (3, 2, 1, 3),
                      residual=k % 16 == 0, bias=k != 40)
    print("== persistent grid on few SMs (blocks walk several tasks), asymmetric and large pads, other X layouts ==")
    ok &= run(3, 15, 140, 32, 3, 1, sms=1, per_sm=2, residual=True)
    ok &= run(2, 19, 263, 24, 7, (3, 2, 3, 1), sms=1, per_sm=3)
    ok &= run(2, 8, 9, 64, 7, (4, 4, 4, 4), sms=1, per_sm=1, label="pad > k/2")
    ok &= run(1, 6, 7, 32, 3, (2, 2, 0, 0), sms=2, per_sm=1)
    ok &= run(2, 13, 150, 40, 3, 1, xlayout="nchw", residual=True, sms=1, per_sm=2)
    ok &= run(1, 11, 260, 16, 7, 3, xlayout="nhwc_gaps", sms=1, per_sm=2)
    ok &= run(2, 9, 17, 72, 3, (0, 1, 1, 0), xlayout="nhwc_gaps", residual=True)
    print("== random cases (as MatchesReferenceOnRandomCases, stride 2, square filters) ==")
    for _ in range(12):
        kern = int(rng.choice([3, 7]))
        pt = int(rng.integers(0, kern // 2 + 2))
        pb = pt if rng.integers(0, 2) else int(rng.integers(0, kern // 2 + 1))
        pl = min(int(rng.integers(0, kern // 2 + 2)), kern // 2 + 1)
        pr = pl if rng.integers(0, 2) else int(rng.integers(0, kern // 2 + 1))
        pr = min(pr, kern // 2)
        h = max(int(rng.integers(3, 41)), kern - pt - pb)
        w = max(int(rng.integers(3, 41)), kern - pl - pr)
        ok &= run(1 if rng.integers(0, 2) else 3, h, w, int(rng.choice([8, 16, 24, 32, 40, 64, 72])), kern,
                  (pt, pl, pb, pr), residual=bool(rng.integers(0, 2)), bias=bool(rng.integers(0, 4)),
                  sms=int(rng.choice([1, 3, 132])), per_sm=int(rng.integers(1, 4)))
    print(f"{'ALL OK' if ok else 'FAIL'} ({time.time() - t0:.0f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
