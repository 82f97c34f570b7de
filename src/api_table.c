/*
 * api_table.c: the public API of device tables, bound programs and selections
 * (include/dracel.h): loading (src/slices.c), building (src/table_build.c), fleets and their
 * patched snapshots (src/fleet.c, src/table_patch.c), pools, and running the vector VM or the
 * scalar VM row by row (vm/vvm.c).
 *
 * A dracel_table is reference counted: its caller holds one reference, and the fleet that made
 * it another while it is the base of the next snapshot.
 */
#include <string.h>

#include "alloc.h"
#include "apiint.h"
#include "fleet.h"
#include "slices.h"
#include "tablebuild.h"
#include "select.h"

struct dracel_table {
    dracel_config cfg;
    dracel_alloc alloc;
    dc_table *t;
    dc_pindex *pi;              /* what placement needs of the table, built with it */
    char **notes;
    size_t nnotes;
    uint32_t refs;              /* atomic: the caller's, and a fleet's whose base it is */
};

struct dracel_bound {
    dracel_config cfg;
    dc_bound *b;
    const dracel_program *prog;
};

struct dracel_selection {
    dracel_config cfg;
    dracel_alloc alloc;         /* a copy: the caller's hook struct need not outlive this */
    dc_selection sel;
};

static void set_err(char *err, size_t cap, const char *msg)
{
    if (err && cap) {
        strncpy(err, msg, cap - 1);
        err[cap - 1] = '\0';
    }
}

static dracel_status finish_table(const dracel_config *cfg, dc_slice_set *set, dracel_table **out,
                                  char *err, size_t errcap)
{
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    const dracel_alloc *a = dc_alloc_of(&c);
    dracel_table *tt = dc_malloc(a, sizeof *tt);
    if (!tt)
        return DRACEL_ENOMEM;
    memset(tt, 0, sizeof *tt);
    tt->refs = 1;
    tt->cfg = c;
    tt->alloc = *a;
    tt->cfg.alloc = &tt->alloc;
    dracel_status st = dc_table_build(set, NULL, &tt->alloc, &tt->t, err, errcap);
    if (st == DRACEL_OK)
        st = dc_pindex_build(tt->t, &tt->alloc, &tt->pi);
    if (st == DRACEL_OK && set->nnotes) {
        tt->notes = dc_malloc(a, set->nnotes * sizeof *tt->notes);
        if (!tt->notes)
            st = DRACEL_ENOMEM;
        for (uint32_t i = 0; st == DRACEL_OK && i < set->nnotes; i++) {
            size_t n = strlen(set->notes[i]);
            tt->notes[i] = dc_malloc(a, n + 1);
            if (!tt->notes[i]) {
                st = DRACEL_ENOMEM;
                break;
            }
            memcpy(tt->notes[i], set->notes[i], n + 1);
            tt->nnotes++;
        }
    }
    if (st != DRACEL_OK) {
        dracel_table_free(tt);
        return st;
    }
    *out = tt;
    return DRACEL_OK;
}

dracel_status dc_api_table_build(const dracel_config *cfg, dc_slice_set *set, dracel_table **out,
                                 char *err, size_t errcap)
{
    *out = NULL;
    dracel_status st = finish_table(cfg, set, out, err, errcap);
    if (st == DRACEL_ENOMEM)
        set_err(err, errcap, "out of memory");
    return st;
}

struct dracel_fleet {
    dracel_config cfg;
    dracel_alloc alloc;
    dc_fleet *f;
    dracel_table *base;         /* the last snapshot (a reference): the next is patched from it */
};

dracel_status dracel_fleet_new(const dracel_config *cfg, dracel_fleet **out)
{
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    const dracel_alloc *a = dc_alloc_of(&c);
    dracel_fleet *fl = dc_malloc(a, sizeof *fl);
    if (!fl)
        return DRACEL_ENOMEM;
    memset(fl, 0, sizeof *fl);
    fl->cfg = c;
    fl->alloc = *a;
    fl->cfg.alloc = &fl->alloc;
    fl->f = dc_fleet_new(&fl->alloc);
    if (!fl->f) {
        dc_free(a, fl, sizeof *fl);
        return DRACEL_ENOMEM;
    }
    *out = fl;
    return DRACEL_OK;
}

void dracel_fleet_free(dracel_fleet *fl)
{
    if (!fl)
        return;
    dracel_alloc a = fl->alloc;
    dracel_table_free(fl->base);
    dc_fleet_free(fl->f);
    dc_free(&a, fl, sizeof *fl);
}

static dracel_status fleet_load(dracel_fleet *fl, const char *path, const char *name,
                                const char *buf, size_t len, unsigned kinds, char *err,
                                size_t errcap)
{
    dc_slice_set *set = dc_malloc(&fl->alloc, sizeof *set);
    if (!set) {
        set_err(err, errcap, "out of memory");
        return DRACEL_ENOMEM;
    }
    dc_slice_set_init(set, &fl->alloc);
    set->keep_rules = kinds & DC_OBJ_RULE;
    set->skip_slices = !(kinds & DC_OBJ_SLICE);
    dracel_status st = path ? dc_slices_load(set, path, NULL, err, errcap)
                            : dc_slices_load_buffer(set, name ? name : "<buffer>", buf, len, NULL,
                                                    err, errcap);
    if (st != DRACEL_OK) {
        dc_slice_set_free(set);
        dc_free(&fl->alloc, set, sizeof *set);
        if (st == DRACEL_ENOMEM)
            set_err(err, errcap, "out of memory");
        return st;
    }
    st = dc_fleet_apply(fl->f, set); /* takes the set, also on failure */
    if (st == DRACEL_ENOMEM)
        set_err(err, errcap, "out of memory");
    return st;
}

dracel_status dracel_fleet_load(dracel_fleet *fl, const char *path, char *err, size_t errcap)
{
    if (!fl || !path)
        return DRACEL_EINVAL;
    return fleet_load(fl, path, NULL, NULL, 0, DC_OBJ_SLICE | DC_OBJ_RULE, err, errcap);
}

dracel_status dracel_fleet_load_buffer(dracel_fleet *fl, const char *name, const char *buf,
                                       size_t len, char *err, size_t errcap)
{
    if (!fl || (!buf && len))
        return DRACEL_EINVAL;
    return fleet_load(fl, NULL, name, buf ? buf : "", len, DC_OBJ_SLICE | DC_OBJ_RULE, err,
                      errcap);
}

dracel_status dc_api_fleet_load_buffer(dracel_fleet *fl, const char *name, const char *buf,
                                       size_t len, unsigned kinds, char *err, size_t errcap)
{
    return fleet_load(fl, NULL, name, buf ? buf : "", len, kinds, err, errcap);
}

dracel_status dracel_fleet_delete(dracel_fleet *fl, const char *slice_name)
{
    if (!fl || !slice_name)
        return DRACEL_EINVAL;
    return dc_fleet_delete(fl->f, slice_name);
}

dracel_status dracel_fleet_delete_rule(dracel_fleet *fl, const char *rule_name)
{
    if (!fl || !rule_name)
        return DRACEL_EINVAL;
    return dc_fleet_delete_rule(fl->f, rule_name);
}

size_t dracel_fleet_slices(const dracel_fleet *fl)
{
    return fl ? dc_fleet_slices(fl->f) : 0;
}

size_t dracel_fleet_rules(const dracel_fleet *fl)
{
    return fl ? dc_fleet_rules(fl->f) : 0;
}

dracel_status dracel_fleet_snapshot(dracel_fleet *fl, dracel_table **out, char *err,
                                    size_t errcap)
{
    if (!fl || !out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_table *tt = dc_malloc(&fl->alloc, sizeof *tt);
    if (!tt) {
        set_err(err, errcap, "out of memory");
        return DRACEL_ENOMEM;
    }
    memset(tt, 0, sizeof *tt);
    tt->refs = 1;
    tt->cfg = fl->cfg;
    tt->alloc = fl->alloc;
    tt->cfg.alloc = &tt->alloc;
    dracel_table *base = fl->base;
    dc_patch_delta delta = {&fl->alloc, NULL, 0, 0};
    dracel_status st = dc_fleet_snapshot(fl->f, base ? base->t : NULL, &tt->alloc, &tt->t, &delta,
                                         err, errcap);
    if (st == DRACEL_OK && tt->t->patched)
        st = dc_pindex_patch(base->t, base->pi, tt->t, &delta, &tt->alloc, &tt->pi);
    else if (st == DRACEL_OK)
        st = dc_pindex_build(tt->t, &tt->alloc, &tt->pi);
    dc_patch_delta_free(&delta);
    if (st != DRACEL_OK) {
        if (st == DRACEL_ENOMEM)
            set_err(err, errcap, "out of memory");
        dracel_table_free(tt);
        return st;
    }
    /* The next snapshot is patched from this one: the fleet keeps a reference. */
    dc_fleet_snapshot_done(fl->f);
    tt->refs = 2;
    fl->base = tt;
    dracel_table_free(base);
    *out = tt;
    return DRACEL_OK;
}

dracel_status dracel_table_load(const dracel_config *cfg, const char *path, dracel_table **out,
                                char *err, size_t errcap)
{
    if (!path || !out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    dc_slice_set set;
    dc_slice_set_init(&set, dc_alloc_of(&c));
    set.keep_rules = true; /* a table applies DeviceTaintRules, as a fleet does */
    dracel_status st = dc_slices_load(&set, path, NULL, err, errcap);
    if (st == DRACEL_OK)
        st = finish_table(cfg, &set, out, err, errcap);
    else if (st == DRACEL_ENOMEM)
        set_err(err, errcap, "out of memory");
    dc_slice_set_free(&set);
    return st;
}

dracel_status dracel_table_load_buffer(const dracel_config *cfg, const char *name, const char *buf,
                                       size_t len, dracel_table **out, char *err, size_t errcap)
{
    if (!buf || !out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    dc_slice_set set;
    dc_slice_set_init(&set, dc_alloc_of(&c));
    set.keep_rules = true;
    dracel_status st = dc_slices_load_buffer(&set, name ? name : "<buffer>", buf, len, NULL, err,
                                             errcap);
    if (st == DRACEL_OK)
        st = finish_table(cfg, &set, out, err, errcap);
    dc_slice_set_free(&set);
    return st;
}

void dracel_table_free(dracel_table *t)
{
    if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL))
        return;
    dracel_alloc a = t->alloc;
    for (size_t i = 0; i < t->nnotes; i++)
        dc_free(&a, t->notes[i], strlen(t->notes[i]) + 1);
    dc_free(&a, t->notes, t->nnotes * sizeof *t->notes);
    dc_pindex_free(t->pi);
    dc_table_free(t->t);
    dc_free(&a, t, sizeof *t);
}

uint32_t dracel_table_rows(const dracel_table *t)
{
    return t ? t->t->live_rows : 0; /* older generations' rows are the allocator's */
}

size_t dracel_table_bytes(const dracel_table *t)
{
    return t ? t->t->bytes : 0;
}

size_t dracel_table_notes(const dracel_table *t)
{
    return t ? t->nnotes : 0;
}

const char *dracel_table_note(const dracel_table *t, size_t i)
{
    return t && i < t->nnotes ? t->notes[i] : NULL;
}

static const char *state_name(dc_pool_state s)
{
    return s == DC_POOL_COMPLETE ? "complete" : s == DC_POOL_INCOMPLETE ? "incomplete" : "invalid";
}

dracel_status dracel_table_device_size(const dracel_table *tt, uint32_t row,
                                       dracel_device_info *out, size_t size)
{
    if (!tt || !out || row >= tt->t->live_rows)
        return DRACEL_EINVAL;
    const dc_table *t = tt->t;
    const dc_tpool *p = &t->pools[t->pool[row]];
    dracel_device_info x;
    x.driver = dc_dict_str(t->dict, p->driver)->data;
    x.pool = dc_dict_str(t->dict, p->name)->data;
    x.device = dc_dict_str(t->dict, t->device_name[row])->data;
    x.node = t->node_kind[row] == DC_NODE_NAME ? dc_dict_str(t->dict, t->node[row])->data : NULL;
    x.pool_state = state_name(p->state);
    return dc_struct_write(out, size, &x, sizeof x, sizeof x);
}

size_t dracel_table_pools(const dracel_table *t)
{
    return t ? t->t->nlive_pools : 0;
}

dracel_status dracel_table_pool_size(const dracel_table *tt, size_t i, dracel_pool_info *out,
                                     size_t size)
{
    if (!tt || !out || i >= tt->t->nlive_pools)
        return DRACEL_EINVAL;
    const dc_table *t = tt->t;
    const dc_tpool *p = &t->pools[i];
    dracel_pool_info x;
    memset(&x, 0, sizeof x);
    x.driver = dc_dict_str(t->dict, p->driver)->data;
    x.name = dc_dict_str(t->dict, p->name)->data;
    x.generation = p->generation;
    x.version = p->version;
    x.node = p->node == DC_DICT_NONE ? NULL : dc_dict_str(t->dict, p->node)->data;
    x.state = state_name(p->state);
    x.first_row = p->first_row;
    x.rows = p->rows;
    return dc_struct_write(out, size, &x, sizeof x, sizeof x);
}

dracel_status dracel_table_pool_find(const dracel_table *tt, const char *driver, const char *pool,
                                     size_t *index)
{
    if (!tt || !driver || !pool || !index)
        return DRACEL_EINVAL;
    const dc_table *t = tt->t;
    uint32_t lo = 0, hi = t->nlive_pools; /* sorted by driver, then name (bytes) */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(dc_dict_str(t->dict, t->pools[mid].driver)->data, driver);
        if (!c)
            c = strcmp(dc_dict_str(t->dict, t->pools[mid].name)->data, pool);
        if (!c) {
            *index = mid;
            return DRACEL_OK;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return DRACEL_EINPUT;
}

dracel_status dracel_table_device_find(const dracel_table *tt, const char *driver,
                                       const char *pool, const char *device, uint32_t *row)
{
    size_t pi;
    if (!device || !row)
        return DRACEL_EINVAL;
    dracel_status st = dracel_table_pool_find(tt, driver, pool, &pi);
    if (st != DRACEL_OK)
        return st;
    const dc_table *t = tt->t;
    const dc_tpool *p = &t->pools[pi];
    uint32_t id = dc_dict_find(t->dict, device, strlen(device), t->dict_limit);
    for (uint32_t r = p->first_row; id != DC_DICT_NONE && r < p->first_row + p->rows; r++)
        if (t->device_name[r] == id) {
            *row = r;
            return DRACEL_OK;
        }
    return DRACEL_EINPUT;
}

char *dracel_table_attribute_text(const dracel_table *tt, uint32_t row, const char *name)
{
    const char *slash = name ? strchr(name, '/') : NULL;
    if (!tt || !slash || row >= tt->t->live_rows)
        return NULL;
    const dc_table *t = tt->t;
    const dc_tcol *col = dc_table_col(t, false, name, (size_t)(slash - name), slash + 1,
                                      strlen(slash + 1));
    if (!col)
        return NULL;
    const dracel_alloc *a = dc_alloc_of(&tt->cfg);
    dc_ectx c;
    dc_ectx_init(&c, a);
    dc_val v;
    char *out = NULL;
    if (dc_tcol_get(t, col, row, &c, &v)) {
        dc_buf b;
        dc_buf_init(&b, a);
        if (v.k == DC_K_STRING)
            dc_buf_append(&b, v.u.s->data, v.u.s->len);
        else
            dc_val_text(&b, v);
        dc_buf_puts(&b, "");
        out = dc_buf_take(&b);
    }
    dc_ectx_free(&c);
    return out;
}

dracel_status dracel_bind(const dracel_program *p, const dracel_table *t, dracel_bound **out)
{
    if (!p || !t || !out)
        return DRACEL_EINVAL;
    *out = NULL;
    const dc_program *prog = dc_api_program(p);
    const dracel_alloc *a = &t->alloc;
    dracel_bound *b = dc_malloc(a, sizeof *b);
    if (!b)
        return DRACEL_ENOMEM;
    memset(b, 0, sizeof *b);
    b->cfg = t->cfg;
    b->prog = p;
    dracel_status st = dc_bind(prog, t->t, a, &b->b);
    if (st != DRACEL_OK) {
        dc_free(a, b, sizeof *b);
        return st;
    }
    *out = b;
    return DRACEL_OK;
}

void dracel_bound_free(dracel_bound *b)
{
    if (!b)
        return;
    dc_bound_free(b->b);
    dc_free(dc_alloc_of(&b->cfg), b, sizeof *b);
}

dracel_status dracel_selection_new(const dracel_config *cfg, dracel_selection **out)
{
    if (!out)
        return DRACEL_EINVAL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    const dracel_alloc *a = dc_alloc_of(&c);
    dracel_selection *s = dc_malloc(a, sizeof *s);
    if (!s)
        return DRACEL_ENOMEM;
    memset(s, 0, sizeof *s);
    s->cfg = c;
    s->alloc = *a;
    s->cfg.alloc = &s->alloc;
    dc_selection_init(&s->sel, &s->alloc);
    *out = s;
    return DRACEL_OK;
}

/* A selection shows the live rows only: the bits of older generations' rows (vm/table.h) are
 * cleared. */
static void hide_older(const dc_table *t, dc_selection *s)
{
    if (!t || t->live_rows == t->rows)
        return;
    for (uint32_t w = t->live_rows / 64; w < DC_BITS_WORDS(t->rows); w++) {
        uint64_t keep = w == t->live_rows / 64 ? ((uint64_t)1 << (t->live_rows % 64)) - 1 : 0;
        if (s->matched)
            s->matched[w] &= keep;
        if (s->errored)
            s->errored[w] &= keep;
    }
}

dracel_status dracel_select(const dracel_bound *b, const dracel_env *env,
                            const dracel_select_opts *o, dracel_selection *sel)
{
    dracel_status st = dc_api_select_all(b, env, o, sel);
    if (st == DRACEL_OK)
        hide_older(b->b->t, &sel->sel);
    return st;
}

dracel_status dc_api_select_all(const dracel_bound *b, const dracel_env *env,
                                const dracel_select_opts *o, dracel_selection *sel)
{
    if (!b || !env || !sel)
        return DRACEL_EINVAL;
    dracel_select_opts so;
    dracel_select_opts_init(&so);
    if (o)
        DC_TRY(dc_struct_read(&so, sizeof so, o, o->size, DC_SELECT_OPTS_SIZE_V1));
    if (so.vm != DRACEL_VM_VECTOR && so.vm != DRACEL_VM_SCALAR && so.vm != DRACEL_VM_BATCHED)
        return DRACEL_EINVAL;
    dc_vopts vo = {0};
    vo.batch = so.batch;
    vo.scalar = so.vm == DRACEL_VM_SCALAR;
    vo.batched = so.vm == DRACEL_VM_BATCHED;
    vo.keep_values = so.keep_values;
    vo.cost_limit = dc_api_program_cfg(b->prog)->cost_limit;
    vo.mem_limit = dc_api_program_cfg(b->prog)->eval_memory_limit;
    const dc_val *vars;
    dc_val *tmp = NULL;
    uint32_t n = dc_api_program(b->prog)->nvars;
    dracel_status st = dc_api_env_vars(env, dc_api_program(b->prog), &vars, &tmp);
    if (st != DRACEL_OK)
        return st;
    st = dc_select_run(b->b, vars, &vo, &sel->sel);
    dc_api_env_vars_done(env, n, tmp);
    return st;
}

const uint64_t *dracel_selection_matched(const dracel_selection *s)
{
    return s ? s->sel.matched : NULL;
}

const uint64_t *dracel_selection_errored(const dracel_selection *s)
{
    return s ? s->sel.errored : NULL;
}

const char *dracel_selection_error(const dracel_selection *s, uint32_t row)
{
    const dc_val *e = s ? dc_selection_error(&s->sel, row) : NULL;
    return e && e->k == DC_K_ERROR ? e->u.e->msg : NULL;
}

char *dracel_selection_value_json(const dracel_selection *s, uint32_t row)
{
    if (!s || !s->sel.values || row >= s->sel.rows)
        return NULL;
    dc_buf b;
    dc_buf_init(&b, dc_alloc_of(&s->cfg));
    dc_val_json(&b, s->sel.values[row]);
    dc_buf_puts(&b, "");
    return dc_buf_take(&b);
}

void dracel_selection_free(dracel_selection *s)
{
    if (!s)
        return;
    dracel_alloc a = s->alloc;
    dc_selection_free(&s->sel);
    dc_free(&a, s, sizeof *s);
}

const dc_table *dc_api_table(const dracel_table *t)
{
    return t ? t->t : NULL;
}

const dracel_alloc *dc_api_table_alloc(const dracel_table *t)
{
    return &t->alloc;
}

const dc_pindex *dc_api_table_pindex(const dracel_table *t)
{
    return t ? t->pi : NULL;
}

size_t dracel_table_nodes(const dracel_table *t)
{
    return t ? dc_pindex_nodes(t->pi) : 0;
}

const char *dracel_table_node(const dracel_table *t, size_t i)
{
    return t && i < dc_pindex_nodes(t->pi) ? dc_pindex_node(t->pi, (uint32_t)i) : NULL;
}

const dc_bound *dc_api_bound(const dracel_bound *b)
{
    return b ? b->b : NULL;
}
