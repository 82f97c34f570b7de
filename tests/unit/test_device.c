/*
 * test_device.c: `--device` and `--bind` read JSON as `--slices` does. A device given alone
 * (dracel_env_device_json) and the same device inside a ResourceSlice (dracel_table_load_buffer,
 * then the scalar VM and the vector VM) must be accepted or rejected alike, with the same
 * message for the same field, and answer every selector alike: exact int64 numbers, no silent
 * cut at "\u0000", names and lengths validated, the same attribute when both a bare name and the
 * driver-qualified one are published. Typed values (dracel_env_bind_json) read numbers the same
 * exact way. Public API only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dracel.h"

static char err[1024];

/* The device {"driver": "gpu.example.com", FIELDS} alone, and as devices[0] of a slice (named
 * "d" unless FIELDS name it). */
static void texts(const char *fields, char *dev, size_t dcap, char *slice, size_t scap)
{
    bool named = strncmp(fields, "\"name\":", 7) == 0;
    snprintf(dev, dcap, "{\"driver\":\"gpu.example.com\"%s%s}", *fields ? "," : "", fields);
    snprintf(slice, scap,
             "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{"
             "\"name\":\"s\"},\"spec\":{\"driver\":\"gpu.example.com\",\"nodeName\":\"n\","
             "\"pool\":{\"name\":\"p\",\"generation\":1,\"resourceSliceCount\":1},"
             "\"devices\":[{%s%s%s}]}}",
             named ? "" : "\"name\":\"d\"", *fields && !named ? "," : "", fields);
}

/* 1 true, 0 false, -1 an error (its message in msg). */
static int eval_alone(const char *dev, const char *expr, char *msg, size_t cap)
{
    dracel_env *env;
    dracel_program *p;
    dracel_diags *d;
    dracel_result *r;
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_DRA, &env), DRACEL_OK);
    assert_int_equal(dracel_env_device_json(env, dev, strlen(dev), err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_compile(env, expr, strlen(expr), 0, &p, &d), DRACEL_OK);
    assert_int_equal(dracel_eval(p, env, &r), DRACEL_OK);
    int v = dracel_result_bool(r);
    if (dracel_result_error(r))
        snprintf(msg, cap, "%s", dracel_result_error(r));
    dracel_result_free(r);
    dracel_program_free(p);
    dracel_diags_free(d);
    dracel_env_free(env);
    return v;
}

static int eval_table(const char *slice, const char *expr, unsigned vm, char *msg, size_t cap)
{
    dracel_env *env;
    dracel_program *p;
    dracel_diags *d;
    dracel_table *t;
    dracel_bound *b;
    dracel_selection *sel;
    assert_int_equal(dracel_table_load_buffer(NULL, "s.json", slice, strlen(slice), &t, err,
                                              sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_table_rows(t), 1);
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_DRA, &env), DRACEL_OK);
    assert_int_equal(dracel_compile(env, expr, strlen(expr), 0, &p, &d), DRACEL_OK);
    assert_int_equal(dracel_bind(p, t, &b), DRACEL_OK);
    assert_int_equal(dracel_selection_new(NULL, &sel), DRACEL_OK);
    dracel_select_opts o;
    dracel_select_opts_init(&o);
    o.vm = vm;
    assert_int_equal(dracel_select(b, env, &o, sel), DRACEL_OK);
    int v = dracel_selection_errored(sel)[0] & 1 ? -1 : (int)(dracel_selection_matched(sel)[0] & 1);
    if (v < 0)
        snprintf(msg, cap, "%s", dracel_selection_error(sel, 0));
    dracel_selection_free(sel);
    dracel_bound_free(b);
    dracel_program_free(p);
    dracel_diags_free(d);
    dracel_table_free(t);
    dracel_env_free(env);
    return v;
}

/* The selector gives `want` on the device alone and on its table row (both VMs); an error
 * with the message `msg`. */
static void same(const char *fields, const char *expr, int want, const char *msg)
{
    char dev[2048], slice[2048], m1[512] = "", m2[512] = "", m3[512] = "";
    texts(fields, dev, sizeof dev, slice, sizeof slice);
    int a = eval_alone(dev, expr, m1, sizeof m1);
    int b = eval_table(slice, expr, DRACEL_VM_SCALAR, m2, sizeof m2);
    int c = eval_table(slice, expr, DRACEL_VM_VECTOR, m3, sizeof m3);
    if (a != want || b != want || c != want)
        fail_msg("%s on %s: alone %d, scalar %d, vector %d; want %d (%s | %s | %s)", expr, dev, a,
                 b, c, want, m1, m2, m3);
    if (want < 0) {
        assert_string_equal(m1, msg);
        assert_string_equal(m2, msg);
        assert_string_equal(m3, msg);
    }
}

/* The device is rejected alone with `alone` and in a slice with a message ending in `tail`. */
static void rejected(const char *fields, const char *alone, const char *tail)
{
    char dev[4096], slice[4096];
    texts(fields, dev, sizeof dev, slice, sizeof slice);
    dracel_env *env;
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_DRA, &env), DRACEL_OK);
    if (dracel_env_device_json(env, dev, strlen(dev), err, sizeof err) != DRACEL_EINPUT)
        fail_msg("accepted alone: %s", dev);
    assert_string_equal(err, alone);
    dracel_env_free(env);
    dracel_table *t = NULL;
    if (dracel_table_load_buffer(NULL, "s.json", slice, strlen(slice), &t, err, sizeof err) !=
        DRACEL_EINPUT)
        fail_msg("accepted in a slice: %s", slice);
    size_t n = strlen(err), k = strlen(tail);
    if (n < k || strcmp(err + n - k, tail) != 0)
        fail_msg("slice message '%s' does not end in '%s'", err, tail);
}

#define A "device.attributes[\"gpu.example.com\"]."
#define QTY_WHY "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

static void test_numbers(void **state)
{
    (void)state;
    /* Beyond 2^53: the exact value, never the nearest double. */
    same("\"attributes\":{\"big\":{\"int\":9007199254740993}}", A "big == 9007199254740992", 0, NULL);
    same("\"attributes\":{\"big\":{\"int\":9007199254740993}}", A "big == 9007199254740993", 1, NULL);
    same("\"attributes\":{\"big\":{\"int\":123456789012345678}}", A "big == 123456789012345678", 1,
         NULL);
    same("\"attributes\":{\"big\":{\"int\":-9223372036854775808}}",
         A "big == -9223372036854775807 - 1", 1, NULL);
    same("\"attributes\":{\"big\":{\"int\":9223372036854775807}}", A "big == 9223372036854775807",
         1, NULL);
    rejected("\"attributes\":{\"big\":{\"int\":9223372036854775808}}",
             "<input>:1: attributes[\"big\"].int: 9223372036854775808 does not fit in a 64-bit "
             "integer",
             "attributes[\"big\"].int: 9223372036854775808 does not fit in a 64-bit integer");
    rejected("\"attributes\":{\"n\":{\"int\":1e3}}",
             "<input>:1: attributes[\"n\"].int: 1e3 is not an integer",
             "attributes[\"n\"].int: 1e3 is not an integer");
    rejected("\"attributes\":{\"n\":{\"int\":4.0}}",
             "<input>:1: attributes[\"n\"].int: 4.0 is not an integer",
             "attributes[\"n\"].int: 4.0 is not an integer");
    rejected("\"attributes\":{\"n\":{\"int\":\"4\"}}",
             "<input>:1: attributes[\"n\"].int: must be an integer, not a string",
             "attributes[\"n\"].int: must be an integer, not a string");
}

static void test_strings_and_names(void **state)
{
    (void)state;
    rejected("\"attributes\":{\"s\":{\"string\":\"x\\u0000y\"}}",
             "<input>:1: JSON string contains \\u0000 (not supported)",
             "JSON string contains \\u0000 (not supported)");
    rejected("\"attributes\":{\"bad name\":{\"int\":1}}",
             "<input>:1: attributes[\"bad name\"]: the name must be a C identifier (letters, "
             "digits and '_', not starting with a digit)",
             "attributes[\"bad name\"]: the name must be a C identifier (letters, digits and '_', "
             "not starting with a digit)");
    rejected("\"attributes\":{\"a.example.com/b/c\":{\"int\":1}}",
             "<input>:1: attributes[\"a.example.com/b/c\"]: must not contain more than one slash",
             "attributes[\"a.example.com/b/c\"]: must not contain more than one slash");
    rejected("\"attributes\":{\"s\":{\"string\":\"" /* 65 bytes */
             "01234567890123456789012345678901234567890123456789012345678901234\"}}",
             "<input>:1: attributes[\"s\"].string: 65 bytes, more than 64",
             "attributes[\"s\"].string: 65 bytes, more than 64");
    rejected("\"name\":\"Bad_Name\"",
             "<input>:1: name: invalid value \"Bad_Name\": must be a lowercase RFC 1123 label (at "
             "most 63 characters: 'a'-'z', '0'-'9' and '-', starting and ending with a letter or "
             "digit)",
             "devices[0].name: invalid value \"Bad_Name\": must be a lowercase RFC 1123 label (at "
             "most 63 characters: 'a'-'z', '0'-'9' and '-', starting and ending with a letter or "
             "digit)");
    rejected("\"name\":\"gpu-0\",\n\"capacity\":{\"memory\":{\"value\":\"80Qi\"}}",
             "<input>:2: device gpu-0: capacity[\"memory\"].value: invalid quantity \"80Qi\": "
             QTY_WHY,
             "capacity[\"memory\"].value: invalid quantity \"80Qi\": " QTY_WHY);
    /* Within the limits: the same answers. */
    same("\"attributes\":{\"s\":{\"string\":\"" /* 64 bytes */
         "0123456789012345678901234567890123456789012345678901234567890123\"}}",
         A "s.size() == 64", 1, NULL);
}

static void test_bare_and_qualified(void **state)
{
    (void)state;
    /* Both spellings of one attribute: the qualified one, in either order, on both paths. */
    same("\"attributes\":{\"model\":{\"string\":\"bare\"},\"gpu.example.com/model\":{\"string\":"
         "\"qualified\"}}",
         A "model == \"qualified\"", 1, NULL);
    same("\"attributes\":{\"gpu.example.com/model\":{\"string\":\"qualified\"},\"model\":{\"string\":"
         "\"bare\"}}",
         A "model == \"qualified\"", 1, NULL);
    /* Of different kinds too. */
    same("\"attributes\":{\"gpu.example.com/n\":{\"int\":2},\"n\":{\"string\":\"two\"}}", A "n == 2",
         1, NULL);
    same("\"capacity\":{\"mem\":{\"value\":\"1Gi\"},\"gpu.example.com/mem\":{\"value\":\"2Gi\"}}",
         "device.capacity[\"gpu.example.com\"].mem == quantity(\"2Gi\")", 1, NULL);
    /* Another domain's qualified name does not hide the bare one. */
    same("\"attributes\":{\"model\":{\"string\":\"bare\"},\"other.example.com/model\":{\"string\":"
         "\"other\"}}",
         A "model == \"bare\" && device.attributes[\"other.example.com\"].model == \"other\"", 1,
         NULL);
    /* A hidden attribute that is not a version still faults the device, as Kubernetes converts
     * every attribute before it evaluates. */
    same("\"attributes\":{\"fw\":{\"version\":\"v1\"},\"gpu.example.com/fw\":{\"version\":\"1.0.0\"}}",
         "true", -1, "attribute fw: parse semantic version: No Major.Minor.Patch elements found");
}

/* Typed values (--bind): numbers read as the device's are. */
static int bind(const char *json, const char *expr)
{
    dracel_env *env;
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_PLAIN, &env), DRACEL_OK);
    dracel_status st = dracel_env_bind_json(env, "x", json, strlen(json), err, sizeof err);
    int v = -2;
    if (st == DRACEL_OK) {
        dracel_program *p;
        dracel_diags *d;
        dracel_result *r;
        assert_int_equal(dracel_compile(env, expr, strlen(expr), 0, &p, &d), DRACEL_OK);
        assert_int_equal(dracel_eval(p, env, &r), DRACEL_OK);
        v = dracel_result_bool(r);
        dracel_result_free(r);
        dracel_program_free(p);
        dracel_diags_free(d);
    }
    dracel_env_free(env);
    return v;
}

static void bind_err(const char *json, const char *msg)
{
    assert_int_equal(bind(json, "true"), -2);
    assert_string_equal(err, msg);
}

static void test_typed(void **state)
{
    (void)state;
    assert_int_equal(bind("{\"int\":\"4\"}", "x == 4"), 1);
    assert_int_equal(bind("{\"int\":4}", "x == 4"), 1);
    assert_int_equal(bind("{\"int\":9007199254740993}", "x == 9007199254740993"), 1);
    assert_int_equal(bind("{\"int\":\"9007199254740993\"}", "x == 9007199254740993"), 1);
    assert_int_equal(bind("{\"int\":-9223372036854775808}", "x == -9223372036854775807 - 1"), 1);
    assert_int_equal(bind("{\"uint\":18446744073709551615}", "x == 18446744073709551615u"), 1);
    assert_int_equal(bind("{\"double\":0.1}", "x == 0.1"), 1);
    assert_int_equal(bind("{\"double\":9007199254740993}", "x == 9007199254740992.0"), 1);
    assert_int_equal(bind("{\"list\":[{\"int\":1},{\"uint\":\"2\"}]}", "x[1] == 2u"), 1);
    bind_err("{\"int\":1e3}", "int: 1e3 is not an integer");
    bind_err("{\"int\":9223372036854775808}",
             "int: 9223372036854775808 does not fit in a 64-bit integer");
    bind_err("{\"uint\":18446744073709551616}",
             "uint: 18446744073709551616 does not fit in an unsigned 64-bit integer");
    bind_err("{\"uint\":-1}", "uint: -1 is negative");
    bind_err("{\"int\":\" 4\"}", "int: invalid value \" 4\": not a decimal integer");
    bind_err("{\"string\":\"x\\u0000y\"}", "JSON string contains \\u0000 (not supported)");
    bind_err("{\"list\":[{\"int\":1},{\"int\":2.5}]}", "list[1].int: 2.5 is not an integer");
    bind_err("{\"map\":[[{\"string\":\"a\"},{\"int\":\"x\"}]]}",
             "map[0][1].int: invalid value \"x\": not a decimal integer");
    bind_err("{\"int\":1,\"uint\":2}",
             "a typed value is an object with one key, like {\"int\":\"4\"}, not an object with "
             "several keys");
    bind_err("{\"int\":4} x", "JSON syntax error: unexpected data after the JSON value");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_strings_and_names),
        cmocka_unit_test(test_bare_and_qualified),
        cmocka_unit_test(test_typed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
