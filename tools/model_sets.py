"""model_sets.py — which set a measured row belongs to, shared by tools/model-score and
tools/model-fit so both report and fit the same sets: SSD (Mamba2), COMBINE (FlashDecoding's
combine), FA (attention and FlashDecoding's partial; also rows named fa-*), GEMM (the rest, low-bit
GEMMs included)."""
import os

SETS = ("GEMM", "FA", "SSD", "COMBINE")


def set_of(row):
    graph = os.path.basename(row["graph"])
    if "mamba2" in graph:
        return "SSD"
    if graph.startswith("flash_decoding_combine"):
        return "COMBINE"
    if graph.startswith("flash") or row["name"].startswith("fa-"):
        return "FA"
    return "GEMM"
