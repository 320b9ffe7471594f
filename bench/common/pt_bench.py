"""pt_bench.py — times a PipeThreader bundle and a torch baseline in one process, the same way.

A bundle built with `make lib` gives libkernel.so (pt_kernel_launch) and kernel.cubin; this
module loads them into torch's CUDA context and launches the kernel on torch tensors, so that
the kernel and the baseline read the very same input copies. Both are timed by one function,
the method of the bundle's own harness (codegen/host/harness.c): a CUDA graph holding `batch`
launches back to back, launch i on input copy i mod `rotate`, replayed between two events; a
sample is the replay's time over the batch. Subjects alternate round by round (ours, theirs,
ours, theirs ...), so clock and thermal drift reach all of them. Medians and the spread are
reported; see BENCHMARKS.md for why a baseline timed any other way is not comparable.
"""
import ctypes
import json
import math
import os
import statistics

import torch

from launches import iters_for  # noqa: F401  (the rule bench scripts share)

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}


def rotation(input_bytes, free_bytes=None):
    """Input copies, as the harness chooses them: >= 2 x 60 MB in all, <= 16, <= half free."""
    if input_bytes <= 0:
        return 1
    want = min(16, -(-2 * 60 * 1000 * 1000 // input_bytes))
    if free_bytes is None:
        free_bytes, _ = torch.cuda.mem_get_info()
    fit = 1 + free_bytes // 2 // input_bytes
    return max(1, min(want, fit))


class Bundle:
    """A generated kernel launched from Python: libkernel.so + kernel.cubin + tensors.json."""

    def __init__(self, path):
        torch.cuda.init()
        torch.empty(1, device="cuda")  # torch's primary context is now current
        self.path = path
        self.table = json.load(open(os.path.join(path, "tensors.json")))
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.lib = ctypes.CDLL(os.path.join(path, "libkernel.so"))
        self.lib.pt_kernel_launch.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64),
                                              ctypes.c_void_p]
        self.lib.pt_kernel_launch.restype = ctypes.c_int
        self.mod = ctypes.c_void_p()
        rc = self.cuda.cuModuleLoad(ctypes.byref(self.mod),
                                    os.path.join(path, "kernel.cubin").encode())
        if rc != 0:
            raise RuntimeError(f"{path}/kernel.cubin: cuModuleLoad failed (code {rc})")
        self.tensors = self.table["tensors"]
        self.flops = self.table["useful_flops"]

    def index(self, name):
        for i, t in enumerate(self.tensors):
            if t["name"] == name:
                return i
        raise KeyError(f"{self.path}/tensors.json: no tensor {name!r}")

    def outputs(self):
        """Fresh output tensors, by name."""
        return {t["name"]: torch.empty(t["shape"], dtype=DTYPES[t["dtype"]], device="cuda")
                for t in self.tensors if t["role"] == "output" and t["view_of"] < 0}

    def slots(self, inputs, outputs):
        """The slot array for one call: a device pointer per graph tensor (0: intermediates)."""
        ptrs = []
        for t in self.tensors:
            name = t["name"]
            ptrs.append(inputs[name].data_ptr() if name in inputs else
                        outputs[name].data_ptr() if name in outputs else 0)
        for i, t in enumerate(self.tensors):
            if t["view_of"] >= 0:
                ptrs[i] = ptrs[t["view_of"]]
        return (ctypes.c_uint64 * len(ptrs))(*ptrs)

    def launch(self, slots):
        rc = self.lib.pt_kernel_launch(self.mod, slots, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        if rc != 0:
            raise RuntimeError(f"{self.path}: pt_kernel_launch failed (code {rc})")


def _capture(fn, rotate, batch):
    """A CUDA graph of `batch` launches of fn(k), k = i mod rotate; None if capture fails."""
    fn(0)  # plans, handles and lazy module loading happen outside the capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(g, capture_error_mode="relaxed"):
            for i in range(batch):
                fn(i % rotate)
        torch.cuda.synchronize()
        return g
    except Exception:  # a library that cannot be captured is timed as queued launches
        torch.cuda.synchronize()
        return None


def _time_placement(subjects, rotate, iters, batch, rounds, warmup, warmup_ms):
    """One placement: {name: (samples, round medians, timing mode)}."""
    replays = max(1, math.ceil(iters / batch))
    graphs = {n: _capture(fn, rotate, batch) for n, fn in subjects.items()}

    def replay(n):
        if graphs[n] is not None:
            graphs[n].replay()
        else:
            for i in range(batch):
                subjects[n](i % rotate)

    # Sustained load first (as the harness does): clocks settle before any sample is taken.
    per = 0.0
    for n in subjects:
        replay(n)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        replay(n)
        b.record()
        b.synchronize()
        per += a.elapsed_time(b)
    for _ in range(min(100000, int(warmup_ms / max(per, 1e-3)) + 1)):
        for n in subjects:
            replay(n)
    torch.cuda.synchronize()
    samples = {n: [] for n in subjects}
    round_med = {n: [] for n in subjects}
    for _ in range(rounds):
        for n in subjects:
            for _ in range(max(1, math.ceil(warmup / batch))):
                replay(n)
            torch.cuda.synchronize()
            ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(replays)]
            for a, b in ev:
                a.record()
                replay(n)
                b.record()
            torch.cuda.synchronize()
            got = [a.elapsed_time(b) / batch for a, b in ev]
            samples[n] += got
            round_med[n].append(statistics.median(got))
    out = {n: (samples[n], round_med[n], "graph" if graphs[n] is not None else "queued")
           for n in subjects}
    del graphs
    return out


def time_interleaved(subjects, rotate, iters=200, batch=20, rounds=3, warmup=10, warmup_ms=200.0,
                     placements=1):
    """subjects: {name: fn(k) launching on input copy k}, or a function p -> such a dict whose
    launches use buffers allocated fresh for placement p (the caller keeps earlier placements'
    buffers alive, so each lies elsewhere in memory; a kernel's speed can depend on it).
    Returns {name: stats}, stats over all placements, with each placement's median."""
    make = subjects if callable(subjects) else (lambda p: subjects)
    n_place = placements if callable(subjects) else 1
    acc = {}
    for p in range(n_place):
        for n, (smp, rmed, mode) in _time_placement(make(p), rotate, iters, batch, rounds,
                                                    warmup, warmup_ms).items():
            a = acc.setdefault(n, {"samples": [], "rounds": [], "places": [], "mode": mode})
            a["samples"] += smp
            a["rounds"] += rmed
            a["places"].append(statistics.median(smp))
            if mode != "graph":
                a["mode"] = mode
    replays = max(1, math.ceil(iters / batch))
    return {n: {"median_ms": statistics.median(a["samples"]), "min_ms": min(a["samples"]),
                "max_ms": max(a["samples"]), "round_medians_ms": a["rounds"],
                "placement_medians_ms": a["places"], "timing": a["mode"],
                "samples": len(a["samples"]), "batch": batch, "replays": replays,
                "rounds": rounds, "placements": n_place, "rotate": rotate}
            for n, a in acc.items()}


def close_enough(out, ref, atol, rtol):
    """(mismatches, rel_err): every element |out - ref| <= atol + rtol |ref|, NaN never passes."""
    o, r = out.float(), ref.float()
    bad = ~((o - r).abs() <= atol + rtol * r.abs())
    rel = ((o - r).norm() / r.norm().clamp_min(1e-30)).item()
    return int(bad.sum().item()), rel


def gpu_info():
    """Device, driver, clocks seen now: for the table's head."""
    import subprocess
    info = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
            "cuda": torch.version.cuda}
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.sm,clocks.max.sm,"
                            "clocks.mem,power.draw,temperature.gpu", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=20).stdout.strip()
        info["nvidia_smi"] = q
    except Exception as e:
        info["nvidia_smi"] = f"unavailable: {e}"
    return info
