/*
 * decls.c: the declarations of every library function the checker knows, with all overloads and
 * cel-go's overload ids. One table, installed into each new environment by dc_decls_install.
 *
 * Sources (signatures and ids; read, not copied):
 *   cel-go common/stdlib/standard.go    operators, size, conversions, string functions
 *     (with CrossTypeNumericComparisons: int/uint/double orderings; Kubernetes enables it)
 *   cel-go cel/library.go (optional lib) optional.*, value, hasValue, or, orValue, _[?_]
 *   cel-go ext/strings.go (version 2)    charAt ... join, format, strings.quote
 *   cel-go ext/lists.go (version 3)      slice flatten sort @sortByAssociatedKeys lists.range
 *                                        reverse distinct (sortBy is a macro: src/check.c)
 *   cel-go ext/sets.go                   sets.contains sets.equivalent sets.intersects
 *   kubernetes apiserver pkg/cel/library lists.go (isSorted sum min max indexOf lastIndexOf),
 *     regex.go (find findAll), quantity.go, semverlib.go (version 1)
 *
 * In the DRA environment only: `includes` (dra_includes_dyn_dyn, the DRA compiler's own).
 *
 * Not declared on purpose: timestamp and duration (and their accessors), the URL, IP, CIDR,
 * format, authorizer and JSON-patch libraries, and `includes` outside the DRA environment (the
 * lists library's version 1, Kubernetes 1.37's base environment): src/check.c reports them as
 * unsupported features. Quantity's mul/div/divInt are not in a released Kubernetes yet.
 *
 * Invariant: the dotted names here (optional.of, sets.contains, lists.range, strings.quote) are
 * global functions; the checker and the compiler resolve a receiver call on a qualified name to
 * them first (dc_check_qualified_fn in src/check.h).
 *
 * Change with: src/lib_*.c (the runtime implementations of the same names), src/check.c,
 * docs/language.md (the function reference).
 */
#include "env.h"

enum { G = 0, M = 1 }; /* global, member (receiver first) */

typedef struct decl_row {
    const char *fn;
    const char *id;
    unsigned char member;
    const char *params; /* signature type texts, comma-separated */
    const char *result;
} decl_row;

#define ORDERING(op, p)                                                     \
    {op, p "_bool", G, "bool, bool", "bool"},                               \
    {op, p "_int64", G, "int, int", "bool"},                                \
    {op, p "_int64_double", G, "int, double", "bool"},                      \
    {op, p "_int64_uint64", G, "int, uint", "bool"},                        \
    {op, p "_uint64", G, "uint, uint", "bool"},                             \
    {op, p "_uint64_double", G, "uint, double", "bool"},                    \
    {op, p "_uint64_int64", G, "uint, int", "bool"},                        \
    {op, p "_double", G, "double, double", "bool"},                         \
    {op, p "_double_int64", G, "double, int", "bool"},                      \
    {op, p "_double_uint64", G, "double, uint", "bool"},                    \
    {op, p "_string", G, "string, string", "bool"},                         \
    {op, p "_bytes", G, "bytes, bytes", "bool"}

/* Element types for which list functions are declared one overload per type. */
#define COMPARABLE(fn, pre, post, res)                                      \
    {fn, pre "int" post, M, "list(int)", res("int")},                       \
    {fn, pre "uint" post, M, "list(uint)", res("uint")},                    \
    {fn, pre "double" post, M, "list(double)", res("double")},              \
    {fn, pre "bool" post, M, "list(bool)", res("bool")},                    \
    {fn, pre "string" post, M, "list(string)", res("string")},              \
    {fn, pre "bytes" post, M, "list(bytes)", res("bytes")}

#define RES_LIST(t) "list(" t ")"
#define RES_BOOL(t) "bool"
#define RES_ELEM(t) t

static const decl_row rows[] = {
    /* ---- Logic and equality (standard). */
    {"_?_:_", "conditional", G, "bool, A, A", "A"},
    {"_&&_", "logical_and", G, "bool, bool", "bool"},
    {"_||_", "logical_or", G, "bool, bool", "bool"},
    {"!_", "logical_not", G, "bool", "bool"},
    {"_==_", "equals", G, "A, A", "bool"},
    {"_!=_", "not_equals", G, "A, A", "bool"},

    /* ---- Arithmetic. */
    {"_+_", "add_bytes", G, "bytes, bytes", "bytes"},
    {"_+_", "add_double", G, "double, double", "double"},
    {"_+_", "add_int64", G, "int, int", "int"},
    {"_+_", "add_list", G, "list(A), list(A)", "list(A)"},
    {"_+_", "add_string", G, "string, string", "string"},
    {"_+_", "add_uint64", G, "uint, uint", "uint"},
    {"_-_", "subtract_double", G, "double, double", "double"},
    {"_-_", "subtract_int64", G, "int, int", "int"},
    {"_-_", "subtract_uint64", G, "uint, uint", "uint"},
    {"_*_", "multiply_double", G, "double, double", "double"},
    {"_*_", "multiply_int64", G, "int, int", "int"},
    {"_*_", "multiply_uint64", G, "uint, uint", "uint"},
    {"_/_", "divide_double", G, "double, double", "double"},
    {"_/_", "divide_int64", G, "int, int", "int"},
    {"_/_", "divide_uint64", G, "uint, uint", "uint"},
    {"_%_", "modulo_int64", G, "int, int", "int"},
    {"_%_", "modulo_uint64", G, "uint, uint", "uint"},
    {"-_", "negate_double", G, "double", "double"},
    {"-_", "negate_int64", G, "int", "int"},

    /* ---- Ordering, with the cross-type numeric overloads. */
    ORDERING("_<_", "less"),
    ORDERING("_<=_", "less_equals"),
    ORDERING("_>_", "greater"),
    ORDERING("_>=_", "greater_equals"),

    /* ---- Indexing and membership (standard and optional library). */
    {"_[_]", "index_list", G, "list(A), int", "A"},
    {"_[_]", "index_map", G, "map(A, B), A", "B"},
    {"_[_]", "optional_list_index_int", G, "optional_type(list(V)), int", "optional_type(V)"},
    {"_[_]", "optional_map_index_value", G, "optional_type(map(K, V)), K", "optional_type(V)"},
    {"_[?_]", "list_optindex_optional_int", G, "list(V), int", "optional_type(V)"},
    {"_[?_]", "optional_list_optindex_optional_int", G, "optional_type(list(V)), int",
     "optional_type(V)"},
    {"_[?_]", "map_optindex_optional_value", G, "map(K, V), K", "optional_type(V)"},
    {"_[?_]", "optional_map_optindex_optional_value", G, "optional_type(map(K, V)), K",
     "optional_type(V)"},
    {"@in", "in_list", G, "A, list(A)", "bool"},
    {"@in", "in_map", G, "A, map(A, B)", "bool"},

    /* ---- size. */
    {"size", "size_bytes", G, "bytes", "int"},
    {"size", "bytes_size", M, "bytes", "int"},
    {"size", "size_list", G, "list(A)", "int"},
    {"size", "list_size", M, "list(A)", "int"},
    {"size", "size_map", G, "map(A, B)", "int"},
    {"size", "map_size", M, "map(A, B)", "int"},
    {"size", "size_string", G, "string", "int"},
    {"size", "string_size", M, "string", "int"},

    /* ---- Conversions. */
    {"type", "type", G, "A", "type(A)"},
    {"dyn", "to_dyn", G, "A", "dyn"},
    {"bool", "bool_to_bool", G, "bool", "bool"},
    {"bool", "string_to_bool", G, "string", "bool"},
    {"bytes", "bytes_to_bytes", G, "bytes", "bytes"},
    {"bytes", "string_to_bytes", G, "string", "bytes"},
    {"double", "double_to_double", G, "double", "double"},
    {"double", "int64_to_double", G, "int", "double"},
    {"double", "string_to_double", G, "string", "double"},
    {"double", "uint64_to_double", G, "uint", "double"},
    {"int", "int64_to_int64", G, "int", "int"},
    {"int", "double_to_int64", G, "double", "int"},
    {"int", "string_to_int64", G, "string", "int"},
    {"int", "uint64_to_int64", G, "uint", "int"},
    {"uint", "uint64_to_uint64", G, "uint", "uint"},
    {"uint", "double_to_uint64", G, "double", "uint"},
    {"uint", "int64_to_uint64", G, "int", "uint"},
    {"uint", "string_to_uint64", G, "string", "uint"},
    {"string", "string_to_string", G, "string", "string"},
    {"string", "bool_to_string", G, "bool", "string"},
    {"string", "bytes_to_string", G, "bytes", "string"},
    {"string", "double_to_string", G, "double", "string"},
    {"string", "int64_to_string", G, "int", "string"},
    {"string", "uint64_to_string", G, "uint", "string"},

    /* ---- String functions (standard): contains, startsWith and endsWith are receiver-style
     * only; matches has both forms. */
    {"contains", "contains_string", M, "string, string", "bool"},
    {"endsWith", "ends_with_string", M, "string, string", "bool"},
    {"startsWith", "starts_with_string", M, "string, string", "bool"},
    {"matches", "matches", G, "string, string", "bool"},
    {"matches", "matches_string", M, "string, string", "bool"},

    /* ---- Optional library. */
    {"optional.of", "optional_of", G, "V", "optional_type(V)"},
    {"optional.ofNonZeroValue", "optional_ofNonZeroValue", G, "V", "optional_type(V)"},
    {"optional.none", "optional_none", G, "", "optional_type(V)"},
    {"value", "optional_value", M, "optional_type(V)", "V"},
    {"hasValue", "optional_hasValue", M, "optional_type(V)", "bool"},
    {"or", "optional_or_optional", M, "optional_type(V), optional_type(V)", "optional_type(V)"},
    {"orValue", "optional_orValue_value", M, "optional_type(V), V", "V"},

    /* ---- Strings extension, version 2. */
    {"charAt", "string_char_at_int", M, "string, int", "string"},
    {"indexOf", "string_index_of_string", M, "string, string", "int"},
    {"indexOf", "string_index_of_string_int", M, "string, string, int", "int"},
    {"lastIndexOf", "string_last_index_of_string", M, "string, string", "int"},
    {"lastIndexOf", "string_last_index_of_string_int", M, "string, string, int", "int"},
    {"lowerAscii", "string_lower_ascii", M, "string", "string"},
    {"upperAscii", "string_upper_ascii", M, "string", "string"},
    {"replace", "string_replace_string_string", M, "string, string, string", "string"},
    {"replace", "string_replace_string_string_int", M, "string, string, string, int", "string"},
    {"split", "string_split_string", M, "string, string", "list(string)"},
    {"split", "string_split_string_int", M, "string, string, int", "list(string)"},
    {"substring", "string_substring_int", M, "string, int", "string"},
    {"substring", "string_substring_int_int", M, "string, int, int", "string"},
    {"trim", "string_trim", M, "string", "string"},
    {"join", "list_join", M, "list(string)", "string"},
    {"join", "list_join_string", M, "list(string), string", "string"},
    {"format", "string_format", M, "string, list(dyn)", "string"},
    {"strings.quote", "strings_quote", G, "string", "string"},

    /* ---- Lists extension, version 3 (cel-go), and Kubernetes' lists library. */
    {"slice", "list_slice", M, "list(T), int, int", "list(T)"},
    {"flatten", "list_flatten", M, "list(list(T))", "list(T)"},
    {"flatten", "list_flatten_int", M, "list(dyn), int", "list(dyn)"},
    COMPARABLE("sort", "list_", "_sort", RES_LIST),
    {"@sortByAssociatedKeys", "list_int_sortByAssociatedKeys", M, "list(T), list(int)", "list(T)"},
    {"@sortByAssociatedKeys", "list_uint_sortByAssociatedKeys", M, "list(T), list(uint)",
     "list(T)"},
    {"@sortByAssociatedKeys", "list_double_sortByAssociatedKeys", M, "list(T), list(double)",
     "list(T)"},
    {"@sortByAssociatedKeys", "list_bool_sortByAssociatedKeys", M, "list(T), list(bool)",
     "list(T)"},
    {"@sortByAssociatedKeys", "list_string_sortByAssociatedKeys", M, "list(T), list(string)",
     "list(T)"},
    {"@sortByAssociatedKeys", "list_bytes_sortByAssociatedKeys", M, "list(T), list(bytes)",
     "list(T)"},
    {"lists.range", "lists_range", G, "int", "list(int)"},
    {"reverse", "list_reverse", M, "list(T)", "list(T)"},
    {"distinct", "list_distinct", M, "list(T)", "list(T)"},
    COMPARABLE("isSorted", "list_", "_is_sorted_bool", RES_BOOL),
    {"sum", "list_int_sum_int", M, "list(int)", "int"},
    {"sum", "list_uint_sum_uint", M, "list(uint)", "uint"},
    {"sum", "list_double_sum_double", M, "list(double)", "double"},
    {"max", "list_int_max_int", M, "list(int)", "int"},
    {"max", "list_uint_max_uint", M, "list(uint)", "uint"},
    {"max", "list_double_max_double", M, "list(double)", "double"},
    {"max", "list_bool_max_bool", M, "list(bool)", "bool"},
    {"max", "list_string_max_string", M, "list(string)", "string"},
    {"max", "list_bytes_max_bytes", M, "list(bytes)", "bytes"},
    {"min", "list_int_min_int", M, "list(int)", "int"},
    {"min", "list_uint_min_uint", M, "list(uint)", "uint"},
    {"min", "list_double_min_double", M, "list(double)", "double"},
    {"min", "list_bool_min_bool", M, "list(bool)", "bool"},
    {"min", "list_string_min_string", M, "list(string)", "string"},
    {"min", "list_bytes_min_bytes", M, "list(bytes)", "bytes"},
    {"indexOf", "list_a_index_of_int", M, "list(A), A", "int"},
    {"lastIndexOf", "list_a_last_index_of_int", M, "list(A), A", "int"},

    /* ---- Sets extension. */
    {"sets.contains", "sets_contains_list_list", G, "list(T), list(T)", "bool"},
    {"sets.equivalent", "sets_equivalent_list_list", G, "list(T), list(T)", "bool"},
    {"sets.intersects", "sets_intersects_list_list", G, "list(T), list(T)", "bool"},

    /* ---- Kubernetes regex library. */
    {"find", "string_find_string", M, "string, string", "string"},
    {"findAll", "string_find_all_string", M, "string, string", "list(string)"},
    {"findAll", "string_find_all_string_int", M, "string, string, int", "list(string)"},

    /* ---- Kubernetes quantity library. `sign` is declared as a global function there
     * (cel.Overload), although its documentation shows the receiver form. */
    {"quantity", "string_to_quantity", G, "string", "kubernetes.Quantity"},
    {"isQuantity", "is_quantity_string", G, "string", "bool"},
    {"sign", "quantity_sign", G, "kubernetes.Quantity", "int"},
    {"isGreaterThan", "quantity_is_greater_than", M, "kubernetes.Quantity, kubernetes.Quantity",
     "bool"},
    {"isLessThan", "quantity_is_less_than", M, "kubernetes.Quantity, kubernetes.Quantity",
     "bool"},
    {"compareTo", "quantity_compare_to", M, "kubernetes.Quantity, kubernetes.Quantity", "int"},
    {"asApproximateFloat", "quantity_get_float", M, "kubernetes.Quantity", "double"},
    {"asInteger", "quantity_get_int", M, "kubernetes.Quantity", "int"},
    {"isInteger", "quantity_is_integer", M, "kubernetes.Quantity", "bool"},
    {"add", "quantity_add", M, "kubernetes.Quantity, kubernetes.Quantity", "kubernetes.Quantity"},
    {"add", "quantity_add_int", M, "kubernetes.Quantity, int", "kubernetes.Quantity"},
    {"sub", "quantity_sub", M, "kubernetes.Quantity, kubernetes.Quantity", "kubernetes.Quantity"},
    {"sub", "quantity_sub_int", M, "kubernetes.Quantity, int", "kubernetes.Quantity"},

    /* ---- Kubernetes semver library, version 1. */
    {"semver", "string_to_semver", G, "string", "kubernetes.Semver"},
    {"semver", "string_bool_to_semver", G, "string, bool", "kubernetes.Semver"},
    {"isSemver", "is_semver_string", G, "string", "bool"},
    {"isSemver", "is_semver_string_bool", G, "string, bool", "bool"},
    {"isGreaterThan", "semver_is_greater_than", M, "kubernetes.Semver, kubernetes.Semver",
     "bool"},
    {"isLessThan", "semver_is_less_than", M, "kubernetes.Semver, kubernetes.Semver", "bool"},
    {"compareTo", "semver_compare_to", M, "kubernetes.Semver, kubernetes.Semver", "int"},
    {"major", "semver_major", M, "kubernetes.Semver", "int"},
    {"minor", "semver_minor", M, "kubernetes.Semver", "int"},
    {"patch", "semver_patch", M, "kubernetes.Semver", "int"},
};

dracel_status dc_decls_install(dc_env *env)
{
    for (size_t i = 0; i < DC_COUNTOF(rows); i++) {
        const decl_row *r = &rows[i];
        DC_TRY(dc_env_add_overload(env, r->fn, r->id, r->member == M, r->params, r->result));
    }
    /* The DRA compiler's `<dyn>.includes(<dyn>)` (kubernetes/dynamic-resource-allocation
     * cel/compile.go, 1.36 and 1.37): declared for DRAListTypeAttributes, and in the
     * stored-expressions environment whatever the gate (it ignores FeatureEnabled). */
    if (env->kind == DC_ENV_DRA)
        DC_TRY(dc_env_add_overload(env, "includes", "dra_includes_dyn_dyn", true, "dyn, dyn",
                                   "bool"));
    return DRACEL_OK;
}
