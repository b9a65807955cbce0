#!/usr/bin/env python3
"""sim_depthwise_staged.py: a numpy model of the staged NHWC depthwise kernel's index math
(DepthwiseKernelKind::staged_nhwc, NOTE [depthwise staged tile]), for checking a change to the kernel on a machine
without a GPU. It mirrors, step by step:
  - depthwise_staged.cpp: staged_candidates / stage_depthwise_tile (same integer arithmetic, candidate order and
    tie-breaking, the strip and block size), staged_tile_bytes, depthwise_smem_bytes; checked against the
    expectations of test_depthwise.cpp's host selector tests and swept over ~10k shapes (tile within budget, the
    launch's tile count equal to the selector's block count, block size);
  - depthwise_staged.cuh: staged_args, launch_staged's grid (one block per tile, or the persistent grid
    min(tiles, per_sm * sms) less grid % slabs when grid > slabs; per_sm and sms are parameters here, the selector
    always uses sm_count = 132), dw_staged_nhwc_kernel's PDL prologue (prm.pdl: the first tile's taps and bias
    before pdl_wait(), X / residual reads and Y writes only after it) and its loop (stage(next) into buffer
    (i+1)&1, the empty commit, the per-thread tap/bias registers reloaded when c0 changes, cp_async_wait<1>, the
    two __syncthreads),
    staged_tile, stage_input_tile (each thread's cp.async chunks: part, pixel_step, the row/col stepping, the valid
    test, src = xn and src_size 0 outside the map, 16 - src_size bytes zero-filled), staged_taps, and staged_compute
    per thread (the item loop, strips, the rolling accumulators acc[A], `ir` and the `row` pointer, `if (ir < 0)
    continue`, rr = K - S + t - S*d, the store of acc[0] once r >= r_first, the y_out pointer), with VEC channels
    per 4-byte word (1 for fp32, 2 for fp16/bf16) and channel_ok (c0 < C);
  - store_epilogue: y = acc + bias + residual (no activation: the activation is elementwise and not index math).
Shared memory is a flat byte array per block. Each byte records which tile staged it, whether a cp.async to it is
still in flight (issued, not yet covered by this thread's cp_async_wait), the barrier interval in which it landed and
by which thread, and the last interval in which it was read. The model asserts: reads only inside the buffer being
computed, only of bytes staged for the tile being computed, never of a byte in flight, never of another thread's
landed byte without a __syncthreads in between; no cp.async to a byte in flight or read in the same barrier
interval (the persistent loop's buffer reuse); every cp.async inside the allocated dynamic shared memory and 16-byte
aligned; every global read (X chunk, taps, bias, residual) in bounds; every output element written exactly once and
no write outside Y. Arithmetic is float64 (the point is the indexing), compared with a plain NHWC depthwise
convolution with zero padding, bias and residual.
What it cannot check: cp.async's actual completion semantics and memory ordering beyond "lands no later than the
covering cp.async.wait_group + __syncthreads" (it models each thread's groups as landing at its wait, and all threads
of a block committing the same sequence of groups, as the kernel's uniform control flow does); fp16/bf16 rounding,
the half2 epilogue (HFMA2 accumulation, __hadd2 bias/residual) and activations; bank conflicts, occupancy, register
use and the real cudaOccupancyMaxActiveBlocksPerMultiprocessor value; griddepcontrol itself (PDL is modelled
only as the order of a block's accesses around pdl_wait()); concurrency between blocks (blocks run one
after another; a second write to an output is still counted); the launch's pointer-alignment fallback. The real
check is tests/gpu/test_depthwise.cpp on a GPU. Needs numpy:
    python3 scripts/sim_depthwise_staged.py [seed]
"""
import sys
import time

import numpy as np

rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)

# ---- depthwise_staged.cpp ----
K_STAGED_TILE_BUDGET = 32 * 1024
K_STAGED_BLOCKS_PER_SM = 3
K_MAX_WARPS = 8
K_MIN_TILE_SIDE = 4
SM_COUNT = 132


def ceil_div(a, b):  # C++ (a + b - 1) / b on non-negative int64
    assert a >= 0 and b > 0
    return (a + b - 1) // b


class Geo:
    """ConvGeometry of a depthwise layer: pad_h / pad_w are the top / left pads; bottom / right only shape P, Q."""

    def __init__(self, n, c, h, w, k, stride, pt, pl, pb, pr):
        self.n, self.c, self.h, self.w, self.r, self.s = n, c, h, w, k, k
        self.stride_h = self.stride_w = stride
        self.pad_h, self.pad_w, self.pad_b, self.pad_r = pt, pl, pb, pr
        self.p = (h + pt + pb - k) // stride + 1
        self.q = (w + pl + pr - k) // stride + 1
        assert self.p >= 1 and self.q >= 1

    def str(self):
        return (f"N{self.n} C{self.c} H{self.h} W{self.w} P{self.p} Q{self.q} k{self.r} s{self.stride_h} "
                f"pad t{self.pad_h} l{self.pad_w} b{self.pad_b} r{self.pad_r}")


def staged_candidates(g, channel_lanes, slabs):
    out = []
    pixel_bytes = channel_lanes * 4
    for splits_q in range(1, g.q + 1):
        tq = ceil_div(g.q, splits_q)
        if splits_q > 1 and tq == ceil_div(g.q, splits_q - 1):
            continue
        if tq < min(g.q, K_MIN_TILE_SIDE):
            break
        in_cols = (tq - 1) * g.stride_w + g.s
        rows_fit = K_STAGED_TILE_BUDGET // (in_cols * pixel_bytes)
        if rows_fit < g.r:
            continue
        tp_max = min((rows_fit - g.r) // g.stride_h + 1, g.p)
        tp = tp_max
        while tp >= min(g.p, K_MIN_TILE_SIDE):
            tiles_p = ceil_div(g.p, tp)
            c = dict(tile_p=ceil_div(g.p, tiles_p), tile_q=tq, blocks=g.n * slabs * tiles_p * splits_q)
            in_rows = float(c["tile_p"] - 1) * g.stride_h + g.r
            # same double operations in the same order as the C++
            c["reread"] = in_rows * float(in_cols) * float(tiles_p * splits_q) / (float(g.h) * float(g.w))
            out.append(c)
            if tp == 1:
                break
            tp = (tp + 1) // 2
    return out


def finish_tile(tile, lanes):
    """The strip / block part of stage_depthwise_tile (also used for forced tiles)."""
    walkers_per_warp = 32 // lanes
    strip = tile["tile_p"]
    while strip > 1 and tile["tile_q"] * ceil_div(tile["tile_p"], strip) < K_MAX_WARPS * walkers_per_warp:
        strip = (strip + 1) // 2
    tile["rows"] = strip
    items = tile["tile_q"] * ceil_div(tile["tile_p"], strip)
    warps = min(max(ceil_div(items, walkers_per_warp), 1), K_MAX_WARPS)
    tile["block_x"] = 32 * warps
    return tile


def stage_depthwise_tile(g, x_stride, y_stride, elem, sm_count, channel_lanes, persistent):
    """None where the C++ returns false. (depthwise_tiled_geometry: k 3/5/7 square, stride 1/2, no dilation,
    multiplier 1 -- the model only builds such geometries, asserted here.)"""
    assert g.r == g.s and g.r in (3, 5, 7) and g.stride_h == g.stride_w and g.stride_h in (1, 2)
    if elem not in (4, 2):
        return None
    chunk = 16 // elem
    chunks_aligned = (g.c % chunk == 0 and x_stride[0] % chunk == 0 and x_stride[2] % chunk == 0 and
                      x_stride[3] % chunk == 0)
    if x_stride[1] != 1 or y_stride[1] != 1 or not chunks_aligned:
        return None
    if channel_lanes not in (32, 8):
        return None
    vec = 4 // elem
    if y_stride[0] % vec or y_stride[2] % vec or y_stride[3] % vec:  # Y stored in 4-byte words of vec channels
        return None
    slabs = ceil_div(g.c, channel_lanes * vec)
    cands = staged_candidates(g, channel_lanes, slabs)
    if not cands:
        return None
    target = max(sm_count, 1) * K_STAGED_BLOCKS_PER_SM
    best = None
    for c in cands:
        fills = c["blocks"] >= target
        if best is None:
            best = c
            continue
        best_fills = best["blocks"] >= target
        # fills != best_fills ? fills : fills ? c.reread < best->reread : c.blocks > best->blocks
        better = c["reread"] < best["reread"] if fills else c["blocks"] > best["blocks"]
        if (fills if fills != best_fills else better):
            best = c
    tile = dict(vec=vec, channel_lanes=channel_lanes, persistent=persistent, tile_p=best["tile_p"],
                tile_q=best["tile_q"], blocks=best["blocks"])
    finish_tile(tile, channel_lanes)
    tile["threads"] = best["blocks"] * tile["block_x"]
    return tile


def staged_tile_bytes(g, tile_p, tile_q, lanes):
    return ((tile_p - 1) * g.stride_h + g.r) * ((tile_q - 1) * g.stride_w + g.s) * lanes * 4


def depthwise_smem_bytes(g, tile):
    one = staged_tile_bytes(g, tile["tile_p"], tile["tile_q"], tile["channel_lanes"])
    return (2 if tile["persistent"] else 1) * one


def staged_args(g, tile):
    a = dict(tile_p=tile["tile_p"], tile_q=tile["tile_q"])
    a["in_rows"] = (tile["tile_p"] - 1) * g.stride_h + g.r
    a["in_cols"] = (tile["tile_q"] - 1) * g.stride_w + g.s
    a["tiles_p"] = ceil_div(g.p, tile["tile_p"])
    a["tiles_q"] = ceil_div(g.q, tile["tile_q"])
    a["strip_rows"] = tile["rows"]
    a["slabs"] = ceil_div(g.c, tile["channel_lanes"] * tile["vec"])
    return a


def launch_grid(a, tile, tiles, per_sm, sms):
    if not tile["persistent"]:
        return tiles
    grid = min(tiles, max(per_sm, 1) * sms)
    if grid > a["slabs"]:
        grid -= grid % a["slabs"]
    return grid


def staged_tile(a, index, slab_channels):
    slab = index % a["slabs"]
    rest = index // a["slabs"]
    tq = rest % a["tiles_q"]
    rest //= a["tiles_q"]
    p0 = rest % a["tiles_p"] * a["tile_p"]
    n = rest // a["tiles_p"]
    return n, p0, tq * a["tile_q"], slab * slab_channels


_BYTES4 = np.arange(4)


class SimError(AssertionError):
    pass


def check(cond, msg):
    """msg: a string, or a callable giving one (built only on failure)."""
    if not cond:
        raise SimError(msg() if callable(msg) else msg)


# ---- one block's shared memory, with the bookkeeping of the docstring ----
class Smem:
    def __init__(self, nbytes, vec):
        self.nbytes, self.vec = nbytes, vec
        self.vals = np.zeros((nbytes // 4, vec))    # element values, VEC per 4-byte word
        self.tag = np.full(nbytes, -1, np.int64)     # tile index whose stage wrote the byte
        self.inflight = np.zeros(nbytes, bool)
        self.landed = np.full(nbytes, -1, np.int64)  # barrier interval in which the byte landed
        self.writer = np.full(nbytes, -1, np.int64)  # thread whose cp.async wrote it
        self.last_read = np.full(nbytes, -1, np.int64)
        self.epoch = 0                               # barrier intervals so far
        self.open_group = []                         # chunks issued since the last commit (all threads)
        self.groups = []                             # committed, not yet waited for

    def issue(self, dst, src_bytes, data, tids, tile_index):
        """cp.async.cg 16-byte chunks: dst byte addresses, data (m, 4, VEC) already zero-filled past src_bytes."""
        if len(dst) == 0:
            return
        check((dst % 16 == 0).all(), "cp.async destination not 16-byte aligned")
        check((dst >= 0).all() and (dst + 16 <= self.nbytes).all(), "cp.async outside the dynamic shared memory")
        b = (dst[:, None] + np.arange(16)).ravel()
        check(len(np.unique(dst)) == len(dst), "two cp.async chunks of one stage write the same bytes")
        check(not self.inflight[b].any(), "cp.async to a byte whose previous cp.async is still in flight")
        check((self.last_read[b] < self.epoch).all(),
              "cp.async to a byte read in the same barrier interval (buffer overwritten while being read)")
        self.inflight[b] = True
        self.open_group.append((dst, data, tids, tile_index))

    def commit(self):
        self.groups.append(self.open_group)
        self.open_group = []

    def wait(self, n_pending):
        """cp.async.wait_group n (every thread at the same point): all but the newest n groups land."""
        while len(self.groups) > n_pending:
            for dst, data, tids, tile_index in self.groups.pop(0):
                b = (dst[:, None] + np.arange(16)).ravel()
                self.vals[(dst // 4)[:, None] + np.arange(4)] = data
                self.tag[b] = tile_index
                self.inflight[b] = False
                self.landed[b] = self.epoch
                self.writer[b] = np.repeat(tids, 16)

    def sync(self):
        self.epoch += 1

    def read_words(self, words, tids, buf_lo, buf_hi, tile_index):
        """ld.shared of 4-byte words (any shape, last axis = lanes) by threads tids (broadcast to words)."""
        b = words[..., None] * 4 + _BYTES4
        check(b.min() >= 0 and b.max() < self.nbytes,
              lambda: f"shared read outside the dynamic shared memory ({self.nbytes} bytes): {b.min()}..{b.max()}")
        check(b.min() >= buf_lo and b.max() < buf_hi,
              lambda: f"shared read outside the tile buffer [{buf_lo}, {buf_hi}): bytes {b.min()}..{b.max()}")
        check(not self.inflight[b].any(), "shared read of a byte whose cp.async is still in flight")
        check((self.tag[b] == tile_index).all(),
              lambda: f"shared read of bytes not staged for tile {tile_index} (tags {np.unique(self.tag[b])})")
        fresh = self.landed[b] >= self.epoch  # landed in this barrier interval: only its writer may read it
        if fresh.any():
            t = np.broadcast_to(tids, words.shape)[..., None]
            check((self.writer[b][fresh] == np.broadcast_to(t, b.shape)[fresh]).all(),
                  "shared read of another thread's cp.async without a __syncthreads after its wait")
        self.last_read[b] = self.epoch
        return self.vals[words]


# ---- the kernel ----
def run_kernel(g, tile, a, X, x_stride, W, w_stride, bias, res, Y, y_stride, per_sm, sms, elem, pdl):
    """Runs dw_staged_nhwc_kernel<T, K, S, CL> over its grid; fills Y (flat) and returns (write counts, grid)."""
    K, S, CL, VEC = g.r, g.stride_h, tile["channel_lanes"], 4 // elem
    A, G = (K - 1) // S + 1, 32 // CL
    chunks_per_pixel, chunk_elems = CL * 4 // 16, 16 // elem
    block_x = tile["block_x"]
    check(block_x % 32 == 0 and 32 <= block_x <= 256, "block size")
    tile_bytes = a["in_rows"] * a["in_cols"] * CL * 4
    check(tile_bytes == staged_tile_bytes(g, a["tile_p"], a["tile_q"], CL), "tile bytes differ host / device")
    smem_bytes = depthwise_smem_bytes(g, tile)
    check(smem_bytes <= (227 * 1024 if tile["persistent"] else 48 * 1024),
          "dynamic shared memory over the limit (non-persistent launches do not raise the attribute)")
    tiles = g.n * a["tiles_p"] * a["tiles_q"] * a["slabs"]
    grid = launch_grid(a, tile, tiles, per_sm, sms)
    count = np.zeros(Y.size, np.int64)
    row_words = a["in_cols"] * CL
    pixels = a["in_rows"] * a["in_cols"]

    waited = [False]  # this block ran pdl_wait() (or was launched without PDL)

    def stage(sm, index, buffer):  # the kernel's `stage` lambda + stage_input_tile, every thread
        check(waited[0], "X read before pdl_wait()")
        n, p0, q0, c_first = staged_tile(a, index, CL * VEC)
        xn = n * x_stride[0]                       # element offset of X's image n
        row0, col0 = p0 * S - g.pad_h, q0 * S - g.pad_w
        tile_base = buffer * tile_bytes             # shared_address(smem + buffer * tile_bytes)
        dst, src, valid, tids = [], [], [], []
        pixel_step = block_x // chunks_per_pixel
        step_rows, step_cols = pixel_step // a["in_cols"], pixel_step % a["in_cols"]
        for tid in range(block_x):
            part = tid % chunks_per_pixel
            c = c_first + part * chunk_elems
            channels_in = c < g.c
            pix = tid // chunks_per_pixel
            row, col = pix // a["in_cols"], pix % a["in_cols"]
            xc = xn + c
            while pix < pixels:
                ih, iw = row0 + row, col0 + col
                v = channels_in and 0 <= ih < g.h and 0 <= iw < g.w  # the unsigned compares
                dst.append(tile_base + (pix * chunks_per_pixel + part) * 16)
                src.append(xc + ih * x_stride[2] + iw * x_stride[3] if v else xn)
                valid.append(v)
                tids.append(tid)
                row += step_rows
                col += step_cols
                if col >= a["in_cols"]:
                    col -= a["in_cols"]
                    row += 1
                pix += pixel_step
        dst, src, valid, tids = np.array(dst), np.array(src), np.array(valid, bool), np.array(tids)
        # the chunk's 16 bytes: src_size = valid ? 16 : 0 read from global, the rest (16 - src_size) zero
        src_elems = np.where(valid, 16, 0) // elem
        data = np.zeros((len(dst), chunk_elems))
        for e in range(chunk_elems):
            m = e < src_elems
            if m.any():
                o = src[m] + e
                check((o >= 0).all() and (o < X.size).all(), "cp.async reads outside X")
                if e == 0:
                    check((o * elem % 16 == 0).all(), "cp.async source not 16-byte aligned (X itself is)")
                data[m, e] = X[o]
        sm.issue(dst, src_elems * elem, data.reshape(len(dst), 4, VEC), tids, index)
        sm.commit()

    def staged_taps(c0s):  # per thread: (K*K, VEC) taps and (VEC,) bias for channels [c0, c0 + VEC)
        t = np.arange(K * K)
        o = ((c0s[:, None, None] + np.arange(VEC)[None, None, :]) * w_stride[0] +
             (t // K)[None, :, None] * w_stride[2] + (t % K)[None, :, None] * w_stride[3])
        check((o >= 0).all() and (o < W.size).all(), "tap read outside W")
        bo = c0s[:, None] + np.arange(VEC)
        check((bo >= 0).all() and (bo < bias.size).all(), "bias read outside the bias")
        return W[o], bias[bo]

    lane_of = np.arange(block_x) % 32
    for bx in range(grid):
        sm = Smem(smem_bytes, VEC)
        taps = np.zeros((block_x, K * K, VEC))
        bias_r = np.zeros((block_x, VEC))
        taps_c0 = np.full(block_x, -1)
        waited[0] = not pdl
        if pdl:  # NOTE [programmatic dependent launch]: the first slab's taps before pdl_wait()
            c0 = staged_tile(a, bx, CL * VEC)[3] + lane_of % CL * VEC
            taps[:], bias_r[:] = staged_taps(np.where(c0 < g.c, c0, 0))
            taps_c0[:] = c0
            waited[0] = True  # pdl_wait(); pdl_launch_dependents();
        if bx < tiles:
            stage(sm, bx, 0)
        index, i = bx, 0
        while index < tiles:
            nxt = index + grid
            if nxt < tiles:
                stage(sm, nxt, (i + 1) & 1)
            else:
                sm.commit()  # the empty group
            n, p0, q0, c_first = staged_tile(a, index, CL * VEC)
            c0 = c_first + lane_of % CL * VEC
            channel_ok = c0 < g.c
            reload = c0 != taps_c0
            if reload.any():
                tw, tb = staged_taps(np.where(channel_ok, c0, 0)[reload])
                taps[reload], bias_r[reload] = tw, tb
                taps_c0[reload] = c0[reload]
            sm.wait(1)
            sm.sync()
            # staged_compute for the threads with channel_ok, CL lanes of a walker at once
            buf_lo = (i & 1) * tile_bytes
            check(buf_lo + tile_bytes <= smem_bytes, "the tile buffer being computed lies past the dynamic smem")
            tile_word = buf_lo // 4                 # reinterpret_cast<const Word*>(smem + (i & 1) * tile_bytes)
            tp, tq = min(a["tile_p"], g.p - p0), min(a["tile_q"], g.q - q0)
            strips = (tp + a["strip_rows"] - 1) // a["strip_rows"]
            walkers = block_x // 32 * G
            y_tile_n = n * y_stride[0]
            for warp in range(block_x // 32):
                for sub in range(G):
                    tids = warp * 32 + sub * CL + np.arange(CL)
                    lane = tids % 32
                    cl = lane % CL
                    ok = channel_ok[tids]
                    if not ok.any():
                        continue
                    tids, cl = tids[ok], cl[ok]
                    c0l = c0[tids]
                    tw, tb = taps[tids].transpose(1, 0, 2), bias_r[tids]  # (K*K, lanes, VEC), (lanes, VEC)
                    check((c0l + VEC <= g.c).all(), "a channel_ok lane's vector runs past C")
                    y_tile = y_tile_n + c0l
                    item = (tids[0] // 32) * G + lane[0] // CL  # threadIdx.x / 32 * G + lane / CL
                    while item < strips * tq:
                        col, r_first = item % tq, item // tq * a["strip_rows"]
                        r_end = min(r_first + a["strip_rows"], tp)
                        acc = np.zeros((A, len(tids), VEC))
                        ir = (r_first - (A - 1)) * S + K - S
                        row = tile_word + col * S * CL + cl + ir * row_words
                        y_out = y_tile + (p0 + r_first) * y_stride[2] + (q0 + col) * y_stride[3]
                        for r in range(r_first - (A - 1), r_end):
                            for t in range(S):
                                if ir >= 0:
                                    x = sm.read_words(row[None, :] + (np.arange(K) * CL)[:, None], tids,
                                                      buf_lo, buf_lo + tile_bytes, index)  # (K, lanes, VEC)
                                    for d in range(A):
                                        rr = K - S + t - S * d
                                        if rr < 0:
                                            continue
                                        acc[d] += (x * tw[rr * K:(rr + 1) * K]).sum(axis=0)
                                ir += 1
                                row = row + row_words
                            if r >= r_first:
                                off = y_out
                                check(waited[0], "Y written / residual read before pdl_wait()")
                                check((off % VEC == 0).all(), "store not aligned to its 4-byte word")
                                check((off >= 0).all() and (off + VEC <= Y.size).all(), "store outside Y")
                                idx = off[:, None] + np.arange(VEC)
                                Y[idx] = acc[0] + tb + res[idx]
                                np.add.at(count, idx.ravel(), 1)
                                y_out = y_out + y_stride[2]
                            acc[:-1] = acc[1:].copy()
                            acc[-1] = 0
                        item += walkers
            sm.sync()
            index += grid
            i += 1
        check(not sm.inflight.any(), "cp.async still in flight when the block exits")
    return count, grid


def reference(g, x, wt, b, resid):
    """Plain depthwise convolution, NHWC, zero padding: x [n,h,w,c], wt [c,k,k], b [c], resid [n,p,q,c]."""
    K, S = g.r, g.stride_h
    hp = max(g.h + g.pad_h + g.pad_b, (g.p - 1) * S + K)
    wp = max(g.w + g.pad_w + g.pad_r, (g.q - 1) * S + K)
    xp = np.zeros((g.n, hp, wp, g.c))
    xp[:, g.pad_h:g.pad_h + g.h, g.pad_w:g.pad_w + g.w] = x
    out = np.zeros((g.n, g.p, g.q, g.c))
    for r in range(K):
        for s in range(K):
            out += xp[:, r:r + (g.p - 1) * S + 1:S, s:s + (g.q - 1) * S + 1:S, :] * wt[:, r, s]
    return out + b + resid


def tile_str(g, tile, a, grid, pdl):
    return (f"staged nhwc{' persistent' if tile['persistent'] else ''}{' pdl' if pdl else ''} "
            f"lanes{tile['channel_lanes']} tile "
            f"{tile['tile_p']}x{tile['tile_q']} strip{tile['rows']} block {tile['block_x']}, "
            f"{g.n * a['tiles_p'] * a['tiles_q'] * a['slabs']} tiles ({a['tiles_p']}x{a['tiles_q']}x{a['slabs']} "
            f"slabs per image), grid {grid}")


NOTES = []


def run(n, c, h, w, k, stride, pad, elem, lanes, persistent, per_sm=2, sms=SM_COUNT, forced=None,
        pad_x=0, pad_y=0, label="", pdl=False):
    """pad: one int (all sides) or (top, left, bottom, right). forced: (tile_p, tile_q) instead of the selector's.
    pad_x / pad_y: extra elements (multiples of the chunk) after each pixel / row of X and each pixel of Y."""
    pt, pl, pb, pr = (pad,) * 4 if isinstance(pad, int) else pad
    g = Geo(n, c, h, w, k, stride, pt, pl, pb, pr)
    VEC = 4 // elem
    xs3 = c + pad_x
    xs2 = w * xs3 + pad_x
    x_stride = (h * xs2 + pad_x, 1, xs2, xs3)
    ys3 = c + pad_y
    y_stride = (g.p * g.q * ys3, 1, g.q * ys3, ys3)
    w_stride = (k * k, k * k, k, 1)
    tile = stage_depthwise_tile(g, x_stride, y_stride, elem, SM_COUNT, lanes, persistent)
    name = (f"{g.str()} {'fp32' if elem == 4 else 'f16/bf16'}{' xpad' if pad_x else ''}{' ypad' if pad_y else ''}"
            f"{' ' + label if label else ''}")
    if tile is None:
        print(f"{name}: REFUSED by stage_depthwise_tile (lanes {lanes})")
        return False
    if forced:
        sel = (tile["tile_p"], tile["tile_q"])
        tile["tile_p"], tile["tile_q"] = forced
        finish_tile(tile, lanes)
        name += f" [forced tile {forced[0]}x{forced[1]}, selector {sel[0]}x{sel[1]}]"
    a = staged_args(g, tile)
    tiles = g.n * a["tiles_p"] * a["tiles_q"] * a["slabs"]
    if not forced and tiles != tile["blocks"]:
        NOTES.append(f"{name}: selector counted {tile['blocks']} blocks, the launch has {tiles}")
    # data: X, residual and Y in their strided buffers (NaN in the gaps so a read of one shows)
    x = rng.standard_normal((n, h, w, c))
    X = np.full(x_stride[0] * n, np.nan)
    for i in range(n):
        for r in range(h):
            base = i * x_stride[0] + r * x_stride[2]
            X[base:base + w * xs3].reshape(w, xs3)[:, :c] = x[i, r]
    wt = rng.standard_normal((c, k, k))
    W = wt.reshape(-1).copy()
    b = rng.standard_normal(c)
    resid = rng.standard_normal((g.n, g.p, g.q, c))
    ysize = y_stride[0] * n
    R = np.zeros(ysize)
    Rv = R.reshape(n, g.p, g.q, ys3)
    Rv[..., :c] = resid
    Y = np.full(ysize, np.nan)
    try:
        count, grid = run_kernel(g, tile, a, X, x_stride, W, w_stride, b, R, Y, y_stride, per_sm, sms, elem, pdl)
    except SimError as e:
        print(f"{name} {tile_str(g, tile, a, launch_grid(a, tile, tiles, per_sm, sms), pdl)}: FAIL: {e}")
        return False
    ref = reference(g, x, wt, b, resid)
    Yv = Y.reshape(n, g.p, g.q, ys3)
    cv = count.reshape(n, g.p, g.q, ys3)
    got = Yv[..., :c]
    unwritten = int((cv[..., :c] == 0).sum())
    twice = int((cv[..., :c] > 1).sum())
    stray = int((cv[..., c:] != 0).sum())
    err = float(np.nanmax(np.abs(got - ref))) if unwritten < got.size else float("inf")
    ok = err < 1e-9 and unwritten == 0 and twice == 0 and stray == 0 and not np.isnan(got).any()
    print(f"{name} {tile_str(g, tile, a, grid, pdl)}: max err {err:.1e}, unwritten {unwritten}, twice {twice}, "
          f"stray {stray}{'' if ok else '  <-- FAIL'}")
    return ok


def selector_sweep():
    """stage_depthwise_tile alone on many shapes (no kernel run): the tile fits its budget, the launch's tile count is
    the selector's block count, the block is 32..256 threads, every strip item has a walker or walks again."""
    bad, shapes = 0, 0
    for n in (1, 2, 8, 32, 128):
        for c_bytes in (16, 48, 128, 144, 272, 1536):
            for hw in (1, 2, 3, 5, 7, 9, 14, 17, 28, 33, 56, 61, 112, 150):
                for k in (3, 5, 7):
                    for s in (1, 2):
                        for elem in (4, 2):
                            for lanes in (32, 8):
                                c = c_bytes // elem
                                g = Geo(n, c, hw, hw + 3, k, s, k // 2, k // 2, k // 2, k // 2)
                                xs = (hw * (hw + 3) * c, 1, (hw + 3) * c, c)
                                t = stage_depthwise_tile(g, xs, (g.p * g.q * c, 1, g.q * c, c), elem, SM_COUNT,
                                                         lanes, False)
                                shapes += 1
                                if t is None:
                                    print(f"selector: {g.str()} elem {elem} lanes {lanes}: refused")
                                    bad += 1
                                    continue
                                a = staged_args(g, t)
                                tiles = g.n * a["tiles_p"] * a["tiles_q"] * a["slabs"]
                                why = []
                                if staged_tile_bytes(g, t["tile_p"], t["tile_q"], lanes) > K_STAGED_TILE_BUDGET:
                                    why.append("tile over budget")
                                if tiles != t["blocks"]:
                                    why.append(f"launch tiles {tiles} != selector blocks {t['blocks']}")
                                if not (32 <= t["block_x"] <= 256 and t["block_x"] % 32 == 0):
                                    why.append(f"block {t['block_x']}")
                                if not (1 <= t["tile_p"] <= g.p and 1 <= t["tile_q"] <= g.q):
                                    why.append("tile larger than the map")
                                if why:
                                    bad += 1
                                    print(f"selector: {g.str()} elem {elem} lanes {lanes}: {', '.join(why)}")
    print(f"selector sweep: {shapes} shapes, {bad} with a problem")
    return bad == 0


def selector_host_tests():
    """The expectations of tests/gpu/test_depthwise.cpp's host selector tests, on this port of the selector."""
    def dw(n, c, hw, k, s):
        g = Geo(n, c, hw, hw, k, s, k // 2, k // 2, k // 2, k // 2)
        return g, (hw * hw * c, 1, hw * c, c), (g.p * g.q * c, 1, g.q * c, c)
    ok = True
    for k in (3, 5):  # StagedTilesFitSharedMemoryAndFillTheGpu
        g, xs, ys = dw(128, 384, 14, k, 1)
        t = stage_depthwise_tile(g, xs, ys, 2, SM_COUNT, 32, False)
        ok &= (t["tile_p"], t["tile_q"]) == (14 if k == 3 else 7, 14) and depthwise_smem_bytes(g, t) <= 65536
    for k in (3, 5, 7):
        for s in (1, 2):
            for lanes in (32, 8):
                g, xs, ys = dw(32, 96, 112, k, s)
                t = stage_depthwise_tile(g, xs, ys, 4, SM_COUNT, lanes, lanes == 8)
                ok &= depthwise_smem_bytes(g, t) <= 65536 and t["threads"] >= 132 * 3 * 32
    g, xs, ys = dw(1, 384, 14, 3, 1)
    wide, narrow = (stage_depthwise_tile(g, xs, ys, 2, SM_COUNT, lanes, False) for lanes in (32, 8))
    pers = stage_depthwise_tile(g, xs, ys, 2, SM_COUNT, 8, True)
    ok &= depthwise_smem_bytes(g, pers) == 2 * depthwise_smem_bytes(g, narrow)
    ok &= narrow["threads"] // narrow["block_x"] > wide["threads"] // wide["block_x"]
    g, xs, ys = dw(8, 60, 28, 3, 1)  # StagedKernelRefusesWhatItCannotCopyInChunks
    ok &= stage_depthwise_tile(g, xs, ys, 2, SM_COUNT, 32, False) is None
    ok &= stage_depthwise_tile(g, xs, ys, 4, SM_COUNT, 32, False) is not None
    print(f"selector host tests of test_depthwise.cpp: {'ok' if ok else 'FAIL'}")
    return ok


def main():
    t0 = time.time()
    ok = True
    F32, H16 = 4, 2
    # Every case runs with both lane counts, one block per tile and persistent (configs 9-12); the persistent grid
    # with per_sm blocks per SM on `sms` SMs; every other run with the PDL prologue (prm.pdl).
    def all_configs(*shape, elem, per_sm=(1, 3), sms=SM_COUNT, **kw):
        runs = [r for lanes in (32, 8) for r in [(lanes, False, 1)] + [(lanes, True, ps) for ps in per_sm]]
        r = True
        for j, (lanes, pers, ps) in enumerate(runs):
            r &= run(*shape, elem, lanes, pers, per_sm=ps, sms=sms, pdl=j % 2 == 1, **kw)
        return r

    ok &= selector_host_tests()
    ok &= selector_sweep()
    print("== tests/gpu/test_depthwise.cpp StagedKernelSplitsLargeMapsIntoTiles (fp32 and 16-bit) ==")
    for shape in [(2, 64, 45, 70, 3, 1, 1), (1, 72, 61, 33, 5, 2, 2), (2, 24, 50, 29, 7, 1, 3),
                  (1, 136, 30, 57, 3, 2, 1), (3, 16, 23, 23, 5, 1, 2)]:
        for elem in (F32, H16):
            ok &= all_configs(*shape, elem=elem)
    print("== small maps, short last tiles, part-empty slabs, asymmetric pads, strided tensors ==")
    small = [
        (1, 16, 5, 5, 3, 1, 1), (1, 8, 4, 5, 3, 1, 1), (2, 16, 9, 9, 3, 1, 0), (1, 24, 12, 15, 3, 2, 1),
        (1, 8, 19, 18, 5, 1, 2), (2, 32, 17, 16, 5, 2, 2), (1, 16, 15, 13, 7, 1, 3), (2, 8, 16, 21, 7, 2, 3),
        (1, 40, 4, 5, 3, 1, 1), (1, 16, 10, 11, 5, 2, 1), (1, 16, 11, 11, 7, 2, 0), (1, 8, 7, 7, 7, 1, 1),
        (2, 16, 14, 15, 3, 2, (0, 0, 1, 1)), (1, 8, 13, 12, 5, 1, (1, 2, 3, 0)), (1, 24, 9, 10, 3, 1, (2, 0, 0, 2)),
        (1, 16, 8, 8, 3, 1, (3, 3, 3, 3)),  # pad > k/2
        (1, 16, 1, 1, 3, 1, 1), (2, 8, 2, 3, 5, 1, 2), (1, 16, 3, 1, 7, 2, 3),  # maps smaller than the kernel
    ]
    for shape in small:
        for elem in (F32, H16):
            ok &= all_configs(*shape, elem=elem, per_sm=(2,), sms=2)  # few SMs: the persistent loop walks
    ok &= all_configs(1, 72, 20, 20, 3, 1, 1, elem=H16, per_sm=(1, 2), sms=1)   # 64 + 8 channels, 32 lanes
    ok &= all_configs(1, 24, 20, 20, 5, 2, 2, elem=H16, per_sm=(1, 3), sms=1)   # 16 + 8 channels, 8 lanes
    ok &= all_configs(2, 24, 21, 19, 3, 1, 1, elem=F32, per_sm=(1, 2), sms=1)   # 8 lanes fp32: 3 slabs, grid 2
    ok &= all_configs(2, 40, 13, 11, 5, 1, 2, elem=F32, per_sm=(1,), sms=3, pad_x=4, pad_y=4)
    ok &= all_configs(1, 48, 13, 11, 3, 2, 1, elem=H16, per_sm=(2,), sms=2, pad_x=8, pad_y=8)
    print("== the selector picks the whole map (the batch fills the GPU); persistent on 132 SMs walks 3 tiles ==")
    ok &= run(33, 96, 6, 6, 3, 1, 1, F32, 8, False)
    ok &= run(33, 96, 6, 6, 3, 1, 1, F32, 8, True, per_sm=1, pdl=True)
    ok &= run(66, 384, 5, 5, 5, 1, 2, H16, 32, True, per_sm=1)
    print("== forced tiles: the whole map in one tile, strips shorter than the warm-up, tiles wider than tall ==")
    for shape, elem, forced in [((1, 16, 9, 11, 3, 1, 1), F32, (9, 11)), ((2, 16, 12, 7, 7, 1, 3), H16, (12, 7)),
                                ((1, 32, 16, 16, 5, 2, 2), H16, (8, 8)), ((1, 8, 20, 9, 7, 2, 3), F32, (3, 5)),
                                ((1, 16, 14, 14, 3, 1, 1), H16, (1, 14)), ((1, 16, 14, 14, 5, 1, 2), F32, (14, 1))]:
        ok &= all_configs(*shape, elem=elem, per_sm=(1,), sms=2, forced=forced)
    print("== random shapes ==")
    for _ in range(12):
        k = int(rng.choice([3, 5, 7]))
        s = int(rng.integers(1, 3))
        elem = int(rng.choice([F32, H16]))
        c = int(rng.choice([8, 16, 24, 40, 72, 136])) if elem == H16 else int(rng.choice([4, 12, 20, 36, 68]))
        h, w = int(rng.integers(k, 30)), int(rng.integers(k, 30))
        pad = tuple(int(rng.integers(0, k // 2 + 1)) for _ in range(4))
        lanes = int(rng.choice([32, 8]))
        pers = bool(rng.integers(0, 2))
        ok &= run(int(rng.integers(1, 3)), c, h, w, k, s, pad, elem, lanes, pers,
                  per_sm=int(rng.integers(1, 4)), sms=int(rng.choice([1, 2, 5, 132])), pdl=bool(rng.integers(0, 2)))
    for note in NOTES:
        print("note:", note)
    print(f"{'ALL OK' if ok else 'FAIL'} ({time.time() - t0:.0f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
