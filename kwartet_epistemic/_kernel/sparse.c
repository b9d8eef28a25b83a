/* The programme on maps of the reachable states (sparse). */
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
