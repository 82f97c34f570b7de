/*
 * fuzz_slices: libFuzzer harness for the ResourceSlice loader (src/slices.c: JSON through cJSON,
 * YAML through libyaml, validation, limits) and the table builder (src/table_build.c). Built with
 * --enable-fuzzing. The input is one file's bytes as they come (no NUL terminator: the loader
 * takes a length); limits are the defaults but for a small nesting depth.
 *
 * Besides crashes and sanitizer reports, it traps on a broken contract: a status other than
 * OK/EINPUT/ENOMEM, a rejection without a message, a table whose pools do not cover its rows,
 * or side tables that are not sorted or point past the end.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "slices.h"
#include "tablebuild.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static void check_table(const dc_table *t, uint32_t devices)
{
    CHECK(t->rows <= devices);
    uint32_t covered = 0;
    for (uint32_t p = 0; p < t->npools; p++) {
        CHECK(t->pools[p].first_row == covered);
        covered += t->pools[p].rows;
    }
    CHECK(covered == t->rows);
    for (uint32_t i = 0; i < t->ntaints; i++) {
        CHECK(t->taints[i].row < t->rows);
        CHECK(i == 0 || t->taints[i - 1].row <= t->taints[i].row);
    }
    for (uint32_t i = 0; i < t->nconsumes; i++) {
        CHECK(t->consumes[i].owner < t->rows && t->consumes[i].value);
        CHECK(i == 0 || t->consumes[i - 1].owner <= t->consumes[i].owner);
    }
    for (uint32_t i = 0; i < t->nshared; i++) {
        CHECK(t->shared[i].owner < t->npools && t->shared[i].value);
        CHECK(i == 0 || t->shared[i - 1].owner <= t->shared[i].owner);
    }
    uint32_t taints = 0, consumes = 0;
    for (uint32_t r = 0; r < t->rows; r++) {
        uint32_t n;
        const dc_ttaint *tt = dc_table_taints(t, r, &n);
        for (uint32_t k = 0; k < n; k++)
            CHECK(tt[k].row == r);
        taints += n;
        const dc_tcounter *c = dc_table_consumes(t, r, &n);
        for (uint32_t k = 0; k < n; k++)
            CHECK(c[k].owner == r);
        consumes += n;
        (void)dc_table_fault(t, r);
    }
    CHECK(taints == t->ntaints && consumes == t->nconsumes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    dc_slices_limits lim = {DC_SLICES_DEFAULT_MAX_FILE_BYTES, DC_SLICES_DEFAULT_MAX_OBJECTS, 16};
    dc_slice_set s;
    dc_slice_set_init(&s, NULL);
    dracel_status st = dc_slices_load_buffer(&s, "<input>", (const char *)data, size, &lim, err, sizeof err);
    CHECK(st == DRACEL_OK || st == DRACEL_EINPUT || st == DRACEL_ENOMEM);
    if (st == DRACEL_EINPUT)
        CHECK(err[0] != '\0' && memchr(err, '\0', sizeof err));
    if (st == DRACEL_OK) {
        uint32_t devices = 0;
        for (uint32_t i = 0; i < s.n; i++)
            devices += s.slices[i].ndevices;
        dc_table *t = NULL;
        st = dc_table_build(&s, NULL, NULL, &t, err, sizeof err);
        CHECK(st == DRACEL_OK || st == DRACEL_ENOMEM);
        if (t) {
            check_table(t, devices);
            dc_table_free(t);
        }
    }
    dc_slice_set_free(&s);
    return 0;
}
