/*
 * k8s.c: Kubernetes releases, their DRA feature gates and the allocator copy each runs (see
 * k8s.h). Every table here is a fact read from a Kubernetes source pinned in
 * docs/allocation.md ("Releases"); a fact changes only with a new pin.
 */
#include "k8s.h"

#include <stdio.h>
#include <string.h>

#include "claims.h"

#define NREL (DC_K8S_NEWEST - DC_K8S_OLDEST + 1)
#define R(x) ((x) - DC_K8S_OLDEST)

enum { ABSENT = -1 };

/* One gate: dracel's name, Kubernetes' name, the bit; its default in each release (ABSENT when
 * the release has no such gate) and the first release locking it to its default (0: none).
 * From the versioned specs of pkg/features/kube_features.go (1.35.6 and 1.36.2) and of
 * kube-scheduler's pkg/features/kube_features.go on master (1.37). */
static const struct {
    const char *name, *gate;
    unsigned bit;
    signed char def[NREL];  /* 1.34, 1.35, 1.36, 1.37 */
    unsigned char locked;
} GATES[] = {
    {"AdminAccess", "DRAAdminAccess", DC_FEAT_ADMIN_ACCESS, {1, 1, 1, 1}, 36},
    {"PrioritizedList", "DRAPrioritizedList", DC_FEAT_PRIORITIZED_LIST, {1, 1, 1, 1}, 37},
    {"DeviceTaints", "DRADeviceTaints", DC_FEAT_DEVICE_TAINTS, {0, 0, 1, 1}, 0},
    {"PartitionableDevices", "DRAPartitionableDevices", DC_FEAT_PARTITIONABLE, {0, 0, 1, 1}, 0},
    {"ConsumableCapacity", "DRAConsumableCapacity", DC_FEAT_CONSUMABLE_CAPACITY, {0, 0, 1, 1}, 0},
    {"DeviceBindingConditions", "DRADeviceBindingConditions", DC_FEAT_BINDING_CONDITIONS,
     {0, 0, 1, 1}, 0},
    {"ListTypeAttributes", "DRAListTypeAttributes", DC_FEAT_LIST_TYPE_ATTRIBUTES,
     {ABSENT, ABSENT, 0, 0}, 0},
    {"ExtendedResource", "DRAExtendedResource", DC_FEAT_EXTENDED_RESOURCE, {0, 0, 1, 1}, 37},
    {"DeviceStatus", "DRAResourceClaimDeviceStatus", DC_FEAT_DEVICE_STATUS, {1, 1, 1, 1}, 37},
    {"DeviceTaintRules", "DRADeviceTaintRules", DC_FEAT_DEVICE_TAINT_RULES, {ABSENT, 0, 0, 1}, 0},
};
#define NGATES (sizeof GATES / sizeof GATES[0])

/* The allocator features each copy supports (its SupportedFeatures), per release. */
#define BETA4 (DC_FEAT_ADMIN_ACCESS | DC_FEAT_PRIORITIZED_LIST | DC_FEAT_PARTITIONABLE | \
               DC_FEAT_DEVICE_TAINTS)
#define BETA6 (BETA4 | DC_FEAT_BINDING_CONDITIONS | DC_FEAT_CONSUMABLE_CAPACITY)
static const unsigned SUPPORTED[NREL][3] = {
    /* 1.34: experimental alone lists DeviceBinding, DeviceStatus, ConsumableCapacity */
    {0, BETA4, BETA6 | DC_FEAT_DEVICE_STATUS},
    /* 1.35: DeviceBindingAndStatus replaces the two */
    {0, BETA4, BETA6},
    /* 1.36: experimental -> incubating -> stable promoted; ListTypeAttributes added */
    {BETA4, BETA6, BETA6 | DC_FEAT_LIST_TYPE_ATTRIBUTES},
    /* 1.37 (master) */
    {BETA4, BETA6, BETA6 | DC_FEAT_LIST_TYPE_ATTRIBUTES},
};

unsigned dc_k8s_defaults(unsigned release)
{
    if (release < DC_K8S_OLDEST || release > DC_K8S_NEWEST)
        return 0;
    unsigned on = 0;
    for (size_t i = 0; i < NGATES; i++)
        if (GATES[i].def[R(release)] == 1)
            on |= GATES[i].bit;
    return on;
}

bool dc_k8s_has_gate(unsigned release, unsigned bit)
{
    if (release < DC_K8S_OLDEST || release > DC_K8S_NEWEST)
        return false;
    for (size_t i = 0; i < NGATES; i++)
        if (GATES[i].bit == bit)
            return GATES[i].def[R(release)] != ABSENT;
    return false;
}

/* What the scheduler's DynamicResources plugin passes structured.NewAllocator. 1.34 passes
 * DeviceBinding and DeviceStatus apart (so DeviceStatus, on by default, makes it run the
 * experimental copy: kubernetes PR 133967); 1.35 on pass DeviceBindingAndStatus =
 * DRADeviceBindingConditions && DRAResourceClaimDeviceStatus (AllocatorFeatures); 1.37 also
 * passes ListTypeAttributes (PR 139332; before it only the CEL environment got the gate). */
static unsigned allocator_features(unsigned release, unsigned g)
{
    unsigned f = g & (BETA4 | DC_FEAT_CONSUMABLE_CAPACITY);
    if (release == 34) {
        f |= g & (DC_FEAT_BINDING_CONDITIONS | DC_FEAT_DEVICE_STATUS);
    } else if ((g & DC_FEAT_BINDING_CONDITIONS) && (g & DC_FEAT_DEVICE_STATUS)) {
        f |= DC_FEAT_BINDING_CONDITIONS;
    }
    if (release >= 37)
        f |= g & DC_FEAT_LIST_TYPE_ATTRIBUTES;
    return f;
}

void dc_k8s_resolve(unsigned release, unsigned gates, dc_k8s *out)
{
    if (release < DC_K8S_OLDEST || release > DC_K8S_NEWEST)
        release = DC_K8S_NEWEST;
    memset(out, 0, sizeof *out);
    out->release = release;
    out->gates = gates;
    out->features = allocator_features(release, gates);
    out->copy = DC_COPY_EXPERIMENTAL;
    for (int c = DC_COPY_STABLE; c <= DC_COPY_EXPERIMENTAL; c++)
        if (!(out->features & ~SUPPORTED[R(release)][c])) {
            out->copy = (dc_copy)c;
            break;
        }
    bool stable = out->copy == DC_COPY_STABLE;
    /* 1.36 brought sorted pools and slices ("sort slices and pools lexicographically") and
     * the combination-only search to incubating and experimental; before, every copy walked
     * Go maps and tried permutations. */
    out->sorted = release >= 36 && !stable;
    out->combinations = out->sorted;
    out->maxsize_cut = !(release <= 35 && stable);
    out->fleet_complete = release >= 35;
    out->beta_code = release >= 36 ? !stable : out->copy == DC_COPY_EXPERIMENTAL;
    out->none_blocks = release == 34 || (release == 35 && stable);
    out->device_in_msg = release >= 37;
    out->config_once = release >= 37;
    out->list_attrs = out->copy == DC_COPY_EXPERIMENTAL &&
                      (out->features & DC_FEAT_LIST_TYPE_ATTRIBUTES);
}

const char *dc_copy_name(dc_copy c)
{
    switch (c) {
    case DC_COPY_STABLE: return "stable";
    case DC_COPY_INCUBATING: return "incubating";
    case DC_COPY_EXPERIMENTAL: return "experimental";
    }
    return "?";
}

unsigned dc_k8s_parse_release(const char *s, size_t n)
{
    if (n && s[0] == 'v') {
        s++;
        n--;
    }
    if (n < 4 || s[0] != '1' || s[1] != '.')
        return 0;
    size_t i = 2;
    unsigned minor = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && minor < 1000)
        minor = minor * 10 + (unsigned)(s[i++] - '0');
    if (i == 2 || (s[2] == '0' && i > 3))
        return 0;
    if (i < n) { /* a patch: ".N" */
        if (s[i] != '.' || i + 1 == n)
            return 0;
        for (size_t k = i + 1; k < n; k++)
            if (s[k] < '0' || s[k] > '9')
                return 0;
    }
    return minor >= DC_K8S_OLDEST && minor <= DC_K8S_NEWEST ? minor : 0;
}

static bool text_is(const char *s, size_t n, const char *t)
{
    return t && strlen(t) == n && memcmp(s, t, n) == 0;
}

static int gate_index(const char *s, size_t n)
{
    for (size_t i = 0; i < NGATES; i++)
        if (text_is(s, n, GATES[i].name) || text_is(s, n, GATES[i].gate) ||
            (n > 3 && memcmp(s, "DRA", 3) == 0 && text_is(s + 3, n - 3, GATES[i].name)))
            return (int)i;
    return -1;
}

unsigned dc_feature_parse(const char *s, size_t n)
{
    if (!s)
        return 0;
    int i = gate_index(s, n);
    return i < 0 ? 0 : GATES[i].bit;
}

const char *dc_feature_name(unsigned bit)
{
    for (size_t i = 0; i < NGATES; i++)
        if (GATES[i].bit == bit)
            return GATES[i].name;
    return NULL;
}

const char *dc_feature_gate_name(unsigned bit)
{
    for (size_t i = 0; i < NGATES; i++)
        if (GATES[i].bit == bit)
            return GATES[i].gate;
    return NULL;
}

void dc_feature_known(char *buf, size_t cap)
{
    size_t pos = 0;
    if (!cap)
        return;
    buf[0] = '\0';
    for (size_t k = 0; k < NGATES && pos < cap; k++) {
        int w = snprintf(buf + pos, cap - pos, "%s%s", k ? ", " : "", GATES[k].name);
        if (w < 0)
            break;
        pos += (size_t)w;
    }
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void trim(const char **s, size_t *n)
{
    while (*n && is_space(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && is_space((*s)[*n - 1]))
        (*n)--;
}

/* strconv.ParseBool: 1 t T TRUE true True, 0 f F FALSE false False. */
static int parse_bool(const char *s, size_t n)
{
    static const char *const YES[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const NO[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < 6; i++) {
        if (text_is(s, n, YES[i]))
            return 1;
        if (text_is(s, n, NO[i]))
            return 0;
    }
    return -1;
}

int dc_k8s_gate_set(unsigned release, const char *name, size_t n, bool on, unsigned *gates,
                    char *err, size_t errcap)
{
    if (release < DC_K8S_OLDEST || release > DC_K8S_NEWEST)
        release = DC_K8S_NEWEST;
    int x = gate_index(name, n);
    if (x < 0 || GATES[x].def[R(release)] == ABSENT) {
        snprintf(err, errcap, "unrecognized feature gate: %.*s%s", (int)n, name,
                 x < 0 ? "" : " (not in this Kubernetes release)");
        return -1;
    }
    bool def = GATES[x].def[R(release)] == 1;
    if (GATES[x].locked && release >= GATES[x].locked && on != def) {
        snprintf(err, errcap, "cannot set feature gate %s to %s, feature is locked to %s",
                 GATES[x].gate, on ? "true" : "false", def ? "true" : "false");
        return -1;
    }
    if (on)
        *gates |= GATES[x].bit;
    else
        *gates &= ~GATES[x].bit;
    return 0;
}

int dc_k8s_gates(unsigned release, const char *spec, size_t n, unsigned *gates, char *err,
                 size_t errcap)
{
    unsigned g = *gates;
    size_t i = 0;
    if (release < DC_K8S_OLDEST || release > DC_K8S_NEWEST)
        release = DC_K8S_NEWEST;
    if (err && errcap)
        err[0] = '\0';
    while (i <= n) {
        size_t j = i;
        while (j < n && spec[j] != ',')
            j++;
        const char *s = spec + i;
        size_t len = j - i;
        i = j + 1;
        if (!len)
            continue;
        const char *eq = memchr(s, '=', len);
        const char *k = s, *v = eq ? eq + 1 : NULL;
        size_t kn = eq ? (size_t)(eq - s) : len, vn = eq ? len - kn - 1 : 0;
        trim(&k, &kn);
        if (!eq) {
            snprintf(err, errcap, "missing bool value for %.*s", (int)kn, k);
            return -1;
        }
        trim(&v, &vn);
        int b = parse_bool(v, vn);
        if (b < 0) {
            snprintf(err, errcap, "invalid value of %.*s=%.*s, err: strconv.ParseBool: parsing "
                     "\"%.*s\": invalid syntax", (int)kn, k, (int)vn, v, (int)vn, v);
            return -1;
        }
        if (dc_k8s_gate_set(release, k, kn, b == 1, &g, err, errcap) < 0)
            return -1;
    }
    *gates = g;
    return 0;
}
