#!/usr/bin/env python3
"""sim_separable.py: a numpy model of the fused depthwise -> pointwise ("separable") kernel's index math and
synchronisation (src/backends/cuda/kernels/fused/separable.cu, NOTE [separable tiles]; second version: 8 x 16 output
tiles, 32 mid channels per round, cp.async double buffers one round ahead, KRSC depthwise weights staged per round
tap-major), for checking the kernel on a machine without a GPU. It mirrors, step by step:
  - separable.cpp / separable.cu host side: separable_problem (its refusals, checked against the expectations of
    test_separable.cpp's RefusesWhatItDoesNotCover), compiled_tiles (NT = 2 / 4 / 8 n-tiles for K <= 16 / 32 / 64),
    choose, InTile, smem_bytes, separable_smem_bytes, separable_prepare (the dynamic-smem attribute it sets) and
    separable_launch (the early return, the grid n * ceil(P/8) * ceil(Q/16), 256 threads, the smem); and the device
    checks of separable_tactic.cpp's sep_can_implement (the smem opt-in limit; DeviceLimitsOnHost's expectations);
  - separable_kernel, per block and per thread (the 256 threads' arrays evaluate the kernel's own per-thread
    expressions; warps are an array axis, never merged): the shared-memory carve-up (in_tiles, b_tiles, a_tile,
    wd_tiles), tile_origin, load_round (each thread's `for (i = threadIdx.x; ...; i += 256)` items of the input tile
    and of the [NT*8][32] pointwise weight slice: pos / part / row / col, the ok test, src = x or wp with
    src_bytes 0, the 16-byte zero fill; one commit), stage_depthwise_weights (plain 2-byte loads and stores into the
    tap-major [R*R][32] slice, zeros past Cm), the loop's cp_async_wait<0> / __syncthreads / prefetch of round r+1
    into buffer (r & 1) ^ 1 / depthwise / __syncthreads / pointwise, depthwise_round (cg, col, row0, the `channels`
    test, the in_row pointer, the S + R input rows feeding output row 0 with filter row i and row 1 with i - S, the
    16-byte tap reads, the float4 bias loads, the zero A rows past P / Q / Cm, the uint4 A stores), pointwise_round
    (the ldmatrix_x4 row addresses of A and B, the `j * 8 >= k` break, mma_16816 on b_lo / b_hi), store_outputs
    (oh / ch / ow, the early return and continues, bias, residual, the 4-byte pair stores).
  - ldmatrix.x4 and mma.sync.m16n8k16.row.col.f32.{f16,bf16} are modelled from the PTX ISA's documented fragment
    layouts (lane = 4 * groupID + threadID_in_group; ldmatrix: lanes 8i..8i+7 address the rows of matrix i, register
    i of a lane holds row lane/4, elements 2*(lane%4) and +1 of matrix i; mma A row-major 16x16: a0 (g, 2t..2t+1),
    a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..); B col-major 16x8: b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g);
    C/D f32 16x8: d0,d1 (g, 2t..2t+1), d2,d3 (g+8, 2t..)). This is a model of that reading of the ISA; the real check
    is tests/gpu/test_separable.cpp and tests/gpu/test_separable_tactic.cpp on a GPU.
Shared memory is a flat byte array per block. Each byte records which round staged it (a cp.async, a plain store of
the depthwise slice, or a depthwise A store), whether a cp.async to it is still in flight (issued, not yet covered by
a cp_async_wait), the barrier interval in which it landed / was stored and by which thread, and the last interval in
which it was read and by whom. The model asserts: no read of a byte in flight; no read of a byte staged for a round
other than the one being computed; no read of another thread's byte without a __syncthreads in between (ldmatrix,
a warp-collective read, needs a barrier after every write it reads); no cp.async to a byte in flight or read in the
same barrier interval; no plain store to a byte in flight, read by another thread or written by another thread in the
same interval; every access inside the allocated dynamic shared memory and inside the sub-buffer it is meant for;
16-byte alignment of every cp.async (both ends), ldmatrix row address and uint4 shared access; every global read (X,
Wd, Bd, Wp, bias, residual) in bounds and aligned to its width (Bd is read as float4: 16 bytes); every output element
written exactly once, no write outside Y, nothing in flight when a block exits. Arithmetic is float64 (the point is
the indexing), compared with a plain numpy NHWC depthwise convolution (zero padding, bias) then a 1x1 convolution
(bias, residual); activations identity or Relu on either half.
What it cannot check: fp16 / bf16 rounding (HFMA2 accumulation for fp16, the A tile's rounding, pack2); the other
activations' formulas; f16 vs bf16 (both are 2-byte elements: the index math is the same, so each case runs once);
cp.async's completion semantics and memory ordering beyond "lands no later than the covering cp.async.wait_group +
__syncthreads" (groups are modelled block-wide: every thread commits and waits at the same points, as the kernel's
uniform control flow does); the real ldmatrix / mma hardware behaviour; bank conflicts, occupancy, registers,
__launch_bounds__; concurrency between blocks (blocks run one after another; a second write of an output is still
counted); pointer alignment beyond the bases chosen here (256-byte aligned, like cudaMalloc and the weight image;
two runs at deliberately misaligned X and Bd show that the model rejects those);
the tactic's graph-level forms checks. Needs numpy:
    python3 scripts/sim_separable.py [seed]
    python3 scripts/sim_separable.py --mutants   (self-test: seeded mistakes in the model must be caught)
"""
import sys
import time

import numpy as np

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
rng = np.random.default_rng(int(ARGS[0]) if ARGS else 0)

# ---- separable.h / separable.cu constants ----
K_SEP_CHUNK = 32
K_SEP_THREADS = 256
K_SEP_MAX_OUT = 64
K_TILE_H, K_TILE_W = 8, 16
K_TILE_PIXELS = K_TILE_H * K_TILE_W
K_LD = K_SEP_CHUNK + 8
ELEM = 2  # fp16 / bf16
DEFAULT_SMEM = 48 * 1024
H200_OPTIN = 227 * 1024


class SimError(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise SimError(msg() if callable(msg) else msg)


def cdiv(a, b):
    return (a + b - 1) // b


# ---- host side ----
def separable_problem(dtype, cm, k, r, s, stride_h, stride_w):
    if dtype not in ("f16", "bf16"):
        return f"fp16 and bf16 only (dtype {dtype})"
    if r != s or r not in (3, 5):
        return f"3x3 or 5x5 depthwise filters only ({r}x{s})"
    if stride_h != stride_w or stride_h not in (1, 2):
        return f"stride 1 or 2, the same both ways (stride {stride_h}x{stride_w})"
    if cm % 8 != 0:
        return f"needs Cm % 8 == 0 (Cm = {cm})"
    if k % 8 != 0 or k > K_SEP_MAX_OUT:
        return f"needs K % 8 == 0 and K <= {K_SEP_MAX_OUT} (K = {k})"
    return ""


def compiled_tiles(k):
    return 2 if k <= 16 else 4 if k <= 32 else 8 if k <= K_SEP_MAX_OUT else 0


def in_tile(R, S):
    rows, cols = (K_TILE_H - 1) * S + R, (K_TILE_W - 1) * S + R
    return rows, cols, rows * cols * K_LD


def smem_bytes(R, S, NT):
    return 2 * (2 * in_tile(R, S)[2] + 2 * NT * 8 * K_LD + K_TILE_PIXELS * K_LD + 2 * R * R * K_SEP_CHUNK)


def choose(dtype, r, stride, k):
    """(R, STRIDE, NT, smem) of the kernel instance, or None (KernelChoice{} in the C++)."""
    if dtype not in ("f16", "bf16"):
        return None
    nt = compiled_tiles(k)
    if (r, stride) not in ((3, 1), (3, 2), (5, 1), (5, 2)) or nt not in (2, 4, 8):
        return None
    return r, stride, nt, smem_bytes(r, stride, nt)


def separable_smem_bytes(dtype, r, stride, k):
    kc = choose(dtype, r, stride, k)
    return kc[3] if kc else 0


PREPARED = {}  # kernel instance -> cudaFuncAttributeMaxDynamicSharedMemorySize


def separable_prepare(dtype, r, stride, k):
    kc = choose(dtype, r, stride, k)
    if kc is None:
        return "cudaErrorInvalidValue"
    check(kc[3] <= H200_OPTIN, "separable_prepare asks for more than the opt-in shared memory")
    PREPARED[(dtype,) + kc[:3]] = kc[3]
    return "cudaSuccess"


def separable_launch(prm, dtype):
    """None where the launcher returns without launching; else (kernel instance, grid, block, smem)."""
    kc = choose(dtype, prm["r"], prm["stride_h"], prm["k"])
    if kc is None or prm["n"] * prm["p"] * prm["q"] == 0:
        return None
    tiles = prm["n"] * cdiv(prm["p"], K_TILE_H) * cdiv(prm["q"], K_TILE_W)
    check(0 < tiles < 2 ** 31, "grid size")
    key = (dtype,) + kc[:3]
    check(kc[3] <= DEFAULT_SMEM or PREPARED.get(key, DEFAULT_SMEM) >= kc[3],
          lambda: f"launch with {kc[3]} bytes of dynamic shared memory without separable_prepare")
    return kc[:3], tiles, K_SEP_THREADS, kc[3]


def host_checks():
    ok = True
    msgs = []

    def expect(cond, what):
        nonlocal ok
        if not cond:
            ok = False
            msgs.append(what)

    # test_separable.cpp RefusesWhatItDoesNotCover
    expect(separable_problem("f16", 144, 24, 3, 3, 1, 1) == "", "144/24 3x3 s1 refused")
    expect(separable_problem("bf16", 960, 64, 5, 5, 2, 2) == "", "960/64 5x5 s2 refused")
    for args, part in [(("f32", 144, 24, 3, 3, 1, 1), "fp16 and bf16"), (("f16", 144, 24, 7, 7, 1, 1), "3x3 or 5x5"),
                       (("f16", 144, 24, 3, 5, 1, 1), "3x3 or 5x5"), (("f16", 144, 24, 3, 3, 1, 2), "stride"),
                       (("f16", 144, 24, 3, 3, 3, 3), "stride"), (("f16", 12, 24, 3, 3, 1, 1), "Cm % 8"),
                       (("f16", 144, 20, 3, 3, 1, 1), "K % 8"), (("f16", 576, 96, 3, 3, 1, 1), "K <= 64")]:
        expect(part in separable_problem(*args), f"separable_problem{args} should mention {part!r}")
    expect(separable_smem_bytes("f16", 3, 1, 96) == 0, "smem for K = 96 not 0")
    # every case separable_problem accepts has a kernel (choose != None), and no refused one does
    for r in (3, 5, 7):
        for st in (1, 2, 3):
            for k in range(8, 97, 8):
                acc = separable_problem("f16", 64, k, r, r, st, st) == ""
                expect(acc == (choose("f16", r, st, k) is not None),
                       f"separable_problem / choose differ at r{r} s{st} K{k}")
    # test_separable_tactic.cpp DeviceLimitsOnHost: 5x5 s2 K64 fits an H200's opt-in (about 127 KiB), not 48 KiB
    big = separable_smem_bytes("f16", 5, 2, 64)
    expect(big <= H200_OPTIN and big > DEFAULT_SMEM, f"5x5 s2 K64 needs {big} bytes")
    # the smem table, 16-byte alignment of every sub-buffer
    table = []
    for r in (3, 5):
        for st in (1, 2):
            for nt in (2, 4, 8):
                b = smem_bytes(r, st, nt)
                rows, cols, el = in_tile(r, st)
                offs = [2 * el, 2 * (2 * el), 2 * (2 * el + 2 * nt * 8 * K_LD),
                        2 * (2 * el + 2 * nt * 8 * K_LD + K_TILE_PIXELS * K_LD)]
                expect(all(o % 16 == 0 for o in offs), f"r{r} s{st} NT{nt}: sub-buffer not 16-byte aligned")
                expect(b <= H200_OPTIN, f"r{r} s{st} NT{nt}: {b} bytes over the H200 opt-in")
                table.append(f"{r}x{r}s{st}/NT{nt} {b}{'*' if b > DEFAULT_SMEM else ''}")
    print("smem bytes per block (* = over 48 KiB, needs separable_prepare): " + ", ".join(table))
    print(f"host checks (separable_problem, choose, smem): {'ok' if ok else 'FAIL: ' + '; '.join(msgs)}")
    return ok


# ---- device memory ----
class Global:
    """A global tensor: flat float64 values of 2-byte (or 4-byte: the float biases) elements at a byte base."""

    def __init__(self, name, vals, base, elem):
        self.name, self.vals, self.base, self.elem = name, np.asarray(vals, np.float64).ravel(), base, elem

    def load(self, off, n, align):
        """Loads of n consecutive elements at element offsets off (any shape); returns (..., n)."""
        off = np.asarray(off, np.int64)
        if off.size == 0:
            return np.zeros(off.shape + (n,))
        check(off.min() >= 0 and off.max() + n <= self.vals.size,
              lambda: f"global read outside {self.name}: elements {off.min()}..{off.max() + n - 1} of {self.vals.size}")
        check(((self.base + off * self.elem) % align == 0).all(),
              lambda: f"global read of {self.name} not {align}-byte aligned")
        return self.vals[off[..., None] + np.arange(n)]


class Smem:
    def __init__(self, nbytes):
        self.nbytes = nbytes
        self.vals = np.full(nbytes // 2, np.nan)       # 2-byte elements
        self.tag = np.full(nbytes, -1, np.int64)        # round that staged / stored the byte
        self.inflight = np.zeros(nbytes, bool)
        self.landed = np.full(nbytes, -1, np.int64)     # interval in which it landed / was stored
        self.writer = np.full(nbytes, -1, np.int64)
        self.last_read = np.full(nbytes, -1, np.int64)
        self.reader = np.full(nbytes, -1, np.int64)     # the one reader in last_read's interval, -2 = several
        self.epoch = 0
        self.open_group = []
        self.groups = []

    def _bytes(self, addr, n, lo, hi, what):
        addr = np.asarray(addr, np.int64)
        b = addr[..., None] + np.arange(n)
        check(b.min() >= 0 and b.max() < self.nbytes,
              lambda: f"{what}: shared access outside the {self.nbytes} bytes of dynamic smem: {b.min()}..{b.max()}")
        check(b.min() >= lo and b.max() < hi,
              lambda: f"{what}: shared access outside its buffer [{lo}, {hi}): bytes {b.min()}..{b.max()}")
        return b

    def _note_reads(self, bf, tf):
        stale = self.last_read[bf] < self.epoch
        self.reader[bf[stale]] = -1
        self.last_read[bf] = self.epoch
        neg = self.reader[bf] == -1
        self.reader[bf[neg]] = tf[neg]
        conflict = self.reader[bf] != tf
        self.reader[bf[conflict]] = -2

    def cp_async(self, dst, data, tids, tag, lo, hi, what):
        """cp.async.cg 16 bytes: dst byte addresses (m,), data (m, 8) already zero-filled past src_bytes."""
        if len(dst) == 0:
            return
        check((dst % 16 == 0).all(), f"{what}: cp.async destination not 16-byte aligned")
        b = self._bytes(dst, 16, lo, hi, what)
        check(len(np.unique(dst)) == len(dst), f"{what}: two cp.async chunks of one group write the same bytes")
        check(not self.inflight[b].any(), f"{what}: cp.async to a byte whose previous cp.async is in flight")
        check((self.last_read[b] < self.epoch).all(),
              f"{what}: cp.async to a byte read in the same barrier interval (buffer overwritten while read)")
        t = np.broadcast_to(tids[:, None], b.shape)
        check(((self.landed[b] < self.epoch) | (self.writer[b] == t)).all(),
              f"{what}: cp.async to a byte another thread wrote in the same barrier interval")
        self.inflight[b] = True
        self.open_group.append((dst, data, tids, tag))

    def commit(self):
        self.groups.append(self.open_group)
        self.open_group = []

    def wait(self, n_pending):
        while len(self.groups) > n_pending:
            for dst, data, tids, tag in self.groups.pop(0):
                b = (dst[:, None] + np.arange(16)).ravel()
                self.vals[(dst // 2)[:, None] + np.arange(8)] = data
                self.tag[b] = tag
                self.inflight[b] = False
                self.landed[b] = self.epoch
                self.writer[b] = np.repeat(tids, 16)

    def sync(self):
        self.epoch += 1

    def load(self, addr, n_elems, tids, tag, lo, hi, what):
        """ld.shared of n_elems 2-byte elements at byte addresses addr (any shape) by threads tids (same shape)."""
        nb = 2 * n_elems
        check((np.asarray(addr) % nb == 0).all(), f"{what}: {nb}-byte shared load not aligned")
        b = self._bytes(addr, nb, lo, hi, what)
        t = np.broadcast_to(np.asarray(tids)[..., None], b.shape)
        check(not self.inflight[b].any(), f"{what}: shared read of a byte whose cp.async is still in flight")
        check((self.tag[b] == tag).all(),
              lambda: f"{what}: shared read of bytes not staged for round {tag} (rounds {np.unique(self.tag[b])})")
        fresh = self.landed[b] >= self.epoch
        check((self.writer[b][fresh] == t[fresh]).all(),
              f"{what}: shared read of another thread's bytes without a __syncthreads in between")
        self._note_reads(b.ravel(), t.ravel())
        return self.vals[(np.asarray(addr) // 2)[..., None] + np.arange(n_elems)]

    def store(self, addr, vals, tids, tag, lo, hi, what):
        """st.shared of vals (..., n) 2-byte elements at byte addresses addr (...) by threads tids (...)."""
        n = vals.shape[-1]
        nb = 2 * n
        check((np.asarray(addr) % nb == 0).all(), f"{what}: {nb}-byte shared store not aligned")
        b = self._bytes(addr, nb, lo, hi, what)
        t = np.broadcast_to(np.asarray(tids)[..., None], b.shape)
        bf, tf = b.ravel(), t.ravel()
        check(not self.inflight[bf].any(), f"{what}: store to a byte whose cp.async is in flight")
        rd = self.last_read[bf] == self.epoch
        check((self.reader[bf][rd] == tf[rd]).all(),
              f"{what}: store to a byte another thread read in the same barrier interval")
        wr = self.landed[bf] == self.epoch
        check((self.writer[bf][wr] == tf[wr]).all(),
              f"{what}: store to a byte another thread wrote in the same barrier interval")
        order = np.argsort(bf, kind="stable")
        sb, st = bf[order], tf[order]
        dup = sb[1:] == sb[:-1]
        check((st[1:][dup] == st[:-1][dup]).all(), f"{what}: two threads store the same byte in one interval")
        self.vals[(np.asarray(addr) // 2)[..., None] + np.arange(n)] = vals
        self.tag[bf] = tag
        self.landed[bf] = self.epoch
        self.writer[bf] = tf

    def ldmatrix_x4(self, addr, tag, lo, hi, what):
        """ldmatrix.sync.aligned.m8n8.x4.b16, per warp: addr (W, 32) row byte addresses -> regs (W, 32, 4, 2)."""
        check((addr % 16 == 0).all(), f"{what}: ldmatrix row address not 16-byte aligned")
        b = self._bytes(addr, 16, lo, hi, what)
        check(not self.inflight[b].any(), f"{what}: ldmatrix of a byte whose cp.async is still in flight")
        check((self.tag[b] == tag).all(),
              lambda: f"{what}: ldmatrix of bytes not staged for round {tag} (rounds {np.unique(self.tag[b])})")
        check((self.landed[b] < self.epoch).all(),
              f"{what}: ldmatrix (warp-collective) of bytes written without a __syncthreads in between")
        bf = b.ravel()
        self.last_read[bf] = self.epoch
        self.reader[bf] = -2
        rows = self.vals[(addr // 2)[..., None] + np.arange(8)]   # (W, 32 lanes = 8 * matrix + row, 8)
        lane = np.arange(32)
        regs = np.empty(addr.shape[:-1] + (32, 4, 2))
        # register m of lane L: row L/4 of matrix m (whose address lane 8m + L/4 gave), elements 2(L%4) and +1
        for m in range(4):
            for e in range(2):
                regs[:, :, m, e] = rows[:, 8 * m + lane // 4, 2 * (lane % 4) + e]
        return regs


LANE = np.arange(32)
G_ID, T_ID = LANE // 4, LANE % 4


def mma_16816(d, a, b):
    """d (W, 32, 4) += A (16x16 from a (W, 32, 4, 2)) x B (16x8 from b (W, 32, 2, 2)); fragments as in the ISA."""
    W = d.shape[0]
    A = np.full((W, 16, 16), np.nan)
    B = np.full((W, 16, 8), np.nan)
    C = np.full((W, 16, 8), np.nan)
    for e in range(2):
        A[:, G_ID, 2 * T_ID + e] = a[:, :, 0, e]
        A[:, G_ID + 8, 2 * T_ID + e] = a[:, :, 1, e]
        A[:, G_ID, 2 * T_ID + 8 + e] = a[:, :, 2, e]
        A[:, G_ID + 8, 2 * T_ID + 8 + e] = a[:, :, 3, e]
        B[:, 2 * T_ID + e, G_ID] = b[:, :, 0, e]
        B[:, 2 * T_ID + 8 + e, G_ID] = b[:, :, 1, e]
        C[:, G_ID, 2 * T_ID + e] = d[:, :, e]
        C[:, G_ID + 8, 2 * T_ID + e] = d[:, :, 2 + e]
    check(not (np.isnan(A).any() or np.isnan(B).any() or np.isnan(C).any()),
          "mma fragment: an element of A, B or C not covered (or a NaN read from unwritten shared memory)")
    D = A @ B + C
    out = np.empty_like(d)
    for e in range(2):
        out[:, :, e] = D[:, G_ID, 2 * T_ID + e]
        out[:, :, 2 + e] = D[:, G_ID + 8, 2 * T_ID + e]
    return out


def act(kind, v):
    if kind is None:
        return v
    assert kind == "relu"
    return np.maximum(v, 0.0)


# ---- the kernel ----
def run_kernel(prm, inst, grid, smem_size, G):
    """separable_kernel<T, R, STRIDE, NT> over its grid. G: the Global tensors. Returns (Y, write counts)."""
    R, S, NT = inst
    rows_in, cols_in, in_elems = in_tile(R, S)
    check(smem_size == smem_bytes(R, S, NT), "launch smem differs from the kernel's layout")
    # shared-memory carve-up, in elements from smem (then bytes)
    in_tiles = 0
    b_tiles = in_tiles + 2 * in_elems
    a_tile = b_tiles + 2 * NT * 8 * K_LD
    wd_tiles = a_tile + K_TILE_PIXELS * K_LD
    end = wd_tiles + 2 * R * R * K_SEP_CHUNK
    check(2 * end == smem_size, "sub-buffers do not add up to the allocation")
    B2 = 2  # bytes per element
    n, h, w, cm, p, q, k = (prm[x] for x in ("n", "h", "w", "cm", "p", "q", "k"))
    pad_h, pad_w = prm["pad_h"], prm["pad_w"]
    check(prm["r"] == R and prm["s"] == R and prm["stride_h"] == S and prm["stride_w"] == S, "params vs instance")
    X, WD, BD, WP, BIAS, RES = G["x"], G["wd"], G["bd"], G["wp"], G["bias"], G["res"]
    Y = np.full(n * p * q * k, np.nan)
    count = np.zeros(Y.size, np.int64)
    y_base = G["y_base"]

    tid = np.arange(K_SEP_THREADS)
    warp, lane = tid // 32, tid % 32
    rounds = cdiv(cm, K_SEP_CHUNK)
    tiles_w, tiles_h = cdiv(q, K_TILE_W), cdiv(p, K_TILE_H)

    for bx in range(grid):
        sm = Smem(smem_size)
        # tile_origin
        o_n, o_oh0, o_ow0 = bx // (tiles_w * tiles_h), (bx // tiles_w) % tiles_h * K_TILE_H, bx % tiles_w * K_TILE_W
        check(o_n < n, "block past the batch")

        def load_round(c0, in_tile_e, b_tile_e, tag, buf):
            ih0, iw0 = o_oh0 * S - pad_h, o_ow0 * S - pad_w
            image = o_n * h * w
            # for (i = threadIdx.x; i < rows*cols*4; i += 256): item i is thread i % 256's
            i = np.arange(rows_in * cols_in * 4)
            t = i % K_SEP_THREADS
            pos, part = i >> 2, i & 3
            row = pos // cols_in
            col = pos - row * cols_in
            ih, iw, c = ih0 + row, iw0 + col, c0 + part * 8
            ok = (ih >= 0) & (ih < h) & (iw >= 0) & (iw < w) & (c < cm)
            src = np.where(ok, (image + ih * w + iw) * cm + c, 0)
            data = np.zeros((len(i), 8))
            data[ok] = X.load(src[ok], 8, 16)           # src_bytes 16: all 16 bytes read
            check(((X.base + src * 2) % 16 == 0).all(), "cp.async source of X not 16-byte aligned")
            lo = 2 * (in_tiles + buf * in_elems)
            sm.cp_async(B2 * (in_tile_e + pos * K_LD + part * 8), data, t, tag, lo, lo + 2 * in_elems, "in tile")
            i = np.arange(NT * 8 * 4)
            t = i % K_SEP_THREADS
            row, part = i >> 2, i & 3
            c = c0 + part * 8
            ok = (row < k) & (c < cm)
            src = np.where(ok, row * cm + c, 0)
            data = np.zeros((len(i), 8))
            data[ok] = WP.load(src[ok], 8, 16)
            check(((WP.base + src * 2) % 16 == 0).all(), "cp.async source of Wp not 16-byte aligned")
            lo = 2 * (b_tiles + buf * NT * 8 * K_LD)
            sm.cp_async(B2 * (b_tile_e + row * K_LD + part * 8), data, t, tag, lo, lo + 2 * NT * 8 * K_LD, "B tile")
            sm.commit()

        def stage_depthwise_weights(c0, wd_tile_e, tag, buf):
            i = np.arange(K_SEP_CHUNK * R * R)
            t = i % K_SEP_THREADS
            c = i // (R * R)
            tap = i - c * (R * R)
            inside = c0 + c < cm
            v = np.zeros(len(i))
            v[inside] = WD.load((c0 + c[inside]) * (R * R) + tap[inside], 1, 2)[:, 0]
            lo = 2 * (wd_tiles + buf * R * R * K_SEP_CHUNK)
            sm.store(B2 * (wd_tile_e + tap * K_SEP_CHUNK + c), v[:, None], t, tag, lo, lo + 2 * R * R * K_SEP_CHUNK,
                     "depthwise weight slice")

        def depthwise_round(c0, in_tile_e, wd_tile_e, tag, buf):
            cg, col, row0 = tid & 3, (tid >> 2) & (K_TILE_W - 1), (tid >> 6) * 2
            c = c0 + cg * 8
            channels = c < cm
            acc = np.zeros((2, K_SEP_THREADS, 8))
            act_t = tid[channels]
            in_lo = 2 * (in_tiles + buf * in_elems)
            wd_lo = 2 * (wd_tiles + buf * R * R * K_SEP_CHUNK)
            if act_t.size:
                cgc, colc, r0c = cg[channels], col[channels], row0[channels]
                # tap(r, s): wd_tile + (r * R + s) * 32 + cg * 8, for every (r, s) the loop asks for
                rs = np.arange(R * R)
                taps = sm.load(B2 * (wd_tile_e + rs[None, :] * K_SEP_CHUNK + cgc[:, None] * 8), 8,
                               act_t[:, None], tag, wd_lo, wd_lo + 2 * R * R * K_SEP_CHUNK, "tap read")
                taps = taps.reshape(len(act_t), R, R, 8)
                ii = np.arange(S + R)
                in_row = in_tile_e + ((r0c[:, None] * S + ii[None, :]) * cols_in + colc[:, None] * S) * K_LD + \
                    cgc[:, None] * 8                                            # (threads, S + R)
                addr = in_row[:, :, None] + np.arange(R)[None, None, :] * K_LD   # + s * kLd
                xv = sm.load(B2 * addr, 8, act_t[:, None, None], tag, in_lo, in_lo + 2 * in_elems, "input read")
                a0, a1 = np.zeros((len(act_t), 8)), np.zeros((len(act_t), 8))
                for i in range(S + R):
                    for s in range(R):
                        if i < R:
                            a0 += xv[:, i, s] * taps[:, i, s]
                        if i >= S and i - S < R:
                            a1 += xv[:, i, s] * taps[:, i - S, s]
                acc[0, channels], acc[1, channels] = a0, a1
            b_lo = np.zeros((K_SEP_THREADS, 4))
            b_hi = np.zeros((K_SEP_THREADS, 4))
            if BD is not None and act_t.size:
                b_lo[channels] = BD.load(c[channels], 4, 16)
                b_hi[channels] = BD.load(c[channels] + 4, 4, 16)
            for j in range(2):
                orow = row0 + j
                ok = channels & (o_oh0 + orow < p) & (o_ow0 + col < q)
                v = act(prm["act_d"], acc[j] + np.concatenate([b_lo, b_hi], axis=1))
                out = np.where(ok[:, None], v, 0.0)
                sm.store(B2 * (a_tile + (orow * K_TILE_W + col) * K_LD + cg * 8), out, tid, tag,
                         2 * a_tile, 2 * (a_tile + K_TILE_PIXELS * K_LD), "A store")

        def pointwise_round(b_tile_e, tag, buf, acc):
            wp_ = warp.reshape(8, 32)
            ln = lane.reshape(8, 32)
            b_lo_ = 2 * (b_tiles + buf * NT * 8 * K_LD)
            for ks in range(K_SEP_CHUNK // 16):
                a = sm.ldmatrix_x4(B2 * (a_tile + (wp_ * 16 + (ln & 15)) * K_LD + ks * 16 + (ln >> 4) * 8), tag,
                                   2 * a_tile, 2 * (a_tile + K_TILE_PIXELS * K_LD), "A ldmatrix")
                for j in range(0, NT, 2):
                    if j * 8 >= k:
                        break
                    b = sm.ldmatrix_x4(B2 * (b_tile_e + (j * 8 + (ln & 7) + ((ln >> 4) << 3)) * K_LD + ks * 16 +
                                             ((ln >> 3) & 1) * 8), tag, b_lo_, b_lo_ + 2 * NT * 8 * K_LD, "B ldmatrix")
                    acc[:, :, j] = mma_16816(acc[:, :, j], a, b[:, :, 0:2])
                    acc[:, :, j + 1] = mma_16816(acc[:, :, j + 1], a, b[:, :, 2:4])

        def store_outputs(acc):
            oh = o_oh0 + warp                                   # per thread
            live = oh < p                                       # `if (oh >= prm.p) return;`
            for j in range(NT):
                ch = j * 8 + 2 * (lane & 3)
                m = live & (ch < k)
                if not m.any():
                    continue
                b0 = np.zeros(K_SEP_THREADS)
                b1 = np.zeros(K_SEP_THREADS)
                if BIAS is not None:
                    b0[m] = BIAS.load(ch[m], 1, 4)[:, 0]
                    b1[m] = BIAS.load(ch[m] + 1, 1, 4)[:, 0]
                for half in range(2):
                    ow = o_ow0 + (lane >> 2) + 8 * half
                    mm = m & (ow < q)
                    if not mm.any():
                        continue
                    a_ = acc.reshape(K_SEP_THREADS, NT, 4)[mm, j]
                    v = np.stack([a_[:, 2 * half] + b0[mm], a_[:, 2 * half + 1] + b1[mm]], axis=1)
                    at = ((o_n * p + oh[mm]) * q + ow[mm]) * k + ch[mm]
                    if RES is not None:
                        v = v + RES.load(at, 2, 4)
                    v = act(prm["act_p"], v)
                    check((at >= 0).all() and (at + 2 <= Y.size).all(), "store outside Y")
                    check(((y_base + at * 2) % 4 == 0).all(), "Y pair store not 4-byte aligned")
                    Y[at[:, None] + np.arange(2)] = v
                    np.add.at(count, (at[:, None] + np.arange(2)).ravel(), 1)

        acc = np.zeros((8, 32, NT, 4))
        load_round(0, in_tiles, b_tiles, 0, 0)
        stage_depthwise_weights(0, wd_tiles, 0, 0)
        for r in range(rounds):
            buf = r & 1
            sm.wait(0)
            sm.sync()
            if r + 1 < rounds:
                load_round((r + 1) * K_SEP_CHUNK, in_tiles + (buf ^ 1) * in_elems,
                           b_tiles + (buf ^ 1) * NT * 8 * K_LD, r + 1, buf ^ 1)
                stage_depthwise_weights((r + 1) * K_SEP_CHUNK, wd_tiles + (buf ^ 1) * R * R * K_SEP_CHUNK, r + 1,
                                        buf ^ 1)
            depthwise_round(r * K_SEP_CHUNK, in_tiles + buf * in_elems, wd_tiles + buf * R * R * K_SEP_CHUNK, r, buf)
            sm.sync()
            pointwise_round(b_tiles + buf * NT * 8 * K_LD, r, buf, acc)
        store_outputs(acc)
        check(not sm.inflight.any() and not sm.groups and not sm.open_group,
              "cp.async still in flight (or uncommitted / unwaited) when the block exits")
    return Y, count


def reference(n, h, w, cm, k, R, S, pt, pl, p, q, x, wd, bd, wp, bias, res, act_d, act_p):
    hp = max(h + pt, (p - 1) * S + R) + R
    wpd = max(w + pl, (q - 1) * S + R) + R
    xp = np.zeros((n, hp, wpd, cm))
    xp[:, pt:pt + h, pl:pl + w] = x
    mid = np.zeros((n, p, q, cm))
    for r in range(R):
        for s in range(R):
            mid += xp[:, r:r + (p - 1) * S + 1:S, s:s + (q - 1) * S + 1:S, :] * wd[:, r * R + s]
    if bd is not None:
        mid = mid + bd
    mid = act(act_d, mid)
    y = mid.reshape(-1, cm) @ wp.T
    if bias is not None:
        y = y + bias
    if res is not None:
        y = y + res.reshape(-1, k)
    return act(act_p, y).reshape(-1)


def run(n, h, w, cm, k, R, S, pad=None, residual=False, bias=True, act_d="relu", act_p=None, dtype="f16",
        label="", bd_offset=0, x_offset=0, quiet_fail=False):
    """pad: None (R // 2 all sides), an int, or (top, left, bottom, right); bottom / right only shape P and Q.
    bd_offset / x_offset: bytes added to Bd's / X's base (the alignment preconditions); quiet_fail: a failure is
    the expected outcome."""
    if pad is None:
        pad = R // 2
    pt, pl, pb, pr = (pad,) * 4 if isinstance(pad, int) else pad
    p, q = (h + pt + pb - R) // S + 1, (w + pl + pr - R) // S + 1
    name = (f"N{n} H{h} W{w} Cm{cm} -> K{k} {R}x{R} s{S} pad t{pt} l{pl} b{pb} r{pr} P{p} Q{q}"
            f"{' z' if residual else ''}{'' if bias else ' nobias'} act {act_d}/{act_p}{' ' + label if label else ''}")
    why = separable_problem(dtype, cm, k, R, R, S, S)
    if why:
        print(f"{name}: REFUSED: {why}")
        return False
    check(separable_prepare(dtype, R, S, k) == "cudaSuccess", "separable_prepare failed")
    prm = dict(n=n, h=h, w=w, cm=cm, p=p, q=q, k=k, r=R, s=R, stride_h=S, stride_w=S, pad_h=pt, pad_w=pl,
               act_d=act_d, act_p=act_p)
    x = rng.standard_normal((n, h, w, cm))
    wd = rng.standard_normal((cm, R * R))          # [Cm][R*S], the KRSC form of the depthwise filter
    bd = rng.standard_normal(cm) if bias else None
    wp = rng.standard_normal((k, cm))              # [K][Cm]
    bp = rng.standard_normal(k) if bias else None
    z = rng.standard_normal((n, p, q, k)) if residual else None
    base = iter(range(1 << 28, 1 << 40, 1 << 28))  # 256-byte aligned bases, each tensor its own range
    G = dict(x=Global("X", x, next(base) + x_offset, 2), wd=Global("Wd", wd, next(base), 2),
             bd=Global("Bd", bd, next(base) + bd_offset, 4) if bias else None, wp=Global("Wp", wp, next(base), 2),
             bias=Global("bias", bp, next(base), 4) if bias else None,
             res=Global("residual", z, next(base), 2) if residual else None, y_base=next(base))
    t0 = time.time()
    try:
        launch = separable_launch(prm, dtype)
        if launch is None:
            print(f"{name}: not launched")
            return n * p * q == 0
        inst, grid, block, smem = launch
        desc = f"NT{inst[2]} grid {grid} smem {smem} rounds {cdiv(cm, K_SEP_CHUNK)}"
        Y, count = run_kernel(prm, inst, grid, smem, G)
    except SimError as e:
        print(f"{name}: {'fails as it must' if quiet_fail else 'FAIL'}: {e}")
        return False
    ref = reference(n, h, w, cm, k, R, S, pt, pl, p, q, x, wd, bd, wp, bp, z, act_d, act_p)
    unwritten, twice = int((count == 0).sum()), int((count > 1).sum())
    err = float(np.nanmax(np.abs(Y - ref))) if unwritten < Y.size else float("inf")
    scale = max(float(np.abs(ref).max()), 1.0)
    ok = err <= 1e-9 * scale and unwritten == 0 and twice == 0 and not np.isnan(Y).any()
    print(f"{name}: {desc}: max err {err:.1e}, unwritten {unwritten}, twice {twice} ({time.time() - t0:.1f} s)"
          f"{'' if ok else '  <-- FAIL'}")
    return ok


# ---- self-test of the model (--mutants): each seeded mistake must make some case fail ----
MUTANTS = [
    ("no __syncthreads after the wait", "            sm.wait(0)\n            sm.sync()\n", "            sm.wait(0)\n"),
    ("no __syncthreads before the mma", "            sm.sync()\n            pointwise_round",
     "            pointwise_round"),
    ("cp_async_wait<1>", "sm.wait(0)", "sm.wait(1)"),
    ("round r+1's tiles into buffer r & 1",
     "in_tiles + (buf ^ 1) * in_elems,\n                           "
     "b_tiles + (buf ^ 1) * NT * 8 * K_LD, r + 1, buf ^ 1)",
     "in_tiles + buf * in_elems,\n                           b_tiles + buf * NT * 8 * K_LD, r + 1, buf)"),
    ("round r+1's depthwise weights into buffer r & 1",
     "wd_tiles + (buf ^ 1) * R * R * K_SEP_CHUNK, r + 1,\n                                        buf ^ 1)",
     "wd_tiles + buf * R * R * K_SEP_CHUNK, r + 1,\n                                        buf)"),
    ("B ldmatrix: n and k halves swapped",
     "((ln >> 4) << 3)) * K_LD + ks * 16 +\n                                             ((ln >> 3) & 1) * 8)",
     "(((ln >> 3) & 1) << 3)) * K_LD + ks * 16 +\n                                             (ln >> 4) * 8)"),
    ("A ldmatrix: rows 0-7 twice", "(wp_ * 16 + (ln & 15))", "(wp_ * 16 + (ln & 7))"),
    ("second output row one input row down, not STRIDE",
     "if i >= S and i - S < R:\n                            a1 += xv[:, i, s] * taps[:, i - S, s]",
     "if i >= 1 and i - 1 < R:\n                            a1 += xv[:, i, s] * taps[:, i - 1, s]"),
    ("input tile one column short", "(K_TILE_W - 1) * S + R\n", "(K_TILE_W - 1) * S + R - 1\n"),
    ("no zero fill past Cm", "& (iw < w) & (c < cm)", "& (iw < w)"),
    ("C fragment rows g+4", "ow = o_ow0 + (lane >> 2) + 8 * half", "ow = o_ow0 + (lane >> 2) + 4 * half"),
    ("A store: both rows into row0", "(orow * K_TILE_W + col) * K_LD + cg * 8), out",
     "(row0 * K_TILE_W + col) * K_LD + cg * 8), out"),
    ("tile_origin: rows of 16", "(bx // tiles_w) % tiles_h * K_TILE_H", "(bx // tiles_w) % tiles_h * K_TILE_W"),
    ("A tile overlapping the B tiles", "a_tile = b_tiles + 2 * NT * 8 * K_LD\n", "a_tile = b_tiles + NT * 8 * K_LD\n"),
]


def mutants():
    import contextlib
    import io
    src = open(__file__).read()
    model = src[:src.index("# ---- self-test of the model")]
    ok = True
    for name, old, new in MUTANTS:
        check(model.count(old) == 1, f"mutant {name!r}: its text occurs {model.count(old)} times")
        ns = {"__name__": "sim_separable_mutant", "__file__": __file__}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(model.replace(old, new), "mutant", "exec"), ns)
            res = [ns["run"](2, 15, 16, 96, 24, 3, 2), ns["run"](1, 9, 9, 144, 24, 3, 1, residual=True),
                   ns["run"](1, 10, 19, 40, 8, 5, 1), ns["run"](1, 19, 35, 64, 56, 3, 1)]
        caught = not all(res)
        first = next((ln for ln in out.getvalue().splitlines() if "FAIL" in ln), "")
        print(f"mutant {name}: {'caught' if caught else 'NOT CAUGHT  <-- FAIL'}"
              f"{': ' + first.split(': ', 1)[1][:140] if first else ''}")
        ok &= caught
    print(f"{'ALL OK' if ok else 'FAIL'} (mutants)")
    return 0 if ok else 1


def main():
    t0 = time.time()
    ok = host_checks()
    print("== tests/gpu/test_separable.cpp MatchesHostOnBlockShapes (n h w cm k r stride) ==")
    ok &= run(1, 13, 11, 32, 16, 3, 1)
    ok &= run(2, 15, 16, 96, 24, 3, 2)
    ok &= run(1, 9, 9, 144, 24, 3, 1, residual=True)
    ok &= run(1, 11, 7, 192, 32, 3, 2)
    ok &= run(1, 7, 9, 384, 64, 3, 1, residual=True)
    ok &= run(1, 19, 35, 64, 56, 3, 1)
    ok &= run(1, 10, 9, 120, 40, 5, 2, act_p="relu")
    ok &= run(2, 8, 7, 72, 24, 5, 1, residual=True)
    ok &= run(1, 3, 3, 8, 8, 3, 1, act_p="relu")
    ok &= run(1, 9, 13, 48, 48, 3, 2, act_d=None, bias=False)
    ok &= run(3, 17, 33, 40, 16, 3, 2)
    print("== tests/gpu/test_separable_tactic.cpp MatchesReferenceOnMobileNetBlocks ==")
    ok &= run(1, 112, 112, 32, 16, 3, 1, pad=1, label="features.1")
    ok &= run(2, 56, 56, 96, 24, 3, 2, pad=1, label="features.2")
    ok &= run(1, 56, 56, 144, 24, 3, 1, pad=1, residual=True, label="features.3")
    ok &= run(1, 56, 56, 144, 32, 3, 2, pad=1, label="features.4")
    ok &= run(1, 28, 28, 192, 32, 3, 1, pad=1, residual=True, label="features.5 (batch 1)")
    ok &= run(1, 28, 28, 192, 64, 3, 2, pad=1, label="features.7")
    ok &= run(1, 14, 14, 384, 64, 3, 1, pad=1, residual=True, label="features.8")
    ok &= run(1, 13, 11, 40, 8, 5, 1, pad=2, bias=False, act_d=None)
    ok &= run(3, 17, 9, 24, 40, 5, 2, pad=2, act_p="relu")
    ok &= run(1, 9, 23, 8, 16, 3, 2, pad=0, residual=True, act_p="relu")
    ok &= run(2, 1, 1, 16, 8, 3, 1, pad=1, act_p="relu", label="one pixel")
    print("== every K 8..64, partial channel rounds (Cm % 32 = 8, 16, 24), tile edges, pads, batch ==")
    for k in range(8, 65, 8):
        ok &= run(1 + k % 2, 9 + k % 5, 17 + k % 7, 8 * (k // 8) + 24, k, 3 if k % 16 else 5, 1 + (k // 8) % 2,
                  residual=k % 24 == 0)
    ok &= run(1, 16, 32, 32, 32, 3, 1, label="map = whole tiles")
    ok &= run(1, 16, 32, 64, 16, 5, 2, residual=True, label="stride 2, Q = 16")
    ok &= run(2, 12, 20, 40, 64, 5, 1, pad=(0, 1, 2, 0), residual=True, label="asymmetric pads")
    ok &= run(1, 11, 18, 56, 48, 3, 2, pad=(1, 0, 0, 1), label="asymmetric pads")
    ok &= run(1, 7, 7, 24, 24, 5, 1, pad=3, label="pad > R/2")
    ok &= run(1, 5, 5, 8, 8, 5, 2, pad=0, label="one output pixel")
    ok &= run(1, 20, 40, 264, 16, 3, 1, residual=True, label="9 rounds, last one 8 channels")
    print("== tests/gpu/test_separable.cpp ManyBlocks; test_separable_tactic.cpp features.5 at batch 2 ==")
    ok &= run(8, 56, 56, 144, 24, 3, 1, residual=True, label="ManyBlocks")
    ok &= run(2, 28, 28, 192, 32, 3, 1, pad=1, residual=True, label="features.5")
    print("== sweep: 3x3 / 5x5, stride 1 / 2, maps of 1 tile or less / ragged / several, K 8 / 24 / 64 ==")
    i = 0
    for R in (3, 5):
        for S in (1, 2):
            for h, w in ((R, R), (9, 17), (17, 33)):
                for k in (8, 24, 64):
                    i += 1
                    ok &= run(1 + i % 2, h, w, 8 + 16 * (i % 5), k, R, S, pad=R // 2 if i % 3 else 0,
                              residual=i % 2 == 0, bias=i % 4 != 1, act_d=None if i % 5 == 0 else "relu",
                              act_p="relu" if i % 3 == 0 else None)
    print("== random shapes (as test_separable.cpp MatchesHostOnRandomShapes draws them, pads 0..R/2 each side) ==")
    for _ in range(16):
        R = int(rng.choice([3, 5]))
        S = int(rng.integers(1, 3))
        pads = tuple(int(rng.integers(0, R // 2 + 1)) for _ in range(4))
        ok &= run(int(rng.integers(1, 4)), max(R, 1 + int(rng.integers(0, 40))), max(R, 1 + int(rng.integers(0, 40))),
                  8 * int(rng.integers(1, 41)), 8 * int(rng.integers(1, 9)), R, S, pad=pads,
                  residual=bool(rng.integers(0, 3) == 0), bias=bool(rng.integers(0, 4)),
                  act_d=[None, "relu"][int(rng.integers(0, 2))], act_p=[None, "relu"][int(rng.integers(0, 2))])
    print("== preconditions the callers must keep (each must FAIL in the model) ==")
    for what, kw in [("Bd 4 bytes past 16-byte alignment (read as float4)", dict(bd_offset=4)),
                     ("X 8 bytes past 16-byte alignment (cp.async 16)", dict(x_offset=8))]:
        with_fail = run(1, 9, 9, 40, 16, 3, 1, label=f"[{what}]", quiet_fail=True, **kw)
        print(f"  -> {'expected failure seen' if not with_fail else 'NOT DETECTED'}")
        ok &= not with_fail
    print(f"{'ALL OK' if ok else 'FAIL'} ({time.time() - t0:.0f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(mutants() if "--mutants" in sys.argv else main())
