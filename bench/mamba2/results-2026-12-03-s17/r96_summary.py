import json, sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if 'info' in j or 'copy_GBps' in j:
        print(j); continue
    t = j.get('times', {})
    print(j['bundle'], 'ours %.4f' % t.get('ours', {}).get('median_ms', 0),
          'mamba %.4f' % t.get('mamba_ssm', {}).get('median_ms', 0),
          'speedup %.3f' % j.get('speedup_vs_mamba_ssm', 0), 'of_floor %.3f' % j.get('of_floor', 0),
          'mismatches', j.get('check', {}).get('mismatches'), j.get('error', ''))
