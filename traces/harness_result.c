/* harness_result.c — the bundle harness's JSON line (README.md of a bundle lists the
 * fields) read into a pt_harness_result, and its kernel timing for a measured trace. */
#include "runner.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "measured.h"

/* A number member, or NaN when null or absent; an error when it is something else. */
static bool h_num(const cJSON *o, const char *key, const char *name, const char *path,
                  double *out, pt_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NAN;
    if (!v || cJSON_IsNull(v))
        return true;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return pt_fail(err, "%s: %s.%s: is %s; expected a number or null", name, path, key,
                       pt_json_type(v));
    *out = v->valuedouble;
    return true;
}

static bool h_int(const cJSON *o, const char *key, const char *name, const char *path,
                  int64_t *out, pt_error *err)
{
    double d;
    if (!h_num(o, key, name, path, &d, err))
        return false;
    if (isnan(d)) {
        *out = -1;
        return true;
    }
    if (d != floor(d) || d < 0 || d > 9007199254740992.0)
        return pt_fail(err, "%s: %s.%s: %g; expected a whole number >= 0", name, path, key, d);
    *out = (int64_t)d;
    return true;
}

/* A GPU timestamp (ns, ~1e18: beyond a double's 53 bits): its digits read from the text. */
static bool h_u64(const cJSON *o, const char *key, const char *text, size_t len,
                  const char *name, const char *path, uint64_t *out, bool *have, pt_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *have = false;
    if (!v || cJSON_IsNull(v))
        return true;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble < 1.8e19))
        return pt_fail(err, "%s: %s.%s: is %s; expected a timestamp in ns (0 to 1.8e19) or null",
                       name, path, key, cJSON_IsNumber(v) ? "out of range" : pt_json_type(v));
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    size_t pl = strlen(pat);
    for (size_t i = 0; i + pl < len; i++) {
        if (memcmp(text + i, pat, pl) != 0)
            continue;
        size_t j = i + pl;
        while (j < len && (text[j] == ' ' || text[j] == ':' || text[j] == '\t'))
            j++;
        uint64_t x = 0;
        size_t d = 0;
        while (j < len && text[j] >= '0' && text[j] <= '9' && d < 19) { /* 19 digits fit */
            x = x * 10 + (uint64_t)(text[j] - '0');
            j++;
            d++;
        }
        if (d > 0 && (j >= len || text[j] < '0' || text[j] > '9') &&
            (j >= len || (text[j] != '.' && text[j] != 'e' && text[j] != 'E'))) {
            *out = x;
            *have = true;
            return true;
        }
        break;
    }
    /* written some other way (exponent): as close as a double gets */
    *out = (uint64_t)v->valuedouble;
    *have = true;
    return true;
}

bool pt_harness_parse(pt_harness_result *h, const char *name, const char *text, size_t len,
                      pt_error *err)
{
    memset(h, 0, sizeof *h);
    cJSON *root = pt_json_parse(name, text, len, err);
    if (!root)
        return false;
    bool ok = true;
    const char *P = "$";
    if (!cJSON_IsObject(root))
        ok = pt_fail(err, "%s: $: is %s; expected the harness's JSON object", name,
                     pt_json_type(root));
    const cJSON *c = ok ? cJSON_GetObjectItemCaseSensitive(root, "correct") : NULL;
    if (ok) {
        if (!c || !(cJSON_IsBool(c) || cJSON_IsNull(c)))
            ok = pt_fail(err, "%s: $.correct: is %s; expected true, false or null", name,
                         c ? pt_json_type(c) : "missing");
        else
            h->correct = cJSON_IsNull(c) ? -1 : cJSON_IsTrue(c) ? 1 : 0;
    }
    static const struct {
        const char *key;
        size_t off, cap;
    } strs[] = {{"graph", offsetof(pt_harness_result, graph), 64},
                {"kernel", offsetof(pt_harness_result, kernel), 64},
                {"timing", offsetof(pt_harness_result, timing), 16}};
    for (size_t i = 0; ok && i < sizeof strs / sizeof strs[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, strs[i].key);
        if (!v || cJSON_IsNull(v))
            continue;
        if (!cJSON_IsString(v))
            ok = pt_fail(err, "%s: $.%s: is %s; expected a string or null", name, strs[i].key,
                         pt_json_type(v));
        else
            snprintf((char *)h + strs[i].off, strs[i].cap, "%s", v->valuestring);
    }
    ok = ok && h_int(root, "mismatches", name, P, &h->mismatches, err) &&
         h_int(root, "elements", name, P, &h->elements, err) &&
         h_num(root, "max_abs_err", name, P, &h->max_abs_err, err) &&
         h_num(root, "rel_err", name, P, &h->rel_err, err) &&
         h_num(root, "time_ms_median", name, P, &h->time_ms_median, err) &&
         h_num(root, "time_ms_min", name, P, &h->time_ms_min, err) &&
         h_num(root, "time_ms_max", name, P, &h->time_ms_max, err) &&
         h_num(root, "trace_time_ms_median", name, P, &h->trace_time_ms_median, err) &&
         h_num(root, "trace_time_ms_min", name, P, &h->trace_time_ms_min, err) &&
         h_num(root, "trace_time_ms_max", name, P, &h->trace_time_ms_max, err) &&
         h_int(root, "iters", name, P, &h->iters, err) &&
         h_int(root, "grid", name, P, &h->grid, err) &&
         h_int(root, "block", name, P, &h->block, err) &&
         h_int(root, "smem", name, P, &h->smem, err) &&
         h_int(root, "trace_bytes", name, P, &h->trace_bytes, err);
    bool a = false, b = false;
    ok = ok && h_u64(root, "trace_kernel_start_ns", text, len, name, P, &h->trace_kernel_start_ns,
                     &a, err) &&
         h_u64(root, "trace_kernel_end_ns", text, len, name, P, &h->trace_kernel_end_ns, &b, err);
    if (ok && a && b) {
        if (h->trace_kernel_end_ns < h->trace_kernel_start_ns)
            ok = pt_fail(err, "%s: $.trace_kernel_end_ns: %llu is before trace_kernel_start_ns "
                         "%llu; expected end >= start", name,
                         (unsigned long long)h->trace_kernel_end_ns,
                         (unsigned long long)h->trace_kernel_start_ns);
        h->has_trace_kernel = true;
    }
    const cJSON *cu = ok ? cJSON_GetObjectItemCaseSensitive(root, "cupti") : NULL;
    if (ok && cu && !cJSON_IsNull(cu)) {
        const char *C = "$.cupti";
        bool s1 = false, s2 = false;
        if (!cJSON_IsObject(cu))
            ok = pt_fail(err, "%s: $.cupti: is %s; expected an object or null", name,
                         pt_json_type(cu));
        ok = ok && h_num(cu, "median_ms", name, C, &h->cupti_median_ms, err) &&
             h_num(cu, "min_ms", name, C, &h->cupti_min_ms, err) &&
             h_num(cu, "max_ms", name, C, &h->cupti_max_ms, err) &&
             h_int(cu, "records", name, C, &h->cupti_records, err) &&
             h_int(cu, "registers", name, C, &h->cupti_registers, err) &&
             h_int(cu, "smem", name, C, &h->cupti_smem, err) &&
             h_int(cu, "grid", name, C, &h->cupti_grid, err) &&
             h_int(cu, "block", name, C, &h->cupti_block, err) &&
             h_u64(cu, "start_ns_first", text, len, name, C, &h->cupti_start_ns_first, &s1, err) &&
             h_u64(cu, "end_ns_first", text, len, name, C, &h->cupti_end_ns_first, &s2, err);
        if (ok && isnan(h->cupti_median_ms))
            ok = pt_fail(err, "%s: $.cupti.median_ms: is missing; expected the median kernel "
                         "time in ms", name);
        h->has_cupti = ok;
    }
    cJSON_Delete(root);
    return ok;
}

void pt_harness_to_mkernel(const pt_harness_result *h, pt_mkernel *k)
{
    memset(k, 0, sizeof *k);
    snprintf(k->timing, sizeof k->timing, "%s", h->timing);
    k->iters = h->iters > 0 ? h->iters : 0;
    k->plain_ms_median = h->time_ms_median;
    k->plain_ms_min = h->time_ms_min;
    k->plain_ms_max = h->time_ms_max;
    k->instr_ms_median = h->trace_time_ms_median;
    k->instr_ms_min = h->trace_time_ms_min;
    k->instr_ms_max = h->trace_time_ms_max;
    k->overhead_pct = pt_error_pct(h->trace_time_ms_median, h->time_ms_median);
    k->has_cupti = h->has_cupti;
    k->cupti_ms_median = h->has_cupti ? h->cupti_median_ms : NAN;
    k->cupti_ms_min = h->has_cupti ? h->cupti_min_ms : NAN;
    k->cupti_ms_max = h->has_cupti ? h->cupti_max_ms : NAN;
    k->cupti_registers = h->has_cupti && h->cupti_registers > 0 ? h->cupti_registers : 0;
    k->cupti_smem = h->has_cupti && h->cupti_smem > 0 ? h->cupti_smem : 0;
    k->cupti_grid = h->has_cupti && h->cupti_grid > 0 ? h->cupti_grid : 0;
    k->cupti_block = h->has_cupti && h->cupti_block > 0 ? h->cupti_block : 0;
    k->traced_kernel_ns = h->has_trace_kernel
                              ? (double)(h->trace_kernel_end_ns - h->trace_kernel_start_ns)
                              : NAN;
}
