"""merged.py [DATASET] [CLI] — issue 18's whole-set numbers over several bench/pick/sets runs stored in one
measured dataset (bench/measured-2026-12-02-s12): per configuration the candidates of its latest
run (`round`), the model's pick (rank 1) against the fastest of them, and the pick's time as the
current model predicts it (simulate) against measured."""
import json,re,subprocess,concurrent.futures as cf
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
from pt_report import geomean  # noqa: E402
D = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'measured-2026-12-02-s12')
CLI = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build', 'cli', 'pipethreader-cli')
rows=[json.loads(l) for l in open(D+'/measured.jsonl')]
def cfg_of(r):
    n=re.sub(r'-r[0-9]+$','',r['name'])
    return n.rsplit('-auto',1)[0]
groups={}
for r in rows:
    groups.setdefault(cfg_of(r),{}).setdefault(r['round'],[]).append(r)
sel={c:g[max(g)] for c,g in groups.items()}  # each configuration's latest run
def sim(r):
    o=subprocess.run([CLI,'simulate',r['graph'],'--set',r['set'],'--program',D+'/programs/%s.json'%r['name'],'--json'],capture_output=True,text=True).stdout
    return json.loads(o)['predicted_time_ns']/1e3
picks=[(c,next(r for r in v if r['rank']==1),v) for c,v in sel.items()]
with cf.ThreadPoolExecutor(2) as ex: preds=list(ex.map(lambda t: sim(t[1]),picks))
for S in ('GEMM','FA'):
    rat=[];err=[];worst=[]
    for (c,p,v),pr in zip(picks,preds):
        if c.startswith('fa-')!=(S=='FA'): continue
        best=min(x['measured_us'] for x in v)
        rat.append(p['measured_us']/best); e=pr/p['measured_us']-1; err.append(e)
        worst.append((p['measured_us']/best,c,p['round'])) 
    a=[abs(x) for x in err]
    g=geomean(rat)
    print(f"{S}: {len(rat)} configs; pick/best geomean {g:.4f}, pick fastest in {sum(x==1 for x in rat)}, worst {sorted(worst)[-3:]}")
    print(f"{S}: picks predicted vs measured: mean|err| {100*sum(a)/len(a):.1f}%, mean {100*sum(err)/len(err):+.1f}%, max {100*max(a):.1f}%, >20%: {sum(x>.2 for x in a)}, >15%: {sum(x>.15 for x in a)}")
