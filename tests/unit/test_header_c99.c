/* The public header compiles alone as strict C99 (-std=c99 -pedantic-errors) and links; a host
 * function declared and called from C99. */
#include "dracel.h"

#include <stdio.h>
#include <string.h>

static int64_t add(dracel_host_ctx *ctx, int64_t a, int64_t b)
{
    (void)ctx;
    return a + b;
}

int main(void)
{
    dracel_config cfg;
    dracel_config_init(&cfg);
    int ok = strcmp(dracel_version(), DRACEL_VERSION_STRING) == 0 &&
             cfg.max_source_bytes == DRACEL_DEFAULT_MAX_SOURCE_BYTES;
    printf("1..2\n%s 1 - dracel.h compiles alone as C99 and the version matches\n",
           ok ? "ok" : "not ok");

    dracel_env *env = NULL;
    dracel_function f;
    dracel_function_init(&f);
    f.name = "add";
    f.overload_id = "add_int_int";
    f.nparams = 2;
    f.params[0] = f.params[1] = DRACEL_TYPE_INT;
    f.result = DRACEL_TYPE_INT;
    f.fn = DRACEL_HOST_FN(add);
    dracel_program *p = NULL;
    dracel_diags *d = NULL;
    dracel_activation *act = NULL;
    dracel_result *r = NULL;
    int64_t v = 0;
    int ok2 = dracel_env_new(&cfg, DRACEL_ENV_PLAIN, &env) == DRACEL_OK &&
              dracel_env_add_function(env, &f, NULL, 0) == DRACEL_OK &&
              dracel_compile(env, "add(40, 2)", 10, 0, &p, &d) == DRACEL_OK &&
              dracel_activation_new(env, &act) == DRACEL_OK &&
              dracel_result_new(&cfg, &r) == DRACEL_OK &&
              dracel_eval_activation(p, act, r) == DRACEL_OK &&
              dracel_result_int(r, &v) == DRACEL_OK && v == 42;
    printf("%s 2 - a host function declared and called from C99\n", ok2 ? "ok" : "not ok");
    dracel_result_free(r);
    dracel_activation_free(act);
    dracel_program_free(p);
    dracel_diags_free(d);
    dracel_env_free(env);
    return ok && ok2 ? 0 : 1;
}
