/* bundle_hip.c — the bundle of a HIP target (gfx942, MI300X): the backend's kernel.hip and
 * launch.c, an f32 reference in HIP (reference.hip, reference_hip.c: single matmuls and
 * attention, the graphs a HIP target generates), the device library kernel.hip includes, the fixed HIP harness
 * (codegen/host_hip/), the graph table the CUDA bundles use too, a Makefile for hipcc and a
 * README that says the bundle has never run. Layout of DIR:
 *   kernel.hip, launch.c            the kernel and pt_kernel_launch (hipModuleLaunchKernel)
 *   pt_device_hip.h, pt_tile_hip.h, raster.h   the device library and the tile order
 *   reference.hip                   pt_reference_run: the output in f32
 *   harness.hip, pt_harness_hip.h, graph_table.h, tensors.json, Makefile, README.md */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle_hip.h"
#include "bundle_parts.h"
#include "reference_hip.h"
#include "embedded.h"
#include "strbuf.h"

extern const pt_embedded_file pt_embedded_device[];
extern const pt_embedded_file pt_embedded_host_hip[];

const char pt_bundle_hip_file_list[] = "kernel.hip launch.c pt_device_hip.h pt_tile_hip.h raster.h "
                                       "reference.hip "
                                       "harness.hip pt_harness_hip.h graph_table.h tensors.json "
                                       "Makefile README.md";

static bool write_fixed(const char *dir, const pt_embedded_file *set, const char *const *names,
                        int n, pt_error *err)
{
    for (int i = 0; i < n; i++) {
        const char *text = pt_embedded_find(set, names[i]);
        if (!text)
            return pt_fail(err, "codegen: %s is missing from this build of the library", names[i]);
        if (!pt_bundle_write(dir, names[i], text, err))
            return false;
    }
    return true;
}

bool pt_bundle_hip(const char *dir, const pt_sprogram *p, const pt_stask_graph *sg,
                   const pt_hw *hw, const pt_backend *be, pt_codegen_result *info, pt_error *err)
{
    static const char *const device[] = {"pt_device_hip.h", "pt_tile_hip.h", "raster.h"};
    static const char *const host[] = {"harness.hip", "pt_harness_hip.h"};
    const pt_graph *g = sg->graph;
    pt_codegen_result k;
    memset(&k, 0, sizeof k);
    if (!be->generate(p, sg, hw, &k, err))
        return false;
    pt_error terr = {{0}};
    char *ref = pt_reference_hip(g, &terr);
    char *table = pt_bundle_graph_table(sg, &k, be->name);
    char *tensors = pt_bundle_tensors_json(sg, &k);
    char *makefile = ref ? pt_bundle_makefile(g, be, "Makefile.in",
                                              pt_embedded_find(pt_embedded_host_hip, "Makefile.in"), &terr)
                         : NULL;
    char *readme = makefile ? pt_bundle_readme(p, sg, hw, &k, be, "README.md.in",
                                               pt_embedded_find(pt_embedded_host_hip, "README.md.in"), &terr)
                            : NULL;
    bool ok = (readme ? true : pt_fail(err, "%s", terr.msg)) && pt_bundle_make_dirs(dir, err) &&
              pt_bundle_write(dir, "kernel.hip", k.kernel_cu, err) &&
              pt_bundle_write(dir, "launch.c", k.host_c, err) &&
              pt_bundle_write(dir, "reference.hip", ref, err) &&
              pt_bundle_write(dir, "graph_table.h", table, err) &&
              pt_bundle_write(dir, "tensors.json", tensors, err) &&
              write_fixed(dir, pt_embedded_device, device, 3, err) &&
              write_fixed(dir, pt_embedded_host_hip, host, 2, err) &&
              pt_bundle_write(dir, "Makefile", makefile, err) &&
              pt_bundle_write(dir, "README.md", readme, err);
    free(ref);
    free(table);
    free(tensors);
    free(makefile);
    free(readme);
    pt_codegen_result_free(&k);
    if (ok && info)
        *info = k; /* launch shape and summary; the texts were freed above */
    return ok;
}
