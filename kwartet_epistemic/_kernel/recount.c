/* One player's (or the public) recount in one call (recount). */
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
