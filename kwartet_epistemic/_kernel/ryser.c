/* Counts and location sums by Ryser's formula (ryser). */
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
