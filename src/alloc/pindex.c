/*
 * alloc/pindex.c: the placement index of a table (dc_pindex): built once per table (or patched
 * with it, src/table_patch.c) and read by every policy on it: counters by pool, slices by node,
 * the nodes named. Self-contained: nothing here reads a policy or a run.
 *
 * Change with: src/alloc/allocint.h (struct dc_pindex), src/alloc/nodes.c (its reader).
 */
#include "allocint.h"

#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Per pool, its first shared counter. */
static bool index_shared(dc_pindex *x, const dc_table *t)
{
    x->shared_first = dc_arena_zalloc(&x->arena, (t->npools + 1) * sizeof *x->shared_first);
    x->cons_k = dc_arena_zalloc(&x->arena, (t->nconsumes + 1) * sizeof *x->cons_k);
    if (!x->shared_first || !x->cons_k)
        return false;
    uint32_t k = 0;
    for (uint32_t pl = 0; pl <= t->npools; pl++) {
        while (k < t->nshared && t->shared[k].owner < pl)
            k++;
        x->shared_first[pl] = k;
    }
    return true;
}

/* The shared counter of consumed counters [j0, j1). */
static void index_consumes(dc_pindex *x, const dc_table *t, uint32_t j0, uint32_t j1)
{
    for (uint32_t j = j0; j < j1; j++) {
        const dc_tcounter *c = &t->consumes[j];
        uint32_t pl = t->pool[c->owner];
        x->cons_k[j] = UINT32_MAX;
        for (uint32_t i = x->shared_first[pl]; i < x->shared_first[pl + 1]; i++)
            if (t->shared[i].set == c->set && t->shared[i].name == c->name) {
                x->cons_k[j] = i;
                break;
            }
    }
}

/* How a slice is found for a node: not at all (no devices), by its node's name, or checked by
 * every node. */
enum { SL_EMPTY, SL_NAMED, SL_GENERAL };

static int slice_class(const dc_table *t, uint32_t s)
{
    uint32_t r = t->slice_first[s];
    if (r == t->slice_first[s + 1])
        return SL_EMPTY;
    return !dc_bit(t->slice_per_device, s) && t->node_kind[r] == DC_NODE_NAME ? SL_NAMED
                                                                               : SL_GENERAL;
}

static uint64_t named_key(const dc_table *t, uint32_t s)
{
    return ((uint64_t)t->node[t->slice_first[s]] << 32) | s;
}

/* Whether a sorted list of named slices has one of node id. */
static bool has_node(const uint64_t *named, uint32_t n, uint32_t id)
{
    uint32_t lo = 0, hi = n;
    uint64_t key = (uint64_t)id << 32;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (named[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && (named[lo] >> 32) == id;
}

dracel_status dc_pindex_build(const dc_table *t, const dracel_alloc *a, dc_pindex **out)
{
    *out = NULL;
    dc_pindex *x = dc_malloc(a, sizeof *x);
    if (!x)
        return DRACEL_ENOMEM;
    memset(x, 0, sizeof *x);
    x->a = a;
    dc_arena_init(&x->arena, a);
    if (!index_shared(x, t))
        goto nomem;
    index_consumes(x, t, 0, t->nconsumes);
    /* Slices by node. */
    uint32_t nn = 0, ng = 0;
    for (uint32_t s = 0; s < t->nslices; s++) {
        int c = slice_class(t, s);
        nn += c == SL_NAMED;
        ng += c == SL_GENERAL;
    }
    x->named = dc_arena_alloc(&x->arena, (nn + 1) * sizeof *x->named);
    x->general = dc_arena_alloc(&x->arena, (ng + 1) * sizeof *x->general);
    if (!x->named || !x->general)
        goto nomem;
    for (uint32_t s = 0; s < t->nslices; s++) {
        int c = slice_class(t, s);
        if (c == SL_NAMED)
            x->named[x->nnamed++] = named_key(t, s);
        else if (c == SL_GENERAL)
            x->general[x->ngeneral++] = s;
    }
    if (x->nnamed > 1)
        dc_sort(x->named, x->nnamed, sizeof *x->named, cmp_u64);
    /* The node names: one per run of named slices of one node, then sorted by name. */
    x->nodes = dc_arena_alloc(&x->arena, (x->nnamed + 1) * sizeof *x->nodes);
    if (!x->nodes)
        goto nomem;
    for (uint32_t i = 0; i < x->nnamed; i++)
        if (i == 0 || (x->named[i] >> 32) != (x->named[i - 1] >> 32))
            x->nodes[x->nnodes++] = dc_dict_str(t->dict, (uint32_t)(x->named[i] >> 32))->data;
    if (x->nnodes > 1)
        dc_sort(x->nodes, x->nnodes, sizeof *x->nodes, cmp_str);
    *out = x;
    return DRACEL_OK;
nomem:
    dc_pindex_free(x);
    return DRACEL_ENOMEM;
}

/* Sorted distinct node names of the ids in v (sorts v by name). */
static uint32_t names_of(const dc_table *t, const char **v, const uint32_t *ids, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        v[i] = dc_dict_str(t->dict, ids[i])->data;
    if (n > 1)
        dc_sort(v, n, sizeof *v, cmp_str);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!m || strcmp(v[m - 1], v[i]))
            v[m++] = v[i];
    return m;
}

dracel_status dc_pindex_patch(const dc_table *o, const dc_pindex *ox, const dc_table *t,
                              const struct dc_patch_delta *d, const dracel_alloc *a,
                              dc_pindex **out)
{
    *out = NULL;
    dc_pindex *x = dc_malloc(a, sizeof *x);
    if (!x)
        return DRACEL_ENOMEM;
    memset(x, 0, sizeof *x);
    x->a = a;
    dc_arena_init(&x->arena, a);
    dc_arena tmp; /* this call's scratch */
    dc_arena_init(&tmp, a);
    if (!index_shared(x, t))
        goto nomem;
    /* Consumed counters: a copied run's point to its shared counters, shifted with them. */
    uint32_t nb = 0, gb = 0; /* named and general slices of the built pools */
    for (uint32_t k = 0; k < d->nsegs; k++) {
        const dc_patch_seg *g = &d->segs[k];
        if (!g->copied) {
            index_consumes(x, t, g->new_cons, g->new_cons + g->cons);
            for (uint32_t s = g->new_slice; s < g->new_slice + g->slices; s++) {
                int c = slice_class(t, s);
                nb += c == SL_NAMED;
                gb += c == SL_GENERAL;
            }
            continue;
        }
        for (uint32_t j = 0; j < g->cons; j++) {
            uint32_t v = ox->cons_k[g->old_cons + j];
            x->cons_k[g->new_cons + j] = v == UINT32_MAX ? v : v + (g->new_shared - g->old_shared);
        }
    }
    /* Where the old slices went (UINT32_MAX: a changed pool's). */
    uint32_t *map = dc_arena_alloc(&tmp, (o->nslices + 1) * sizeof *map);
    uint64_t *bn = dc_arena_alloc(&tmp, (nb + 1) * sizeof *bn);
    uint32_t *bg = dc_arena_alloc(&tmp, (gb + 1) * sizeof *bg);
    x->named = dc_arena_alloc(&x->arena, (ox->nnamed + nb + 1) * sizeof *x->named);
    x->general = dc_arena_alloc(&x->arena, (ox->ngeneral + gb + 1) * sizeof *x->general);
    if (!map || !bn || !bg || !x->named || !x->general)
        goto nomem;
    memset(map, 0xff, (o->nslices + 1) * sizeof *map);
    nb = gb = 0;
    for (uint32_t k = 0; k < d->nsegs; k++) {
        const dc_patch_seg *g = &d->segs[k];
        for (uint32_t s = 0; g->copied && s < g->slices; s++)
            map[g->old_slice + s] = g->new_slice + s;
        for (uint32_t s = g->new_slice; !g->copied && s < g->new_slice + g->slices; s++) {
            int c = slice_class(t, s);
            if (c == SL_NAMED)
                bn[nb++] = named_key(t, s);
            else if (c == SL_GENERAL)
                bg[gb++] = s;
        }
    }
    if (nb > 1)
        dc_sort(bn, nb, sizeof *bn, cmp_u64);
    /* Named slices: the old ones that stay (their order kept: slices move in order), merged
     * with the built ones; node ids that may have gone or come. */
    uint32_t *gone = dc_arena_alloc(&tmp, (ox->nnamed + 1) * sizeof *gone), ngone = 0;
    uint32_t *came = dc_arena_alloc(&tmp, (nb + 1) * sizeof *came), ncame = 0;
    if (!gone || !came)
        goto nomem;
    uint32_t j = 0;
    for (uint32_t i = 0; i < ox->nnamed; i++) {
        uint32_t s = map[(uint32_t)ox->named[i]];
        if (s == UINT32_MAX) {
            gone[ngone++] = (uint32_t)(ox->named[i] >> 32);
            continue;
        }
        uint64_t e = (ox->named[i] & 0xFFFFFFFF00000000ULL) | s;
        while (j < nb && bn[j] < e)
            x->named[x->nnamed++] = bn[j++];
        x->named[x->nnamed++] = e;
    }
    while (j < nb)
        x->named[x->nnamed++] = bn[j++];
    j = 0;
    for (uint32_t i = 0; i < ox->ngeneral; i++) {
        uint32_t s = map[ox->general[i]];
        if (s == UINT32_MAX)
            continue;
        while (j < gb && bg[j] < s)
            x->general[x->ngeneral++] = bg[j++];
        x->general[x->ngeneral++] = s;
    }
    while (j < gb)
        x->general[x->ngeneral++] = bg[j++];
    /* The node names: the old ones, less those no slice names now, plus new ones. */
    uint32_t n = 0;
    for (uint32_t i = 0; i < ngone; i++)
        if (!has_node(x->named, x->nnamed, gone[i]))
            gone[n++] = gone[i];
    ngone = n;
    for (uint32_t i = 0; i < nb; i++) {
        uint32_t id = (uint32_t)(bn[i] >> 32);
        if ((!i || (bn[i - 1] >> 32) != id) && !has_node(ox->named, ox->nnamed, id))
            came[ncame++] = id;
    }
    const char **rm = dc_arena_alloc(&tmp, (ngone + 1) * sizeof *rm);
    const char **add = dc_arena_alloc(&tmp, (ncame + 1) * sizeof *add);
    x->nodes = dc_arena_alloc(&x->arena, (ox->nnodes + ncame + 1) * sizeof *x->nodes);
    if (!rm || !add || !x->nodes)
        goto nomem;
    ngone = names_of(t, rm, gone, ngone);
    ncame = names_of(t, add, came, ncame);
    uint32_t r = 0;
    j = 0;
    for (uint32_t i = 0; i < ox->nnodes; i++) {
        if (r < ngone && !strcmp(ox->nodes[i], rm[r])) {
            r++;
            continue;
        }
        while (j < ncame && strcmp(add[j], ox->nodes[i]) < 0)
            x->nodes[x->nnodes++] = add[j++];
        x->nodes[x->nnodes++] = ox->nodes[i];
    }
    while (j < ncame)
        x->nodes[x->nnodes++] = add[j++];
    dc_arena_free(&tmp);
    *out = x;
    return DRACEL_OK;
nomem:
    dc_arena_free(&tmp);
    dc_pindex_free(x);
    return DRACEL_ENOMEM;
}

void dc_pindex_describe(const dc_table *t, const dc_pindex *x, dc_buf *b)
{
    for (uint32_t p = 0; p <= t->npools; p++)
        dc_buf_printf(b, "pool %u shared from %u\n", p, x->shared_first[p]);
    for (uint32_t j = 0; j < t->nconsumes; j++)
        dc_buf_printf(b, "consumed %u: shared %d\n", j, (int)x->cons_k[j]);
    for (uint32_t i = 0; i < x->nnamed; i++) /* in node id order, which differs by dictionary */
        dc_buf_printf(b, "named %s slice %u%s\n",
                      dc_dict_str(t->dict, (uint32_t)(x->named[i] >> 32))->data,
                      (uint32_t)x->named[i],
                      i && x->named[i - 1] >= x->named[i] ? " UNSORTED" : "");
    for (uint32_t i = 0; i < x->ngeneral; i++)
        dc_buf_printf(b, "general slice %u%s\n", x->general[i],
                      i && x->general[i - 1] >= x->general[i] ? " UNSORTED" : "");
    for (uint32_t i = 0; i < x->nnodes; i++)
        dc_buf_printf(b, "node %s%s\n", x->nodes[i],
                      i && strcmp(x->nodes[i - 1], x->nodes[i]) >= 0 ? " UNSORTED" : "");
}

void dc_pindex_free(dc_pindex *x)
{
    if (!x)
        return;
    const dracel_alloc *a = x->a;
    dc_arena_free(&x->arena);
    dc_free(a, x, sizeof *x);
}

uint32_t dc_pindex_nodes(const dc_pindex *x)
{
    return x ? x->nnodes : 0;
}

const char *dc_pindex_node(const dc_pindex *x, uint32_t i)
{
    return x && i < x->nnodes ? x->nodes[i] : NULL;
}
