/* The families nobody has asked about, merged into one closing factor of the programme.
 *
 * With L = ones + sum over the dimensions i of R of x_i (ones: the slots of R without a
 * dimension), a family whose k free cards may each come from the slots R and on which
 * the record says nothing puts L^k into the product; one whose only clauses say that
 * its free cards are not all with one player, for each player of T, puts
 * L^k - S with S = sum over the slots s of T of y_s^k (y_s = x_i for a slot with a
 * dimension i, else 1): at the deal, no hand holds a whole family.  U free cards of the
 * first kind and a families of the second (all with the same R, k and T) give
 *
 *     Q = L^U (L^k - S)^a = sum over J of (-1)^|J| C(a, |J|) (|J|! / prod J_s!)
 *                                          x^(k J) L^(N - k |J|),      N = U + k a,
 *
 * J over the slots of T, and the coefficient of x^r in L^M is the multinomial
 *
 *     W_M(r) = M! / (r_1! ... r_D! (M - |r|)!) * ones^(M - |r|)   (0 where r_i > 0
 *                                                                  outside R).
 *
 * W_M(r) = C(M, |r|) ones^(M - |r|) mu(r), with mu(r) = |r|! / prod r_i! the same for
 * every M.  The slots of T without a dimension shift nothing, so that their share t of
 * |J| = m + t gathers into one function of the coordinate sum s:
 *
 *     h_m(s) = sum over t of (-1)^(m+t) C(a, m+t) C(m+t, t) t_ones^t C(M, s) ones^(M - s),
 *              M = N - k (m + t),
 *
 * and Q(r) = sum over J of T's dimensions of (m! / prod J_i!) h_m(|r| - k m) mu(r - k J),
 * m = |J|: one product per entry and J (few J fit within the capacities).
 * The table Q takes a few passes over a table where the families took one per family
 * and use vector: the count is sum_y F[y] Q(cap - y) over the last forward table, and
 * the backward tables start from Q instead of the unit.  Binomials come from Pascal's
 * rule, additions only, so that Q is exact modulo 2^64 or 2^128 like every other entry.
 */

typedef struct {
    int on;            /* 0: no closing factor (the programme as before) */
    int64_t cards;     /* U: the free cards of the families without clauses */
    int64_t ones;      /* slots of R without a dimension */
    uint64_t mask;     /* the dimensions of R */
    int64_t k;         /* free cards of each family of the second kind */
    int64_t a;         /* families of the second kind */
    uint64_t t_mask;   /* the dimensions of T */
    int64_t t_ones;    /* slots of T without a dimension */
} Closing;

/* (cards, ones, dims_mask[, k, families, t_dims_mask, t_ones]) or None into c, and its
 * bounds as a polynomial into p (for the boxes: a use of at most min(N, cap_i) in each
 * dimension of R, sums 0 to N). */
static int parse_closing(PyObject *obj, const Layout *L, Closing *c, Poly *p) {
    memset(c, 0, sizeof *c);
    memset(p, 0, sizeof *p);
    if (obj == NULL || obj == Py_None) return 0;
    long long cards, ones, k = 1, a = 0, t_ones = 0;
    unsigned long long mask, t_mask = 0;
    if (!PyTuple_Check(obj) ||
        !PyArg_ParseTuple(obj, "LLK|LLKL", &cards, &ones, &mask, &k, &a, &t_mask, &t_ones)) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError,
                        "closing: expected None or (cards, ones, dims_mask[, k, families, "
                        "t_dims_mask, t_ones])");
        return -1;
    }
    int64_t total = cards + k * a;
    uint64_t dims = L->D < 64 ? ((uint64_t)1 << L->D) - 1 : ~(uint64_t)0;
    if (cards < 0 || ones < 0 || k < 1 || a < 0 || a > 64 || t_ones < 0 || t_ones > ones ||
        total > 4096 || (mask & ~dims) || (t_mask & ~mask)) {
        PyErr_SetString(PyExc_ValueError,
                        "closing: expected 0 to 4096 cards, ones >= t_ones >= 0, k >= 1, 0 to 64 "
                        "families, and dimensions of the tables with T's among R's");
        return -1;
    }
    c->on = 1;
    c->cards = cards;
    c->ones = ones;
    c->mask = mask;
    c->k = k;
    c->a = a;
    c->t_mask = t_mask;
    c->t_ones = t_ones;
    p->m = 0;
    for (int i = 0; i < L->D; i++) p->maxv[i] = (mask >> i & 1) ? min64(total, L->cap[i]) : 0;
    p->minsum = ones ? 0 : total;
    p->maxsum = mask ? total : 0;
    return 0;
}

/* Pascal's triangle, rows 0..rows, columns 0..cols (C(n, b) at n * (cols + 1) + b). */
#define PASCAL(T, out, rows, cols)                                                           \
    do {                                                                                     \
        for (int64_t n_ = 0; n_ <= (rows); n_++) {                                           \
            (out)[(size_t)n_ * (size_t)((cols) + 1)] = 1;                                    \
            for (int64_t b_ = 1; b_ <= (cols); b_++)                                         \
                (out)[(size_t)n_ * (size_t)((cols) + 1) + (size_t)b_] =                      \
                    n_ == 0 ? 0                                                              \
                            : (out)[(size_t)(n_ - 1) * (size_t)((cols) + 1) + (size_t)(b_ - 1)] + \
                                  (out)[(size_t)(n_ - 1) * (size_t)((cols) + 1) + (size_t)b_]; \
        }                                                                                    \
    } while (0)

#define DEFINE_CLOSING(T, NAME)                                                              \
    /* Q (see above) for every entry of the layout, into q; -1 where memory runs out. */     \
    static int NAME##_closing_table(const Layout *L, const Closing *c, T *q) {               \
        int64_t N = c->cards + c->k * c->a, a = c->a, k = c->k, S = 0, top = 0;              \
        for (int i = 0; i < L->D; i++) S += L->cap[i], top = max64(top, L->cap[i]);          \
        size_t size = (size_t)L->size, width = (size_t)N + 1, sums_len = (size_t)S + 1;      \
        T *small = calloc((size_t)(S + 1) * (size_t)(top + 1), sizeof(T)); /* mu's */        \
        T *tiny = calloc((size_t)(a + 1) * (size_t)(a + 1), sizeof(T));    /* C(a, j) */     \
        T *row = calloc(width, sizeof(T)), *next = calloc(width, sizeof(T));                 \
        T *at = calloc((size_t)(a + 1) * width, sizeof(T)); /* C(N - k j, s) */              \
        T *power = calloc(width, sizeof(T));                                                 \
        T *h = calloc((size_t)(a + 1) * width, sizeof(T));                                   \
        T *ch = calloc(sums_len, sizeof(T));                                                 \
        T *mu = malloc(sizeof(T) * size);                                                    \
        int64_t *sums = malloc(sizeof(int64_t) * size);                                      \
        int ok = small && tiny && row && next && at && power && h && ch && mu && sums;       \
        if (ok) {                                                                            \
            PASCAL(T, small, S, top);                                                        \
            PASCAL(T, tiny, a, a);                                                           \
            /* mu and the coordinate sums, entry by entry (row-major odometer) */            \
            int64_t x[MAXD] = {0};                                                           \
            for (size_t e = 0; e < size; e++) {                                              \
                T value = 1;                                                                 \
                int64_t sum = 0;                                                             \
                for (int i = 0; i < L->D; i++) {                                             \
                    int64_t r = x[i];                                                        \
                    if (!r) continue;                                                        \
                    if (!(c->mask >> i & 1)) value = 0;                                      \
                    sum += r;                                                                \
                    value *= small[(size_t)sum * (size_t)(top + 1) + (size_t)r];             \
                }                                                                            \
                mu[e] = value;                                                               \
                sums[e] = sum;                                                               \
                for (int i = L->D - 1; i >= 0; i--) {                                        \
                    if (++x[i] <= L->cap[i]) break;                                          \
                    x[i] = 0;                                                                \
                }                                                                            \
            }                                                                                \
            /* the Pascal rows N - k j, one row kept at a time */                            \
            row[0] = 1;                                                                      \
            for (int64_t n = 0; n <= N; n++) {                                               \
                if (n > 0) {                                                                 \
                    next[0] = 1;                                                             \
                    for (int64_t b = 1; b <= n; b++) next[b] = row[b - 1] + row[b];          \
                    T *swap = row;                                                           \
                    row = next, next = swap;                                                 \
                }                                                                            \
                if ((N - n) % k == 0 && (N - n) / k <= a)                                    \
                    memcpy(at + (size_t)((N - n) / k) * width, row, sizeof(T) * width);      \
            }                                                                                \
            power[0] = 1;                                                                    \
            for (int64_t e = 1; e <= N; e++) power[e] = power[e - 1] * (T)c->ones;           \
            /* h_m(s) */                                                                     \
            for (int64_t m = 0; m <= a; m++) {                                               \
                T t_power = 1;                                                               \
                for (int64_t t = 0; m + t <= a; t++, t_power *= (T)c->t_ones) {              \
                    int64_t j = m + t, M = N - k * j;                                        \
                    T coef = tiny[(size_t)a * (size_t)(a + 1) + (size_t)j] *                 \
                             tiny[(size_t)j * (size_t)(a + 1) + (size_t)t] * t_power;        \
                    if (!coef) continue;                                                     \
                    if (j & 1) coef = (T)0 - coef;                                           \
                    for (int64_t s_ = 0; s_ <= M; s_++)                                      \
                        h[(size_t)m * width + (size_t)s_] +=                                 \
                            coef * at[(size_t)j * width + (size_t)s_] * power[M - s_];       \
                }                                                                            \
            }                                                                                \
            memset(q, 0, sizeof(T) * size);                                                  \
            int dims[MAXD], nd = 0;                                                          \
            for (int i = 0; i < L->D; i++)                                                   \
                if (c->t_mask >> i & 1) dims[nd++] = i;                                      \
            /* every J over T's dimensions with k J within the capacities, m = |J| <= a */   \
            int64_t J[MAXD] = {0};                                                           \
            for (;;) {                                                                       \
                int64_t m = 0, shift = 0;                                                    \
                for (int d = 0; d < nd; d++) m += J[d], shift += k * J[d] * L->stride[dims[d]]; \
                if (m <= a) {                                                                \
                    T coef = 1; /* m! / prod J_d! */                                         \
                    int64_t run_ = 0;                                                        \
                    for (int d = 0; d < nd; d++)                                             \
                        run_ += J[d], coef *= tiny[(size_t)run_ * (size_t)(a + 1) + (size_t)J[d]]; \
                    for (int64_t s_ = 0; s_ <= S; s_++) {                                    \
                        int64_t rest = s_ - k * m;                                           \
                        ch[s_] = rest >= 0 && rest <= N ? coef * h[(size_t)m * width + (size_t)rest] : 0; \
                    }                                                                        \
                    int64_t from[MAXD], to[MAXD];                                            \
                    for (int i = 0; i < L->D; i++) from[i] = 0, to[i] = L->cap[i];           \
                    for (int d = 0; d < nd; d++) from[dims[d]] = k * J[d];                   \
                    FOR_BOX(L, from, to, (int64_t)0, INT64_MAX, {                            \
                        T *qr = q + base;                                                    \
                        const T *mr = mu + base - shift;                                     \
                        const int64_t *sr = sums + base;                                     \
                        for (int64_t t_ = 0; t_ < run; t_++) qr[t_] += ch[sr[t_]] * mr[t_];  \
                    });                                                                      \
                }                                                                            \
                int d = nd - 1; /* the next J */                                             \
                while (d >= 0) {                                                             \
                    if (++J[d] <= a && k * J[d] <= L->cap[dims[d]]) break;                   \
                    J[d] = 0;                                                                \
                    d--;                                                                     \
                }                                                                            \
                if (d < 0) break;                                                            \
            }                                                                                \
        }                                                                                    \
        free(small);                                                                         \
        free(tiny);                                                                          \
        free(row);                                                                           \
        free(next);                                                                          \
        free(at);                                                                            \
        free(power);                                                                         \
        free(h);                                                                             \
        free(ch);                                                                            \
        free(mu);                                                                            \
        free(sums);                                                                          \
        return ok ? 0 : -1;                                                                  \
    }                                                                                        \
                                                                                             \
    /* sum over y of f[y] q[cap - y]: the count, the closing factor multiplied last. */      \
    static T NAME##_closing_count(const Layout *L, const T *f, const T *q) {                 \
        T acc = 0;                                                                           \
        for (int64_t e = 0; e < L->size; e++) acc += f[e] * q[L->size - 1 - e];              \
        return acc;                                                                          \
    }

DEFINE_CLOSING(uint64_t, c64)
DEFINE_CLOSING(u128, c128)
