/*
 * fuzz_request: libFuzzer harness for dra-extender's request reader and what it resolves: the
 * ExtenderArgs body (src/extender/args.c, on the JSON tools of src/extender/json.c) read with
 * the limits the server uses, then answered by the filter and prioritize of
 * src/extender/decide.c against a fixed cluster (the repository's sample: fleet, class, nodes,
 * the trainer's claim and an allocated claim, loaded through the store as --objects loads
 * them). Built with --enable-fuzzing. The input is one request body.
 *
 * Besides crashes and sanitizer reports, it traps on a broken contract: a reader status other
 * than 0, -1, -2, a rejection without a message, spans that do not point at objects of the
 * body, an answer that is not valid JSON, or a filter answer that does not account for every
 * node of the request exactly once (NodeNames or Nodes, FailedNodes, FailedAndUnresolvable),
 * or a prioritize answer with another number of entries or a score outside 0..10. The same
 * body is also read as an AdmissionReview (src/extender/admit.c, POST /validate): a status
 * other than 200, 400 and 500, a 400 without a reason, or a 200 that is not valid JSON with
 * the review's head traps.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "../src/extender/admit.h"
#include "../src/extender/args.h"
#include "../src/extender/decide.h"
#include "../src/extender/json.h"
#include "../src/extender/log.h"
#include "../src/extender/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

#ifndef SAMPLE_DIR
#define SAMPLE_DIR "examples"
#endif

static store *st;
static decider *dec;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    CHECK(f);
    jbuf b;
    jb_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        jb_put(&b, chunk, n);
    fclose(f);
    char *t = jb_take(&b, len);
    CHECK(t);
    return t;
}

static void load(const char *rel)
{
    char path[1024], err[2048];
    snprintf(path, sizeof path, "%s/%s", SAMPLE_DIR, rel);
    size_t len;
    char *text = slurp(path, &len);
    unsigned all = DRACEL_OBJ_SLICE | DRACEL_OBJ_CLASS | DRACEL_OBJ_CLAIM | DRACEL_OBJ_NODE;
    CHECK(store_set_source(st, path, text, len, all, err, sizeof err) == DRACEL_OK);
    free(text);
}

static void setup(void)
{
    log_set_level(LOG_ERROR);
    char err[1024];
    store_config sc = {NULL, 0, 0};
    st = store_new(&sc, err, sizeof err);
    CHECK(st);
    load("fleet/a100-nodes.json");
    load("fleet/h100-nodes.yaml");
    load("fleet/l4-and-partial.yaml");
    load("fleet/tainted.yaml");
    load("classes/gpu.yaml");
    load("nodes.yaml");
    load("extender/claims.yaml");
    CHECK(store_flush(st, err, sizeof err) == DRACEL_OK);
    decide_config dc;
    memset(&dc, 0, sizeof dc);
    dc.features = DRACEL_FEATURES_DEFAULT;
    dc.node_timeout_ms = 20;
    dc.budget_ms = 200;
    dc.cache_entries = 4096;
    dec = decider_new(&dc, st, err, sizeof err);
    CHECK(dec);
}

static size_t count_members(const cJSON *o)
{
    size_t n = 0;
    for (const cJSON *c = o ? o->child : NULL; c; c = c->next)
        n++;
    return n;
}

/* cJSON refuses a lone surrogate escape (\ud800 alone), which JSON's grammar allows and Go's
 * decoder reads as U+FFFD. The Nodes form echoes the scheduler's node objects as written, so
 * such an escape can reach the answer: for cJSON, every surrogate escape becomes \ufffd (the
 * structure checked is the same). */
static cJSON *parse_answer(char *out)
{
    for (char *p = out; *p; p++) {
        if (*p != '\\' || !p[1])
            continue;
        /* p[1] is escaped: skip it; \uD800 to \uDFFF become \ufffd */
        if (p[1] == 'u' && (p[2] == 'd' || p[2] == 'D') && p[3] && strchr("89abcdefABCDEF", p[3]))
            memcpy(p + 2, "fffd", 4);
        p++;
    }
    return cJSON_Parse(out);
}

static void check_filter(const ext_args *a, char *out)
{
    cJSON *r = parse_answer(out);
    CHECK(r);
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(r, "NodeNames");
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(r, "Nodes");
    const cJSON *failed = cJSON_GetObjectItemCaseSensitive(r, "FailedNodes");
    const cJSON *unres = cJSON_GetObjectItemCaseSensitive(r, "FailedAndUnresolvableNodes");
    CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "Error")));
    CHECK(cJSON_IsObject(failed) && cJSON_IsObject(unres));
    size_t passed;
    if (a->nodes_form) {
        CHECK(cJSON_IsNull(names));
        const cJSON *items = cJSON_GetObjectItemCaseSensitive(nodes, "items");
        CHECK(cJSON_IsArray(items));
        passed = (size_t)cJSON_GetArraySize(items);
    } else {
        CHECK(cJSON_IsNull(nodes) && cJSON_IsArray(names));
        passed = (size_t)cJSON_GetArraySize(names);
    }
    /* Every input node once; duplicate names collapse in the maps (JSON object keys), so
     * count distinct failed names against the input's. */
    size_t fails = count_members(failed) + count_members(unres);
    CHECK(passed + fails <= a->nnodes);
    bool dup = false;
    for (size_t i = 0; i < a->nnodes && !dup; i++)
        for (size_t k = i + 1; k < a->nnodes && !dup; k++)
            dup = strcmp(a->nodes[i].name, a->nodes[k].name) == 0;
    if (!dup)
        CHECK(passed + fails == a->nnodes);
    cJSON_Delete(r);
}

static void check_prioritize(const ext_args *a, char *out)
{
    cJSON *r = parse_answer(out);
    CHECK(r && cJSON_IsArray(r));
    CHECK((size_t)cJSON_GetArraySize(r) == a->nnodes);
    for (const cJSON *e = r->child; e; e = e->next) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "Score");
        CHECK(cJSON_IsNumber(s) && s->valuedouble >= 0 && s->valuedouble <= 10);
        CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "Host")));
    }
    cJSON_Delete(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!st)
        setup();
    /* The server hands the reader a NUL-terminated copy. */
    char *body = malloc(size + 1);
    CHECK(body);
    memcpy(body, data, size);
    body[size] = '\0';
    /* The limits of args.h as well: a small memory cap (the 16 KiB blocks of the arena reach it
     * from 4 on), and for one input length in seven a deadline long past (reading stops at
     * its 256th allocation). */
    /* as an AdmissionReview, linted against no classes */
    {
        admit_config ac = {size % 2 == 1, NULL};
        jbuf ab;
        jb_init(&ab);
        char aerr[512] = "";
        int as = admit_review(&ac, NULL, body, size, &ab, aerr, sizeof aerr);
        CHECK(as == 200 || as == 400 || as == 500);
        CHECK(as != 400 || aerr[0]);
        char *at = jb_take(&ab, NULL);
        if (as == 200) {
            CHECK(at);
            cJSON *j = cJSON_Parse(at);
            CHECK(j);
            CHECK(cJSON_GetObjectItemCaseSensitive(j, "response"));
            cJSON_Delete(j);
        }
        free(at);
    }
    ext_limits lim = {64, 2000, 65536, size % 7 == 3 ? 1e-9 : 0};
    ext_args a;
    char err[512] = "";
    int rc = ext_args_parse(body, size, &lim, &a, err, sizeof err);
    CHECK(rc == 0 || rc == EXT_EBAD || rc == EXT_ENOMEM || rc == EXT_ETOOBIG || rc == EXT_ELATE);
    CHECK(rc != EXT_ELATE || lim.deadline);
    CHECK(rc != EXT_ETOOBIG || strncmp(err, "request too large", 17) == 0);
    CHECK(rc != 0 || a.mem_used <= lim.max_memory);
    if (rc != 0) {
        CHECK(err[0]);
        free(body);
        return 0;
    }
    for (size_t i = 0; i < a.nnodes; i++) {
        CHECK(a.nodes[i].name);
        if (a.nodes_form) {
            CHECK(a.nodes[i].start < a.nodes[i].end && a.nodes[i].end <= size);
            CHECK(body[a.nodes[i].start] == '{' && body[a.nodes[i].end - 1] == '}');
        }
    }
    for (size_t i = 0; i < a.pod.nclaims; i++)
        CHECK(a.pod.claims[i].entry && a.pod.claims[i].entry[0]);
    a.deadline = 0; /* the answers below are checked whole: no budget cuts them short */
    jbuf out;
    jb_init(&out);
    int status = decide_filter(dec, &a, &out);
    CHECK(status == 200 && !out.oom);
    char *text = jb_take(&out, NULL);
    CHECK(text);
    check_filter(&a, text);
    free(text);
    status = decide_prioritize(dec, &a, &out);
    CHECK(status == 200 && !out.oom);
    text = jb_take(&out, NULL);
    CHECK(text);
    check_prioritize(&a, text);
    free(text);
    ext_args_free(&a);
    free(body);
    return 0;
}
