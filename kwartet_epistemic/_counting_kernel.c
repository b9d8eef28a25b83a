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
 * One algorithm per file in _kernel/ (their shared types and macros in common.h), compiled
 * as one translation unit, so that the compiler sees every static helper; the search
 * agent's play-out is its own extension (agents/_playout_kernel.c).
 */
#include "_kernel/common.h"
#include "_kernel/family_table.c"
#include "_kernel/open_families.c"
#include "_kernel/factored.c"
#include "_kernel/sparse.c"
#include "_kernel/recount.c"
#include "_kernel/ryser.c"

static PyMethodDef methods[] = {
    {"programme", programme, METH_VARARGS,
     "programme(cap, polys, wanted, wide, backward_out[, closing]) -> count: the counting "
     "programme's products, exact modulo 2^64 (or 2^128 when wide); closing (cards, ones, "
     "dims_mask) multiplies the merged open families last."},
    {"factored", factored, METH_VARARGS,
     "factored(cap, dim_of, families, wanted, wide, backward_out[, modulus[, closing]]) -> count: programme() with "
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
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_counting_kernel",
    "Compiled inner loops of the counting engine (see epistemics/counting/).", -1, methods,
};

PyMODINIT_FUNC PyInit__counting_kernel(void) { return PyModule_Create(&module); }
