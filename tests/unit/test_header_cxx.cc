// The public header compiles alone as C++ (extern "C" guard) and links from C++.
#include "dracel.h"

#include <cstdio>
#include <cstring>

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
    std::printf("1..1\n%s 1 - dracel.h compiles alone as C++ and parses\n", ok ? "ok" : "not ok");
    return ok ? 0 : 1;
}
