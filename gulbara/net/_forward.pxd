# cython: language_level=3
"""The forward pass, inline (this file is the implementation): the network's C arithmetic
(``_net_math.h``) declared, and the pass over a ``Net`` built on it.

A module that runs the network in its loops (``_net.pyx``, the stage chooser ``_choose.pyx``,
the searches ``_search.pyx``, training ``_train.pyx``) cimports this and compiles the
arithmetic in, so no call leaves the module. The header's arithmetic level is each module's
own (``simd_cell``): such a module other than ``_net.pyx`` calls
``follow_simd_level(&simd_cell, __name__)`` (``_net.pxd``) at import, and from then on
``_net.simd_level`` sets its level too. Only modules of ``gulbara/net`` can cimport this
(the header sits beside them)."""

from gulbara.net._inputs cimport Sparse
from gulbara.net._net cimport Net

cdef extern from "_net_math.h":
    int simd_cell "gulbara_net_level"           # this module's arithmetic level
    float gulbara_sigmoid(float z) noexcept nogil
    void gulbara_hidden(const float* start, const int* idx, const float* val, int n_in,
                        const float* w1, int H, float* h, int sigmoid) noexcept nogil
    int gulbara_net_simd(int level) noexcept nogil
    void gulbara_outputs(const float* a, const float* w, const float* b, int n,
                         float* out, int sigmoid) noexcept nogil
    void gulbara_sigmoid_n(float* z, int n) noexcept nogil
    void gulbara_fma_n(const float* a, const float* b, const float* c, float* out,
                       int n) noexcept nogil


cdef inline void outputs(const Net* net, const float* h, float* out) noexcept nogil:
    """The three outputs of hidden activations ``h``."""
    gulbara_outputs(h, net.w2, net.b2, net.hidden, out, 1)


cdef inline void forward(const Net* net, const Sparse* x, float* h, float* out) noexcept nogil:
    """Hidden activations ``h`` and the three outputs of inputs ``x``."""
    gulbara_hidden(net.b1, x.idx, x.val, x.n, net.w1, net.hidden, h, 1)
    outputs(net, h, out)
