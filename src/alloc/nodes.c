/*
 * alloc/nodes.c: node selection: node selectors on a node's labels, the ones Kubernetes cannot
 * build (and the error it then gives), which rows and pools a node sees through the placement
 * index.
 *
 * Change with: src/alloc/allocint.h, src/alloc/pindex.c, src/alloc/run.c (its caller).
 */
#include "allocint.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The value of label @p key; the labels are sorted by key unless !sorted. */
static const char *label_of(const dc_node_in *n, const char *key, bool sorted)
{
    if (!sorted) {
        for (uint32_t i = 0; i < n->nlabels; i++)
            if (strcmp(n->labels[i].key, key) == 0)
                return n->labels[i].value;
        return NULL;
    }
    uint32_t lo = 0, hi = n->nlabels;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(n->labels[mid].key, key);
        if (c == 0)
            return n->labels[mid].value;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* A Gt/Lt operand: Kubernetes needs it to be both a label value and an int64 (strconv.ParseInt),
 * so only decimal digits (a label value cannot start with a sign). */
static bool parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return false;
    for (const char *c = s; *c; c++)
        if (*c < '0' || *c > '9')
            return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* One NodeSelectorRequirement, as k8s.io/component-helpers' nodeaffinity matches it. */
static bool req_matches(const dc_node_req_in *rq, const dc_node_in *n, bool sorted)
{
    const char *v;
    if (rq->field)
        v = strcmp(rq->key, "metadata.name") == 0 ? n->name : NULL;
    else
        v = label_of(n, rq->key, sorted);
    const char *op = rq->op;
    if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) {
        bool in = false;
        for (uint32_t i = 0; v && i < rq->nvalues; i++)
            in |= strcmp(rq->values[i], v) == 0;
        return op[0] == 'I' ? in : !in;
    }
    if (strcmp(op, "Exists") == 0)
        return v != NULL;
    if (strcmp(op, "DoesNotExist") == 0)
        return v == NULL;
    if (strcmp(op, "Gt") == 0 || strcmp(op, "Lt") == 0) {
        int64_t have, want;
        if (!v || rq->nvalues != 1 || !parse_i64(v, &have) || !parse_i64(rq->values[0], &want))
            return false;
        return op[0] == 'G' ? have > want : have < want;
    }
    return false;
}

/* ---- Node selectors Kubernetes cannot build. nodeaffinity.NewNodeSelector turns each
 * non-empty term into a label selector (labels.NewRequirement): a Gt/Lt value must then be an
 * int64 for strconv.ParseInt and a valid label value. The API server does not check that, so
 * such a selector reaches the allocator, which fails the pod: "failed to perform node
 * selection". (Everything else NewRequirement checks is checked when slices are read.) */

static bool go_parse_int(const char *s)
{
    size_t i = *s == '+' || *s == '-';
    if (!s[i])
        return false;
    for (const char *c = s + i; *c; c++)
        if (*c < '0' || *c > '9')
            return false;
    errno = 0;
    char *end;
    (void)strtoll(s, &end, 10);
    return !errno && !*end;
}

static bool alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* IsValidLabelValue's messages, "; "-joined, or NULL. */
static void label_value_msgs(const char *v, dc_buf *b, bool *any)
{
    size_t n = strlen(v);
    bool ok = n == 0 || (alnum(v[0]) && alnum(v[n - 1]));
    for (size_t i = 0; ok && i < n; i++)
        ok = alnum(v[i]) || v[i] == '-' || v[i] == '_' || v[i] == '.';
    if (n > 63) {
        dc_buf_puts(b, "must be no more than 63 characters");
        *any = true;
    }
    if (!ok) {
        dc_buf_puts(b, n > 63 ? "; " : "");
        dc_buf_puts(b, "a valid label must be an empty string or consist of alphanumeric "
                       "characters, '-', '_' or '.', and must start and end with an "
                       "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                       "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?"
                       "[A-Za-z0-9])?')");
        *any = true;
    }
}

/* The selector as Go prints a v1.NodeSelector (its generated String()). */
static void go_selector_string(dc_buf *b, const dc_node_selector_in *s)
{
    dc_buf_puts(b, "&NodeSelector{NodeSelectorTerms:[]NodeSelectorTerm{");
    for (uint32_t i = 0; i < s->n; i++) {
        dc_buf_puts(b, "NodeSelectorTerm{");
        for (int field = 0; field < 2; field++) {
            dc_buf_puts(b, field ? "MatchFields:[]NodeSelectorRequirement{"
                                 : "MatchExpressions:[]NodeSelectorRequirement{");
            for (uint32_t j = 0; j < s->terms[i].n; j++) {
                const dc_node_req_in *r = &s->terms[i].reqs[j];
                if (r->field != (field == 1))
                    continue;
                dc_buf_printf(b, "NodeSelectorRequirement{Key:%s,Operator:%s,Values:[", r->key,
                              r->op);
                for (uint32_t k = 0; k < r->nvalues; k++)
                    dc_buf_printf(b, "%s%s", k ? " " : "", r->values[k]);
                dc_buf_puts(b, "],},");
            }
            dc_buf_puts(b, "},");
        }
        dc_buf_puts(b, "},");
    }
    dc_buf_puts(b, "},}");
}

/* Whether @p s can be built; when not, NodeMatches' error into @p b ("failed to parse node
 * selector ...: FIELD: Invalid value: ...", several as "[a, b]", as utilerrors aggregates). */
bool dc_al_node_selector_bad(const dc_node_selector_in *s, dc_buf *b)
{
    uint32_t nerr = 0;
    dc_buf e;
    dc_buf_init(&e, b->alloc);
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t k = 0; /* index among the term's matchExpressions */
        for (uint32_t j = 0; j < s->terms[i].n; j++) {
            const dc_node_req_in *r = &s->terms[i].reqs[j];
            if (r->field)
                continue;
            uint32_t idx = k++;
            if ((strcmp(r->op, "Gt") != 0 && strcmp(r->op, "Lt") != 0) || r->nvalues != 1)
                continue;
            const char *v = r->values[0];
            bool lbad = false;
            dc_buf lm;
            dc_buf_init(&lm, b->alloc);
            label_value_msgs(v, &lm, &lbad);
            for (int part = 0; part < 2; part++) {
                if (part == 0 ? go_parse_int(v) : !lbad)
                    continue;
                dc_buf_puts(&e, nerr++ ? ", " : "");
                dc_buf_printf(&e, "nodeSelectorTerms[%u].matchExpressions[%u].values[0]: Invalid "
                              "value: \"%s\": %s", i, idx, v,
                              part == 0 ? "for 'Gt', 'Lt' operators, the value must be an integer"
                                        : (lm.data ? lm.data : ""));
            }
            dc_buf_free(&lm);
        }
    }
    if (nerr) {
        dc_buf_puts(b, "failed to parse node selector ");
        go_selector_string(b, s);
        dc_buf_printf(b, ": %s%s%s", nerr > 1 ? "[" : "", e.data ? e.data : "",
                      nerr > 1 ? "]" : "");
    }
    dc_buf_free(&e);
    return nerr > 0;
}

bool dc_node_selector_match(const dc_node_selector_in *s, const dc_node_in *n, bool sorted)
{
    for (uint32_t i = 0; i < s->n; i++) {
        const dc_node_term_in *term = &s->terms[i];
        if (term->n == 0)
            continue; /* an empty term matches nothing */
        bool ok = true;
        for (uint32_t j = 0; ok && j < term->n; j++)
            ok = req_matches(&term->reqs[j], n, sorted);
        if (ok)
            return true;
    }
    return false;
}

static bool row_on_node_ex(const dc_table *t, uint32_t row, const dc_node_in *n, uint32_t name_id,
                           bool sorted)
{
    switch ((dc_node_kind)t->node_kind[row]) {
    case DC_NODE_NAME: return name_id != DC_DICT_NONE && t->node[row] == name_id;
    case DC_NODE_ALL: return true;
    case DC_NODE_SELECTOR:
        return dc_node_selector_match((const dc_node_selector_in *)t->node_selectors[t->node[row]],
                                      n, sorted);
    }
    return false;
}

bool dc_al_row_on_node(const dc_table *t, uint32_t row, const dc_node_in *n, uint32_t name_id)
{
    return row_on_node_ex(t, row, n, name_id, true);
}

/* The range of x->named of a node name id. */
uint32_t dc_al_named_range(const dc_pindex *x, uint32_t name_id, uint32_t *end)
{
    uint32_t lo = 0, hi = x->nnamed;
    uint64_t key = (uint64_t)name_id << 32;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (x->named[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    *end = lo;
    while (name_id != DC_DICT_NONE && *end < x->nnamed && (x->named[*end] >> 32) == name_id)
        (*end)++;
    return lo;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether ascending v[0..n) holds x. */
static bool in_out(const size_t *v, size_t n, size_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x;
}

size_t dc_node_pools(const dc_table *t, const dc_pindex *x, const dc_node_in *n, bool sorted,
                     size_t *out, size_t cap)
{
    uint32_t name_id = dc_dict_find(t->dict, n->name, strlen(n->name), t->dict_limit);
    uint32_t end, i = dc_al_named_range(x, name_id, &end), g = 0;
    size_t count = 0, nlive = 0; /* out[0..nlive): the live pools, ascending */
    bool mapped = false;         /* an older generation's, as its live pool, after them */
    uint32_t last = UINT32_MAX, stale_of = UINT32_MAX;
    /* as dc_al_gather() visits slices (with per-device node selection, PartitionableDevices) */
    while (i < end || g < x->ngeneral) {
        uint32_t s;
        bool visible;
        if (g >= x->ngeneral || (i < end && (uint32_t)x->named[i] < x->general[g])) {
            s = (uint32_t)x->named[i++];
            visible = true;
        } else {
            s = x->general[g++];
            uint32_t a = t->slice_first[s], b = t->slice_first[s + 1];
            visible = false;
            if (dc_bit(t->slice_per_device, s)) {
                for (uint32_t row = a; !visible && row < b; row++)
                    visible = row_on_node_ex(t, row, n, name_id, sorted);
            } else {
                visible = row_on_node_ex(t, a, n, name_id, sorted);
            }
        }
        uint32_t pl = t->pool[t->slice_first[s]]; /* slices here have devices */
        if (!visible || pl == last)
            continue;
        last = pl;
        if (t->pools[pl].stale) {
            /* an older generation (after every live slice): as its live pool, once, when the
             * node sees no newer slice (dc_al_gather; with count > cap, only an upper bound) */
            uint32_t lp = t->pools[pl].live;
            if (lp == stale_of || in_out(out, nlive < cap ? nlive : cap, lp))
                continue;
            if (dc_al_pool_has_empty(t, lp))
                continue; /* taken as seen (dc_al_gather) */
            stale_of = lp;
            pl = lp;
            mapped = true;
        } else {
            nlive = count + 1;
        }
        if (count < cap)
            out[count] = pl;
        count++;
    }
    if (mapped && count > 1 && count <= cap)
        dc_sort(out, count, sizeof *out, cmp_size); /* ascending */
    return count;
}
