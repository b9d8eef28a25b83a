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
            T w = (T)(uint64_t)p->weights[j];                                                    \
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
static PyObject *programme(PyObject *self, PyObject *args) {
    PyObject *cap_obj, *polys_obj, *wanted_obj, *backward_obj;
    int wide;
    if (!PyArg_ParseTuple(args, "O!O!O!pO", &PyTuple_Type, &cap_obj, &PyList_Type, &polys_obj,
                          &PyList_Type, &wanted_obj, &wide, &backward_obj))
        return NULL;
    Layout L;
    L.D = (int)PyTuple_GET_SIZE(cap_obj);
    if (L.D < 1 || L.D > MAXD) {
        PyErr_Format(PyExc_ValueError, "cap: expected 1 to %d dimensions, got %d", MAXD, L.D);
        return NULL;
    }
    for (int i = 0; i < L.D; i++) {
        L.cap[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(cap_obj, i));
        if (L.cap[i] < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "cap: negative capacity");
            return NULL;
        }
    }
    L.size = 1;
    for (int i = L.D - 1; i >= 0; i--) {
        L.stride[i] = L.size;
        L.size *= L.cap[i] + 1;
        if (L.size > ((int64_t)1 << 31)) {
            PyErr_SetString(PyExc_MemoryError, "the counting tables would be too large");
            return NULL;
        }
    }
    Py_ssize_t n = PyList_GET_SIZE(polys_obj);
    Py_ssize_t n_wanted = PyList_GET_SIZE(wanted_obj);
    size_t elem = wide ? sizeof(u128) : sizeof(uint64_t);
    Poly *polys = calloc((size_t)n + 1, sizeof(Poly));
    Buf *bufs = calloc(2 * (size_t)n + 2 * (size_t)n_wanted + 2, sizeof(Buf));
    Box *fbox = calloc((size_t)n + 1, sizeof(Box));
    Box *bbox = calloc((size_t)n + 1, sizeof(Box));
    char *forward = NULL, *backward = NULL;
    PyObject *result = NULL;
    Buf back_buf = {.held = 0};
    void *rest = NULL;
    if (!polys || !bufs || !fbox || !bbox) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t f = 0; f < n; f++) {
        PyObject *item = PyList_GET_ITEM(polys_obj, f);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_ValueError, "polys: expected (vectors, weights) pairs");
            goto done;
        }
        if (get_buffer(PyTuple_GET_ITEM(item, 1), &bufs[2 * f + 1], 0, 0, "weights") < 0)
            goto done;
        Py_ssize_t m = bufs[2 * f + 1].view.len / 8;
        if (get_buffer(PyTuple_GET_ITEM(item, 0), &bufs[2 * f], 0, m * L.D, "vectors") < 0)
            goto done;
        polys[f].m = m;
        polys[f].vectors = bufs[2 * f].view.buf;
        polys[f].weights = bufs[2 * f + 1].view.buf;
        for (int i = 0; i < L.D; i++) polys[f].maxv[i] = 0;
        polys[f].minsum = m ? INT64_MAX : 0;
        polys[f].maxsum = 0;
        for (Py_ssize_t j = 0; j < m; j++) {
            int64_t sum = 0;
            for (int i = 0; i < L.D; i++) {
                polys[f].maxv[i] = max64(polys[f].maxv[i], polys[f].vectors[j * L.D + i]);
                sum += polys[f].vectors[j * L.D + i];
            }
            polys[f].minsum = min64(polys[f].minsum, sum);
            polys[f].maxsum = max64(polys[f].maxsum, sum);
        }
    }
    /* Boxes: forward table i (families 0..i-1 placed) and backward table i (families
     * i..n-1), each clipped to what the other side can still complete. */
    for (Py_ssize_t f = 0; f <= n; f++) {
        fbox[f].empty = bbox[f].empty = 0;
        for (int i = 0; i < L.D; i++) {
            int64_t before = 0, after = 0;
            for (Py_ssize_t g = 0; g < f; g++) before += polys[g].maxv[i];
            for (Py_ssize_t g = f; g < n; g++) after += polys[g].maxv[i];
            fbox[f].lo[i] = max64(0, L.cap[i] - after);
            fbox[f].hi[i] = min64(L.cap[i], before);
            bbox[f].lo[i] = max64(0, L.cap[i] - before);
            bbox[f].hi[i] = min64(L.cap[i], after);
            if (fbox[f].lo[i] > fbox[f].hi[i]) fbox[f].empty = 1;
            if (bbox[f].lo[i] > bbox[f].hi[i]) bbox[f].empty = 1;
        }
        int64_t total = 0, min_before = 0, max_before = 0, min_after = 0, max_after = 0;
        for (int i = 0; i < L.D; i++) total += L.cap[i];
        for (Py_ssize_t g = 0; g < f; g++) min_before += polys[g].minsum, max_before += polys[g].maxsum;
        for (Py_ssize_t g = f; g < n; g++) min_after += polys[g].minsum, max_after += polys[g].maxsum;
        fbox[f].slo = max64(min_before, total - max_after);
        fbox[f].shi = min64(max_before, total - min_after);
        bbox[f].slo = max64(min_after, total - max_before);
        bbox[f].shi = min64(max_after, total - min_before);
        if (fbox[f].slo > fbox[f].shi) fbox[f].empty = 1;
        if (bbox[f].slo > bbox[f].shi) bbox[f].empty = 1;
    }
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
    forward = malloc(elem * (size_t)L.size * ((size_t)n + 1));
    backward = malloc(elem * (size_t)L.size * ((size_t)n + 1));
    if (!forward || !backward) {
        PyErr_NoMemory();
        goto done;
    }
#define TABLE(base, i) ((base) + elem * (size_t)L.size * (size_t)(i))
    Py_ssize_t max_m = 1;
    for (Py_ssize_t f = 0; f < n; f++) max_m = polys[f].m > max_m ? polys[f].m : max_m;
    rest = malloc(elem * (size_t)max_m);
    if (!rest) {
        PyErr_NoMemory();
        goto done;
    }
    memset(TABLE(forward, 0), 0, elem * (size_t)L.size);
    memset(TABLE(backward, n), 0, elem * (size_t)L.size);
    if (wide) {
        ((u128 *)TABLE(forward, 0))[0] = 1;
        ((u128 *)TABLE(backward, n))[0] = 1;
    } else {
        ((uint64_t *)TABLE(forward, 0))[0] = 1;
        ((uint64_t *)TABLE(backward, n))[0] = 1;
    }
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t f = 0; f < n; f++) {
        if (wide)
            k128_multiply(&L, (u128 *)TABLE(forward, f), &fbox[f], &polys[f],
                          (u128 *)TABLE(forward, f + 1), &fbox[f + 1]);
        else
            k64_multiply(&L, (uint64_t *)TABLE(forward, f), &fbox[f], &polys[f],
                         (uint64_t *)TABLE(forward, f + 1), &fbox[f + 1]);
    }
    for (Py_ssize_t f = n - 1; f > first_wanted || (keep_backward && f >= 0); f--) {
        if (wide)
            k128_multiply(&L, (u128 *)TABLE(backward, f + 1), &bbox[f + 1], &polys[f],
                          (u128 *)TABLE(backward, f), &bbox[f]);
        else
            k64_multiply(&L, (uint64_t *)TABLE(backward, f + 1), &bbox[f + 1], &polys[f],
                         (uint64_t *)TABLE(backward, f), &bbox[f]);
    }
    Py_END_ALLOW_THREADS;
    for (Py_ssize_t w = 0; w < n_wanted; w++) {
        PyObject *item = PyList_GET_ITEM(wanted_obj, w);
        Py_ssize_t pos = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 0));
        Buf *cs = &bufs[2 * n + 2 * w], *out = &bufs[2 * n + 2 * w + 1];
        if (get_buffer(PyTuple_GET_ITEM(item, 1), cs, 0, polys[pos].m, "card_slot") < 0)
            goto done;
        Py_ssize_t width = cs->view.len / 8 / (polys[pos].m ? polys[pos].m : 1);
        if (get_buffer(PyTuple_GET_ITEM(item, 2), out, 1, (wide ? 2 : 1) * width, "out") < 0)
            goto done;
        const int64_t *card_slot = cs->view.buf;
        uint64_t *o = out->view.buf;
        if (wide) {
            u128 *r = rest;
            k128_rest(&L, (u128 *)TABLE(forward, pos), &fbox[pos], (u128 *)TABLE(backward, pos + 1),
                      &bbox[pos + 1], &polys[pos], r);
            for (Py_ssize_t k = 0; k < width; k++) {
                u128 acc = 0;
                for (Py_ssize_t j = 0; j < polys[pos].m; j++)
                    acc += r[j] * (u128)card_slot[j * width + k];
                o[k] = (uint64_t)acc;
                o[width + k] = (uint64_t)(acc >> 64);
            }
        } else {
            uint64_t *r = rest;
            k64_rest(&L, (uint64_t *)TABLE(forward, pos), &fbox[pos],
                     (uint64_t *)TABLE(backward, pos + 1), &bbox[pos + 1], &polys[pos], r);
            for (Py_ssize_t k = 0; k < width; k++) {
                uint64_t acc = 0;
                for (Py_ssize_t j = 0; j < polys[pos].m; j++)
                    acc += r[j] * (uint64_t)card_slot[j * width + k];
                o[k] = acc;
            }
        }
    }
    if (keep_backward) memcpy(back_buf.view.buf, backward, elem * (size_t)L.size * ((size_t)n + 1));
    if (wide) {
        u128 count = ((u128 *)TABLE(forward, n))[L.size - 1];
        PyObject *low = PyLong_FromUnsignedLongLong((uint64_t)count);
        PyObject *high = PyLong_FromUnsignedLongLong((uint64_t)(count >> 64));
        PyObject *shift = PyLong_FromLong(64);
        PyObject *shifted = high && shift ? PyNumber_Lshift(high, shift) : NULL;
        result = shifted && low ? PyNumber_Or(shifted, low) : NULL;
        Py_XDECREF(low);
        Py_XDECREF(high);
        Py_XDECREF(shift);
        Py_XDECREF(shifted);
    } else {
        result = PyLong_FromUnsignedLongLong(((uint64_t *)TABLE(forward, n))[L.size - 1]);
    }
#undef TABLE
done:
    if (bufs)
        for (Py_ssize_t i = 0; i < 2 * n + 2 * n_wanted + 2; i++) release(&bufs[i]);
    release(&back_buf);
    free(polys);
    free(bufs);
    free(fbox);
    free(bbox);
    free(forward);
    free(backward);
    free(rest);
    return result;
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
    int free_mask, n_dims, n_slots;
    if (!PyArg_ParseTuple(args, "O!O!iO!ii", &PyTuple_Type, &opt_obj, &PyTuple_Type, &cl_obj,
                          &free_mask, &PyTuple_Type, &dim_obj, &n_dims, &n_slots))
        return NULL;
    if (PyTuple_GET_SIZE(opt_obj) != 4 || n_slots < 1 || n_slots > 62 || n_dims < 0 ||
        n_dims > MAXD || PyTuple_GET_SIZE(dim_obj) != n_slots) {
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
    int64_t *vectors = calloc((size_t)total * (size_t)width, sizeof(int64_t));
    int64_t *weights = calloc((size_t)total, sizeof(int64_t));
    int64_t *card_slot = calloc((size_t)total * (size_t)per_card, sizeof(int64_t));
    PyObject *result = NULL;
    if (!kinds || !conds || !vectors || !weights || !card_slot) {
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
    Py_ssize_t m = 0;
    int o[4];
    for (int a = 0; a < n_opt[0]; a++)
        for (int b = 0; b < n_opt[1]; b++)
            for (int c = 0; c < n_opt[2]; c++)
                for (int d = 0; d < n_opt[3]; d++) {
                    o[0] = options[0][a], o[1] = options[1][b], o[2] = options[2][c],
                    o[3] = options[3][d];
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
                    int64_t use[MAXD] = {0};
                    for (int i = 0; i < 4; i++)
                        if (free_mask >> i & 1 && dim_of[o[i]] >= 0) use[dim_of[o[i]]]++;
                    /* The vectors met so far, compared whole (a packed code would
                     * overflow with many dimensions). */
                    Py_ssize_t j = 0;
                    while (j < m && memcmp(vectors + j * width, use, sizeof(int64_t) * (size_t)width))
                        j++;
                    if (j == m) {
                        for (int i = 0; i < width; i++) vectors[m * width + i] = use[i];
                        m++;
                    }
                    weights[j]++;
                    for (int i = 0; i < 4; i++) card_slot[j * per_card + i * n_slots + o[i]]++;
                }
    if (m == 0) {
        result = Py_None;
        Py_INCREF(result);
        goto out;
    }
    result = Py_BuildValue("(y#y#y#)", (char *)vectors, (Py_ssize_t)(m * width * 8),
                           (char *)weights, (Py_ssize_t)(m * 8), (char *)card_slot,
                           (Py_ssize_t)(m * per_card * 8));
out:
    free(kinds);
    free(conds);
    free(vectors);
    free(weights);
    free(card_slot);
    return result;
}

static PyMethodDef methods[] = {
    {"programme", programme, METH_VARARGS,
     "programme(cap, polys, wanted, wide, backward_out) -> count: the counting programme's "
     "products, exact modulo 2^64 (or 2^128 when wide)."},
    {"family_table", family_table, METH_VARARGS,
     "family_table(options, clauses, free, dim_of, n_dims, n_slots) -> (vectors, weights, "
     "card_slot) bytes, or None: one family's polynomial."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_counting_kernel",
    "Compiled inner loops of the counting engine (see counting.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__counting_kernel(void) { return PyModule_Create(&module); }
