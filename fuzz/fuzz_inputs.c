/*
 * fuzz_inputs: libFuzzer harness for the readers of dra-celc's own inputs, through the public
 * API the programs use (include/dracel.h): --device (dracel_env_device_json), --bind
 * (dracel_env_bind_json), --nodes, --claim and --classes (dracel_objects_load_buffer) and
 * --allocated (src/celc/ids.c). Built with --enable-fuzzing. The first byte picks the reader
 * (and, for objects, the kinds asked for); the rest is the input.
 *
 * Besides crashes and sanitizer reports, it traps on a broken contract:
 * - a status other than OK, EINPUT, ENOMEM; a rejection without a message;
 * - device: a bound device that the DRA selectors below cannot evaluate, or whose result is not
 *   valid JSON;
 * - value: printing is not the inverse of reading: a bound value's typed JSON, read again and
 *   printed again, must be accepted and give the same bytes;
 * - objects: a rejected load that changed the set (all or nothing); an object its kind's index
 *   cannot find by name; the same Nodes or DeviceClasses loaded twice not being "defined twice";
 * - allocated: an ID with an empty part, or more devices in use than IDs;
 * - pod (dracel_pod_load_buffer, `dra-celc explain --pod`; the first byte's top three bits set
 *   with the objects reader): a pod read must give a policy of its extended resources against
 *   a fixed class and slice, and every resource it names must have a class.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "dracel.h"
#include "../src/celc/ids.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static bool valid_status(dracel_status st)
{
    return st == DRACEL_OK || st == DRACEL_EINPUT || st == DRACEL_ENOMEM;
}

static bool valid_json(const char *s)
{
    cJSON *j = s ? cJSON_Parse(s) : NULL;
    cJSON_Delete(j);
    return j != NULL;
}

/* Evaluate p in env; the result must print as JSON. */
static void eval_ok(const dracel_program *p, const dracel_env *env)
{
    dracel_result *r = NULL;
    dracel_status st = dracel_eval(p, env, &r);
    CHECK(st == DRACEL_OK || st == DRACEL_ENOMEM);
    if (st == DRACEL_OK) {
        char *j = dracel_result_json(r);
        CHECK(j && valid_json(j));
        dracel_free_string(NULL, j);
    }
    dracel_result_free(r);
}

static dracel_program *compile(const dracel_env *env, const char *src)
{
    dracel_program *p = NULL;
    dracel_diags *d = NULL;
    dracel_status st = dracel_compile(env, src, strlen(src), 0, &p, &d);
    dracel_diags_free(d);
    CHECK(st == DRACEL_OK);
    return p;
}

/* Selectors that read every part of a device: its fields, each domain's attributes and
 * capacities by iteration, and the usual idioms. */
static const char *const selectors[] = {
    "device.driver != \"\" || device.allowMultipleAllocations",
    "device.attributes.all(d, device.attributes[d].all(k, has(device.attributes[d].model) || k != \"\"))",
    ("device.capacity.exists(d, device.capacity[d].exists(k, "
     "device.capacity[d][k].compareTo(quantity(\"1Gi\")) > 0))"),
    "device.attributes[\"gpu.example.com\"].?model.orValue(\"\") == \"H100\"",
    "device.attributes.exists(d, d == device.driver && size(device.attributes[d]) > 2)",
};

static void read_device(const char *in, size_t len)
{
    dracel_env *env = NULL;
    CHECK(dracel_env_new(NULL, DRACEL_ENV_DRA, &env) == DRACEL_OK);
    char err[512] = "";
    dracel_status st = dracel_env_device_json(env, in, len, err, sizeof err);
    CHECK(valid_status(st));
    CHECK(st != DRACEL_EINPUT || err[0]);
    if (st == DRACEL_OK)
        for (size_t i = 0; i < sizeof selectors / sizeof *selectors; i++) {
            dracel_program *p = compile(env, selectors[i]);
            eval_ok(p, env);
            dracel_program_free(p);
        }
    dracel_env_free(env);
}

/* Bind json to x in a new plain environment and print x; NULL when rejected. */
static char *bind_print(const char *json, size_t len, bool must_accept)
{
    dracel_env *env = NULL;
    CHECK(dracel_env_new(NULL, DRACEL_ENV_PLAIN, &env) == DRACEL_OK);
    char err[512] = "";
    dracel_status st = dracel_env_bind_json(env, "x", json, len, err, sizeof err);
    CHECK(valid_status(st));
    CHECK(st != DRACEL_EINPUT || err[0]);
    CHECK(!must_accept || st == DRACEL_OK);
    char *out = NULL;
    if (st == DRACEL_OK) {
        dracel_program *p = compile(env, "x");
        dracel_result *r = NULL;
        CHECK(dracel_eval(p, env, &r) == DRACEL_OK);
        CHECK(dracel_result_error(r) == NULL);
        char *j = dracel_result_json(r);
        CHECK(j && valid_json(j));
        out = strdup(j);
        dracel_free_string(NULL, j);
        dracel_result_free(r);
        dracel_program_free(p);
        p = compile(env, "x == x && [x].size() == 1");
        eval_ok(p, env);
        dracel_program_free(p);
    }
    dracel_env_free(env);
    return out;
}

static void read_value(const char *in, size_t len)
{
    char *first = bind_print(in, len, false);
    if (!first)
        return;
    char *second = bind_print(first, strlen(first), true);
    CHECK(second && strcmp(first, second) == 0);
    free(first);
    free(second);
}

static const unsigned kind_bits[] = {DRACEL_OBJ_CLASS, DRACEL_OBJ_CLAIM, DRACEL_OBJ_NODE};

static size_t count_all(const dracel_objects *o)
{
    size_t n = 0;
    for (size_t k = 0; k < 3; k++)
        n += dracel_objects_count(o, kind_bits[k]);
    return n;
}

static void read_objects(unsigned sel, const char *in, size_t len)
{
    unsigned kinds = (sel & 7u) ? (sel & 7u) << 1 : DRACEL_OBJ_CLASS | DRACEL_OBJ_CLAIM | DRACEL_OBJ_NODE;
    dracel_objects *o = NULL;
    CHECK(dracel_objects_new(NULL, &o) == DRACEL_OK);
    char err[1024] = "";
    dracel_status st = dracel_objects_load_buffer(o, "input.yaml", in, len, kinds, err, sizeof err);
    CHECK(valid_status(st));
    if (st != DRACEL_OK) {
        CHECK(st != DRACEL_EINPUT || err[0]);
        CHECK(count_all(o) == 0);
        dracel_objects_free(o);
        return;
    }
    for (size_t k = 0; k < 3; k++) {
        unsigned kind = kind_bits[k];
        for (size_t i = 0; i < dracel_objects_count(o, kind); i++) {
            dracel_object_info info;
            CHECK(dracel_objects_get(o, kind, i, &info) == DRACEL_OK);
            CHECK(info.name && info.kind && info.file);
            size_t at;
            if (kind != DRACEL_OBJ_CLAIM || info.name[0]) {
                CHECK(dracel_objects_find(o, kind, info.ns, info.name, &at) == DRACEL_OK);
                if (kind != DRACEL_OBJ_CLAIM)
                    CHECK(at == i);
            }
            if (kind == DRACEL_OBJ_NODE) {
                dracel_node n;
                CHECK(dracel_objects_node(o, i, &n) == DRACEL_OK);
                CHECK(n.name && strcmp(n.name, info.name) == 0);
                for (size_t l = 1; l < n.nlabels; l++)
                    CHECK(strcmp(n.labels[l - 1].key, n.labels[l].key) <= 0);
            }
        }
    }
    size_t before = count_all(o);
    bool named = dracel_objects_count(o, DRACEL_OBJ_NODE) + dracel_objects_count(o, DRACEL_OBJ_CLASS) > 0;
    st = dracel_objects_load_buffer(o, "again.yaml", in, len, kinds, err, sizeof err);
    CHECK(st == DRACEL_ENOMEM || !named || st == DRACEL_EINPUT);
    CHECK(st == DRACEL_OK || count_all(o) == before);
    dracel_objects_free(o);
}

/* Two drivers, pools with '/' in their names. */
static const char fleet[] =
    "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\","
    "\"metadata\":{\"name\":\"s1\"},\"spec\":{\"driver\":\"gpu.example.com\","
    "\"pool\":{\"name\":\"node-1/a\",\"generation\":1,\"resourceSliceCount\":1},"
    "\"nodeName\":\"node-1\",\"devices\":[{\"name\":\"gpu-0\"},{\"name\":\"gpu-1\"}]}}\n";

static dracel_table *table;

static void read_allocated(const char *in, size_t len)
{
    if (!table) {
        char err[512];
        CHECK(dracel_table_load_buffer(NULL, "fleet.json", fleet, sizeof fleet - 1, &table, err,
                                       sizeof err) == DRACEL_OK);
    }
    char *buf = malloc(len + 1);
    CHECK(buf);
    memcpy(buf, in, len);
    buf[len] = '\0';
    dracel_device_id *ids = NULL;
    size_t n = 0;
    char msg[1024] = "";
    int r = celc_parse_ids("allocated.txt", buf, len, &ids, &n, msg, sizeof msg);
    CHECK(r != 1 || msg[0]);
    if (r == 0) {
        for (size_t i = 0; i < n; i++)
            CHECK(ids[i].driver[0] && ids[i].pool[0] && ids[i].device[0]);
        dracel_usage *u = NULL;
        dracel_status st = dracel_usage_new(table, ids, n, &u);
        CHECK(st == DRACEL_OK || st == DRACEL_ENOMEM);
        CHECK(!u || dracel_usage_devices(u) <= n);
        dracel_usage_free(u);
    }
    free(ids);
    free(buf);
}

static const char POD_CLASSES[] =
    "kind: DeviceClass\nmetadata: {name: gpu}\nspec: {extendedResourceName: example.com/gpu}\n"
    "---\nkind: DeviceClass\nmetadata: {name: nic}\n";
static const char POD_SLICE[] =
    "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d\n  nodeName: node-1\n"
    "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  devices: [{name: a}, {name: b}]\n";

static void read_pod(const char *in, size_t len)
{
    static dracel_objects *classes;
    static dracel_table *t;
    char err[1024] = "";
    if (!classes) {
        CHECK(dracel_objects_new(NULL, &classes) == DRACEL_OK);
        CHECK(dracel_objects_load_buffer(classes, "classes.yaml", POD_CLASSES,
                                         strlen(POD_CLASSES), DRACEL_OBJ_CLASS, err,
                                         sizeof err) == DRACEL_OK);
        CHECK(dracel_table_load_buffer(NULL, "slice.yaml", POD_SLICE, strlen(POD_SLICE), &t, err,
                                       sizeof err) == DRACEL_OK);
    }
    dracel_pod *p = NULL;
    dracel_status st = dracel_pod_load_buffer(NULL, "pod.yaml", in, len, &p, err, sizeof err);
    CHECK(valid_status(st));
    CHECK(st == DRACEL_OK || (!p && (st != DRACEL_EINPUT || err[0])));
    if (st != DRACEL_OK)
        return;
    const char *res[8];
    size_t n = dracel_pod_extended(p, classes, NULL, 0, res, 8);
    dracel_policy *pl = NULL;
    st = dracel_policy_new_pod(NULL, t, classes, NULL, NULL, 0, p, res, n < 8 ? n : 8, &pl, err,
                               sizeof err);
    CHECK(st == DRACEL_OK || st == DRACEL_ENOMEM);
    dracel_policy_free(pl);
    dracel_pod_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned sel = data[0];
    const char *in = (const char *)data + 1;
    size_t len = size - 1;
    switch (sel % 4) {
    case 0: read_device(in, len); break;
    case 1: read_value(in, len); break;
    case 2:
        if ((sel & 0xE0) == 0xE0)
            read_pod(in, len);
        else
            read_objects(sel >> 2, in, len);
        break;
    default: read_allocated(in, len); break;
    }
    return 0;
}
