// The public header compiles alone as C++ (extern "C" guard) and links from C++; a host function
// with C++ linkage of its own, cast with DRACEL_HOST_FN, is called through libffi.
#include "dracel.h"

#include <cstdio>
#include <cstring>

static void greet(dracel_host_ctx *ctx, const char *s, size_t n)
{
    char buf[64];
    int k = std::snprintf(buf, sizeof buf, "hi %.*s", static_cast<int>(n), s);
    dracel_host_return_string(ctx, buf, static_cast<size_t>(k));
}

int main()
{
    dracel_config cfg;
    dracel_config_init(&cfg);
    char *out = nullptr;
    dracel_diags *d = nullptr;
    bool ok = dracel_parse_sexpr(&cfg, "1 + 2", 5, &out, &d) == DRACEL_OK &&
              std::strcmp(out, "(_+_ 1 2)") == 0;
    dracel_free_string(&cfg, out);
    dracel_diags_free(d);
    std::printf("1..2\n%s 1 - dracel.h compiles alone as C++ and parses\n", ok ? "ok" : "not ok");

    dracel_env *env = nullptr;
    dracel_function f;
    dracel_function_init(&f);
    f.name = "greet";
    f.overload_id = "string_greet";
    f.member = true;
    f.nparams = 1;
    f.params[0] = DRACEL_TYPE_STRING;
    f.result = DRACEL_TYPE_STRING;
    f.fn = DRACEL_HOST_FN(greet);
    dracel_program *p = nullptr;
    dracel_result *r = nullptr;
    const char *s = nullptr;
    size_t n = 0;
    d = nullptr;
    bool ok2 = dracel_env_new(&cfg, DRACEL_ENV_PLAIN, &env) == DRACEL_OK &&
               dracel_env_add_function(env, &f, nullptr, 0) == DRACEL_OK &&
               dracel_compile(env, "'you'.greet()", 13, 0, &p, &d) == DRACEL_OK &&
               dracel_eval(p, env, &r) == DRACEL_OK &&
               dracel_result_string(r, &s, &n) == DRACEL_OK && n == 6 &&
               std::strcmp(s, "hi you") == 0;
    std::printf("%s 2 - a host function declared and called from C++\n", ok2 ? "ok" : "not ok");
    dracel_result_free(r);
    dracel_program_free(p);
    dracel_diags_free(d);
    dracel_env_free(env);
    return ok && ok2 ? 0 : 1;
}
