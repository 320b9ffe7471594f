/* chrome.h — export a timeline as Chrome trace-event JSON (opens in Perfetto and
 * chrome://tracing).
 *
 * One process per EU ("EU 0 (predicted)"), one thread per lane in lane order, one complete
 * event per sTask instance (ts/dur in microseconds), and flow arrows for every dependency
 * that crosses lanes (data dependencies and Waits). */
#ifndef PT_CHROME_H
#define PT_CHROME_H

#include "sim.h"

/* `label` names the process, "EU 0 (<label>)"; NULL means "predicted". p and sg must be the
 * program and sTask-graph the timeline was simulated from. Returns malloc'd JSON text, or
 * NULL when out of memory or an argument is missing. */
char *pt_chrome_trace(const pt_timeline *tl, const pt_sprogram *p, const pt_stask_graph *sg,
                      const char *label);

#endif
