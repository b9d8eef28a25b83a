/* What every algorithm of the counting kernel shares: the includes, the table layout,
 * the programme's box macros, 128-bit integers, and reading a count off a table. */
#ifndef KWARTET_KERNEL_COMMON_H
#define KWARTET_KERNEL_COMMON_H

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
 * closing (optional): None, or (cards, ones, dims_mask), the merged families nobody has
 * asked about multiplied last (see _kernel/open_families.c); not with backward_out.
 */
static PyObject *run_programme(PyObject *cap_obj, PyObject *dim_obj, PyObject *fam_obj,
                               PyObject *wanted_obj, int wide, PyObject *backward_obj,
                               uint64_t P, PyObject *closing_obj);

static PyObject *programme(PyObject *self, PyObject *args) {
    /* factored() with use-vector tables only: the same products on the same boxes. */
    PyObject *cap_obj, *polys_obj, *wanted_obj, *backward_obj, *closing_obj = NULL;
    int wide;
    if (!PyArg_ParseTuple(args, "O!O!O!pO|O", &PyTuple_Type, &cap_obj, &PyList_Type, &polys_obj,
                          &PyList_Type, &wanted_obj, &wide, &backward_obj, &closing_obj))
        return NULL;
    return run_programme(cap_obj, NULL, polys_obj, wanted_obj, wide, backward_obj, 0, closing_obj);
}



#endif
