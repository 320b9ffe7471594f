/* json_util.h — reading JSON files with errors that name the file, line and JSON path.
 *
 * All loaders (graph, hardware, sProgram, trace) go through these so that every message
 * has the same shape: "<file>: <path>: <what is wrong>; expected <what>". Paths are written
 * JSONPath-style: $.ops[2].in[1]. */
#ifndef PT_JSON_UTIL_H
#define PT_JSON_UTIL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"

#define PT_JSON_MAX_FILE (64u << 20) /* refuse files over 64 MiB */
#define PT_JSON_MAX_DEPTH 64          /* refuse JSON nested deeper: no format needs 8 */
#define PT_PATH_MAX 256

/* Read a whole file (NUL-terminated, *len without the NUL). Only regular files of at most
 * PT_JSON_MAX_FILE bytes: a FIFO, device, socket or directory is refused without reading. */
bool pt_read_file(const char *path, char **text, size_t *len, pt_error *err);
/* The same with another size limit (binary trace buffers). */
bool pt_read_file_limit(const char *path, size_t max, char **text, size_t *len, pt_error *err);
/* Write a whole file atomically (temp file + rename) so a failed save never loses work; an
 * existing device or FIFO (/dev/null, /dev/full) is written in place. Every write error
 * (short write, close) is reported as "PATH: write failed: REASON". */
bool pt_write_file(const char *path, const char *text, pt_error *err);

/* Parse text; on a syntax error the message gives line, column and an excerpt. Text with NUL
 * bytes, nesting deeper than PT_JSON_MAX_DEPTH or a string holding \u0000 is refused. */
cJSON *pt_json_parse(const char *name, const char *text, size_t len, pt_error *err);

/* Copy a file path for later messages into a fixed buffer; an overlong one keeps its head
 * and its tail (the file name) with "..." in between. */
void pt_copy_path(char *dst, size_t cap, const char *src);

/* What a JSON file is, from its "format" or, without one, from its keys. Loaders call
 * pt_json_expect_kind first so that a file of the wrong kind is named as such ("x.json is an
 * sProgram, expected an operator graph (give it with --program)") instead of failing on its
 * first unknown key. The explorer opens files by the same test. */
typedef enum {
    PT_FILE_UNKNOWN,
    PT_FILE_GRAPH,
    PT_FILE_SPROGRAM,
    PT_FILE_HW,
    PT_FILE_TRACE,
    PT_FILE_STASK_GRAPH,
    PT_FILE_CALIBRATION,
    PT_FILE_CHROME_TRACE,
} pt_file_kind;

pt_file_kind pt_json_file_kind(const cJSON *root);
/* "an operator graph", "an sProgram", ... */
const char *pt_file_kind_name(pt_file_kind k);
/* False with "FILE is KIND, expected WANT (hint)" when root is recognisably another kind;
 * true when it is `want` or unrecognised (the loader's own checks then speak). */
bool pt_json_expect_kind(const cJSON *root, pt_file_kind want, const char *file, pt_error *err);
/* Read and parse a file only to tell its kind (PT_FILE_UNKNOWN if unreadable). */
pt_file_kind pt_file_sniff(const char *path);

/* Path building: pt_path_key(buf, parent, "ops") -> "$.ops"; pt_path_idx(buf, parent, 2). */
void pt_path_key(char *out, const char *parent, const char *key);
void pt_path_idx(char *out, const char *parent, int idx);

/* A short description of a value's type for messages: "a string", "an array", ... */
const char *pt_json_type(const cJSON *v);

/* Typed getters. Each takes the parent object, the key, the parent's path and the file
 * name for messages. `required` false: absent key leaves *out untouched and succeeds. */
bool pt_json_get_string(const cJSON *obj, const char *key, bool required, const char *file,
                        const char *path, const char **out, pt_error *err);
/* Copies into a fixed buffer; too long (>= cap) is an error. */
bool pt_json_get_name(const cJSON *obj, const char *key, bool required, const char *file,
                      const char *path, char *out, size_t cap, pt_error *err);
/* Integers must be whole numbers within [lo, hi]. */
bool pt_json_get_int(const cJSON *obj, const char *key, bool required, int64_t lo, int64_t hi,
                     const char *file, const char *path, int64_t *out, pt_error *err);
/* Numbers must be finite and within [lo, hi]. */
bool pt_json_get_number(const cJSON *obj, const char *key, bool required, double lo, double hi,
                        const char *file, const char *path, double *out, pt_error *err);
bool pt_json_get_bool(const cJSON *obj, const char *key, bool required, const char *file,
                      const char *path, bool *out, pt_error *err);
/* Object / array members: NULL with err set if present with the wrong type or absent when
 * required; NULL without error if absent and optional (check err->msg[0] is not needed:
 * *ok tells). */
const cJSON *pt_json_get_object(const cJSON *obj, const char *key, bool required,
                                const char *file, const char *path, bool *ok, pt_error *err);
const cJSON *pt_json_get_array(const cJSON *obj, const char *key, bool required,
                               const char *file, const char *path, bool *ok, pt_error *err);
/* Refuse keys not in the NULL-terminated list (typos must not pass silently). */
bool pt_json_check_keys(const cJSON *obj, const char *const *allowed, const char *file,
                        const char *path, pt_error *err);

#endif
