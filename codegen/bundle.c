/* bundle.c — the standalone bundle: generated kernel, its reference, a checking and timing
 * harness, a Makefile that needs only nvcc, and a README.
 *
 * Layout of DIR:
 *   kernel.cu, launch.c          the backend's kernel and host launcher (pt_kernel_launch)
 *   pt_device.cuh, pt_wgmma.cuh, pt_tile.cuh, pt_dequant.cuh, pt_ssd.cuh, pt_combine.cuh
 *                                the device library kernel.cu includes (codegen/device/)
 *   trace_abi.h                  the trace buffer's layout (device header, harness, launcher)
 *   raster.h                     the tile launch order, shared with the simulator (src/)
 *   reference.cu, reference_host.c  the f32 reference (pt_reference_run)
 *   harness.c                    generic driver-API main + a generated table of the graph's tensors
 *   Makefile, README.md
 * The harness's fixed part (codegen/host/) is written out as it is, the Makefile and README from
 * templates there (Makefile.in, README.md.in) with this bundle's values filled in; the table
 * of tensors, sizes, tolerances and launch numbers is generated per graph (those pieces, which a
 * HIP target's bundle shares, are bundle_parts.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bundle_hip.h"
#include "bundle_parts.h"
#include "codegen.h"
#include "embedded.h"
#include "trace_abi.h"

/* The harness sizes the trace buffer with these numbers (it stands alone, without
 * trace_abi.h): keep them in step. */
_Static_assert(sizeof(pt_trace_header) == 64, "harness trace_buffer_bytes: header is 64 bytes");
_Static_assert(sizeof(pt_trace_role_header) == 48, "harness trace_buffer_bytes: role header is 48 bytes");
_Static_assert(sizeof(pt_trace_record) == 16, "harness trace_buffer_bytes: a record is 16 bytes");

/* The harness's fixed part (codegen/host/: harness.c, pt_harness.h, baseline_cublaslt.c) is
 * compiled into the library and written out verbatim; only graph_table.h is generated. */
extern const pt_embedded_file pt_embedded_host[];
extern const pt_embedded_file pt_embedded_device[];

static const char *const host_files[] = {"harness.c", "pt_harness.h", "baseline_cublaslt.c"};

const char *const pt_bundle_files[] = {"kernel.cu", "pt_device.cuh", "pt_wgmma.cuh", "pt_tile.cuh", "pt_dequant.cuh", "pt_ssd.cuh",
                                       "pt_combine.cuh", "trace_abi.h", "raster.h", "launch.c",
                                       "reference.cu", "reference_host.c",
                                       "harness.c", "pt_harness.h", "graph_table.h",
                                       "baseline_cublaslt.c", "tensors.json", "Makefile", "README.md", NULL};

const char *pt_bundle_file_list(void)
{
    static char list[320];
    if (!list[0])
        for (int i = 0; pt_bundle_files[i]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "",
                     pt_bundle_files[i]);
    return list;
}

/* The device library kernel.cu includes, and the harness's fixed files, as compiled into the
 * library. */
static bool write_host_files(const char *dir, pt_error *err)
{
    static const char *const device_files[] = {"pt_device.cuh", "pt_wgmma.cuh", "pt_tile.cuh", "pt_dequant.cuh", "pt_ssd.cuh",
                                               "pt_combine.cuh", "trace_abi.h", "raster.h"};
    for (size_t i = 0; i < sizeof device_files / sizeof device_files[0]; i++) {
        const char *text = pt_embedded_find(pt_embedded_device, device_files[i]);
        if (!text)
            return pt_fail(err, "codegen: %s is missing from this build of the library", device_files[i]);
        if (!pt_bundle_write(dir, device_files[i], text, err))
            return false;
    }
    for (size_t i = 0; i < sizeof host_files / sizeof host_files[0]; i++) {
        const char *text = pt_embedded_find(pt_embedded_host, host_files[i]);
        if (!text)
            return pt_fail(err, "codegen: %s is missing from this build of the library", host_files[i]);
        if (!pt_bundle_write(dir, host_files[i], text, err))
            return false;
    }
    return true;
}

bool pt_codegen_bundle(const char *dir, const pt_sprogram *p, const pt_stask_graph *sg,
                       const pt_hw *hw, const char *target, pt_codegen_result *info,
                       pt_error *err)
{
    const pt_backend *be;
    if (!pt_backend_lookup(target, "codegen: ", &be, err))
        return false;
    if (strcmp(hw->arch, be->arch) != 0)
        return pt_fail(err, "codegen: target %s needs an %s hardware model; \"%s\" is %s",
                       be->name, be->arch, hw->name, hw->arch);
    if (be->hip) /* a HIP target: its own host files (codegen/bundle_hip.c) */
        return pt_bundle_hip(dir, p, sg, hw, be, info, err);
    const pt_graph *g = sg->graph;
    for (int t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].role == PT_ROLE_OUTPUT && pt_dtype_is_4bit(g->tensors[t].dtype))
            return pt_fail(err, "codegen: output \"%s\" is %s; the harness checks f16, bf16, "
                                "f32 and fp8 outputs only", g->tensors[t].name,
                           pt_dtype_name(g->tensors[t].dtype));

    pt_codegen_result k, r;
    memset(&k, 0, sizeof k);
    memset(&r, 0, sizeof r);
    if (!be->generate(p, sg, hw, &k, err))
        return false;
    if (!pt_codegen_reference_for(g, p->decay, &sg->tiling, &r, err)) {
        pt_codegen_result_free(&k);
        return false;
    }
    char *table = pt_bundle_graph_table(sg, &k, target);
    char *tensors = pt_bundle_tensors_json(sg, &k);
    pt_error terr = {{0}};
    char *makefile = pt_bundle_makefile(g, be, "Makefile.in",
                                        pt_embedded_find(pt_embedded_host, "Makefile.in"), &terr);
    char *readme = makefile ? pt_bundle_readme(p, sg, hw, &k, be, "README.md.in",
                                               pt_embedded_find(pt_embedded_host, "README.md.in"),
                                               &terr)
                            : NULL;
    bool ok = (makefile && readme ? true : pt_fail(err, "%s", terr.msg)) && pt_bundle_make_dirs(dir, err) && pt_bundle_write(dir, "kernel.cu", k.kernel_cu, err) &&
              pt_bundle_write(dir, "launch.c", k.host_c, err) &&
              pt_bundle_write(dir, "reference.cu", r.kernel_cu, err) &&
              pt_bundle_write(dir, "reference_host.c", r.host_c, err) &&
              pt_bundle_write(dir, "graph_table.h", table, err) && write_host_files(dir, err) &&
              pt_bundle_write(dir, "tensors.json", tensors, err) &&
              pt_bundle_write(dir, "Makefile", makefile, err) && pt_bundle_write(dir, "README.md", readme, err);
    free(table);
    free(tensors);
    free(makefile);
    free(readme);
    pt_codegen_result_free(&k);
    pt_codegen_result_free(&r);
    if (ok && info) {
        *info = k; /* launch shape and summary; the texts were freed above */
    }
    return ok;
}
