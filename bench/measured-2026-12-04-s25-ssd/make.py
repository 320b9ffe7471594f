#!/usr/bin/env python3
"""make.py — assemble this dataset from rounds 153, 154 and 158 (bench/mamba2/results-2026-12-04-s25);
run from the repository root. Each row's sProgram is the one stored with its round."""
import json
import shutil

D = 'bench/measured-2026-12-04-s25-ssd'
S = 'bench/mamba2/results-2026-12-04-s25'


def prog(b):
    name, _, sh = b.rpartition('_')
    if name in ('statepick', 'pick'):
        return f'{S}/r153/statepick-{sh}.json'
    if name == 'scanpick':
        return f'{S}/r153/scanpick-{sh}.json'
    if name == 'l128c':
        return f'bench/mamba2/results-2026-12-04-s24/r149/l128c-{sh}.json'
    if name in ('st2col', 'st3row', 'st3col'):
        return f'{S}/r153/{b}.json'
    if name in ('x6b2', 'x5b3'):
        return f'{S}/r158/{name}-{sh}.json'
    return None  # round 154's s17gen / p256: kernels today's generator does not make


out = open(D + '/measured.jsonl', 'w')
seen = {}
for rnd in (153, 154, 158):
    for line in open(f'{S}/r{rnd}/vs_mamba.jsonl'):
        d = json.loads(line)
        if 'bundle' not in d or not prog(d['bundle']):
            continue
        k = f"ssd-{d['bundle']}-r{rnd}"
        seen[k] = seen.get(k, 0) + 1
        if seen[k] > 1:
            k += f'-{seen[k]}'
        shutil.copy(prog(d['bundle']), f'{D}/programs/{k}.json')
        g = 'examples/mamba2_chunk_scan.json' if d['kernel'] == 'ChunkScan' else 'examples/mamba2_chunk_state.json'
        t = d['times']['ours']
        out.write(json.dumps({'name': k, 'graph': g, 'set': f"B={d['B']},S={d['S']}",
                              'measured_us': round(t['median_ms'] * 1000, 2),
                              'measured_placements_us': [round(x * 1000, 2) for x in t['placement_medians_ms']],
                              'round': rnd, 'vs_mamba_ssm': round(d['speedup_vs_mamba_ssm'], 4),
                              'of_floor': round(d['of_floor'], 4)}) + '\n')
