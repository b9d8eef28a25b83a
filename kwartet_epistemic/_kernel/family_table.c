/* One family's polynomial (family_table). */
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
