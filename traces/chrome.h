/* chrome.h — export a timeline as Chrome trace-event JSON (opens in Perfetto and
 * chrome://tracing).
 *
 * One process per EU ("EU 0 (predicted)"), one thread per lane in lane order, one complete
 * event per sTask instance (ts/dur in microseconds), and flow arrows for every dependency
 * that crosses lanes (data dependencies and Waits). A profile adds one process per sampled
 * CTA ("CTA b on SM s (measured)") with one thread per lane and one complete event per
 * measured span. */
#ifndef PT_CHROME_H
#define PT_CHROME_H

#include "sim.h"
#include "timeline_json.h"

/* `label` names the process, "EU 0 (<label>)"; NULL means "predicted". p and sg must be the
 * program and sTask-graph the timeline was simulated from. Returns malloc'd JSON text, or
 * NULL when out of memory or an argument is missing. */
char *pt_chrome_trace(const pt_timeline *tl, const pt_sprogram *p, const pt_stask_graph *sg,
                      const char *label);

/* Predicted and measured together: the predicted EU (pid 0, flows as above) shifted to start
 * where the first sampled CTA starts, then one process per sampled CTA of m (pid 1 + c), whose
 * times are those of the measured trace (ns from its origin). m may be NULL or not present. */
char *pt_chrome_trace_profile(const pt_timeline *tl, const pt_sprogram *p,
                              const pt_stask_graph *sg, const pt_measured *m);

#endif
