/*
 * test_diff.c: a randomized differential test of the two VMs over device tables.
 *
 * Each round builds a random fleet (ResourceSlices of two drivers over several pools and
 * slices; devices with random subsets of a fixed set of attribute and capacity names, the same
 * name published with different kinds on some devices, strings from a small vocabulary,
 * versions with prerelease and build parts and a few that do not parse, quantities of many
 * spellings), loads it with dracel_table_load_buffer, and evaluates random selectors from a
 * depth-bounded grammar over the supported subset of the DRA environment on it: the scalar VM
 * (the reference) and the vector VM at batch sizes 1, 63, 64, 65, 1025 and a random one, with
 * keep_values. Every row's dracel_selection_value_json must be identical across all runs.
 * Half of the selectors are compiled with DRACEL_COMPILE_NO_CHECK | DRACEL_COMPILE_ANY_RESULT
 * (dyn values and non-bool results reach the VMs), half checked (those that do not compile are
 * skipped). Some rounds use a small cost limit so that both VMs must stop at the same devices.
 *
 * On a disagreement the expression is shrunk (subtrees replaced by their children or by
 * constants) and the fleet reduced (devices dropped) while the disagreement persists; the test
 * fails with the seed, the round, the original and the shrunk expression, the row, the
 * device's JSON, the reduced fleet and both values. A crash inside dracel_select is reported
 * (seed, round, batch, expression, fleet) before the signal's default action.
 *
 * Most selectors (3 in 4) use only forms the vector VM runs as vectors (attributes and
 * capacities read by field, no `device` as a whole, no comprehensions); the others also use
 * the index and optional forms, has(), `in device.attributes[...]`, device.driver,
 * allowMultipleAllocations and comprehensions (those that read `device` as a whole or loop
 * run row by row; `"k" in device.attributes["d"]`, device.driver and allowMultipleAllocations
 * compile to column instructions).
 *
 * Uses only the public API (include/dracel.h). Environment:
 *   DIFF_SEED=N        the seed (default 20250101)
 *   DIFF_ROUNDS=N      rounds (default 300: about 13 s under ASan)
 *   DIFF_EXPRS=N       selectors per round (default 24)
 *   DIFF_FIRST_ROUND=N start at round N (rounds are independent: a failure of round R
 *                      reproduces with DIFF_FIRST_ROUND=R DIFF_ROUNDS=1)
 *   DIFF_KEEP_GOING=1  report every disagreement (shrunk) and fail only at the end
 *   DIFF_VERBOSE=1     print statistics (2: and every selector)
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include "dracel.h"

#define DEFAULT_SEED 20250101u
#define DEFAULT_ROUNDS 300u
#define DEFAULT_EXPRS 24u

/* ---------------------------------------------------------------------------------------------
 * Deterministic PRNG (splitmix64)
 */

static uint64_t rng;

static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The state of round `round` of seed `seed`: independent streams. */
static void rng_seed(uint64_t seed, uint64_t round)
{
    rng = seed;
    uint64_t a = rnd();
    rng = round ^ 0xD1B54A32D192ED03ull;
    uint64_t b = rnd();
    rng = a ^ (b * 0x9E3779B97F4A7C15ull);
    (void)rnd();
}

/* A number in [0, n). */
static uint32_t rn(uint32_t n)
{
    return n ? (uint32_t)(rnd() % n) : 0;
}

/* True with probability pm / 1000. */
static bool pm(uint32_t permille)
{
    return rn(1000) < permille;
}

#define PICK(arr) (arr)[rn((uint32_t)(sizeof(arr) / sizeof((arr)[0])))]

/* ---------------------------------------------------------------------------------------------
 * A growable string
 */

typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        assert_true(k >= 0);
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap <= b->n + (size_t)k)
            cap *= 2;
        char *q = realloc(b->p, cap);
        assert_non_null(q);
        b->p = q;
        b->cap = cap;
    }
}

static void sb_reset(sbuf *b)
{
    b->n = 0;
    if (b->p)
        b->p[0] = '\0';
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    assert_non_null(p);
    memcpy(p, s, n);
    return p;
}

/* ---------------------------------------------------------------------------------------------
 * Vocabularies (shared by the fleet and the selectors, so that constants match some values)
 */

static const char *const DRIVERS[] = {"gpu.example.com", "nic.example.org"};
#define COMMON_DOMAIN "common.example.net"

/* Strings that appear as attribute values. */
static const char *const V_MODEL[] = {"A100", "H100", "h100", "L4", "T4", "a100-80gb", "",
                                      "A100 ", "H100-SXM", "\xc3\xbcn\xc3\xaf"};
static const char *const V_DRVER[] = {"535.104.05", "550.54.15", "1.2.3", "v1.2", "2.0.3"};
static const char *const V_PCIE[] = {"pci0000:00", "pci0000:01", "PCI0000:00"};
static const char *const V_VENDOR[] = {"nvidia", "NVIDIA", "intel", "mellanox"};
/* Strings for values of an unexpected kind: some parse as quantities or versions. */
static const char *const V_JUNK[] = {"x(y", "[", "80Gi", "1.0.0", "v2", "true", "42", "-7",
                                     "A100", "nvidia", "1e3", "Mi"};
/* String constants of selectors that appear in no fleet. */
static const char *const V_ABSENT[] = {"B200", "a100", "zzz", "A", "H", "100", "NVIDIA ",
                                       "gpu.example", ".com"};

static const char *const V_VERSION[] = {"2.0.3", "2.1.0", "1.0.0-rc.1", "1.0.0-rc.1+b5",
                                        "1.0.0+build.5", "10.0.0", "0.0.0", "2.0.3-alpha",
                                        "1.0.0-0.3.7", "1.0.0", "2.0.3+x"};
static const char *const V_BADVERSION[] = {"v1", "1.0", "01.2.3", "1.2.3-", "x"};

static const char *const V_QTY[] = {"80Gi", "40Gi", "81920Mi", "1Ti", "0", "100m", "1.5",
                                    "1e3", "1k", "500M", "-1", "12345678901234567890",
                                    "0.000001", "1000", "40960Mi", "2", "85899345920"};
static const char *const V_QTY_CONST[] = {"80Gi", "40Gi", "1Ti", "0", "1", "1k", "1000",
                                          "81920Mi", "100m", "-1", "1e3", "2", "0.5Gi",
                                          "12345678901234567890"};
static const char *const V_SEMVER_CONST[] = {"2.0.3", "2.1.0", "1.0.0-rc.1", "1.0.0",
                                             "10.0.0", "0.0.0", "2.0.3-alpha", "1.0.0-rc.2",
                                             "2.0.3+other"};
static const char *const V_INT_CONST[] = {"0", "1", "2", "3", "-1", "64", "128", "7", "100",
                                          "9223372036854775807", "-9223372036854775808",
                                          "4611686018427387904", "9007199254740993", "1500"};
static const char *const V_REGEX[] = {"^A1", "100$", "[0-9]+", "(?i)h100", "^$", "a.*b", ".",
                                      "^[A-Z][0-9]+$", "NV", "0{2}", "\\\\."};

/* ---------------------------------------------------------------------------------------------
 * The fleet
 */

typedef enum kind { K_INT, K_BOOL, K_STR, K_VER, K_QTY } kind;

/* Attribute and capacity names as the fleet publishes them. */
typedef struct fattr {
    int driver;          /* -1: both drivers (qualified with COMMON_DOMAIN) */
    const char *id;
    kind k;              /* usual kind (K_QTY: a capacity) */
} fattr;

static const fattr FATTRS[] = {
    {0, "model", K_STR},       {0, "numa", K_INT},   {0, "healthy", K_BOOL},
    {0, "driverVersion", K_STR}, {0, "firmware", K_VER}, {0, "cores", K_INT},
    {0, "index", K_INT},       {1, "model", K_STR},  {1, "speed", K_INT},
    {1, "mtu", K_INT},         {1, "healthy", K_BOOL}, {1, "firmware", K_VER},
    {-1, "vendor", K_STR},     {-1, "pcieRoot", K_STR}, {-1, "numa", K_INT},
    {0, "memory", K_QTY},      {0, "slices", K_QTY}, {0, "cores", K_QTY},
    {1, "bandwidth", K_QTY},   {-1, "memory", K_QTY},
};
#define NFATTRS (sizeof FATTRS / sizeof FATTRS[0])

typedef struct devrec {
    int driver, pool, slice;
    char name[24];
    char *json;          /* {"name":...,"attributes":{...},"capacity":{...}} */
} devrec;

typedef struct fleet {
    int npools[2];
    int nslices[2][4];
    int count_extra[2][4];  /* resourceSliceCount beyond the slices published (incomplete) */
    devrec *devs;
    uint32_t ndevs;
} fleet;

/* Per round: how often each name is present, how often it has another kind. */
static uint32_t presence[NFATTRS], altkind[NFATTRS], badver, dupname;

static void value_json(sbuf *b, kind k, const fattr *a)
{
    switch (k) {
    case K_INT:
        if (!strcmp(a->id, "numa"))
            sb_add(b, "{\"int\":%d}", (int)rn(5) - 1);
        else if (!strcmp(a->id, "cores"))
            sb_add(b, "{\"int\":%s}", PICK(((const char *const[]){
                                          "0", "1", "64", "128", "9223372036854775807",
                                          "-9223372036854775808", "4611686018427387904",
                                          "9007199254740993", "-1", "7"})));
        else if (!strcmp(a->id, "speed"))
            sb_add(b, "{\"int\":%s}", PICK(((const char *const[]){"10", "25", "100", "400"})));
        else if (!strcmp(a->id, "mtu"))
            sb_add(b, "{\"int\":%s}", PICK(((const char *const[]){"1500", "9000", "0"})));
        else
            sb_add(b, "{\"int\":%s}", PICK(V_INT_CONST));
        break;
    case K_BOOL:
        sb_add(b, "{\"bool\":%s}", rn(2) ? "true" : "false");
        break;
    case K_STR: {
        const char *s;
        if (a->k != K_STR)
            s = PICK(V_JUNK);
        else if (!strcmp(a->id, "model"))
            s = PICK(V_MODEL);
        else if (!strcmp(a->id, "driverVersion"))
            s = PICK(V_DRVER);
        else if (!strcmp(a->id, "pcieRoot"))
            s = PICK(V_PCIE);
        else
            s = PICK(V_VENDOR);
        sb_add(b, "{\"string\":\"%s\"}", s);
        break;
    }
    case K_VER:
        sb_add(b, "{\"version\":\"%s\"}", pm(badver) ? PICK(V_BADVERSION) : PICK(V_VERSION));
        break;
    case K_QTY:
        sb_add(b, "{\"value\":\"%s\"}", PICK(V_QTY));
        break;
    }
}

/* Write the name; returns whether it was written unqualified. */
static bool attr_name(sbuf *b, const fattr *a, int driver)
{
    if (a->driver < 0)
        sb_add(b, "\"%s/%s\"", COMMON_DOMAIN, a->id);
    else if (pm(150))
        sb_add(b, "\"%s/%s\"", DRIVERS[driver], a->id);
    else {
        sb_add(b, "\"%s\"", a->id);
        return true;
    }
    return false;
}

static char *device_json(int driver, const char *name)
{
    sbuf b = {0};
    sb_add(&b, "{\"name\":\"%s\"", name);
    if (pm(100))
        sb_add(&b, ",\"allowMultipleAllocations\":%s", rn(2) ? "true" : "false");
    for (int cap = 0; cap < 2; cap++) {
        bool any = false;
        for (size_t i = 0; i < NFATTRS; i++) {
            const fattr *a = &FATTRS[i];
            if ((a->k == K_QTY) != (cap == 1) || (a->driver >= 0 && a->driver != driver) ||
                !pm(presence[i]))
                continue;
            sb_add(&b, any ? "," : cap ? ",\"capacity\":{" : ",\"attributes\":{");
            any = true;
            bool unqualified = attr_name(&b, a, driver);
            sb_add(&b, ":");
            kind k = a->k;
            if (!cap && pm(altkind[i]))
                while ((k = (kind)rn(4)) == a->k) {
                }
            value_json(&b, k, a);
            /* Rarely the same name again, qualified with the driver's domain: one column,
             * two values. */
            if (!cap && unqualified && pm(dupname)) {
                sb_add(&b, ",\"%s/%s\":", DRIVERS[driver], a->id);
                value_json(&b, (kind)rn(4), a);
            }
        }
        if (!cap && pm(30)) {
            /* An attribute of the other driver's domain (qualified). */
            sb_add(&b, any ? "," : ",\"attributes\":{");
            any = true;
            sb_add(&b, "\"%s/model\":{\"string\":\"%s\"}", DRIVERS[1 - driver], PICK(V_MODEL));
        }
        if (any)
            sb_add(&b, "}");
    }
    sb_add(&b, "}");
    return b.p;
}

static void fleet_free(fleet *f)
{
    for (uint32_t i = 0; i < f->ndevs; i++)
        free(f->devs[i].json);
    free(f->devs);
    memset(f, 0, sizeof *f);
}

static void fleet_gen(fleet *f, bool big)
{
    static const uint32_t PRES[] = {100, 500, 900, 950, 1000, 1000, 1000};
    static const uint32_t ALT[] = {0, 0, 0, 30, 100, 500, 950};
    static const uint32_t BADVER[] = {0, 0, 5, 30};
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < NFATTRS; i++) {
        presence[i] = PICK(PRES);
        altkind[i] = PICK(ALT);
    }
    badver = PICK(BADVER);
    dupname = pm(200) ? 20 : 0;
    uint32_t target = big ? 1000 + rn(1200) : 1 + rn(rn(4) ? 200 : 70);
    uint32_t cap = target + 64;
    f->devs = calloc(cap, sizeof *f->devs);
    assert_non_null(f->devs);
    /* Pools and slices, then spread the devices over them. */
    int nslots = 0;
    int slot_d[32], slot_p[32], slot_s[32];
    for (int d = 0; d < 2; d++) {
        f->npools[d] = 1 + (int)rn(3);
        if (d == 1 && pm(400))
            f->npools[d] = 0;
        for (int p = 0; p < f->npools[d]; p++) {
            f->nslices[d][p] = 1 + (int)rn(3);
            f->count_extra[d][p] = pm(50) ? 1 : 0;
            for (int s = 0; s < f->nslices[d][p]; s++) {
                slot_d[nslots] = d;
                slot_p[nslots] = p;
                slot_s[nslots] = s;
                nslots++;
            }
        }
    }
    uint32_t per_slot[32] = {0};
    uint32_t pool_count[2][4] = {{0}};
    for (uint32_t i = 0; i < target; i++) {
        int k = (int)rn((uint32_t)nslots);
        if (per_slot[k] >= 64) {
            for (k = 0; k < nslots && per_slot[k] >= 64; k++) {
            }
            if (k == nslots)
                break;
        }
        per_slot[k]++;
        devrec *dv = &f->devs[f->ndevs++];
        dv->driver = slot_d[k];
        dv->pool = slot_p[k];
        dv->slice = slot_s[k];
        snprintf(dv->name, sizeof dv->name, "dev-%u", (unsigned)pool_count[dv->driver][dv->pool]++);
        dv->json = device_json(dv->driver, dv->name);
    }
}

/* The fleet as a List of ResourceSlices; keep (may be NULL) selects devices. */
static char *fleet_json(const fleet *f, const bool *keep)
{
    sbuf b = {0};
    sb_add(&b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    bool first = true;
    for (int d = 0; d < 2; d++) {
        for (int p = 0; p < f->npools[d]; p++) {
            for (int s = 0; s < f->nslices[d][p]; s++) {
                sb_add(&b,
                       "%s{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\","
                       "\"metadata\":{\"name\":\"d%d-p%d-s%d\"},\"spec\":{\"driver\":\"%s\","
                       "\"allNodes\":true,\"pool\":{\"name\":\"pool-%d\",\"generation\":1,"
                       "\"resourceSliceCount\":%d},\"devices\":[",
                       first ? "" : ",", d, p, s, DRIVERS[d], p,
                       f->nslices[d][p] + f->count_extra[d][p]);
                first = false;
                bool dfirst = true;
                for (uint32_t i = 0; i < f->ndevs; i++) {
                    const devrec *dv = &f->devs[i];
                    if (dv->driver != d || dv->pool != p || dv->slice != s || (keep && !keep[i]))
                        continue;
                    sb_add(&b, "%s%s", dfirst ? "" : ",", dv->json);
                    dfirst = false;
                }
                sb_add(&b, "]}}");
            }
        }
    }
    sb_add(&b, "]}");
    return b.p;
}

/* The generated record of a table row. */
static const devrec *row_device(const fleet *f, const dracel_table *t, uint32_t row)
{
    dracel_device_info info;
    if (dracel_table_device(t, row, &info) != DRACEL_OK)
        return NULL;
    for (uint32_t i = 0; i < f->ndevs; i++) {
        const devrec *dv = &f->devs[i];
        char pool[16];
        snprintf(pool, sizeof pool, "pool-%d", dv->pool);
        if (!strcmp(DRIVERS[dv->driver], info.driver) && !strcmp(pool, info.pool) &&
            !strcmp(dv->name, info.device))
            return dv;
    }
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Selectors: a tree of templates ("$0 && $1") so that failures can be shrunk
 */

typedef enum ty { T_BOOL, T_INT, T_STR, T_QTY, T_SV, T_N } ty;

typedef struct node {
    char *fmt;           /* text with $0..$2 standing for the children */
    int nk;
    struct node *k[3];
} node;

#define MAX_NODES 16384
static node nodes[MAX_NODES];
static int nnodes;

static void nodes_reset(void)
{
    for (int i = 0; i < nnodes; i++)
        free(nodes[i].fmt);
    nnodes = 0;
}

static node *mk(node *a, node *b, node *c, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static node *mk(node *a, node *b, node *c, const char *fmt, ...)
{
    assert_true(nnodes < MAX_NODES);
    node *n = &nodes[nnodes++];
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    n->fmt = xstrdup(buf);
    n->k[0] = a;
    n->k[1] = b;
    n->k[2] = c;
    n->nk = c ? 3 : b ? 2 : a ? 1 : 0;
    return n;
}
#define LEAF(...) mk(NULL, NULL, NULL, __VA_ARGS__)

static void render(sbuf *b, const node *n)
{
    for (const char *p = n->fmt; *p; p++) {
        if (p[0] == '$' && p[1] >= '0' && p[1] <= '2') {
            render(b, n->k[p[1] - '0']);
            p++;
        } else {
            sb_add(b, "%c", *p);
        }
    }
}

/* Attribute and capacity names as selectors read them. */
typedef struct sattr {
    const char *domain, *id;
    ty t;
    bool cap;
} sattr;

static const sattr SATTRS[] = {
    {"gpu.example.com", "model", T_STR, false},     {"gpu.example.com", "numa", T_INT, false},
    {"gpu.example.com", "healthy", T_BOOL, false},  {"gpu.example.com", "driverVersion", T_STR, false},
    {"gpu.example.com", "firmware", T_SV, false},   {"gpu.example.com", "cores", T_INT, false},
    {"gpu.example.com", "index", T_INT, false},     {"nic.example.org", "model", T_STR, false},
    {"nic.example.org", "speed", T_INT, false},     {"nic.example.org", "mtu", T_INT, false},
    {"nic.example.org", "healthy", T_BOOL, false},  {"nic.example.org", "firmware", T_SV, false},
    {COMMON_DOMAIN, "vendor", T_STR, false},        {COMMON_DOMAIN, "pcieRoot", T_STR, false},
    {COMMON_DOMAIN, "numa", T_INT, false},          {"other.example.io", "model", T_STR, false},
    {"gpu.example.com", "missing", T_INT, false},   {"gpu.example.com", "memory", T_QTY, true},
    {"gpu.example.com", "slices", T_QTY, true},     {"gpu.example.com", "cores", T_QTY, true},
    {"nic.example.org", "bandwidth", T_QTY, true},  {COMMON_DOMAIN, "memory", T_QTY, true},
    {"gpu.example.com", "memory", T_STR, false},    /* an attribute named like a capacity */
};
#define NSATTRS (sizeof SATTRS / sizeof SATTRS[0])

static int mistype;     /* per mille: how often a subexpression has a random type */
/* Only forms the vector VM runs as vectors: attribute and capacity reads by field (LOADATTR,
 * LOADCAP), no use of `device` as a whole, no comprehensions. */
static bool vec_only;

static node *gen(ty t, int depth);

static node *const_of(ty t)
{
    switch (t) {
    case T_BOOL:
        return LEAF("%s", rn(2) ? "true" : "false");
    case T_INT:
        return LEAF("%s", PICK(V_INT_CONST));
    case T_STR: {
        const char *s;
        switch (rn(6)) {
        case 0: s = PICK(V_ABSENT); break;
        case 1: s = PICK(V_DRVER); break;
        case 2: s = PICK(V_VENDOR); break;
        case 3: s = PICK(V_JUNK); break;
        case 4: s = PICK(V_PCIE); break;
        default: s = PICK(V_MODEL); break;
        }
        return LEAF("\"%s\"", s);
    }
    case T_QTY:
        return LEAF("quantity(\"%s\")", PICK(V_QTY_CONST));
    default:
        return LEAF("semver(\"%s\")", PICK(V_SEMVER_CONST));
    }
}

static node *read_attr(ty t)
{
    const sattr *a;
    if (pm(800)) {
        do
            a = &SATTRS[rn(NSATTRS)];
        while (a->t != t);
    } else {
        a = &SATTRS[rn(NSATTRS)];
    }
    const char *map = a->cap ? "capacity" : "attributes";
    if (vec_only)
        return LEAF("device.%s[\"%s\"].%s", map, a->domain, a->id);
    switch (rn(10)) {
    case 0:
    case 1:
        return LEAF("device.%s[\"%s\"][\"%s\"]", map, a->domain, a->id);
    case 2:
        return mk(const_of(pm(850) ? a->t : (ty)rn(T_N)), NULL, NULL,
                  "device.%s[\"%s\"].?%s.orValue($0)", map, a->domain, a->id);
    case 3:
        return mk(const_of(a->t), NULL, NULL, "device.%s[\"%s\"][?\"%s\"].orValue($0)", map,
                  a->domain, a->id);
    case 4:
        return mk(const_of(a->t), NULL, NULL,
                  "(has(device.%s[\"%s\"].%s) ? device.%s[\"%s\"].%s : $0)", map, a->domain,
                  a->id, map, a->domain, a->id);
    default:
        return LEAF("device.%s[\"%s\"].%s", map, a->domain, a->id);
    }
}

static node *bool_leaf(void)
{
    const sattr *a = &SATTRS[rn(NSATTRS)];
    const char *map = a->cap ? "capacity" : "attributes";
    if (vec_only)
        return rn(5) ? read_attr(T_BOOL) : const_of(T_BOOL);
    switch (rn(8)) {
    case 0:
        return const_of(T_BOOL);
    case 1:
        return LEAF("has(device.%s[\"%s\"].%s)", map, a->domain, a->id);
    case 2:
        return LEAF("\"%s\" in device.%s[\"%s\"]", a->id, map, a->domain);
    case 3:
        return LEAF("device.allowMultipleAllocations");
    default:
        return read_attr(T_BOOL);
    }
}

static node *leaf(ty t)
{
    if (t == T_BOOL)
        return bool_leaf();
    if (t == T_STR && !vec_only && pm(80))
        return LEAF("device.driver");
    return pm(600) ? read_attr(t) : const_of(t);
}

/* A constant list of type t ("[$0, $1]" with constants). */
static node *const_list(ty t)
{
    uint32_t n = rn(4);
    switch (n) {
    case 0: return LEAF("[]");
    case 1: return mk(const_of(t), NULL, NULL, "[$0]");
    case 2: return mk(const_of(t), const_of(t), NULL, "[$0, $1]");
    default:
        return mk(const_of(t), const_of(pm(900) ? t : (ty)rn(T_N)), const_of(t), "[$0, $1, $2]");
    }
}

/* A list of 256 to 300 elements whose first is not a constant (so not folded: the vector VM
 * builds it lane by lane, popping every element), then constants of type t (ints or strings). */
static node *long_list(ty t, int d)
{
    char buf[4000];
    size_t n = 0;
    uint32_t count = 255 + rn(46);
    n += (size_t)snprintf(buf + n, sizeof buf - n, "[$0");
    for (uint32_t i = 0; i < count && n < sizeof buf - 16; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, t == T_INT ? ", %u" : ", \"s%u\"", i);
    snprintf(buf + n, sizeof buf - n, "]");
    return mk(gen(t, d), NULL, NULL, "%s", buf);
}

static const char *ordop(void)
{
    return PICK(((const char *const[]){"<", "<=", ">", ">="}));
}

static node *gen_bool(int d)
{
    switch (rn(20)) {
    case 0:
    case 1: {
        ty u = (ty)rn(T_N);
        node *a = gen(u, d), *b = pm(300) ? const_of(u) : gen(pm(850) ? u : (ty)rn(T_N), d);
        return mk(a, b, NULL, rn(2) ? "$0 == $1" : "$0 != $1");
    }
    case 2: {
        ty u = PICK(((const ty[]){T_INT, T_INT, T_STR, T_STR, T_BOOL}));
        node *b = pm(500) ? const_of(u) : gen(u, d);
        return mk(gen(u, d), b, NULL, "$0 %s $1", ordop());
    }
    case 3: {
        ty u = PICK(((const ty[]){T_INT, T_STR, T_STR, T_BOOL, T_QTY, T_SV}));
        if ((u == T_INT || u == T_STR) && pm(40))
            return mk(gen(u, d), long_list(u, d), NULL, "$0 in $1");
        return mk(gen(u, d), const_list(u), NULL, "$0 in $1");
    }
    case 4:
    case 5:
        return mk(gen(T_BOOL, d), gen(T_BOOL, d), NULL, "($0 && $1)");
    case 6:
    case 7:
        return mk(gen(T_BOOL, d), gen(T_BOOL, d), NULL, "($0 || $1)");
    case 8:
        return mk(gen(T_BOOL, d), NULL, NULL, "!($0)");
    case 9:
        return mk(gen(T_BOOL, d), gen(T_BOOL, d), gen(T_BOOL, d), "($0 ? $1 : $2)");
    case 10:
    case 11: {
        const char *fn = PICK(((const char *const[]){"startsWith", "endsWith", "contains"}));
        node *arg = pm(800) ? const_of(T_STR) : gen(T_STR, d);
        return mk(gen(T_STR, d), arg, NULL, "$0.%s($1)", fn);
    }
    case 12:
        if (pm(850))
            return mk(gen(T_STR, d), NULL, NULL, "$0.matches(\"%s\")", PICK(V_REGEX));
        return mk(gen(T_STR, d), gen(T_STR, d), NULL, "$0.matches($1)");
    case 13: {
        node *b = pm(600) ? const_of(T_QTY) : gen(T_QTY, d);
        switch (rn(3)) {
        case 0: return mk(gen(T_QTY, d), b, NULL, "$0.isGreaterThan($1)");
        case 1: return mk(gen(T_QTY, d), b, NULL, "$0.isLessThan($1)");
        default:
            return mk(gen(T_QTY, d), b, LEAF("%d", (int)rn(3) - 1), "$0.compareTo($1) %s $2",
                      PICK(((const char *const[]){"==", "!=", "<", ">=", ">"})));
        }
    }
    case 14: {
        node *b = pm(600) ? const_of(T_SV) : gen(T_SV, d);
        switch (rn(3)) {
        case 0: return mk(gen(T_SV, d), b, NULL, "$0.isGreaterThan($1)");
        case 1: return mk(gen(T_SV, d), b, NULL, "$0.isLessThan($1)");
        default:
            return mk(gen(T_SV, d), b, LEAF("%d", (int)rn(3) - 1), "$0.compareTo($1) %s $2",
                      PICK(((const char *const[]){"==", "!=", "<", ">=", ">"})));
        }
    }
    case 15: {
        ty u = PICK(((const ty[]){T_INT, T_STR, T_STR, T_BOOL}));
        if (vec_only)
            return mk(gen(u, d), const_list(u), NULL, "$0 in $1");
        switch (rn(4)) {
        case 0: return mk(const_list(u), gen(u, d), NULL, "$0.exists(x, x == $1)");
        case 1: return mk(const_list(u), gen(u, d), NULL, "$0.all(x, x != $1)");
        case 2: return mk(const_list(u), gen(u, d), NULL, "$0.exists_one(x, x == $1)");
        default:
            return mk(const_list(T_STR), NULL, NULL, "$0.exists(x, %s.startsWith(x))",
                      "device.attributes[\"gpu.example.com\"].?model.orValue(\"\")");
        }
    }
    case 16:
        return mk(gen(T_STR, d), NULL, NULL, "%s($0)", rn(2) ? "isSemver" : "isQuantity");
    case 17:
        return mk(gen(T_STR, d), LEAF("%d", (int)rn(6)), NULL, "size($0) %s $1", ordop());
    default:
        return bool_leaf();
    }
}

static node *gen_int(int d)
{
    switch (rn(12)) {
    case 0:
    case 1:
    case 2: {
        const char *op = PICK(((const char *const[]){"+", "-", "*", "/", "%"}));
        node *b = pm(500) ? const_of(T_INT) : gen(T_INT, d);
        if (pm(200))
            b = LEAF("0");
        return mk(gen(T_INT, d), b, NULL, "($0 %s $1)", op);
    }
    case 3:
        return mk(gen(T_INT, d), NULL, NULL, "-($0)");
    case 4:
        return mk(gen(T_STR, d), NULL, NULL, rn(2) ? "size($0)" : "$0.size()");
    case 5:
        return mk(gen(T_QTY, d), pm(600) ? const_of(T_QTY) : gen(T_QTY, d), NULL,
                  "$0.compareTo($1)");
    case 6:
        return mk(gen(T_SV, d), NULL, NULL, "$0.%s()",
                  PICK(((const char *const[]){"major", "minor", "patch"})));
    case 7:
        return mk(gen(T_QTY, d), NULL, NULL, "$0.asInteger()");
    case 8:
        return mk(gen(T_BOOL, d), gen(T_INT, d), gen(T_INT, d), "($0 ? $1 : $2)");
    case 9:
        return mk(gen(T_STR, d), NULL, NULL, "int($0)");
    default:
        return leaf(T_INT);
    }
}

static node *gen_str(int d)
{
    switch (rn(8)) {
    case 0:
        return mk(gen(T_STR, d), NULL, NULL, "$0.lowerAscii()");
    case 1:
        return mk(gen(T_STR, d), NULL, NULL, "$0.upperAscii()");
    case 2:
        return mk(gen(T_STR, d), gen(T_STR, d), NULL, "($0 + $1)");
    case 3:
        return mk(gen(T_BOOL, d), gen(T_STR, d), gen(T_STR, d), "($0 ? $1 : $2)");
    case 4:
        return mk(gen(T_INT, d), NULL, NULL, "string($0)");
    case 5:
        return mk(gen(T_STR, d), NULL, NULL, "$0.substring(%u)", (unsigned)rn(4));
    default:
        return leaf(T_STR);
    }
}

static node *gen_qty(int d)
{
    switch (rn(6)) {
    case 0:
        return mk(gen(T_STR, d), NULL, NULL, "quantity($0)");
    case 1:
        return mk(gen(T_QTY, d), pm(500) ? const_of(T_QTY) : gen(T_QTY, d), NULL,
                  rn(2) ? "$0.add($1)" : "$0.sub($1)");
    case 2:
        return mk(gen(T_QTY, d), const_of(T_INT), NULL, "$0.add($1)");
    case 3:
        return mk(gen(T_BOOL, d), gen(T_QTY, d), gen(T_QTY, d), "($0 ? $1 : $2)");
    default:
        return leaf(T_QTY);
    }
}

static node *gen_sv(int d)
{
    switch (rn(5)) {
    case 0:
        return mk(gen(T_STR, d), NULL, NULL, "semver($0)");
    case 1:
        return mk(gen(T_STR, d), NULL, NULL, "semver($0, true)");
    case 2:
        return mk(gen(T_BOOL, d), gen(T_SV, d), gen(T_SV, d), "($0 ? $1 : $2)");
    default:
        return leaf(T_SV);
    }
}

static node *gen_typed(ty t, int depth)
{
    if (depth <= 0 || pm(250))
        return leaf(t);
    switch (t) {
    case T_BOOL: return gen_bool(depth - 1);
    case T_INT: return gen_int(depth - 1);
    case T_STR: return gen_str(depth - 1);
    case T_QTY: return gen_qty(depth - 1);
    default: return gen_sv(depth - 1);
    }
}

static node *gen(ty t, int depth)
{
    if (pm((uint32_t)mistype)) {
        /* A subexpression of a random type; wrapped in dyn() half of the time, so that
         * checked selectors carry wrong kinds to run time too. */
        node *n = gen_typed((ty)rn(T_N), depth);
        return rn(2) ? mk(n, NULL, NULL, "dyn($0)") : n;
    }
    return gen_typed(t, depth);
}

/* ---------------------------------------------------------------------------------------------
 * Running both VMs
 */

static const uint32_t BATCHES[] = {1, 63, 64, 65, 1025, 0 /* random */};
/* Runs: the scalar VM, the batch interpreter at each batch size, then the vector VM as users
 * call it (fused kernels when the program has their shape) with values kept, and once more
 * without values (another path for error rows: only bitmaps and error messages compare). */
#define NBATCHED (sizeof BATCHES / sizeof BATCHES[0])
#define NRUNS (1 + NBATCHED + 2)

typedef struct mismatch {
    uint32_t row;
    char run[48];
    char *want, *got;
} mismatch;

typedef struct stats {
    unsigned long exprs, compiled, skipped, vectorized, rows, values, errors, trues, falses, other;
    unsigned long disagreements;
} stats;

static stats st;

/* What is running, for a crash inside the library (reported, then the default action). */
static volatile unsigned long crash_seed, crash_round;
static const char *volatile crash_src;
static const char *volatile crash_fleet;
static volatile long crash_batch;

static void put(const char *s)
{
    ssize_t k = write(2, s, strlen(s));
    (void)k;
}

static void put_num(unsigned long v)
{
    char buf[24], *p = buf + sizeof buf;
    *--p = '\0';
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    put(p);
}

static void on_crash(int sig)
{
    if (crash_src) {
        put("\n==== CRASH (signal ");
        put_num((unsigned long)sig);
        put(") in dracel_select, seed ");
        put_num(crash_seed);
        put(" round ");
        put_num(crash_round);
        put(crash_batch < 0 ? ", scalar VM" : ", vector VM batch ");
        if (crash_batch >= 0)
            put_num((unsigned long)crash_batch);
        put("\nexpression: ");
        put(crash_src);
        if (crash_fleet) {
            put("\nfleet: ");
            put(crash_fleet);
        }
        put("\n");
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Compile src and compare every run on t. -1: not compiled; 0: agree; 1: disagree (m set,
 * release its strings with free). */
static int check_expr(const dracel_config *cfg, const dracel_env *env, const dracel_table *t,
                      const char *src, unsigned flags, uint32_t rand_batch, mismatch *m,
                      bool count)
{
    dracel_program *p = NULL;
    dracel_diags *dg = NULL;
    dracel_status s = dracel_compile(env, src, strlen(src), flags, &p, &dg);
    dracel_diags_free(dg);
    if (s != DRACEL_OK)
        return -1;
    if (count) {
        /* Whether the vector VM runs it as vectors (docs/columnar.md): no `device` as a whole,
         * no loops, and a cost bound within the limit (small limits aside). */
        char *dis = dracel_program_disasm(p);
        assert_non_null(dis);
        if (!strstr(dis, "LOADVAR") && !strstr(dis, "ITERINIT") && cfg->cost_limit > 1000)
            st.vectorized++;
        dracel_free_string(cfg, dis);
    }
    dracel_bound *bnd = NULL;
    dracel_selection *sel = NULL;
    assert_int_equal(dracel_bind(p, t, &bnd), DRACEL_OK);
    assert_int_equal(dracel_selection_new(cfg, &sel), DRACEL_OK);
    uint32_t rows = dracel_table_rows(t);
    char **want = calloc(rows ? rows : 1, sizeof *want);
    assert_non_null(want);
    int rc = 0;
    size_t words = (rows + 63) / 64;
    uint64_t *want_bits = calloc(2 * words + 1, sizeof *want_bits);
    char **want_err = calloc(rows ? rows : 1, sizeof *want_err);
    assert_non_null(want_bits);
    assert_non_null(want_err);
    for (size_t run = 0; run < NRUNS && !rc; run++) {
        bool batched = run >= 1 && run <= NBATCHED, plain = run == NRUNS - 1;
        dracel_select_opts o = {sizeof(dracel_select_opts), run == 0 ? DRACEL_VM_SCALAR : batched ? DRACEL_VM_BATCHED : DRACEL_VM_VECTOR,
                                batched ? BATCHES[run - 1] : 0, !plain};
        if (run == NBATCHED)
            o.batch = rand_batch;
        crash_src = src;
        crash_batch = run == 0 ? -1 : (long)o.batch;
        s = dracel_select(bnd, env, &o, sel);
        crash_src = NULL;
        if (s != DRACEL_OK)
            fail_msg("dracel_select failed with status %d (run %zu) for %s", s, run, src);
        const uint64_t *mb = dracel_selection_matched(sel), *eb = dracel_selection_errored(sel);
        if (run == 0) {
            memcpy(want_bits, mb, words * sizeof *mb);
            memcpy(want_bits + words, eb, words * sizeof *eb);
            for (uint32_t r = 0; r < rows; r++)
                if (dracel_selection_error(sel, r))
                    want_err[r] = xstrdup(dracel_selection_error(sel, r));
        }
        for (uint32_t r = 0; r < rows && !rc; r++) {
            if (plain) {
                /* Without values: the bitmaps, and each error row's message. */
                bool mw = (want_bits[r / 64] >> (r % 64)) & 1, ew = (want_bits[words + r / 64] >> (r % 64)) & 1;
                bool mg = (mb[r / 64] >> (r % 64)) & 1, eg = (eb[r / 64] >> (r % 64)) & 1;
                const char *msg = dracel_selection_error(sel, r);
                bool same = mw == mg && ew == eg;
                if (same && ew)
                    same = msg && want_err[r] && strcmp(msg, want_err[r]) == 0;
                if (!same) {
                    m->row = r;
                    snprintf(m->run, sizeof m->run, "vector VM without values");
                    m->want = xstrdup(want[r]);
                    char got[512];
                    snprintf(got, sizeof got, "matched %d errored %d error %s", mg, eg, msg ? msg : "(none)");
                    m->got = xstrdup(got);
                    rc = 1;
                }
                continue;
            }
            char *v = dracel_selection_value_json(sel, r);
            assert_non_null(v);
            if (run == 0) {
                want[r] = xstrdup(v);
                if (count) {
                    st.values++;
                    if (!strncmp(v, "{\"error\"", 8))
                        st.errors++;
                    else if (!strcmp(v, "{\"bool\":true}") || !strcmp(v, "true"))
                        st.trues++;
                    else if (!strcmp(v, "{\"bool\":false}") || !strcmp(v, "false"))
                        st.falses++;
                    else
                        st.other++;
                }
            } else if (strcmp(v, want[r]) != 0) {
                m->row = r;
                if (batched)
                    snprintf(m->run, sizeof m->run, "batch interpreter, batch %u", (unsigned)o.batch);
                else
                    snprintf(m->run, sizeof m->run, "vector VM");
                m->want = xstrdup(want[r]);
                m->got = xstrdup(v);
                rc = 1;
            }
            dracel_free_string(cfg, v);
        }
    }
    free(want_bits);
    for (uint32_t r = 0; r < rows; r++)
        free(want_err[r]);
    free(want_err);
    for (uint32_t r = 0; r < rows; r++)
        free(want[r]);
    free(want);
    dracel_selection_free(sel);
    dracel_bound_free(bnd);
    dracel_program_free(p);
    return rc;
}

static void mismatch_free(mismatch *m)
{
    free(m->want);
    free(m->got);
    m->want = m->got = NULL;
}

/* Collect the child slots of the tree in preorder. */
static void slots(node **slot, node ***out, int *n)
{
    out[(*n)++] = slot;
    for (int i = 0; i < (*slot)->nk; i++)
        slots(&(*slot)->k[i], out, n);
}

/* Shrink the expression in place while it still disagrees on t. */
static void shrink_expr(const dracel_config *cfg, const dracel_env *env, const dracel_table *t,
                        node **root, unsigned flags, uint32_t rand_batch)
{
    static node **sl[MAX_NODES];
    static const char *const SMALL[] = {"true", "false", "0", "1", "\"A100\""};
    sbuf b = {0};
    bool progress = true;
    int budget = 3000;
    while (progress && budget > 0) {
        progress = false;
        int n = 0;
        slots(root, sl, &n);
        for (int i = 0; i < n && !progress && budget > 0; i++) {
            node *old = *sl[i];
            int ncand = old->nk + (old->nk ? (int)(sizeof SMALL / sizeof SMALL[0]) : 0);
            for (int c = 0; c < ncand && !progress; c++) {
                *sl[i] = c < old->nk ? old->k[c] : LEAF("%s", SMALL[c - old->nk]);
                sb_reset(&b);
                render(&b, *root);
                mismatch m = {0};
                budget--;
                if (check_expr(cfg, env, t, b.p, flags, rand_batch, &m, false) == 1) {
                    progress = true;
                    mismatch_free(&m);
                } else {
                    *sl[i] = old;
                }
            }
        }
    }
    free(b.p);
}

/* Drop devices while src still disagrees; keep[] ends with the devices needed. */
static dracel_table *shrink_fleet(const dracel_config *cfg, const dracel_env *env,
                                  const fleet *f, bool *keep, const char *src, unsigned flags,
                                  uint32_t rand_batch)
{
    for (uint32_t i = 0; i < f->ndevs; i++)
        keep[i] = true;
    for (uint32_t chunk = f->ndevs / 2; chunk >= 1; chunk /= 2) {
        for (uint32_t start = 0; start < f->ndevs; start += chunk) {
            bool any = false;
            for (uint32_t i = start; i < start + chunk && i < f->ndevs; i++) {
                any |= keep[i];
            }
            if (!any)
                continue;
            bool save[4096];
            for (uint32_t i = start; i < start + chunk && i < f->ndevs; i++) {
                save[i - start] = keep[i];
                keep[i] = false;
            }
            char *js = fleet_json(f, keep);
            dracel_table *t = NULL;
            char err[512];
            bool still = false;
            if (dracel_table_load_buffer(cfg, "shrink", js, strlen(js), &t, err, sizeof err) ==
                DRACEL_OK) {
                mismatch m = {0};
                still = check_expr(cfg, env, t, src, flags, rand_batch, &m, false) == 1;
                mismatch_free(&m);
                dracel_table_free(t);
            }
            free(js);
            if (!still)
                for (uint32_t i = start; i < start + chunk && i < f->ndevs; i++)
                    keep[i] = save[i - start];
        }
        if (chunk == 1)
            break;
    }
    char *js = fleet_json(f, keep);
    dracel_table *t = NULL;
    char err[512];
    assert_int_equal(dracel_table_load_buffer(cfg, "shrunk", js, strlen(js), &t, err, sizeof err),
                     DRACEL_OK);
    free(js);
    return t;
}

static unsigned long env_num(const char *name, unsigned long def)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return def;
    char *end;
    unsigned long v = strtoul(s, &end, 0);
    return *end ? def : v;
}

/* Report a disagreement (shrunk) to stderr; returns the text for fail_msg. */
static void report(const dracel_config *cfg, const dracel_env *env, const fleet *f,
                   const dracel_table *t, node *root, unsigned flags, uint32_t rand_batch,
                   unsigned long seed, unsigned long round, const char *src, const mismatch *m)
{
    const devrec *dv = row_device(f, t, m->row);
    fprintf(stderr,
            "\n==== DISAGREEMENT seed %lu round %lu (flags %u, cost limit %llu)\n"
            "expression: %s\nrow %u (%s %s): %s\nscalar VM: %s\n%s: %s\n",
            seed, round, flags, (unsigned long long)cfg->cost_limit, src, (unsigned)m->row,
            dv ? DRIVERS[dv->driver] : "?", dv ? dv->name : "?", dv ? dv->json : "?", m->want,
            m->run, m->got);
    /* Shrink the expression, then the fleet. */
    shrink_expr(cfg, env, t, &root, flags, rand_batch);
    sbuf b = {0};
    render(&b, root);
    bool *keep = calloc(f->ndevs + 1, sizeof *keep);
    assert_non_null(keep);
    dracel_table *t2 = shrink_fleet(cfg, env, f, keep, b.p, flags, rand_batch);
    mismatch m2 = {0};
    int rc = check_expr(cfg, env, t2, b.p, flags, rand_batch, &m2, false);
    fprintf(stderr, "shrunk expression: %s\n", b.p);
    if (rc == 1) {
        uint32_t nk = 0;
        for (uint32_t i = 0; i < f->ndevs; i++)
            nk += keep[i];
        const devrec *dv2 = row_device(f, t2, m2.row);
        fprintf(stderr, "on %u of %u devices; row %u (%s %s): %s\nscalar VM: %s\n%s: %s\n",
                (unsigned)nk, (unsigned)f->ndevs, (unsigned)m2.row,
                dv2 ? DRIVERS[dv2->driver] : "?", dv2 ? dv2->name : "?", dv2 ? dv2->json : "?",
                m2.want, m2.run, m2.got);
        if (nk <= 8) {
            char *js = fleet_json(f, keep);
            fprintf(stderr, "reduced fleet: %s\n", js);
            free(js);
        }
    }
    mismatch_free(&m2);
    dracel_table_free(t2);
    free(keep);
    free(b.p);
}

/* ---------------------------------------------------------------------------------------------
 * The test
 */

static void test_vms_agree(void **state)
{
    (void)state;
    unsigned long seed = env_num("DIFF_SEED", DEFAULT_SEED);
    unsigned long rounds = env_num("DIFF_ROUNDS", DEFAULT_ROUNDS);
    unsigned long nexprs = env_num("DIFF_EXPRS", DEFAULT_EXPRS);
    bool keep_going = env_num("DIFF_KEEP_GOING", 0) != 0;
    unsigned long verbose = env_num("DIFF_VERBOSE", 0);
    memset(&st, 0, sizeof st);
    sbuf src = {0};
    unsigned long first = env_num("DIFF_FIRST_ROUND", 0);
    static char failure[16384];
    failure[0] = '\0';
    crash_seed = seed;
    struct sigaction sa, old_segv, old_bus, old_abrt;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    sigaction(SIGABRT, &sa, &old_abrt);
    for (unsigned long round = first; round < first + rounds; round++) {
        crash_round = round;
        rng_seed(seed, round);
        dracel_config cfg;
        dracel_config_init(&cfg);
        if (pm(150))
            cfg.cost_limit = 2 + rn(60);
        dracel_env *env = NULL;
        assert_int_equal(dracel_env_new(&cfg, DRACEL_ENV_DRA, &env), DRACEL_OK);
        fleet f;
        fleet_gen(&f, pm(40));
        char *js = fleet_json(&f, NULL);
        dracel_table *t = NULL;
        char err[1024];
        dracel_status s = dracel_table_load_buffer(&cfg, "fleet", js, strlen(js), &t, err, sizeof err);
        if (s != DRACEL_OK)
            fail_msg("seed %lu round %lu: the generated fleet was rejected: %s\n%s", seed, round,
                     err, js);
        crash_fleet = js;
        st.rows += dracel_table_rows(t);
        for (unsigned long e = 0; e < nexprs; e++) {
            bool nocheck = rn(2) == 0;
            unsigned flags = nocheck ? DRACEL_COMPILE_NO_CHECK | DRACEL_COMPILE_ANY_RESULT : 0;
            mistype = nocheck ? 80 : 40;
            vec_only = pm(750);
            nodes_reset();
            ty top = T_BOOL;
            if (nocheck && pm(300))
                top = (ty)rn(T_N);
            node *root = gen(top, 2 + (int)rn(5));
            sb_reset(&src);
            render(&src, root);
            uint32_t rand_batch = 1 + rn(rn(2) ? 130 : 2100);
            mismatch m = {0};
            st.exprs++;
            int rc = check_expr(&cfg, env, t, src.p, flags, rand_batch, &m, true);
            if (verbose >= 2)
                fprintf(stderr, "%s %s\n", rc < 0 ? "skip" : nocheck ? "dyn " : "chk ", src.p);
            if (rc < 0) {
                st.skipped++;
                continue;
            }
            st.compiled++;
            if (rc == 1) {
                st.disagreements++;
                report(&cfg, env, &f, t, root, flags, rand_batch, seed, round, src.p, &m);
                if (!keep_going) {
                    const devrec *dv = row_device(&f, t, m.row);
                    snprintf(failure, sizeof failure,
                             "seed %lu round %lu: the VMs disagree on %s\nrow %u: %s\n"
                             "scalar VM: %s\n%s: %s",
                             seed, round, src.p, (unsigned)m.row, dv ? dv->json : "?", m.want,
                             m.run, m.got);
                }
                mismatch_free(&m);
                if (failure[0])
                    break;
            }
        }
        nodes_reset();
        dracel_table_free(t);
        dracel_env_free(env);
        fleet_free(&f);
        crash_fleet = NULL;
        free(js);
        if (failure[0])
            break;
    }
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    sigaction(SIGABRT, &old_abrt, NULL);
    free(src.p);
    if (failure[0])
        fail_msg("%s", failure);
    if (verbose || st.disagreements)
        fprintf(stderr,
                "seed %lu: %lu rounds, %lu rows, %lu selectors (%lu compiled, %lu skipped, %lu "
                "vectorized), "
                "%lu row values: %lu true, %lu false, %lu errors, %lu other; %lu "
                "disagreements\n",
                seed, rounds, st.rows, st.exprs, st.compiled, st.skipped, st.vectorized, st.values, st.trues,
                st.falses, st.errors, st.other, st.disagreements);
    if (st.disagreements)
        fail_msg("seed %lu: %lu disagreements between the VMs (see above)", seed,
                 st.disagreements);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vms_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
