#!/usr/bin/env python3
"""sim_implicit_gemm_sm90.py: a numpy model of cuda.conv.implicit_gemm_sm90's index math, for checking a change to
the kernel on a machine without a GPU. It mirrors implicit_gemm_sm90_kernel.cuh step by step (thread -> row/chunk
assignment, ARows/KCursor, the 128B-swizzled stores of the cp.async loader, the ring slots, the 32-byte descriptor
advance per k16 step, the wgmma accumulator fragment, the staged epilogue with 16-byte chunks) and compares with a
plain convolution. wgmma itself is modelled from the PTX ISA's description (desc_read: K-major, 8-row atoms 1024
bytes apart, address bits [4:6] ^= [7:9]); the model can only check the kernel against that reading of the ISA, and
the real check is tests/gpu/test_conv_implicit_gemm_sm90.cpp on an H100/H200. Needs numpy:
    python3 scripts/sim_implicit_gemm_sm90.py [seed]
"""
import numpy as np, sys
rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)

def swz(row, chunk): return row * 128 + ((chunk ^ (row % 8)) * 16)

def desc_read(smem, start, rows, k16):  # wgmma K-major SW128 model: element (r, kk) of a 16-wide k step
    out = np.zeros((rows, 16), np.float64)
    for r in range(rows):
        for kk in range(16):
            addr = start + (r // 8) * 1024 + (r % 8) * 128 + kk * 2
            addr = addr ^ (((addr >> 7) & 7) << 4)
            out[r, kk] = smem[addr // 2]
    return out

def run(n, c, h, w, k, R, S, sh, sw, dh, dw, ph, pw, BM, BN, STAGES):
    p = (h + 2 * ph - ((R - 1) * dh + 1)) // sh + 1
    q = (w + 2 * pw - ((S - 1) * dw + 1)) // sw + 1
    x = rng.standard_normal((n, h, w, c)); wt = rng.standard_normal((k, R, S, c)); bias = rng.standard_normal(k)
    res = rng.standard_normal((n, p, q, k))
    gm, gk = n * p * q, R * S * c
    T = 2 * BM; rpp = T // 8
    y = np.full((n * p * q * k), np.nan)
    xf, wf = x.reshape(-1), wt.reshape(-1)
    for bx in range((gm + BM - 1) // BM):
        for by in range((k + BN - 1) // BN):
            bm0, bn0 = bx * BM, by * BN
            ring = np.zeros(STAGES * (BM + BN) * 64)  # in elements
            acc = np.zeros((BM // 64, 128, BN // 2))
            # per-thread state
            rows, curs = [], []
            for t in range(T):
                rr = []
                for i in range(BM // rpp):
                    m = bm0 + t // 8 + i * rpp
                    if m < gm:
                        nn, rem = divmod(m, p * q); pp, qq = divmod(rem, q)
                        rr.append((nn * h * w * c, pp * sh - ph, qq * sw - pw))
                    else: rr.append((0, -(1 << 30), 0))
                rows.append(rr)
                kk = (t % 8) * 8; cc = kk % c; rs = kk // c
                curs.append([kk, rs // S, rs % S, cc])
            slices = (gk + 63) // 64
            abase, bbase = 0, STAGES * BM * 128
            def load(st):
                for t in range(T):
                    kk, r, s, cc = curs[t]; chunk = t % 8; kok = kk < gk
                    for i, (base, ih0, iw0) in enumerate(rows[t]):
                        row = t // 8 + i * rpp
                        ih, iw = ih0 + r * dh, iw0 + s * dw
                        ok = kok and 0 <= ih < h and 0 <= iw < w
                        a = abase + st * BM * 128 + swz(row, chunk)
                        ring[a // 2: a // 2 + 8] = xf[base + (ih * w + iw) * c + cc: base + (ih * w + iw) * c + cc + 8] if ok else 0
                    for i in range(BN // rpp):
                        row = t // 8 + i * rpp; kn = bn0 + row; ok = kok and kn < k
                        a = bbase + st * BN * 128 + swz(row, chunk)
                        ring[a // 2: a // 2 + 8] = wf[kn * gk + kk: kn * gk + kk + 8] if ok else 0
                    # advance
                    cur = curs[t]; cur[0] += 64; cur[3] += 64
                    while cur[3] >= c:
                        cur[3] -= c; cur[2] += 1
                        if cur[2] == S: cur[2] = 0; cur[1] += 1
            for st in range(STAGES - 2):
                if st < slices: load(st)
            for kt in range(slices):
                nxt = kt + STAGES - 2
                if nxt < slices: load(nxt % STAGES)
                st = kt % STAGES
                for wg in range(BM // 64):
                    for ks in range(4):
                        A = desc_read(ring, abase * 1 + st * BM * 128 + wg * 64 * 128 + 32 * ks, 64, ks)
                        B = desc_read(ring, bbase + st * BN * 128 + 32 * ks, BN, ks)
                        D = A @ B.T  # 64 x BN
                        for tt in range(128):
                            wp, ln = tt // 32, tt % 32
                            for j in range(BN // 8):
                                for i in range(2):
                                    for cc in range(2):
                                        acc[wg, tt, 4 * j + 2 * i + cc] += D[16 * wp + ln // 4 + 8 * i, 8 * j + 2 * (ln % 4) + cc]
            ld = BN + 8; tile = np.zeros(BM * ld)
            for t in range(T):
                wg, wp, ln = t // 128, t % 128 // 32, t % 32
                for j in range(BN // 8):
                    for i in range(2):
                        row = wg * 64 + wp * 16 + ln // 4 + 8 * i; col = 8 * j + 2 * (ln % 4)
                        tile[row * ld + col: row * ld + col + 2] = acc[wg, t % 128, 4 * j + 2 * i: 4 * j + 2 * i + 2]
            rc = BN // 8; rp = T // rc
            for t in range(T):
                col = t % rc * 8; kn = bn0 + col
                if kn >= k: continue
                for row in range(t // rc, BM, rp):
                    m = bm0 + row
                    if m >= gm: break
                    off = m * k + kn
                    v = tile[row * ld + col: row * ld + col + 8] + bias[kn: kn + 8] + res.reshape(-1)[off: off + 8]
                    y[off: off + 8] = np.maximum(v, 0)
    # reference
    xp = np.zeros((n, h + 2 * ph + 8, w + 2 * pw + 8, c)); xp[:, ph:ph + h, pw:pw + w] = x
    ref = np.zeros((n, p, q, k))
    for r in range(R):
        for s in range(S):
            patch = xp[:, r * dh: r * dh + (p - 1) * sh + 1: sh, s * dw: s * dw + (q - 1) * sw + 1: sw, :]
            ref += np.einsum('npqc,kc->npqk', patch, wt[:, r, s, :])
    ref = np.maximum(ref + bias + res, 0)
    err = np.nanmax(np.abs(y.reshape(ref.shape) - ref)); nans = np.isnan(y).sum()
    print(f"n{n} c{c} h{h} w{w} k{k} {R}x{S} s{sh}{sw} d{dh}{dw} p{ph}{pw} tile {BM}x{BN}s{STAGES}: max err {err:.2e}, unwritten {nans}")
    return err < 1e-9 and nans == 0

# The configs of implicit_gemm_sm90.h (bm, bn, stages), each on fixed cases and on random small ones.
CONFIGS = [(128, 128, 5), (128, 256, 4), (256, 128, 4), (128, 128, 3), (128, 64, 3), (64, 128, 4)]
ok = True
ok &= run(1, 8, 5, 7, 8, 1, 1, 1, 1, 1, 1, 0, 0, 64, 128, 4)
ok &= run(2, 24, 7, 6, 72, 3, 3, 2, 2, 1, 1, 1, 1, 64, 128, 4)
ok &= run(1, 72, 5, 5, 136, 3, 3, 1, 1, 1, 1, 1, 1, 128, 64, 3)
ok &= run(1, 136, 4, 5, 264, 1, 1, 1, 1, 1, 1, 0, 0, 128, 256, 4)
ok &= run(3, 16, 9, 9, 24, 3, 3, 1, 1, 1, 1, 1, 1, 64, 128, 4)  # 4 blocks along M, M tail
for bm, bn, st in CONFIGS:
    c, k = int(rng.choice([8, 16, 24, 40, 72, 136])), int(rng.choice([8, 24, 72, 136, 264]))
    R = int(rng.choice([1, 3, 5, 7])); s_ = int(rng.integers(1, 3)); d = int(rng.integers(1, 3)); pad = int(rng.integers(0, 3))
    h, w = int(rng.integers(3 + (R - 1) * d, 16)), int(rng.integers(3 + (R - 1) * d, 16))
    ok &= run(int(rng.integers(1, 3)), c, h, w, k, R, R, s_, s_, d, d, pad, pad, bm, bn, st)
print("ALL OK" if ok else "FAIL")
sys.exit(0 if ok else 1)
