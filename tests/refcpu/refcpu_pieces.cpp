/* refcpu_pieces.cpp — a graph's reference (codegen/reference.c) with a ragged sequence (graph.h:
 * the last piece shorter) against the same graph's reference at the length padded to whole
 * pieces, both run on the CPU (README.md), on the same inputs: what the shorter sequence stores
 * is the longer one's first rows with zeros after them, and the inputs stored as whole pieces
 * are the same bytes. Every output element of the ragged run must equal the padded run's at its
 * place (Mamba2: a chunk's rows past the sequence's end change no row before it, and add zero
 * to every sum), bit for bit.
 * usage: refcpu_pieces SPEC, SPEC a file of one line per graph tensor in slot order:
 *   name dtype role elems_ragged elems_padded outer seq_ragged seq_padded inner
 * dtype f16|bf16|f32 (the slot's: an input's graph dtype, f32 for what an op writes), role
 * input|output|intermediate; a tensor storing the sequence has outer x seq x inner elements
 * (seq_* its rows), any other seq 0 and the same elements in both runs. The two references are
 * linked with their names prefixed ragged_ and padded_ (test_refcpu_pieces.sh). */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "refcpu.h"

extern "C" int ragged_reference_run(CUmodule mod, const CUdeviceptr *slots, CUstream stream);
extern "C" int padded_reference_run(CUmodule mod, const CUdeviceptr *slots, CUstream stream);
extern refcpu_module ragged_module, padded_module;

struct slot {
    std::string name, dtype, role;
    long long elems[2], outer, seq[2], inner;
    std::vector<unsigned char> buf[2];
};

static int esize(const std::string &dt)
{
    return dt == "f32" ? 4 : 2;
}

static void put(std::vector<unsigned char> &b, const std::string &dt, long long i, float v)
{
    if (dt == "f32")
        std::memcpy(&b[i * 4], &v, 4);
    else if (dt == "f16") {
        __half h = __float2half(v);
        std::memcpy(&b[i * 2], &h, 2);
    } else {
        __nv_bfloat16 h = __float2bfloat16(v);
        std::memcpy(&b[i * 2], &h, 2);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: refcpu_pieces SPEC\n");
        return 2;
    }
    FILE *f = std::fopen(argv[1], "r");
    if (!f) {
        std::perror(argv[1]);
        return 2;
    }
    std::vector<slot> s;
    char name[64], dt[8], role[16];
    slot x;
    while (std::fscanf(f, "%63s %7s %15s %lld %lld %lld %lld %lld %lld", name, dt, role,
                       &x.elems[0], &x.elems[1], &x.outer, &x.seq[0], &x.seq[1], &x.inner) == 9) {
        x.name = name, x.dtype = dt, x.role = role;
        s.push_back(x);
    }
    std::fclose(f);
    for (auto &t : s)
        for (int k = 0; k < 2; k++)
            t.buf[k].assign((size_t)t.elems[k] * esize(t.dtype) + 16, 0);
    /* inputs: the same values in both runs, a stored sequence's padding rows zero */
    for (auto &t : s) {
        if (t.role != "input")
            continue;
        if (t.seq[0] == 0) {
            for (long long i = 0; i < t.elems[0]; i++)
                put(t.buf[0], t.dtype, i, refcpu_uniform(-1, 1));
            t.buf[1] = t.buf[0];
            continue;
        }
        for (long long o = 0; o < t.outer; o++)
            for (long long r = 0; r < t.seq[0]; r++)
                for (long long e = 0; e < t.inner; e++) {
                    float v = refcpu_uniform(-1, 1);
                    put(t.buf[0], t.dtype, (o * t.seq[0] + r) * t.inner + e, v);
                    put(t.buf[1], t.dtype, (o * t.seq[1] + r) * t.inner + e, v);
                }
    }
    std::vector<CUdeviceptr> p[2];
    for (int k = 0; k < 2; k++)
        for (auto &t : s)
            p[k].push_back((CUdeviceptr)(uintptr_t)t.buf[k].data());
    if (ragged_reference_run(&ragged_module, p[0].data(), nullptr) != 0 ||
        padded_reference_run(&padded_module, p[1].data(), nullptr) != 0)
        return 1;
    long long bad = 0, checked = 0;
    for (auto &t : s) {
        if (t.role != "output")
            continue;
        const float *a = (const float *)t.buf[0].data(), *b = (const float *)t.buf[1].data();
        long long rows = t.seq[0] ? t.seq[0] : 1, outer = t.seq[0] ? t.outer : 1,
                  inner = t.seq[0] ? t.inner : t.elems[0];
        for (long long o = 0; o < outer; o++)
            for (long long r = 0; r < rows; r++)
                for (long long e = 0; e < inner; e++) {
                    float u = a[(o * rows + r) * inner + e],
                          v = b[(o * (t.seq[0] ? t.seq[1] : 1) + r) * inner + e];
                    checked++;
                    if (std::memcmp(&u, &v, 4) != 0 && bad++ < 10)
                        std::printf("MISMATCH %s[outer %lld, row %lld, %lld]: %.9g, padded run %.9g\n",
                                    t.name.c_str(), o, r, e, u, v);
                }
    }
    std::printf("%s: %lld of %lld output elements differ from the padded run\n", bad ? "FAIL" : "ok",
                bad, checked);
    return bad || !checked ? 1 : 0;
}
