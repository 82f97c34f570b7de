/*
 * load/yaml.c: YAML text into the loader's tree (src/ldint.h), for src/slices.c's decoders:
 * libyaml's events (aliases refused, every mark kept for lines and lint's columns), plain
 * scalars typed by YAML 1.1 resolution (dc_ld_resolve_plain), each document's root to the
 * per-document function or to dc_ld_dispatch.
 *
 * Change with: src/ldint.h, src/slices.c, src/load/json.c.
 */
#include "ldint.h"

#include <string.h>
#include <yaml.h>

static const char *const Y_STR_TAGS[] = {"tag:yaml.org,2002:str", "!", NULL};

/* Place a finished node at the current position of the builder. */
static dracel_status y_place(dc_ld *c, const dc_tnode *v, size_t *where)
{
    if (c->nfr == 0) {
        c->root = *v;
        *where = SIZE_MAX;
        return DRACEL_OK;
    }
    dc_yframe *f = &c->fr[c->nfr - 1];
    if (f->map && !f->want_key) {
        c->scr[c->nscr - 1].v = *v;
        f->want_key = true;
        *where = c->nscr - 1;
        return DRACEL_OK;
    }
    if (!dc_ld_grow(c->a, (void **)&c->scr, &c->capscr, c->nscr + 1, sizeof *c->scr))
        return dc_ld_oom(c);
    dc_tent *e = &c->scr[c->nscr++];
    e->k = NULL;
    e->klen = e->kline = 0;
    e->v = *v;
    *where = c->nscr - 1;
    return DRACEL_OK;
}

static dracel_status y_scalar(dc_ld *c, const yaml_event_t *ev)
{
    size_t len = ev->data.scalar.length;
    const char *txt = (const char *)ev->data.scalar.value;
    uint32_t line = (uint32_t)ev->start_mark.line + 1;
    if (memchr(txt, '\0', len))
        return dc_ld_fail(c, line, "YAML string contains a NUL character (not supported)");
    char *s = dc_arena_strndup(&c->doc, txt, len);
    if (!s)
        return dc_ld_oom(c);
    dc_tnode v;
    memset(&v, 0, sizeof v);
    v.t = DC_TN_STR;
    v.line = line;
    v.off = (uint32_t)ev->start_mark.index;
    v.s = s;
    v.n = (uint32_t)len;
    const char *tag = (const char *)ev->data.scalar.tag;
    if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        !(tag && dc_ld_eq_any(tag, strlen(tag), Y_STR_TAGS)))
        DC_TRY(dc_ld_resolve_plain(c, &v));
    if (c->nfr && c->fr[c->nfr - 1].map && c->fr[c->nfr - 1].want_key) {
        /* a key: as sigs.k8s.io/yaml turns it into a JSON object key */
        const char *k = v.s;
        char buf[32];
        if (v.t == DC_TN_BOOL)
            k = v.b ? "true" : "false";
        else if (v.t == DC_TN_NULL)
            k = "null";
        else if (v.t == DC_TN_INT) {
            if (v.iok)
                snprintf(buf, sizeof buf, "%lld", (long long)v.i);
            else
                snprintf(buf, sizeof buf, "%llu", (unsigned long long)(uint64_t)v.i);
            k = buf;
        }
        if (k != v.s && !(k = dc_arena_strndup(&c->doc, k, strlen(k))))
            return dc_ld_oom(c);
        if (!dc_ld_grow(c->a, (void **)&c->scr, &c->capscr, c->nscr + 1, sizeof *c->scr))
            return dc_ld_oom(c);
        dc_tent *e = &c->scr[c->nscr++];
        memset(e, 0, sizeof *e);
        e->k = k;
        e->klen = (uint32_t)strlen(k);
        e->kline = line;
        c->fr[c->nfr - 1].want_key = false;
        return DRACEL_OK;
    }
    size_t where;
    return y_place(c, &v, &where);
}

static dracel_status y_open(dc_ld *c, const yaml_event_t *ev, bool map)
{
    uint32_t line = (uint32_t)ev->start_mark.line + 1;
    if (c->nfr && c->fr[c->nfr - 1].map && c->fr[c->nfr - 1].want_key)
        return dc_ld_fail(c, line, "YAML mapping keys must be scalars");
    if (c->nfr + 1 > c->max_depth)
        return dc_ld_fail(c, line, "nesting deeper than %u", c->max_depth);
    dc_tnode v;
    memset(&v, 0, sizeof v);
    v.t = map ? DC_TN_MAP : DC_TN_SEQ;
    v.line = line;
    v.off = (uint32_t)ev->start_mark.index;
    size_t where;
    DC_TRY(y_place(c, &v, &where));
    if (!dc_ld_grow(c->a, (void **)&c->fr, &c->capfr, c->nfr + 1, sizeof *c->fr))
        return dc_ld_oom(c);
    c->fr[c->nfr++] = (dc_yframe){where, c->nscr, map, true};
    return DRACEL_OK;
}

static dracel_status y_close(dc_ld *c)
{
    if (c->nfr == 0)
        return dc_ld_fail(c, 0, "internal error: unbalanced YAML events");
    dc_yframe f = c->fr[--c->nfr];
    size_t n = c->nscr - f.first;
    dc_tent *kids = NULL;
    if (n) {
        kids = dc_arena_alloc(&c->doc, n * sizeof *kids);
        if (!kids)
            return dc_ld_oom(c);
        memcpy(kids, c->scr + f.first, n * sizeof *kids);
    }
    dc_tnode *node = f.self == SIZE_MAX ? &c->root : &c->scr[f.self].v;
    node->kids = kids;
    node->n = (uint32_t)n;
    c->nscr = f.first;
    return DRACEL_OK;
}

static dracel_status yaml_error(dc_ld *c, const yaml_parser_t *p, const char *buf, size_t len)
{
    if (p->error == YAML_MEMORY_ERROR)
        return dc_ld_oom(c);
    uint32_t line = p->error == YAML_READER_ERROR ? dc_ld_line_at(buf, len, p->problem_offset)
                                                  : (uint32_t)p->problem_mark.line + 1;
    c->fail_col = p->error == YAML_READER_ERROR ? dc_ld_col_at(buf, len, p->problem_offset)
                                                : (uint32_t)p->problem_mark.column + 1;
    if (p->context)
        return dc_ld_fail(c, line, "YAML syntax error: %s (%s at line %u)",
                          p->problem ? p->problem : "invalid input", p->context,
                          (unsigned)p->context_mark.line + 1);
    return dc_ld_fail(c, line, "YAML syntax error: %s", p->problem ? p->problem : "invalid input");
}

dracel_status dc_ld_load_yaml(dc_ld *c, const char *buf, size_t len)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return dc_ld_oom(c);
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    dracel_status st = DRACEL_OK;
    uint64_t values = 0;
    bool done = false;
    while (!done && st == DRACEL_OK) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            st = yaml_error(c, &p, buf, len);
            break;
        }
        if ((ev.type == YAML_SCALAR_EVENT || ev.type == YAML_SEQUENCE_START_EVENT ||
             ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_ALIAS_EVENT) &&
            ++values > DC_SLICES_MAX_VALUES_PER_FILE) {
            st = dc_ld_too_many_values(c, (uint32_t)ev.start_mark.line + 1);
        } else {
            switch (ev.type) {
            case YAML_STREAM_END_EVENT:
                done = true;
                break;
            case YAML_DOCUMENT_START_EVENT:
                memset(&c->root, 0, sizeof c->root);
                c->root.t = DC_TN_NULL;
                c->nscr = c->nfr = 0;
                break;
            case YAML_DOCUMENT_END_EVENT:
                st = c->per_doc ? c->per_doc(c, &c->root) : dc_ld_dispatch(c, &c->root, 0);
                dc_arena_reset(&c->doc);
                break;
            case YAML_ALIAS_EVENT:
                st = dc_ld_fail(c, (uint32_t)ev.start_mark.line + 1,
                                "YAML aliases are not supported");
                break;
            case YAML_SCALAR_EVENT:
                st = y_scalar(c, &ev);
                break;
            case YAML_SEQUENCE_START_EVENT:
                st = y_open(c, &ev, false);
                break;
            case YAML_MAPPING_START_EVENT:
                st = y_open(c, &ev, true);
                break;
            case YAML_SEQUENCE_END_EVENT:
            case YAML_MAPPING_END_EVENT:
                st = y_close(c);
                break;
            default:
                break;
            }
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    return st;
}
