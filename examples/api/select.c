/*
 * select.c: compile a DRA selector once, evaluate it on one device and over a whole fleet, with
 * the public API alone. Run from the source tree's top (it reads examples/):
 *
 *   cc select.c $(pkg-config --cflags --libs dracel) -o select && ./select
 */
#include <dracel.h>
#include <stdio.h>
#include <string.h>

static const char SELECTOR[] =
    "device.driver == \"gpu.example.com\" && "
    "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0";

static const char DEVICE[] =
    "{\"driver\": \"gpu.example.com\", \"name\": \"gpu-0\","
    " \"attributes\": {\"model\": {\"string\": \"A100\"}},"
    " \"capacity\": {\"memory\": {\"value\": \"80Gi\"}}}";

int main(void)
{
    char err[1024];
    dracel_env *env = NULL;
    dracel_program *prog = NULL;
    dracel_diags *diags = NULL;
    dracel_result *res = NULL;
    dracel_table *fleet = NULL;
    dracel_bound *bound = NULL;
    dracel_selection *sel = NULL;
    int rc = 1;
    if (dracel_env_new(NULL, DRACEL_ENV_DRA, &env) != DRACEL_OK)
        return 1;
    dracel_status st = dracel_compile(env, SELECTOR, strlen(SELECTOR),
                                      DRACEL_COMPILE_ESTIMATE_COST, &prog, &diags);
    if (st != DRACEL_OK) {
        char *text = dracel_diags_render(diags, "<selector>");
        fprintf(stderr, "%s", text ? text : "out of memory\n");
        dracel_free_string(NULL, text);
        goto out;
    }
    uint64_t lo, hi;
    dracel_program_cost(prog, &lo, &hi);
    printf("type %s, cost %llu..%llu\n", dracel_program_type(prog), (unsigned long long)lo,
           (unsigned long long)hi);

    /* one device */
    if (dracel_env_device_json(env, DEVICE, strlen(DEVICE), err, sizeof err) != DRACEL_OK ||
        dracel_eval(prog, env, &res) != DRACEL_OK) {
        fprintf(stderr, "select: %s\n", err);
        goto out;
    }
    printf("gpu-0 (A100, 80Gi): %s\n", dracel_result_bool(res) == 1 ? "matches" : "does not match");

    /* the fleet, 64 devices at a time */
    st = dracel_table_load(NULL, "examples/fleet", &fleet, err, sizeof err);
    if (st == DRACEL_OK)
        st = dracel_bind(prog, fleet, &bound);
    if (st == DRACEL_OK)
        st = dracel_selection_new(NULL, &sel);
    if (st == DRACEL_OK)
        st = dracel_select(bound, env, NULL, sel);
    if (st != DRACEL_OK) {
        fprintf(stderr, "select: %s: %s\n", dracel_status_string(st), err);
        goto out;
    }
    const uint64_t *m = dracel_selection_matched(sel), *e = dracel_selection_errored(sel);
    for (uint32_t row = 0; row < dracel_table_rows(fleet); row++) {
        dracel_device_info d;
        if (!((m[row / 64] | e[row / 64]) >> (row % 64) & 1) ||
            dracel_table_device(fleet, row, &d) != DRACEL_OK)
            continue;
        if (e[row / 64] >> (row % 64) & 1)
            printf("%s/%s/%s: error: %s\n", d.driver, d.pool, d.device,
                   dracel_selection_error(sel, row));
        else
            printf("%s/%s/%s\n", d.driver, d.pool, d.device);
    }
    rc = 0;
out:
    dracel_selection_free(sel);
    dracel_bound_free(bound);
    dracel_table_free(fleet);
    dracel_result_free(res);
    dracel_program_free(prog);
    dracel_diags_free(diags);
    dracel_env_free(env);
    return rc;
}
