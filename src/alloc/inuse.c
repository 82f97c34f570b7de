/*
 * alloc/inuse.c: devices in use (dc_usage): given per call, bound to one table, immutable; the
 * shared counters' values left after them, the capacity their shared allocations consume, and
 * the usage's hashes and counts for callers.
 *
 * Change with: src/alloc/allocint.h (struct dc_usage), src/alloc/search.c (its reader).
 */
#include "allocint.h"

#include <stdlib.h>
#include <string.h>

/* What the devices of @p bits (and of @p shared, a device counted once) consume, taken from
 * the shared counters' values (@p avail, one per t->shared). A counter that would go below the
 * most negative quantity stays as it was. */
static void take_counters(const dc_table *t, const dc_pindex *x, const uint64_t *bits,
                          const uint64_t *shared, dc_qty *avail)
{
    for (uint32_t j = 0; j < t->nconsumes; j++) {
        const dc_tcounter *c = &t->consumes[j];
        if (x->cons_k[j] == UINT32_MAX ||
            !(dc_bit(bits, c->owner) || (shared && dc_bit(shared, c->owner))))
            continue;
        dc_qty out;
        if (!dc_qty_sub(&avail[x->cons_k[j]], &c->value->q, &out))
            avail[x->cons_k[j]] = out;
    }
}

/* A usage of tt's table, its bitmap and counter values allocated (not filled); NULL when memory
 * runs out. */
static dc_usage *usage_alloc(const dracel_table *tt, const dracel_alloc *a)
{
    const dc_table *t = dc_api_table(tt);
    dc_usage *u = dc_malloc(a, sizeof *u);
    if (!u)
        return NULL;
    memset(u, 0, sizeof *u);
    u->a = a;
    u->tt = tt;
    u->bits = dc_malloc(a, (DC_BITS_WORDS(t->rows) + 1) * sizeof *u->bits);
    u->avail = dc_malloc(a, (t->nshared + 1) * sizeof *u->avail);
    if (!u->bits || !u->avail) {
        dc_usage_free(u);
        return NULL;
    }
    return u;
}

/* Mark the devices of ids in use (IDs the table does not have count for nothing), in the
 * newest generation and in the older ones a node may still allocate from (vm/table.h); found
 * counts the newest generation's. */
static void usage_mark(dc_usage *u, const dc_table *t, const dc_device_id *ids, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = dc_al_device_row(t, &ids[i]);
        if (r != UINT32_MAX && !dc_bit(u->bits, r)) {
            dc_bit_set(u->bits, r);
            u->found++;
        }
        for (uint32_t at = 0; (r = dc_al_device_older(t, &ids[i], &at)) != UINT32_MAX;)
            dc_bit_set(u->bits, r);
    }
}

/* The shared counters' values left once the devices in use (and the shared ones) consumed. */
static void usage_counters(dc_usage *u)
{
    const dc_table *t = dc_api_table(u->tt);
    for (uint32_t i = 0; i < t->nshared; i++)
        u->avail[i] = t->shared[i].value->q;
    take_counters(t, dc_api_table_pindex(u->tt), u->bits, u->shared, u->avail);
}

dracel_status dc_usage_new(const dracel_table *tt, const dracel_alloc *a, const dc_device_id *ids,
                           uint32_t n, dc_usage **out)
{
    const dc_table *t = dc_api_table(tt);
    dc_usage *u = *out = usage_alloc(tt, a);
    if (!u)
        return DRACEL_ENOMEM;
    memset(u->bits, 0, (DC_BITS_WORDS(t->rows) + 1) * sizeof *u->bits);
    usage_mark(u, t, ids, n);
    usage_counters(u);
    return DRACEL_OK;
}

static int cmp_ushare(const void *a, const void *b)
{
    const dc_ushare *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return strcmp(x->name, y->name);
}

dracel_status dc_usage_new_shared(const dracel_table *tt, const dracel_alloc *a,
                                  const dc_device_id *ids, uint32_t n, const dc_share_in *shares,
                                  uint32_t nshares, dc_usage **out)
{
    DC_TRY(dc_usage_new(tt, a, ids, n, out));
    if (!nshares)
        return DRACEL_OK;
    dc_usage *u = *out;
    const dc_table *t = dc_api_table(tt);
    size_t words = DC_BITS_WORDS(t->rows) + 1, names = 0, ncaps = 0;
    for (uint32_t i = 0; i < nshares; i++) {
        size_t copies = 1; /* the newest generation's row and the older ones' */
        for (uint32_t at = 0; dc_al_device_older(t, &shares[i].id, &at) != UINT32_MAX;)
            copies++;
        for (uint32_t k = 0; k < shares[i].ncaps; k++) {
            names += strlen(shares[i].caps[k].name) + 1;
            ncaps += copies;
        }
    }
    u->shared = dc_malloc(a, words * sizeof *u->shared);
    u->capshares = (uint32_t)ncaps + 1;
    u->shares = dc_malloc(a, u->capshares * sizeof *u->shares);
    u->names = dc_malloc(a, names + 1);
    u->names_len = names + 1;
    if (!u->shared || !u->shares || !u->names) {
        dc_usage_free(u);
        *out = NULL;
        return DRACEL_ENOMEM;
    }
    memset(u->shared, 0, words * sizeof *u->shared);
    char *np = u->names;
    for (uint32_t i = 0; i < nshares; i++) {
        uint32_t row = dc_al_device_row(t, &shares[i].id);
        for (uint32_t k = 0; k < shares[i].ncaps; k++) {
            const char *qt = shares[i].caps[k].value;
            dc_qty q;
            if (dc_qty_parse(qt, strlen(qt), &q)) {
                dc_usage_free(u);
                *out = NULL;
                return DRACEL_EINPUT;
            }
            size_t ln = strlen(shares[i].caps[k].name);
            memcpy(np, shares[i].caps[k].name, ln + 1);
            if (row != UINT32_MAX)
                u->shares[u->nshares++] = (dc_ushare){row, np, q};
            uint32_t r;
            for (uint32_t at = 0; (r = dc_al_device_older(t, &shares[i].id, &at)) != UINT32_MAX;)
                u->shares[u->nshares++] = (dc_ushare){r, np, q};
            np += ln + 1; /* IDs the table does not have count for nothing */
        }
        if (row != UINT32_MAX)
            dc_bit_set(u->shared, row);
        uint32_t r;
        for (uint32_t at = 0; (r = dc_al_device_older(t, &shares[i].id, &at)) != UINT32_MAX;)
            dc_bit_set(u->shared, r);
    }
    if (u->nshares > 1)
        dc_sort(u->shares, u->nshares, sizeof *u->shares, cmp_ushare);
    /* one entry per (row, name): the shares' sum */
    uint32_t m = 0;
    for (uint32_t i = 0; i < u->nshares; i++) {
        if (m && u->shares[m - 1].row == u->shares[i].row &&
            strcmp(u->shares[m - 1].name, u->shares[i].name) == 0) {
            dc_qty sum;
            if (!dc_qty_add(&u->shares[m - 1].q, &u->shares[i].q, &sum))
                u->shares[m - 1].q = sum;
            continue;
        }
        u->shares[m++] = u->shares[i];
    }
    u->nshares = m;
    usage_counters(u);
    return DRACEL_OK;
}

dracel_status dc_usage_derive(const dc_usage *prev, const dracel_alloc *a,
                              const dc_device_id *set, uint32_t nset, const dc_device_id *clear,
                              uint32_t nclear, dc_usage **out)
{
    /* prev has no shares: only dc_usage_new_shared makes them, and snapshots derive from
     * dc_usage_new's usages */
    const dc_table *t = dc_api_table(prev->tt);
    dc_usage *u = *out = usage_alloc(prev->tt, a);
    if (!u)
        return DRACEL_ENOMEM;
    memcpy(u->bits, prev->bits, (DC_BITS_WORDS(t->rows) + 1) * sizeof *u->bits);
    u->found = prev->found;
    for (uint32_t i = 0; i < nclear; i++) {
        uint32_t r = dc_al_device_row(t, &clear[i]);
        if (r != UINT32_MAX && dc_bit(u->bits, r)) {
            u->bits[r / 64] &= ~(1ull << (r % 64));
            u->found--;
        }
        for (uint32_t at = 0; (r = dc_al_device_older(t, &clear[i], &at)) != UINT32_MAX;)
            u->bits[r / 64] &= ~(1ull << (r % 64));
    }
    usage_mark(u, t, set, nset);
    usage_counters(u);
    return DRACEL_OK;
}

void dc_usage_free(dc_usage *u)
{
    if (!u)
        return;
    const dc_table *t = dc_api_table(u->tt);
    dc_free(u->a, u->bits, (DC_BITS_WORDS(t->rows) + 1) * sizeof *u->bits);
    dc_free(u->a, u->avail, (t->nshared + 1) * sizeof *u->avail);
    dc_free(u->a, u->shared, (DC_BITS_WORDS(t->rows) + 1) * sizeof *u->shared);
    dc_free(u->a, u->shares, u->capshares * sizeof *u->shares);
    dc_free(u->a, u->names, u->names_len);
    dc_free(u->a, u, sizeof *u);
}

uint32_t dc_usage_found(const dc_usage *u)
{
    return u ? u->found : 0;
}

const dracel_table *dc_usage_table(const dc_usage *u)
{
    return u ? u->tt : NULL;
}

/* Fold what the devices in use of pool p consume (and their names) into *h. */
static bool hash_pool_rows(const dc_usage *u, const dc_table *t, const dc_tpool *p, uint64_t *hp)
{
    uint64_t h = *hp;
    bool any = false;
    uint32_t si = 0; /* the shares, sorted by row */
    while (u->shared && si < u->nshares && u->shares[si].row < p->first_row)
        si++;
    for (uint32_t r = p->first_row; r < p->first_row + p->rows; r++) {
        if (u->shared && dc_bit(u->shared, r)) { /* what its shares consume, added up */
            for (; si < u->nshares && u->shares[si].row <= r; si++) {
                const dc_ushare *sh = &u->shares[si];
                if (sh->row != r)
                    continue;
                uint64_t x = 0x84222325CBF29CE4ULL ^ r;
                for (const char *c = sh->name; *c; c++)
                    x = (x ^ (unsigned char)*c) * 1099511628211ULL;
                x = (x ^ (uint64_t)sh->q.e) * 0x9E3779B97F4A7C15ULL;
                x ^= (uint64_t)sh->q.kscale * 0xC2B2AE3D27D4EB4FULL;
                const unsigned char *m = (const unsigned char *)&sh->q.m;
                for (size_t b = 0; b < sizeof sh->q.m; b++)
                    x = (x ^ m[b]) * 1099511628211ULL;
                h = (h ^ x) * 0xC2B2AE3D27D4EB4FULL;
                h ^= h >> 31;
            }
            any = true;
        }
        if (!dc_bit(u->bits, r))
            continue;
        const dc_str *name = dc_dict_str(t->dict, t->device_name[r]);
        uint64_t x = 1469598103934665603ULL;
        for (uint32_t k = 0; k < name->len; k++)
            x = (x ^ (unsigned char)name->data[k]) * 1099511628211ULL;
        x ^= name->len;
        h = (h ^ (x * 0x9E3779B97F4A7C15ULL)) * 0xC2B2AE3D27D4EB4FULL;
        h ^= h >> 29;
        any = true;
    }
    *hp = h;
    return any;
}

uint64_t dc_usage_pool_hash(const dc_usage *u, uint32_t pool)
{
    const dc_table *t = dc_api_table(u->tt);
    if (pool >= t->nlive_pools)
        return 0;
    uint64_t h = 0x2545F4914F6CDD1DULL;
    bool any = hash_pool_rows(u, t, &t->pools[pool], &h);
    /* and of its older generations (stale pools, sorted as their live pools are) */
    uint32_t lo = t->nlive_pools, hi = t->npools;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->pools[mid].live < pool)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < t->npools && t->pools[lo].live == pool; lo++)
        any |= hash_pool_rows(u, t, &t->pools[lo], &h);
    if (!any)
        return 0;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h ? h : 1;
}

uint32_t dc_usage_count_in(const dc_usage *u, const uint64_t *bits)
{
    const dc_table *t = dc_api_table(u->tt);
    uint32_t n = 0;
    /* the live rows: bits holds (live_rows + 63) / 64 words (dracel_usage_count) */
    for (size_t w = 0; w < t->live_rows / 64; w++)
        n += (uint32_t)__builtin_popcountll(u->bits[w] & bits[w]);
    if (t->live_rows % 64) {
        size_t w = t->live_rows / 64;
        uint64_t keep = ((uint64_t)1 << (t->live_rows % 64)) - 1;
        n += (uint32_t)__builtin_popcountll(u->bits[w] & bits[w] & keep);
    }
    return n;
}
