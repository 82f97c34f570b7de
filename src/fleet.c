/*
 * fleet.c: slices kept by name, snapshots built from the decoded records (see fleet.h).
 *
 * Entries point into the slice sets they came from; a set is freed when its last entry is
 * replaced or deleted. The name index is open addressing over entry numbers; a deletion moves
 * the last entry into the hole and rebuilds the index (deletions are rare next to updates).
 */
#include "fleet.h"

#include <stdio.h>
#include <string.h>

#include "tablebuild.h"

typedef struct holder {
    dc_slice_set *set;
    uint32_t refs;
} holder;

typedef struct entry {
    const char *key;           /* metadata.name, or "file:line" when unnamed */
    const dc_slice_in *slice;
    uint32_t holder;
} entry;

struct dc_fleet {
    dracel_alloc alloc;
    dc_dict *dict;
    entry *e;
    uint32_t n, cap;
    holder *h;
    uint32_t nh, caph;
    uint32_t *index;           /* entry + 1; 0 empty */
    uint32_t icap;
};

static uint64_t hash(const char *s)
{
    uint64_t x = 1469598103934665603ULL;
    for (; *s; s++) {
        x ^= (unsigned char)*s;
        x *= 1099511628211ULL;
    }
    return x;
}

dc_fleet *dc_fleet_new(const dracel_alloc *a)
{
    a = a ? a : &dc_default_alloc;
    dc_fleet *f = dc_malloc(a, sizeof *f);
    if (!f)
        return NULL;
    memset(f, 0, sizeof *f);
    f->alloc = *a;
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
    dc_dict_unref(f->dict);
    dc_free(&a, f, sizeof *f);
}

uint32_t dc_fleet_slices(const dc_fleet *f)
{
    return f->n;
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
        if (!nx)
            return false;
        memset(nx, 0, ni * sizeof *nx);
        dc_free(&f->alloc, f->index, f->icap * sizeof *f->index);
        f->index = nx;
        f->icap = ni;
        for (uint32_t i = 0; i < f->n; i++)
            index_put(f, i);
    }
    return true;
}

dracel_status dc_fleet_apply(dc_fleet *f, dc_slice_set *set)
{
    /* Everything that can fail happens before the fleet changes. */
    const char **keys = set->n ? dc_malloc(&f->alloc, set->n * sizeof *keys) : NULL;
    bool ok = !set->n || keys;
    for (uint32_t i = 0; ok && i < set->n; i++) {
        const dc_slice_in *sl = &set->slices[i];
        if (sl->name && sl->name[0])
            keys[i] = sl->name;
        else
            ok = (keys[i] = dc_arena_printf(&set->arena, "%s:%u", sl->file, sl->line)) != NULL;
    }
    ok = ok && reserve(f, f->n + set->n);
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
        dc_free(&f->alloc, keys, set->n * sizeof *keys);
        dc_slice_set_free(set);
        dc_free(&f->alloc, set, sizeof *set);
        return DRACEL_ENOMEM;
    }
    if (h == f->nh)
        f->nh++;
    f->h[h].set = set;
    f->h[h].refs = 1; /* held while adding */
    for (uint32_t i = 0; i < set->n; i++) {
        uint32_t at = find(f, keys[i]);
        if (at != UINT32_MAX) {
            uint32_t old = f->e[at].holder;
            f->e[at].key = keys[i];
            f->e[at].slice = &set->slices[i];
            f->e[at].holder = h;
            f->h[h].refs++;
            holder_drop(f, old);
        } else {
            f->e[f->n] = (entry){keys[i], &set->slices[i], h};
            index_put(f, f->n);
            f->n++;
            f->h[h].refs++;
        }
    }
    holder_drop(f, h);
    dc_free(&f->alloc, keys, set->n * sizeof *keys);
    /* Forget holders that are gone (the tail only: indexes of live ones must not move). */
    while (f->nh && !f->h[f->nh - 1].set)
        f->nh--;
    return DRACEL_OK;
}

dracel_status dc_fleet_delete(dc_fleet *f, const char *name)
{
    uint32_t at = find(f, name);
    if (at == UINT32_MAX)
        return DRACEL_EINPUT;
    uint32_t h = f->e[at].holder;
    f->e[at] = f->e[--f->n];
    memset(f->index, 0, f->icap * sizeof *f->index);
    for (uint32_t i = 0; i < f->n; i++)
        index_put(f, i);
    holder_drop(f, h);
    while (f->nh && !f->h[f->nh - 1].set)
        f->nh--;
    return DRACEL_OK;
}

dracel_status dc_fleet_snapshot(dc_fleet *f, const dracel_alloc *a, dc_table **out, char *err,
                                size_t errcap)
{
    *out = NULL;
    dc_slice_set view;
    memset(&view, 0, sizeof view);
    view.n = view.cap = f->n;
    view.slices = f->n ? dc_malloc(&f->alloc, f->n * sizeof *view.slices) : NULL;
    if (f->n && !view.slices) {
        if (err && errcap)
            snprintf(err, errcap, "out of memory");
        return DRACEL_ENOMEM;
    }
    for (uint32_t i = 0; i < f->n; i++)
        view.slices[i] = *f->e[i].slice; /* shallow: the builder only reads */
    dracel_status st = dc_table_build(&view, f->dict, a ? a : &f->alloc, out, err, errcap);
    dc_free(&f->alloc, view.slices, f->n * sizeof *view.slices);
    return st;
}
