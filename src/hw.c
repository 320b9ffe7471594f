/* hw.c — hardware models: the embedded H100 / H200 / MI300X defaults, the JSON loader
 * (with "base" overrides), the writer, and the sTask cost function.
 *
 * The format is described in docs/FORMAT-hw.md. The loader is fed untrusted text (it is
 * fuzzed): every value is type- and range-checked through json_util.h, every index is
 * bounded, and a failed load leaves the caller's model untouched. */
#include "hw.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "embedded.h"
#include "json_util.h"

#define HW_FORMAT "pipethreader.hw"
#define HW_VERSION 1

/* ---- builtin models --------------------------------------------------------------- */

static const char *const builtin_names[] = {"H100", "H200", "MI300X", NULL};

/* Other spellings people use for the same parts. */
static const struct {
    const char *alias, *name;
} aliases[] = {
    {"H100-SXM", "H100"}, {"H100-SXM5", "H100"}, {"H100SXM", "H100"},
    {"H200-SXM", "H200"}, {"H200SXM", "H200"},   {"MI300", "MI300X"},
};

/* ASCII-only case folding: locale-independent, so names match the same way everywhere. */
static bool same_name(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = (unsigned char)*a, cb = (unsigned char)*b;
        if (ca >= 'a' && ca <= 'z')
            ca -= 'a' - 'A';
        if (cb >= 'a' && cb <= 'z')
            cb -= 'a' - 'A';
        if (ca != cb)
            return false;
        if (!ca)
            return true;
    }
}

/* Canonical builtin name for `name` (any case, or an alias), or NULL. */
static const char *builtin_canonical(const char *name)
{
    if (!name)
        return NULL;
    for (const char *const *n = builtin_names; *n; n++)
        if (same_name(name, *n))
            return *n;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (same_name(name, aliases[i].alias))
            return aliases[i].name;
    return NULL;
}

const char *const *pt_hw_builtin_names(void)
{
    return builtin_names;
}

const char *pt_hw_builtin_json(const char *name)
{
    const char *canon = builtin_canonical(name);
    return canon ? pt_embedded_find(pt_embedded_hw, canon) : NULL;
}

/* ---- the scalar fields, table-driven so loader and writer cannot drift apart ---------- */

typedef enum { F_INT, F_I64, F_NUM } field_type;

typedef struct {
    const char *key;
    field_type type;
    size_t offset;
    double lo, hi;
    bool positive; /* F_NUM: must be > 0, not just >= lo */
    bool optional; /* absent: 0 (and not written back when 0) */
} field;

#define FLD(key, type, member, lo, hi, pos) {key, type, offsetof(pt_hw, member), lo, hi, pos, false}
#define FLD_OPT(key, type, member, lo, hi) {key, type, offsetof(pt_hw, member), lo, hi, false, true}
static const field fields[] = {
    FLD("eu_count", F_INT, eu_count, 1, 4096, false),
    FLD("clock_ghz", F_NUM, clock_ghz, 1e-3, 20, true),
    FLD("warp_size", F_INT, warp_size, 1, 1024, false),
    FLD("smem_per_eu", F_I64, smem_per_eu, 1, 1 << 30, false),
    FLD("smem_per_block", F_I64, smem_per_block, 1, 1 << 30, false),
    FLD("regs_per_eu", F_I64, regs_per_eu, 1, 1 << 24, false),
    FLD("max_regs_per_thread", F_INT, max_regs_per_thread, 1, 4096, false),
    FLD("min_regs_per_thread", F_INT, min_regs_per_thread, 1, 4096, false),
    FLD("max_threads_per_block", F_INT, max_threads_per_block, 1, 65536, false),
    FLD("max_warps_per_eu", F_INT, max_warps_per_eu, 1, 4096, false),
    FLD("l2_bytes", F_I64, l2_bytes, 0, 1099511627776.0, false),
    FLD("hbm_gbps", F_NUM, hbm_bytes_per_ns, PT_HW_MIN_RATE, 1e7, true),
    FLD("l2_gbps", F_NUM, l2_bytes_per_ns, PT_HW_MIN_RATE, 1e8, true),
    FLD_OPT("l2_sm_gbps", F_NUM, l2_sm_bytes_per_ns, 0, 1e8),
    FLD_OPT("hbm_write_gbps", F_NUM, hbm_write_bytes_per_ns, 0, 1e7),
    FLD_OPT("reuse_gbps", F_NUM, reuse_bytes_per_ns, 0, 1e8),
    FLD_OPT("lds_read_bytes_per_clk", F_NUM, lds_read_bytes_per_clk, 0, 1e6),
    FLD_OPT("dequant_rows_rate", F_NUM, dequant_rows_rate, 0, 1e6),
    FLD_OPT("dequant_rows_fp4_rate", F_NUM, dequant_rows_fp4_rate, 0, 1e6),
    FLD_OPT("dequant_frag_rate", F_NUM, dequant_frag_rate, 0, 1e6),
    FLD_OPT("dequant_frag_fp4_rate", F_NUM, dequant_frag_fp4_rate, 0, 1e6),
    FLD_OPT("dequant_tile_rate", F_NUM, dequant_tile_rate, 0, 1e6),
    FLD_OPT("dequant_rows_block_ns", F_NUM, dequant_rows_block_ns, 0, 1e6),
    FLD_OPT("dequant_frag_block_ns", F_NUM, dequant_frag_block_ns, 0, 1e6),
    FLD_OPT("simds_per_eu", F_INT, simds_per_eu, 0, 64),
    FLD_OPT("cuda_core_power", F_NUM, cuda_core_power, 0, 100),
    FLD_OPT("cuda_core_fair", F_INT, cuda_core_fair, 0, 1),
    FLD("barrier_ns", F_NUM, barrier_ns, 0, 1e6, false),
    FLD_OPT("barrier_wait_ns", F_NUM, barrier_wait_ns, 0, 1e6),
    FLD("launch_ns", F_NUM, launch_ns, 0, 1e9, false),
    FLD_OPT("launch_base_ns", F_NUM, launch_base_ns, 0, 1e9),
    FLD_OPT("launch_ramp_floor_ns", F_NUM, launch_ramp_floor_ns, 0, 1e12),
    FLD_OPT("dependent_launch_saved_ns", F_NUM, dependent_launch_saved_ns, 0, 1e9),
    FLD("tile_overhead_ns", F_NUM, tile_overhead_ns, 0, 1e9, false),
    FLD_OPT("wg_store_stagger", F_NUM, wg_store_stagger, 0, 1),
    FLD_OPT("dynamic_claim_ns", F_NUM, dynamic_claim_ns, 0, 1e6),
    FLD_OPT("proxy_fence_ns", F_NUM, proxy_fence_ns, 0, 1e6),
    FLD_OPT("decay_factored_exp_work", F_NUM, decay_factored_exp_work, 0, 1),
    FLD_OPT("decay_factored_tile_work", F_NUM, decay_factored_tile_work, 0, 1),
    FLD_OPT("decay_factored_vec_work", F_NUM, decay_factored_vec_work, 0, 1),
    FLD_OPT("decay_factored16_vec_work", F_NUM, decay_factored16_vec_work, 0, 1),
    FLD("tma_box_max", F_I64, tma_box_max, 1, 1 << 20, false),
    FLD_OPT("tma_oob_row_ns", F_NUM, tma_oob_row_ns, 0, 1e6),
    FLD_OPT("dram_blend_p", F_NUM, dram_blend_p, 0, 64),
    FLD_OPT("dram_short_run", F_NUM, dram_short_run, 0, 1),
    FLD_OPT("dram_run_halving", F_NUM, dram_run_halving, 0, 1),
    FLD_OPT("dram_overfill_ns", F_NUM, dram_overfill_ns, 0, 1e6),
    FLD_OPT("dram_overfill_doubling", F_NUM, dram_overfill_doubling, 0, 1),
};
#define N_FIELDS (sizeof fields / sizeof fields[0])

/* Top-level keys; "sources" may name any of the scalar keys and "name"/"vendor"/"arch". */
static const char *const top_keys[] = {
    "format", "version", "base", "name", "vendor", "arch", "source", "sources",
    "eu_count", "clock_ghz", "warp_size", "smem_per_eu", "smem_per_block", "regs_per_eu",
    "max_regs_per_thread", "min_regs_per_thread", "max_threads_per_block", "max_warps_per_eu",
    "l2_bytes", "hbm_gbps", "l2_gbps", "l2_sm_gbps", "hbm_write_gbps", "reuse_gbps", "lds_read_bytes_per_clk", "dequant_rows_rate", "dequant_rows_fp4_rate", "dequant_frag_rate", "dequant_frag_fp4_rate", "dequant_tile_rate", "dequant_rows_block_ns", "dequant_frag_block_ns", "simds_per_eu", "cuda_core_power", "cuda_core_fair", "barrier_ns", "barrier_wait_ns", "launch_ns", "launch_base_ns", "launch_ramp_floor_ns", "dependent_launch_saved_ns", "tile_overhead_ns", "wg_store_stagger", "dynamic_claim_ns", "proxy_fence_ns", "decay_factored_exp_work", "decay_factored_tile_work", "decay_factored_vec_work", "decay_factored16_vec_work", "mma",
    "tma_box_max", "tma_oob_row_ns", "dram_blend_p", "dram_short_run", "dram_run_halving", "dram_overfill_ns", "dram_overfill_doubling", "clusters", "seus", "costs", NULL};
static const char *const cluster_keys[] = {"capacity", "sync_ns", "source", NULL};
static const char *const mma_keys[] = {"m", "n_max", "n_step", "k_bytes", "source", NULL};
static const char *const seu_keys[] = {"async", "max_in_flight", "issue_ns", "source", NULL};
static const char *const cost_keys[] = {"kind", "dtype", "rate", "latency_ns", "peak_rate", "source",
                                        NULL};

/* ---- loader --------------------------------------------------------------------------- */

/* A user string made safe to quote in a one-line message: control bytes become '?', and
 * it is cut to 64 bytes (the buffer must hold 68). */
static const char *shown(const char *s, char *buf)
{
    size_t n = 0;
    for (; s && s[n] && n < 64; n++)
        buf[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
    if (s && s[n])
        memcpy(buf + n, "...", 3), n += 3;
    buf[n] = 0;
    return buf;
}

/* State of one load: the file name for messages and whether fields may be omitted. */
typedef struct {
    const char *file;
    bool has_base;
    pt_error *err;
} ld;

static bool load_root(pt_hw *hw, const char *file, const char *text, size_t len, int depth,
                      pt_error *err);

static bool has(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key) != NULL;
}

static bool get_field(ld *L, const cJSON *root, const field *f, pt_hw *hw)
{
    if (L->has_base && !has(root, f->key))
        return true; /* keep the base's value */
    char *dst = (char *)hw + f->offset;
    if (f->optional && !has(root, f->key)) {
        memset(dst, 0, f->type == F_INT ? sizeof(int) : sizeof(int64_t));
        return true;
    }
    if (f->type == F_NUM) {
        double d = 0;
        if (!pt_json_get_number(root, f->key, true, f->lo, f->hi, L->file, "$", &d, L->err))
            return false;
        if (f->positive && !(d > 0))
            return pt_fail(L->err, "%s: $.%s: %g is out of range; expected a positive number",
                           L->file, f->key, d);
        memcpy(dst, &d, sizeof d);
        return true;
    }
    int64_t v = 0;
    if (!pt_json_get_int(root, f->key, true, (int64_t)f->lo, (int64_t)f->hi, L->file, "$", &v,
                         L->err))
        return false;
    if (f->type == F_INT) {
        int i = (int)v;
        memcpy(dst, &i, sizeof i);
    } else
        memcpy(dst, &v, sizeof v);
    return true;
}

/* A fixed-size name: the whole buffer is rewritten so equal models compare equal bytewise. */
static bool get_name(ld *L, const cJSON *obj, const char *key, const char *path, char *out,
                     size_t cap)
{
    char tmp[256];
    memset(tmp, 0, sizeof tmp);
    if (cap > sizeof tmp)
        cap = sizeof tmp;
    if (!has(obj, key) && L->has_base)
        return true;
    if (!pt_json_get_name(obj, key, true, L->file, path, tmp, cap, L->err))
        return false;
    /* Names end up in other one-line messages and in file headers: printable only. */
    for (const char *c = tmp; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return pt_fail(L->err, "%s: %s.%s: contains a control character (byte %d); expected "
                           "printable text", L->file, path, key, *c);
    memcpy(out, tmp, cap);
    return true;
}

static bool check_header(ld *L, const cJSON *root)
{
    const char *fmt = NULL;
    if (!pt_json_get_string(root, "format", false, L->file, "$", &fmt, L->err))
        return false;
    char b[68];
    if (fmt && strcmp(fmt, HW_FORMAT) != 0)
        return pt_fail(L->err, "%s: $.format: is \"%s\"; expected \"" HW_FORMAT "\"",
                       L->file, shown(fmt, b));
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (!ver)
        return true;
    if (!cJSON_IsNumber(ver))
        return pt_fail(L->err, "%s: $.version: is %s; expected the number %d", L->file,
                       pt_json_type(ver), HW_VERSION);
    if (ver->valuedouble != HW_VERSION)
        return pt_fail(L->err, "%s: $.version: %g is not supported; expected %d", L->file,
                       ver->valuedouble, HW_VERSION);
    return true;
}

/* "base": a builtin name; the model starts as that builtin and the file overrides it. */
static bool apply_base(ld *L, const cJSON *root, pt_hw *hw, int depth)
{
    const char *base = NULL;
    if (!pt_json_get_string(root, "base", false, L->file, "$", &base, L->err))
        return false;
    L->has_base = base != NULL;
    if (!base)
        return true;
    const char *canon = builtin_canonical(base);
    char b[68];
    if (!canon)
        return pt_fail(L->err, "%s: $.base: unknown hardware model \"%s\"; expected one of: "
                       "H100, H200, MI300X", L->file, shown(base, b));
    if (depth > 0)
        return pt_fail(L->err, "%s: $.base: a base model may not itself have a base; expected "
                       "a model without \"base\"", L->file);
    const char *text = pt_embedded_find(pt_embedded_hw, canon);
    if (!text)
        return pt_fail(L->err, "%s: $.base: builtin \"%s\" is not compiled in; expected one of: "
                       "H100, H200, MI300X", L->file, canon);
    return load_root(hw, canon, text, strlen(text), depth + 1, L->err);
}

/* "sources": per-field provenance strings; checked (typos, types) but not stored. */
static bool check_sources(ld *L, const cJSON *root)
{
    bool ok;
    const cJSON *src = pt_json_get_object(root, "sources", false, L->file, "$", &ok, L->err);
    if (!ok || !src)
        return ok;
    const char *allowed[N_FIELDS + 4];
    size_t n = 0;
    allowed[n++] = "name";
    allowed[n++] = "vendor";
    allowed[n++] = "arch";
    for (size_t i = 0; i < N_FIELDS; i++)
        allowed[n++] = fields[i].key;
    allowed[n] = NULL;
    if (!pt_json_check_keys(src, allowed, L->file, "$.sources", L->err))
        return false;
    const cJSON *it;
    cJSON_ArrayForEach(it, src)
    {
        char b[68];
        if (!cJSON_IsString(it))
            return pt_fail(L->err, "%s: $.sources.%s: is %s; expected a string", L->file,
                           shown(it->string, b), pt_json_type(it));
    }
    return true;
}

static bool check_vendor(ld *L, const cJSON *root, const pt_hw *hw)
{
    if (!has(root, "vendor"))
        return true;
    char b[68];
    if (strcmp(hw->vendor, "nvidia") != 0 && strcmp(hw->vendor, "amd") != 0)
        return pt_fail(L->err, "%s: $.vendor: is \"%s\"; expected \"nvidia\" or \"amd\"",
                       L->file, shown(hw->vendor, b));
    return true;
}

static bool get_int_into(ld *L, const cJSON *obj, const char *key, int64_t lo, int64_t hi,
                         const char *path, bool required, int *out)
{
    int64_t v = *out;
    if (!pt_json_get_int(obj, key, required, lo, hi, L->file, path, &v, L->err))
        return false;
    *out = (int)v;
    return true;
}

static bool get_mma(ld *L, const cJSON *root, pt_hw *hw)
{
    bool ok;
    const cJSON *m = pt_json_get_object(root, "mma", !L->has_base, L->file, "$", &ok, L->err);
    if (!ok || !m)
        return ok;
    const char *p = "$.mma", *src = NULL;
    bool req = !L->has_base;
    return pt_json_check_keys(m, mma_keys, L->file, p, L->err) &&
           get_int_into(L, m, "m", 1, 1024, p, req, &hw->mma_m) &&
           get_int_into(L, m, "n_max", 1, 4096, p, req, &hw->mma_n_max) &&
           get_int_into(L, m, "n_step", 1, 4096, p, req, &hw->mma_n_step) &&
           get_int_into(L, m, "k_bytes", 1, 4096, p, req, &hw->mma_k_bytes) &&
           pt_json_get_string(m, "source", false, L->file, p, &src, L->err);
}

/* "clusters" (optional): capacity[i] is how many clusters of i + 1 CTAs fit at once. */
static bool get_clusters(ld *L, const cJSON *root, pt_hw *hw)
{
    bool ok;
    const cJSON *c = pt_json_get_object(root, "clusters", false, L->file, "$", &ok, L->err);
    if (!ok || !c)
        return ok;
    const char *p = "$.clusters", *src = NULL;
    if (!pt_json_check_keys(c, cluster_keys, L->file, p, L->err) ||
        !pt_json_get_number(c, "sync_ns", true, 0, 1e6, L->file, p, &hw->cluster_sync_ns,
                            L->err) ||
        !pt_json_get_string(c, "source", false, L->file, p, &src, L->err))
        return false;
    const cJSON *cap = cJSON_GetObjectItemCaseSensitive(c, "capacity");
    int n = cJSON_IsArray(cap) ? cJSON_GetArraySize(cap) : -1;
    if (n < 1 || n > PT_HW_MAX_CLUSTER)
        return pt_fail(L->err, "%s: $.clusters.capacity: is %s; expected an array of 1 to %d "
                       "counts (clusters of 1, 2, ... CTAs resident at once)", L->file,
                       cap ? (cJSON_IsArray(cap) ? "an array of the wrong length" : pt_json_type(cap))
                           : "missing", PT_HW_MAX_CLUSTER);
    memset(hw->cluster_capacity, 0, sizeof hw->cluster_capacity);
    for (int i = 0; i < n; i++) {
        const cJSON *v = cJSON_GetArrayItem(cap, i);
        if (!cJSON_IsNumber(v))
            return pt_fail(L->err, "%s: $.clusters.capacity[%d]: is %s; expected a whole number "
                           "0 to 1000000 (0: clusters of %d CTAs not modelled)", L->file, i,
                           pt_json_type(v), i + 1);
        if (!(v->valuedouble >= 0 && v->valuedouble <= 1e6) ||
            v->valuedouble != (double)(int)v->valuedouble)
            return pt_fail(L->err, "%s: $.clusters.capacity[%d]: is %g; expected a whole number "
                           "0 to 1000000 (0: clusters of %d CTAs not modelled)", L->file, i,
                           v->valuedouble, i + 1);
        hw->cluster_capacity[i + 1] = (int)v->valuedouble;
    }
    return true;
}

/* One sEU entry. Fields are required unless the base already defines this sEU. */
static bool get_seu(ld *L, const cJSON *obj, const char *path, pt_seu_model *s)
{
    bool req = !s->present;
    const char *src = NULL;
    if (!pt_json_check_keys(obj, seu_keys, L->file, path, L->err) ||
        !pt_json_get_bool(obj, "async", req, L->file, path, &s->async, L->err) ||
        !get_int_into(L, obj, "max_in_flight", 0, 1 << 20, path, false, &s->max_in_flight) ||
        !pt_json_get_number(obj, "issue_ns", req, 0, 1e6, L->file, path, &s->issue_ns, L->err) ||
        !pt_json_get_string(obj, "source", false, L->file, path, &src, L->err))
        return false;
    s->present = true;
    return true;
}

static bool get_seus(ld *L, const cJSON *root, pt_hw *hw)
{
    bool ok;
    const cJSON *seus = pt_json_get_object(root, "seus", !L->has_base, L->file, "$", &ok, L->err);
    if (!ok || !seus)
        return ok;
    const cJSON *it;
    cJSON_ArrayForEach(it, seus)
    {
        pt_seu_kind k;
        const char *key = it->string ? it->string : "";
        char b[68];
        if (!pt_seu_parse(key, &k) || (unsigned)k >= PT_SEU_COUNT)
            return pt_fail(L->err, "%s: $.seus: unknown sEU \"%s\"; expected one of: tma, "
                           "tensor_core, cuda_core", L->file, shown(key, b));
        char path[PT_PATH_MAX];
        pt_path_key(path, "$.seus", key);
        if (!cJSON_IsObject(it))
            return pt_fail(L->err, "%s: %s: is %s; expected an object", L->file, path,
                           pt_json_type(it));
        if (!get_seu(L, it, path, &hw->seu[k]))
            return false;
    }
    return true;
}

/* One parsed "costs" entry before it is applied. dtype -1 means "*" (every dtype). */
typedef struct {
    int kind, dtype, index;
    bool has_rate, has_latency, has_peak;
    double rate, latency_ns, peak_rate;
} cost_entry;

static void kind_list(char *out, size_t cap)
{
    out[0] = 0;
    for (int k = 0; k < PT_ST_KIND_COUNT; k++) {
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%s", k ? ", " : "", pt_stask_kind_name((pt_stask_kind)k));
    }
}

static bool parse_cost_ids(ld *L, const cJSON *e, const char *path, cost_entry *c)
{
    const char *kind = NULL, *dtype = "*";
    if (!pt_json_get_string(e, "kind", true, L->file, path, &kind, L->err) ||
        !pt_json_get_string(e, "dtype", false, L->file, path, &dtype, L->err))
        return false;
    pt_stask_kind k;
    char b[68];
    if (!pt_stask_kind_parse(kind, &k) || (unsigned)k >= PT_ST_KIND_COUNT) {
        char list[512];
        kind_list(list, sizeof list);
        return pt_fail(L->err, "%s: %s.kind: unknown sTask kind \"%s\"; expected one of: %s",
                       L->file, path, shown(kind, b), list);
    }
    c->kind = (int)k;
    c->dtype = -1;
    if (strcmp(dtype, "*") != 0) {
        pt_dtype d;
        if (!pt_dtype_parse(dtype, &d) || (unsigned)d >= PT_DTYPE_COUNT)
            return pt_fail(L->err, "%s: %s.dtype: unknown dtype \"%s\"; expected \"*\" or one "
                           "of: %s", L->file, path, shown(dtype, b), pt_dtype_names());
        c->dtype = (int)d;
    }
    return true;
}

static bool parse_cost(ld *L, const cJSON *e, int index, cost_entry *c)
{
    char path[PT_PATH_MAX];
    pt_path_idx(path, "$.costs", index);
    if (!cJSON_IsObject(e))
        return pt_fail(L->err, "%s: %s: is %s; expected an object {\"kind\", \"dtype\", "
                       "\"rate\", \"latency_ns\"}", L->file, path, pt_json_type(e));
    memset(c, 0, sizeof *c);
    c->index = index;
    const char *src = NULL;
    bool req = !L->has_base;
    if (!pt_json_check_keys(e, cost_keys, L->file, path, L->err) ||
        !parse_cost_ids(L, e, path, c) ||
        !pt_json_get_number(e, "rate", req, 0, PT_HW_MAX_RATE, L->file, path, &c->rate, L->err) ||
        !pt_json_get_number(e, "latency_ns", req, 0, 1e9, L->file, path, &c->latency_ns,
                            L->err) ||
        !pt_json_get_number(e, "peak_rate", false, 0, PT_HW_MAX_RATE, L->file, path,
                            &c->peak_rate, L->err) ||
        !pt_json_get_string(e, "source", false, L->file, path, &src, L->err))
        return false;
    c->has_rate = has(e, "rate");
    /* 0 marks "unsupported"; a tiny positive rate would make durations infinite. */
    if (c->has_rate && c->rate > 0 && c->rate < PT_HW_MIN_RATE)
        return pt_fail(L->err, "%s: %s.rate: %g is too small to give finite times; expected 0 "
                       "(unsupported) or %g to %g", L->file, path, c->rate, PT_HW_MIN_RATE,
                       PT_HW_MAX_RATE);
    c->has_latency = has(e, "latency_ns");
    c->has_peak = has(e, "peak_rate");
    if (!c->has_rate && !c->has_latency && !c->has_peak)
        return pt_fail(L->err, "%s: %s: sets none of \"rate\", \"latency_ns\" and "
                       "\"peak_rate\"; expected at least one of them", L->file, path);
    return true;
}

static void apply_cost(pt_hw *hw, const cost_entry *c, int dtype)
{
    pt_cost *dst = &hw->cost[c->kind][dtype];
    if (c->has_rate)
        dst->rate = c->rate;
    if (c->has_latency)
        dst->latency_ns = c->latency_ns;
    if (c->has_peak)
        dst->peak_rate = c->peak_rate;
}

/* "costs": a dtype-specific entry wins over "*" whatever the order; a repeated
 * (kind, dtype) pair is refused, which also bounds the work to KIND x (DTYPE + 1) entries. */
static bool get_costs(ld *L, const cJSON *root, pt_hw *hw)
{
    bool ok;
    const cJSON *arr = pt_json_get_array(root, "costs", !L->has_base, L->file, "$", &ok, L->err);
    if (!ok || !arr)
        return ok;
    enum { SLOTS = PT_ST_KIND_COUNT * (PT_DTYPE_COUNT + 1) };
    cost_entry entries[SLOTS];
    int first[PT_ST_KIND_COUNT][PT_DTYPE_COUNT + 1];
    memset(first, -1, sizeof first);
    int n = 0, index = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        cost_entry c;
        if (!parse_cost(L, e, index, &c))
            return false;
        int *seen = &first[c.kind][c.dtype + 1];
        if (*seen >= 0)
            return pt_fail(L->err, "%s: $.costs[%d]: a second entry for %s on %s (the first is "
                           "$.costs[%d]); expected one entry per kind and dtype", L->file, index,
                           pt_stask_kind_name((pt_stask_kind)c.kind),
                           c.dtype < 0 ? "\"*\"" : pt_dtype_name((pt_dtype)c.dtype), *seen);
        *seen = index++;
        entries[n++] = c; /* n < SLOTS: each slot of `first` is taken at most once */
    }
    for (int i = 0; i < n; i++)
        if (entries[i].dtype < 0)
            for (int d = 0; d < PT_DTYPE_COUNT; d++)
                apply_cost(hw, &entries[i], d);
    for (int i = 0; i < n; i++)
        if (entries[i].dtype >= 0)
            apply_cost(hw, &entries[i], entries[i].dtype);
    return true;
}

/* Relations between fields, checked on the final (base + override) model; also puts
 * unsupported costs into their one canonical form so equal models compare equal. */
static bool check_model(ld *L, pt_hw *hw)
{
    const char *f = L->file;
    if (hw->smem_per_block > hw->smem_per_eu)
        return pt_fail(L->err, "%s: $.smem_per_block: %lld is more than smem_per_eu (%lld); "
                       "expected at most smem_per_eu", f, (long long)hw->smem_per_block,
                       (long long)hw->smem_per_eu);
    if (hw->min_regs_per_thread > hw->max_regs_per_thread)
        return pt_fail(L->err, "%s: $.min_regs_per_thread: %d is more than max_regs_per_thread "
                       "(%d); expected at most that", f, hw->min_regs_per_thread,
                       hw->max_regs_per_thread);
    if ((int64_t)hw->max_threads_per_block > (int64_t)hw->max_warps_per_eu * hw->warp_size)
        return pt_fail(L->err, "%s: $.max_threads_per_block: %d is more than max_warps_per_eu x "
                       "warp_size (%lld); expected at most that", f, hw->max_threads_per_block,
                       (long long)hw->max_warps_per_eu * hw->warp_size);
    if (hw->mma_n_step > hw->mma_n_max || hw->mma_n_max % hw->mma_n_step != 0)
        return pt_fail(L->err, "%s: $.mma.n_max: %d is not a multiple of n_step (%d); expected "
                       "N = n_step, 2 n_step, ..., n_max", f, hw->mma_n_max, hw->mma_n_step);
    for (int s = 0; s < PT_SEU_COUNT; s++)
        if (!hw->seu[s].present)
            return pt_fail(L->err, "%s: $.seus: missing \"%s\"; expected an object {\"async\", "
                           "\"max_in_flight\", \"issue_ns\"}", f, pt_seu_name((pt_seu_kind)s));
    for (int k = 0; k < PT_ST_KIND_COUNT; k++) {
        bool any = false;
        for (int d = 0; d < PT_DTYPE_COUNT; d++) {
            if (hw->cost[k][d].rate > 0)
                any = true;
            else /* unsupported carries no latency: one canonical form */
                hw->cost[k][d] = (pt_cost){.rate = 0};
        }
        if (!any)
            return pt_fail(L->err, "%s: $.costs: no positive rate for sTask kind \"%s\"; expected "
                           "an entry {\"kind\": \"%s\", \"dtype\": \"*\", \"rate\": ..., "
                           "\"latency_ns\": ...}", f, pt_stask_kind_name((pt_stask_kind)k),
                           pt_stask_kind_name((pt_stask_kind)k));
    }
    return true;
}

static bool load_object(ld *L, const cJSON *root, pt_hw *hw, int depth)
{
    if (!cJSON_IsObject(root))
        return pt_fail(L->err, "%s: $: is %s; expected a JSON object (a hardware model)",
                       L->file, pt_json_type(root));
    if (!pt_json_expect_kind(root, PT_FILE_HW, L->file, L->err))
        return false;
    if (!pt_json_check_keys(root, top_keys, L->file, "$", L->err) || !check_header(L, root) ||
        !apply_base(L, root, hw, depth) || !check_sources(L, root))
        return false;
    /* name is required even over a base: a modified model must not pass for the builtin. */
    bool has_base = L->has_base;
    L->has_base = false;
    bool ok = get_name(L, root, "name", "$", hw->name, sizeof hw->name);
    L->has_base = has_base;
    if (!ok || !get_name(L, root, "vendor", "$", hw->vendor, sizeof hw->vendor) ||
        !check_vendor(L, root, hw) || !get_name(L, root, "arch", "$", hw->arch, sizeof hw->arch) ||
        !get_name(L, root, "source", "$", hw->source, sizeof hw->source))
        return false;
    for (size_t i = 0; i < N_FIELDS; i++)
        if (!get_field(L, root, &fields[i], hw))
            return false;
    return get_mma(L, root, hw) && get_clusters(L, root, hw) && get_seus(L, root, hw) &&
           get_costs(L, root, hw) &&
           check_model(L, hw);
}

static bool load_root(pt_hw *hw, const char *file, const char *text, size_t len, int depth,
                      pt_error *err)
{
    cJSON *root = pt_json_parse(file, text, len, err);
    if (!root)
        return false;
    ld L = {.file = file, .has_base = false, .err = err};
    bool ok = load_object(&L, root, hw, depth);
    cJSON_Delete(root);
    return ok;
}

bool pt_hw_load_text(pt_hw *hw, const char *name, const char *text, size_t len, pt_error *err)
{
    const char *file = name ? name : "<hardware model>";
    if (!hw || !text)
        return pt_fail(err, "%s: no text; expected a JSON hardware model", file);
    /* A NUL-terminated private copy: callers (and fuzzers) may pass an unterminated buffer,
     * and the parse helpers scan for whitespace with string functions. */
    char *copy = malloc(len + 1);
    pt_hw *tmp = calloc(1, sizeof *tmp);
    if (!copy || !tmp) {
        free(copy);
        free(tmp);
        return pt_fail(err, "%s: out of memory", file);
    }
    memcpy(copy, text, len);
    copy[len] = 0;
    bool ok = load_root(tmp, file, copy, len, 0, err);
    if (ok) {
        pt_copy_path(tmp->file, sizeof tmp->file, file);
        *hw = *tmp;
    }
    else if (err) /* messages may quote the input (keys, syntax context): keep them one line */
        for (char *c = err->msg; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
    free(tmp);
    free(copy);
    return ok;
}

bool pt_hw_load(pt_hw *hw, const char *name_or_file, pt_error *err)
{
    if (!name_or_file || !*name_or_file)
        return pt_fail(err, "hardware: no model given; expected H100, H200, MI300X or a JSON "
                       "file");
    const char *canon = builtin_canonical(name_or_file);
    if (canon) {
        const char *text = pt_embedded_find(pt_embedded_hw, canon);
        if (text) {
            char label[64];
            snprintf(label, sizeof label, "builtin %s", canon);
            return pt_hw_load_text(hw, label, text, strlen(text), err);
        }
    }
    /* Not a builtin, and nothing by that name on disk: if it does not look like a path it
     * was meant as a model name (a typo such as "H300"); list the names. */
    struct stat st;
    size_t nlen = strlen(name_or_file);
    if (stat(name_or_file, &st) != 0 && errno == ENOENT && !strchr(name_or_file, '/') &&
        !(nlen >= 5 && strcmp(name_or_file + nlen - 5, ".json") == 0)) {
        char list[128] = "";
        for (const char *const *n = builtin_names; *n; n++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     n == builtin_names ? "" : ", ", *n);
        char b[68];
        return pt_fail(err, "unknown hardware model \"%s\"; built-in: %s (or give a JSON file "
                       "path)", shown(name_or_file, b), list);
    }
    char *text = NULL;
    size_t len = 0;
    if (!pt_read_file(name_or_file, &text, &len, err))
        return false;
    bool ok = pt_hw_load_text(hw, name_or_file, text, len, err);
    free(text);
    return ok;
}

/* ---- writer --------------------------------------------------------------------------- */

/* cJSON prints doubles to 15 digits when that is "close enough" (within an epsilon), which
 * loses the last bits; write the shortest of %.15g / %.17g that reads back exactly. */
static void add_num(cJSON *obj, const char *key, double d)
{
    char buf[40];
    if (!isfinite(d))
        d = 0; /* cannot happen for a loaded model; JSON has no inf/nan */
    snprintf(buf, sizeof buf, "%.15g", d);
    if (strtod(buf, NULL) != d)
        snprintf(buf, sizeof buf, "%.17g", d);
    /* The GUI runs under the user's locale: JSON wants '.', whatever printf used. */
    char point = localeconv()->decimal_point[0];
    for (char *c = buf; *c; c++)
        if (*c == point && point != '.')
            *c = '.';
    cJSON_AddRawToObject(obj, key, buf);
}

/* An optional field at 0 means "not modelled" and is left out of the written model. */
static bool field_zero(const pt_hw *hw, const field *f)
{
    const char *p = (const char *)hw + f->offset;
    static const char zero[sizeof(int64_t)];
    return memcmp(p, zero, f->type == F_INT ? sizeof(int) : sizeof(int64_t)) == 0;
}

static void put_field(cJSON *root, const pt_hw *hw, const field *f)
{
    const char *base = (const char *)hw + f->offset;
    double d;
    if (f->type == F_NUM) {
        memcpy(&d, base, sizeof d);
    } else if (f->type == F_INT) {
        int i;
        memcpy(&i, base, sizeof i);
        d = i;
    } else {
        int64_t v;
        memcpy(&v, base, sizeof v);
        d = (double)v;
    }
    add_num(root, f->key, d);
}

static void put_seus(cJSON *root, const pt_hw *hw)
{
    cJSON *seus = cJSON_AddObjectToObject(root, "seus");
    for (int s = 0; s < PT_SEU_COUNT; s++) {
        const pt_seu_model *m = &hw->seu[s];
        if (!m->present)
            continue;
        cJSON *o = cJSON_AddObjectToObject(seus, pt_seu_name((pt_seu_kind)s));
        cJSON_AddBoolToObject(o, "async", m->async);
        add_num(o, "max_in_flight", m->max_in_flight);
        add_num(o, "issue_ns", m->issue_ns);
    }
}

static void put_cost(cJSON *arr, int kind, const char *dtype, const pt_cost *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", pt_stask_kind_name((pt_stask_kind)kind));
    cJSON_AddStringToObject(o, "dtype", dtype);
    add_num(o, "rate", c->rate);
    add_num(o, "latency_ns", c->latency_ns);
    if (c->peak_rate > 0)
        add_num(o, "peak_rate", c->peak_rate);
    if (!cJSON_AddItemToArray(arr, o))
        cJSON_Delete(o);
}

/* One "*" entry when every dtype costs the same, else one entry per supported dtype. */
static void put_costs(cJSON *root, const pt_hw *hw)
{
    cJSON *arr = cJSON_AddArrayToObject(root, "costs");
    for (int k = 0; k < PT_ST_KIND_COUNT; k++) {
        const pt_cost *c = hw->cost[k];
        bool uniform = c[0].rate > 0;
        for (int d = 1; d < PT_DTYPE_COUNT && uniform; d++)
            uniform = c[d].rate == c[0].rate && c[d].latency_ns == c[0].latency_ns &&
                      c[d].peak_rate == c[0].peak_rate;
        if (uniform) {
            put_cost(arr, k, "*", &c[0]);
            continue;
        }
        for (int d = 0; d < PT_DTYPE_COUNT; d++)
            if (c[d].rate > 0)
                put_cost(arr, k, pt_dtype_name((pt_dtype)d), &c[d]);
    }
}

char *pt_hw_to_json(const pt_hw *hw)
{
    if (!hw)
        return NULL;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON_AddStringToObject(root, "format", HW_FORMAT);
    add_num(root, "version", HW_VERSION);
    cJSON_AddStringToObject(root, "name", hw->name);
    cJSON_AddStringToObject(root, "vendor", hw->vendor);
    cJSON_AddStringToObject(root, "arch", hw->arch);
    cJSON_AddStringToObject(root, "source", hw->source);
    for (size_t i = 0; i < N_FIELDS; i++)
        if (!fields[i].optional || !field_zero(hw, &fields[i]))
            put_field(root, hw, &fields[i]);
    cJSON *mma = cJSON_AddObjectToObject(root, "mma");
    add_num(mma, "m", hw->mma_m);
    add_num(mma, "n_max", hw->mma_n_max);
    add_num(mma, "n_step", hw->mma_n_step);
    add_num(mma, "k_bytes", hw->mma_k_bytes);
    int n_cap = 0;
    for (int c = 1; c <= PT_HW_MAX_CLUSTER; c++)
        if (hw->cluster_capacity[c] > 0)
            n_cap = c;
    if (n_cap > 0) {
        cJSON *cl = cJSON_AddObjectToObject(root, "clusters");
        cJSON *cap = cJSON_AddArrayToObject(cl, "capacity");
        for (int c = 1; c <= n_cap; c++)
            cJSON_AddItemToArray(cap, cJSON_CreateNumber(hw->cluster_capacity[c]));
        add_num(cl, "sync_ns", hw->cluster_sync_ns);
    }
    put_seus(root, hw);
    put_costs(root, hw);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}

/* ---- cost ----------------------------------------------------------------------------- */

double pt_hw_duration(const pt_hw *hw, pt_stask_kind kind, pt_dtype dtype, double amount)
{
    if (!hw || (unsigned)kind >= PT_ST_KIND_COUNT || (unsigned)dtype >= PT_DTYPE_COUNT)
        return -1;
    const pt_cost *c = &hw->cost[kind][dtype];
    if (!(c->rate > 0))
        return -1;
    if (!(amount > 0)) /* negative or NaN work: nothing to do but the latency */
        amount = 0;
    return c->latency_ns + amount / c->rate;
}
