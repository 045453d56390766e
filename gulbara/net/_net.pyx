# cython: language_level=3
"""Native value network: the network, its parameters and its arithmetic.

**The network** (layout ``gb1``, ``_inputs.N_INPUTS`` inputs; docs/user/bots.md lists them):
one hidden layer of ``hidden`` sigmoid units and three sigmoid outputs,
P(win), P(win with mars), P(lose with mars), for the *side to act* of a game
state that waits for a roll or for a chain or remainder stage (RULES §4-5).
float32 throughout; the first layer is summed over the nonzero inputs only
(a position sets about 50 of the 209). The parameters are one flat float32
array: ``w1`` (inputs x hidden, input-major), ``b1``, ``w2`` (3 x hidden,
output-major), ``b2``; ``gulbara.net.model`` reads and writes them as ``.npz``.
:class:`Network` is their native side, :func:`forward_dense` the forward pass on
dense inputs.

**Arithmetic.** The sigmoid is ``1 / (1 + e**-z)`` with ``e**x`` from a range
reduction and ``1 + r + r**2 q(r)``, ``q`` a cubic by Estrin's scheme (the
sigmoid within 2.3e-7 of the exact one, no libm call), so it vectorizes.
Every operation is one IEEE float32 operation in a fixed order per hidden
unit or output lane, a multiply and the add after it fused into one rounding
(the FMA instructions, or their exact double-precision form where the CPU
has none: :func:`fused_multiply_add`), done 8 lanes at a time with AVX2 and
FMA when the CPU has them (chosen at import, :func:`simd_level`), the sigmoids
and the first layer's sums 16 at a time with AVX-512F, 4 with SSE2, else one
by one: all give the same bytes (a test), and so do trained weights on any
build (the extensions are compiled with ``-ffp-contract=off``). The arithmetic is
``_net_math.h``, the forward pass on it inline in ``_forward.pxd``: the modules that
run the network compile both in and follow the level this module sets.

The network's other work is beside it: the inputs in ``_inputs.pxd``, the choice of a
stage's end in ``_choose.pyx``, the searches in ``_search.pyx``, the games in ``_play.pyx``
and training in ``_train.pyx``.
"""

from gulbara.net._inputs cimport N_IN, Sparse, put
from gulbara.net._forward cimport (forward, gulbara_net_simd, gulbara_sigmoid_n, gulbara_fma_n,
                                   simd_cell)

import numpy as np

from gulbara.cpu import network_level_cap


# ---------------------------------------------------------------------------
# The arithmetic level
# ---------------------------------------------------------------------------

cdef enum:
    MAX_FOLLOWERS = 16

# the levels of the modules that compile the forward pass in, and those modules' names
cdef int* followers[MAX_FOLLOWERS]
cdef int n_followers = 0
_followers = []


cdef int follow_simd_level(int* cell, str module) except -1:
    global n_followers
    if n_followers == MAX_FOLLOWERS:
        raise RuntimeError("too many modules follow the network's arithmetic level")
    cell[0] = simd_cell
    followers[n_followers] = cell
    n_followers += 1
    _followers.append(module)
    return 0


# the highest level GULBARA_DISABLE_CPU_FEATURES allows (gulbara.cpu; 3 when it allows all)
cdef int level_cap = network_level_cap()


def simd_level(int level=-1):
    """The arithmetic the network uses: 3 AVX-512F, 2 AVX2 and FMA, 1 SSE2, 0 plain C (the best
    this build and CPU have at import, below any level ``GULBARA_DISABLE_CPU_FEATURES`` turns
    off: :mod:`gulbara.cpu`). ``level`` >= 0 chooses a lower one (tests: every level gives the
    same bytes), in this module and every module that runs the network; -1 the best again.
    Returns the level in use."""
    cdef int got = gulbara_net_simd(level_cap if level < 0 or level > level_cap else level), k
    for k in range(n_followers):
        followers[k][0] = got
    return got


def simd_level_in_use():
    """The arithmetic level in use (as :func:`simd_level` returns it, without setting it)."""
    return simd_cell


def simd_followers():
    """The modules besides this one that run the network and follow :func:`simd_level`, in
    the order they were imported (tests)."""
    return tuple(_followers)


SIMD_LEVEL = gulbara_net_simd(level_cap)


def sigmoid(const float[::1] z not None):
    """The network's sigmoid of each of ``z`` (float32), by the arithmetic level in use
    (``simd_level``; every level gives the same bytes)."""
    out = np.array(z, dtype=np.float32)
    cdef float[::1] view = out
    if out.shape[0]:
        gulbara_sigmoid_n(&view[0], <int>out.shape[0])
    return out


def fused_multiply_add(const float[::1] a not None, const float[::1] b not None,
                       const float[::1] c not None):
    """``a * b + c`` rounded once to float32, lane by lane, by the fused multiply-add of
    the arithmetic level in use (``simd_level``): the FMA instructions, or their exact
    double-precision form where the CPU has none. The network's sums and sigmoid use it;
    tests check every level against exact rounding."""
    if not (a.shape[0] == b.shape[0] == c.shape[0]):
        raise ValueError(f"a, b and c must have one length, got {a.shape[0]}, {b.shape[0]}, "
                         f"{c.shape[0]}")
    out = np.empty(a.shape[0], dtype=np.float32)
    cdef float[::1] view = out
    if a.shape[0]:
        gulbara_fma_n(&a[0], &b[0], &c[0], &view[0], <int>a.shape[0])
    return out


# ---------------------------------------------------------------------------
# The network (gulbara.net.model, gulbara.net.train)
# ---------------------------------------------------------------------------

cdef class Network:
    """The native side of a network: its flat float32 parameters (borrowed views)."""

    def __init__(self, params, int hidden):
        if hidden < 1 or hidden > MAX_HIDDEN:
            raise ValueError(f"hidden must be 1..{MAX_HIDDEN}, got {hidden}")
        params = np.ascontiguousarray(params, dtype=np.float32)
        if params.shape != (parameter_count(hidden),):
            raise ValueError(f"a gb1 network with {hidden} hidden units has "
                             f"{parameter_count(hidden)} parameters, got shape {params.shape}")
        self.params = params
        self.hidden = hidden
        cdef const float[::1] view = params
        self.net.hidden = hidden
        self.net.w1 = &view[0]
        self.net.b1 = self.net.w1 + N_IN * hidden
        self.net.w2 = self.net.b1 + hidden
        self.net.b2 = self.net.w2 + N_OUT * hidden


def parameter_count(int hidden):
    """Parameters of a gb1 network with ``hidden`` hidden units."""
    return N_IN * hidden + hidden + N_OUT * hidden + N_OUT


def forward_dense(Network network not None, const float[:, ::1] inputs):
    """The outputs (``N x 3`` float32) of ``N x N_INPUTS`` inputs (GIL released)."""
    if inputs.shape[1] != N_IN:
        raise ValueError(f"inputs must have {N_IN} columns, got {inputs.shape[1]}")
    out = np.zeros((inputs.shape[0], N_OUT), dtype=np.float32)
    cdef float[:, ::1] o = out
    cdef Py_ssize_t n = inputs.shape[0], row
    cdef Sparse x
    cdef float h[MAX_HIDDEN]
    cdef int i
    with nogil:
        for row in range(n):
            x.n = 0
            for i in range(N_IN):
                if inputs[row, i] != 0.0:
                    put(&x, i, inputs[row, i])
            forward(&network.net, &x, h, &o[row, 0])
    return out
