/* The search agent's weighted play-out in C (kwartet_epistemic.agents.search): Playout.play
 * with the likeliest-yes rollout on 64-bit masks, and that choice alone (likeliest).  The
 * Python code in search.py is its reference and gives the same scores without it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    PyModuleDef_HEAD_INIT, "_playout_kernel",
    "The search agent's play-outs in C (see agents/search.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__playout_kernel(void) { return PyModule_Create(&module); }
