/* The inner loops of the counting engine (kwartet_epistemic.epistemics.counting).
 *
 * The programme multiplies one polynomial per family, each a short list of terms
 * (a usage vector over the capacity dimensions and a weight), truncated at the
 * capacities, and reads off the count and, for the families asked for, how many
 * ways the other families leave each term of theirs (the "rest").  The tables are
 * dense, row-major, with the last dimension contiguous.
 *
 * Arithmetic is modulo 2^64 (uint64) or 2^128 (unsigned __int128).  Modular
 * arithmetic is a ring homomorphism, so intermediate wrap-around does not matter:
 * every answer read off is a count of worlds below the caller's proven bound, hence
 * exact.  The caller picks the width from that bound.
 *
 * Only the entries that can matter are computed: after i families, usage can
 * neither exceed what those families can use (hi) nor fall short of what the
 * remaining families can still fill (lo); entries outside that box stay zero.
 *
 * No NumPy headers: buffers come through the buffer protocol.
 *
 * The module also holds the search agent's weighted play-out (playout, and its
 * likeliest-yes choice, likeliest), at the end of the file.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 32

typedef unsigned __int128 u128;

typedef struct {
    Py_ssize_t m;           /* number of terms */
    const int64_t *vectors; /* m * D usage vectors */
    const int64_t *weights; /* m weights (may be negative: taken modulo 2^k) */
    int64_t maxv[MAXD];     /* largest use of each dimension by one term */
    int64_t minsum, maxsum; /* smallest and largest coordinate sum of a term */
} Poly;

typedef struct {
    int D;
    int64_t cap[MAXD];
    int64_t stride[MAXD];
    int64_t size;
} Layout;

typedef struct {
    int64_t lo[MAXD];
    int64_t hi[MAXD];
    int64_t slo, shi; /* bounds on the coordinate sum */
    int empty;
} Box;

static int64_t flat(const Layout *L, const int64_t *x) {
    int64_t k = 0;
    for (int i = 0; i < L->D; i++) k += x[i] * L->stride[i];
    return k;
}

/* Calls BODY for every row of the box [lo, hi] over the first D-1 dimensions, with
 * `base` the flat index of the row's first entry and `run` the row's length along the
 * last dimension, clipped so that the coordinate sum stays within [smin, smax]. */
#define FOR_BOX(L, lo, hi, smin, smax, BODY)                                      \
    do {                                                                          \
        int D_ = (L)->D;                                                          \
        int ok_ = (smin) <= (smax);                                               \
        for (int i_ = 0; i_ < D_; i_++)                                           \
            if ((lo)[i_] > (hi)[i_]) ok_ = 0;                                     \
        if (!ok_) break;                                                          \
        int64_t x_[MAXD];                                                         \
        int64_t rowsum_ = 0;                                                      \
        for (int i_ = 0; i_ < D_ - 1; i_++) x_[i_] = (lo)[i_], rowsum_ += (lo)[i_]; \
        for (;;) {                                                                \
            int64_t t0_ = max64((lo)[D_ - 1], (smin) - rowsum_);                  \
            int64_t t1_ = min64((hi)[D_ - 1], (smax) - rowsum_);                  \
            if (t0_ <= t1_) {                                                     \
                x_[D_ - 1] = t0_;                                                 \
                int64_t base = flat((L), x_);                                     \
                int64_t run = t1_ - t0_ + 1;                                      \
                BODY;                                                             \
            }                                                                     \
            int i_ = D_ - 2;                                                      \
            while (i_ >= 0) {                                                     \
                if (++x_[i_] <= (hi)[i_]) {                                       \
                    rowsum_++;                                                    \
                    break;                                                        \
                }                                                                 \
                rowsum_ -= x_[i_] - 1 - (lo)[i_];                                 \
                x_[i_] = (lo)[i_];                                                \
                i_--;                                                             \
            }                                                                     \
            if (i_ < 0) break;                                                    \
        }                                                                         \
    } while (0)

static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* One kernel per width: T is the element type. */
#define DEFINE_KERNEL(T, NAME)                                                          \
    static void NAME##_multiply(const Layout *L, const T *src, const Box *sbox,          \
                                const Poly *p, T *dst, const Box *dbox) {                \
        memset(dst, 0, sizeof(T) * (size_t)L->size);                                     \
        if (sbox->empty || dbox->empty) return;                                          \
        int D = L->D;                                                                    \
        for (Py_ssize_t j = 0; j < p->m; j++) {                                          \
            const int64_t *v = p->vectors + j * D;                                       \
            int64_t lo[MAXD], hi[MAXD];                                                  \
            for (int i = 0; i < D; i++) {                                                \
                lo[i] = max64(sbox->lo[i], dbox->lo[i] - v[i]);                          \
                hi[i] = min64(sbox->hi[i], dbox->hi[i] - v[i]);                          \
            }                                                                            \
            T w = (T)p->weights[j]; /* modulo 2^k, also when negative */                 \
            int64_t off = flat(L, v), sv = 0;                                            \
            for (int i = 0; i < D; i++) sv += v[i];                                      \
            int64_t smin = max64(sbox->slo, dbox->slo - sv);                             \
            int64_t smax = min64(sbox->shi, dbox->shi - sv);                             \
            FOR_BOX(L, lo, hi, smin, smax, {                                             \
                const T *s = src + base;                                                 \
                T *d = dst + base + off;                                                 \
                for (int64_t t = 0; t < run; t++) d[t] += w * s[t];                      \
            });                                                                          \
        }                                                                                \
    }                                                                                    \
                                                                                         \
    /* rest[j] = sum over y of head[y] * tail[cap - v_j - y] */                          \
    static void NAME##_rest(const Layout *L, const T *head, const Box *hbox,             \
                            const T *tail, const Box *tbox, const Poly *p, T *rest) {    \
        int D = L->D;                                                                    \
        for (Py_ssize_t j = 0; j < p->m; j++) {                                          \
            rest[j] = 0;                                                                 \
            if (hbox->empty || tbox->empty) continue;                                    \
            const int64_t *v = p->vectors + j * D;                                       \
            int64_t lo[MAXD], hi[MAXD];                                                  \
            for (int i = 0; i < D; i++) {                                                \
                lo[i] = max64(hbox->lo[i], L->cap[i] - v[i] - tbox->hi[i]);              \
                hi[i] = min64(hbox->hi[i], L->cap[i] - v[i] - tbox->lo[i]);              \
            }                                                                            \
            int64_t top = L->size - 1 - flat(L, v), sv = 0, total = 0;                   \
            for (int i = 0; i < D; i++) sv += v[i], total += L->cap[i];                  \
            int64_t smin = max64(hbox->slo, total - sv - tbox->shi);                     \
            int64_t smax = min64(hbox->shi, total - sv - tbox->slo);                     \
            T acc = 0;                                                                   \
            FOR_BOX(L, lo, hi, smin, smax, {                                             \
                const T *h = head + base;                                                \
                const T *b = tail + (top - base);                                        \
                for (int64_t t = 0; t < run; t++) acc += h[t] * b[-t];                   \
            });                                                                          \
            rest[j] = acc;                                                               \
        }                                                                                \
    }

DEFINE_KERNEL(uint64_t, k64)
DEFINE_KERNEL(u128, k128)

/* A polynomial's largest use of each dimension and its smallest and largest sums. */
static void poly_bounds(const Layout *L, Poly *p) {
    for (int i = 0; i < L->D; i++) p->maxv[i] = 0;
    p->minsum = p->m ? INT64_MAX : 0;
    p->maxsum = 0;
    for (Py_ssize_t j = 0; j < p->m; j++) {
        int64_t sum = 0;
        for (int i = 0; i < L->D; i++) {
            p->maxv[i] = max64(p->maxv[i], p->vectors[j * L->D + i]);
            sum += p->vectors[j * L->D + i];
        }
        p->minsum = min64(p->minsum, sum);
        p->maxsum = max64(p->maxsum, sum);
    }
}

static void set_boxes(const Layout *L, const Poly *polys, Py_ssize_t n, Box *fbox, Box *bbox) {
    /* Boxes: forward table i (families 0..i-1 placed) and backward table i (families
     * i..n-1), each clipped to what the other side can still complete. */
    for (Py_ssize_t f = 0; f <= n; f++) {
        fbox[f].empty = bbox[f].empty = 0;
        for (int i = 0; i < L->D; i++) {
            int64_t before = 0, after = 0;
            for (Py_ssize_t g = 0; g < f; g++) before += polys[g].maxv[i];
            for (Py_ssize_t g = f; g < n; g++) after += polys[g].maxv[i];
            fbox[f].lo[i] = max64(0, L->cap[i] - after);
            fbox[f].hi[i] = min64(L->cap[i], before);
            bbox[f].lo[i] = max64(0, L->cap[i] - before);
            bbox[f].hi[i] = min64(L->cap[i], after);
            if (fbox[f].lo[i] > fbox[f].hi[i]) fbox[f].empty = 1;
            if (bbox[f].lo[i] > bbox[f].hi[i]) bbox[f].empty = 1;
        }
        int64_t total = 0, min_before = 0, max_before = 0, min_after = 0, max_after = 0;
        for (int i = 0; i < L->D; i++) total += L->cap[i];
        for (Py_ssize_t g = 0; g < f; g++) min_before += polys[g].minsum, max_before += polys[g].maxsum;
        for (Py_ssize_t g = f; g < n; g++) min_after += polys[g].minsum, max_after += polys[g].maxsum;
        fbox[f].slo = max64(min_before, total - max_after);
        fbox[f].shi = min64(max_before, total - min_after);
        bbox[f].slo = max64(min_after, total - max_before);
        bbox[f].shi = min64(max_after, total - min_before);
        if (fbox[f].slo > fbox[f].shi) fbox[f].empty = 1;
        if (bbox[f].slo > bbox[f].shi) bbox[f].empty = 1;
    }
}

typedef struct {
    Py_buffer view;
    int held;
} Buf;

static int get_buffer(PyObject *obj, Buf *b, int writable, Py_ssize_t min_items, const char *what) {
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &b->view, flags) < 0) return -1;
    b->held = 1;
    if (b->view.itemsize != 8 || b->view.len < min_items * 8) {
        PyErr_Format(PyExc_ValueError, "%s: expected a buffer of at least %zd 64-bit items", what,
                     min_items);
        return -1;
    }
    return 0;
}

static void release(Buf *b) {
    if (b->held) PyBuffer_Release(&b->view);
    b->held = 0;
}

/* A use-vector table (vectors, weights) into p (m terms of D dimensions), its buffers
 * held in b[0] (vectors) and b[1] (weights). */
static int get_table(PyObject *vectors, PyObject *weights, int D, Buf *b, Poly *p) {
    if (get_buffer(weights, &b[1], 0, 0, "weights") < 0) return -1;
    p->m = b[1].view.len / 8;
    if (get_buffer(vectors, &b[0], 0, p->m * D, "vectors") < 0) return -1;
    p->vectors = b[0].view.buf;
    p->weights = b[1].view.buf;
    return 0;
}

/* The row-major layout of the tables for the capacities in cap_obj (a tuple); with
 * dense 0 the capacities only (no strides, no size: the sparse programme's). */
static int parse_caps(PyObject *cap_obj, Layout *L, int dense) {
    L->D = (int)PyTuple_GET_SIZE(cap_obj);
    if (L->D < 1 || L->D > MAXD) {
        PyErr_Format(PyExc_ValueError, "cap: expected 1 to %d dimensions, got %d", MAXD, L->D);
        return -1;
    }
    for (int i = 0; i < L->D; i++) {
        L->cap[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(cap_obj, i));
        if (L->cap[i] < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "cap: negative capacity");
            return -1;
        }
    }
    L->size = 1;
    for (int i = L->D - 1; i >= 0 && dense; i--) {
        L->stride[i] = L->size;
        L->size *= L->cap[i] + 1;
        if (L->size > ((int64_t)1 << 31)) {
            PyErr_SetString(PyExc_MemoryError, "the counting tables would be too large");
            return -1;
        }
    }
    return 0;
}

static int parse_layout(PyObject *cap_obj, Layout *L) { return parse_caps(cap_obj, L, 1); }

/* An unsigned 128-bit number as a Python int. */
static PyObject *u128_to_int(u128 x) {
    PyObject *low = PyLong_FromUnsignedLongLong((uint64_t)x);
    PyObject *high = PyLong_FromUnsignedLongLong((uint64_t)(x >> 64));
    PyObject *shift = PyLong_FromLong(64);
    PyObject *shifted = high && shift ? PyNumber_Lshift(high, shift) : NULL;
    PyObject *result = shifted && low ? PyNumber_Or(shifted, low) : NULL;
    Py_XDECREF(low);
    Py_XDECREF(high);
    Py_XDECREF(shift);
    Py_XDECREF(shifted);
    return result;
}

/* The count at the capacities (the last entry of the last forward table) as a Python int. */
static PyObject *count_at_cap(const char *table, const Layout *L, int wide) {
    if (!wide) return PyLong_FromUnsignedLongLong(((const uint64_t *)table)[L->size - 1]);
    return u128_to_int(((const u128 *)table)[L->size - 1]);
}

/* o[k] = sum_j rest[j] * card_slot[j * width + k] for k < width (when wide, rest is
 * u128 and o receives the low words, then the high words). */
static void rest_origins(const void *rest, Py_ssize_t m, const int64_t *card_slot,
                         Py_ssize_t width, int wide, uint64_t *o) {
    for (Py_ssize_t k = 0; k < width; k++) {
        if (wide) {
            const u128 *r = rest;
            u128 acc = 0;
            for (Py_ssize_t j = 0; j < m; j++) acc += r[j] * (u128)card_slot[j * width + k];
            o[k] = (uint64_t)acc;
            o[width + k] = (uint64_t)(acc >> 64);
        } else {
            const uint64_t *r = rest;
            uint64_t acc = 0;
            for (Py_ssize_t j = 0; j < m; j++) acc += r[j] * (uint64_t)card_slot[j * width + k];
            o[k] = acc;
        }
    }
}

/* A table family's four cards' origin counts into o (width items; when wide, low words
 * then high words): sum_j rest[j] * card_slot[j], the rest of each use vector j between
 * the forward table head and the backward table tail. */
static void table_marginals(const Layout *L, const char *head, const Box *hbox, const char *tail,
                            const Box *tbox, const Poly *p, const int64_t *card_slot,
                            Py_ssize_t width, int wide, void *rest, uint64_t *o) {
    if (wide)
        k128_rest(L, (const u128 *)head, hbox, (const u128 *)tail, tbox, p, rest);
    else
        k64_rest(L, (const uint64_t *)head, hbox, (const uint64_t *)tail, tbox, p, rest);
    rest_origins(rest, p->m, card_slot, width, wide, o);
}

/* programme(cap, polys, wanted, wide, backward_out) -> count
 *
 * cap: tuple of D >= 1 capacities.  polys: list of (vectors, weights) int64 buffers.
 * wanted: list of (position, card_slot, out): card_slot an int64 buffer m * W of the
 * family's per-term card-slot counts, out a writable int64 buffer of W items (2 W when
 * wide: low words, then high words) that receives sum_j rest[j] * card_slot[j].
 * backward_out: None, or a writable int64 buffer of (n + 1) * size items that receives
 * the backward tables (narrow only; table i counts the ways of families i.. to use
 * exactly a vector, read at capacities still to fill).
 */
static PyObject *run_programme(PyObject *cap_obj, PyObject *dim_obj, PyObject *fam_obj,
                               PyObject *wanted_obj, int wide, PyObject *backward_obj,
                               uint64_t P);

static PyObject *programme(PyObject *self, PyObject *args) {
    /* factored() with use-vector tables only: the same products on the same boxes. */
    PyObject *cap_obj, *polys_obj, *wanted_obj, *backward_obj;
    int wide;
    if (!PyArg_ParseTuple(args, "O!O!O!pO", &PyTuple_Type, &cap_obj, &PyList_Type, &polys_obj,
                          &PyList_Type, &wanted_obj, &wide, &backward_obj))
        return NULL;
    return run_programme(cap_obj, NULL, polys_obj, wanted_obj, wide, backward_obj, 0);
}


/* family_table(options, clauses, free, dim_of, n_dims, n_slots)
 *     -> (vectors, weights, card_slot) as bytes, or None if no assignment is allowed
 *
 * One family's polynomial: every origin tuple allowed by the four option masks (in the
 * order of itertools.product over the slots in increasing order) that satisfies the
 * clauses (kind 0 "some", 1 "notall", 2 "allornone"; four condition masks each, -2 for
 * a card the clause ignores), grouped by its use vector over n_dims dimensions
 * (dim_of[slot], -1 for none; only cards in the free bit mask count), groups in the
 * order of their first assignment.  vectors: m * max(n_dims, 1) int64; weights: m
 * int64; card_slot: m * 4 * n_slots int64.
 */
static PyObject *family_table(PyObject *self, PyObject *args) {
    PyObject *opt_obj, *cl_obj, *dim_obj;
    int free_mask, n_dims, n_slots, with_card_slot = 1;
    if (!PyArg_ParseTuple(args, "O!O!iO!ii|p", &PyTuple_Type, &opt_obj, &PyTuple_Type, &cl_obj,
                          &free_mask, &PyTuple_Type, &dim_obj, &n_dims, &n_slots,
                          &with_card_slot))
        return NULL;
    if (PyTuple_GET_SIZE(opt_obj) != 4 || n_slots < 1 || n_slots > 62 || n_dims < 0 ||
        n_dims > 62 || PyTuple_GET_SIZE(dim_obj) != n_slots) {
        PyErr_SetString(PyExc_ValueError, "family_table: expected 4 options and 1-62 slots");
        return NULL;
    }
    int options[4][64], n_opt[4];
    for (int i = 0; i < 4; i++) {
        unsigned long long mask = PyLong_AsUnsignedLongLongMask(PyTuple_GET_ITEM(opt_obj, i));
        if (PyErr_Occurred()) return NULL;
        n_opt[i] = 0;
        for (int s = 0; s < n_slots; s++)
            if (mask >> s & 1) options[i][n_opt[i]++] = s;
        if (!n_opt[i]) Py_RETURN_NONE;
    }
    int dim_of[64];
    for (int s = 0; s < n_slots; s++) {
        dim_of[s] = (int)PyLong_AsLong(PyTuple_GET_ITEM(dim_obj, s));
        if (dim_of[s] >= n_dims) dim_of[s] = -1;
    }
    Py_ssize_t n_cl = PyTuple_GET_SIZE(cl_obj);
    int *kinds = malloc(sizeof(int) * (size_t)(n_cl + 1));
    long long(*conds)[4] = malloc(sizeof(long long[4]) * (size_t)(n_cl + 1));
    int width = n_dims ? n_dims : 1;
    int per_card = 4 * n_slots;
    Py_ssize_t total = (Py_ssize_t)n_opt[0] * n_opt[1] * n_opt[2] * n_opt[3];
    /* Distinct use vectors: at most the multisets of four among the dimensions and
     * "none", C(n_dims + 4, 4), often far fewer than the assignments. */
    Py_ssize_t multisets = (Py_ssize_t)(n_dims + 4) * (n_dims + 3) * (n_dims + 2) * (n_dims + 1) / 24;
    if (multisets < total) total = multisets;
    int64_t *vectors = calloc((size_t)total * (size_t)width, sizeof(int64_t));
    int64_t *weights = calloc((size_t)total, sizeof(int64_t));
    /* Without card_slot (a count needs none), only a stand-in is allocated. */
    int64_t *card_slot =
        calloc(with_card_slot ? (size_t)total * (size_t)per_card : 1, sizeof(int64_t));
    size_t n_index = 16;
    while (n_index < 2 * (size_t)total) n_index *= 2;
    Py_ssize_t *index = malloc(n_index * sizeof(Py_ssize_t));
    uint32_t *keys = malloc(((size_t)total + 1) * sizeof(uint32_t));
    if (index)
        for (size_t i = 0; i < n_index; i++) index[i] = -1;
    PyObject *result = NULL;
    if (!kinds || !conds || !vectors || !weights || !card_slot || !index || !keys) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t k = 0; k < n_cl; k++) {
        PyObject *c = PyTuple_GET_ITEM(cl_obj, k);
        if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 5) {
            PyErr_SetString(PyExc_ValueError, "family_table: clauses are (kind, c0, c1, c2, c3)");
            goto out;
        }
        kinds[k] = (int)PyLong_AsLong(PyTuple_GET_ITEM(c, 0));
        for (int i = 0; i < 4; i++) conds[k][i] = PyLong_AsLongLong(PyTuple_GET_ITEM(c, i + 1));
        if (PyErr_Occurred()) goto out;
    }
    /* Four free cards with the same options, that every clause treats alike, give
     * every permutation of an assignment the same use vector: without card_slot, only
     * the sorted assignments are enumerated, each weighted by its permutations. */
    int sym = !with_card_slot && (free_mask & 15) == 15;
    for (int i = 1; i < 4 && sym; i++)
        sym = n_opt[i] == n_opt[0] && !memcmp(options[i], options[0], sizeof(int) * (size_t)n_opt[0]);
    for (Py_ssize_t k = 0; k < n_cl && sym; k++)
        sym = conds[k][1] == conds[k][0] && conds[k][2] == conds[k][0] && conds[k][3] == conds[k][0];
    Py_ssize_t m = 0;
    int o[4];
    for (int a = 0; a < n_opt[0]; a++)
        for (int b = sym ? a : 0; b < n_opt[1]; b++)
            for (int c = sym ? b : 0; c < n_opt[2]; c++)
                for (int d = sym ? c : 0; d < n_opt[3]; d++) {
                    o[0] = options[0][a], o[1] = options[1][b], o[2] = options[2][c],
                    o[3] = options[3][d];
                    int64_t times = 1;
                    if (sym) { /* 4! over the factorials of the runs of equal options */
                        times = a == b ? (b == c ? (c == d ? 1 : 4) : (c == d ? 6 : 12))
                                       : (b == c ? (c == d ? 4 : 12) : (c == d ? 12 : 24));
                    }
                    int ok = 1;
                    for (Py_ssize_t k = 0; k < n_cl && ok; k++) {
                        int hits = 0, used = 0;
                        for (int i = 0; i < 4; i++) {
                            if (conds[k][i] == -2) continue;
                            used++;
                            hits += (int)((unsigned long long)conds[k][i] >> o[i] & 1);
                        }
                        if (kinds[k] == 0) ok = hits > 0;
                        else if (kinds[k] == 1) ok = hits < used;
                        else ok = hits == 0 || hits == used;
                    }
                    if (!ok) continue;
                    /* The use vector is the multiset of the free cards' dimensions: its
                     * sorted dimension numbers (plus 1; 0 for none) packed in 32 bits
                     * name it, and only a new one is written out whole. */
                    unsigned k4[4];
                    for (int i = 0; i < 4; i++)
                        k4[i] = (free_mask >> i & 1 && dim_of[o[i]] >= 0) ? (unsigned)dim_of[o[i]] + 1 : 0;
#define KSWAP(a, b) if (k4[a] > k4[b]) { unsigned t_ = k4[a]; k4[a] = k4[b]; k4[b] = t_; }
                    KSWAP(0, 1) KSWAP(2, 3) KSWAP(0, 2) KSWAP(1, 3) KSWAP(1, 2)
#undef KSWAP
                    uint32_t key = k4[0] | k4[1] << 8 | k4[2] << 16 | k4[3] << 24;
                    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ULL;
                    size_t at = (size_t)(h >> 20) & (n_index - 1);
                    Py_ssize_t j;
                    for (;;) {
                        j = index[at];
                        if (j < 0 || keys[j] == key) break;
                        at = (at + 1) & (n_index - 1);
                    }
                    if (j < 0) {
                        j = m;
                        index[at] = m;
                        keys[m] = key;
                        for (int i = 0; i < 4; i++)
                            if (k4[i]) vectors[m * width + k4[i] - 1]++;
                        m++;
                    }
                    weights[j] += times;
                    if (with_card_slot)
                        for (int i = 0; i < 4; i++) card_slot[j * per_card + i * n_slots + o[i]]++;
                }
    if (m == 0) {
        result = Py_None;
        Py_INCREF(result);
        goto out;
    }
    result = Py_BuildValue("(y#y#y#)", (char *)vectors, (Py_ssize_t)(m * width * 8),
                           (char *)weights, (Py_ssize_t)(m * 8), (char *)card_slot,
                           (Py_ssize_t)(with_card_slot ? m * per_card * 8 : 0));
out:
    free(index);
    free(keys);
    free(kinds);
    free(conds);
    free(vectors);
    free(weights);
    free(card_slot);
    return result;
}

/* ----- factored programme: a family as products of one linear form per card ------- *
 *
 * A family's polynomial is also a signed sum of products of four linear forms, one
 * per card (inclusion-exclusion over its clauses: counting._factor_terms).  Multiplying
 * a table by a linear form c0 + sum_d a_d x_d takes one pass per dimension that the
 * form uses, each a shifted add of long contiguous runs, where programme() takes one
 * box product per use vector with runs as short as a dimension of capacity 1 (a
 * draw).  Tables are dense; truncation at the capacities commutes with the products
 * (exponents only grow), and after each product the entries outside the programme's
 * boxes are cleared, so every table equals programme()'s entry for entry.  Families
 * may be given either way (a use-vector table or terms) in one call.
 */

typedef struct {
    int64_t c0;     /* the card's slots that use no dimension */
    int nd;         /* the dimensions the form uses */
    int dims[MAXD];
    int64_t a[MAXD];
    uint64_t mask;  /* the card's slots */
} Form;

typedef struct {
    int64_t coeff;
    Form f[4];
} Term;

static void make_form(Form *f, uint64_t mask, int free, const int *dim_of, int n_slots, int D) {
    int64_t a[MAXD];
    memset(a, 0, sizeof(a));
    f->c0 = 0;
    f->nd = 0;
    f->mask = mask;
    for (int s = 0; s < n_slots; s++)
        if (mask >> s & 1) {
            if (free && dim_of[s] >= 0 && dim_of[s] < D)
                a[dim_of[s]]++;
            else
                f->c0++;
        }
    for (int d = 0; d < D; d++)
        if (a[d]) {
            f->dims[f->nd] = d;
            f->a[f->nd] = a[d];
            f->nd++;
        }
}

#define TILE 2048 /* entries: 16 or 32 KiB of a table, to stay in cache */

static int is_identity(const Form *f) { return f->c0 == 1 && f->nd == 0; }

/* The same products modulo a prime P < 2^62 (for counts beyond 2^127: the caller joins
 * the residues of several primes by the Chinese remainder theorem).  Entries are
 * residues in [0, P). */
static inline uint64_t add_mod(uint64_t x, uint64_t y, uint64_t P) {
    uint64_t s = x + y;
    return s >= P ? s - P : s;
}
static inline uint64_t mul_mod(uint64_t x, uint64_t y, uint64_t P) {
    return (uint64_t)((u128)x * y % P);
}
static inline uint64_t residue(int64_t x, uint64_t P) {
    int64_t r = x % (int64_t)P;
    return (uint64_t)(r < 0 ? r + (int64_t)P : r);
}
static inline uint64_t sub_mod(uint64_t x, uint64_t y, uint64_t P) {
    return x >= y ? x - y : x + (P - y);
}

/* Montgomery arithmetic modulo an odd P < 2^62 with R = 2^64: x is kept as x R mod P, and
 * a product is reduced without a division (for Ryser's formula, whose inner loop is all
 * products). */
typedef struct {
    uint64_t P, neg_inv; /* -1/P modulo 2^64 */
    uint64_t one;        /* R mod P: 1 in Montgomery form */
    uint64_t r2;         /* R^2 mod P: to bring a residue into the form */
} Mont;

/* t R^-1 mod P for t < P 2^64 (t + m P < 2^127: no overflow; the result below 2P before
 * the one subtraction).  So x y is reduced for any x < P and y < 2^64. */
static inline uint64_t mont_reduce(u128 t, uint64_t P, uint64_t neg_inv) {
    uint64_t m = (uint64_t)t * neg_inv;
    uint64_t r = (uint64_t)((t + (u128)m * P) >> 64);
    return r >= P ? r - P : r;
}
static inline uint64_t mont_mul(uint64_t x, uint64_t y, uint64_t P, uint64_t neg_inv) {
    return mont_reduce((u128)x * y, P, neg_inv);
}
static Mont mont_of(uint64_t P) {
    Mont M;
    uint64_t inv = P; /* 1/P modulo 2^3, then Newton's steps double the bits */
    for (int i = 0; i < 5; i++) inv *= 2 - P * inv;
    M.P = P;
    M.neg_inv = (uint64_t)0 - inv;
    M.one = (uint64_t)(((u128)1 << 64) % P);
    M.r2 = (uint64_t)((u128)M.one * M.one % P);
    return M;
}
/* x below 2^64 (x r2 < P 2^64 as mont_reduce needs; a residue comes out) */
static inline uint64_t to_mont(uint64_t x, const Mont *M) {
    return mont_mul(x, M->r2, M->P, M->neg_inv);
}

/* sum_x p[x] q[x + e_d] (d < 0: sum_x p[x] q[x]): EACH(a, b) on every pair. */
#define FOR_DOT_PAIRS(L, p, q, d, EACH)                                                  \
    do {                                                                                 \
        if ((d) < 0) {                                                                   \
            for (int64_t i = 0; i < (L)->size; i++) EACH((p)[i], (q)[i]);                \
            break;                                                                       \
        }                                                                                \
        int64_t st = (L)->stride[d], c = (L)->cap[d], block = st * (c + 1);              \
        for (int64_t base = 0; base < (L)->size; base += block)                          \
            for (int64_t r = 0; r < c; r++)                                              \
                for (int64_t j = 0; j < st; j++)                                         \
                    EACH((p)[base + r * st + j], (q)[base + (r + 1) * st + j]);          \
    } while (0)

#define WRAP_EACH(x, y) acc += (x) * (y)
#define WRAP_DOT(T, NAME)                                                                \
    static T NAME##_dot(const Layout *L, const T *p, const T *q, int d, uint64_t P) {   \
        (void)P;                                                                         \
        T acc = 0;                                                                       \
        FOR_DOT_PAIRS(L, p, q, d, WRAP_EACH);                                            \
        return acc;                                                                      \
    }
WRAP_DOT(uint64_t, f64)
WRAP_DOT(u128, f128)

/* Modulo P: products (below 2^124) summed 16 at a time in 128 bits, then reduced. */
static uint64_t m64_dot(const Layout *L, const uint64_t *p, const uint64_t *q, int d,
                        uint64_t P) {
    u128 acc = 0;
    int pending = 0;
    uint64_t total = 0;
#define MOD_EACH(x, y)                                      \
    do {                                                    \
        acc += (u128)(x) * (y);                             \
        if (++pending == 16) {                              \
            total = add_mod(total, (uint64_t)(acc % P), P); \
            acc = 0;                                        \
            pending = 0;                                    \
        }                                                   \
    } while (0)
    FOR_DOT_PAIRS(L, p, q, d, MOD_EACH);
#undef MOD_EACH
    return add_mod(total, (uint64_t)(acc % P), P);
}

/* One set of factored kernels per arithmetic: T the element type, ADD and MUL its ring
 * operations and COEF(c) an int64 coefficient as an element; P, the modulus, is an
 * argument of every kernel (unused by the wrap-around arithmetic of f64 and f128);
 * each arithmetic brings its own dot product, NAME_dot, defined above). */
#define DEFINE_FACTORED(T, NAME, ADD, MUL, COEF)                                         \
    /* out (+)= w * form(in); transpose: the adjoint (shifts down instead of up).        \
     * Tile by tile, so that each tile of out is written once while it is in cache: a    \
     * tile is `stride[s]` entries for the innermost dimension s whose stride reaches    \
     * TILE (the dimensions inside shift within the tile; each outer one adds, or not,   \
     * one shifted tile of in). */                                                       \
    static void NAME##_apply(const Layout *L, const T *in, T *out, const Form *f,        \
                             int transpose, int accumulate, T w, uint64_t P) {           \
        int64_t n = L->size, tile = n;                                                   \
        for (int d = L->D - 1; d >= 0; d--)                                              \
            if (L->stride[d] >= TILE) {                                                  \
                tile = L->stride[d];                                                     \
                break;                                                                   \
            }                                                                            \
        T c0 = MUL(w, COEF(f->c0));                                                      \
        for (int64_t t0 = 0; t0 < n; t0 += tile) {                                       \
            T *o = out + t0;                                                             \
            const T *src = in + t0;                                                      \
            if (!accumulate) {                                                           \
                if (f->c0 == 0)                                                          \
                    memset(o, 0, sizeof(T) * (size_t)tile);                              \
                else if (c0 == 1)                                                        \
                    memcpy(o, src, sizeof(T) * (size_t)tile);                            \
                else                                                                     \
                    for (int64_t j = 0; j < tile; j++) o[j] = MUL(c0, src[j]);           \
            } else if (f->c0) {                                                          \
                for (int64_t j = 0; j < tile; j++) o[j] = ADD(o[j], MUL(c0, src[j]));    \
            }                                                                            \
            for (int k = 0; k < f->nd; k++) {                                            \
                int d = f->dims[k];                                                      \
                int64_t st = L->stride[d], c = L->cap[d];                                \
                T a = MUL(w, COEF(f->a[k]));                                             \
                if (st >= tile) { /* the whole tile has one coordinate in d */           \
                    int64_t x = t0 / st % (c + 1);                                       \
                    if (transpose ? x >= c : x < 1) continue;                            \
                    const T *s = transpose ? src + st : src - st;                        \
                    if (a == 1)                                                          \
                        for (int64_t j = 0; j < tile; j++) o[j] = ADD(o[j], s[j]);       \
                    else                                                                 \
                        for (int64_t j = 0; j < tile; j++) o[j] = ADD(o[j], MUL(a, s[j])); \
                    continue;                                                            \
                }                                                                        \
                int64_t block = st * (c + 1);                                            \
                for (int64_t base = 0; base < tile; base += block)                       \
                    for (int64_t r = 0; r < c; r++) {                                    \
                        T *oo = o + base + (transpose ? r : r + 1) * st;                 \
                        const T *s = src + base + (transpose ? r + 1 : r) * st;          \
                        if (a == 1)                                                      \
                            for (int64_t j = 0; j < st; j++) oo[j] = ADD(oo[j], s[j]);   \
                        else                                                             \
                            for (int64_t j = 0; j < st; j++) oo[j] = ADD(oo[j], MUL(a, s[j])); \
                    }                                                                    \
            }                                                                            \
        }                                                                                \
    }                                                                                    \
                                                                                         \
    /* Clear the entries outside the box (as programme() never writes them). */          \
    static void NAME##_clip(const Layout *L, T *t, const Box *b) {                       \
        if (b->empty) {                                                                  \
            memset(t, 0, sizeof(T) * (size_t)L->size);                                   \
            return;                                                                      \
        }                                                                                \
        int D = L->D, bad = 0;                                                           \
        int64_t x[MAXD], sum = 0;                                                        \
        for (int i = 0; i < D; i++) {                                                    \
            x[i] = 0;                                                                    \
            if (b->lo[i] > 0 || b->hi[i] < 0) bad++;                                     \
        }                                                                                \
        for (int64_t k = 0; k < L->size; k++) {                                          \
            if (bad || sum < b->slo || sum > b->shi) t[k] = 0;                           \
            for (int i = D - 1; i >= 0; i--) {                                           \
                int was = x[i] < b->lo[i] || x[i] > b->hi[i];                            \
                if (x[i] < L->cap[i]) {                                                  \
                    x[i]++;                                                              \
                    sum++;                                                               \
                    bad += (x[i] < b->lo[i] || x[i] > b->hi[i]) - was;                   \
                    break;                                                               \
                }                                                                        \
                sum -= x[i];                                                             \
                x[i] = 0;                                                                \
                bad += (b->lo[i] > 0 || b->hi[i] < 0) - was;                             \
            }                                                                            \
        }                                                                                \
    }                                                                                    \
                                                                                         \
    /* dst = src times the sum of the terms, clipped to dbox; buf: 3 tables. */          \
    static void NAME##_terms_multiply(const Layout *L, const T *src, const Term *terms,  \
                                      Py_ssize_t nt, T *dst, const Box *dbox, T **buf,   \
                                      uint64_t P) {                                      \
        memset(dst, 0, sizeof(T) * (size_t)L->size);                                     \
        const T *level[4];                                                               \
        level[0] = src;                                                                  \
        const Term *prev = NULL;                                                         \
        for (Py_ssize_t t = 0; t < nt; t++) {                                            \
            const Term *term = &terms[t];                                                \
            int k = 0;                                                                   \
            if (prev)                                                                    \
                while (k < 3 && term->f[k].mask == prev->f[k].mask) k++;                 \
            for (; k < 3; k++) {                                                         \
                if (is_identity(&term->f[k])) {                                          \
                    level[k + 1] = level[k];                                             \
                } else {                                                                 \
                    NAME##_apply(L, level[k], buf[k], &term->f[k], 0, 0, 1, P);          \
                    level[k + 1] = buf[k];                                               \
                }                                                                        \
            }                                                                            \
            NAME##_apply(L, level[3], dst, &term->f[3], 0, 1, COEF(term->coeff), P);     \
            prev = term;                                                                 \
        }                                                                                \
        NAME##_clip(L, dst, dbox);                                                       \
    }                                                                                    \
                                                                                         \
    /* out[k * n_slots + s] = the ways with card k of the family at slot s, given the    \
     * tables before (head) and after (tail) it; buf: 4 tables.  The forms commute, so   \
     * card k's ways are <head shifted by s, the other cards' adjoint forms applied to   \
     * the reversed tail>, the same for cards with the same form. */                     \
    static void NAME##_terms_marginals(const Layout *L, const T *head, const T *tail,    \
                                       const Term *terms, Py_ssize_t nt, int free_mask,  \
                                       const int *dim_of, int n_slots, T *out, T **buf,  \
                                       uint64_t P) {                                     \
        int64_t n = L->size;                                                             \
        for (int i = 0; i < 4 * n_slots; i++) out[i] = 0;                                \
        T *rev = buf[0];                                                                 \
        for (int64_t i = 0; i < n; i++) rev[i] = tail[n - 1 - i];                        \
        for (Py_ssize_t t = 0; t < nt; t++) {                                            \
            const Term *term = &terms[t];                                                \
            T w = COEF(term->coeff);                                                     \
            int done[4] = {0, 0, 0, 0};                                                  \
            for (int r = 0; r < 4; r++) {                                                \
                if (done[r]) continue;                                                   \
                int group[4], size = 0;                                                  \
                for (int k = r; k < 4; k++)                                              \
                    if (!done[k] && term->f[k].mask == term->f[r].mask &&                \
                        (free_mask >> k & 1) == (free_mask >> r & 1)) {                  \
                        group[size++] = k;                                               \
                        done[k] = 1;                                                     \
                    }                                                                    \
                const T *others = rev;                                                   \
                for (int k = 0; k < 4; k++) {                                            \
                    if (k == r || is_identity(&term->f[k])) continue;                    \
                    T *next = others == buf[1] ? buf[2] : buf[1];                        \
                    NAME##_apply(L, others, next, &term->f[k], 1, 0, 1, P);              \
                    others = next;                                                       \
                }                                                                        \
                const Form *f = &term->f[r];                                             \
                int free = free_mask >> r & 1;                                           \
                T plain = 0;                                                             \
                int have_plain = 0;                                                      \
                for (int s = 0; s < n_slots; s++) {                                      \
                    if (!(f->mask >> s & 1)) continue;                                   \
                    T v;                                                                 \
                    if (free && dim_of[s] >= 0 && dim_of[s] < L->D) {                    \
                        v = NAME##_dot(L, head, others, dim_of[s], P);                   \
                    } else {                                                             \
                        if (!have_plain) plain = NAME##_dot(L, head, others, -1, P);     \
                        have_plain = 1;                                                  \
                        v = plain;                                                       \
                    }                                                                    \
                    v = MUL(w, v);                                                       \
                    for (int g = 0; g < size; g++)                                       \
                        out[group[g] * n_slots + s] = ADD(out[group[g] * n_slots + s], v); \
                }                                                                        \
            }                                                                            \
        }                                                                                \
    }

#define WRAP_ADD(x, y) ((x) + (y))
#define WRAP_MUL(x, y) ((x) * (y))
DEFINE_FACTORED(uint64_t, f64, WRAP_ADD, WRAP_MUL, (uint64_t))
DEFINE_FACTORED(u128, f128, WRAP_ADD, WRAP_MUL, (u128))
#define MOD_ADD(x, y) add_mod((x), (y), P)
#define MOD_MUL(x, y) mul_mod((x), (y), P)
#define MOD_COEF(c) residue((int64_t)(c), P)
DEFINE_FACTORED(uint64_t, m64, MOD_ADD, MOD_MUL, MOD_COEF)

/* factored(cap, dim_of, families, wanted, wide, backward_out[, modulus]) -> count
 *
 * With a modulus (a prime below 2^62), every family given by terms, narrow tables and
 * no backward tables: the count and origin counts modulo that prime.
 *
 * As programme(), with each family either (vectors, weights) or (free, terms, vectors):
 * vectors its use vectors (for the same box bounds as programme()), free
 * the bit mask of its cards that count in the dimensions, terms an int64 buffer of
 * rows (coefficient, mask0, mask1, mask2, mask3), the family's polynomial being the
 * sum of coefficient times the product over cards k of (the sum over the slots s in
 * mask k of x_{dim_of[s]}, or 1 where s has no dimension or k is not free).  dim_of:
 * one entry per slot (n_slots = its length).  wanted: (position, card_slot, out), with
 * card_slot None for a family given by terms (out then receives its four cards' origin
 * counts, [4, n_slots], low words then high words when wide).
 */
static PyObject *factored(PyObject *self, PyObject *args) {
    PyObject *cap_obj, *dim_obj, *fam_obj, *wanted_obj, *backward_obj;
    int wide;
    unsigned long long modulus = 0;
    if (!PyArg_ParseTuple(args, "O!O!O!O!pO|K", &PyTuple_Type, &cap_obj, &PyTuple_Type, &dim_obj,
                          &PyList_Type, &fam_obj, &PyList_Type, &wanted_obj, &wide, &backward_obj,
                          &modulus))
        return NULL;
    return run_programme(cap_obj, dim_obj, fam_obj, wanted_obj, wide, backward_obj, modulus);
}

/* The programme behind programme() and factored(); dim_obj NULL: no slots (every family
 * a use-vector table). */
static PyObject *run_programme(PyObject *cap_obj, PyObject *dim_obj, PyObject *fam_obj,
                               PyObject *wanted_obj, int wide, PyObject *backward_obj,
                               uint64_t P) {
    if (P && (wide || backward_obj != Py_None || P < 2 || P >= ((uint64_t)1 << 62))) {
        PyErr_SetString(PyExc_ValueError,
                        "modulus: a prime below 2^62, with narrow tables and no backward tables");
        return NULL;
    }
    Layout L;
    if (parse_layout(cap_obj, &L) < 0) return NULL;
    int n_slots = dim_obj ? (int)PyTuple_GET_SIZE(dim_obj) : 1;
    if (n_slots < 1 || n_slots > 62) {
        PyErr_SetString(PyExc_ValueError, "dim_of: expected 1 to 62 slots");
        return NULL;
    }
    int dim_of[64];
    dim_of[0] = -1;
    for (int s = 0; dim_obj && s < n_slots; s++) {
        dim_of[s] = (int)PyLong_AsLong(PyTuple_GET_ITEM(dim_obj, s));
        if (dim_of[s] >= L.D) dim_of[s] = -1;
    }
    if (PyErr_Occurred()) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(fam_obj);
    Py_ssize_t n_wanted = PyList_GET_SIZE(wanted_obj);
    size_t elem = wide ? sizeof(u128) : sizeof(uint64_t);
    Poly *polys = calloc((size_t)n + 1, sizeof(Poly));
    Term **terms = calloc((size_t)n + 1, sizeof(Term *));
    Py_ssize_t *n_terms = calloc((size_t)n + 1, sizeof(Py_ssize_t));
    int *free_of = calloc((size_t)n + 1, sizeof(int));
    Buf *bufs = calloc(2 * (size_t)n + 2 * (size_t)n_wanted + 2, sizeof(Buf));
    Box *fbox = calloc((size_t)n + 1, sizeof(Box));
    Box *bbox = calloc((size_t)n + 1, sizeof(Box));
    char *forward = NULL, *backward = NULL, *scratch = NULL;
    PyObject *result = NULL;
    Buf back_buf = {.held = 0};
    void *rest = NULL;
    if (!polys || !terms || !n_terms || !free_of || !bufs || !fbox || !bbox) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t f = 0; f < n; f++) {
        PyObject *item = PyList_GET_ITEM(fam_obj, f);
        PyObject *first = PyTuple_Check(item) ? PyTuple_GET_ITEM(item, 0) : NULL;
        Py_ssize_t arity = first ? PyTuple_GET_SIZE(item) : 0;
        if (!first || arity != (PyLong_Check(first) ? 3 : 2)) {
            PyErr_SetString(PyExc_ValueError,
                            "families: expected (vectors, weights) or (free, terms, vectors)");
            goto done;
        }
        if (P && !PyLong_Check(first)) {
            PyErr_SetString(PyExc_ValueError, "modulus: every family must be given by terms");
            goto done;
        }
        if (PyLong_Check(first) && !dim_obj) {
            PyErr_SetString(PyExc_ValueError, "polys: expected (vectors, weights) pairs");
            goto done;
        }
        if (PyLong_Check(first)) {
            free_of[f] = (int)PyLong_AsLong(first);
            if (get_buffer(PyTuple_GET_ITEM(item, 1), &bufs[2 * f], 0, 0, "terms") < 0) goto done;
            Py_ssize_t nt = bufs[2 * f].view.len / 8 / 5;
            const int64_t *rows = bufs[2 * f].view.buf;
            terms[f] = calloc((size_t)nt + 1, sizeof(Term));
            if (!terms[f]) {
                PyErr_NoMemory();
                goto done;
            }
            n_terms[f] = nt;
            for (Py_ssize_t t = 0; t < nt; t++) {
                terms[f][t].coeff = rows[5 * t];
                for (int k = 0; k < 4; k++)
                    make_form(&terms[f][t].f[k], (uint64_t)rows[5 * t + 1 + k], free_of[f] >> k & 1,
                              dim_of, n_slots, L.D);
            }
            /* The box bounds from the family's use vectors, as programme() takes them. */
            if (get_buffer(PyTuple_GET_ITEM(item, 2), &bufs[2 * f + 1], 0, 0, "vectors") < 0)
                goto done;
            polys[f].m = bufs[2 * f + 1].view.len / 8 / L.D;
            polys[f].vectors = bufs[2 * f + 1].view.buf;
            poly_bounds(&L, &polys[f]);
            polys[f].m = 0; /* not a table: the terms are multiplied */
        } else {
            if (get_table(first, PyTuple_GET_ITEM(item, 1), L.D, &bufs[2 * f], &polys[f]) < 0)
                goto done;
            poly_bounds(&L, &polys[f]);
        }
    }
    set_boxes(&L, polys, n, fbox, bbox);
    Py_ssize_t first_wanted = n;
    for (Py_ssize_t w = 0; w < n_wanted; w++) {
        PyObject *item = PyList_GET_ITEM(wanted_obj, w);
        Py_ssize_t pos = PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 3
                             ? PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 0))
                             : -1;
        if (pos < 0 || pos >= n) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "wanted: expected (position, card_slot, out)");
            goto done;
        }
        if ((PyTuple_GET_ITEM(item, 1) == Py_None) != (terms[pos] != NULL)) {
            PyErr_SetString(PyExc_ValueError, "wanted: card_slot is None exactly for term families");
            goto done;
        }
        if (pos < first_wanted) first_wanted = pos;
    }
    int keep_backward = backward_obj != Py_None;
    if (keep_backward) {
        if (wide) {
            PyErr_SetString(PyExc_ValueError, "backward tables are kept for narrow counts only");
            goto done;
        }
        if (get_buffer(backward_obj, &back_buf, 1, (n + 1) * L.size, "backward_out") < 0)
            goto done;
        first_wanted = 0;
    }
    /* Kept: the forward tables from the first wanted family on (two before it, in
     * turn) and the backward tables after it (all of them with keep_backward). */
    Py_ssize_t bw_base = keep_backward ? 0 : first_wanted + 1;
    forward = malloc(elem * (size_t)L.size * ((size_t)(n - first_wanted) + 3));
    backward = malloc(elem * (size_t)L.size * (size_t)(n + 1 > bw_base ? n + 1 - bw_base : 1));
    int any_terms = 0;
    for (Py_ssize_t f = 0; f < n; f++) any_terms |= terms[f] != NULL;
    scratch = any_terms ? malloc(elem * (size_t)L.size * 6) : malloc(1);
    Py_ssize_t max_m = 1;
    for (Py_ssize_t f = 0; f < n; f++) max_m = polys[f].m > max_m ? polys[f].m : max_m;
    if (max_m < 4 * n_slots) max_m = 4 * n_slots;
    rest = malloc(elem * (size_t)max_m);
    if (!forward || !backward || !scratch || !rest) {
        PyErr_NoMemory();
        goto done;
    }
#define TABLE(base, i) ((base) + elem * (size_t)L.size * (size_t)(i))
#define FWD(i) ((i) >= first_wanted ? TABLE(forward, 2 + (i) - first_wanted) : TABLE(forward, (i) & 1))
#define BWD(i) TABLE(backward, (i) - bw_base)
#define SCRATCH(T) {(T *)TABLE(scratch, 0), (T *)TABLE(scratch, 1), (T *)TABLE(scratch, 2), \
                    (T *)TABLE(scratch, 3), (T *)TABLE(scratch, 4), (T *)TABLE(scratch, 5)}
    memset(FWD(0), 0, elem * (size_t)L.size);
    if (wide)
        ((u128 *)FWD(0))[0] = 1;
    else
        ((uint64_t *)FWD(0))[0] = 1;
    if (n >= bw_base) {
        memset(BWD(n), 0, elem * (size_t)L.size);
        if (wide)
            ((u128 *)BWD(n))[0] = 1;
        else
            ((uint64_t *)BWD(n))[0] = 1;
    }
    Py_BEGIN_ALLOW_THREADS;
    if (P) {
        uint64_t *buf[6] = SCRATCH(uint64_t);
        for (Py_ssize_t f = 0; f < n; f++)
            m64_terms_multiply(&L, (uint64_t *)FWD(f), terms[f], n_terms[f],
                             (uint64_t *)FWD(f + 1), &fbox[f + 1], buf, P);
        for (Py_ssize_t f = n - 1; f > first_wanted; f--)
            m64_terms_multiply(&L, (uint64_t *)BWD(f + 1), terms[f], n_terms[f],
                             (uint64_t *)BWD(f), &bbox[f], buf, P);
    } else if (wide) {
        u128 *buf[6] = SCRATCH(u128);
        for (Py_ssize_t f = 0; f < n; f++) {
            u128 *src = (u128 *)FWD(f), *dst = (u128 *)FWD(f + 1);
            if (terms[f]) f128_terms_multiply(&L, src, terms[f], n_terms[f], dst, &fbox[f + 1], buf, 0);
            else k128_multiply(&L, src, &fbox[f], &polys[f], dst, &fbox[f + 1]);
        }
        for (Py_ssize_t f = n - 1; f > first_wanted || (keep_backward && f >= 0); f--) {
            u128 *src = (u128 *)BWD(f + 1), *dst = (u128 *)BWD(f);
            if (terms[f]) f128_terms_multiply(&L, src, terms[f], n_terms[f], dst, &bbox[f], buf, 0);
            else k128_multiply(&L, src, &bbox[f + 1], &polys[f], dst, &bbox[f]);
        }
    } else {
        uint64_t *buf[6] = SCRATCH(uint64_t);
        for (Py_ssize_t f = 0; f < n; f++) {
            uint64_t *src = (uint64_t *)FWD(f), *dst = (uint64_t *)FWD(f + 1);
            if (terms[f]) f64_terms_multiply(&L, src, terms[f], n_terms[f], dst, &fbox[f + 1], buf, 0);
            else k64_multiply(&L, src, &fbox[f], &polys[f], dst, &fbox[f + 1]);
        }
        for (Py_ssize_t f = n - 1; f > first_wanted || (keep_backward && f >= 0); f--) {
            uint64_t *src = (uint64_t *)BWD(f + 1), *dst = (uint64_t *)BWD(f);
            if (terms[f]) f64_terms_multiply(&L, src, terms[f], n_terms[f], dst, &bbox[f], buf, 0);
            else k64_multiply(&L, src, &bbox[f + 1], &polys[f], dst, &bbox[f]);
        }
    }
    Py_END_ALLOW_THREADS;
    for (Py_ssize_t w = 0; w < n_wanted; w++) {
        PyObject *item = PyList_GET_ITEM(wanted_obj, w);
        Py_ssize_t pos = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 0));
        Buf *cs = &bufs[2 * n + 2 * w], *out = &bufs[2 * n + 2 * w + 1];
        Py_ssize_t width = 4 * (Py_ssize_t)n_slots;
        const int64_t *card_slot = NULL;
        if (!terms[pos]) {
            if (get_buffer(PyTuple_GET_ITEM(item, 1), cs, 0, polys[pos].m, "card_slot") < 0)
                goto done;
            width = cs->view.len / 8 / (polys[pos].m ? polys[pos].m : 1);
            card_slot = cs->view.buf;
        }
        if (get_buffer(PyTuple_GET_ITEM(item, 2), out, 1, (wide ? 2 : 1) * width, "out") < 0)
            goto done;
        uint64_t *o = out->view.buf;
        if (P) {
            uint64_t *buf[6] = SCRATCH(uint64_t);
            m64_terms_marginals(&L, (uint64_t *)FWD(pos), (uint64_t *)BWD(pos + 1),
                              terms[pos], n_terms[pos], free_of[pos], dim_of, n_slots, o, buf, P);
        } else if (wide) {
            u128 *r = rest;
            if (terms[pos]) {
                u128 *buf[6] = SCRATCH(u128);
                f128_terms_marginals(&L, (u128 *)FWD(pos), (u128 *)BWD(pos + 1),
                                     terms[pos], n_terms[pos], free_of[pos], dim_of, n_slots, r, buf,
                                     0);
                for (Py_ssize_t k = 0; k < width; k++) {
                    o[k] = (uint64_t)r[k];
                    o[width + k] = (uint64_t)(r[k] >> 64);
                }
            } else {
                table_marginals(&L, FWD(pos), &fbox[pos], BWD(pos + 1),
                                &bbox[pos + 1], &polys[pos], card_slot, width, 1, rest, o);
            }
        } else {
            uint64_t *r = rest;
            if (terms[pos]) {
                uint64_t *buf[6] = SCRATCH(uint64_t);
                f64_terms_marginals(&L, (uint64_t *)FWD(pos),
                                    (uint64_t *)BWD(pos + 1), terms[pos], n_terms[pos],
                                    free_of[pos], dim_of, n_slots, r, buf, 0);
                for (Py_ssize_t k = 0; k < width; k++) o[k] = r[k];
            } else {
                table_marginals(&L, FWD(pos), &fbox[pos], BWD(pos + 1),
                                &bbox[pos + 1], &polys[pos], card_slot, width, 0, rest, o);
            }
        }
    }
    if (keep_backward) memcpy(back_buf.view.buf, backward, elem * (size_t)L.size * ((size_t)n + 1));
    result = count_at_cap(FWD(n), &L, wide);
#undef SCRATCH
#undef FWD
#undef BWD
#undef TABLE
done:
    if (bufs)
        for (Py_ssize_t i = 0; i < 2 * n + 2 * n_wanted + 2; i++) release(&bufs[i]);
    release(&back_buf);
    if (terms)
        for (Py_ssize_t f = 0; f < n; f++) free(terms[f]);
    free(terms);
    free(n_terms);
    free(free_of);
    free(polys);
    free(bufs);
    free(fbox);
    free(bbox);
    free(forward);
    free(backward);
    free(scratch);
    free(rest);
    return result;
}

/* ----- sparse programme: tables as maps of their nonzero entries ----------------- *
 *
 * Where few of the tables' entries can be reached (a player's own view of a
 * draw-pile game after many draws: a few percent), the programme keeps each table as
 * a hash map from a state to its count.  A state is packed into 64 bits, each
 * dimension in a field one bit wider than its capacity needs, stored with a bias that
 * puts the capacity just below the field's top bit: adding a use vector (unbiased) to
 * a state overflows a capacity exactly where it sets a field's top bit, its guard.
 * The families are split into two sides (greedily, balancing the sums of the bit
 * lengths of their numbers of use vectors), each side's product built from its
 * smallest family up, and the two are joined on complementary states: for a family J
 * between the sides, rest[j] = sum_a A[a] B[cap - a - v_j] is the rest of programme()
 * and the count is sum_j w_j rest[j].  With wanted families, each is J in turn, the
 * other wanted ones multiplying the smaller side (beyond SP_LEAVE_OUT of them: prefix
 * products through them on the smaller side, suffix products on the larger).  The
 * work is counted (one unit per state and use vector tried) and the call gives up
 * before it would exceed its budget, or when a map would hold more than its limit of
 * states, returning None: the dense programme then runs.  Counts are modulo 2^64 or
 * 2^128, as programme()'s.
 */

#define SP_EMPTY UINT64_MAX

typedef struct {
    int64_t limit;  /* states in one map at most (more: the run gives up) */
    uint64_t guard; /* the top bit of every field */
    uint64_t unit;  /* the packed state 0 (the biases) */
    uint64_t fullc; /* fullc - packed(x) = packed(cap - x) */
    int off[MAXD];
} Packing;

static int make_packing(const Layout *L, Packing *pk) {
    int bit = 0;
    pk->guard = pk->unit = pk->fullc = 0;
    for (int d = 0; d < L->D; d++) {
        if (L->cap[d] > ((int64_t)1 << 40)) return -1;
        int b = 1; /* field width: 2^(b-1) > cap */
        while (((int64_t)1 << (b - 1)) <= L->cap[d]) b++;
        if (bit + b > 63) return -1;
        uint64_t bias = ((uint64_t)1 << (b - 1)) - 1 - (uint64_t)L->cap[d];
        pk->off[d] = bit;
        pk->guard |= (uint64_t)1 << (bit + b - 1);
        pk->unit += bias << bit;
        pk->fullc += ((uint64_t)L->cap[d] + 2 * bias) << bit;
        bit += b;
    }
    return 0;
}

typedef struct {
    Py_ssize_t m;
    uint64_t *raw; /* packed use vectors (unbiased); the guard for one beyond the caps */
    const int64_t *weights;
} SpFamily;

typedef struct {
    const int64_t *card_slot; /* NULL: not wanted */
    Py_ssize_t width;
    uint64_t *out;
} SpOut;

typedef struct {
    int *side_a, *side_b, *chain;
    int na, nb, nc;
    int *others; /* room for nc - 1 families */
    SpOut *outs; /* per chain position */
} SpPlan;

#define SP_AHEAD 8    /* prefetch distance, in states */
#define SP_LEAVE_OUT 3 /* wanted families joined by leaving each out (more: by a chain) */

static inline int bit_length(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

/* The states key + v_j that fit (no guard bit set) into fit, their j into which; how
 * many.  Branch-free: most do not fit. */
static inline Py_ssize_t sp_fits(uint64_t key, const SpFamily *f, uint64_t guard, uint64_t *fit,
                                 int32_t *which) {
    Py_ssize_t k = 0;
    for (Py_ssize_t j = 0; j < f->m; j++) {
        uint64_t next = key + f->raw[j];
        fit[k] = next;
        which[k] = (int32_t)j;
        k += (next & guard) == 0;
    }
    return k;
}

static inline int64_t sp_hash(uint64_t key, int shift) {
    return (int64_t)((key * 0x9E3779B97F4A7C15ULL) >> shift);
}

#define DEFINE_SPARSE(T, NAME)                                                           \
    typedef struct {                                                                     \
        uint64_t key;                                                                    \
        T val;                                                                           \
    } NAME##_entry;                                                                      \
    typedef struct {                                                                     \
        NAME##_entry *e;                                                                 \
        int64_t n, mask, limit; /* limit: more states, and the run gives up */           \
        int shift;                                                                       \
    } NAME##_map;                                                                        \
                                                                                         \
    static int NAME##_map_init(NAME##_map *m, int64_t expect, int64_t limit) {           \
        int64_t size = 16;                                                               \
        int lg = 4;                                                                      \
        while (size < 2 * expect && lg < 40) size <<= 1, lg++;                           \
        m->e = malloc(sizeof(NAME##_entry) * (size_t)size);                              \
        m->n = 0;                                                                        \
        m->limit = limit;                                                                \
        m->mask = size - 1;                                                              \
        m->shift = 64 - lg;                                                              \
        if (!m->e) return -1;                                                            \
        for (int64_t i = 0; i < size; i++) m->e[i].key = SP_EMPTY;                       \
        return 0;                                                                        \
    }                                                                                    \
                                                                                         \
    static void NAME##_map_free(NAME##_map *m) {                                         \
        free(m->e);                                                                      \
        m->e = NULL;                                                                     \
        m->n = 0;                                                                        \
    }                                                                                    \
                                                                                         \
    static int NAME##_map_grow(NAME##_map *m) {                                          \
        NAME##_map bigger;                                                               \
        if (m->n > m->limit) return 1;                                                   \
        if (NAME##_map_init(&bigger, m->mask + 1, m->limit) < 0) return -1;              \
        for (int64_t i = 0; i <= m->mask; i++) {                                         \
            uint64_t key = m->e[i].key;                                                  \
            if (key == SP_EMPTY) continue;                                               \
            int64_t k = sp_hash(key, bigger.shift);                                      \
            while (bigger.e[k].key != SP_EMPTY) k = (k + 1) & bigger.mask;               \
            bigger.e[k] = m->e[i];                                                       \
        }                                                                                \
        bigger.n = m->n;                                                                 \
        NAME##_map_free(m);                                                              \
        *m = bigger;                                                                     \
        return 0;                                                                        \
    }                                                                                    \
                                                                                         \
    static inline int NAME##_map_add(NAME##_map *m, uint64_t key, T v) {                 \
        int64_t i = sp_hash(key, m->shift);                                              \
        for (;;) {                                                                       \
            uint64_t k = m->e[i].key;                                                    \
            if (k == key) {                                                              \
                m->e[i].val += v;                                                        \
                return 0;                                                                \
            }                                                                            \
            if (k == SP_EMPTY) break;                                                    \
            i = (i + 1) & m->mask;                                                       \
        }                                                                                \
        m->e[i].key = key;                                                               \
        m->e[i].val = v;                                                                 \
        m->n++;                                                                          \
        return 2 * m->n > m->mask + 1 ? NAME##_map_grow(m) : 0;                          \
    }                                                                                    \
                                                                                         \
    static inline const T *NAME##_map_get(const NAME##_map *m, uint64_t key) {           \
        int64_t i = sp_hash(key, m->shift);                                              \
        for (;;) {                                                                       \
            uint64_t k = m->e[i].key;                                                    \
            if (k == key) return &m->e[i].val;                                           \
            if (k == SP_EMPTY) return NULL;                                              \
            i = (i + 1) & m->mask;                                                       \
        }                                                                                \
    }                                                                                    \
                                                                                         \
    /* out = a times the family (out initialised, empty).  The states that fit are     \
     * gathered first and their slots in out prefetched a few ahead: the map is larger   \
     * than the caches, and each add would otherwise wait for memory. */                 \
    static int NAME##_expand(const NAME##_map *a, const SpFamily *f, uint64_t guard,     \
                             uint64_t *fit, int32_t *which, NAME##_map *out) {           \
        for (int64_t i = 0; i <= a->mask; i++) {                                         \
            uint64_t key = a->e[i].key;                                                  \
            T x = a->e[i].val;                                                           \
            if (key == SP_EMPTY || x == 0) continue;                                     \
            Py_ssize_t k = sp_fits(key, f, guard, fit, which);                           \
            for (Py_ssize_t t = 0; t < k; t++) {                                         \
                if (t + SP_AHEAD < k)                                                    \
                    __builtin_prefetch(&out->e[sp_hash(fit[t + SP_AHEAD], out->shift)], 1); \
                int r = NAME##_map_add(out, fit[t], x * (T)f->weights[which[t]]);        \
                if (r) return r;                                                         \
            }                                                                            \
        }                                                                                \
        return 0;                                                                        \
    }                                                                                    \
                                                                                         \
    /* rest[j] = sum_a a[a] b[cap - a - v_j], iterating over the smaller map. */         \
    static void NAME##_join(const NAME##_map *a, const SpFamily *f, const NAME##_map *b, \
                            const Packing *pk, uint64_t *fit, int32_t *which, T *rest) { \
        if (b->n < a->n) {                                                               \
            const NAME##_map *t = a;                                                     \
            a = b;                                                                       \
            b = t;                                                                       \
        }                                                                                \
        for (Py_ssize_t j = 0; j < f->m; j++) rest[j] = 0;                               \
        for (int64_t i = 0; i <= a->mask; i++) {                                         \
            uint64_t key = a->e[i].key;                                                  \
            T x = a->e[i].val;                                                           \
            if (key == SP_EMPTY || x == 0) continue;                                     \
            Py_ssize_t k = sp_fits(key, f, pk->guard, fit, which);                       \
            for (Py_ssize_t t = 0; t < k; t++) {                                         \
                if (t + SP_AHEAD < k)                                                    \
                    __builtin_prefetch(&b->e[sp_hash(pk->fullc - fit[t + SP_AHEAD], b->shift)], 0); \
                const T *y = NAME##_map_get(b, pk->fullc - fit[t]);                      \
                if (y) rest[which[t]] += x * *y;                                         \
            }                                                                            \
        }                                                                                \
    }                                                                                    \
                                                                                         \
    /* out = a times families order[0..k-1] (a NULL: the unit state); 1 when that would  \
     * exceed the budget or a map its limit. */                                          \
    static int NAME##_product(const NAME##_map *a, const SpFamily *fams, const int *order, \
                              int k, const Packing *pk, uint64_t *fit, int32_t *which,   \
                              int64_t *work, int64_t budget, NAME##_map *out) {          \
        NAME##_map cur = {0};                                                            \
        if (NAME##_map_init(&cur, a ? a->n : 1, pk->limit) < 0) return -1;              \
        int r = 0;                                                                       \
        if (a) {                                                                         \
            for (int64_t i = 0; i <= a->mask && r == 0; i++)                             \
                if (a->e[i].key != SP_EMPTY) r = NAME##_map_add(&cur, a->e[i].key, a->e[i].val); \
        } else {                                                                         \
            r = NAME##_map_add(&cur, pk->unit, 1);                                       \
        }                                                                                \
        if (r) {                                                                         \
            NAME##_map_free(&cur);                                                       \
            return r;                                                                    \
        }                                                                                \
        for (int i = 0; i < k; i++) {                                                    \
            const SpFamily *f = &fams[order[i]];                                         \
            *work += cur.n * f->m;                                                       \
            NAME##_map next;                                                             \
            r = *work > budget ? 1 : NAME##_map_init(&next, cur.n * 2, pk->limit);       \
            if (r == 0) {                                                                \
                r = NAME##_expand(&cur, f, pk->guard, fit, which, &next);                \
                NAME##_map_free(&cur);                                                   \
                cur = next;                                                              \
            }                                                                            \
            if (r) {                                                                     \
                NAME##_map_free(&cur);                                                   \
                return r;                                                                \
            }                                                                            \
        }                                                                                \
        *out = cur;                                                                      \
        return 0;                                                                        \
    }                                                                                    \
                                                                                         \
    /* The whole run (see above): 0, or 1 having given up, or -1 out of memory. */      \
    static int NAME##_run(const SpPlan *pl, const SpFamily *fams, const Packing *pk,     \
                          int64_t budget, uint64_t *fit, int32_t *which, T *rest,        \
                          T *count) {                                                    \
        int64_t work = 0;                                                                \
        NAME##_map sa = {0}, sb = {0};                                                   \
        int s = NAME##_product(NULL, fams, pl->side_a, pl->na, pk, fit, which, &work,    \
                               budget, &sa);                                             \
        if (s == 0)                                                                      \
            s = NAME##_product(NULL, fams, pl->side_b, pl->nb, pk, fit, which, &work,    \
                               budget, &sb);                                             \
        /* Each chain family is joined with the product of all the others, in two maps.  \
         * Up to SP_LEAVE_OUT of them: the chain's other families multiply the smaller     \
         * side, and the larger is joined as it is.  More: prefix products through the     \
         * chain on the smaller side, suffix products on the larger (2 nc products, not    \
         * nc^2). */                                                                     \
        NAME##_map *small = sa.n <= sb.n ? &sa : &sb, *big = sa.n <= sb.n ? &sb : &sa;   \
        int nc = pl->nc, *others = pl->others;                                           \
        int chained = nc > SP_LEAVE_OUT;                                                 \
        NAME##_map *suf = NULL, pre = {0};                                               \
        if (s == 0 && chained) { /* suf[i]: chain i.. and the larger side (suf[nc]) */   \
            suf = calloc((size_t)nc + 1, sizeof(NAME##_map));                            \
            if (!suf) s = -1;                                                            \
            else suf[nc] = *big;                                                         \
            for (int i = nc - 1; i >= 1 && s == 0; i--)                                  \
                s = NAME##_product(&suf[i + 1], fams, &pl->chain[i], 1, pk, fit, which,  \
                                   &work, budget, &suf[i]);                              \
            if (s == 0) s = NAME##_product(small, fams, NULL, 0, pk, fit, which, &work, budget, &pre); \
        }                                                                                \
        for (int i = 0; i < nc && s == 0; i++) {                                         \
            const SpFamily *f = &fams[pl->chain[i]];                                     \
            NAME##_map with = {0};                                                       \
            const NAME##_map *left = small, *right = big;                                \
            if (chained) {                                                               \
                left = &pre;                                                             \
                right = &suf[i + 1];                                                     \
            } else if (nc > 1) {                                                         \
                int k = 0;                                                               \
                for (int j = 0; j < nc; j++)                                             \
                    if (j != i) others[k++] = pl->chain[j];                              \
                s = NAME##_product(small, fams, others, k, pk, fit, which, &work, budget, &with); \
                if (s) break;                                                            \
                left = &with;                                                            \
            }                                                                            \
            work += (left->n < right->n ? left->n : right->n) * f->m;                    \
            if (work > budget) s = 1;                                                    \
            else {                                                                       \
                NAME##_join(left, f, right, pk, fit, which, rest);                       \
                const SpOut *o = &pl->outs[i];                                           \
                if (o->out)                                                              \
                    rest_origins(rest, f->m, o->card_slot, o->width, sizeof(T) > 8, o->out); \
                if (i == nc - 1) {                                                       \
                    T total = 0;                                                         \
                    for (Py_ssize_t j = 0; j < f->m; j++) total += rest[j] * (T)f->weights[j]; \
                    *count = total;                                                      \
                }                                                                        \
            }                                                                            \
            NAME##_map_free(&with);                                                      \
            if (chained && s == 0 && i < nc - 1) {                                       \
                NAME##_map next;                                                         \
                s = NAME##_product(&pre, fams, &pl->chain[i], 1, pk, fit, which, &work,  \
                                   budget, &next);                                       \
                NAME##_map_free(&pre);                                                   \
                if (s == 0) pre = next;                                                  \
            }                                                                            \
        }                                                                                \
        NAME##_map_free(&pre);                                                           \
        if (suf)                                                                         \
            for (int i = 1; i < nc; i++) NAME##_map_free(&suf[i]); /* suf[nc] is big */  \
        free(suf);                                                                       \
        NAME##_map_free(&sa);                                                            \
        NAME##_map_free(&sb);                                                            \
        return s;                                                                        \
    }

DEFINE_SPARSE(uint64_t, s64)
DEFINE_SPARSE(u128, s128)

/* sparse(cap, polys, wanted, wide, budget, max_states) -> count, or None
 *
 * programme() without backward tables, on maps of the reachable states: the same
 * count and the same origin counts of the wanted families (position, card_slot, out,
 * as programme() takes them, at most one per position), or None where the states do
 * not pack into 63 bits, the work would exceed budget (in units of one state times
 * one use vector) or a map more than max_states states.
 */
static PyObject *sparse(PyObject *self, PyObject *args) {
    PyObject *cap_obj, *polys_obj, *wanted_obj;
    int wide;
    long long budget, max_states;
    if (!PyArg_ParseTuple(args, "O!O!O!pLL", &PyTuple_Type, &cap_obj, &PyList_Type, &polys_obj,
                          &PyList_Type, &wanted_obj, &wide, &budget, &max_states))
        return NULL;
    Layout L;
    if (parse_caps(cap_obj, &L, 0) < 0) return NULL;
    Packing pk;
    Py_ssize_t n = PyList_GET_SIZE(polys_obj);
    Py_ssize_t n_wanted = PyList_GET_SIZE(wanted_obj);
    if (make_packing(&L, &pk) < 0 || n < 2 || n > (1 << 20)) Py_RETURN_NONE;
    pk.limit = max_states;
    SpFamily *fams = calloc((size_t)n, sizeof(SpFamily));
    Buf *bufs = calloc(2 * (size_t)n + 2 * (size_t)n_wanted, sizeof(Buf));
    int *order = calloc(4 * (size_t)n, sizeof(int));
    int *wanted_of = calloc((size_t)n, sizeof(int)); /* 1 + its index in wanted, or 0 */
    SpOut *outs = calloc((size_t)n, sizeof(SpOut));
    void *rest = NULL;
    uint64_t *fit = NULL; /* the states of one expansion that fit, and their vectors */
    int32_t *which = NULL;
    PyObject *result = NULL;
    if (!fams || !bufs || !order || !wanted_of || !outs) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t max_m = 1;
    for (Py_ssize_t f = 0; f < n; f++) {
        PyObject *item = PyList_GET_ITEM(polys_obj, f);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_ValueError, "polys: expected (vectors, weights) pairs");
            goto done;
        }
        Poly table;
        if (get_table(PyTuple_GET_ITEM(item, 0), PyTuple_GET_ITEM(item, 1), L.D, &bufs[2 * f],
                      &table) < 0)
            goto done;
        Py_ssize_t m = table.m;
        const int64_t *v = table.vectors;
        fams[f].m = m;
        fams[f].weights = table.weights;
        fams[f].raw = malloc(sizeof(uint64_t) * (size_t)(m ? m : 1));
        if (!fams[f].raw) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t j = 0; j < m; j++) {
            uint64_t raw = 0;
            for (int d = 0; d < L.D; d++) {
                int64_t x = v[j * L.D + d];
                if (x < 0 || x > L.cap[d]) {
                    raw = pk.guard; /* beyond a capacity: never fits */
                    break;
                }
                raw += (uint64_t)x << pk.off[d];
            }
            fams[f].raw[j] = raw;
        }
        if (m > max_m) max_m = m;
    }
    for (Py_ssize_t w = 0; w < n_wanted; w++) {
        PyObject *item = PyList_GET_ITEM(wanted_obj, w);
        Py_ssize_t pos = PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 3
                             ? PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 0))
                             : -1;
        if (pos < 0 || pos >= n || wanted_of[pos]) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError,
                                "wanted: expected (position, card_slot, out), one per position");
            goto done;
        }
        wanted_of[pos] = (int)w + 1;
        Buf *cs = &bufs[2 * n + 2 * w], *out = &bufs[2 * n + 2 * w + 1];
        if (get_buffer(PyTuple_GET_ITEM(item, 1), cs, 0, fams[pos].m, "card_slot") < 0) goto done;
        Py_ssize_t width = cs->view.len / 8 / (fams[pos].m ? fams[pos].m : 1);
        if (get_buffer(PyTuple_GET_ITEM(item, 2), out, 1, (wide ? 2 : 1) * width, "out") < 0)
            goto done;
    }
    rest = malloc((wide ? sizeof(u128) : sizeof(uint64_t)) * (size_t)max_m);
    fit = malloc(sizeof(uint64_t) * (size_t)max_m);
    which = malloc(sizeof(int32_t) * (size_t)max_m);
    if (!rest || !fit || !which) {
        PyErr_NoMemory();
        goto done;
    }
    /* The plan: the chain is the wanted families (by increasing size), or else the
     * largest family; the others go by decreasing size each to the side whose sum of
     * bit lengths of sizes is smaller (the chain's counting on side A), and each side
     * is multiplied from its smallest family up. */
    SpPlan pl = {order, order + n, order + 2 * n, 0, 0, 0, order + 3 * n, outs};
    int *by_size = pl.chain; /* sorted here, then compacted into the chain */
    for (Py_ssize_t f = 0; f < n; f++) by_size[f] = (int)f;
    for (Py_ssize_t i = 1; i < n; i++) /* insertion sort by increasing size, stable */
        for (Py_ssize_t k = i; k > 0 && fams[by_size[k - 1]].m > fams[by_size[k]].m; k--) {
            int t = by_size[k];
            by_size[k] = by_size[k - 1];
            by_size[k - 1] = t;
        }
    int largest = n_wanted ? -1 : by_size[n - 1];
    int wa = 0, wb = 0; /* the chain counts on side A */
    for (Py_ssize_t i = 0; i < n; i++)
        if (wanted_of[by_size[i]] || by_size[i] == largest)
            wa += bit_length((uint64_t)fams[by_size[i]].m);
    for (Py_ssize_t i = n - 1; i >= 0; i--) {
        int f = by_size[i];
        if (wanted_of[f] || f == largest) continue;
        int w = bit_length((uint64_t)fams[f].m);
        if (wa <= wb) {
            pl.side_a[pl.na++] = f;
            wa += w;
        } else {
            pl.side_b[pl.nb++] = f;
            wb += w;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (wanted_of[by_size[i]] || by_size[i] == largest) pl.chain[pl.nc++] = by_size[i];
    for (int i = 0; i < pl.na / 2; i++) { /* the sides were filled largest first */
        int t = pl.side_a[i];
        pl.side_a[i] = pl.side_a[pl.na - 1 - i];
        pl.side_a[pl.na - 1 - i] = t;
    }
    for (int i = 0; i < pl.nb / 2; i++) {
        int t = pl.side_b[i];
        pl.side_b[i] = pl.side_b[pl.nb - 1 - i];
        pl.side_b[pl.nb - 1 - i] = t;
    }
    for (int i = 0; i < pl.nc; i++) {
        Py_ssize_t w = wanted_of[pl.chain[i]] - 1;
        if (w < 0) continue;
        Buf *cs = &bufs[2 * n + 2 * w];
        outs[i].card_slot = cs->view.buf;
        outs[i].width = cs->view.len / 8 / (fams[pl.chain[i]].m ? fams[pl.chain[i]].m : 1);
        outs[i].out = bufs[2 * n + 2 * w + 1].view.buf;
    }
    int status;
    u128 count = 0;
    Py_BEGIN_ALLOW_THREADS;
    if (wide) {
        status = s128_run(&pl, fams, &pk, budget, fit, which, rest, &count);
    } else {
        uint64_t narrow = 0;
        status = s64_run(&pl, fams, &pk, budget, fit, which, rest, &narrow);
        count = narrow;
    }
    Py_END_ALLOW_THREADS;
    if (status < 0) PyErr_NoMemory();
    else if (status > 0) {
        Py_INCREF(Py_None);
        result = Py_None;
    }
    else result = u128_to_int(count);
done:
    if (bufs)
        for (Py_ssize_t i = 0; i < 2 * n + 2 * n_wanted; i++) release(&bufs[i]);
    if (fams)
        for (Py_ssize_t f = 0; f < n; f++) free(fams[f].raw);
    free(fams);
    free(bufs);
    free(order);
    free(wanted_of);
    free(outs);
    free(rest);
    free(fit);
    free(which);
    return result;
}

/* ----- recount: one player's (or the public) recount in one call ------------------ */

/* a / b correctly rounded to the nearest double, ties to even (as Python's int / int),
 * for 0 <= a <= b < 2^63, b > 0. */
static double exact_quotient(uint64_t a, uint64_t b) {
    if (b < ((uint64_t)1 << 53)) return (double)a / (double)b; /* both exact: one rounding */
    if (a == 0) return 0.0;
    int la = 64 - __builtin_clzll(a), lb = 64 - __builtin_clzll(b);
    int s = 55 + lb - la; /* the quotient a 2^s / b has 55 or 56 bits */
    u128 n = (u128)a << s;
    uint64_t q = (uint64_t)(n / b);
    int inexact = n % b != 0;
    int extra = (64 - __builtin_clzll(q)) - 53;
    uint64_t mant = q >> extra, low = q & (((uint64_t)1 << extra) - 1);
    uint64_t half = (uint64_t)1 << (extra - 1);
    if (low > half || (low == half && (inexact || (mant & 1)))) mant++;
    int e = extra - s; /* the value is mant 2^e, mant in [2^52, 2^53] */
    if (mant == (uint64_t)1 << 53) mant >>= 1, e++;
    uint64_t bits = ((uint64_t)(1023 + 52 + e) << 52) | (mant - ((uint64_t)1 << 52));
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

#define RC_MAX_COMBOS 4096 /* origin tuples of one family; more: the memoised path */
#define RC_MAX_TOTAL 8192  /* of all families together */
#define RC_WORDS 4         /* clauses of one family: up to 64 RC_WORDS */
#define RC_MAX_SIZE ((int64_t)1 << 22)

typedef struct {
    int family;
    int wanted;
    int n_free;
    Py_ssize_t n_combos; /* stored origin tuples (wanted families only) */
    uint8_t *combo_slots; /* 4 per tuple */
    int32_t *combo_group;
    int64_t *vectors;
    int64_t *weights;
    Py_ssize_t m;
} RcFamily;

/* Index of `obj` in `players` (==, first match), -1 if absent, -2 on error. */
static int player_index(PyObject *obj, PyObject *players) {
    Py_ssize_t n = PyTuple_GET_SIZE(players);
    for (Py_ssize_t p = 0; p < n; p++) {
        PyObject *q = PyTuple_GET_ITEM(players, p);
        if (q == obj) return (int)p;
        int eq = PyObject_RichCompareBool(obj, q, Py_EQ);
        if (eq < 0) return -2;
        if (eq) return (int)p;
    }
    return -1;
}

/* recount(capacity, allowed, viewer, coded, clause_sets, families, location, players,
 *         slot_owner, out) -> count, or None
 *
 * The count of worlds of the counting programme (no dead-card or stuck corrections:
 * the caller checks that none applies) and, for the cards of the wanted families, the
 * exact probability that each player holds each card now, written into out (a writable
 * float64 buffer [n_cards, n_players], other rows untouched), each the correctly
 * rounded quotient of exact counts.  capacity: the slots' sizes; allowed: each card's
 * slot mask; viewer: None or each card's mask of the viewers' private rules; coded:
 * per family its clauses (kind, c0, c1, c2, c3); clause_sets: per family a collection
 * of the same length (else None: clauses edited by hand); families: the wanted
 * families; location: per card None or where it is seen now (a player: held there);
 * slot_owner: per slot the player whose hand it is in, or None.  None when this path
 * cannot be exact or quick (the multinomial bound reaches 2^63, too many dimensions,
 * slots, tuples or clauses): the caller then runs the general engine.  0 when no world
 * is possible (out untouched).
 */
static PyObject *recount(PyObject *self, PyObject *args) {
    PyObject *cap_obj, *allowed_obj, *viewer_obj, *coded_obj, *sets_obj, *fam_obj, *loc_obj,
        *players_obj, *owner_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "O!O!OO!O!OO!O!O!O", &PyList_Type, &cap_obj, &PyList_Type,
                          &allowed_obj, &viewer_obj, &PyList_Type, &coded_obj, &PyList_Type,
                          &sets_obj, &fam_obj, &PyList_Type, &loc_obj, &PyTuple_Type,
                          &players_obj, &PyList_Type, &owner_obj, &out_obj))
        return NULL;
    Py_ssize_t n_slots = PyList_GET_SIZE(cap_obj);
    Py_ssize_t n_cards = PyList_GET_SIZE(allowed_obj);
    Py_ssize_t n_players = PyTuple_GET_SIZE(players_obj);
    Py_ssize_t n_fam = n_cards / 4;
    if (n_cards % 4 || PyList_GET_SIZE(coded_obj) != n_fam || PyList_GET_SIZE(sets_obj) != n_fam ||
        PyList_GET_SIZE(loc_obj) != n_cards || PyList_GET_SIZE(owner_obj) != n_slots ||
        (viewer_obj != Py_None &&
         (!PyTuple_Check(viewer_obj) || PyTuple_GET_SIZE(viewer_obj) != n_cards))) {
        PyErr_SetString(PyExc_ValueError,
                        "recount: expected 4 cards per family and one entry per card and slot");
        return NULL;
    }
    if (n_slots < 1 || n_slots > 62 || n_players < 1 || n_players > 64) Py_RETURN_NONE;
    int64_t capacity[64];
    for (Py_ssize_t s = 0; s < n_slots; s++) {
        capacity[s] = PyLong_AsLongLong(PyList_GET_ITEM(cap_obj, s));
        if (capacity[s] == -1 && PyErr_Occurred()) return NULL;
    }
    Buf out = {.held = 0};
    uint64_t *mask = NULL;
    char *want = NULL;
    RcFamily *fams = NULL;
    char *arena = NULL;
    uint64_t *forward = NULL, *backward = NULL, *rest = NULL;
    Poly *polys = NULL;
    Box *fbox = NULL, *bbox = NULL;
    int *order = NULL;
    PyObject *result = NULL, *iter = NULL;
    uint64_t count = 0;
    if (PyObject_GetBuffer(out_obj, &out.view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) return NULL;
    out.held = 1;
    if (out.view.itemsize != 8 || out.view.len < n_cards * n_players * 8) {
        PyErr_SetString(PyExc_ValueError, "out: expected a float64 buffer [n_cards, n_players]");
        goto done;
    }
    double *probabilities = out.view.buf;
    mask = malloc(sizeof(uint64_t) * (size_t)(n_cards + 1));
    want = calloc((size_t)n_fam + 1, 1);
    fams = calloc((size_t)n_fam + 1, sizeof(RcFamily));
    if (!mask || !want || !fams) {
        PyErr_NoMemory();
        goto done;
    }
    iter = PyObject_GetIter(fam_obj);
    if (!iter) goto done;
    PyObject *item;
    while ((item = PyIter_Next(iter))) {
        Py_ssize_t f = PyLong_AsSsize_t(item);
        Py_DECREF(item);
        if (f == -1 && PyErr_Occurred()) goto done;
        if (f < 0 || f >= n_fam) {
            PyErr_Format(PyExc_ValueError, "families: expected family numbers below %zd", n_fam);
            goto done;
        }
        want[f] = 1;
    }
    if (PyErr_Occurred()) goto done;
    /* Each card's possible origins as the viewers see them; the fixed ones (one origin)
     * are taken off the capacities. */
    int zero = 0;
    int64_t n_free = 0;
    for (Py_ssize_t c = 0; c < n_cards; c++) {
        uint64_t m = PyLong_AsUnsignedLongLongMask(PyList_GET_ITEM(allowed_obj, c));
        if (viewer_obj != Py_None) m &= PyLong_AsUnsignedLongLongMask(PyTuple_GET_ITEM(viewer_obj, c));
        if (PyErr_Occurred()) goto done;
        m &= ((uint64_t)1 << n_slots) - 1;
        mask[c] = m;
        if (!m)
            zero = 1;
        else if (m & (m - 1))
            n_free++;
        else
            capacity[__builtin_ctzll(m)]--;
    }
    for (Py_ssize_t s = 0; s < n_slots; s++)
        if (capacity[s] < 0) zero = 1;
    if (zero) goto counted;
    /* The dimensions: the slots with room but the roomiest (implied by the others). */
    uint64_t room = 0;
    int implied = -1, n_room = 0;
    int64_t total_cards = 0;
    for (Py_ssize_t s = 0; s < n_slots; s++)
        if (capacity[s] > 0) {
            room |= (uint64_t)1 << s;
            n_room++;
            total_cards += capacity[s];
            if (implied < 0 || capacity[s] > capacity[implied]) implied = (int)s;
        }
    if (n_room < 2) implied = -1;
    if (n_free != total_cards) goto counted; /* the free cards cannot fill the room */
    Layout L;
    int dim_of[64];
    L.D = 0;
    for (Py_ssize_t s = 0; s < n_slots; s++) {
        dim_of[s] = -1;
        if ((room >> s & 1) && (int)s != implied) {
            if (L.D == MAXD) {
                result = Py_None;
                Py_INCREF(result);
                goto done;
            }
            dim_of[s] = L.D;
            L.cap[L.D++] = capacity[s];
        }
    }
    if (L.D == 0) L.cap[L.D++] = 0;
    /* Every answer is at most the multinomial bound of placing the free cards: below
     * 2^63, arithmetic modulo 2^64 is exact. */
    {
        u128 bound = 1;
        int64_t placed = 0;
        for (Py_ssize_t s = 0; s < n_slots && bound < ((u128)1 << 63); s++) {
            if (capacity[s] <= 0) continue;
            placed += capacity[s];
            u128 r = 1; /* C(placed, capacity[s]), exactly, step by step */
            for (int64_t i = 1; i <= capacity[s] && r < ((u128)1 << 63); i++)
                r = r * (u128)(placed - capacity[s] + i) / (u128)i;
            bound = r < ((u128)1 << 63) ? bound * r : r;
        }
        if (bound >= ((u128)1 << 63)) {
            result = Py_None;
            Py_INCREF(result);
            goto done;
        }
    }
    L.size = 1;
    for (int i = L.D - 1; i >= 0; i--) {
        L.stride[i] = L.size;
        L.size *= L.cap[i] + 1;
        if (L.size > RC_MAX_SIZE) {
            result = Py_None;
            Py_INCREF(result);
            goto done;
        }
    }
    /* Each family's options; how many origin tuples there are. */
    Py_ssize_t total_combos = 0, total_stored = 0;
    for (Py_ssize_t f = 0; f < n_fam; f++) {
        Py_ssize_t combos = 1;
        int n_free_f = 0;
        for (int i = 0; i < 4; i++) {
            uint64_t m = mask[4 * f + i];
            if (m & (m - 1)) m &= room, n_free_f++;
            if (!m) goto counted;
            combos *= __builtin_popcountll(m);
        }
        PyObject *coded = PyList_GET_ITEM(coded_obj, f);
        Py_ssize_t n_cl = PyList_Check(coded) ? PyList_GET_SIZE(coded) : -1;
        Py_ssize_t n_set = PyObject_Size(PyList_GET_ITEM(sets_obj, f));
        if (n_set < 0) goto done;
        if (combos > RC_MAX_COMBOS || n_cl != n_set || n_cl > 64 * RC_WORDS) {
            result = Py_None; /* large, or clauses edited by hand */
            Py_INCREF(result);
            goto done;
        }
        fams[f].family = (int)f;
        fams[f].wanted = want[f];
        fams[f].n_free = n_free_f;
        fams[f].n_combos = combos;
        total_combos += combos;
        if (want[f]) total_stored += combos;
    }
    if (total_combos > RC_MAX_TOTAL) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    /* One arena: per family its vectors and weights (as many as tuples, at most), the
     * stored tuples of the wanted ones. */
    size_t arena_size = (size_t)total_combos * (sizeof(int64_t) * (size_t)(L.D + 1)) +
                        (size_t)total_stored * (4 + sizeof(int32_t)) + 64;
    arena = malloc(arena_size);
    if (!arena) {
        PyErr_NoMemory();
        goto done;
    }
    {
        char *at = arena;
        for (Py_ssize_t f = 0; f < n_fam; f++) {
            Py_ssize_t combos = fams[f].n_combos;
            fams[f].vectors = (int64_t *)at, at += sizeof(int64_t) * (size_t)(combos * L.D);
            fams[f].weights = (int64_t *)at, at += sizeof(int64_t) * (size_t)combos;
        }
        for (Py_ssize_t f = 0; f < n_fam; f++)
            if (fams[f].wanted) {
                Py_ssize_t combos = fams[f].n_combos;
                fams[f].combo_group = (int32_t *)at, at += sizeof(int32_t) * (size_t)combos;
                fams[f].combo_slots = (uint8_t *)at, at += 4 * (size_t)combos;
            }
    }
    /* Each family's polynomial: the origin tuples that satisfy its clauses, grouped by
     * their use of the dimensions.  A clause's test is bit-parallel: per card and origin
     * the clauses it makes hit ("or", ignoring cards left out) and ("and", counting cards
     * left out as hits); some: or set; notall: and clear; allornone: and set or or clear. */
    int n_tables = 0;
    for (Py_ssize_t f = 0; f < n_fam; f++) {
        RcFamily *F = &fams[f];
        PyObject *coded = PyList_GET_ITEM(coded_obj, f);
        Py_ssize_t n_cl = PyList_GET_SIZE(coded);
        int nw = (int)((n_cl + 63) / 64);
        uint64_t some[RC_WORDS] = {0}, notall[RC_WORDS] = {0}, aon[RC_WORDS] = {0};
        int slots[4][64], n_opt[4];
        uint64_t hor[4][64][RC_WORDS], hand[4][64][RC_WORDS];
        for (int i = 0; i < 4; i++) {
            uint64_t m = mask[4 * f + i];
            if (m & (m - 1)) m &= room;
            n_opt[i] = 0;
            for (int s = 0; s < n_slots; s++)
                if (m >> s & 1) {
                    slots[i][n_opt[i]] = s;
                    for (int w = 0; w < nw; w++) hor[i][n_opt[i]][w] = hand[i][n_opt[i]][w] = 0;
                    n_opt[i]++;
                }
        }
        for (Py_ssize_t k = 0; k < n_cl; k++) {
            PyObject *clause = PyList_GET_ITEM(coded, k);
            if (!PyTuple_Check(clause) || PyTuple_GET_SIZE(clause) != 5) {
                PyErr_SetString(PyExc_ValueError, "recount: clauses are (kind, c0, c1, c2, c3)");
                goto done;
            }
            long kind = PyLong_AsLong(PyTuple_GET_ITEM(clause, 0));
            int w = (int)(k / 64);
            uint64_t bit = (uint64_t)1 << (k % 64);
            if (kind == 0)
                some[w] |= bit;
            else if (kind == 1)
                notall[w] |= bit;
            else if (kind == 2)
                aon[w] |= bit;
            else {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "recount: clause kinds are 0, 1 or 2");
                goto done;
            }
            for (int i = 0; i < 4; i++) {
                long long cond = PyLong_AsLongLong(PyTuple_GET_ITEM(clause, i + 1));
                if (cond == -1 && PyErr_Occurred()) goto done;
                for (int a = 0; a < n_opt[i]; a++) {
                    if (cond == -2) {
                        hand[i][a][w] |= bit; /* the clause ignores the card */
                    } else if ((unsigned long long)cond >> slots[i][a] & 1) {
                        hor[i][a][w] |= bit;
                        hand[i][a][w] |= bit;
                    }
                }
            }
        }
        /* The group of a tuple: the sorted dimensions its free cards use, packed. */
        int free_card[4];
        for (int i = 0; i < 4; i++) {
            uint64_t m = mask[4 * f + i];
            free_card[i] = (m & (m - 1)) != 0;
        }
        uint32_t keys[RC_MAX_COMBOS];
        Py_ssize_t m = 0, stored = 0;
        int o[4];
        for (o[0] = 0; o[0] < n_opt[0]; o[0]++)
            for (o[1] = 0; o[1] < n_opt[1]; o[1]++)
                for (o[2] = 0; o[2] < n_opt[2]; o[2]++)
                    for (o[3] = 0; o[3] < n_opt[3]; o[3]++) {
                        int ok = 1;
                        for (int w = 0; w < nw && ok; w++) {
                            uint64_t any = hor[0][o[0]][w] | hor[1][o[1]][w] | hor[2][o[2]][w] |
                                           hor[3][o[3]][w];
                            uint64_t all = hand[0][o[0]][w] & hand[1][o[1]][w] &
                                           hand[2][o[2]][w] & hand[3][o[3]][w];
                            if ((some[w] & ~any) || (notall[w] & all) || (aon[w] & any & ~all))
                                ok = 0;
                        }
                        if (!ok) continue;
                        int d[4], nd = 0;
                        for (int i = 0; i < 4; i++)
                            if (free_card[i] && dim_of[slots[i][o[i]]] >= 0)
                                d[nd++] = dim_of[slots[i][o[i]]] + 1;
                        for (int x = 1; x < nd; x++) /* insertion sort, at most 4 */
                            for (int y = x; y > 0 && d[y - 1] < d[y]; y--) {
                                int t = d[y];
                                d[y] = d[y - 1], d[y - 1] = t;
                            }
                        uint32_t key = 0;
                        for (int x = 0; x < nd; x++) key |= (uint32_t)d[x] << (6 * x);
                        Py_ssize_t j = 0;
                        while (j < m && keys[j] != key) j++;
                        if (j == m) {
                            keys[m] = key;
                            int64_t *v = F->vectors + m * L.D;
                            for (int i = 0; i < L.D; i++) v[i] = 0;
                            for (int x = 0; x < nd; x++) v[d[x] - 1]++;
                            F->weights[m] = 0;
                            m++;
                        }
                        F->weights[j]++;
                        if (F->wanted) {
                            F->combo_group[stored] = (int32_t)j;
                            for (int i = 0; i < 4; i++) F->combo_slots[4 * stored + i] = (uint8_t)slots[i][o[i]];
                            stored++;
                        }
                    }
        if (m == 0) goto counted; /* no assignment satisfies the clauses */
        F->m = m;
        F->n_combos = stored;
        if (F->n_free) n_tables++;
    }
    /* The programme: the tables of the unwanted families first, the wanted last, so the
     * backward products stop at the first wanted one. */
    order = malloc(sizeof(int) * (size_t)(n_tables + 1));
    polys = calloc((size_t)n_tables + 1, sizeof(Poly));
    fbox = calloc((size_t)n_tables + 1, sizeof(Box));
    bbox = calloc((size_t)n_tables + 1, sizeof(Box));
    forward = malloc(sizeof(uint64_t) * (size_t)L.size * (size_t)(n_tables + 1));
    backward = malloc(sizeof(uint64_t) * (size_t)L.size * (size_t)(n_tables + 1));
    Py_ssize_t max_m = 1;
    for (Py_ssize_t f = 0; f < n_fam; f++) max_m = fams[f].m > max_m ? fams[f].m : max_m;
    rest = malloc(sizeof(uint64_t) * (size_t)max_m);
    if (!order || !polys || !fbox || !bbox || !forward || !backward || !rest) {
        PyErr_NoMemory();
        goto done;
    }
    int n_order = 0, first_wanted = n_tables;
    for (int pass = 0; pass < 2; pass++)
        for (Py_ssize_t f = 0; f < n_fam; f++)
            if (fams[f].n_free && fams[f].wanted == pass) {
                if (pass && first_wanted == n_tables) first_wanted = n_order;
                order[n_order] = (int)f;
                polys[n_order].m = fams[f].m;
                polys[n_order].vectors = fams[f].vectors;
                polys[n_order].weights = fams[f].weights;
                poly_bounds(&L, &polys[n_order]);
                n_order++;
            }
    set_boxes(&L, polys, n_tables, fbox, bbox);
#define FWD(i) (forward + (size_t)L.size * (size_t)(i))
#define BWD(i) (backward + (size_t)L.size * (size_t)(i))
    memset(FWD(0), 0, sizeof(uint64_t) * (size_t)L.size);
    FWD(0)[0] = 1;
    for (int t = 0; t < n_tables; t++) k64_multiply(&L, FWD(t), &fbox[t], &polys[t], FWD(t + 1), &fbox[t + 1]);
    count = FWD(n_tables)[L.size - 1];
    if (count == 0) goto counted;
    memset(BWD(n_tables), 0, sizeof(uint64_t) * (size_t)L.size);
    BWD(n_tables)[0] = 1;
    for (int t = n_tables - 1; t > first_wanted; t--)
        k64_multiply(&L, BWD(t + 1), &bbox[t + 1], &polys[t], BWD(t), &bbox[t]);
    /* Per slot its owner's column (-1: nobody's hand). */
    int owner[64];
    for (Py_ssize_t s = 0; s < n_slots; s++) {
        PyObject *who = PyList_GET_ITEM(owner_obj, s);
        owner[s] = who == Py_None ? -1 : player_index(who, players_obj);
        if (owner[s] == -2) goto done;
    }
    /* The wanted families' cards: origin counts, then where they are now. */
    for (int t = 0; t <= n_tables; t++) {
        /* t < n_tables: the wanted table at position t; t == n_tables: the wanted
         * families without a table (every card fixed), all at once. */
        if (t < n_tables && t < first_wanted) continue;
        for (Py_ssize_t f = 0; f < n_fam; f++) {
            RcFamily *F = &fams[f];
            if (!F->wanted) continue;
            if (t < n_tables ? order[t] != f : F->n_free != 0) continue;
            uint64_t origins[4][64];
            memset(origins, 0, sizeof origins);
            if (t < n_tables) {
                k64_rest(&L, FWD(t), &fbox[t], BWD(t + 1), &bbox[t + 1], &polys[t], rest);
                for (Py_ssize_t x = 0; x < F->n_combos; x++) {
                    uint64_t r = rest[F->combo_group[x]];
                    const uint8_t *sl = F->combo_slots + 4 * x;
                    origins[0][sl[0]] += r, origins[1][sl[1]] += r;
                    origins[2][sl[2]] += r, origins[3][sl[3]] += r;
                }
            } else {
                for (int i = 0; i < 4; i++) origins[i][__builtin_ctzll(mask[4 * f + i])] = count;
            }
            for (int i = 0; i < 4; i++) {
                Py_ssize_t c = 4 * f + i;
                double *row = probabilities + c * n_players;
                PyObject *where = PyList_GET_ITEM(loc_obj, c);
                if (where != Py_None) {
                    int p = player_index(where, players_obj);
                    if (p == -2) goto done;
                    for (Py_ssize_t q = 0; q < n_players; q++) row[q] = q == p ? 1.0 : 0.0;
                    continue;
                }
                uint64_t held[64];
                for (Py_ssize_t q = 0; q < n_players; q++) held[q] = 0;
                for (Py_ssize_t s = 0; s < n_slots; s++)
                    if (owner[s] >= 0) held[owner[s]] += origins[i][s];
                for (Py_ssize_t q = 0; q < n_players; q++) row[q] = exact_quotient(held[q], count);
            }
            if (t < n_tables) break;
        }
    }
#undef FWD
#undef BWD
counted:
    result = PyLong_FromUnsignedLongLong(count);
done:
    Py_XDECREF(iter);
    if (out.held) PyBuffer_Release(&out.view);
    free(mask);
    free(want);
    free(fams);
    free(arena);
    free(order);
    free(polys);
    free(fbox);
    free(bbox);
    free(forward);
    free(backward);
    free(rest);
    return result;
}

/* ----- Ryser's formula: a count as a signed sum over evaluation points ------------- *
 *
 * Label the places of every slot (cap_v of them).  A world with its places labelled is
 * a bijection from the free cards onto the places, and Ryser's formula counts those by
 * inclusion-exclusion over sets S of places: the sum over S of (-1)^(N - |S|) times the
 * product over the cards of how many places of S each may take.  The places of a slot
 * are alike, so S matters only through how many of each slot's places it holds (s_v,
 * from 0 to cap_v, in C(cap_v, s_v) ways), and a family's factored form gives its
 * factor at once: g_F(s) = the sum over its rows of coeff times the product over its
 * free cards of the sum of s_v over the card's mask.  So
 *
 *     Y = sum over s of prod_v (-1)^(cap_v - s_v) C(cap_v, s_v) * prod_F g_F(s)
 *
 * is the number of worlds times prod_v cap_v! (the caller divides).  There are no
 * tables: one product of the family factors per point, and there are prod_v (cap_v + 1)
 * points (the dense tables' entries times one more than the implied slot's capacity).
 * Where the dense programme multiplies a family in with a pass over its table for each
 * slot of each card's linear form (hundreds of passes a family after many draws), a
 * point takes one lookup a family.
 *
 * The slots of capacity 1 (draws: "bits") are enumerated innermost.  A family's factor
 * depends on them only through how many bits of each of its classes S holds (bits that
 * every mask of its rows holds alike form a class), so at each point of the other slots
 * ("outer") each family's factor is first tabulated over its classes' counts (a few
 * hundred entries), and the inner loop looks it up at the sum of a low half's and a
 * high half's offset.  g_F(s) counts maps of the family's free cards into S, so the
 * tabulated factors are small non-negative integers; the sum is modulo 2^64 or 2^128,
 * exact for the caller's bound as in the programme, or modulo an odd P (Montgomery
 * arithmetic: the caller joins several primes' residues).
 */

/* With owners, the same sum gives each free card's location counts: the worlds in
 * which the card is with each owner are the sum with the card's linear form narrowed to
 * the owner's slots, and everything else the same.  So for each family the inner loop
 * also sums, at each point of the family's grid, the other families' product (prefix
 * and suffix products over the groups, then within each group: the family's "rest");
 * the family's factor with a card's linear form narrowed to one owner's places (bits of
 * different owners are never alike) is tabulated over the grid like the factor itself,
 * and the card's sum for that owner is the rest dotted with it.
 */

#define RY_MAXBITS 40
#define RY_MAX_GRID ((int64_t)1 << 24) /* a family's table: at most this many entries */
#define RY_MAX_PLACES 255                /* so that a family's factor is below 2^32 */

typedef struct {
    int free;            /* free cards (bit k: card k) */
    Py_ssize_t m;        /* rows */
    const int64_t *rows; /* m * 5: coeff, mask0..mask3 over slot positions */
    int n_classes;
    int class_of[62]; /* each bit's class */
    int size[62];     /* each class's bits */
    int64_t grid;     /* entries of its table: the product over classes of (size + 1) */
    uint8_t *dcount;  /* [m * 4][grid]: how many bits of S each row's card's mask holds */
    uint64_t *table;  /* [grid]: the factor at the current outer point */
    uint64_t *scratch; /* [grid]: where it is tabulated without a memo */
    /* The factor depends on the outer point only through the sums of s over its free
     * cards' masks (the masks' "patterns" over the outer slots); where those sums take
     * few values, each value's table is kept (memo) and looked up by the point. */
    int32_t *key_of_point; /* [points]: the index of the point's sums, or NULL: no memo */
    int64_t n_keys;
    uint64_t *memo;        /* [n_keys][grid] */
    uint8_t *state;        /* [n_keys]: 0 not yet tabulated, 1 tabulated, 2 tabulated zero */
    void *rest;       /* marginals: [grid], the other families' product summed there */
    uint8_t *downer;  /* marginals: [m * 4][n_owners][grid], dcount over one owner's bits */
    int owner_of_class[62];
} RyFamily;

/* Families whose classes are few together, multiplied into one table over the classes
 * of bits that all of them hold alike. */
typedef struct {
    int n_members;
    int member[62];
    int n_classes;
    int class_of[62];
    int size[62];
    int64_t grid;
    int32_t *map; /* [n_members][grid]: each member's table entry at each grid point */
    int32_t *hi;  /* the high half's bit sets' offsets into the table */
    void *table;  /* [grid] of the arithmetic's type: the members' product */
    void *rest;   /* marginals: [grid], the other groups' product summed there, signed */
} RyGroup;

/* The classes of the bits that two partitions (class_of arrays over n bits) both put
 * together: into class_of, their number returned, sizes into size. */
static int ry_refine(const int *a, const int *b, int n, int *class_of, int *size) {
    int n_classes = 0;
    for (int i = 0; i < n; i++) {
        class_of[i] = -1;
        for (int j = 0; j < i; j++)
            if (a[j] == a[i] && b[j] == b[i]) {
                class_of[i] = class_of[j];
                break;
            }
        if (class_of[i] < 0) {
            class_of[i] = n_classes;
            size[n_classes++] = 0;
        }
        size[class_of[i]]++;
    }
    return n_classes;
}

static int64_t ry_grid(const int *size, int n_classes) {
    int64_t grid = 1;
    for (int j = 0; j < n_classes; j++) grid *= size[j] + 1;
    return grid;
}

/* Offsets (into a family's table) of every subset of the bits first .. first + n - 1:
 * each bit adds its class's stride. */
static void ry_offsets(int32_t *out, Py_ssize_t step_out, const RyGroup *G, int first, int n) {
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        int64_t stride = 1;
        for (int j = 0; j < G->class_of[first + i]; j++) stride *= G->size[j] + 1;
        int64_t half = (int64_t)1 << i;
        for (int64_t x = 0; x < half; x++)
            out[(half + x) * step_out] = out[x * step_out] + (int32_t)stride;
    }
}

/* The arithmetic of the sums ("rings"): R##_T its type, R##_MUL, R##_ADD, R##_SUB, R##_ONE
 * and R##_NEG_ONE; R##_RAW(x, z) is x times z where z is an integer below 2^32 taken as
 * it is (in the Montgomery ring: x's residue times z, a plain residue), R##_WEIGHT the
 * point's weight in the ring.  W64 and W128 wrap modulo 2^64 and 2^128; MODP is modulo
 * an odd P < 2^62 with every value in Montgomery form (x R mod P, R = 2^64). */
#define W64_T uint64_t
#define W64_MUL(x, y) ((x) * (y))
#define W64_ADD(x, y) ((x) + (y))
#define W64_SUB(x, y) ((x) - (y))
#define W64_ONE ((uint64_t)1)
#define W64_NEG_ONE ((uint64_t)0 - 1)
#define W64_RAW(x, z) ((x) * (uint64_t)(z))
#define W64_WEIGHT ((uint64_t)weight)
#define W128_T u128
#define W128_MUL(x, y) ((x) * (y))
#define W128_ADD(x, y) ((x) + (y))
#define W128_SUB(x, y) ((x) - (y))
#define W128_ONE ((u128)1)
#define W128_NEG_ONE ((u128)0 - 1)
#define W128_RAW(x, z) ((x) * (u128)(z))
#define W128_WEIGHT weight
#define MODP_T uint64_t
#define MODP_MUL(x, y) mont_mul((x), (y), mont.P, mont.neg_inv)
#define MODP_ADD(x, y) add_mod((x), (y), mont.P)
#define MODP_SUB(x, y) sub_mod((x), (y), mont.P)
#define MODP_ONE mont.one
#define MODP_NEG_ONE (mont.P - mont.one)
#define MODP_RAW(x, z) mont_mul((x), (uint64_t)(z), mont.P, mont.neg_inv)
#define MODP_WEIGHT weight_mod

/* The inner sum at one outer point in ring R, times the weight, added to acc. */
#define RY_INNER(R, acc)                                                                     \
    do {                                                                                     \
        R##_T total = 0;                                                                     \
        for (int64_t xh = 0; xh < n_hi; xh++) {                                              \
            const R##_T *base[62];                                                           \
            for (int q = 0; q < n_groups; q++)                                               \
                base[q] = (const R##_T *)groups[q].table + groups[q].hi[xh];                 \
            R##_T even = 0, odd = 0;                                                         \
            const int32_t *off = lo_offsets;                                                 \
            for (int64_t i = 0; i < n_lo_sets; i++, off += n_groups) {                       \
                R##_T p = base[0][off[0]];                                                   \
                for (int q = 1; q < n_groups; q++) p = R##_MUL(p, base[q][off[q]]);          \
                if (i < n_lo_even) even = R##_ADD(even, p);                                  \
                else odd = R##_ADD(odd, p);                                                  \
            }                                                                                \
            /* the sign (-1)^(n_bits - |x|) */                                               \
            total = R##_ADD(total, (hi_parity[xh] ^ (n_bits & 1)) ? R##_SUB(odd, even)       \
                                                                  : R##_SUB(even, odd));     \
        }                                                                                    \
        acc = R##_ADD(acc, R##_MUL(R##_WEIGHT, total));                                      \
    } while (0)

/* The same with each group's rest summed at its grid points (the sign folded in). */
#define RY_MARGINAL(R, acc)                                                                  \
    do {                                                                                     \
        for (int q = 0; q < n_groups; q++) memset(groups[q].rest, 0, (size_t)groups[q].grid * sizeof(R##_T)); \
        R##_T total = 0;                                                                     \
        for (int64_t xh = 0; xh < n_hi; xh++) {                                              \
            const R##_T *base[62];                                                           \
            R##_T *rest[62];                                                                 \
            for (int q = 0; q < n_groups; q++) {                                             \
                base[q] = (const R##_T *)groups[q].table + groups[q].hi[xh];                 \
                rest[q] = (R##_T *)groups[q].rest + groups[q].hi[xh];                        \
            }                                                                                \
            int flip = hi_parity[xh] ^ (n_bits & 1);                                         \
            const int32_t *off = lo_offsets;                                                 \
            for (int64_t i = 0; i < n_lo_sets; i++, off += n_groups) {                       \
                R##_T pre[63];                                                               \
                pre[0] = R##_ONE;                                                            \
                for (int q = 0; q < n_groups; q++) pre[q + 1] = R##_MUL(pre[q], base[q][off[q]]); \
                R##_T suffix = (flip ^ (i >= n_lo_even)) ? R##_NEG_ONE : R##_ONE;            \
                for (int q = n_groups - 1; q >= 0; q--) {                                    \
                    rest[q][off[q]] = R##_ADD(rest[q][off[q]], R##_MUL(pre[q], suffix));     \
                    suffix = R##_MUL(suffix, base[q][off[q]]);                               \
                }                                                                            \
                total = R##_ADD(total, suffix); /* the sign times the whole product */       \
            }                                                                                \
        }                                                                                    \
        acc = R##_ADD(acc, R##_MUL(R##_WEIGHT, total));                                      \
    } while (0)

/* Each family's rest: its group's, times the group's other members, at the family's
 * own grid points. */
#define RY_FAMILY_REST(R)                                                                    \
    do {                                                                                     \
        const R##_T *group_rest = G->rest;                                                   \
        for (int k = 0; k < G->n_members; k++) {                                             \
            RyFamily *F = &fams[G->member[k]];                                               \
            R##_T *own = F->rest;                                                            \
            memset(own, 0, (size_t)F->grid * sizeof(R##_T));                                 \
            const int32_t *map = G->map + k * G->grid;                                       \
            for (int64_t g = 0; g < G->grid; g++) {                                          \
                R##_T v = group_rest[g];                                                     \
                for (int k2 = 0; k2 < G->n_members; k2++)                                    \
                    if (k2 != k) v = R##_MUL(v, fams[G->member[k2]].table[G->map[k2 * G->grid + g]]); \
                own[map[g]] = R##_ADD(own[map[g]], v);                                       \
            }                                                                                \
        }                                                                                    \
    } while (0)

/* Each free card's sums by owner at this outer point, times its weight, into found: for
 * each owner p, the family's factor with the card's linear form narrowed to p's places,
 * tabulated (below 2^32 as the factor is) and dotted with the family's rest.  found is
 * u128 whatever the ring (modulo P: residues, out of Montgomery form). */
#define RY_CARD_SUMS(R)                                                                      \
    do {                                                                                     \
        const R##_T *own = F->rest;                                                          \
        for (int c = 0; c < 4; c++) {                                                        \
            if (!(F->free >> c & 1)) continue;                                               \
            memset(narrowed, 0, (size_t)(n_owners * F->grid) * sizeof(uint32_t));           \
            for (Py_ssize_t r = 0; r < F->m; r++) {                                          \
                const int64_t *row = F->rows + 5 * r;                                        \
                const uint8_t *d[4] = {0};                                                   \
                uint32_t a[4] = {0};                                                         \
                int n = 0;                                                                   \
                for (int k = 0; k < 4; k++) {                                                \
                    if (k == c || !(F->free >> k & 1)) continue;                             \
                    uint32_t sum = 0;                                                        \
                    for (int o = 0; o < n_outer; o++)                                        \
                        if ((uint64_t)row[1 + k] >> outer[o] & 1) sum += (uint32_t)s[o];     \
                    a[n] = sum;                                                              \
                    d[n++] = F->dcount + (r * 4 + k) * F->grid;                              \
                }                                                                            \
                memset(others, 0, (size_t)F->grid * sizeof(uint32_t));                       \
                ry_tabulate(others, F->grid, (uint32_t)row[0], a, d, n);                     \
                uint64_t mask = (uint64_t)row[1 + c];                                        \
                for (int p = 0; p < n_owners; p++) {                                         \
                    uint32_t at = 0;                                                         \
                    for (int o = 0; o < n_outer; o++)                                        \
                        if ((mask >> outer[o] & 1) && owner[outer[o]] == p) at += (uint32_t)s[o]; \
                    const uint8_t *dp = F->downer + ((r * 4 + c) * n_owners + p) * F->grid;  \
                    ry_narrow(narrowed + p * F->grid, others, at, dp, F->grid);              \
                }                                                                            \
            }                                                                                \
            u128 *into = found + ((int64_t)f * 4 + c) * n_owners;                            \
            for (int p = 0; p < n_owners; p++) {                                             \
                const uint32_t *z = narrowed + p * F->grid;                                  \
                R##_T total = 0;                                                             \
                for (int64_t g = 0; g < F->grid; g++) total = R##_ADD(total, R##_RAW(own[g], z[g])); \
                if (modulus)                                                                 \
                    into[p] = add_mod((uint64_t)into[p], mont_mul(weight_mod, (uint64_t)total, \
                                                                  mont.P, mont.neg_inv), mont.P); \
                else                                                                         \
                    into[p] += weight * (u128)total;                                         \
            }                                                                                \
        }                                                                                    \
    } while (0)

/* A group's table: the product of its members' tables at every grid point. */
#define RY_GROUP_TABLE(R)                                                                    \
    do {                                                                                     \
        R##_T *t = G->table;                                                                 \
        const uint64_t *first = fams[G->member[0]].table;                                    \
        for (int64_t g = 0; g < G->grid; g++) t[g] = first[G->map[g]];                       \
        for (int k = 1; k < G->n_members; k++) {                                             \
            const uint64_t *other = fams[G->member[k]].table;                                \
            const int32_t *map = G->map + k * G->grid;                                       \
            for (int64_t g = 0; g < G->grid; g++) t[g] = R##_MUL(t[g], other[map[g]]);      \
        }                                                                                    \
    } while (0)

/* A family's factor at every point of its grid, one row's term added: coeff times the
 * product over the row's n free cards of (a + d[g]), modulo 2^32 (the caller's factors,
 * counts of maps of at most 4 cards into at most RY_MAX_PLACES places, are below it).
 * Compiled also for AVX2 where the compiler can choose at run time. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
static void ry_tabulate(uint32_t *restrict t, int64_t grid, uint32_t coeff, const uint32_t *a,
                        const uint8_t *const *d, int n) {
    const uint8_t *d0 = d[0], *d1 = d[1], *d2 = d[2], *d3 = d[3];
    uint32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    switch (n) {
    case 4:
        for (int64_t g = 0; g < grid; g++)
            t[g] += coeff * (a0 + d0[g]) * (a1 + d1[g]) * (a2 + d2[g]) * (a3 + d3[g]);
        break;
    case 3:
        for (int64_t g = 0; g < grid; g++) t[g] += coeff * (a0 + d0[g]) * (a1 + d1[g]) * (a2 + d2[g]);
        break;
    case 2:
        for (int64_t g = 0; g < grid; g++) t[g] += coeff * (a0 + d0[g]) * (a1 + d1[g]);
        break;
    case 1:
        for (int64_t g = 0; g < grid; g++) t[g] += coeff * (a0 + d0[g]);
        break;
    default:
        for (int64_t g = 0; g < grid; g++) t[g] += coeff;
    }
}

/* t[g] += others[g] * (at + d[g]) modulo 2^32: a row's term with its card narrowed to
 * one owner's places (at of them in the outer slots, d[g] among the bits). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
static void ry_narrow(uint32_t *restrict t, const uint32_t *restrict others, uint32_t at,
                      const uint8_t *restrict d, int64_t grid) {
    for (int64_t g = 0; g < grid; g++) t[g] += others[g] * (at + d[g]);
}

/* d[g]: how many bits of the classes held (held[j] != 0) S has at grid point g (the
 * first class's count varies fastest), at most RY_MAXBITS. */
static void ry_class_counts(uint8_t *d, const int *held, const RyFamily *F) {
    int64_t c[62] = {0}, sum = 0;
    for (int64_t g = 0; g < F->grid; g++) {
        d[g] = (uint8_t)sum;
        for (int j = 0; j < F->n_classes; j++) {
            if (c[j] < F->size[j]) {
                c[j]++;
                sum += held[j];
                break;
            }
            sum -= held[j] * c[j];
            c[j] = 0;
        }
    }
}

#define RY_MEMO_POINTS ((int64_t)1 << 22)  /* outer points at most, for memos */
#define RY_MEMO_BYTES ((int64_t)1 << 23)   /* a family's memo: at most this many bytes */

/* The family's memo index of every outer point (in the main loop's order: the first
 * outer slot's count varies fastest), into F->key_of_point, and F->n_keys; no memo
 * (key_of_point NULL) where the sums take nearly as many values as there are points or
 * their tables would take more than RY_MEMO_BYTES.  Returns -1 on no memory. */
static int ry_memo_keys(RyFamily *F, const int64_t *cap, const int *outer, int n_outer,
                        int64_t n_points) {
    F->key_of_point = NULL;
    F->n_keys = n_points;
    uint64_t patterns[64];
    int n_pat = 0;
    for (Py_ssize_t r = 0; r < F->m; r++)
        for (int k = 0; k < 4; k++) {
            if (!(F->free >> k & 1)) continue;
            uint64_t mask = (uint64_t)F->rows[5 * r + 1 + k], pattern = 0;
            for (int o = 0; o < n_outer; o++) pattern |= (mask >> outer[o] & 1) << o;
            int p = 0;
            while (p < n_pat && patterns[p] != pattern) p++;
            if (p == n_pat) {
                if (n_pat == 64) return 0;
                patterns[n_pat++] = pattern;
            }
        }
    /* The sums packed into one number: each in its own radix. */
    uint64_t radix[64], space = 1;
    for (int p = 0; p < n_pat; p++) {
        uint64_t most = 0;
        for (int o = 0; o < n_outer; o++)
            if (patterns[p] >> o & 1) most += (uint64_t)cap[outer[o]];
        radix[p] = space;
        if (space > ((uint64_t)1 << 62) / (most + 1)) return 0;
        space *= most + 1;
    }
    int64_t size = 1;
    while (size < 2 * n_points) size *= 2;
    uint64_t *keys = calloc((size_t)size, sizeof(uint64_t));
    int32_t *index = malloc((size_t)size * sizeof(int32_t));
    int32_t *of_point = malloc((size_t)n_points * sizeof(int32_t));
    if (!keys || !index || !of_point) {
        free(keys), free(index), free(of_point);
        return -1;
    }
    int64_t s[62] = {0}, n_keys = 0;
    for (int64_t point = 0; point < n_points; point++) {
        uint64_t key = 1; /* 0: an empty place of the hash */
        for (int p = 0; p < n_pat; p++) {
            uint64_t sum = 0;
            for (int o = 0; o < n_outer; o++)
                if (patterns[p] >> o & 1) sum += (uint64_t)s[o];
            key += sum * radix[p];
        }
        uint64_t h = (key * 0x9E3779B97F4A7C15ULL) >> 11;
        for (;; h++) {
            uint64_t *place = keys + (h & (uint64_t)(size - 1));
            if (*place == key) break;
            if (!*place) {
                *place = key;
                index[h & (uint64_t)(size - 1)] = (int32_t)n_keys++;
                break;
            }
        }
        of_point[point] = index[h & (uint64_t)(size - 1)];
        int o = 0;
        while (o < n_outer && s[o] == cap[outer[o]]) s[o++] = 0;
        if (o < n_outer) s[o]++;
    }
    free(keys), free(index);
    if (4 * n_keys > 3 * n_points || (double)n_keys * (double)F->grid * 8 > (double)RY_MEMO_BYTES) {
        free(of_point);
        return 0;
    }
    F->key_of_point = of_point;
    F->n_keys = n_keys;
    return 0;
}

/* ryser(cap, families, wide, budget[, owners, out, memory, modulus]): Y above, modulo
 * 2^128 if wide else 2^64, or modulo an odd modulus from 3 to 2^62 if one is given
 * (then wide is not read), or None where the work (lookups and tabulation steps) would
 * exceed budget or the memory it takes (its tables) more than memory bytes (if given and
 * not negative).  With a negative budget, only that work, known before any of it is
 * done (None where the formula does not apply or the memory is above the limit).  With
 * owners (each slot's owner, 0 to n - 1, or -1 for none) and out (n_families * 4 * n
 * 64-bit items, twice that when wide: the low words, then the high words; its length
 * gives n), out[(f * 4 + c) * n + p] receives the same sum over the worlds with card c
 * of family f (if free) with owner p. */
static PyObject *ryser(PyObject *self, PyObject *args) {
    PyObject *cap_obj, *fam_obj, *owners_obj = Py_None, *out_obj = Py_None;
    int wide;
    long long budget, memory = -1;
    unsigned long long modulus = 0;
    if (!PyArg_ParseTuple(args, "O!O!pL|OOLK", &PyTuple_Type, &cap_obj, &PyList_Type, &fam_obj,
                          &wide, &budget, &owners_obj, &out_obj, &memory, &modulus))
        return NULL;
    if (modulus && (!(modulus & 1) || modulus >> 62 || modulus < 3)) {
        PyErr_SetString(PyExc_ValueError, "ryser: the modulus must be odd, from 3 to 2^62");
        return NULL;
    }
    if (modulus) wide = 0;
    Mont mont = mont_of(modulus ? modulus : 3);
    uint64_t weight_mod = 0;
    int marginals = owners_obj != Py_None;
    Py_ssize_t n_slots = PyTuple_GET_SIZE(cap_obj);
    int n_fams = (int)PyList_GET_SIZE(fam_obj);
    if (n_slots < 1 || n_slots > 62 || n_fams < 1 || n_fams > 62) {
        PyErr_SetString(PyExc_ValueError, "ryser: expected 1 to 62 slots and 1 to 62 families");
        return NULL;
    }
    int64_t cap[62];
    int bit[62], outer[62], n_bits = 0, n_outer = 0;
    for (Py_ssize_t v = 0; v < n_slots; v++) {
        cap[v] = PyLong_AsLongLong(PyTuple_GET_ITEM(cap_obj, v));
        if (cap[v] < 1 || cap[v] > 62) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "ryser: capacities 1 to 62");
            return NULL;
        }
        if (cap[v] == 1) bit[n_bits++] = (int)v;
        else outer[n_outer++] = (int)v;
    }
    int owner[62], n_owners = 0;
    for (Py_ssize_t v = 0; v < n_slots; v++) owner[v] = -1;
    if (marginals) {
        if (!PyTuple_Check(owners_obj) || PyTuple_GET_SIZE(owners_obj) != n_slots) {
            PyErr_SetString(PyExc_ValueError, "ryser: owners, one per slot");
            return NULL;
        }
        for (Py_ssize_t v = 0; v < n_slots; v++) {
            long value = PyLong_AsLong(PyTuple_GET_ITEM(owners_obj, v));
            if (value < -1 || value >= 62) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "ryser: owners -1 to 61");
                return NULL;
            }
            owner[v] = (int)value;
            if (value + 1 > n_owners) n_owners = (int)value + 1;
        }
        if (n_owners == 0) n_owners = 1;
    }
    int64_t places = 0;
    for (Py_ssize_t v = 0; v < n_slots; v++) places += cap[v];
    if (n_bits > RY_MAXBITS || places > RY_MAX_PLACES) Py_RETURN_NONE;
    int n_lo = n_bits / 2, n_hi_bits = n_bits - n_lo;
    int64_t n_lo_sets = (int64_t)1 << n_lo, n_hi = (int64_t)1 << n_hi_bits;
    int64_t n_sets = n_lo_sets * n_hi;
    double n_points = 1; /* of the outer slots */
    for (int o = 0; o < n_outer; o++) n_points *= (double)(cap[outer[o]] + 1);
    size_t entry = wide ? sizeof(u128) : sizeof(uint64_t); /* modulo P: 64 bits */
    PyObject *result = NULL;
    Buf bufs[62];
    memset(bufs, 0, sizeof bufs);
    RyFamily *fams = calloc((size_t)n_fams, sizeof(RyFamily));
    RyGroup *groups = calloc((size_t)n_fams, sizeof(RyGroup));
    int n_groups = 0;
    int32_t *lo_offsets = NULL;
    uint8_t *hi_parity = NULL;
    u128 *found = NULL;
    uint32_t *sum32 = NULL; /* a family's factor as it is tabulated */
    uint32_t *others = NULL, *narrowed = NULL; /* marginals: a card's narrowed factors */
    Buf out;
    out.held = 0;
    int64_t n_lo_even = 0;
    if (marginals) {
        /* out's length gives the number of owners (at least those named) */
        Py_ssize_t per_owner = (Py_ssize_t)n_fams * 4 * (wide ? 2 : 1);
        if (get_buffer(out_obj, &out, 1, per_owner * n_owners, "out") < 0) goto done;
        if ((out.view.len / 8) % per_owner) {
            PyErr_SetString(PyExc_ValueError,
                             "out: expected n_families * 4 * n_owners items, twice that when wide");
            goto done;
        }
        n_owners = (int)(out.view.len / 8 / per_owner);
        found = calloc((size_t)n_fams * 4 * (size_t)n_owners, sizeof(u128));
        if (!found) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (!fams || !groups) {
        PyErr_NoMemory();
        goto done;
    }
    /* Each family's rows and classes of alike bits, and the work, before anything large. */
    double work = 0;
    for (int f = 0; f < n_fams; f++) {
        PyObject *item = PyList_GET_ITEM(fam_obj, f);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_ValueError, "ryser: each family is (free, rows)");
            goto done;
        }
        RyFamily *F = &fams[f];
        F->free = (int)PyLong_AsLong(PyTuple_GET_ITEM(item, 0)) & 15;
        if (PyErr_Occurred()) goto done;
        if (get_buffer(PyTuple_GET_ITEM(item, 1), &bufs[f], 0, 0, "rows") < 0) goto done;
        F->m = bufs[f].view.len / 40;
        F->rows = bufs[f].view.buf;
        F->n_classes = 0;
        for (int i = 0; i < n_bits; i++) {
            F->class_of[i] = -1;
            for (int j = 0; j < i && F->class_of[i] < 0; j++) {
                int same = owner[bit[i]] == owner[bit[j]]; /* always, without owners */
                for (Py_ssize_t r = 0; r < F->m && same; r++)
                    for (int k = 0; k < 4; k++) {
                        uint64_t mask = (uint64_t)F->rows[5 * r + 1 + k];
                        if ((F->free >> k & 1) && ((mask >> bit[i] ^ mask >> bit[j]) & 1)) same = 0;
                    }
                if (same) F->class_of[i] = F->class_of[j];
            }
            if (F->class_of[i] < 0) {
                F->class_of[i] = F->n_classes;
                F->size[F->n_classes++] = 0;
            }
            F->size[F->class_of[i]]++;
        }
        for (int i = 0; i < n_bits; i++) F->owner_of_class[F->class_of[i]] = owner[bit[i]];
        F->grid = ry_grid(F->size, F->n_classes);
        if (F->grid > RY_MAX_GRID) {
            result = Py_None;
            goto done;
        }
        int cards = __builtin_popcount((unsigned)F->free);
        if (n_points <= (double)RY_MEMO_POINTS &&
            ry_memo_keys(F, cap, outer, n_outer, (int64_t)n_points) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        /* the tabulations: one a point, or one a memo entry */
        work += (F->key_of_point ? (double)F->n_keys : n_points) * (double)F->grid *
                (double)F->m * (cards + 1);
        if (marginals) /* each card's factor narrowed to each owner, and its dot product */
            work += n_points * (double)F->grid * cards * ((double)F->m * (cards + n_owners) + 2 * n_owners);
        RyGroup *G = &groups[n_groups++];
        G->n_members = 1;
        G->member[0] = f;
        G->n_classes = F->n_classes;
        memcpy(G->class_of, F->class_of, sizeof G->class_of);
        memcpy(G->size, F->size, sizeof G->size);
        G->grid = F->grid;
    }
    /* Merge groups while a merged table costs less than the lookups it saves: a lookup
     * per group and bit set at every outer point, against the merged grid's products. */
    for (;;) {
        int best_a = -1, best_b = -1, best_classes = 0;
        int64_t best_grid = n_sets + 1;
        int class_of[62], size[62];
        for (int a = 0; a < n_groups; a++)
            for (int b = a + 1; b < n_groups; b++) {
                int n = ry_refine(groups[a].class_of, groups[b].class_of, n_bits, class_of, size);
                int64_t grid = ry_grid(size, n);
                int64_t members = groups[a].n_members + groups[b].n_members;
                if (grid * members < best_grid && grid <= RY_MAX_GRID) {
                    best_grid = grid * members;
                    best_a = a, best_b = b, best_classes = n;
                }
            }
        if (best_a < 0) break;
        RyGroup *A = &groups[best_a], *B = &groups[best_b];
        best_classes = ry_refine(A->class_of, B->class_of, n_bits, class_of, size);
        memcpy(A->class_of, class_of, sizeof class_of);
        memcpy(A->size, size, sizeof size);
        A->n_classes = best_classes;
        A->grid = ry_grid(size, best_classes);
        for (int k = 0; k < B->n_members; k++) A->member[A->n_members++] = B->member[k];
        groups[best_b] = groups[--n_groups];
    }
    for (int q = 0; q < n_groups; q++)
        work += n_points * (double)groups[q].grid * groups[q].n_members *
                (marginals ? groups[q].n_members + 1 : 1);
    work += n_points * (double)n_sets * n_groups * (marginals ? 4 : 1);
    /* The memory it takes (what the analysis took so far included). */
    double need = (double)((n_lo_sets + 1) * n_groups) * 4 + (double)n_hi;
    for (int f = 0; f < n_fams; f++) {
        const RyFamily *F = &fams[f];
        double grid = (double)F->grid, m = (double)F->m;
        need += grid * (8 + 4 + m * 4) + (F->key_of_point ? n_points * 4 : 0);
        if (F->key_of_point) need += (double)F->n_keys * (grid * 8 + 1);
        if (marginals) need += grid * (double)entry + m * 4 * n_owners * grid + grid * 4 * (n_owners + 1);
    }
    for (int q = 0; q < n_groups; q++)
        need += (double)groups[q].grid * ((double)entry * (marginals ? 2 : 1) + 4.0 * groups[q].n_members) +
                (double)n_hi * 4;
    if (memory >= 0 && need > (double)memory) {
        result = Py_None;
        goto done;
    }
    if (budget < 0) { /* only the work, as a whole number */
        result = PyLong_FromDouble(work);
        goto done;
    }
    if (work > (double)budget) {
        result = Py_None;
        goto done;
    }
    lo_offsets = malloc((size_t)(n_lo_sets * n_groups) * sizeof(int32_t));
    hi_parity = malloc((size_t)n_hi);
    if (!lo_offsets || !hi_parity) {
        PyErr_NoMemory();
        goto done;
    }
    for (int f = 0; f < n_fams; f++) {
        RyFamily *F = &fams[f];
        F->scratch = malloc((size_t)F->grid * sizeof(uint64_t));
        F->dcount = malloc((size_t)(F->m * 4 * F->grid));
        if (F->key_of_point) {
            F->memo = malloc((size_t)(F->n_keys * F->grid) * sizeof(uint64_t));
            F->state = calloc((size_t)F->n_keys, 1);
        }
        if (!F->scratch || !F->dcount || (F->key_of_point && (!F->memo || !F->state))) {
            PyErr_NoMemory();
            goto done;
        }
        if (marginals) {
            F->rest = malloc((size_t)F->grid * entry);
            F->downer = malloc((size_t)(F->m * 4 * n_owners * F->grid) + 1);
            if (!F->rest || !F->downer) {
                PyErr_NoMemory();
                goto done;
            }
        }
        /* How many bits of S each row's card's mask holds, at every point of the grid
         * (in the grid's order: the first class's count varies fastest). */
        for (Py_ssize_t r = 0; r < F->m; r++)
            for (int k = 0; k < 4; k++) {
                uint64_t mask = (uint64_t)F->rows[5 * r + 1 + k];
                int held[62] = {0};
                for (int i = 0; i < n_bits; i++)
                    if (mask >> bit[i] & 1) held[F->class_of[i]] = 1;
                ry_class_counts(F->dcount + (r * 4 + k) * F->grid, held, F);
                /* the same over each owner's bits */
                for (int p = 0; marginals && p < n_owners; p++) {
                    int mine[62];
                    for (int j = 0; j < F->n_classes; j++)
                        mine[j] = held[j] && F->owner_of_class[j] == p;
                    ry_class_counts(F->downer + ((r * 4 + k) * n_owners + p) * F->grid, mine, F);
                }
            }
    }
    for (int q = 0; q < n_groups; q++) {
        RyGroup *G = &groups[q];
        G->table = malloc((size_t)G->grid * entry);
        G->hi = malloc((size_t)n_hi * sizeof(int32_t));
        G->map = malloc((size_t)(G->grid * G->n_members) * sizeof(int32_t));
        G->rest = marginals ? malloc((size_t)G->grid * entry) : NULL;
        if (!G->table || !G->hi || !G->map || (marginals && !G->rest)) {
            PyErr_NoMemory();
            goto done;
        }
        ry_offsets(lo_offsets + q, n_groups, G, 0, n_lo);
        ry_offsets(G->hi, 1, G, n_lo, n_hi_bits);
        /* Each member's entry at each grid point: a member's class holds whole classes
         * of the group's, so its count is theirs summed. */
        for (int k = 0; k < G->n_members; k++) {
            const RyFamily *F = &fams[G->member[k]];
            int64_t stride[62], step[62];
            for (int j = 0, s = 1; j < F->n_classes; j++) stride[j] = s, s *= F->size[j] + 1;
            for (int i = 0; i < n_bits; i++) step[G->class_of[i]] = stride[F->class_of[i]];
            int32_t *map = G->map + k * G->grid;
            int64_t c[62] = {0}, index = 0;
            for (int64_t g = 0; g < G->grid; g++) {
                map[g] = (int32_t)index;
                for (int j = 0; j < G->n_classes; j++) {
                    if (c[j] < G->size[j]) {
                        c[j]++;
                        index += step[j];
                        break;
                    }
                    index -= step[j] * c[j];
                    c[j] = 0;
                }
            }
        }
    }
    /* The low half's bit sets, their offsets reordered: the even sets first. */
    {
        int32_t *sorted = malloc((size_t)(n_lo_sets * n_groups) * sizeof(int32_t));
        if (!sorted) {
            PyErr_NoMemory();
            goto done;
        }
        int64_t k = 0;
        for (int parity = 0; parity < 2; parity++)
            for (int64_t x = 0; x < n_lo_sets; x++)
                if ((__builtin_popcountll((uint64_t)x) & 1) == parity) {
                    memcpy(sorted + k * n_groups, lo_offsets + x * n_groups,
                           (size_t)n_groups * sizeof(int32_t));
                    k++;
                    n_lo_even += !parity;
                }
        free(lo_offsets);
        lo_offsets = sorted;
    }
    for (int64_t x = 0; x < n_hi; x++) hi_parity[x] = __builtin_popcountll((uint64_t)x) & 1;
    {
        int64_t most = 1;
        for (int f = 0; f < n_fams; f++)
            if (fams[f].grid > most) most = fams[f].grid;
        sum32 = malloc((size_t)most * sizeof(uint32_t));
        if (marginals) {
            others = malloc((size_t)most * sizeof(uint32_t));
            narrowed = malloc((size_t)(most * n_owners) * sizeof(uint32_t));
        }
        if (!sum32 || (marginals && (!others || !narrowed))) {
            PyErr_NoMemory();
            goto done;
        }
    }
    uint64_t acc64 = 0, acc_mod = 0;
    u128 acc128 = 0;
    int64_t s[62] = {0}; /* the outer point: s[o] places of slot outer[o] */
    for (int64_t point = 0;; point++) {
        /* Its weight: the product over the outer slots of (-1)^(cap - s) C(cap, s). */
        u128 weight = 1;
        weight_mod = mont.one;
        for (int o = 0; o < n_outer; o++) {
            int64_t c = cap[outer[o]], k = s[o];
            u128 binom = 1; /* exact: at most C(62, 31) < 2^59 */
            for (int64_t i = 1; i <= k; i++) binom = binom * (u128)(c - k + i) / (u128)i;
            weight *= ((c - k) & 1) ? -binom : binom;
            if (modulus) {
                uint64_t b = to_mont((uint64_t)(binom % modulus), &mont);
                weight_mod = mont_mul(weight_mod, ((c - k) & 1) ? sub_mod(0, b, modulus) : b,
                                      modulus, mont.neg_inv);
            }
        }
        int zero = 0;
        for (int f = 0; f < n_fams && !zero; f++) {
            RyFamily *F = &fams[f];
            int64_t key = F->key_of_point ? F->key_of_point[point] : -1;
            if (key >= 0 && F->state[key]) {
                F->table = F->memo + key * F->grid;
                zero = F->state[key] == 2;
                continue;
            }
            uint64_t *t = key >= 0 ? F->memo + key * F->grid : F->scratch;
            F->table = t;
            memset(sum32, 0, (size_t)F->grid * sizeof(uint32_t));
            for (Py_ssize_t r = 0; r < F->m; r++) {
                const int64_t *row = F->rows + 5 * r;
                const uint8_t *d[4] = {0};
                uint32_t a[4] = {0};
                int n = 0;
                for (int k = 0; k < 4; k++) {
                    if (!(F->free >> k & 1)) continue;
                    uint32_t sum = 0;
                    for (int o = 0; o < n_outer; o++)
                        if ((uint64_t)row[1 + k] >> outer[o] & 1) sum += (uint32_t)s[o];
                    a[n] = sum;
                    d[n++] = F->dcount + (r * 4 + k) * F->grid;
                }
                ry_tabulate(sum32, F->grid, (uint32_t)row[0], a, d, n);
            }
            if (modulus)
                for (int64_t g = 0; g < F->grid; g++) t[g] = to_mont(sum32[g], &mont);
            else
                for (int64_t g = 0; g < F->grid; g++) t[g] = sum32[g];
            int64_t g = 0; /* zero as integers (modulo a small P a factor may vanish, not a
                            * card's narrowed one) */
            while (g < F->grid && !sum32[g]) g++;
            zero = g == F->grid;
            if (key >= 0) F->state[key] = zero ? 2 : 1;
        }
        if (!zero) {
            for (int q = 0; q < n_groups; q++) {
                RyGroup *G = &groups[q];
                if (modulus) RY_GROUP_TABLE(MODP);
                else if (wide) RY_GROUP_TABLE(W128);
                else RY_GROUP_TABLE(W64);
            }
            if (!marginals) {
                if (modulus) RY_INNER(MODP, acc_mod);
                else if (wide) RY_INNER(W128, acc128);
                else RY_INNER(W64, acc64);
            } else {
                if (modulus) RY_MARGINAL(MODP, acc_mod);
                else if (wide) RY_MARGINAL(W128, acc128);
                else RY_MARGINAL(W64, acc64);
                for (int q = 0; q < n_groups; q++) {
                    RyGroup *G = &groups[q];
                    if (modulus) RY_FAMILY_REST(MODP);
                    else if (wide) RY_FAMILY_REST(W128);
                    else RY_FAMILY_REST(W64);
                }
                for (int f = 0; f < n_fams; f++) {
                    RyFamily *F = &fams[f];
                    if (modulus) RY_CARD_SUMS(MODP);
                    else if (wide) RY_CARD_SUMS(W128);
                    else RY_CARD_SUMS(W64);
                }
            }
        }
        int o = 0; /* the next outer point */
        while (o < n_outer && s[o] == cap[outer[o]]) s[o++] = 0;
        if (o == n_outer) break;
        s[o]++;
    }
    if (marginals) {
        uint64_t *o = out.view.buf;
        Py_ssize_t n = (Py_ssize_t)n_fams * 4 * n_owners;
        for (Py_ssize_t i = 0; i < n; i++) {
            o[i] = (uint64_t)found[i];
            if (wide) o[n + i] = (uint64_t)(found[i] >> 64);
        }
    }
    if (modulus) result = PyLong_FromUnsignedLongLong(mont_reduce(acc_mod, modulus, mont.neg_inv));
    else result = wide ? u128_to_int(acc128) : PyLong_FromUnsignedLongLong(acc64);
done:
    if (result == Py_None) Py_INCREF(result);
    release(&out);
    free(found);
    free(sum32);
    free(others);
    free(narrowed);
    for (int f = 0; f < n_fams; f++) release(&bufs[f]);
    if (fams)
        for (int f = 0; f < n_fams; f++) {
            free(fams[f].dcount);
            free(fams[f].scratch);
            free(fams[f].key_of_point);
            free(fams[f].memo);
            free(fams[f].state);
            free(fams[f].rest);
            free(fams[f].downer);
        }
    if (groups)
        for (int q = 0; q < n_groups; q++) {
            free(groups[q].table);
            free(groups[q].hi);
            free(groups[q].map);
            free(groups[q].rest);
        }
    free(fams);
    free(groups);
    free(lo_offsets);
    free(hi_parity);
    return result;
}
#undef RY_INNER
#undef RY_MARGINAL
#undef W64_T
#undef W64_MUL
#undef W64_ADD
#undef W64_SUB
#undef W64_ONE
#undef W64_NEG_ONE
#undef W64_RAW
#undef W64_WEIGHT
#undef W128_T
#undef W128_MUL
#undef W128_ADD
#undef W128_SUB
#undef W128_ONE
#undef W128_NEG_ONE
#undef W128_RAW
#undef W128_WEIGHT
#undef MODP_T
#undef MODP_MUL
#undef MODP_ADD
#undef MODP_SUB
#undef MODP_ONE
#undef MODP_NEG_ONE
#undef MODP_RAW
#undef MODP_WEIGHT
#undef RY_FAMILY_REST
#undef RY_CARD_SUMS
#undef RY_GROUP_TABLE

/* ---- The search agent's weighted play-out (kwartet_epistemic.agents.search) -------------
 *
 * Playout.play with weighted=True (the `likeliest` rollout) on uint64 masks: decks of up to
 * 64 cards, up to PO_MAXP players.  It follows the Python reference step by step, so the
 * final scores are the same for every input: the same stock, draw, exposure and bonus-turn
 * logic, the same 10,000-step cap, and in the likeliest-yes choice the same groups of
 * cards split in the same order, their weights summed in the same order as doubles, the
 * same 1e-9 tolerances and the same tie ranking.  A weighted play-out draws no random
 * numbers (the likeliest-yes choice always finds a card), so none are needed here; where
 * it would find none (impossible when two players hold cards) the call returns None and
 * the caller runs the Python path.
 */

#define PO_MAXP 16
#define PO_STEPS 10000
#define PO_NIBBLES 0x1111111111111111ULL

typedef struct {
    uint64_t cards;     /* the wanted cards with these chances */
    int m;              /* members: (target, weight) in seat order */
    int t[PO_MAXP];
    double w[PO_MAXP];
    double total;       /* their weights summed in that order */
} PoGroup;

typedef struct {
    int t;
    uint64_t cards;
} PoChoice;

typedef struct {
    int n;
    PyObject **rank;    /* borrowed items of the rank sequence */
    Py_ssize_t rank_len;
} PoRank;

static int po_u64(PyObject *o, uint64_t *out, const char *name) {
    PyObject *index = PyNumber_Index(o);
    if (index == NULL) return -1;
    unsigned long long v = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_ValueError, "%s: expected masks of up to 64 bits", name);
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

static int po_int(PyObject *o, long long *out, const char *name) {
    PyObject *index = PyNumber_Index(o);
    if (index == NULL) return -1;
    long long v = PyLong_AsLongLong(index);
    Py_DECREF(index);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_ValueError, "%s: expected 64-bit integers", name);
        return -1;
    }
    *out = v;
    return 0;
}

/* Up to `max_len` ints, each in [0, bound), from a sequence into `out`; its length, or -1
   with a ValueError that names the argument (`name`) and what an entry is (`what`). */
static Py_ssize_t po_indices(PyObject *seq, Py_ssize_t max_len, long long bound, int *out,
                             const char *name, const char *what) {
    PyObject *fast = PySequence_Fast(seq, name);
    if (fast == NULL) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > max_len) {
        PyErr_Format(PyExc_ValueError, "%s: expected at most %zd entries", name, max_len);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        long long v;
        if (po_int(PySequence_Fast_GET_ITEM(fast, i), &v, name) < 0) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < 0 || v >= bound) {
            PyErr_Format(PyExc_ValueError, "%s: %s %lld, expected 0 to %lld", name, what, v,
                         bound - 1);
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return len;
}

/* `seq` as a fast sequence of exactly `n` items (one per player), or NULL. */
static PyObject *po_per_player(PyObject *seq, int n, const char *name, const char *what) {
    PyObject *fast = PySequence_Fast(seq, name);
    if (fast && PySequence_Fast_GET_SIZE(fast) != n) {
        PyErr_Format(PyExc_ValueError, "%s: expected one %s per player (%d)", name, what, n);
        Py_CLEAR(fast);
    }
    return fast;
}

/* `n` masks from a sequence of exactly `n` ints. */
static int po_masks(PyObject *seq, int n, uint64_t *out, const char *name) {
    PyObject *fast = po_per_player(seq, n, name, "mask");
    int ok = fast != NULL;
    for (int i = 0; ok && i < n; i++) ok = po_u64(PySequence_Fast_GET_ITEM(fast, i), &out[i], name) == 0;
    Py_XDECREF(fast);
    return ok ? 0 : -1;
}

/* `n` ints from a sequence of exactly `n` ints. */
static int po_ints(PyObject *seq, int n, long long *out, const char *name) {
    PyObject *fast = po_per_player(seq, n, name, "entry");
    int ok = fast != NULL;
    for (int i = 0; ok && i < n; i++) ok = po_int(PySequence_Fast_GET_ITEM(fast, i), &out[i], name) == 0;
    Py_XDECREF(fast);
    return ok ? 0 : -1;
}

static inline int po_popcount(uint64_t x) { return __builtin_popcountll(x); }
static inline int po_low(uint64_t x) { return __builtin_ctzll(x); }

/* The cards a hand may ask for: the rest of its families still in play. */
static inline uint64_t po_askable(uint64_t hand, uint64_t ones, uint64_t blocked) {
    uint64_t spread = hand | hand >> 1;
    spread |= spread >> 2;
    return ((spread & ones) * 0xFULL) & ~blocked & ~hand;
}

/* search._likeliest: writes (target, card); returns 1, 0 when nothing was picked, -1 on
 * error (a rank entry that is no int, or a rank too short). */
static int po_likeliest(uint64_t wanted, const int *targets, int n_targets,
                        const uint64_t *hands, const uint64_t *seen, const uint64_t *mine,
                        const uint64_t *lacks, const uint64_t *claims, const PoRank *rank,
                        int *target, int *card) {
    /* The groups are disjoint non-empty sets of wanted cards: at most 64 of them. */
    PoGroup buffer_a[64], buffer_b[64];
    PoGroup *groups = buffer_a, *split = buffer_b;
    int n_groups = 1;
    groups[0].cards = wanted;
    groups[0].m = 0;
    groups[0].total = 0.0;
    for (int i = 0; i < n_targets; i++) {
        int t = targets[i];
        uint64_t known = mine != NULL ? seen[t] | mine[t] : seen[t];
        int free_cards = po_popcount(hands[t] & ~known);
        if (free_cards <= 0) continue;
        uint64_t open_cards = wanted & ~lacks[t];
        if (!open_cards) continue;
        uint64_t held = seen[t];
        held |= held >> 1;
        held |= held >> 2;
        held = (held & PO_NIBBLES) * 0xFULL;
        uint64_t claimed = open_cards & claims[t] & ~held;
        uint64_t plain = open_cards & ~claimed;
        double weights[2] = {free_cards * 2.0, free_cards * 1.0};
        uint64_t parts[2] = {claimed, plain};
        int n_split = 0;
        for (int g = 0; g < n_groups; g++) {
            const PoGroup *group = &groups[g];
            for (int k = 0; k < 2; k++) {
                uint64_t cards = group->cards & parts[k];
                if (!cards) continue;
                PoGroup *out = &split[n_split++];
                out->cards = cards;
                out->m = group->m + 1;
                memcpy(out->t, group->t, sizeof(int) * (size_t)group->m);
                memcpy(out->w, group->w, sizeof(double) * (size_t)group->m);
                out->t[group->m] = t;
                out->w[group->m] = weights[k];
                out->total = group->total + weights[k];
            }
            uint64_t rest = group->cards & ~open_cards;
            if (rest) {
                PoGroup *out = &split[n_split++];
                out->cards = rest;
                out->m = group->m;
                memcpy(out->t, group->t, sizeof(int) * (size_t)group->m);
                memcpy(out->w, group->w, sizeof(double) * (size_t)group->m);
                out->total = group->total;
            }
        }
        PoGroup *swap = groups;
        groups = split;
        split = swap;
        n_groups = n_split;
    }
    PoChoice choices[64 * PO_MAXP];
    int n_choices = 0;
    double best = 0.0;
    for (int g = 0; g < n_groups; g++) {
        const PoGroup *group = &groups[g];
        for (int k = 0; k < group->m; k++) {
            double chance = group->w[k] / group->total;
            if (chance > best + 1e-9) {
                best = chance;
                n_choices = 0;
                choices[n_choices].t = group->t[k];
                choices[n_choices++].cards = group->cards;
            } else if (chance > best - 1e-9) {
                choices[n_choices].t = group->t[k];
                choices[n_choices++].cards = group->cards;
            }
        }
    }
    if (n_choices == 0) {
        for (int i = 0; i < n_targets; i++) {
            choices[n_choices].t = targets[i];
            choices[n_choices++].cards = wanted;
        }
    }
    long long top = -1;
    int found = 0;
    for (int i = 0; i < n_choices; i++) {
        int t = choices[i].t;
        uint64_t cards = choices[i].cards;
        while (cards) {
            int c = po_low(cards);
            cards &= cards - 1;
            Py_ssize_t at = (Py_ssize_t)c * rank->n + t;
            if (at >= rank->rank_len) {
                PyErr_SetString(PyExc_ValueError, "rank: expected one entry per (card, target)");
                return -1;
            }
            long long r;
            if (po_int(rank->rank[at], &r, "rank") < 0) return -1;
            if (r > top) {
                top = r;
                *target = t;
                *card = c;
                found = 1;
            }
        }
    }
    return found;
}

static int po_unpack_rank(PyObject *rank_seq, int n, PyObject **fast, PoRank *rank) {
    *fast = PySequence_Fast(rank_seq, "rank: expected a sequence of ints");
    if (*fast == NULL) return -1;
    rank->n = n;
    rank->rank = PySequence_Fast_ITEMS(*fast);
    rank->rank_len = PySequence_Fast_GET_SIZE(*fast);
    return 0;
}

/* likeliest(wanted, targets, hands, seen, mine, lacks, claims, rank, n) -> (target, card):
 * search._likeliest on masks of up to 64 bits (for the tests). */
static PyObject *likeliest(PyObject *self, PyObject *args) {
    PyObject *wanted_o, *targets_o, *hands_o, *seen_o, *mine_o, *lacks_o, *claims_o, *rank_o;
    int n;
    if (!PyArg_ParseTuple(args, "OOOOOOOOi", &wanted_o, &targets_o, &hands_o, &seen_o, &mine_o,
                          &lacks_o, &claims_o, &rank_o, &n))
        return NULL;
    uint64_t wanted;
    if (po_u64(wanted_o, &wanted, "wanted") < 0) return NULL;
    if (n < 1 || n > PO_MAXP) {
        PyErr_Format(PyExc_ValueError, "n=%d: expected 1 to %d players", n, PO_MAXP);
        return NULL;
    }
    uint64_t hands[PO_MAXP], seen[PO_MAXP], mine[PO_MAXP], lacks[PO_MAXP], claims[PO_MAXP];
    if (po_masks(hands_o, n, hands, "hands") < 0 || po_masks(seen_o, n, seen, "seen") < 0 ||
        po_masks(lacks_o, n, lacks, "lacks") < 0 || po_masks(claims_o, n, claims, "claims") < 0)
        return NULL;
    if (mine_o != Py_None && po_masks(mine_o, n, mine, "mine") < 0) return NULL;
    int targets[PO_MAXP];
    Py_ssize_t n_targets = po_indices(targets_o, n, n, targets, "targets", "seat");
    if (n_targets < 0) return NULL;
    PyObject *fast_rank;
    PoRank rank;
    if (po_unpack_rank(rank_o, n, &fast_rank, &rank) < 0) return NULL;
    int target = -1, card = -1;
    int found = po_likeliest(wanted, targets, (int)n_targets, hands, seen,
                             mine_o == Py_None ? NULL : mine, lacks, claims, &rank, &target,
                             &card);
    Py_DECREF(fast_rank);
    if (found < 0) return NULL;
    return Py_BuildValue("(ii)", target, card);
}

/* playout(hands, stock, rank, dead_cards, seen, lacks, mine, claims, scores, blocked,
 *         n_families, me, target, card, bluffing, clockwise, bonus) -> scores or None:
 * Playout.play of a weighted play-out (see the Python reference, which this follows). */
static PyObject *playout(PyObject *self, PyObject *args) {
    PyObject *hands_o, *stock_o, *rank_o, *dead_o, *seen_o, *lacks_o, *mine_o, *claims_o;
    PyObject *scores_o, *blocked_o;
    int n_families, me, target, card, bluffing, clockwise, bonus;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOiiiippp", &hands_o, &stock_o, &rank_o, &dead_o,
                          &seen_o, &lacks_o, &mine_o, &claims_o, &scores_o, &blocked_o,
                          &n_families, &me, &target, &card, &bluffing, &clockwise, &bonus))
        return NULL;
    Py_ssize_t n_hands = PySequence_Length(hands_o);
    if (n_hands < 0) return NULL;
    if (n_hands < 1 || n_hands > PO_MAXP) {
        PyErr_Format(PyExc_ValueError, "hands: expected 1 to %d players", PO_MAXP);
        return NULL;
    }
    int n = (int)n_hands;
    if (n_families < 1 || n_families > 16) {
        PyErr_SetString(PyExc_ValueError, "n_families: expected 1 to 16 (decks of 64 cards)");
        return NULL;
    }
    int n_cards = 4 * n_families;
    if (me < 0 || me >= n || target < 0 || target >= n || card < 0 || card >= n_cards) {
        PyErr_SetString(PyExc_ValueError, "playout: the seat, target or card is out of range");
        return NULL;
    }
    uint64_t hands[PO_MAXP], seen[PO_MAXP], lacks[PO_MAXP], mine[PO_MAXP], claims[PO_MAXP];
    long long scores[PO_MAXP];
    uint64_t dead_cards, blocked;
    if (po_masks(hands_o, n, hands, "hands") < 0 || po_masks(seen_o, n, seen, "seen") < 0 ||
        po_masks(lacks_o, n, lacks, "lacks") < 0 || po_masks(mine_o, n, mine, "mine") < 0 ||
        po_masks(claims_o, n, claims, "claims") < 0 ||
        po_u64(dead_o, &dead_cards, "dead_cards") < 0 || po_u64(blocked_o, &blocked, "blocked") < 0)
        return NULL;
    if (po_ints(scores_o, n, scores, "scores") < 0) return NULL;
    int stock[64];
    Py_ssize_t n_stock = po_indices(stock_o, 64, n_cards, stock, "stock", "card");
    if (n_stock < 0) return NULL;
    PyObject *fast_rank;
    PoRank rank;
    if (po_unpack_rank(rank_o, n, &fast_rank, &rank) < 0) return NULL;

    uint64_t ones = 0;
    for (int f = 0; f < n_families; f++) ones |= 1ULL << (4 * f);
    uint64_t all = n_families == 16 ? ~0ULL : (1ULL << (4 * n_families)) - 1;
    uint64_t spread_dead = dead_cards | dead_cards >> 1;
    spread_dead |= spread_dead >> 2;
    uint64_t unfinished = all & ~blocked;
    unfinished &= ~((spread_dead & ones) * 0xFULL);

    int seat = me;
    int found = 1;
    for (int step = 0; step < PO_STEPS; step++) {
        uint64_t bit = 1ULL << card;
        claims[seat] |= 0xFULL << (4 * (card / 4));
        int next_seat;
        if (hands[target] & bit) {
            hands[target] &= ~bit;
            hands[seat] |= bit;
            seen[target] &= ~bit;
            mine[target] &= ~bit;
            seen[seat] |= bit;
            lacks[seat] &= ~bit;
            uint64_t family = 0xFULL << (4 * (card / 4));
            if ((hands[seat] & family) == family) {
                hands[seat] &= ~family;
                blocked |= family;
                unfinished &= ~family;
                scores[seat] += 1;
            }
            next_seat = seat;
        } else {
            lacks[target] |= bit;
            if (!bluffing) lacks[seat] |= bit;
            next_seat = clockwise ? (seat + 1) % n : target;
            if (n_stock > 0) {
                int drawn = stock[--n_stock];
                hands[seat] |= 1ULL << drawn;
                lacks[seat] = 0;
                uint64_t family = 0xFULL << (4 * (drawn / 4));
                if ((hands[seat] & family) == family) {
                    hands[seat] &= ~family;
                    blocked |= family;
                    unfinished &= ~family;
                    scores[seat] += 1;
                    if (bonus && hands[seat]) next_seat = seat;
                }
            }
        }
        if (!unfinished) break;
        /* mover(next_seat): the first seat from next_seat on that can ask (-1: none). */
        int chosen = -1;
        uint64_t wanted = 0;
        for (;;) {
            int empty = 0;
            for (int s = 0; s < n; s++) empty += hands[s] == 0;
            chosen = -1;
            if (empty <= n - 2) {
                for (int k = 0; k < n; k++) {
                    int s = (next_seat + k) % n;
                    if (hands[s]) {
                        uint64_t w = po_askable(hands[s], ones, blocked);
                        if (w) {
                            chosen = s;
                            wanted = w;
                            break;
                        }
                    }
                }
            }
            if (chosen >= 0 || n_stock == 0) break;
            int drawer = next_seat;
            for (int k = 0; k < n; k++) {
                int s = (next_seat + k) % n;
                if (hands[s]) {
                    drawer = s;
                    break;
                }
            }
            int drawn = stock[--n_stock];
            hands[drawer] |= 1ULL << drawn;
            lacks[drawer] = 0;
            uint64_t family = 0xFULL << (4 * (drawn / 4));
            if ((hands[drawer] & family) == family) {
                hands[drawer] &= ~family;
                blocked |= family;
                unfinished &= ~family;
                scores[drawer] += 1;
            }
            if (!unfinished) break;
        }
        if (chosen < 0 || !unfinished) break;
        seat = chosen;
        int targets[PO_MAXP];
        int n_targets = 0;
        for (int t = 0; t < n; t++)
            if (t != seat && hands[t]) targets[n_targets++] = t;
        target = -1;
        for (int i = 0; i < n_targets; i++) {
            int t = targets[i];
            uint64_t sure = wanted & (seat == me ? seen[t] | mine[t] : seen[t]);
            if (sure) {
                target = t;
                card = po_low(sure);
                break;
            }
        }
        if (target < 0) {
            found = po_likeliest(wanted, targets, n_targets, hands, seen,
                                 seat == me ? mine : NULL, lacks, claims, &rank, &target, &card);
            if (found <= 0) break;
        }
    }
    Py_DECREF(fast_rank);
    if (found < 0) return NULL;
    if (found == 0) Py_RETURN_NONE; /* the Python path's random fallback would be needed */
    PyObject *result = PyList_New(n);
    if (result == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLongLong(scores[i]);
        if (v == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyList_SET_ITEM(result, i, v);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"programme", programme, METH_VARARGS,
     "programme(cap, polys, wanted, wide, backward_out) -> count: the counting programme's "
     "products, exact modulo 2^64 (or 2^128 when wide)."},
    {"factored", factored, METH_VARARGS,
     "factored(cap, dim_of, families, wanted, wide, backward_out[, modulus]) -> count: programme() with "
     "families given as sums of products of one linear form per card, where that is faster."},
    {"sparse", sparse, METH_VARARGS,
     "sparse(cap, polys, wanted, wide, budget, max_states) -> count or None: programme() on "
     "maps of the reachable states, or None where that would take more than budget or "
     "max_states states in a map."},
    {"family_table", family_table, METH_VARARGS,
     "family_table(options, clauses, free, dim_of, n_dims, n_slots) -> (vectors, weights, "
     "card_slot) bytes, or None: one family's polynomial."},
    {"recount", recount, METH_VARARGS,
     "recount(capacity, allowed, viewer, coded, clause_sets, families, location, players, "
     "slot_owner, out) -> count or None: a whole recount (count and the wanted families' "
     "location probabilities) where 64-bit arithmetic is exact."},
    {"ryser", ryser, METH_VARARGS,
     "ryser(cap, families, wide, budget[, owners, out, memory, modulus]) -> Y or None: the count "
     "times the product of the capacities' factorials by Ryser's formula (families as (free, "
     "factored rows)), modulo 2^64 (2^128 when wide, modulus if given: odd, 3 to 2^62), or "
     "None where that would take more than budget "
     "steps or more than memory bytes; with owners (each slot's owner or -1), the same sums "
     "per free card and owner into out."},
    {"playout", playout, METH_VARARGS,
     "playout(hands, stock, rank, dead_cards, seen, lacks, mine, claims, scores, blocked, "
     "n_families, me, target, card, bluffing, clockwise, bonus) -> scores or None: the search "
     "agent's weighted play-out (Playout.play) on 64-bit masks."},
    {"likeliest", likeliest, METH_VARARGS,
     "likeliest(wanted, targets, hands, seen, mine, lacks, claims, rank, n) -> (target, card): "
     "the play-out's likeliest-yes choice (search._likeliest) on 64-bit masks."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_counting_kernel",
    "Compiled inner loops of the counting engine (see counting.py) and of the search agent's play-outs (see agents/search.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__counting_kernel(void) { return PyModule_Create(&module); }
