/* The programme over factored families, and the programme itself (run_programme). */
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
    PyObject *cap_obj, *dim_obj, *fam_obj, *wanted_obj, *backward_obj, *closing_obj = NULL;
    int wide;
    unsigned long long modulus = 0;
    if (!PyArg_ParseTuple(args, "O!O!O!O!pO|KO", &PyTuple_Type, &cap_obj, &PyTuple_Type, &dim_obj,
                          &PyList_Type, &fam_obj, &PyList_Type, &wanted_obj, &wide, &backward_obj,
                          &modulus, &closing_obj))
        return NULL;
    return run_programme(cap_obj, dim_obj, fam_obj, wanted_obj, wide, backward_obj, modulus,
                         closing_obj);
}

/* The programme behind programme() and factored(); dim_obj NULL: no slots (every family
 * a use-vector table). */
static PyObject *run_programme(PyObject *cap_obj, PyObject *dim_obj, PyObject *fam_obj,
                               PyObject *wanted_obj, int wide, PyObject *backward_obj,
                               uint64_t P, PyObject *closing_obj) {
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
    Box *fbox = calloc((size_t)n + 2, sizeof(Box));
    Box *bbox = calloc((size_t)n + 2, sizeof(Box));
    char *forward = NULL, *backward = NULL, *scratch = NULL, *closing_w = NULL;
    Closing closing;
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
    if (parse_closing(closing_obj, &L, &closing, &polys[n]) < 0) goto done;
    if (closing.on && (P || backward_obj != Py_None)) {
        PyErr_SetString(PyExc_ValueError, "closing: not with a modulus or backward tables");
        goto done;
    }
    set_boxes(&L, polys, n + closing.on, fbox, bbox);
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
    if (closing.on) closing_w = malloc(elem * (size_t)L.size);
    if (!forward || !backward || !scratch || !rest || (closing.on && !closing_w)) {
        PyErr_NoMemory();
        goto done;
    }
    if (closing.on && (wide ? c128_closing_table(&L, &closing, (u128 *)closing_w)
                            : c64_closing_table(&L, &closing, (uint64_t *)closing_w)) < 0) {
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
    if (n >= bw_base && closing.on) {
        memcpy(BWD(n), closing_w, elem * (size_t)L.size);
    } else if (n >= bw_base) {
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
    if (!closing.on)
        result = count_at_cap(FWD(n), &L, wide);
    else if (wide)
        result = u128_to_int(c128_closing_count(&L, (u128 *)FWD(n), (u128 *)closing_w));
    else
        result = PyLong_FromUnsignedLongLong(
            c64_closing_count(&L, (uint64_t *)FWD(n), (uint64_t *)closing_w));
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
    free(closing_w);
    free(rest);
    return result;
}
