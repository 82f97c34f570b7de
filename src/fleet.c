/*
 * fleet.c: slices kept by name, snapshots built from the decoded records or patched from the
 * previous snapshot (see fleet.h).
 *
 * Entries point into the slice sets they came from; a set is freed when its last entry is
 * replaced or deleted. The name index is open addressing over entry numbers; a deletion moves
 * the last entry into the hole and rebuilds the index (deletions are rare next to updates).
 * The pool index finds the entries of a pool (driver, pool name): open addressing over the
 * first entry of each pool, the entries of one pool linked in a list.
 *
 * DeviceTaintRules are kept by name beside the slices (an array in arrival order, a deletion
 * moving the last rule into the hole, and a name index like the slices'); a rule added, changed
 * or deleted may taint any pool, so it makes the next snapshot a full build, and every build or
 * patch applies the rules, sorted by name, to the devices it builds. A rule given again as it
 * was changes nothing (a relist).
 *
 * The changed pools are a set of (driver, pool) with copies of the names (the records they
 * came from may be freed before the next snapshot). A load or a deletion notes its pools before
 * it changes anything (a pool noted by a load that then fails is only rebuilt for nothing);
 * when more pools changed than a patch would take, the set gives way to "everything changed"
 * and the next snapshot is built in full.
 */
#include "fleet.h"

#include <stdio.h>
#include <string.h>

#include "tablebuild.h"

typedef struct holder {
    dc_slice_set *set;
    uint32_t refs;
} holder;

#define NONE UINT32_MAX

typedef struct entry {
    const char *key;           /* metadata.name, or "file:line" when unnamed */
    const dc_slice_in *slice;
    uint32_t holder;
    uint32_t prev, next;       /* the other entries of its pool (NONE: none) */
    uint64_t pool;             /* pool_hash of its driver and pool */
} entry;

typedef struct rule_ent {
    const char *key;           /* metadata.name, or "file:line" when unnamed */
    const dc_taint_rule_in *rule;
    uint32_t holder;
} rule_ent;

/* A pool changed since the last snapshot. */
typedef struct dirty {
    uint64_t h;
    const char *driver, *pool; /* copies in dirty_strings */
    uint32_t n;                /* snapshot scratch: its slices found */
} dirty;

struct dc_fleet {
    dracel_alloc alloc;
    dc_dict *dict;
    entry *e;
    uint32_t n, cap;
    holder *h;
    uint32_t nh, caph;
    uint32_t *index;           /* entry + 1; 0 empty */
    uint32_t icap;
    uint32_t *pools;           /* pool index: its first entry + 1; 0 empty; icap slots */
    rule_ent *r;               /* DeviceTaintRules */
    uint32_t nr, capr;
    uint32_t *rindex;          /* rule + 1; 0 empty; ricap slots, at most half full */
    uint32_t ricap;
    /* Pools changed since the last snapshot (dc_fleet_snapshot_done). */
    bool all_dirty;            /* too many, or no snapshot yet: build in full */
    dirty *d;
    uint32_t nd, capd;
    uint32_t *dindex;          /* dirty + 1; 0 empty */
    uint32_t dicap;
    dc_arena dirty_strings;
};

/* Patch when the changed pools have at most this fraction of the rows (their rows before and
 * after together): beyond, a full build costs about as much. */
#define PATCH_LIMIT 0.5

static uint64_t hash(const char *s)
{
    uint64_t x = 1469598103934665603ULL;
    for (; *s; s++) {
        x ^= (unsigned char)*s;
        x *= 1099511628211ULL;
    }
    return x;
}

static uint64_t pool_hash(const char *driver, const char *pool)
{
    uint64_t x = hash(driver) * 0x9E3779B97F4A7C15ULL ^ hash(pool);
    return x ^ (x >> 29);
}

dc_fleet *dc_fleet_new(const dracel_alloc *a)
{
    a = a ? a : &dc_default_alloc;
    dc_fleet *f = dc_malloc(a, sizeof *f);
    if (!f)
        return NULL;
    memset(f, 0, sizeof *f);
    f->alloc = *a;
    f->all_dirty = true;
    dc_arena_init(&f->dirty_strings, &f->alloc);
    f->dict = dc_dict_new(a);
    if (!f->dict) {
        dc_free(a, f, sizeof *f);
        return NULL;
    }
    return f;
}

static void holder_drop(dc_fleet *f, uint32_t h)
{
    if (--f->h[h].refs == 0 && f->h[h].set) {
        dc_slice_set_free(f->h[h].set);
        dc_free(&f->alloc, f->h[h].set, sizeof *f->h[h].set);
        f->h[h].set = NULL;
    }
}

void dc_fleet_free(dc_fleet *f)
{
    if (!f)
        return;
    for (uint32_t i = 0; i < f->nh; i++)
        if (f->h[i].set) {
            dc_slice_set_free(f->h[i].set);
            dc_free(&f->alloc, f->h[i].set, sizeof *f->h[i].set);
        }
    dracel_alloc a = f->alloc;
    dc_free(&a, f->h, f->caph * sizeof *f->h);
    dc_free(&a, f->e, f->cap * sizeof *f->e);
    dc_free(&a, f->index, f->icap * sizeof *f->index);
    dc_free(&a, f->pools, f->icap * sizeof *f->pools);
    dc_free(&a, f->r, f->capr * sizeof *f->r);
    dc_free(&a, f->rindex, f->ricap * sizeof *f->rindex);
    dc_free(&a, f->d, f->capd * sizeof *f->d);
    dc_free(&a, f->dindex, f->dicap * sizeof *f->dindex);
    dc_arena_free(&f->dirty_strings);
    dc_dict_unref(f->dict);
    dc_free(&a, f, sizeof *f);
}

uint32_t dc_fleet_slices(const dc_fleet *f)
{
    return f->n;
}

uint32_t dc_fleet_rules(const dc_fleet *f)
{
    return f->nr;
}

static uint32_t find(const dc_fleet *f, const char *key)
{
    if (!f->icap)
        return UINT32_MAX;
    for (size_t i = hash(key) & (f->icap - 1);; i = (i + 1) & (f->icap - 1)) {
        uint32_t x = f->index[i];
        if (!x)
            return UINT32_MAX;
        if (strcmp(f->e[x - 1].key, key) == 0)
            return x - 1;
    }
}

/* ---- The pool index. */

static bool same_pool(const entry *e, uint64_t h, const char *driver, const char *pool)
{
    return e->pool == h && !strcmp(e->slice->driver, driver) && !strcmp(e->slice->pool, pool);
}

/* The slot of a pool, or of the empty slot where it would go (*found says which). */
static uint32_t pool_slot(const dc_fleet *f, uint64_t h, const char *driver, const char *pool,
                          bool *found)
{
    uint32_t mask = f->icap - 1, i = (uint32_t)h & mask;
    for (; f->pools[i]; i = (i + 1) & mask)
        if (same_pool(&f->e[f->pools[i] - 1], h, driver, pool)) {
            *found = true;
            return i;
        }
    *found = false;
    return i;
}

static uint32_t slot_of(const dc_fleet *f, uint32_t at)
{
    bool found;
    return pool_slot(f, f->e[at].pool, f->e[at].slice->driver, f->e[at].slice->pool, &found);
}

/* Entry `at` (its slice and hash set) joins its pool. */
static void pool_link(dc_fleet *f, uint32_t at)
{
    entry *e = &f->e[at];
    bool found;
    uint32_t i = pool_slot(f, e->pool, e->slice->driver, e->slice->pool, &found);
    e->prev = NONE;
    e->next = found ? f->pools[i] - 1 : NONE;
    if (found)
        f->e[e->next].prev = at;
    f->pools[i] = at + 1;
}

/* Entry `at` leaves its pool (its slice still the one it joined with). */
static void pool_unlink(dc_fleet *f, uint32_t at)
{
    entry *e = &f->e[at];
    if (e->next != NONE)
        f->e[e->next].prev = e->prev;
    if (e->prev != NONE) {
        f->e[e->prev].next = e->next;
        return;
    }
    uint32_t i = slot_of(f, at);
    if (e->next != NONE) {
        f->pools[i] = e->next + 1;
        return;
    }
    /* the pool's last entry: delete the slot, moving back the ones probing past it */
    uint32_t mask = f->icap - 1;
    for (uint32_t j = (i + 1) & mask; f->pools[j]; j = (j + 1) & mask) {
        uint32_t home = (uint32_t)f->e[f->pools[j] - 1].pool & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            f->pools[i] = f->pools[j];
            i = j;
        }
    }
    f->pools[i] = 0;
}

/* An entry was moved to `to`: its neighbours (or its pool's slot) follow. */
static void pool_moved(dc_fleet *f, uint32_t to)
{
    entry *e = &f->e[to];
    if (e->next != NONE)
        f->e[e->next].prev = to;
    if (e->prev != NONE)
        f->e[e->prev].next = to;
    else
        f->pools[slot_of(f, to)] = to + 1;
}

/* ---- Changed pools. */

static uint32_t dirty_find(const dc_fleet *f, uint64_t h, const char *driver, const char *pool)
{
    if (!f->dicap)
        return UINT32_MAX;
    for (uint32_t i = (uint32_t)h & (f->dicap - 1);; i = (i + 1) & (f->dicap - 1)) {
        uint32_t x = f->dindex[i];
        if (!x)
            return UINT32_MAX;
        const dirty *d = &f->d[x - 1];
        if (d->h == h && !strcmp(d->driver, driver) && !strcmp(d->pool, pool))
            return x - 1;
    }
}

static void everything_changed(dc_fleet *f)
{
    f->all_dirty = true;
    f->nd = 0;
    if (f->dicap)
        memset(f->dindex, 0, f->dicap * sizeof *f->dindex);
}

/* Note that the pool (driver, pool) changed. false on ENOMEM. */
static bool mark(dc_fleet *f, const char *driver, const char *pool)
{
    if (f->all_dirty)
        return true;
    uint64_t h = pool_hash(driver, pool);
    if (dirty_find(f, h, driver, pool) != UINT32_MAX)
        return true;
    if (f->nd >= f->n / 2 + 64) {
        everything_changed(f); /* more than a patch would take */
        return true;
    }
    if (f->nd == f->capd) {
        uint32_t cap = f->capd ? f->capd * 2 : 16;
        dirty *v = dc_realloc(&f->alloc, f->d, f->capd * sizeof *v, cap * sizeof *v);
        if (!v)
            return false;
        f->d = v;
        f->capd = cap;
    }
    if ((f->nd + 1) * 2 > f->dicap) {
        uint32_t cap = f->dicap ? f->dicap * 2 : 32;
        uint32_t *x = dc_malloc(&f->alloc, cap * sizeof *x);
        if (!x)
            return false;
        memset(x, 0, cap * sizeof *x);
        for (uint32_t k = 0; k < f->nd; k++) {
            uint32_t i = (uint32_t)f->d[k].h & (cap - 1);
            while (x[i])
                i = (i + 1) & (cap - 1);
            x[i] = k + 1;
        }
        dc_free(&f->alloc, f->dindex, f->dicap * sizeof *f->dindex);
        f->dindex = x;
        f->dicap = cap;
    }
    dirty *d = &f->d[f->nd];
    d->h = h;
    d->driver = dc_arena_strndup(&f->dirty_strings, driver, strlen(driver));
    d->pool = dc_arena_strndup(&f->dirty_strings, pool, strlen(pool));
    if (!d->driver || !d->pool)
        return false;
    uint32_t i = (uint32_t)h & (f->dicap - 1);
    while (f->dindex[i])
        i = (i + 1) & (f->dicap - 1);
    f->dindex[i] = ++f->nd;
    return true;
}

void dc_fleet_snapshot_done(dc_fleet *f)
{
    f->all_dirty = false;
    f->nd = 0;
    if (f->dicap)
        memset(f->dindex, 0, f->dicap * sizeof *f->dindex);
    dc_arena_reset(&f->dirty_strings);
}

static void index_put(dc_fleet *f, uint32_t at)
{
    size_t i = hash(f->e[at].key) & (f->icap - 1);
    while (f->index[i])
        i = (i + 1) & (f->icap - 1);
    f->index[i] = at + 1;
}

/* Room for `need` entries, the index at most half full. */
static bool reserve(dc_fleet *f, uint32_t need)
{
    if (need > f->cap) {
        uint32_t nc = f->cap ? f->cap : 64;
        while (nc < need)
            nc *= 2;
        entry *ne = dc_realloc(&f->alloc, f->e, f->cap * sizeof *f->e, nc * sizeof *ne);
        if (!ne)
            return false;
        f->e = ne;
        f->cap = nc;
    }
    if ((uint64_t)need * 2 > f->icap) {
        uint32_t ni = f->icap ? f->icap : 128;
        while ((uint64_t)need * 2 > ni)
            ni *= 2;
        uint32_t *nx = dc_malloc(&f->alloc, ni * sizeof *nx);
        uint32_t *np = dc_malloc(&f->alloc, ni * sizeof *np);
        if (!nx || !np) {
            dc_free(&f->alloc, nx, ni * sizeof *nx);
            dc_free(&f->alloc, np, ni * sizeof *np);
            return false;
        }
        memset(nx, 0, ni * sizeof *nx);
        memset(np, 0, ni * sizeof *np);
        dc_free(&f->alloc, f->index, f->icap * sizeof *f->index);
        dc_free(&f->alloc, f->pools, f->icap * sizeof *f->pools);
        f->index = nx;
        f->pools = np;
        f->icap = ni;
        for (uint32_t i = 0; i < f->n; i++) {
            index_put(f, i);
            if (f->e[i].prev == NONE) { /* a pool's first entry: its slot */
                bool found;
                uint32_t at = pool_slot(f, f->e[i].pool, f->e[i].slice->driver,
                                        f->e[i].slice->pool, &found);
                f->pools[at] = i + 1;
            }
        }
    }
    return true;
}

/* ---- The rules and their index. */

static uint32_t rule_find(const dc_fleet *f, const char *key)
{
    if (!f->ricap)
        return UINT32_MAX;
    for (size_t i = hash(key) & (f->ricap - 1);; i = (i + 1) & (f->ricap - 1)) {
        uint32_t x = f->rindex[i];
        if (!x)
            return UINT32_MAX;
        if (strcmp(f->r[x - 1].key, key) == 0)
            return x - 1;
    }
}

static void rindex_put(dc_fleet *f, uint32_t at)
{
    size_t i = hash(f->r[at].key) & (f->ricap - 1);
    while (f->rindex[i])
        i = (i + 1) & (f->ricap - 1);
    f->rindex[i] = at + 1;
}

/* Room for `need` rules, the index at most half full. */
static bool rule_reserve(dc_fleet *f, uint32_t need)
{
    if (need > f->capr) {
        uint32_t nc = f->capr ? f->capr : 16;
        while (nc < need)
            nc *= 2;
        rule_ent *nr = dc_realloc(&f->alloc, f->r, f->capr * sizeof *f->r, nc * sizeof *nr);
        if (!nr)
            return false;
        f->r = nr;
        f->capr = nc;
    }
    if ((uint64_t)need * 2 > f->ricap) {
        uint32_t ni = f->ricap ? f->ricap : 32;
        while ((uint64_t)need * 2 > ni)
            ni *= 2;
        uint32_t *nx = dc_malloc(&f->alloc, ni * sizeof *nx);
        if (!nx)
            return false;
        memset(nx, 0, ni * sizeof *nx);
        dc_free(&f->alloc, f->rindex, f->ricap * sizeof *f->rindex);
        f->rindex = nx;
        f->ricap = ni;
        for (uint32_t i = 0; i < f->nr; i++)
            rindex_put(f, i);
    }
    return true;
}

static bool same_opt(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether two rules taint the same devices in the same way. */
static bool same_rule(const dc_taint_rule_in *a, const dc_taint_rule_in *b)
{
    return same_opt(a->driver, b->driver) && same_opt(a->pool, b->pool) &&
           same_opt(a->device, b->device) && strcmp(a->taint.key, b->taint.key) == 0 &&
           same_opt(a->taint.value, b->taint.value) &&
           strcmp(a->taint.effect, b->taint.effect) == 0;
}

/* The key of a slice or rule: its name, else "file:line" (in the set's arena); NULL on ENOMEM. */
static const char *key_of(dc_slice_set *set, const char *name, const char *file, uint32_t line)
{
    return name && name[0] ? name : dc_arena_printf(&set->arena, "%s:%u", file, line);
}

dracel_status dc_fleet_apply(dc_fleet *f, dc_slice_set *set)
{
    /* Everything that can fail happens before the fleet changes. */
    uint32_t nk = set->n + set->nrules;
    const char **keys = nk ? dc_malloc(&f->alloc, nk * sizeof *keys) : NULL;
    bool ok = !nk || keys;
    for (uint32_t i = 0; ok && i < set->n; i++) {
        const dc_slice_in *sl = &set->slices[i];
        ok = (keys[i] = key_of(set, sl->name, sl->file, sl->line)) != NULL;
    }
    for (uint32_t i = 0; ok && i < set->nrules; i++) {
        const dc_taint_rule_in *ru = &set->rules[i];
        ok = (keys[set->n + i] = key_of(set, ru->name, ru->file, ru->line)) != NULL;
    }
    ok = ok && reserve(f, f->n + set->n) && rule_reserve(f, f->nr + set->nrules);
    for (uint32_t i = 0; ok && i < set->n; i++) {
        /* the pools it changes: its own, and the one of the slice it replaces */
        uint32_t at = find(f, keys[i]);
        ok = mark(f, set->slices[i].driver, set->slices[i].pool) &&
             (at == UINT32_MAX || mark(f, f->e[at].slice->driver, f->e[at].slice->pool));
    }
    uint32_t h = 0; /* a free holder slot, else a new one */
    while (h < f->nh && f->h[h].set)
        h++;
    if (ok && h == f->caph) {
        uint32_t nc = f->caph ? f->caph * 2 : 16;
        holder *nh = dc_realloc(&f->alloc, f->h, f->caph * sizeof *f->h, nc * sizeof *nh);
        if (nh) {
            f->h = nh;
            f->caph = nc;
        } else {
            ok = false;
        }
    }
    if (!ok) {
        dc_free(&f->alloc, keys, nk * sizeof *keys);
        dc_slice_set_free(set);
        dc_free(&f->alloc, set, sizeof *set);
        return DRACEL_ENOMEM;
    }
    if (h == f->nh)
        f->nh++;
    f->h[h].set = set;
    f->h[h].refs = 1; /* held while adding */
    for (uint32_t i = 0; i < set->n; i++) {
        const dc_slice_in *sl = &set->slices[i];
        uint32_t at = find(f, keys[i]);
        uint64_t ph = pool_hash(sl->driver, sl->pool);
        if (at != UINT32_MAX) {
            uint32_t old = f->e[at].holder;
            pool_unlink(f, at);
            f->e[at].key = keys[i];
            f->e[at].slice = sl;
            f->e[at].holder = h;
            f->e[at].pool = ph;
            pool_link(f, at);
            f->h[h].refs++;
            holder_drop(f, old);
        } else {
            f->e[f->n] = (entry){keys[i], sl, h, NONE, NONE, ph};
            index_put(f, f->n);
            pool_link(f, f->n);
            f->n++;
            f->h[h].refs++;
        }
    }
    for (uint32_t i = 0; i < set->nrules; i++) {
        const dc_taint_rule_in *ru = &set->rules[i];
        const char *key = keys[set->n + i];
        uint32_t at = rule_find(f, key);
        f->h[h].refs++;
        if (at != UINT32_MAX) {
            uint32_t old = f->r[at].holder;
            if (!same_rule(f->r[at].rule, ru))
                everything_changed(f);
            f->r[at] = (rule_ent){key, ru, h};
            holder_drop(f, old);
        } else {
            f->r[f->nr] = (rule_ent){key, ru, h};
            rindex_put(f, f->nr++);
            everything_changed(f);
        }
    }
    holder_drop(f, h);
    dc_free(&f->alloc, keys, nk * sizeof *keys);
    /* Forget holders that are gone (the tail only: indexes of live ones must not move). */
    while (f->nh && !f->h[f->nh - 1].set)
        f->nh--;
    return DRACEL_OK;
}

dracel_status dc_fleet_delete_rule(dc_fleet *f, const char *name)
{
    uint32_t at = rule_find(f, name);
    if (at == UINT32_MAX)
        return DRACEL_EINPUT;
    uint32_t h = f->r[at].holder;
    f->r[at] = f->r[--f->nr];
    memset(f->rindex, 0, f->ricap * sizeof *f->rindex);
    for (uint32_t i = 0; i < f->nr; i++)
        rindex_put(f, i);
    everything_changed(f);
    holder_drop(f, h);
    while (f->nh && !f->h[f->nh - 1].set)
        f->nh--;
    return DRACEL_OK;
}

dracel_status dc_fleet_delete(dc_fleet *f, const char *name)
{
    uint32_t at = find(f, name);
    if (at == UINT32_MAX)
        return DRACEL_EINPUT;
    if (!mark(f, f->e[at].slice->driver, f->e[at].slice->pool))
        return DRACEL_ENOMEM;
    uint32_t h = f->e[at].holder;
    pool_unlink(f, at);
    f->e[at] = f->e[--f->n];
    if (at != f->n)
        pool_moved(f, at);
    memset(f->index, 0, f->icap * sizeof *f->index);
    for (uint32_t i = 0; i < f->n; i++)
        index_put(f, i);
    holder_drop(f, h);
    while (f->nh && !f->h[f->nh - 1].set)
        f->nh--;
    return DRACEL_OK;
}

/* The changed pools and their slices now (in one allocation each, freed by the caller). */
static bool changes(dc_fleet *f, dc_patch_pool **out, const dc_slice_in ***slices,
                    uint32_t *nslices)
{
    *out = dc_malloc(&f->alloc, (f->nd + 1) * sizeof **out);
    if (!*out)
        return false;
    uint32_t total = 0;
    for (uint32_t k = 0; k < f->nd; k++) {
        bool found;
        uint32_t i = f->icap ? pool_slot(f, f->d[k].h, f->d[k].driver, f->d[k].pool, &found) : 0;
        f->d[k].n = 0;
        uint32_t first = f->icap && found ? f->pools[i] - 1 : NONE;
        for (uint32_t at = first; at != NONE; at = f->e[at].next)
            f->d[k].n++;
        total += f->d[k].n;
    }
    *slices = dc_malloc(&f->alloc, (total + 1) * sizeof **slices);
    if (!*slices) {
        dc_free(&f->alloc, *out, (f->nd + 1) * sizeof **out);
        return false;
    }
    *nslices = total;
    for (uint32_t k = 0, start = 0; k < f->nd; k++) {
        dc_patch_pool *c = &(*out)[k];
        *c = (dc_patch_pool){f->d[k].driver, f->d[k].pool, *slices + start, 0};
        start += f->d[k].n;
        bool found;
        uint32_t i = f->icap ? pool_slot(f, f->d[k].h, f->d[k].driver, f->d[k].pool, &found) : 0;
        uint32_t first = f->icap && found ? f->pools[i] - 1 : NONE;
        for (uint32_t at = first; at != NONE; at = f->e[at].next)
            c->slices[c->n++] = f->e[at].slice;
    }
    return true;
}

static int cmp_rule(const void *x, const void *y)
{
    return strcmp(((const rule_ent *)x)->key, ((const rule_ent *)y)->key);
}

/* The rules, sorted by name, as the builder reads them (shallow copies; freed by the caller). */
static dc_taint_rule_in *rules_view(dc_fleet *f)
{
    rule_ent *order = dc_malloc(&f->alloc, (f->nr + 1) * sizeof *order);
    dc_taint_rule_in *v = dc_malloc(&f->alloc, (f->nr + 1) * sizeof *v);
    if (!order || !v) {
        dc_free(&f->alloc, order, (f->nr + 1) * sizeof *order);
        dc_free(&f->alloc, v, (f->nr + 1) * sizeof *v);
        return NULL;
    }
    if (f->nr)
        memcpy(order, f->r, f->nr * sizeof *order);
    if (f->nr > 1)
        dc_sort(order, f->nr, sizeof *order, cmp_rule);
    for (uint32_t i = 0; i < f->nr; i++)
        v[i] = *order[i].rule;
    dc_free(&f->alloc, order, (f->nr + 1) * sizeof *order);
    return v;
}

dracel_status dc_fleet_snapshot(dc_fleet *f, const dc_table *base, const dracel_alloc *a,
                                dc_table **out, dc_patch_delta *delta, char *err, size_t errcap)
{
    *out = NULL;
    delta->nsegs = 0;
    dc_taint_rule_in *rules = rules_view(f);
    if (!rules) {
        if (err && errcap)
            snprintf(err, errcap, "out of memory");
        return DRACEL_ENOMEM;
    }
    dracel_status st;
    if (base && !f->all_dirty) {
        dc_patch_pool *chg;
        const dc_slice_in **slices;
        uint32_t nslices;
        if (!changes(f, &chg, &slices, &nslices)) {
            st = DRACEL_ENOMEM;
            goto done;
        }
        st = dc_table_patch(base, chg, f->nd, rules, f->nr, PATCH_LIMIT, a ? a : &f->alloc, out,
                            delta);
        dc_free(&f->alloc, slices, (nslices + 1) * sizeof *slices);
        dc_free(&f->alloc, chg, (f->nd + 1) * sizeof *chg);
        if (st != DRACEL_EINPUT)
            goto done;
        /* too large to patch: in full */
    }
    dc_slice_set view;
    memset(&view, 0, sizeof view);
    view.n = view.cap = f->n;
    view.rules = rules;
    view.nrules = view.caprules = f->nr;
    view.slices = f->n ? dc_malloc(&f->alloc, f->n * sizeof *view.slices) : NULL;
    if (f->n && !view.slices) {
        st = DRACEL_ENOMEM;
        goto done;
    }
    for (uint32_t i = 0; i < f->n; i++)
        view.slices[i] = *f->e[i].slice; /* shallow: the builder only reads */
    st = dc_table_build(&view, f->dict, a ? a : &f->alloc, out, err, errcap);
    dc_free(&f->alloc, view.slices, f->n * sizeof *view.slices);
done:
    dc_free(&f->alloc, rules, (f->nr + 1) * sizeof *rules);
    if (st == DRACEL_ENOMEM && err && errcap)
        snprintf(err, errcap, "out of memory");
    return st;
}
