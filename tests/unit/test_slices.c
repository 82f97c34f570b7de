/*
 * test_slices.c: unit tests for src/slices.c, the ResourceSlice loader. Data files live in
 * tests/data/slices/ (the tests run from the top of the source tree):
 *   basic.yaml  five ResourceSlices and a Pod as a YAML stream (one object without kind)
 *   basic.json  the same as a JSON `kind: List`
 *   list.yaml   the same slices as a `kind: ResourceSliceList` with other YAML spellings
 *   dir/        a directory: a.json, b.yaml, c.yml are read; README.md, notes.txt and the
 *               directory zz.yaml/ are not
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "slices.h"
#include "tablebuild.h"
#include "arena.h"
#include "common.h"
#include "testutil.h"

#define DATA "tests/data/slices/"

/* ---------------------------------------------------------------------------------------------
 * Helpers
 */

static char err[1024];

static dracel_status load_text(dc_slice_set *s, const char *name, const char *text,
                               const dc_slices_limits *lim)
{
    return dc_slices_load_buffer(s, name, text, strlen(text), lim, err, sizeof err);
}

/* Load text alone and expect it to be rejected with exactly msg. */
static void check_err(const char *name, const char *text, const char *msg, int line)
{
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    s.keep_rules = true;
    dracel_status st = load_text(&s, name, text, NULL);
    if (st != DRACEL_EINPUT || strcmp(err, msg) != 0)
        fail_msg("case at test line %d: status %d\n got: %s\nwant: %s", line, st, err, msg);
    assert_int_equal(s.n, 0);
    dc_slice_set_free(&s);
}
#define CHECK_ERR(name, text, msg) check_err(name, text, msg, __LINE__)

static void check_ok(const char *name, const char *text, int line)
{
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    dracel_status st = load_text(&s, name, text, NULL);
    if (st != DRACEL_OK)
        fail_msg("case at test line %d: status %d: %s", line, st, err);
    dc_slice_set_free(&s);
}
#define CHECK_OK(name, text) check_ok(name, text, __LINE__)

static const dc_slice_in *find_slice(const dc_slice_set *s, const char *name)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (strcmp(s->slices[i].name, name) == 0)
            return &s->slices[i];
    fail_msg("no slice %s", name);
    return NULL;
}

static const dc_attr_in *find_attr(const dc_device_in *d, const char *name)
{
    for (uint32_t i = 0; i < d->nattrs; i++)
        if (strcmp(d->attrs[i].name, name) == 0)
            return &d->attrs[i];
    fail_msg("no attribute %s on %s", name, d->name);
    return NULL;
}

static void same_counter_sets(const dc_counter_set_in *a, const dc_counter_set_in *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        same_str(a[i].name, b[i].name);
        assert_int_equal(a[i].n, b[i].n);
        for (uint32_t j = 0; j < a[i].n; j++) {
            same_str(a[i].counters[j].name, b[i].counters[j].name);
            same_str(a[i].counters[j].value, b[i].counters[j].value);
        }
    }
}

static void same_scope(const dc_node_scope_in *a, const dc_node_scope_in *b)
{
    same_str(a->node_name, b->node_name);
    assert_int_equal(a->all_nodes, b->all_nodes);
    assert_int_equal(a->per_device, b->per_device);
    assert_int_equal(a->selector == NULL, b->selector == NULL);
    if (!a->selector)
        return;
    assert_int_equal(a->selector->n, b->selector->n);
    for (uint32_t i = 0; i < a->selector->n; i++) {
        const dc_node_term_in *x = &a->selector->terms[i], *y = &b->selector->terms[i];
        assert_int_equal(x->n, y->n);
        for (uint32_t j = 0; j < x->n; j++) {
            same_str(x->reqs[j].key, y->reqs[j].key);
            same_str(x->reqs[j].op, y->reqs[j].op);
            assert_int_equal(x->reqs[j].field, y->reqs[j].field);
            assert_int_equal(x->reqs[j].nvalues, y->reqs[j].nvalues);
            for (uint32_t k = 0; k < x->reqs[j].nvalues; k++)
                same_str(x->reqs[j].values[k], y->reqs[j].values[k]);
        }
    }
}

/* Everything but file and line numbers. */
static void same_sets(const dc_slice_set *a, const dc_slice_set *b)
{
    assert_int_equal(a->n, b->n);
    for (uint32_t i = 0; i < a->n; i++) {
        const dc_slice_in *x = &a->slices[i], *y = &b->slices[i];
        same_str(x->name, y->name);
        same_str(x->driver, y->driver);
        same_str(x->pool, y->pool);
        assert_int_equal(x->generation, y->generation);
        assert_int_equal(x->slice_count, y->slice_count);
        same_scope(&x->node, &y->node);
        assert_int_equal(x->nshared, y->nshared);
        same_counter_sets(x->shared_counters, y->shared_counters, x->nshared);
        assert_int_equal(x->ndevices, y->ndevices);
        for (uint32_t j = 0; j < x->ndevices; j++) {
            const dc_device_in *d = &x->devices[j], *e = &y->devices[j];
            same_str(d->name, e->name);
            assert_int_equal(d->nattrs, e->nattrs);
            for (uint32_t k = 0; k < d->nattrs; k++) {
                const dc_attr_in *p = &d->attrs[k], *q = &e->attrs[k];
                same_str(p->name, q->name);
                assert_int_equal(p->kind, q->kind);
                assert_true(p->i == q->i);
                assert_int_equal(p->b, q->b);
                same_str(p->s, q->s);
                assert_int_equal(p->slen, q->slen);
            }
            assert_int_equal(d->ncaps, e->ncaps);
            for (uint32_t k = 0; k < d->ncaps; k++) {
                same_str(d->caps[k].name, e->caps[k].name);
                same_str(d->caps[k].value, e->caps[k].value);
            }
            assert_int_equal(d->ntaints, e->ntaints);
            for (uint32_t k = 0; k < d->ntaints; k++) {
                same_str(d->taints[k].key, e->taints[k].key);
                same_str(d->taints[k].value, e->taints[k].value);
                same_str(d->taints[k].effect, e->taints[k].effect);
            }
            assert_int_equal(d->nconsumes, e->nconsumes);
            same_counter_sets(d->consumes, e->consumes, d->nconsumes);
            same_scope(&d->node, &e->node);
            assert_int_equal(d->allow_multiple, e->allow_multiple);
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Formats and shapes
 */

static void test_basic_content(void **state)
{
    (void)state;
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    assert_int_equal(dc_slices_load(&s, DATA "basic.yaml", NULL, err, sizeof err), DRACEL_OK);
    assert_string_equal(err, "");
    assert_int_equal(s.n, 5);

    const dc_slice_in *g = find_slice(&s, "node-a-gpu");
    assert_string_equal(g->file, DATA "basic.yaml");
    assert_string_equal(g->driver, "gpu.example.com");
    assert_string_equal(g->pool, "node-a");
    assert_int_equal(g->generation, 3);
    assert_int_equal(g->slice_count, 1);
    assert_string_equal(g->node.node_name, "node-a");
    assert_false(g->node.all_nodes);
    assert_false(g->node.per_device);
    assert_null(g->node.selector);
    assert_int_equal(g->ndevices, 2);
    const dc_device_in *d = &g->devices[0];
    assert_string_equal(d->name, "gpu-0");
    assert_int_equal(d->nattrs, 8);
    assert_string_equal(d->attrs[0].name, "model"); /* document order */
    assert_int_equal(d->attrs[0].kind, DC_ATTR_STRING);
    assert_string_equal(d->attrs[0].s, "H100");
    assert_int_equal(d->attrs[0].slen, 4);
    assert_int_equal(find_attr(d, "index")->kind, DC_ATTR_INT);
    assert_true(find_attr(d, "index")->i == 0);
    assert_int_equal(find_attr(d, "driverVersion")->kind, DC_ATTR_VERSION);
    assert_string_equal(find_attr(d, "driverVersion")->s, "550.54.15");
    assert_int_equal(find_attr(d, "mig.example.com/capable")->kind, DC_ATTR_BOOL);
    assert_true(find_attr(d, "mig.example.com/capable")->b);
    assert_true(find_attr(d, "big")->i == INT64_C(9007199254740993));
    assert_true(find_attr(d, "min")->i == INT64_MIN);
    assert_true(find_attr(d, "hex")->i == 16);
    assert_true(find_attr(d, "sep")->i == 1000);
    assert_int_equal(d->ncaps, 2);
    assert_string_equal(d->caps[0].name, "memory");
    assert_string_equal(d->caps[0].value, "80Gi");
    assert_string_equal(d->caps[1].name, "cores");
    assert_string_equal(d->caps[1].value, "8");
    assert_true(d->allow_multiple);
    assert_int_equal(d->ntaints, 0);
    d = &g->devices[1];
    assert_false(d->allow_multiple);
    assert_int_equal(d->ntaints, 2);
    assert_string_equal(d->taints[0].key, "example.com/unhealthy");
    assert_string_equal(d->taints[0].value, "true");
    assert_string_equal(d->taints[0].effect, "NoSchedule");
    assert_string_equal(d->taints[1].key, "maintenance");
    assert_null(d->taints[1].value);
    assert_string_equal(d->taints[1].effect, "None");

    const dc_slice_in *cs = find_slice(&s, "node-a-counters");
    assert_string_equal(cs->pool, "node-a/partitions");
    assert_int_equal(cs->ndevices, 0);
    assert_int_equal(cs->nshared, 1);
    assert_string_equal(cs->shared_counters[0].name, "gpu-0-counters");
    assert_int_equal(cs->shared_counters[0].n, 2);
    assert_string_equal(cs->shared_counters[0].counters[1].name, "sm");
    assert_string_equal(cs->shared_counters[0].counters[1].value, "132");

    const dc_slice_in *pd = find_slice(&s, "node-a-partitions");
    assert_true(pd->node.per_device);
    assert_null(pd->node.node_name);
    assert_int_equal(pd->ndevices, 3);
    assert_int_equal(pd->devices[0].nconsumes, 1);
    assert_string_equal(pd->devices[0].consumes[0].name, "gpu-0-counters");
    assert_string_equal(pd->devices[0].consumes[0].counters[0].value, "40Gi");
    assert_string_equal(pd->devices[0].consumes[0].counters[1].value, "66");
    assert_string_equal(pd->devices[0].node.node_name, "node-a");
    assert_true(pd->devices[1].node.all_nodes);
    const dc_node_selector_in *sel = pd->devices[2].node.selector;
    assert_non_null(sel);
    assert_int_equal(sel->n, 2);
    assert_int_equal(sel->terms[0].n, 1);
    assert_string_equal(sel->terms[0].reqs[0].key, "topology.kubernetes.io/zone");
    assert_string_equal(sel->terms[0].reqs[0].op, "In");
    assert_int_equal(sel->terms[0].reqs[0].nvalues, 2);
    assert_string_equal(sel->terms[0].reqs[0].values[1], "zone-b");
    assert_false(sel->terms[0].reqs[0].field);
    assert_true(sel->terms[1].reqs[0].field);
    assert_string_equal(sel->terms[1].reqs[0].key, "metadata.name");

    const dc_slice_in *nic = find_slice(&s, "rack-1-nics");
    sel = nic->node.selector;
    assert_non_null(sel);
    assert_int_equal(sel->n, 1);
    assert_int_equal(sel->terms[0].n, 3);
    assert_string_equal(sel->terms[0].reqs[1].op, "Exists");
    assert_int_equal(sel->terms[0].reqs[1].nvalues, 0);
    assert_string_equal(sel->terms[0].reqs[2].op, "Gt");
    assert_string_equal(sel->terms[0].reqs[2].values[0], "8");
    assert_true(find_attr(&nic->devices[0], "example.com/speed")->i == 100);
    assert_string_equal(find_attr(&nic->devices[0], "pci")->s, "0000:3b:00.0");

    const dc_slice_in *f = find_slice(&s, "cluster-fpga");
    assert_true(f->node.all_nodes);
    assert_int_equal(f->generation, 7);
    assert_false(find_attr(&f->devices[0], "ok")->b);
    assert_string_equal(find_attr(&f->devices[0], "v")->s, "1.0.0-rc.1+build.5");

    assert_int_equal(s.nnotes, 1);
    assert_string_equal(s.notes[0], DATA "basic.yaml:58: skipped object of kind Pod (web-0)");
    dc_slice_set_free(&s);
}

static void test_json_yaml_same(void **state)
{
    (void)state;
    dc_slice_set y, j, l;
    dc_slice_set_init(&y, NULL);
    dc_slice_set_init(&j, NULL);
    dc_slice_set_init(&l, NULL);
    assert_int_equal(dc_slices_load(&y, DATA "basic.yaml", NULL, err, sizeof err), DRACEL_OK);
    assert_int_equal(dc_slices_load(&j, DATA "basic.json", NULL, err, sizeof err), DRACEL_OK);
    assert_int_equal(dc_slices_load(&l, DATA "list.yaml", NULL, err, sizeof err), DRACEL_OK);
    same_sets(&y, &j);
    same_sets(&y, &l);
    assert_int_equal(j.nnotes, 1);
    assert_string_equal(j.notes[0], DATA "basic.json:48: skipped object of kind Pod (web-0)");
    assert_int_equal(l.nnotes, 0);
    dc_slice_set_free(&y);
    dc_slice_set_free(&j);
    dc_slice_set_free(&l);
}

static void test_line_numbers(void **state)
{
    (void)state;
    dc_slice_set y, j;
    dc_slice_set_init(&y, NULL);
    dc_slice_set_init(&j, NULL);
    assert_int_equal(dc_slices_load(&y, DATA "basic.yaml", NULL, err, sizeof err), DRACEL_OK);
    assert_int_equal(dc_slices_load(&j, DATA "basic.json", NULL, err, sizeof err), DRACEL_OK);
    static const uint32_t yl[] = {2, 65, 79, 109, 130}, jl[] = {6, 49, 62, 93, 110};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(y.slices[i].line, yl[i]);
        assert_int_equal(j.slices[i].line, jl[i]);
    }
    assert_int_equal(y.slices[0].devices[0].line, 16);
    assert_int_equal(y.slices[0].devices[1].line, 43);
    assert_int_equal(j.slices[0].devices[0].line, 15);
    assert_int_equal(j.slices[0].devices[1].line, 34);
    assert_int_equal(y.slices[2].devices[2].line, 101);
    assert_int_equal(j.slices[2].devices[2].line, 83);
    dc_slice_set_free(&y);
    dc_slice_set_free(&j);
}

static void test_directory(void **state)
{
    (void)state;
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    assert_int_equal(dc_slices_load(&s, DATA "dir", NULL, err, sizeof err), DRACEL_OK);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.slices[0].file, DATA "dir/a.json");
    assert_string_equal(s.slices[0].name, "slice-a");
    assert_int_equal(s.slices[0].line, 1);
    assert_int_equal(s.slices[0].devices[0].line, 3);
    assert_string_equal(s.slices[1].file, DATA "dir/b.yaml");
    assert_string_equal(s.slices[1].name, "");
    assert_string_equal(s.slices[1].driver, "b.example.com");
    assert_int_equal(s.slices[1].line, 2);
    assert_string_equal(s.slices[2].file, DATA "dir/c.yml");
    assert_string_equal(s.slices[2].name, "slice-c");
    assert_int_equal(s.slices[2].line, 5);
    assert_int_equal(s.nnotes, 1);
    assert_string_equal(s.notes[0], DATA "dir/c.yml:1: skipped object of kind ConfigMap (cm)");

    /* appending, and a trailing slash */
    assert_int_equal(dc_slices_load(&s, DATA "dir/", NULL, err, sizeof err), DRACEL_OK);
    assert_int_equal(s.n, 6);
    assert_string_equal(s.slices[3].file, DATA "dir/a.json");
    dc_slice_set_free(&s);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.nnotes, 0);
}

static void test_list_forms(void **state)
{
    (void)state;
    dc_slice_set s;
    const char *one = "{\"spec\": {\"driver\": \"d.example.com\", \"pool\": {\"name\": \"p\", "
                      "\"resourceSliceCount\": 1}, \"allNodes\": true}}";
    char buf[512];
    dc_slice_set_init(&s, NULL);
    /* a top-level JSON array, an items list without kind, nested lists, YAML sequence */
    snprintf(buf, sizeof buf, "[%s, %s]", one, one);
    assert_int_equal(load_text(&s, "t.json", buf, NULL), DRACEL_OK);
    assert_int_equal(s.n, 2);
    snprintf(buf, sizeof buf, "{\"items\": [%s]}", one);
    assert_int_equal(load_text(&s, "t.json", buf, NULL), DRACEL_OK);
    assert_int_equal(s.n, 3);
    snprintf(buf, sizeof buf, "{\"kind\": \"List\", \"items\": [{\"kind\": \"List\", \"items\": [%s]}]}",
             one);
    assert_int_equal(load_text(&s, "t.json", buf, NULL), DRACEL_OK);
    assert_int_equal(s.n, 4);
    assert_int_equal(load_text(&s, "t.yaml",
                               "- spec: {driver: d.example.com, pool: {name: p, "
                               "resourceSliceCount: 1}, allNodes: true}\n",
                               NULL),
                     DRACEL_OK);
    assert_int_equal(s.n, 5);
    /* an empty list, an empty stream, empty documents */
    assert_int_equal(load_text(&s, "t.json", "{\"kind\": \"List\", \"items\": []}", NULL),
                     DRACEL_OK);
    assert_int_equal(load_text(&s, "t.yaml", "", NULL), DRACEL_OK);
    assert_int_equal(load_text(&s, "t.yaml", "---\n---\n# nothing\n...\n", NULL), DRACEL_OK);
    assert_int_equal(load_text(&s, "t.yaml", "kind: List\n", NULL), DRACEL_OK);
    assert_int_equal(s.n, 5);
    /* objects that are not ResourceSlices */
    assert_int_equal(load_text(&s, "t.yaml",
                               "metadata: {name: x}\nspec: {driver: d}\n---\n"
                               "apiVersion: v1\nkind: Service\n---\nfoo: bar\n---\n"
                               "kind: Node\nmetadata: {name: \"n\\x01\"}\n",
                               NULL),
                     DRACEL_OK);
    assert_int_equal(s.n, 5);
    assert_int_equal(s.nnotes, 4);
    assert_string_equal(s.notes[0], "t.yaml:1: skipped object without kind (x)");
    assert_string_equal(s.notes[1], "t.yaml:4: skipped object of kind Service");
    assert_string_equal(s.notes[2], "t.yaml:7: skipped object without kind");
    assert_string_equal(s.notes[3], "t.yaml:9: skipped object of kind Node (n\\x01)");
    /* a YAML file that is JSON (format is guessed from the first character) */
    assert_int_equal(load_text(&s, "t.yaml", one, NULL), DRACEL_OK);
    assert_int_equal(s.n, 6);
    /* a BOM */
    snprintf(buf, sizeof buf, "\xEF\xBB\xBF%s", one);
    assert_int_equal(load_text(&s, "t.json", buf, NULL), DRACEL_OK);
    assert_int_equal(load_text(&s, "t.yaml", "\xEF\xBB\xBF" "kind: Pod\n", NULL), DRACEL_OK);
    assert_int_equal(s.n, 7);
    /* apiVersion v1beta2 has the v1 shape */
    assert_int_equal(load_text(&s, "t.yaml",
                               "apiVersion: resource.k8s.io/v1beta2\nkind: ResourceSlice\n"
                               "spec: {driver: d, pool: {name: p, resourceSliceCount: 1}, "
                               "allNodes: true}\n",
                               NULL),
                     DRACEL_OK);
    assert_int_equal(s.n, 8);
    dc_slice_set_free(&s);
}

static void test_exact_int64(void **state)
{
    (void)state;
    static const char *const docs[][2] = {
        {"t.json", "{\"kind\": \"ResourceSlice\", \"spec\": {\"driver\": \"d\", \"pool\": "
                   "{\"name\": \"p\", \"generation\": 9223372036854775807, "
                   "\"resourceSliceCount\": 9007199254740993}, \"allNodes\": true, "
                   "\"devices\": [{\"name\": \"x\", \"attributes\": {"
                   "\"a\": {\"int\": 9007199254740993}, \"b\": {\"int\": -9223372036854775808}, "
                   "\"c\": {\"int\": 9223372036854775807}, \"d\": {\"int\": -0}, "
                   "\"e\": {\"int\": -9007199254740993}}}]}}"},
        {"t.yaml", "kind: ResourceSlice\nspec:\n  driver: d\n  pool: {name: p, generation: "
                   "9223372036854775807, resourceSliceCount: 9007199254740993}\n"
                   "  allNodes: true\n  devices:\n  - name: x\n    attributes:\n"
                   "      a: {int: 9007199254740993}\n      b: {int: -9223372036854775808}\n"
                   "      c: {int: 0x7fffffffffffffff}\n      d: {int: -0}\n"
                   "      e: {int: -9_007_199_254_740_993}\n"},
    };
    for (size_t k = 0; k < 2; k++) {
        dc_slice_set s;
        dc_slice_set_init(&s, NULL);
        assert_int_equal(load_text(&s, docs[k][0], docs[k][1], NULL), DRACEL_OK);
        const dc_slice_in *sl = &s.slices[0];
        assert_true(sl->generation == INT64_MAX);
        assert_true(sl->slice_count == INT64_C(9007199254740993));
        const dc_device_in *d = &sl->devices[0];
        assert_true(find_attr(d, "a")->i == INT64_C(9007199254740993));
        assert_true(find_attr(d, "b")->i == INT64_MIN);
        assert_true(find_attr(d, "c")->i == INT64_MAX);
        assert_true(find_attr(d, "d")->i == 0);
        assert_true(find_attr(d, "e")->i == -INT64_C(9007199254740993));
        dc_slice_set_free(&s);
    }
}

#define JHEAD(attr)                                                                              \
    "{\"kind\": \"ResourceSlice\", \"metadata\": {\"name\": \"s\"}, \"spec\": {\"driver\": "     \
    "\"d\", \"pool\": {\"name\": \"p\", \"resourceSliceCount\": 1}, \"allNodes\": true, "         \
    "\"devices\": [{\"name\": \"x\", \"attributes\": {\"a\": " attr "}}]}}"
#define YHEAD "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d\n" \
              "  pool: {name: p, resourceSliceCount: 1}\n  allNodes: true\n  devices:\n  - name: x\n"

static void test_int_errors(void **state)
{
    (void)state;
    CHECK_ERR("t.json", JHEAD("{\"int\": 9223372036854775808}"),
              "t.json:1: ResourceSlice s: spec.devices[0].attributes[\"a\"].int: "
              "9223372036854775808 does not fit in a 64-bit integer");
    CHECK_ERR("t.json", JHEAD("{\"int\": -9223372036854775809}"),
              "t.json:1: ResourceSlice s: spec.devices[0].attributes[\"a\"].int: "
              "-9223372036854775809 does not fit in a 64-bit integer");
    CHECK_ERR("t.json", JHEAD("{\"int\": 99999999999999999999999}"),
              "t.json:1: ResourceSlice s: spec.devices[0].attributes[\"a\"].int: "
              "99999999999999999999999 does not fit in a 64-bit integer");
    CHECK_ERR("t.json", JHEAD("{\"int\": 1e3}"),
              "t.json:1: ResourceSlice s: spec.devices[0].attributes[\"a\"].int: 1e3 is not an "
              "integer");
    CHECK_ERR("t.json", JHEAD("{\"int\": 2.5}"),
              "t.json:1: ResourceSlice s: spec.devices[0].attributes[\"a\"].int: 2.5 is not an "
              "integer");
    CHECK_ERR("t.json", JHEAD("{\"int\": 1.0}"),
              "t.json:1: ResourceSlice s: spec.devices[0].attributes[\"a\"].int: 1.0 is not an "
              "integer");
    CHECK_ERR("t.json", JHEAD("{\"int\": \"5\"}"),
              "t.json:1: ResourceSlice s: spec.devices[0].attributes[\"a\"].int: must be an "
              "integer, not a string");
    CHECK_ERR("t.yaml", YHEAD "    attributes: {a: {int: 9223372036854775808}}\n",
              "t.yaml:9: ResourceSlice s: spec.devices[0].attributes[\"a\"].int: "
              "9223372036854775808 does not fit in a 64-bit integer");
    CHECK_ERR("t.yaml", YHEAD "    attributes: {a: {int: 1e3}}\n",
              "t.yaml:9: ResourceSlice s: spec.devices[0].attributes[\"a\"].int: 1e3 is not an "
              "integer");
    CHECK_ERR("t.yaml", YHEAD "    attributes: {a: {int: 2.5}}\n",
              "t.yaml:9: ResourceSlice s: spec.devices[0].attributes[\"a\"].int: 2.5 is not an "
              "integer");
    CHECK_ERR("t.yaml", YHEAD "    attributes: {a: {int: '5'}}\n",
              "t.yaml:9: ResourceSlice s: spec.devices[0].attributes[\"a\"].int: must be an "
              "integer, not a string");
    CHECK_ERR("t.yaml", YHEAD "    attributes: {a: {int: 99999999999999999999}}\n",
              "t.yaml:9: ResourceSlice s: spec.devices[0].attributes[\"a\"].int: "
              "99999999999999999999 is not an integer");
}

/* YAML 1.1 plain scalars as sigs.k8s.io/yaml (goyaml.v2) resolves them. */
static void test_yaml_resolution(void **state)
{
    (void)state;
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    assert_int_equal(load_text(&s, "t.yaml",
                               YHEAD "    attributes:\n"
                                     "      b1: {bool: yes}\n      b2: {bool: Off}\n"
                                     "      b3: {bool: n}\n      b4: {bool: TRUE}\n"
                                     "      i1: {int: 0o17}\n      i2: {int: 0b101}\n"
                                     "      i3: {int: 010}\n      i4: {int: -0x10}\n"
                                     "      i5: {int: +7}\n"
                                     "      s1: {string: '123'}\n      s2: {string: \"yes\"}\n"
                                     "      s3: {string: 1.2.3}\n      s4: {string: 12abc}\n"
                                     "      s5: {string: !!str 42}\n      s6: {string: 2025-01-01}\n"
                                     "      s7:\n        string: |\n          two\n          lines\n"
                                     "      v1: {version: 1.2.3-rc.1}\n"
                                     "      y: {bool: true}\n",
                               NULL),
                     DRACEL_OK);
    const dc_device_in *d = &s.slices[0].devices[0];
    assert_true(find_attr(d, "b1")->b);
    assert_false(find_attr(d, "b2")->b);
    assert_false(find_attr(d, "b3")->b);
    assert_true(find_attr(d, "b4")->b);
    assert_true(find_attr(d, "i1")->i == 15);
    assert_true(find_attr(d, "i2")->i == 5);
    assert_true(find_attr(d, "i3")->i == 8);
    assert_true(find_attr(d, "i4")->i == -16);
    assert_true(find_attr(d, "i5")->i == 7);
    assert_string_equal(find_attr(d, "s1")->s, "123");
    assert_string_equal(find_attr(d, "s2")->s, "yes");
    assert_string_equal(find_attr(d, "s3")->s, "1.2.3");
    assert_string_equal(find_attr(d, "s4")->s, "12abc");
    assert_string_equal(find_attr(d, "s5")->s, "42");
    assert_string_equal(find_attr(d, "s6")->s, "2025-01-01");
    assert_string_equal(find_attr(d, "s7")->s, "two\nlines\n");
    assert_int_equal(find_attr(d, "s7")->slen, 10);
    assert_string_equal(find_attr(d, "v1")->s, "1.2.3-rc.1");
    /* the plain key `y` is the boolean true, i.e. the key "true" */
    assert_true(find_attr(d, "true")->b);
    dc_slice_set_free(&s);

    CHECK_ERR("t.yaml", YHEAD "    attributes: {a: {int: ~, bool: null}}\n",
              "t.yaml:9: ResourceSlice s: spec.devices[0].attributes[\"a\"]: exactly one of "
              "`int`, `bool`, `string`, `version`, `ints`, `bools`, `strings` or `versions` is "
              "required");
    CHECK_ERR("t.yaml", YHEAD "    attributes: {a: {string: 123}}\n",
              "t.yaml:9: ResourceSlice s: spec.devices[0].attributes[\"a\"].string: must be a "
              "string, not an integer (YAML 1.1 reads the plain scalar 123 as an integer; quote "
              "it)");
    CHECK_ERR("t.yaml", YHEAD "    attributes: {a: {version: 1.2}}\n",
              "t.yaml:9: ResourceSlice s: spec.devices[0].attributes[\"a\"].version: must be a "
              "string, not a number (YAML 1.1 reads the plain scalar 1.2 as a number; quote it)");
    CHECK_ERR("t.yaml",
              "kind: ResourceSlice\nspec:\n  driver: d\n  pool: {name: p, resourceSliceCount: 1}\n"
              "  nodeName: yes\n",
              "t.yaml:5: ResourceSlice (unnamed): spec.nodeName: must be a string, not a boolean "
              "(YAML 1.1 reads the plain scalar yes as a boolean; quote it)");
    CHECK_ERR("t.yaml", YHEAD "    attributes: {a: {bool: \"true\"}}\n",
              "t.yaml:9: ResourceSlice s: spec.devices[0].attributes[\"a\"].bool: must be a "
              "boolean, not a string");
}

/* ---------------------------------------------------------------------------------------------
 * Validation errors, one per rule, with the exact message and line
 */

#define HDR "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d.example.com\n" \
            "  pool: {name: p, resourceSliceCount: 1}\n"
#define HDRN HDR "  nodeName: n1\n"
#define DEVS HDRN "  devices:\n"
#define PRE "t.yaml:"
#define S1 ": ResourceSlice s1: "
#define WHY_LABEL                                                                                \
    "must be a lowercase RFC 1123 label (at most 63 characters: 'a'-'z', '0'-'9' and '-', "      \
    "starting and ending with a letter or digit)"
#define WHY_SUBDOMAIN                                                                            \
    "must be a lowercase RFC 1123 subdomain (at most 253 characters: 'a'-'z', '0'-'9', '-' and " \
    "'.', each dot-separated part starting and ending with a letter or digit)"
#define WHY_QUALIFIED                                                                            \
    "must be a qualified name (an optional DNS subdomain prefix and '/', then at most 63 "       \
    "characters: letters, digits, '-', '_' and '.', starting and ending with a letter or digit)"
#define WHY_LABEL_VALUE                                                                          \
    "must be at most 63 characters: letters, digits, '-', '_' and '.', starting and ending with " \
    "a letter or digit"
#define ONE_OF_NODE                                                                              \
    "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
#define ONE_OF_DEV                                                                               \
    "exactly one of `nodeName`, `nodeSelector` or `allNodes` is required when "                  \
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"

static void test_errors_slice(void **state)
{
    (void)state;
    /* metadata */
    CHECK_ERR("t.yaml", "kind: ResourceSlice\nmetadata: {name: S_1}\n",
              PRE "2: ResourceSlice \"S_1\": metadata.name: invalid value \"S_1\": "
                  WHY_SUBDOMAIN);
    CHECK_ERR("t.yaml", "kind: ResourceSlice\nmetadata: [a]\n",
              PRE "2: ResourceSlice (unnamed): metadata: must be an object, not a list");
    CHECK_ERR("t.yaml", "kind: ResourceSlice\nmetadata: {name: s1}\n",
              PRE "1" S1 "spec: required value");
    CHECK_ERR("t.yaml", "kind: ResourceSlice\nmetadata: {name: s1}\nspec: [1]\n",
              PRE "3" S1 "spec: must be an object, not a list");
    /* driver */
    CHECK_ERR("t.yaml", "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  pool: {}\n",
              PRE "4" S1 "spec.driver: required value");
    CHECK_ERR("t.yaml", "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: \"\"\n",
              PRE "4" S1 "spec.driver: required value");
    CHECK_ERR("t.yaml", "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d_x.com\n",
              PRE "4" S1 "spec.driver: invalid value \"d_x.com\": must be an RFC 1123 subdomain "
                  "(letters, digits, '-' and '.', each dot-separated part starting and ending "
                  "with a letter or digit)");
    CHECK_ERR("t.yaml",
              "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: "
              "a234567890123456789012345678901234567890123456789012345678901234\n",
              PRE "4" S1 "spec.driver: invalid value "
                  "\"a234567890123456789012345678901234567890123456789012345678901234\": longer "
                  "than 63 characters");
    CHECK_ERR("t.yaml", "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: 7\n",
              PRE "4" S1 "spec.driver: must be a string, not an integer (YAML 1.1 reads the "
                  "plain scalar 7 as an integer; quote it)");
    /* pool */
    CHECK_ERR("t.yaml", "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d\n",
              PRE "4" S1 "spec.pool: required value");
    CHECK_ERR("t.yaml", "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d\n  pool: p\n",
              PRE "5" S1 "spec.pool: must be an object, not a string");
    CHECK_ERR("t.yaml",
              "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d\n"
              "  pool:\n    resourceSliceCount: 1\n",
              PRE "6" S1 "spec.pool.name: required value");
    CHECK_ERR("t.yaml",
              "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d\n"
              "  pool: {name: a//b, resourceSliceCount: 1}\n",
              PRE "5" S1 "spec.pool.name: invalid value \"a//b\": must be one or more lowercase "
                  "RFC 1123 subdomains separated by '/'");
    CHECK_ERR("t.yaml",
              "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d\n"
              "  pool: {name: Node-A, resourceSliceCount: 1}\n",
              PRE "5" S1 "spec.pool.name: invalid value \"Node-A\": must be one or more lowercase "
                  "RFC 1123 subdomains separated by '/'");
    CHECK_ERR("t.yaml",
              "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d\n"
              "  pool: {name: p, generation: -1, resourceSliceCount: 1}\n",
              PRE "5" S1 "spec.pool.generation: invalid value -1: must be greater than or equal "
                  "to zero");
    CHECK_ERR("t.yaml",
              "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d\n"
              "  pool: {name: p, generation: \"1\", resourceSliceCount: 1}\n",
              PRE "5" S1 "spec.pool.generation: must be an integer, not a string");
    CHECK_ERR("t.yaml",
              "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d\n"
              "  pool: {name: p}\n",
              PRE "5" S1 "spec.pool.resourceSliceCount: required value");
    CHECK_ERR("t.yaml",
              "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d\n"
              "  pool: {name: p, resourceSliceCount: 0}\n",
              PRE "5" S1 "spec.pool.resourceSliceCount: invalid value 0: must be greater than "
                  "zero");
    CHECK_ERR("t.yaml",
              "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d\n"
              "  pool: {name: p, resourceSliceCount: 1, name: q}\n",
              PRE "5" S1 "spec.pool: duplicate key \"name\"");
    CHECK_ERR("t.yaml",
              "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d\n  driver: e\n",
              PRE "5" S1 "spec: duplicate key \"driver\"");
    /* node selection */
    CHECK_ERR("t.yaml", HDR, PRE "4" S1 "spec: " ONE_OF_NODE);
    CHECK_ERR("t.yaml", HDR "  nodeName: n1\n  allNodes: true\n",
              PRE "4" S1 "spec: " ONE_OF_NODE ", but `nodeName` and `allNodes` are set");
    CHECK_ERR("t.yaml",
              HDR "  nodeName: n1\n  allNodes: true\n  perDeviceNodeSelection: true\n",
              PRE "4" S1 "spec: " ONE_OF_NODE ", but `nodeName`, `allNodes` and "
                  "`perDeviceNodeSelection` are set");
    CHECK_ERR("t.yaml", HDR "  nodeName: ''\n",
              PRE "6" S1 "spec.nodeName: must be either unset or set to a non-empty string");
    CHECK_ERR("t.yaml", HDR "  nodeName: Node_1\n",
              PRE "6" S1 "spec.nodeName: invalid value \"Node_1\": " WHY_SUBDOMAIN);
    CHECK_ERR("t.yaml", HDR "  allNodes: false\n",
              PRE "6" S1 "spec.allNodes: must be either unset or set to true");
    CHECK_ERR("t.yaml", HDR "  allNodes: 1\n",
              PRE "6" S1 "spec.allNodes: must be a boolean, not an integer");
    CHECK_ERR("t.yaml", HDR "  perDeviceNodeSelection: no\n",
              PRE "6" S1 "spec.perDeviceNodeSelection: must be either unset or set to true");
    /* null is unset */
    CHECK_ERR("t.yaml", HDR "  nodeName: null\n  allNodes: ~\n", PRE "4" S1 "spec: " ONE_OF_NODE);
    /* devices and sharedCounters */
    /* devices and sharedCounters in one slice: 1.34's shape, read (the allocation of 1.35 and
     * later finds the pool invalid: tests/alloc/143-counters-one-slice-1.35.yaml) */
    CHECK_OK("t.yaml", HDRN "  devices: [{name: d}]\n  sharedCounters: [{name: c, counters: "
                       "{m: {value: 1}}}]\n");
    CHECK_ERR("t.yaml", HDRN "  devices: {}\n",
              PRE "7" S1 "spec.devices: must be a list, not an object");
    CHECK_ERR("t.yaml", DEVS "  - gpu-0\n",
              PRE "8" S1 "spec.devices[0]: must be an object, not a string");
    /* apiVersion and kind */
    CHECK_ERR("t.yaml", "apiVersion: resource.k8s.io/v2\nkind: ResourceSlice\n",
              PRE "1: apiVersion: \"resource.k8s.io/v2\" is not supported "
                  "(resource.k8s.io/v1, or v1beta2 and v1beta1, which the API server converts to "
                  "it)");
    /* v1beta1: a device's fields under basic */
    CHECK_ERR("t.yaml", "apiVersion: resource.k8s.io/v1beta1\n" DEVS "  - name: gpu-0\n"
              "    attributes: {a: {int: 1}}\n",
              PRE "10" S1 "spec.devices[0].attributes: not a field of a resource.k8s.io/v1beta1 "
                  "device: it goes under `basic` (or write the object as resource.k8s.io/v1, "
                  "without `basic`)");
    CHECK_ERR("t.yaml", "apiVersion: resource.k8s.io/v1beta1\n" DEVS "  - name: gpu-0\n"
              "    basic: {name: x}\n",
              PRE "10" S1 "spec.devices[0].basic.name: not a field of a resource.k8s.io/v1beta1 "
                  "BasicDevice");
    CHECK_ERR("t.yaml", "apiVersion: resource.k8s.io/v1beta1\n" DEVS "  - name: gpu-0\n"
              "    basic: {attributes: {a: {int: x}}}\n",
              PRE "10" S1 "spec.devices[0].basic.attributes[\"a\"].int: must be an integer, not a "
                  "string");
    CHECK_OK("t.yaml", "apiVersion: resource.k8s.io/v1beta1\n" DEVS "  - name: gpu-0\n"
             "    basic: {attributes: {a: {int: 1}}, capacity: {m: {value: 1Gi}}}\n"
             "  - name: bare\n");
    CHECK_ERR("t.yaml", "kind: [ResourceSlice]\n", PRE "1: kind: must be a string, not a list");
    CHECK_ERR("t.yaml", "kind: List\nitems: {a: 1}\n", PRE "2: items: must be a list, not an object");
    CHECK_ERR("t.yaml", "hello\n", PRE "1: expected an object, found a string");
    CHECK_ERR("t.yaml", "kind: Pod\nkind: Pod\n", PRE "2: duplicate key \"kind\"");
}

/* Capacity request policies: the API server's checks. */
static void test_request_policy(void **state)
{
    (void)state;
#define DEV(caps) "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d.com\n  nodeName: n1\n" \
                  "  pool: {name: p, resourceSliceCount: 1}\n  devices:\n  - name: x\n" \
                  "    allowMultipleAllocations: true\n    capacity:\n      m: " caps "\n"
#define CAP PRE "11" S1 "spec.devices[0].capacity[\"m\"].requestPolicy"
    check_ok("t.yaml", DEV("{value: \"8\", requestPolicy: {default: \"2\", validRange: {min: \"2\", "
                          "step: \"2\", max: \"8\"}}}"), __LINE__);
    check_ok("t.yaml", DEV("{value: \"8\", requestPolicy: {default: \"1\", validValues: [\"1\", \"4\"]}}"),
             __LINE__);
    check_ok("t.yaml", DEV("{value: \"8\", requestPolicy: {default: \"3\"}}"), __LINE__);
    CHECK_ERR("t.yaml", DEV("{value: \"8\", requestPolicy: {default: \"1\", validValues: [\"1\"], "
                           "validRange: {min: \"1\"}}}"),
              CAP ": exactly one policy can be specified, cannot specify \"validValues\" and "
                  "\"validRange\" at the same time");
    CHECK_ERR("t.yaml", DEV("{value: \"8\", requestPolicy: {validValues: [\"1\"]}}"),
              CAP ".default: required when validValues is defined");
    CHECK_ERR("t.yaml", DEV("{value: \"8\", requestPolicy: {default: \"1\", validValues: [\"4\", \"1\"]}}"),
              CAP ".validValues[1]: invalid value 1: values must be sorted in ascending order");
    CHECK_ERR("t.yaml", DEV("{value: \"8\", requestPolicy: {default: \"1\", validValues: [\"1\", \"9\"]}}"),
              CAP ".validValues[1]: invalid value 9: option is larger than capacity value: 8");
    CHECK_ERR("t.yaml", DEV("{value: \"8\", requestPolicy: {default: \"2\", validValues: [\"1\", \"4\"]}}"),
              CAP ".validValues: invalid value 2: default value is not valid according to the "
                  "requestPolicy");
    CHECK_ERR("t.yaml", DEV("{value: \"8\", requestPolicy: {default: \"1\", validRange: {min: \"2\"}}}"),
              CAP ".validRange.min: invalid value 1: default is less than min: 2");
    CHECK_ERR("t.yaml", DEV("{value: \"8\", requestPolicy: {default: \"2\", validRange: {min: \"2\", "
                           "max: \"9\"}}}"),
              CAP ".validRange.max: invalid value 9: max is larger than capacity value: 8");
    CHECK_ERR("t.yaml", DEV("{value: \"8\", requestPolicy: {default: \"3\", validRange: {min: \"2\", "
                           "step: \"2\"}}}"),
              CAP ".validRange.step: invalid value 3: value is not a multiple of a given step (2) "
                  "from (2)");
    CHECK_ERR("t.yaml", DEV("{value: \"8\", requestPolicy: {default: \"2\", validRange: {min: \"2\", "
                           "step: \"7\"}}}"),
              CAP ".validRange.step: invalid value 7: one step 9 is larger than capacity value: 8");
    /* a dedicated device has no request policy */
    CHECK_ERR("t.yaml", "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d.com\n  nodeName: n1\n"
                        "  pool: {name: p, resourceSliceCount: 1}\n  devices:\n  - name: x\n"
                        "    capacity:\n      m: {value: \"8\", requestPolicy: {default: \"1\"}}\n",
              PRE "9" S1 "spec.devices[0].capacity[\"m\"].requestPolicy: forbidden: "
                  "allowMultipleAllocations must be true");
#undef CAP
#undef DEV
}

/* Binding conditions: read as Kubernetes validates them (validateDeviceBindingParameters). */
static void test_binding_params(void **state)
{
    (void)state;
#define DEV(f) "kind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d.com\n  nodeName: n1\n" \
               "  pool: {name: p, resourceSliceCount: 1}\n  devices:\n  - name: x\n" f
#define D0 PRE "9" S1 "spec.devices[0]."
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    assert_int_equal(load_text(&s, "t.yaml",
                               DEV("    bindingConditions: [a, example.com/b]\n"
                                   "    bindingFailureConditions: [c]\n    bindsToNode: true\n"),
                               NULL),
                     DRACEL_OK);
    const dc_device_in *d = &s.slices[0].devices[0];
    assert_int_equal(d->nbinding, 2);
    assert_string_equal(d->binding[1], "example.com/b");
    assert_int_equal(d->nbinding_failure, 1);
    assert_string_equal(d->binding_failure[0], "c");
    assert_true(d->binds_to_node);
    dc_slice_set_free(&s);
    check_ok("t.yaml", DEV("    bindsToNode: false\n    bindingConditions: []\n"), __LINE__);
    CHECK_ERR("t.yaml", DEV("    bindingConditions: [a]\n"),
              D0 "bindingFailureConditions: bindingFailureConditions are required to use "
                 "bindingConditions");
    CHECK_ERR("t.yaml", DEV("    bindingFailureConditions: [a]\n"),
              D0 "bindingConditions: bindingConditions are required to use "
                 "bindingFailureConditions");
    CHECK_ERR("t.yaml", DEV("    bindingConditions: [a, b, c, d, e]\n"
                            "    bindingFailureConditions: [f]\n"),
              D0 "bindingConditions: must have at most 4 items");
    CHECK_ERR("t.yaml", DEV("    bindingConditions: [a, a]\n    bindingFailureConditions: [f]\n"),
              PRE "9" S1 "spec.devices[0].bindingConditions[1]: duplicate value \"a\"");
    CHECK_ERR("t.yaml", DEV("    bindingConditions: [a]\n    bindingFailureConditions: [a]\n"),
              PRE "10" S1 "spec.devices[0].bindingFailureConditions[0]: invalid value \"a\": "
                          "bindingFailureConditions must not overlap with bindingConditions");
    CHECK_ERR("t.yaml", DEV("    bindingConditions: [\"a b\"]\n"
                            "    bindingFailureConditions: [f]\n"),
              D0 "bindingConditions[0]: invalid value \"a b\": must be a qualified name (an "
                 "optional DNS subdomain prefix and '/', then at most 63 characters: letters, "
                 "digits, '-', '_' and '.', starting and ending with a letter or digit)");
    CHECK_ERR("t.yaml", DEV("    bindsToNode: 1\n"),
              D0 "bindsToNode: must be a boolean, not an integer");
#undef D0
#undef DEV
}

/* DeviceTaintRules: kept with the slices, validated, all-or-nothing. */
static void test_taint_rules(void **state)
{
    (void)state;
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    /* without keep_rules, a rule is skipped with a note, as any other kind */
    assert_int_equal(load_text(&s, "t.yaml", "kind: DeviceTaintRule\nmetadata: {name: r0}\n",
                               NULL),
                     DRACEL_OK);
    assert_int_equal(s.nrules, 0);
    assert_int_equal(s.nnotes, 1);
    dc_slice_set_free(&s);
    s.keep_rules = true;
    static const char ok[] =
        "apiVersion: resource.k8s.io/v1beta2\nkind: DeviceTaintRule\nmetadata: {name: r1}\n"
        "spec:\n  deviceSelector: {driver: gpu.example.com, pool: p/q, device: gpu-0}\n"
        "  taint: {key: example.com/maint, value: \"\", effect: NoExecute, "
        "timeAdded: \"2026-01-01T00:00:00Z\"}\n"
        "---\nkind: DeviceTaintRule\nmetadata: {name: r2}\nspec:\n"
        "  taint: {key: k, value: v, effect: None}\n";
    assert_int_equal(load_text(&s, "t.yaml", ok, NULL), DRACEL_OK);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.nnotes, 0);
    assert_int_equal(s.nrules, 2);
    assert_string_equal(s.rules[0].name, "r1");
    assert_string_equal(s.rules[0].driver, "gpu.example.com");
    assert_string_equal(s.rules[0].pool, "p/q");
    assert_string_equal(s.rules[0].device, "gpu-0");
    assert_string_equal(s.rules[0].taint.key, "example.com/maint");
    assert_null(s.rules[0].taint.value);
    assert_string_equal(s.rules[0].taint.effect, "NoExecute");
    assert_int_equal(s.rules[0].line, 1);
    assert_null(s.rules[1].driver);
    assert_null(s.rules[1].device);
    assert_string_equal(s.rules[1].taint.value, "v");
    /* a rejected file takes none of its rules */
    assert_int_equal(load_text(&s, "u.yaml", "kind: DeviceTaintRule\nspec: {taint: {key: k, "
                                             "effect: NoSchedule}}\n---\nkind: ResourceSlice\n",
                               NULL),
                     DRACEL_EINPUT);
    assert_int_equal(s.nrules, 2);
    dc_slice_set_free(&s);
#define R1 ": DeviceTaintRule r1: "
    CHECK_ERR("t.yaml", "kind: DeviceTaintRule\nmetadata: {name: r1}\n",
              PRE "1" R1 "spec: required value");
    CHECK_ERR("t.yaml", "kind: DeviceTaintRule\nmetadata: {name: r1}\nspec: {}\n",
              PRE "3" R1 "spec.taint: required value");
    CHECK_ERR("t.yaml", "kind: DeviceTaintRule\nmetadata: {name: r1}\nspec:\n  taint: {key: k, "
                        "effect: Evict}\n",
              PRE "4" R1 "spec.taint.effect: unsupported value \"Evict\": supported values: "
                  "\"NoExecute\", \"NoSchedule\", \"None\"");
    CHECK_ERR("t.yaml", "kind: DeviceTaintRule\nmetadata: {name: r1}\nspec:\n  deviceSelector: "
                        "{driver: Bad_D}\n  taint: {key: k, effect: None}\n",
              PRE "4" R1 "spec.deviceSelector.driver: invalid value \"Bad_D\": must be an RFC "
                  "1123 subdomain (letters, digits, '-' and '.', each dot-separated part "
                  "starting and ending with a letter or digit)");
    CHECK_ERR("t.yaml", "kind: DeviceTaintRule\nmetadata: {name: r1}\nspec:\n  deviceSelector:\n"
                        "    selectors: [{cel: {expression: 'true'}}]\n  taint: {key: k, "
                        "effect: None}\n",
              PRE "5" R1 "spec.deviceSelector: selectors: not supported: since Kubernetes 1.35 a "
                  "rule selects devices by driver, pool and device only");
    CHECK_ERR("t.yaml", "apiVersion: resource.k8s.io/v2\nkind: DeviceTaintRule\nmetadata: "
                        "{name: r1}\n",
              PRE "1: apiVersion: \"resource.k8s.io/v2\" is not supported for a DeviceTaintRule "
                  "(resource.k8s.io/v1, v1beta2 or v1alpha3)");
#undef R1
}

static void test_errors_selectors(void **state)
{
    (void)state;
    CHECK_ERR("t.yaml", HDR "  nodeSelector: {}\n",
              PRE "6" S1 "spec.nodeSelector.nodeSelectorTerms: must have at least one node "
                  "selector term");
    CHECK_ERR("t.yaml", HDR "  nodeSelector:\n    nodeSelectorTerms: []\n",
              PRE "7" S1 "spec.nodeSelector.nodeSelectorTerms: must have at least one node "
                  "selector term");
    CHECK_ERR("t.yaml", HDR "  nodeSelector:\n    nodeSelectorTerms: [{}, {}]\n",
              PRE "7" S1 "spec.nodeSelector.nodeSelectorTerms: must have exactly one node "
                  "selector term");
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n"
                  "      - {key: a, operator: Is, values: [b]}\n",
              PRE "9" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator: "
                  "invalid value \"Is\": not a valid selector operator (In, NotIn, Exists, "
                  "DoesNotExist, Gt or Lt)");
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n"
                  "      - {key: a}\n",
              PRE "9" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator: "
                  "required value");
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n"
                  "      - key: a\n        operator: In\n",
              PRE "9" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: "
                  "must be specified when `operator` is 'In' or 'NotIn'");
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n"
                  "      - key: a\n        operator: Exists\n        values: [x]\n",
              PRE "11" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: "
                  "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n"
                  "      - {key: a, operator: Gt, values: ['1', '2']}\n",
              PRE "9" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: "
                  "must be specified single value when `operator` is 'Lt' or 'Gt'");
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n"
                  "      - {key: a, operator: In, values: [ok, 'not ok']}\n",
              PRE "9" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[1]: "
                  "invalid value \"not ok\": " WHY_LABEL_VALUE);
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n"
                  "      - {key: 'a b', operator: Exists}\n",
              PRE "9" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].key: "
                  "invalid value \"a b\": " WHY_QUALIFIED);
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n"
                  "      - {key: a, operator: In, values: [1]}\n",
              PRE "9" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]: "
                  "must be a string, not an integer (YAML 1.1 reads the plain scalar 1 as an "
                  "integer; quote it)");
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchFields:\n"
                  "      - {key: metadata.labels, operator: In, values: [n1]}\n",
              PRE "9" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].key: invalid "
                  "value \"metadata.labels\": not a valid field selector key (only metadata.name "
                  "is supported)");
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchFields:\n"
                  "      - {key: metadata.name, operator: In, values: [n1, n2]}\n",
              PRE "9" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values: must be "
                  "only one value when `operator` is 'In' or 'NotIn' for node field selector");
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchFields:\n"
                  "      - {key: metadata.name, operator: Exists}\n",
              PRE "9" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].operator: "
                  "invalid value \"Exists\": not a valid field selector operator (In or NotIn)");
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchFields:\n"
                  "      - {key: metadata.name, operator: In, values: [N1]}\n",
              PRE "9" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values[0]: "
                  "invalid value \"N1\": " WHY_SUBDOMAIN);
    CHECK_ERR("t.yaml",
              HDR "  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions: {}\n",
              PRE "8" S1 "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions: must be a "
                  "list, not an object");
}

static void test_errors_devices(void **state)
{
    (void)state;
    char *big = malloc(64 * 1024);
    assert_non_null(big);
    /* device count */
    strcpy(big, DEVS);
    for (int i = 0; i < 129; i++)
        sprintf(big + strlen(big), "  - name: d%d\n", i);
    CHECK_ERR("t.yaml", big, PRE "7" S1 "spec.devices: 129 devices, more than 128");
    strcpy(big, DEVS);
    for (int i = 0; i < 128; i++)
        sprintf(big + strlen(big), "  - name: d%d\n", i);
    CHECK_OK("t.yaml", big);
    strcpy(big, DEVS "  - name: t\n    taints: [{key: k, effect: None}]\n");
    for (int i = 0; i < 64; i++)
        sprintf(big + strlen(big), "  - name: d%d\n", i);
    CHECK_ERR("t.yaml", big,
              PRE "7" S1 "spec.devices: 65 devices, more than 64 (the limit when a device has "
                  "taints, consumesCounters or list-typed attributes)");
    strcpy(big, DEVS "  - name: t\n    attributes: {numa: {ints: [0, 1]}}\n");
    for (int i = 0; i < 64; i++)
        sprintf(big + strlen(big), "  - name: d%d\n", i);
    CHECK_ERR("t.yaml", big,
              PRE "7" S1 "spec.devices: 65 devices, more than 64 (the limit when a device has "
                  "taints, consumesCounters or list-typed attributes)");
    strcpy(big, DEVS "  - name: t\n    attributes: {numa: {int: 0}}\n");
    for (int i = 0; i < 64; i++)
        sprintf(big + strlen(big), "  - name: d%d\n", i);
    CHECK_OK("t.yaml", big);
    /* names */
    CHECK_ERR("t.yaml", DEVS "  - attributes: {}\n",
              PRE "8" S1 "spec.devices[0].name: required value");
    CHECK_ERR("t.yaml", DEVS "  - name: GPU-0\n",
              PRE "8" S1 "spec.devices[0].name: invalid value \"GPU-0\": " WHY_LABEL);
    CHECK_ERR("t.yaml", DEVS "  - name: gpu.0\n",
              PRE "8" S1 "spec.devices[0].name: invalid value \"gpu.0\": " WHY_LABEL);
    CHECK_ERR("t.yaml", DEVS "  - name: gpu-0\n  - name: gpu-1\n  - name: gpu-0\n",
              PRE "10" S1 "spec.devices[2].name: duplicate device name \"gpu-0\" (also "
                  "spec.devices[0])");
    CHECK_ERR("t.yaml", DEVS "  - name: gpu-0\n    basic: {}\n",
              PRE "9" S1 "spec.devices[0].basic: `basic` is the resource.k8s.io/v1beta1 device "
                  "shape, and this object is not v1beta1: in resource.k8s.io/v1 and v1beta2 "
                  "attributes and capacity are directly in the device");
    /* attributes and capacities */
    strcpy(big, DEVS "  - name: x\n    attributes:\n");
    for (int i = 0; i < 30; i++)
        sprintf(big + strlen(big), "      a%d: {int: %d}\n", i, i);
    strcat(big, "    capacity:\n      c1: {value: 1}\n      c2: {value: 2}\n");
    CHECK_OK("t.yaml", big);
    strcat(big, "      c3: {value: 3}\n");
    CHECK_ERR("t.yaml", big,
              PRE "9" S1 "spec.devices[0].attributes: 33 attributes and capacities, more than 32");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes: []\n",
              PRE "9" S1 "spec.devices[0].attributes: must be an object, not a list");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {int: 1}\n      a: {int: 2}\n",
              PRE "11" S1 "spec.devices[0].attributes: duplicate key \"a\"");
    static const char *const badkeys[][2] = {
        {"a/b/c", "must not contain more than one slash"},
        {"/x", "the domain must not be empty"},
        {"x.com/", "the name must not be empty"},
        {"d_x.com/a", "the domain must be an RFC 1123 subdomain (letters, digits, '-' and '.', "
                      "each dot-separated part starting and ending with a letter or digit)"},
        {"a234567890123456789012345678901234567890123456789012345678901234/x",
         "the domain is longer than 63 characters"},
        {"a23456789012345678901234567890123", "the name is longer than 32 characters"},
        {"1abc", "the name must be a C identifier (letters, digits and '_', not starting with a "
                 "digit)"},
        {"x.com/a-b", "the name must be a C identifier (letters, digits and '_', not starting "
                      "with a digit)"},
    };
    for (size_t i = 0; i < DC_COUNTOF(badkeys); i++) {
        char doc[512], msg[768];
        snprintf(doc, sizeof doc, DEVS "  - name: x\n    attributes:\n      \"%s\": {int: 1}\n",
                 badkeys[i][0]);
        snprintf(msg, sizeof msg, PRE "10" S1 "spec.devices[0].attributes[\"%s\"]: %s",
                 badkeys[i][0], badkeys[i][1]);
        CHECK_ERR("t.yaml", doc, msg);
        snprintf(doc, sizeof doc, DEVS "  - name: x\n    capacity:\n      \"%s\": {value: 1}\n",
                 badkeys[i][0]);
        snprintf(msg, sizeof msg, PRE "10" S1 "spec.devices[0].capacity[\"%s\"]: %s",
                 badkeys[i][0], badkeys[i][1]);
        CHECK_ERR("t.yaml", doc, msg);
    }
    CHECK_OK("t.yaml", DEVS "  - name: x\n    attributes:\n"
                       "      GPU.Example.com/Model_2: {string: a}\n"
                       "      a2345678901234567890123456789012: {int: 1}\n"
                       "      _x: {bool: false}\n");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"]: exactly one of `int`, `bool`, "
                  "`string`, `version`, `ints`, `bools`, `strings` or `versions` is required");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a:\n        int: 1\n"
                        "        string: s\n        bool: true\n",
              PRE "11" S1 "spec.devices[0].attributes[\"a\"]: exactly one of `int`, `bool`, "
                  "`string`, `version`, `ints`, `bools`, `strings` or `versions` is required, "
                  "but `int`, `bool` and `string` are set");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {int: 1, ints: [1]}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"]: exactly one of `int`, `bool`, "
                  "`string`, `version`, `ints`, `bools`, `strings` or `versions` is required, "
                  "but `int` and `ints` are set");
    /* List-typed attributes (DRAListTypeAttributes): non-empty lists of one kind. */
    CHECK_OK("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {ints: [1, -2, 1]}\n"
                       "      b: {bools: [true, false]}\n      c: {strings: [x, \"\"]}\n"
                       "      d: {versions: [1.2.3, not-semver]}\n");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {versions: []}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"].versions: must not be empty");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {ints: 1}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"].ints: must be a list, not an "
                  "integer");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {ints: [1, x]}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"].ints[1]: must be an integer, not "
                  "a string");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {bools: [true, 1]}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"].bools[1]: must be a boolean, not "
                  "an integer");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {strings: [a, "
                        "a2345678901234567890123456789012345678901234567890123456789012345]}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"].strings[1]: 65 bytes, more than 64");
    {
        /* 48 values per device, scalar ones counting one each. */
        char lv[4096];
        size_t o = (size_t)snprintf(lv, sizeof lv, DEVS "  - name: x\n    attributes:\n"
                                                         "      s: {int: 1}\n      a: {ints: [");
        for (int i = 0; i < 47; i++)
            o += (size_t)snprintf(lv + o, sizeof lv - o, "%s%d", i ? ", " : "", i);
        snprintf(lv + o, sizeof lv - o, "]}\n");
        CHECK_OK("t.yaml", lv);
        o = (size_t)snprintf(lv, sizeof lv, DEVS "  - name: x\n    attributes:\n"
                                                  "      s: {int: 1}\n      t: {int: 2}\n"
                                                  "      a: {ints: [");
        for (int i = 0; i < 47; i++)
            o += (size_t)snprintf(lv + o, sizeof lv - o, "%s%d", i ? ", " : "", i);
        snprintf(lv + o, sizeof lv - o, "]}\n");
        CHECK_ERR("t.yaml", lv,
                  PRE "9" S1 "spec.devices[0].attributes: 49 attribute values, more than 48");
        o = (size_t)snprintf(lv, sizeof lv, DEVS "  - name: x\n    attributes:\n"
                                                  "      a: {strings: [");
        for (int i = 0; i < 49; i++)
            o += (size_t)snprintf(lv + o, sizeof lv - o, "%sv%d", i ? ", " : "", i);
        snprintf(lv + o, sizeof lv - o, "]}\n");
        CHECK_ERR("t.yaml", lv,
                  PRE "10" S1 "spec.devices[0].attributes[\"a\"].strings: 49 values, more than "
                      "48 (the values of one device)");
    }
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {string: "
                        "a2345678901234567890123456789012345678901234567890123456789012345}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"].string: 65 bytes, more than 64");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {version: "
                        "1.2.3-a2345678901234567890123456789012345678901234567890123456789}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"].version: 65 bytes, more than 64");
    /* 64 bytes are fine; versions are not checked as semver here */
    CHECK_OK("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {string: "
                       "a234567890123456789012345678901234567890123456789012345678901234}\n"
                       "      b: {version: not-a-version}\n");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: 5\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"]: must be an object, not an integer");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    capacity:\n      mem: {value: 80GiB}\n",
              PRE "10" S1 "spec.devices[0].capacity[\"mem\"].value: invalid quantity \"80GiB\": "
                  "quantities must match the regular expression "
                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    capacity:\n      mem: {value: 1Gm}\n",
              PRE "10" S1 "spec.devices[0].capacity[\"mem\"].value: invalid quantity \"1Gm\": "
                  "unable to parse quantity's suffix");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    capacity:\n      mem: {requestPolicy: {}}\n",
              PRE "10" S1 "spec.devices[0].capacity[\"mem\"].value: required value");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    capacity:\n      mem: {value: true}\n",
              PRE "10" S1 "spec.devices[0].capacity[\"mem\"].value: must be a quantity (a string "
                  "or a number), not a boolean");
    CHECK_ERR("t.json",
              "{\"kind\": \"ResourceSlice\", \"spec\": {\"driver\": \"d\", \"pool\": {\"name\": "
              "\"p\", \"resourceSliceCount\": 1}, \"allNodes\": true,\n\"devices\": [{\"name\": "
              "\"x\", \"capacity\": {\"m\": {\"value\": -1.5e-3.5}}}]}}",
              "t.json:2: JSON syntax error: invalid number");
    /* a number is a quantity too (1e400 is a valid Quantity for Kubernetes) */
    CHECK_OK("t.json", "{\"kind\": \"ResourceSlice\", \"spec\": {\"driver\": \"d\", \"pool\": "
                       "{\"name\": \"p\", \"resourceSliceCount\": 1}, \"allNodes\": true, "
                       "\"devices\": [{\"name\": \"x\", \"capacity\": {\"m\": {\"value\": "
                       "1e400}, \"n\": {\"value\": -1.5e-3}}}]}}");
    CHECK_OK("t.yaml", DEVS "  - name: x\n    capacity:\n      a: {value: ' 1Gi '}\n"
                       "      b: {value: 1.5}\n      c: {value: 1_000}\n      d: {value: 0x10}\n");
    /* taints */
    strcpy(big, DEVS "  - name: x\n    taints:\n");
    for (int i = 0; i < 17; i++)
        sprintf(big + strlen(big), "    - {key: k%d, effect: None}\n", i);
    CHECK_ERR("t.yaml", big, PRE "9" S1 "spec.devices[0].taints: 17 taints, more than 16");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    taints:\n    - effect: None\n",
              PRE "10" S1 "spec.devices[0].taints[0].key: required value");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    taints:\n    - {key: a/b/c, effect: None}\n",
              PRE "10" S1 "spec.devices[0].taints[0].key: invalid value \"a/b/c\": " WHY_QUALIFIED);
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    taints:\n    - {key: k, value: -x, effect: None}\n",
              PRE "10" S1 "spec.devices[0].taints[0].value: invalid value \"-x\": "
                  WHY_LABEL_VALUE);
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    taints:\n    - {key: k}\n",
              PRE "10" S1 "spec.devices[0].taints[0].effect: required value");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    taints:\n    - key: k\n      effect: PreferNoSchedule\n",
              PRE "11" S1 "spec.devices[0].taints[0].effect: unsupported value "
                  "\"PreferNoSchedule\": supported values: \"NoExecute\", \"NoSchedule\", \"None\"");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    taints: {}\n",
              PRE "9" S1 "spec.devices[0].taints: must be a list, not an object");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    allowMultipleAllocations: 'true'\n",
              PRE "9" S1 "spec.devices[0].allowMultipleAllocations: must be a boolean, not a "
                  "string");
    free(big);
}

static void test_errors_counters(void **state)
{
    (void)state;
    char *big = malloc(16 * 1024);
    assert_non_null(big);
#define CC "  - name: x\n    consumesCounters:\n"
    CHECK_ERR("t.yaml",
              DEVS CC "    - {counterSet: a, counters: {c: {value: 1}}}\n"
                      "    - {counterSet: b, counters: {c: {value: 1}}}\n"
                      "    - {counterSet: c, counters: {c: {value: 1}}}\n",
              PRE "9" S1 "spec.devices[0].consumesCounters: 3 counter sets, more than 2");
    CHECK_ERR("t.yaml", DEVS CC "    - counters: {c: {value: 1}}\n",
              PRE "10" S1 "spec.devices[0].consumesCounters[0].counterSet: required value");
    CHECK_ERR("t.yaml", DEVS CC "    - {counterSet: A, counters: {c: {value: 1}}}\n",
              PRE "10" S1 "spec.devices[0].consumesCounters[0].counterSet: invalid value \"A\": "
                  WHY_LABEL);
    CHECK_ERR("t.yaml", DEVS CC "    - counterSet: a\n",
              PRE "10" S1 "spec.devices[0].consumesCounters[0].counters: required value");
    CHECK_ERR("t.yaml", DEVS CC "    - {counterSet: a, counters: {}}\n",
              PRE "10" S1 "spec.devices[0].consumesCounters[0].counters: required value");
    CHECK_ERR("t.yaml", DEVS CC "    - {counterSet: a, counters: {C: {value: 1}}}\n",
              PRE "10" S1 "spec.devices[0].consumesCounters[0].counters[\"C\"]: invalid counter "
                  "name: " WHY_LABEL);
    CHECK_ERR("t.yaml", DEVS CC "    - counterSet: a\n      counters:\n        c: {}\n",
              PRE "12" S1 "spec.devices[0].consumesCounters[0].counters[\"c\"].value: required "
                  "value");
    CHECK_ERR("t.yaml", DEVS CC "    - counterSet: a\n      counters:\n        c: {value: x}\n",
              PRE "12" S1 "spec.devices[0].consumesCounters[0].counters[\"c\"].value: invalid "
                  "quantity \"x\": quantities must match the regular expression "
                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    CHECK_ERR("t.yaml",
              DEVS CC "    - {counterSet: a, counters: {c: {value: 1}}}\n"
                      "    - {counterSet: a, counters: {d: {value: 1}}}\n",
              PRE "11" S1 "spec.devices[0].consumesCounters[1].counterSet: duplicate value \"a\"");
    CHECK_ERR("t.yaml",
              DEVS CC "    - counterSet: a\n      counters:\n        c: {value: 1}\n"
                      "        c: {value: 2}\n",
              PRE "13" S1 "spec.devices[0].consumesCounters[0].counters: duplicate key \"c\"");
    strcpy(big, DEVS CC "    - counterSet: a\n      counters:\n");
    for (int i = 0; i < 33; i++)
        sprintf(big + strlen(big), "        c%d: {value: 1}\n", i);
    CHECK_ERR("t.yaml", big,
              PRE "11" S1 "spec.devices[0].consumesCounters[0].counters: 33 counters, more than "
                  "32");
    /* sharedCounters */
    strcpy(big, HDRN "  sharedCounters:\n");
    for (int i = 0; i < 9; i++)
        sprintf(big + strlen(big), "  - {name: s%d, counters: {c: {value: 1}}}\n", i);
    CHECK_ERR("t.yaml", big, PRE "7" S1 "spec.sharedCounters: 9 counter sets, more than 8");
    CHECK_ERR("t.yaml", HDRN "  sharedCounters:\n  - counters: {c: {value: 1}}\n",
              PRE "8" S1 "spec.sharedCounters[0].name: required value");
    CHECK_ERR("t.yaml",
              HDRN "  sharedCounters:\n  - {name: s, counters: {c: {value: 1}}}\n"
                   "  - {name: s, counters: {c: {value: 1}}}\n",
              PRE "9" S1 "spec.sharedCounters[1].name: duplicate value \"s\"");
    CHECK_ERR("t.yaml", HDRN "  sharedCounters:\n  - {name: s.1, counters: {c: {value: 1}}}\n",
              PRE "8" S1 "spec.sharedCounters[0].name: invalid value \"s.1\": " WHY_LABEL);
    CHECK_ERR("t.yaml", HDRN "  sharedCounters:\n  - {name: s, counters: [1]}\n",
              PRE "8" S1 "spec.sharedCounters[0].counters: must be an object, not a list");
#undef CC
    free(big);
}

static void test_errors_per_device(void **state)
{
    (void)state;
#define PDH HDR "  perDeviceNodeSelection: true\n  devices:\n"
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    nodeName: n1\n",
              PRE "9" S1 "spec.devices[0]: `nodeName`, `nodeSelector` and `allNodes` can only be "
                  "set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    allNodes: false\n",
              PRE "9" S1 "spec.devices[0]: `nodeName`, `nodeSelector` and `allNodes` can only be "
                  "set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec");
    CHECK_ERR("t.yaml", PDH "  - name: x\n", PRE "8" S1 "spec.devices[0]: " ONE_OF_DEV);
    CHECK_ERR("t.yaml", PDH "  - name: x\n    nodeName: n1\n    allNodes: true\n",
              PRE "8" S1 "spec.devices[0]: " ONE_OF_DEV ", but `nodeName` and `allNodes` are set");
    CHECK_ERR("t.yaml", PDH "  - name: x\n    nodeName: \"\"\n",
              PRE "9" S1 "spec.devices[0].nodeName: must not be empty");
    CHECK_ERR("t.yaml", PDH "  - name: x\n    allNodes: false\n",
              PRE "9" S1 "spec.devices[0].allNodes: must be either unset or set to true");
    CHECK_ERR("t.yaml", PDH "  - name: x\n    nodeSelector: {nodeSelectorTerms: []}\n",
              PRE "9" S1 "spec.devices[0].nodeSelector.nodeSelectorTerms: must have at least one "
                  "node selector term");
#undef PDH
}

static void test_errors_syntax(void **state)
{
    (void)state;
    /* YAML */
    CHECK_ERR("t.yaml", "kind: ResourceSlice\nspec: {driver: [\n",
              PRE "3: YAML syntax error: did not find expected node content (while parsing a "
                  "flow node at line 3)");
    CHECK_ERR("t.yaml", "a: b\n c: d\n", PRE "2: YAML syntax error: mapping values are not "
                                         "allowed in this context");
    CHECK_ERR("t.yaml", "base: &a {x: 1}\nkind: *a\n", PRE "2: YAML aliases are not supported");
    CHECK_ERR("t.yaml", "? [a]\n: b\n", PRE "1: YAML mapping keys must be scalars");
    CHECK_ERR("t.yaml", "kind: \"a\\0b\"\n",
              PRE "1: YAML string contains a NUL character (not supported)");
    CHECK_ERR("t.yaml", "kind: Pod\nname: \xff\xfe\n",
              PRE "2: YAML syntax error: invalid leading UTF-8 octet");
    /* JSON */
    CHECK_ERR("t.json", "{\n\"kind\": \"Pod\",\n}\n",
              "t.json:3: JSON syntax error: unexpected '}'");
    CHECK_ERR("t.json", "[1 2]", "t.json:1: JSON syntax error: expected ',' or ']'");
    CHECK_ERR("t.json", "{\"a\": 1\n\"b\": 2}", "t.json:2: JSON syntax error: expected ',' or '}'");
    CHECK_ERR("t.json", "{\"a\" 1}", "t.json:1: JSON syntax error: expected ':' after an object key");
    CHECK_ERR("t.json", "{\"a\"::1}", "t.json:1: JSON syntax error: unexpected ':'");
    CHECK_ERR("t.json", "[,]", "t.json:1: JSON syntax error: unexpected ','");
    CHECK_ERR("t.json", "[1,]", "t.json:1: JSON syntax error: unexpected ']'");
    CHECK_ERR("t.json", "[1}", "t.json:1: JSON syntax error: unexpected '}'");
    CHECK_ERR("t.json", "{1: 2}", "t.json:1: JSON syntax error: expected a string (an object key)");
    CHECK_ERR("t.json", "[\"\\udc00\"]",
              "t.json:1: JSON syntax error: invalid \\u escape (a lone low surrogate)");
    CHECK_ERR("t.json", "[1234567890123456789012345678901234567890123456789012345678901234]",
              "t.json:1: JSON number longer than 63 characters (not supported)");
    CHECK_OK("t.json", "{\"a\": [\"\\ud83d\\ude00\", "
                       "123456789012345678901234567890123456789012345678901234567890123]}");
    CHECK_ERR("t.json", "{\"kind\": \"Pod\"} x", "t.json:1: JSON syntax error: unexpected data after the JSON value");
    CHECK_ERR("t.json", "{\"kind\": \"Pod\"} {}", "t.json:1: JSON syntax error: unexpected data after the JSON value");
    CHECK_ERR("t.json", "{\"kind\": \"Pod\"", "t.json:1: JSON syntax error: unexpected end of input");
    CHECK_ERR("t.json", "{\n\"kind\": \"Po\nd\"}", "t.json:2: JSON syntax error: control character in string");
    CHECK_ERR("t.json", "{\"kind\": \"Pod", "t.json:1: JSON syntax error: unterminated string");
    CHECK_ERR("t.json", "{\"kind\": \"P\\u0000d\"}",
              "t.json:1: JSON string contains \\u0000 (not supported)");
    CHECK_ERR("t.json", "{\"kind\": \"P\\x\"}", "t.json:1: JSON syntax error: invalid escape in string");
    CHECK_ERR("t.json", "{\"kind\": \"P\\u12\"}", "t.json:1: JSON syntax error: invalid \\u escape");
    CHECK_ERR("t.json", "{\"kind\": \"\\ud800\"}", "t.json:1: JSON syntax error: invalid \\u escape (a lone high surrogate)");
    CHECK_ERR("t.json", "{\"a\": 01}", "t.json:1: JSON syntax error: invalid number");
    CHECK_ERR("t.json", "{\"a\": 1.}", "t.json:1: JSON syntax error: invalid number");
    CHECK_ERR("t.json", "{\"a\": -}", "t.json:1: JSON syntax error: invalid number");
    CHECK_ERR("t.json", "{\"a\": 1e}", "t.json:1: JSON syntax error: invalid number");
    CHECK_ERR("t.json", "{\"a\": tru}", "t.json:1: JSON syntax error: unexpected \"tru}\"");
    CHECK_ERR("t.json", "{\"a\": +1}", "t.json:1: JSON syntax error: unexpected \"+\"");
    CHECK_ERR("t.json", "{\n\n\"a\": \"\xc3\x28\"}", "t.json:3: invalid UTF-8 in JSON text");
    CHECK_ERR("t.json", "{\"a\":\n \"b\"", "t.json:2: JSON syntax error: unexpected end of input");
    CHECK_ERR("t.json", "{\"kind\": \"Pod\", \"kind\": \"Node\"}", "t.json:1: duplicate key \"kind\"");
    CHECK_ERR("t.json", JHEAD("{\"int\": 1, \"int\": 2}"),
              "t.json:1: ResourceSlice s: spec.devices[0].attributes[\"a\"]: duplicate key \"int\"");
    CHECK_ERR("t.json",
              "{\"kind\": \"ResourceSlice\", \"spec\": {\"driver\": \"d\", \"pool\": {\"name\": "
              "\"p\", \"resourceSliceCount\": 1}, \"allNodes\": true, \"devices\": [{\"name\": "
              "\"x\",\n\"attributes\": {\"a\": {\"int\": 1},\n \"a\": {\"int\": 1}}}]}}",
              "t.json:3: ResourceSlice (unnamed): spec.devices[0].attributes: duplicate key \"a\"");
    /* embedded NUL bytes in a JSON buffer */
    {
        dc_slice_set s;
        dc_slice_set_init(&s, NULL);
        assert_int_equal(dc_slices_load_buffer(&s, "t.json", "{\"a\":\n\"b\0\"}", 11, NULL, err,
                                               sizeof err),
                         DRACEL_EINPUT);
        assert_string_equal(err, "t.json:2: NUL byte in JSON text");
        dc_slice_set_free(&s);
    }
}

static void test_edges(void **state)
{
    (void)state;
    dc_slice_set j, y;
    dc_slice_set_init(&j, NULL);
    dc_slice_set_init(&y, NULL);
    /* null is unset, in JSON and YAML alike */
    assert_int_equal(load_text(&j, "t.json",
                               "{\"kind\": \"ResourceSlice\", \"metadata\": {\"name\": \"s\", "
                               "\"labels\": null}, \"spec\": {\"driver\": \"d\", \"pool\": {\"name\": "
                               "\"p\", \"generation\": null, \"resourceSliceCount\": 1}, \"nodeName\": "
                               "null, \"allNodes\": true, \"sharedCounters\": null, \"devices\": "
                               "[{\"name\": \"x\", \"attributes\": null, \"capacity\": {\"c\": "
                               "{\"value\": \"1\", \"requestPolicy\": null}}, \"taints\": null}]}}",
                               NULL),
                     DRACEL_OK);
    assert_int_equal(load_text(&y, "t.yaml",
                               "kind: ResourceSlice\nmetadata: {name: s, labels: ~}\nspec:\n"
                               "  driver: d\n  pool: {name: p, generation: null, resourceSliceCount: 1}\n"
                               "  nodeName:\n  allNodes: true\n  sharedCounters: ~\n  devices:\n"
                               "  - name: x\n    attributes:\n    capacity: {c: {value: '1', "
                               "requestPolicy: }}\n    taints: null\n",
                               NULL),
                     DRACEL_OK);
    same_sets(&j, &y);
    assert_null(j.slices[0].node.node_name);
    assert_int_equal(j.slices[0].generation, 0);
    assert_int_equal(j.slices[0].nshared, 0);
    assert_null(j.slices[0].shared_counters);
    assert_int_equal(j.slices[0].devices[0].nattrs, 0);
    assert_null(j.slices[0].devices[0].attrs);
    dc_slice_set_free(&j);
    dc_slice_set_free(&y);

    /* long strings (not interned) and the pool name limit */
    char doc[1024], name[300];
    memset(name, 'a', 253);
    name[253] = '\0';
    name[100] = '.';
    snprintf(doc, sizeof doc, "kind: ResourceSlice\nspec: {driver: d, pool: {name: %s, "
                              "resourceSliceCount: 1}, nodeName: %s}\n", name, name);
    dc_slice_set_init(&j, NULL);
    assert_int_equal(load_text(&j, "t.yaml", doc, NULL), DRACEL_OK);
    assert_string_equal(j.slices[0].pool, name);
    assert_string_equal(j.slices[0].node.node_name, name);
    dc_slice_set_free(&j);
    strcat(name, "a");
    snprintf(doc, sizeof doc, "kind: ResourceSlice\nspec: {driver: d, pool: {name: %s, "
                              "resourceSliceCount: 1}, nodeName: n}\n", name);
    dc_slice_set_init(&j, NULL);
    assert_int_equal(load_text(&j, "t.yaml", doc, NULL), DRACEL_EINPUT);
    assert_non_null(strstr(err, "spec.pool.name: invalid value \"aaaa"));
    assert_non_null(strstr(err, "aaa...\": longer than 253 characters"));
    /* messages cut long non-ASCII text at a character boundary */
    strcpy(doc, "kind: ResourceSlice\nspec: {driver: d, pool: {name: ");
    for (int i = 0; i < 80; i++)
        strcat(doc, "\xc3\xa9");
    strcat(doc, ", resourceSliceCount: 1}}\n");
    assert_int_equal(load_text(&j, "t.yaml", doc, NULL), DRACEL_EINPUT);
    assert_int_equal(dc_utf8_check((const unsigned char *)err, strlen(err)), strlen(err));
    assert_non_null(strstr(err, "\xc3\xa9...\": must be one or more lowercase"));
    dc_slice_set_free(&j);

    /* YAML numbers and keys */
    CHECK_OK("t.yaml", DEVS "  - name: x\n    capacity:\n      a: {value: 1_000.5}\n"
                       "      b: {value: .5}\n");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      18446744073709551615: {int: 1}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"18446744073709551615\"]: the name must be a "
                  "C identifier (letters, digits and '_', not starting with a digit)");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {int: 18446744073709551615}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"].int: 18446744073709551615 does not fit "
                  "in a 64-bit integer");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {int: +18446744073709551615}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"].int: +18446744073709551615 is not an "
                  "integer");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {int: -0x8000000000000001}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"].int: must be an integer, not a string");
    CHECK_ERR("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {string: .inf}\n",
              PRE "10" S1 "spec.devices[0].attributes[\"a\"].string: must be a string, not a number "
                  "(YAML 1.1 reads the plain scalar .inf as a number; quote it)");
    /* 1e400 overflows float64, so goyaml.v2 keeps it a string */
    CHECK_OK("t.yaml", DEVS "  - name: x\n    attributes:\n      a: {string: 1e400}\n");
    /* Lists inside Lists, up to 4 deep */
    CHECK_OK("t.json", "{\"kind\": \"List\", \"items\": [{\"kind\": \"List\", \"items\": "
                       "[[[{\"kind\": \"Pod\"}]]]}]}");
    CHECK_ERR("t.json", "{\"kind\": \"List\", \"items\": [{\"kind\": \"List\", \"items\": "
                        "[[[[{\"kind\": \"Pod\"}]]]]}]}",
              "t.json:1: lists nested more than 4 deep");
}

/* Lines of errors deep in a JSON document come from the byte offsets of the tokens. */
static void test_errors_json_lines(void **state)
{
    (void)state;
    static const char doc[] =
        "{\n"
        "  \"kind\": \"ResourceSlice\",\n"
        "  \"metadata\": {\"name\": \"j1\"},\n"
        "  \"spec\": {\n"
        "    \"driver\": \"d\",\n"
        "    \"pool\": {\"name\": \"p\", \"resourceSliceCount\": 1},\n"
        "    \"nodeName\": \"n\",\n"
        "    \"devices\": [\n"
        "      {\"name\": \"a\"},\n"
        "      {\n"
        "        \"name\": \"b\",\n"
        "        \"capacity\": {\n"
        "          \"mem\": {\"value\": \"1Gi\"},\n"
        "          \"bad\": {\"value\": \"1 Gi\"}\n"
        "        }\n"
        "      }\n"
        "    ]\n"
        "  }\n"
        "}\n";
    CHECK_ERR("t.json", doc,
              "t.json:14: ResourceSlice j1: spec.devices[1].capacity[\"bad\"].value: invalid "
              "quantity \"1 Gi\": quantities must match the regular expression "
              "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    static const char doc2[] =
        "{\n"
        "  \"kind\": \"ResourceSlice\",\n"
        "  \"metadata\": {\"name\": \"j1\"},\n"
        "  \"spec\": {\n"
        "    \"driver\": \"d\",\n"
        "    \"pool\": {\"name\": \"p\", \"resourceSliceCount\": 1},\n"
        "    \"nodeName\": \"n\",\n"
        "    \"devices\": [\n"
        "      {\"name\": \"a\"},\n"
        "      {\n"
        "        \"name\": \"a\"\n"
        "      }\n"
        "    ]\n"
        "  }\n"
        "}\n";
    CHECK_ERR("t.json", doc2,
              "t.json:10: ResourceSlice j1: spec.devices[1].name: duplicate device name \"a\" "
              "(also spec.devices[0])");
    static const char doc3[] =
        "{\n"
        "  \"kind\": \"ResourceSlice\",\n"
        "  \"metadata\": {\"name\": \"j1\"},\n"
        "  \"spec\": {\n"
        "    \"driver\": \"d\",\n"
        "    \"pool\": {\"name\": \"p\", \"resourceSliceCount\": 1}\n"
        "  }\n"
        "}\n";
    CHECK_ERR("t.json", doc3, "t.json:4: ResourceSlice j1: spec: " ONE_OF_NODE);
}

/* ---------------------------------------------------------------------------------------------
 * Limits and hostile input
 */

static void test_limits(void **state)
{
    (void)state;
    dc_slice_set s;
    dc_slices_limits lim;
    dc_slices_limits_default(&lim);
    assert_int_equal(lim.max_file_bytes, (size_t)64 << 20);
    assert_int_equal(lim.max_objects, 1000000);
    assert_int_equal(lim.max_depth, 64);
    dc_slice_set_init(&s, NULL);

    /* file size */
    struct stat sb;
    assert_int_equal(stat(DATA "basic.yaml", &sb), 0);
    lim.max_file_bytes = 100;
    assert_int_equal(dc_slices_load(&s, DATA "basic.yaml", &lim, err, sizeof err), DRACEL_EINPUT);
    char want[256];
    snprintf(want, sizeof want, DATA "basic.yaml: %lld bytes, more than the limit of 100",
             (long long)sb.st_size);
    assert_string_equal(err, want);
    assert_int_equal(load_text(&s, "t.yaml", "kind: Pod\n# .........................."
                                             "................................................"
                                             "..........................\n",
                               &lim),
                     DRACEL_EINPUT);
    assert_string_equal(err, "t.yaml: 113 bytes, more than the limit of 100");
    lim.max_file_bytes = (size_t)sb.st_size;
    assert_int_equal(dc_slices_load(&s, DATA "basic.yaml", &lim, err, sizeof err), DRACEL_OK);
    assert_int_equal(s.n, 5);
    dc_slice_set_free(&s);
    dc_slices_limits_default(&lim);

    /* object count: 6 objects in basic.yaml (5 slices and a Pod), counted over the set */
    lim.max_objects = 5;
    assert_int_equal(dc_slices_load(&s, DATA "basic.yaml", &lim, err, sizeof err), DRACEL_EINPUT);
    assert_string_equal(err, DATA "basic.yaml:130: more than 5 objects (the configured limit)");
    assert_int_equal(s.n, 0);
    assert_int_equal(s.nnotes, 0);
    lim.max_objects = 6;
    assert_int_equal(dc_slices_load(&s, DATA "basic.json", &lim, err, sizeof err), DRACEL_OK);
    assert_int_equal(load_text(&s, "t.yaml", "kind: Pod\n", &lim), DRACEL_EINPUT);
    assert_string_equal(err, "t.yaml:1: more than 6 objects (the configured limit)");
    assert_int_equal(s.n, 5);
    assert_int_equal(s.nnotes, 1);
    dc_slice_set_free(&s);
    dc_slices_limits_default(&lim);

    /* depth: basic.yaml nests 10 deep (document, spec, devices, device, nodeSelector, terms,
     * term, matchExpressions, requirement, values), basic.json 12 (also List and items) */
    lim.max_depth = 9;
    assert_int_equal(dc_slices_load(&s, DATA "basic.json", &lim, err, sizeof err), DRACEL_EINPUT);
    assert_string_equal(err, DATA "basic.json:74: nesting deeper than 9");
    assert_int_equal(dc_slices_load(&s, DATA "basic.yaml", &lim, err, sizeof err), DRACEL_EINPUT);
    assert_string_equal(err, DATA "basic.yaml:105: nesting deeper than 9");
    lim.max_depth = 10;
    assert_int_equal(dc_slices_load(&s, DATA "basic.json", &lim, err, sizeof err), DRACEL_EINPUT);
    assert_string_equal(err, DATA "basic.json:86: nesting deeper than 10");
    assert_int_equal(dc_slices_load(&s, DATA "basic.yaml", &lim, err, sizeof err), DRACEL_OK);
    lim.max_depth = 12;
    assert_int_equal(dc_slices_load(&s, DATA "basic.json", &lim, err, sizeof err), DRACEL_OK);
    assert_int_equal(s.n, 10);
    dc_slice_set_free(&s);
}

static void test_rollback_and_io(void **state)
{
    (void)state;
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    assert_int_equal(dc_slices_load(&s, DATA "dir", NULL, err, sizeof err), DRACEL_OK);
    assert_int_equal(s.n, 3);
    /* a good slice, a note, then an error: nothing of this call stays */
    assert_int_equal(load_text(&s, "t.yaml",
                               "kind: ResourceSlice\nspec: {driver: d, pool: {name: p, "
                               "resourceSliceCount: 1}, allNodes: true}\n---\nkind: Pod\n---\n"
                               "kind: ResourceSlice\n",
                               NULL),
                     DRACEL_EINPUT);
    assert_string_equal(err, "t.yaml:6: ResourceSlice (unnamed): spec: required value");
    assert_int_equal(s.n, 3);
    assert_int_equal(s.nnotes, 1);
    /* I/O errors */
    assert_int_equal(dc_slices_load(&s, DATA "missing.yaml", NULL, err, sizeof err), DRACEL_EINVAL);
    assert_string_equal(err, DATA "missing.yaml: cannot open: No such file or directory");
    assert_int_equal(dc_slices_load(&s, "/dev/null", NULL, err, sizeof err), DRACEL_EINVAL);
    assert_string_equal(err, "/dev/null: not a regular file or directory: Invalid argument");
    assert_int_equal(dc_slices_load(NULL, "x", NULL, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dc_slices_load(&s, DATA "basic.yaml", NULL, NULL, 0), DRACEL_OK);
    assert_int_equal(load_text(&s, "t.yaml", "kind: ResourceSlice\n", NULL), DRACEL_EINPUT);
    /* a tiny error buffer truncates */
    char small[8];
    assert_int_equal(dc_slices_load_buffer(&s, "t.yaml", "[", 1, NULL, small, sizeof small),
                     DRACEL_EINPUT);
    assert_string_equal(small, "t.yaml:");
    assert_int_equal(s.n, 8);
    dc_slice_set_free(&s);
}

static char *repeat(const char *head, const char *unit, size_t n, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *p = malloc(hl + ul * n + tl + 1);
    assert_non_null(p);
    memcpy(p, head, hl);
    for (size_t i = 0; i < n; i++)
        memcpy(p + hl + i * ul, unit, ul);
    memcpy(p + hl + n * ul, tail, tl + 1);
    return p;
}

static void test_hostile(void **state)
{
    (void)state;
    char *p;
    /* deep nesting */
    p = repeat("", "[", 1000000, "");
    CHECK_ERR("t.json", p, "t.json:1: nesting deeper than 64");
    free(p);
    p = repeat("a: ", "[", 1000000, "");
    CHECK_ERR("t.yaml", p, "t.yaml:1: nesting deeper than 64");
    free(p);
    p = repeat("", "{\"a\":", 100000, "1");
    CHECK_ERR("t.json", p, "t.json:1: nesting deeper than 64");
    free(p);
    p = repeat("", "- ", 100000, "x\n");
    CHECK_ERR("t.yaml", p, "t.yaml:1: nesting deeper than 64");
    free(p);
    {
        /* block mappings, one level per line */
        size_t n = 200, k = 0;
        p = malloc(n * (n + 4) + 8);
        assert_non_null(p);
        for (size_t i = 0; i < n; i++) {
            memset(p + k, ' ', i);
            k += i;
            memcpy(p + k, "a:\n", 3);
            k += 3;
        }
        p[k] = '\0';
        CHECK_ERR("t.yaml", p, "t.yaml:65: nesting deeper than 64");
        free(p);
    }
    /* the per-file value cap stops dense input before cJSON builds anything */
    p = repeat("[0", ",0", DC_SLICES_MAX_VALUES_PER_FILE, "]");
    CHECK_ERR("t.json", p, "t.json:1: more than 4194304 values in one file (the loader's limit; "
                           "split the file)");
    free(p);
    /* a huge string (10 MiB) in an attribute, in JSON and YAML */
    p = repeat(YHEAD "    attributes:\n      a: {string: \"", "x", 10u << 20, "\"}\n");
    CHECK_ERR("t.yaml", p,
              "t.yaml:10: ResourceSlice s: spec.devices[0].attributes[\"a\"].string: 10485760 "
              "bytes, more than 64");
    free(p);
    p = repeat("{\"kind\": \"ResourceSlice\", \"metadata\": {\"name\": \"s\"}, \"spec\": {\"driver\": "
               "\"d\", \"pool\": {\"name\": \"p\", \"resourceSliceCount\": 1}, \"allNodes\": true, "
               "\"devices\": [{\"name\": \"x\", \"attributes\": {\"a\": {\"version\": \"",
               "y", 10u << 20, "\"}}}]}}");
    CHECK_ERR("t.json", p,
              "t.json:1: ResourceSlice s: spec.devices[0].attributes[\"a\"].version: 10485760 "
              "bytes, more than 64");
    free(p);
    /* a huge key and a huge device name: messages stay short */
    p = repeat(DEVS "  - name: ", "n", 1u << 20, "\n");
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    assert_int_equal(load_text(&s, "t.yaml", p, NULL), DRACEL_EINPUT);
    assert_true(strlen(err) < 300);
    assert_non_null(strstr(err, "t.yaml:8: ResourceSlice s1: spec.devices[0].name: invalid value "
                                "\"nnnn"));
    assert_non_null(strstr(err, "...\": " WHY_LABEL));
    free(p);
    /* billion laughs: aliases are refused at the first one */
    CHECK_ERR("t.yaml",
              "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
              "c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\n",
              "t.yaml:2: YAML aliases are not supported");
    /* a million tiny documents stay bounded by the object limit */
    p = repeat("", "---\nkind: Pod\n", 2000, "");
    dc_slices_limits lim = {0, 1000, 0};
    assert_int_equal(load_text(&s, "t.yaml", p, &lim), DRACEL_EINPUT);
    assert_string_equal(err, "t.yaml:2002: more than 1000 objects (the configured limit)");
    free(p);
    dc_slice_set_free(&s);
}

static uint64_t rng_state = 88172645463325252ull;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* Random bytes, random tokens, every prefix and random mutations of the data files: any status
 * but a crash, a leak (ASan) or an error without a message. */
/* A row's side-table entries (dc_table_caps, dc_table_taints) against a linear scan, on tables
 * regular (k entries a row, where the search's first guess is right), irregular (0 to 7 a
 * row), and skewed (every entry on the first or the last rows, the guess far off). */
static void test_side_tables(void **state)
{
    (void)state;
    enum { ROWS = 3000 };
    dc_tcap *caps = calloc(ROWS * 8, sizeof *caps);
    dc_ttaint *taints = calloc(ROWS * 8, sizeof *taints);
    assert_non_null(caps);
    assert_non_null(taints);
    uint64_t seed = 12345;
    for (int shape = 0; shape < 5; shape++) {
        uint32_t n = 0;
        for (uint32_t r = 0; r < ROWS; r++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            uint32_t k = shape == 0 ? 2 : shape == 1 ? (uint32_t)(seed >> 61)
                       : shape == 2 ? (r < 40 ? 7 : 0) : shape == 3 ? (r >= ROWS - 3 ? 5 : 0)
                       : (r % 97 == 0);
            for (uint32_t j = 0; j < k; j++, n++) {
                caps[n] = (dc_tcap){.row = r};
                taints[n] = (dc_ttaint){.row = r};
            }
        }
        dc_table t;
        memset(&t, 0, sizeof t);
        t.rows = ROWS;
        t.caps = caps;
        t.ncaps = n;
        t.taints = taints;
        t.ntaints = n;
        for (uint32_t r = 0; r <= ROWS; r++) { /* ROWS: past the end, none */
            uint32_t first = 0, cnt = 0;
            while (first < n && caps[first].row < r)
                first++;
            while (first + cnt < n && caps[first + cnt].row == r)
                cnt++;
            uint32_t got = 99;
            const dc_tcap *c = dc_table_caps(&t, r, &got);
            assert_int_equal(got, cnt);
            if (cnt)
                assert_ptr_equal(c, caps + first);
            else
                assert_null(c);
            const dc_ttaint *tt = dc_table_taints(&t, r, &got);
            assert_int_equal(got, cnt);
            assert_true(cnt ? tt == taints + first : tt == NULL);
        }
    }
    free(caps);
    free(taints);
}

static void test_fuzz(void **state)
{
    (void)state;
    static const char *const alphabets[] = {
        NULL, "{}[]:,\"\\ \n-0123456789.eE+truefalsnul", "{}[]:,- \n\t\"'#&*!|>?%@`~abcyn01.\\",
    };
    char buf[700];
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    for (int it = 0; it < 6000; it++) {
        size_t n = rng() % sizeof buf;
        const char *al = alphabets[it % 3];
        size_t an = al ? strlen(al) : 0;
        for (size_t i = 0; i < n; i++)
            buf[i] = al ? al[rng() % an] : (char)(rng() & 0xff);
        if (it % 2)
            buf[0] = (it % 4 == 1) ? '{' : '[';
        dracel_status st = dc_slices_load_buffer(&s, "r", buf, n, NULL, err, sizeof err);
        assert_true(st == DRACEL_OK || st == DRACEL_EINPUT);
        if (st == DRACEL_EINPUT)
            assert_true(err[0] != '\0');
    }
    static const char *const files[] = {DATA "basic.yaml", DATA "basic.json", DATA "list.yaml"};
    for (size_t f = 0; f < DC_COUNTOF(files); f++) {
        size_t len;
        char *text = slurp(files[f], &len);
        char *copy = malloc(len + 1);
        assert_non_null(copy);
        for (size_t n = 0; n <= len; n++) {
            dracel_status st = dc_slices_load_buffer(&s, files[f], text, n, NULL, err, sizeof err);
            assert_true(st == DRACEL_OK || st == DRACEL_EINPUT);
        }
        for (int it = 0; it < 3000; it++) {
            memcpy(copy, text, len);
            int k = 1 + (int)(rng() % 4);
            for (int j = 0; j < k; j++)
                copy[rng() % len] = j % 2 ? (char)(rng() & 0xff) : " {}[]:,-\"'\n0a&*|"[rng() % 17];
            dracel_status st = dc_slices_load_buffer(&s, files[f], copy, len, NULL, err, sizeof err);
            assert_true(st == DRACEL_OK || st == DRACEL_EINPUT);
            if (st == DRACEL_EINPUT)
                assert_true(err[0] != '\0');
        }
        free(copy);
        free(text);
        dc_slice_set_free(&s);
    }
    dc_slice_set_free(&s);
}

/* ---------------------------------------------------------------------------------------------
 * Allocation failures
 */

/* The table's side tables: taints and consumed counters by row, shared counters by pool. */
static uint32_t row_of(const dc_table *t, const char *name)
{
    for (uint32_t r = 0; r < t->rows; r++) {
        const dc_str *s = dc_dict_str(t->dict, t->device_name[r]);
        if (s->len == strlen(name) && !memcmp(s->data, name, s->len))
            return r;
    }
    fail_msg("no row %s", name);
    return 0;
}

static void same_id(const dc_table *t, uint32_t id, const char *want)
{
    const dc_str *s = dc_dict_str(t->dict, id);
    assert_int_equal(s->len, strlen(want));
    assert_memory_equal(s->data, want, s->len);
}

/* List-typed attributes in a table: always boxed (the column keeps its scalar kind), one list
 * object per distinct content, and a version list that is not semver faults its device. */
static void test_table_lists(void **state)
{
    (void)state;
    static const char doc[] =
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
        "spec:\n  driver: gpu.example.com\n  nodeName: node-1\n"
        "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  devices:\n"
        "  - {name: d0, attributes: {numa: {int: 0}, fw: {versions: [1.0.0, 2.0.0]}}}\n"
        "  - {name: d1, attributes: {numa: {ints: [0, 1]}, fw: {versions: [1.0.0, 2.0.0]}}}\n"
        "  - {name: d2, attributes: {numa: {int: 1}, tags: {strings: [a, b]}}}\n"
        "  - {name: d3, attributes: {numa: {ints: [0, 1]}, fw: {versions: [1.0.0, v2]}}}\n";
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    assert_int_equal(dc_slices_load_buffer(&s, "t.yaml", doc, strlen(doc), NULL, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(s.slices[0].devices[1].attrs[0].kind, DC_ATTR_INTS);
    assert_int_equal(s.slices[0].devices[1].attrs[0].n, 2);
    assert_int_equal(s.slices[0].devices[1].attrs[0].is[1], 1);
    assert_string_equal(s.slices[0].devices[2].attrs[1].ss[1], "b");
    dc_table *t = NULL;
    assert_int_equal(dc_table_build(&s, NULL, NULL, &t, err, sizeof err), DRACEL_OK);
    dc_slice_set_free(&s);

    const dc_tcol *numa = dc_table_col(t, false, "gpu.example.com", 15, "numa", 4);
    assert_non_null(numa);
    assert_int_equal(numa->kind, DC_COL_INT); /* the scalars keep their typed storage */
    assert_int_equal(numa->nforeign, 2);
    dc_val a, b, x;
    assert_true(dc_tcol_get(t, numa, row_of(t, "d1"), NULL, &a));
    assert_true(dc_tcol_get(t, numa, row_of(t, "d3"), NULL, &b));
    assert_int_equal(a.k, DC_K_LIST);
    assert_int_equal(a.u.l->n, 2);
    assert_int_equal(a.u.l->v[1].u.i, 1);
    assert_ptr_equal(a.u.l, b.u.l); /* one object per distinct list */
    assert_true(dc_tcol_get(t, numa, row_of(t, "d2"), NULL, &x));
    assert_int_equal(x.k, DC_K_INT);
    /* a run of rows reads the same as row by row */
    dc_val run[4];
    bool got[4];
    dc_tcol_get_run(t, numa, 0, 4, run, got);
    for (uint32_t r = 0; r < 4; r++) {
        assert_true(got[r] && dc_tcol_get(t, numa, r, NULL, &x));
        assert_int_equal(run[r].k, x.k);
    }
    const dc_tcol *tags = dc_table_col(t, false, "gpu.example.com", 15, "tags", 4);
    assert_non_null(tags);
    dc_tcol_get_run(t, tags, 0, 4, run, got);
    assert_false(got[row_of(t, "d0")]);
    assert_true(got[row_of(t, "d2")]);
    assert_int_equal(run[row_of(t, "d2")].u.l->v[0].k, DC_K_STRING);
    const dc_tcol *fw = dc_table_col(t, false, "gpu.example.com", 15, "fw", 2);
    assert_true(dc_tcol_get(t, fw, row_of(t, "d0"), NULL, &x));
    assert_int_equal(x.u.l->v[1].k, DC_K_SEMVER);
    /* d3's v2 is no semver: the device cannot be presented to CEL */
    assert_null(dc_table_fault(t, row_of(t, "d0")));
    const dc_val *f = dc_table_fault(t, row_of(t, "d3"));
    assert_non_null(f);
    assert_string_equal(f->u.e->msg, "attribute fw: parse semantic version: No Major.Minor.Patch "
                                     "elements found");
    dc_table_free(t);
}

static void test_table_side(void **state)
{
    (void)state;
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    assert_int_equal(dc_slices_load(&s, DATA "basic.yaml", NULL, err, sizeof err), DRACEL_OK);
    dc_table *t = NULL;
    assert_int_equal(dc_table_build(&s, NULL, NULL, &t, err, sizeof err), DRACEL_OK);
    dc_slice_set_free(&s);

    uint32_t n = 9;
    assert_null(dc_table_taints(t, row_of(t, "gpu-0"), &n));
    assert_int_equal(n, 0);
    const dc_ttaint *tt = dc_table_taints(t, row_of(t, "gpu-1"), &n);
    assert_int_equal(n, 2);
    assert_int_equal(tt[0].row, row_of(t, "gpu-1"));
    same_id(t, tt[0].key, "example.com/unhealthy");
    same_id(t, tt[0].value, "true");
    same_id(t, tt[0].effect, "NoSchedule");
    same_id(t, tt[1].key, "maintenance");
    assert_int_equal(tt[1].value, DC_DICT_NONE);

    const dc_tcounter *c = dc_table_consumes(t, row_of(t, "gpu-0-mig-1"), &n);
    assert_int_equal(n, 2);
    same_id(t, c[0].set, "gpu-0-counters");
    same_id(t, c[0].name, "memory");
    assert_true(c[0].value->text->len == 4 && !memcmp(c[0].value->text->data, "40Gi", 4));
    same_id(t, c[1].name, "sm");
    c = dc_table_consumes(t, row_of(t, "gpu-0-mig-2"), &n);
    assert_int_equal(n, 1);
    assert_null(dc_table_consumes(t, row_of(t, "gpu-0-mig-3"), &n));
    assert_int_equal(n, 0);

    /* The counters slice has no devices; its counters belong to the pool of the partitions. */
    assert_int_equal(t->nshared, 2);
    const dc_tpool *p = &t->pools[t->shared[0].owner];
    same_id(t, p->name, "node-a/partitions");
    same_id(t, t->shared[0].set, "gpu-0-counters");
    same_id(t, t->shared[1].name, "sm");
    for (uint32_t i = 1; i < t->ntaints; i++)
        assert_true(t->taints[i - 1].row <= t->taints[i].row);
    for (uint32_t i = 1; i < t->nconsumes; i++)
        assert_true(t->consumes[i - 1].owner <= t->consumes[i].owner);
    dc_table_free(t);

    /* No slices at all (an empty file): an empty table, not undefined behaviour. */
    dc_slice_set_init(&s, NULL);
    assert_int_equal(load_text(&s, "empty.yaml", "", NULL), DRACEL_OK);
    assert_int_equal(dc_table_build(&s, NULL, NULL, &t, err, sizeof err), DRACEL_OK);
    assert_int_equal(t->rows, 0);
    assert_int_equal(t->npools, 0);
    assert_int_equal(t->ntaints + t->nconsumes + t->nshared, 0);
    dc_table_free(t);
    dc_slice_set_free(&s);
}

static void test_alloc_failures(void **state)
{
    (void)state;
    size_t ylen, jlen;
    char *ytext = slurp(DATA "basic.yaml", &ylen);
    char *jtext = slurp(DATA "basic.json", &jlen);
    long failures = 0;
    for (long at = 1;; at++) {
        fail_alloc fa = {0, at, 0, 0};
        dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
        dc_slice_set s;
        dc_slice_set_init(&s, &a);
        dracel_status st = dc_slices_load(&s, DATA "dir", NULL, err, sizeof err);
        if (st == DRACEL_OK)
            st = dc_slices_load(&s, DATA "list.yaml", NULL, err, sizeof err);
        if (st == DRACEL_OK)
            st = dc_slices_load_buffer(&s, "basic.yaml", ytext, ylen, NULL, err, sizeof err);
        if (st == DRACEL_OK)
            st = dc_slices_load_buffer(&s, "basic.json", jtext, jlen, NULL, err, sizeof err);
        if (st == DRACEL_OK) {
            assert_true(fa.calls < at);
            assert_int_equal(s.n, 3 + 5 + 5 + 5);
            assert_int_equal(s.nnotes, 3);
        } else {
            if (st != DRACEL_ENOMEM)
                fail_msg("allocation %ld failed: status %d: %s", at, st, err);
            assert_string_equal(err, "out of memory");
            failures++;
        }
        dc_slice_set_free(&s);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.live_bytes, 0);
        if (st == DRACEL_OK)
            break;
    }
    assert_true(failures > 20);
    print_message("      %ld allocation failures injected, each ENOMEM without a leak\n", failures);
    free(ytext);
    free(jtext);
}

/* The arena asks for memory in growing chunks, so few allocation calls happen per load: shifting
 * the arena's fill level before the load moves those calls to other sites of the loader. */
static void test_alloc_failures_shifted(void **state)
{
    (void)state;
    size_t ylen, jlen;
    char *ytext = slurp(DATA "basic.yaml", &ylen);
    char *jtext = slurp(DATA "basic.json", &jlen);
    static const char bad[] = DEVS "  - name: x\n    attributes: {a: {int: 1}}\n"
                              "  - name: x\n";
    long failures = 0;
    for (size_t shift = 0; shift <= 4096 + 512; shift += 24) {
        for (long at = 1;; at++) {
            fail_alloc fa = {0, 0, 0, 0};
            dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
            dc_slice_set s;
            dc_slice_set_init(&s, &a);
            if (shift)
                assert_non_null(dc_arena_alloc(&s.arena, shift));
            fa.fail_at = fa.calls + at;
            dracel_status st =
                dc_slices_load_buffer(&s, "basic.yaml", ytext, ylen, NULL, err, sizeof err);
            if (st == DRACEL_OK)
                st = dc_slices_load_buffer(&s, "basic.json", jtext, jlen, NULL, err, sizeof err);
            if (st == DRACEL_OK) {
                st = dc_slices_load_buffer(&s, "bad.yaml", bad, strlen(bad), NULL, err,
                                           sizeof err);
                if (st == DRACEL_EINPUT) {
                    assert_string_equal(err, "bad.yaml:10: ResourceSlice s1: spec.devices[1].name: "
                                             "duplicate device name \"x\" (also spec.devices[0])");
                    st = DRACEL_OK;
                }
            }
            bool done = fa.calls < fa.fail_at;
            if (st != DRACEL_OK) {
                if (st != DRACEL_ENOMEM)
                    fail_msg("shift %zu, allocation %ld: status %d: %s", shift, at, st, err);
                failures++;
            } else {
                assert_int_equal(s.n, 10);
                assert_true(done);
            }
            dc_slice_set_free(&s);
            assert_int_equal(fa.live_blocks, 0);
            assert_int_equal(fa.live_bytes, 0);
            if (done)
                break;
        }
    }
    print_message("      %ld allocation failures injected\n", failures);
    free(ytext);
    free(jtext);
}

/* ---------------------------------------------------------------------------------------------
 * Performance: a fleet of 100,000 devices as 1,000 files of 100 devices
 */

static void write_fleet(const char *dir, int files, int devices, bool yaml)
{
    for (int f = 0; f < files; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/node-%04d.%s", dir, f, yaml ? "yaml" : "json");
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        if (yaml) {
            fprintf(fp, "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n"
                        "  name: node-%d-gpu\nspec:\n  driver: gpu.example.com\n  pool:\n"
                        "    name: node-%d\n    generation: 1\n    resourceSliceCount: 1\n"
                        "  nodeName: node-%d\n  devices:\n",
                    f, f, f);
            for (int d = 0; d < devices; d++)
                fprintf(fp, "  - name: gpu-%d\n    attributes:\n"
                            "      model:\n        string: H100\n"
                            "      index:\n        int: %d\n"
                            "      uuid:\n        string: GPU-%08d-%04d\n"
                            "      driverVersion:\n        version: 550.54.15\n"
                            "      gpu.example.com/capable:\n        bool: true\n"
                            "      numa:\n        int: %d\n"
                            "      serial:\n        int: %lld\n"
                            "    capacity:\n      memory:\n        value: 80Gi\n"
                            "      cores:\n        value: \"132\"\n",
                        d, d, f, d, d % 2, 9007199254740993LL + d);
        } else {
            fprintf(fp, "{\n  \"apiVersion\": \"resource.k8s.io/v1\",\n  \"kind\": \"ResourceSlice\",\n"
                        "  \"metadata\": {\"name\": \"node-%d-gpu\"},\n  \"spec\": {\n"
                        "    \"driver\": \"gpu.example.com\",\n"
                        "    \"pool\": {\"name\": \"node-%d\", \"generation\": 1, "
                        "\"resourceSliceCount\": 1},\n    \"nodeName\": \"node-%d\",\n"
                        "    \"devices\": [\n",
                    f, f, f);
            for (int d = 0; d < devices; d++)
                fprintf(fp, "      {\n        \"name\": \"gpu-%d\",\n        \"attributes\": {\n"
                            "          \"model\": {\"string\": \"H100\"},\n"
                            "          \"index\": {\"int\": %d},\n"
                            "          \"uuid\": {\"string\": \"GPU-%08d-%04d\"},\n"
                            "          \"driverVersion\": {\"version\": \"550.54.15\"},\n"
                            "          \"gpu.example.com/capable\": {\"bool\": true},\n"
                            "          \"numa\": {\"int\": %d},\n"
                            "          \"serial\": {\"int\": %lld}\n        },\n"
                            "        \"capacity\": {\"memory\": {\"value\": \"80Gi\"}, "
                            "\"cores\": {\"value\": \"132\"}}\n      }%s\n",
                        d, d, f, d, d % 2, 9007199254740993LL + d, d + 1 < devices ? "," : "");
            fprintf(fp, "    ]\n  }\n}\n");
        }
        fclose(fp);
    }
}

static void remove_fleet(const char *dir, int files, bool yaml)
{
    for (int f = 0; f < files; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/node-%04d.%s", dir, f, yaml ? "yaml" : "json");
        unlink(path);
    }
    rmdir(dir);
}

static void run_fleet(bool yaml)
{
    /* DRACEL_SLICES_FLEET_FILES overrides the number of files (default 1000) */
    const char *env = getenv("DRACEL_SLICES_FLEET_FILES");
    int files = env ? atoi(env) : 1000, devices = 100;
    char dir[] = "/tmp/dracel-fleet-XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_fleet(dir, files, devices, yaml);
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    dracel_status st = dc_slices_load(&s, dir, NULL, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    remove_fleet(dir, files, yaml);
    if (st != DRACEL_OK)
        fail_msg("%s", err);
    assert_int_equal(s.n, (uint32_t)files);
    size_t total = 0;
    for (uint32_t i = 0; i < s.n; i++)
        total += s.slices[i].ndevices;
    assert_int_equal(total, (size_t)files * (size_t)devices);
    assert_true(s.slices[files - 1].devices[devices - 1].attrs[6].i ==
                9007199254740993LL + devices - 1);
    /* the time is reported, never judged (bench/ measures speed) */
    print_message("      %s fleet: %zu devices in %d files loaded in %.2f s (arena %zu MiB)\n",
                  yaml ? "YAML" : "JSON", total, files, secs, s.arena.total >> 20);
    dc_slice_set_free(&s);
}

static void test_fleet_json(void **state)
{
    (void)state;
    run_fleet(false);
}

static void test_fleet_yaml(void **state)
{
    (void)state;
    run_fleet(true);
}

int main(void)
{
    if (to_sources() != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_content),
        cmocka_unit_test(test_table_side),
        cmocka_unit_test(test_table_lists),
        cmocka_unit_test(test_json_yaml_same),
        cmocka_unit_test(test_line_numbers),
        cmocka_unit_test(test_directory),
        cmocka_unit_test(test_list_forms),
        cmocka_unit_test(test_exact_int64),
        cmocka_unit_test(test_int_errors),
        cmocka_unit_test(test_yaml_resolution),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_errors_slice),
        cmocka_unit_test(test_taint_rules),
        cmocka_unit_test(test_request_policy),
        cmocka_unit_test(test_binding_params),
        cmocka_unit_test(test_errors_selectors),
        cmocka_unit_test(test_errors_devices),
        cmocka_unit_test(test_errors_counters),
        cmocka_unit_test(test_errors_per_device),
        cmocka_unit_test(test_errors_syntax),
        cmocka_unit_test(test_errors_json_lines),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_rollback_and_io),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_side_tables),
        cmocka_unit_test(test_fuzz),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_alloc_failures_shifted),
        cmocka_unit_test(test_fleet_json),
        cmocka_unit_test(test_fleet_yaml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
