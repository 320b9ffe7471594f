/* pass_bodies.c — what each consumer sTask computes, what it reads and what it writes.
 *
 * The body of an sTask follows from its kind: an mma multiplies two operands, the online-softmax
 * pieces reduce and rescale rows. Its operands are found in the graph: an input tensor that is
 * loaded is read from its shared-memory buffer; one produced by another op of the kernel (the
 * scores S, the probabilities P) is a register value. A value made anew each iteration lives in
 * a ring of register slots (pass_step sizes it); an accumulator (the output's, the running row
 * sum) is carried over the loop. This table is where a new workload starts: a new sTask kind
 * gets a body here and one device call per target. */
#include <string.h>

#include "passes.h"

const char *pt_kbody_name(pt_kbody b)
{
    static const char *const names[PT_KB_KINDS] = {"mma",     "row_max", "exp_rows", "row_sum",
                                                   "rescale", "convert", "normalize", "dequant",
                                                   "lse",     "reduce",  "ewise",     "exp_decay"};
    return b >= 0 && b < PT_KB_KINDS ? names[b] : "?";
}

/* The value (kind, tensor, op), made on first use. */
static int val_of(pt_kprog *kp, pt_kval_kind kind, int tensor, int op)
{
    for (int i = 0; i < kp->n_vals; i++)
        if (kp->vals[i].kind == kind && kp->vals[i].tensor == tensor &&
            (tensor >= 0 || kp->vals[i].op == op))
            return i;
    if (kp->n_vals == PT_KP_MAX_VALS)
        return -1; /* refused by the caller, which names the sTask */
    kp->vals[kp->n_vals] = (pt_kval){kind, tensor, op, 1};
    return kp->n_vals++;
}

/* Is tensor t read by an op of the graph (an intermediate), rather than only stored? */
static bool consumed(const pt_graph *g, int t)
{
    for (int o = 0; o < g->n_ops; o++)
        for (int i = 0; i < g->ops[o].n_in; i++)
            if (g->ops[o].in[i] == t)
                return true;
    return false;
}

/* The op reading tensor t, -1. */
static int reader_op(const pt_graph *g, int t)
{
    for (int o = 0; o < g->n_ops; o++)
        for (int i = 0; i < g->ops[o].n_in; i++)
            if (g->ops[o].in[i] == t)
                return o;
    return -1;
}

/* Does op reduce over the loop's axis (accumulate across iterations)? */
static bool reduces_loop(const pt_kprog *kp, const pt_op *op)
{
    for (int i = 0; i < op->n_reduce; i++)
        if (op->reduce_axes[i] == kp->sg->loop_axis && kp->sg->loop_axis >= 0)
            return true;
    return false;
}

/* The online softmax that op is, or whose output op reads first; -1. */
static int softmax_of(const pt_graph *g, int op)
{
    if (op < 0)
        return -1;
    if (g->ops[op].kind == PT_OP_ONLINE_SOFTMAX)
        return op;
    for (int o = 0; o < g->n_ops; o++)
        if (g->ops[o].kind == PT_OP_ONLINE_SOFTMAX && g->ops[op].n_in > 0 &&
            g->ops[o].out == g->ops[op].in[0])
            return o;
    return -1;
}

/* Where tensor t comes from for a task: its buffer, or the value of the op producing it. */
static pt_ksrc source(pt_kprog *kp, int t)
{
    int b = pt_kprog_buf_of(kp, t);
    if (b >= 0)
        return (pt_ksrc){PT_KSRC_BUF, b};
    for (int i = 0; i < kp->n_vals; i++)  /* an accumulator the loop carries, read after it */
        if (kp->vals[i].tensor == t)
            return (pt_ksrc){PT_KSRC_VAL, i};
    int v = val_of(kp, PT_KVAL_ITER, t, -1);
    return (pt_ksrc){v < 0 ? PT_KSRC_NONE : PT_KSRC_VAL, v};
}

/* The accumulator of the op that consumes the softmax's output (O of P.V). */
static int acc_after(pt_kprog *kp, int softmax_op)
{
    int o = reader_op(kp->g, kp->g->ops[softmax_op].out);
    return o < 0 ? -1 : val_of(kp, PT_KVAL_CARRIED, kp->g->ops[o].out, -1);
}

/* A dequantised tile along the tensor-core rows (pt_stask_dequant_rows): the warpgroup turns
 * its rows of the packed and scale stages into the registers its mma reads as the row operand. */
static void rows_dequant_body(pt_kprog *kp, pt_ktask *t, const pt_op *op)
{
    const pt_tensor *q = &kp->g->tensors[op->in[0]];
    t->body = PT_KB_DEQUANT;
    t->in[t->n_in++] = source(kp, op->in[0]);
    if (q->scales >= 0)
        t->in[t->n_in++] = source(kp, q->scales);
    t->out = val_of(kp, PT_KVAL_ITER, op->out, -1);
}

#define IN(src) t->in[t->n_in++] = (src)
#define VAL(i) ((pt_ksrc){PT_KSRC_VAL, (i)})

static bool body(pt_kprog *kp, pt_ktask *t, const char *who, pt_error *err)
{
    const pt_stask *st = &kp->sg->tasks[t->stask];
    const pt_graph *g = kp->g;
    const pt_op *op = t->op >= 0 ? &g->ops[t->op] : NULL;
    t->n_in = 0;
    t->out = -1;
    t->out_buf = -1;
    /* the softmax pieces belong to the softmax op; rescale and normalize to the matmul after
     * it, and read the softmax's state */
    int sm = softmax_of(g, t->op), state = -1, sum = -1;
    if (sm >= 0) {
        state = val_of(kp, PT_KVAL_ITER, -1, sm);
        sum = val_of(kp, PT_KVAL_CARRIED, -1, sm);
    }
    switch (st->kind) {
    case PT_ST_MMA:
        t->body = PT_KB_MMA;
        t->async = kp->hw->seu[PT_SEU_TENSOR_CORE].async;
        IN(source(kp, op->in[0]));
        IN(source(kp, op->in[1]));
        /* a product over the loop's axis accumulates across iterations; any other one (the
         * scores of attention, a prologue product) is made anew where it is issued */
        t->out = val_of(kp, consumed(g, op->out) && !reduces_loop(kp, op) ? PT_KVAL_ITER
                                                                           : PT_KVAL_CARRIED,
                        op->out, -1);
        break;
    case PT_ST_SOFTMAX_MAX:
        t->body = PT_KB_ROW_MAX;
        IN(source(kp, op->in[0]));
        t->out = state;
        break;
    case PT_ST_SOFTMAX_EXP:
        t->body = PT_KB_EXP_ROWS;
        IN(source(kp, op->in[0]));
        IN(VAL(state));
        t->out = val_of(kp, PT_KVAL_ITER, op->out, -1);
        break;
    case PT_ST_SOFTMAX_SUM:
        t->body = PT_KB_ROW_SUM;
        IN(source(kp, op->in[0]));
        IN(VAL(state));
        t->out = sum;
        break;
    case PT_ST_RESCALE:
        if (sm < 0)
            KREFUSE("%s: %s rescales without an online softmax before it", who, st->id);
        t->body = PT_KB_RESCALE;
        IN(VAL(state));
        t->out = sm < 0 ? -1 : acc_after(kp, sm);
        break;
    case PT_ST_CONVERT:
        t->body = PT_KB_CONVERT;
        IN(VAL(val_of(kp, PT_KVAL_CARRIED, kp->bufs[kp->staging].tensor, -1)));
        break;
    case PT_ST_NORMALIZE:
        if (sm < 0)
            KREFUSE("%s: %s normalizes without an online softmax before it", who, st->id);
        t->body = PT_KB_NORMALIZE;
        IN(VAL(val_of(kp, PT_KVAL_CARRIED, kp->bufs[kp->staging].tensor, -1)));
        IN(VAL(sum));
        break;
    case PT_ST_REDUCE:
        if (kp->sg->loop_axis >= 0)
            KREFUSE("%s: sTask %s (reduce) is generated only in a graph without a reduction loop",
                    who, st->id);
        t->body = PT_KB_REDUCE;
        IN(source(kp, op->in[0]));
        t->out = val_of(kp, PT_KVAL_ITER, op->out, -1);
        break;
    case PT_ST_EXP_DECAY:
        if (op->n_in != 2)
            KREFUSE("%s: sTask %s (exp_decay) is generated from a row and a column vector (two "
                    "inputs)", who, st->id);
        t->body = PT_KB_EXP_DECAY;
        IN(source(kp, op->in[0]));
        IN(source(kp, op->in[1]));
        t->out = val_of(kp, PT_KVAL_ITER, op->out, -1);
        break;
    case PT_ST_DEQUANT:
        rows_dequant_body(kp, t, op);
        break;
    case PT_ST_ELEMENTWISE:
        if (sm < 0) {
            /* loop-free (a combine), a loop body's pointwise piece (Mamba2's decay and dt
             * scaling), a prologue value or the epilogue's sum of two tiles (ChunkScan's
             * y_inter + y_intra): a value the target computes on the CUDA cores */
            t->body = PT_KB_EWISE;
            for (int i = 0; i < op->n_in && i < PT_KTASK_INS; i++)
                IN(source(kp, op->in[i]));
            if (op->out != kp->bufs[kp->staging].tensor)
                t->out = val_of(kp, PT_KVAL_ITER, op->out, -1);
            break;
        }
        if (sm < 0 || g->ops[sm].lse != st->tensor || kp->rows < 0)
            KREFUSE("%s: sTask %s (%s) has no generated body yet (only an online softmax's "
                    "log-sum-exp is generated as an elementwise epilogue)", who, st->id,
                    pt_stask_kind_name(st->kind));
        t->body = PT_KB_LSE;
        IN(VAL(state));
        IN(VAL(sum));
        break;
    default:
        KREFUSE("%s: sTask %s (%s) has no generated body yet (dequantising and Mamba2 sTasks are "
                "later work)", who, st->id, pt_stask_kind_name(st->kind));
    }
    bool epi = t->body == PT_KB_CONVERT || t->body == PT_KB_NORMALIZE || t->body == PT_KB_LSE ||
               (t->body == PT_KB_EWISE && op->out == kp->bufs[kp->staging].tensor);
    if (t->out < 0 && !epi)
        KREFUSE("%s: more than %d register values per warpgroup (at %s)", who, PT_KP_MAX_VALS,
                st->id);
    for (int i = 0; i < t->n_in; i++)
        if (t->in[i].kind == PT_KSRC_NONE || (t->in[i].kind == PT_KSRC_VAL && t->in[i].index < 0))
            KREFUSE("%s: an operand of %s is neither loaded nor computed in this kernel", who,
                    st->id);
    return true;
}

#undef IN
#undef VAL

/* The producer's dequantisation: its packed tensor's and its scales' rings in, the ring of
 * the dequantised tile out. */
static bool dequant_body(pt_kprog *kp, pt_ktask *t, const char *who, pt_error *err)
{
    const pt_stask *st = &kp->sg->tasks[t->stask];
    const pt_op *op = &kp->g->ops[t->op];
    const pt_tensor *q = &kp->g->tensors[op->in[0]];
    t->body = PT_KB_DEQUANT;
    t->n_in = 0;
    t->out = -1;
    int bq = pt_kprog_buf_of(kp, op->in[0]), bs = q->scales >= 0 ? pt_kprog_buf_of(kp, q->scales) : -1;
    t->out_buf = pt_kprog_buf_of(kp, op->out);
    if (bq < 0 || bs < 0 || kp->bufs[bq].kind != PT_KBUF_RING || kp->bufs[bs].kind != PT_KBUF_RING)
        KREFUSE("%s: %s dequantises %s; expected %s and its scales loaded per iteration into "
                "rings", who, st->id, q->name, q->name);
    t->in[t->n_in++] = (pt_ksrc){PT_KSRC_BUF, bq};
    t->in[t->n_in++] = (pt_ksrc){PT_KSRC_BUF, bs};
    return true;
}

/* A ring read on the consumers' CUDA cores (a synchronous task: Mamba2's decay vectors and the
 * tile it scales) is released by every consumer warp once the warp read it, since no wgmma wait
 * says when all of a warpgroup's threads are done; a ring is read one way or the other. */
static bool cuda_core_readers(pt_kprog *kp, const char *who, pt_error *err)
{
    for (int b = 0; b < kp->n_bufs; b++) {
        bool sync = false, async = false;
        for (int w = 0; w < kp->wgs; w++)
            for (int i = 0; i < kp->consumer[w].n_tasks; i++) {
                const pt_ktask *t = &kp->consumer[w].tasks[i];
                for (int k = 0; k < t->n_in; k++)
                    if (t->in[k].kind == PT_KSRC_BUF && t->in[k].index == b &&
                        kp->bufs[b].kind == PT_KBUF_RING) {
                        sync |= !t->async;
                        async |= t->async;
                    }
            }
        if (sync && async)
            KREFUSE("%s: %s is read both by a tensor-core and a CUDA-core sTask of the loop; "
                    "generated kernels release a stage after one kind of reader", who,
                    kp->g->tensors[kp->bufs[b].tensor].name);
        if (sync)
            kp->bufs[b].readers = 4 * kp->wgs;
    }
    return true;
}

bool pt_kpass_bodies(pt_kprog *kp, const char *who, pt_error *err)
{
    for (int i = 0; i < kp->producer.n_tasks; i++)
        if (!dequant_body(kp, &kp->producer.tasks[i], who, err))
            return false;
    for (int w = 0; w < kp->wgs; w++) {
        pt_krole *R = &kp->consumer[w];
        for (int i = 0; i < R->n_tasks; i++)
            if (!body(kp, &R->tasks[i], who, err))
                return false;
        for (int i = 0; i < R->n_pro; i++)
            if (!body(kp, &R->pro[i], who, err))
                return false;
        if (!body(kp, &R->epilogue, who, err))
            return false;
        if (R->rows_task.stask >= 0 && !body(kp, &R->rows_task, who, err))
            return false;
        if (R->rows_task.stask >= 0 && R->rows_task.body != PT_KB_LSE)
            KREFUSE("%s: %s writes %s; expected the softmax's log-sum-exp", who,
                    kp->sg->tasks[R->rows_task.stask].id,
                    kp->g->tensors[kp->bufs[kp->rows].tensor].name);
        if (R->epilogue.body != PT_KB_CONVERT && R->epilogue.body != PT_KB_NORMALIZE &&
            R->epilogue.body != PT_KB_EWISE)
            KREFUSE("%s: %s is warpgroup %d's epilogue; expected the convert, normalize or "
                    "elementwise op that writes the output tile", who, kp->sg->tasks[R->epilogue.stask].id, w);
    }
    return cuda_core_readers(kp, who, err);
}
