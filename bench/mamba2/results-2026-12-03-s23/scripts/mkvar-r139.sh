#!/bin/bash
# mkvar.sh KERNEL_DIR VARIANT: hand variants of a generated ChunkScan bundle (round 138 prototypes)
d=$1; v=$2
f=$d/kernel.cu
case $v in
*fast*)
  sed -i -e 's/float v2_0\[KS\]\[8\];  \/\/ decay.*/pt::decay_r1<KS> v2_0;  \/\/ decay, factored/' \
         -e 's/float v3_0\[KS\]\[8\];  \/\/ Pw.*/pt::tile_r1<KS> v3_0;  \/\/ Pw, the tile beside the factored decay/' \
         -e 's/pt::atile_exp_decay<true>(v2_0,/pt::r1_exp_decay<true, KS>(v2_0,/' \
         -e 's/pt::atile_from_tile<elem_t, KS, false, pt::Ew::MUL>(v3_0,/pt::r1_from_tile<elem_t, KS, false>(v3_0,/' \
         -e 's/X_ATOM, v2_0, lane);/X_ATOM, v2_0, lane);/' \
         -e "s/pt::afrag_op<elem_t, pt::Ew::MUL>(\(v0_[01]\), v3_0,/pt::afrag_from_r1<elem_t, KS>(\1, v3_0,/" $f ;;
esac
case $v in
*bal*) sed -i -e 's/wg_iters(g3, 1);/wg_iters(g3, 0);/' $f ;;
esac
grep -c "r1_\|afrag_from_r1" $f
