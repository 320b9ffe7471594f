// pt_wgmma.cuh — Hopper's wgmma m64nNk16 as templates, one per operand form, for every N the
// instruction has (8 to 256 in steps of 8): the warpgroup's 64 x N f32 accumulators d[N/2]
// (+)= A[64 x 16] . B[16 x N], asynchronous (commit and wait with pt_device.cuh's
// wgmma_commit / wgmma_wait). An instruction's register list cannot be built by the compiler,
// so the lists are spelled out once here, in 4-register chunks (PT_WG_R*, PT_WG_D*), and each
// form is one macro instantiated per N (PT_WG_SHAPES). Forms:
//   wgmma_ss<N, T, TA, TB>::mma(d, da, db)           A and B from shared memory (descriptors),
//                                                    TA / TB: operand stored M- / N-major (1)
//   wgmma_ss_zero<N, T>::mma(d, da, db, accumulate)  the same, K-major, D = A.B when
//                                                    accumulate is 0 (a fresh score tile)
//   wgmma_rs<N, T, TB = 1>::mma(d, a, db)            A from registers (4 per thread), B N-major
//                                                    (TB 1, attention's V) or K-major (TB 0)
// T is __half or __nv_bfloat16.
#pragma once

namespace pt {

#define PT_WG_R0 "%0, %1, %2, %3"
#define PT_WG_R1 "%4, %5, %6, %7"
#define PT_WG_R2 "%8, %9, %10, %11"
#define PT_WG_R3 "%12, %13, %14, %15"
#define PT_WG_R4 "%16, %17, %18, %19"
#define PT_WG_R5 "%20, %21, %22, %23"
#define PT_WG_R6 "%24, %25, %26, %27"
#define PT_WG_R7 "%28, %29, %30, %31"
#define PT_WG_R8 "%32, %33, %34, %35"
#define PT_WG_R9 "%36, %37, %38, %39"
#define PT_WG_R10 "%40, %41, %42, %43"
#define PT_WG_R11 "%44, %45, %46, %47"
#define PT_WG_R12 "%48, %49, %50, %51"
#define PT_WG_R13 "%52, %53, %54, %55"
#define PT_WG_R14 "%56, %57, %58, %59"
#define PT_WG_R15 "%60, %61, %62, %63"
#define PT_WG_R16 "%64, %65, %66, %67"
#define PT_WG_R17 "%68, %69, %70, %71"
#define PT_WG_R18 "%72, %73, %74, %75"
#define PT_WG_R19 "%76, %77, %78, %79"
#define PT_WG_R20 "%80, %81, %82, %83"
#define PT_WG_R21 "%84, %85, %86, %87"
#define PT_WG_R22 "%88, %89, %90, %91"
#define PT_WG_R23 "%92, %93, %94, %95"
#define PT_WG_R24 "%96, %97, %98, %99"
#define PT_WG_R25 "%100, %101, %102, %103"
#define PT_WG_R26 "%104, %105, %106, %107"
#define PT_WG_R27 "%108, %109, %110, %111"
#define PT_WG_R28 "%112, %113, %114, %115"
#define PT_WG_R29 "%116, %117, %118, %119"
#define PT_WG_R30 "%120, %121, %122, %123"
#define PT_WG_R31 "%124, %125, %126, %127"

#define PT_WG_REGS4 PT_WG_R0
#define PT_WG_REGS8 PT_WG_REGS4 ", " PT_WG_R1
#define PT_WG_REGS12 PT_WG_REGS8 ", " PT_WG_R2
#define PT_WG_REGS16 PT_WG_REGS12 ", " PT_WG_R3
#define PT_WG_REGS20 PT_WG_REGS16 ", " PT_WG_R4
#define PT_WG_REGS24 PT_WG_REGS20 ", " PT_WG_R5
#define PT_WG_REGS28 PT_WG_REGS24 ", " PT_WG_R6
#define PT_WG_REGS32 PT_WG_REGS28 ", " PT_WG_R7
#define PT_WG_REGS36 PT_WG_REGS32 ", " PT_WG_R8
#define PT_WG_REGS40 PT_WG_REGS36 ", " PT_WG_R9
#define PT_WG_REGS44 PT_WG_REGS40 ", " PT_WG_R10
#define PT_WG_REGS48 PT_WG_REGS44 ", " PT_WG_R11
#define PT_WG_REGS52 PT_WG_REGS48 ", " PT_WG_R12
#define PT_WG_REGS56 PT_WG_REGS52 ", " PT_WG_R13
#define PT_WG_REGS60 PT_WG_REGS56 ", " PT_WG_R14
#define PT_WG_REGS64 PT_WG_REGS60 ", " PT_WG_R15
#define PT_WG_REGS68 PT_WG_REGS64 ", " PT_WG_R16
#define PT_WG_REGS72 PT_WG_REGS68 ", " PT_WG_R17
#define PT_WG_REGS76 PT_WG_REGS72 ", " PT_WG_R18
#define PT_WG_REGS80 PT_WG_REGS76 ", " PT_WG_R19
#define PT_WG_REGS84 PT_WG_REGS80 ", " PT_WG_R20
#define PT_WG_REGS88 PT_WG_REGS84 ", " PT_WG_R21
#define PT_WG_REGS92 PT_WG_REGS88 ", " PT_WG_R22
#define PT_WG_REGS96 PT_WG_REGS92 ", " PT_WG_R23
#define PT_WG_REGS100 PT_WG_REGS96 ", " PT_WG_R24
#define PT_WG_REGS104 PT_WG_REGS100 ", " PT_WG_R25
#define PT_WG_REGS108 PT_WG_REGS104 ", " PT_WG_R26
#define PT_WG_REGS112 PT_WG_REGS108 ", " PT_WG_R27
#define PT_WG_REGS116 PT_WG_REGS112 ", " PT_WG_R28
#define PT_WG_REGS120 PT_WG_REGS116 ", " PT_WG_R29
#define PT_WG_REGS124 PT_WG_REGS120 ", " PT_WG_R30
#define PT_WG_REGS128 PT_WG_REGS124 ", " PT_WG_R31

#define PT_WG_D0(d) "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
#define PT_WG_D1(d) "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
#define PT_WG_D2(d) "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11])
#define PT_WG_D3(d) "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
#define PT_WG_D4(d) "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19])
#define PT_WG_D5(d) "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
#define PT_WG_D6(d) "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27])
#define PT_WG_D7(d) "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define PT_WG_D8(d) "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35])
#define PT_WG_D9(d) "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
#define PT_WG_D10(d) "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43])
#define PT_WG_D11(d) "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
#define PT_WG_D12(d) "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51])
#define PT_WG_D13(d) "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55])
#define PT_WG_D14(d) "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59])
#define PT_WG_D15(d) "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define PT_WG_D16(d) "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67])
#define PT_WG_D17(d) "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71])
#define PT_WG_D18(d) "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75])
#define PT_WG_D19(d) "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
#define PT_WG_D20(d) "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83])
#define PT_WG_D21(d) "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
#define PT_WG_D22(d) "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91])
#define PT_WG_D23(d) "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
#define PT_WG_D24(d) "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99])
#define PT_WG_D25(d) "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103])
#define PT_WG_D26(d) "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107])
#define PT_WG_D27(d) "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111])
#define PT_WG_D28(d) "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115])
#define PT_WG_D29(d) "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119])
#define PT_WG_D30(d) "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123])
#define PT_WG_D31(d) "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

#define PT_WG_OUTS4(d) PT_WG_D0(d)
#define PT_WG_OUTS8(d) PT_WG_OUTS4(d), PT_WG_D1(d)
#define PT_WG_OUTS12(d) PT_WG_OUTS8(d), PT_WG_D2(d)
#define PT_WG_OUTS16(d) PT_WG_OUTS12(d), PT_WG_D3(d)
#define PT_WG_OUTS20(d) PT_WG_OUTS16(d), PT_WG_D4(d)
#define PT_WG_OUTS24(d) PT_WG_OUTS20(d), PT_WG_D5(d)
#define PT_WG_OUTS28(d) PT_WG_OUTS24(d), PT_WG_D6(d)
#define PT_WG_OUTS32(d) PT_WG_OUTS28(d), PT_WG_D7(d)
#define PT_WG_OUTS36(d) PT_WG_OUTS32(d), PT_WG_D8(d)
#define PT_WG_OUTS40(d) PT_WG_OUTS36(d), PT_WG_D9(d)
#define PT_WG_OUTS44(d) PT_WG_OUTS40(d), PT_WG_D10(d)
#define PT_WG_OUTS48(d) PT_WG_OUTS44(d), PT_WG_D11(d)
#define PT_WG_OUTS52(d) PT_WG_OUTS48(d), PT_WG_D12(d)
#define PT_WG_OUTS56(d) PT_WG_OUTS52(d), PT_WG_D13(d)
#define PT_WG_OUTS60(d) PT_WG_OUTS56(d), PT_WG_D14(d)
#define PT_WG_OUTS64(d) PT_WG_OUTS60(d), PT_WG_D15(d)
#define PT_WG_OUTS68(d) PT_WG_OUTS64(d), PT_WG_D16(d)
#define PT_WG_OUTS72(d) PT_WG_OUTS68(d), PT_WG_D17(d)
#define PT_WG_OUTS76(d) PT_WG_OUTS72(d), PT_WG_D18(d)
#define PT_WG_OUTS80(d) PT_WG_OUTS76(d), PT_WG_D19(d)
#define PT_WG_OUTS84(d) PT_WG_OUTS80(d), PT_WG_D20(d)
#define PT_WG_OUTS88(d) PT_WG_OUTS84(d), PT_WG_D21(d)
#define PT_WG_OUTS92(d) PT_WG_OUTS88(d), PT_WG_D22(d)
#define PT_WG_OUTS96(d) PT_WG_OUTS92(d), PT_WG_D23(d)
#define PT_WG_OUTS100(d) PT_WG_OUTS96(d), PT_WG_D24(d)
#define PT_WG_OUTS104(d) PT_WG_OUTS100(d), PT_WG_D25(d)
#define PT_WG_OUTS108(d) PT_WG_OUTS104(d), PT_WG_D26(d)
#define PT_WG_OUTS112(d) PT_WG_OUTS108(d), PT_WG_D27(d)
#define PT_WG_OUTS116(d) PT_WG_OUTS112(d), PT_WG_D28(d)
#define PT_WG_OUTS120(d) PT_WG_OUTS116(d), PT_WG_D29(d)
#define PT_WG_OUTS124(d) PT_WG_OUTS120(d), PT_WG_D30(d)
#define PT_WG_OUTS128(d) PT_WG_OUTS124(d), PT_WG_D31(d)

// X(N, R = N / 2, then the operand numbers after the R accumulators: %R .. %R+4)
#define PT_WG_SHAPES(X) \
    X(8, 4, "%4", "%5", "%6", "%7", "%8") \
    X(16, 8, "%8", "%9", "%10", "%11", "%12") \
    X(24, 12, "%12", "%13", "%14", "%15", "%16") \
    X(32, 16, "%16", "%17", "%18", "%19", "%20") \
    X(40, 20, "%20", "%21", "%22", "%23", "%24") \
    X(48, 24, "%24", "%25", "%26", "%27", "%28") \
    X(56, 28, "%28", "%29", "%30", "%31", "%32") \
    X(64, 32, "%32", "%33", "%34", "%35", "%36") \
    X(72, 36, "%36", "%37", "%38", "%39", "%40") \
    X(80, 40, "%40", "%41", "%42", "%43", "%44") \
    X(88, 44, "%44", "%45", "%46", "%47", "%48") \
    X(96, 48, "%48", "%49", "%50", "%51", "%52") \
    X(104, 52, "%52", "%53", "%54", "%55", "%56") \
    X(112, 56, "%56", "%57", "%58", "%59", "%60") \
    X(120, 60, "%60", "%61", "%62", "%63", "%64") \
    X(128, 64, "%64", "%65", "%66", "%67", "%68") \
    X(136, 68, "%68", "%69", "%70", "%71", "%72") \
    X(144, 72, "%72", "%73", "%74", "%75", "%76") \
    X(152, 76, "%76", "%77", "%78", "%79", "%80") \
    X(160, 80, "%80", "%81", "%82", "%83", "%84") \
    X(168, 84, "%84", "%85", "%86", "%87", "%88") \
    X(176, 88, "%88", "%89", "%90", "%91", "%92") \
    X(184, 92, "%92", "%93", "%94", "%95", "%96") \
    X(192, 96, "%96", "%97", "%98", "%99", "%100") \
    X(200, 100, "%100", "%101", "%102", "%103", "%104") \
    X(208, 104, "%104", "%105", "%106", "%107", "%108") \
    X(216, 108, "%108", "%109", "%110", "%111", "%112") \
    X(224, 112, "%112", "%113", "%114", "%115", "%116") \
    X(232, 116, "%116", "%117", "%118", "%119", "%120") \
    X(240, 120, "%120", "%121", "%122", "%123", "%124") \
    X(248, 124, "%124", "%125", "%126", "%127", "%128") \
    X(256, 128, "%128", "%129", "%130", "%131", "%132")

template <int N, typename T, int TA, int TB> struct wgmma_ss;
template <int N, typename T> struct wgmma_ss_zero;
template <int N, typename T, int TB = 1> struct wgmma_rs;

#define PT_WG_SS(N, R, I0, I1, I2, I3, I4, T, S)                                                   \
    template <int TA, int TB> struct wgmma_ss<N, T, TA, TB> {                                     \
        static __device__ __forceinline__ void mma(float (&d)[R], uint64_t da, uint64_t db)       \
        {                                                                                         \
            asm volatile("wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." S "." S " "            \
                         "{" PT_WG_REGS##R "}, " I0 ", " I1 ", 1, 1, 1, " I2 ", " I3 ";"          \
                         : PT_WG_OUTS##R(d)                                                      \
                         : "l"(da), "l"(db), "n"(TA), "n"(TB));                                   \
        }                                                                                         \
    };
#define PT_WG_SS_ZERO(N, R, I0, I1, I2, I3, I4, T, S)                                              \
    template <> struct wgmma_ss_zero<N, T> {                                                      \
        static __device__ __forceinline__ void mma(float (&d)[R], uint64_t da, uint64_t db,       \
                                                   int accumulate)                                \
        {                                                                                         \
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " I2 ", 0;\n"                          \
                         "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." S "." S " "            \
                         "{" PT_WG_REGS##R "}, " I0 ", " I1 ", p, 1, 1, 0, 0;\n}\n"              \
                         : PT_WG_OUTS##R(d)                                                      \
                         : "l"(da), "l"(db), "r"(accumulate));                                    \
        }                                                                                         \
    };
#define PT_WG_RS(N, R, I0, I1, I2, I3, I4, T, S, TB, TBS)                                          \
    template <> struct wgmma_rs<N, T, TB> {                                                       \
        static __device__ __forceinline__ void mma(float (&d)[R], const uint32_t (&a)[4], uint64_t db) \
        {                                                                                         \
            asm volatile("wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." S "." S " "            \
                         "{" PT_WG_REGS##R "}, {" I0 ", " I1 ", " I2 ", " I3 "}, " I4 ", 1, 1, 1, " TBS ";" \
                         : PT_WG_OUTS##R(d)                                                      \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));                  \
        }                                                                                         \
    };
#define PT_WG_ALL(N, R, I0, I1, I2, I3, I4)                                                        \
    PT_WG_SS(N, R, I0, I1, I2, I3, I4, __half, "f16")                                             \
    PT_WG_SS(N, R, I0, I1, I2, I3, I4, __nv_bfloat16, "bf16")                                     \
    PT_WG_SS_ZERO(N, R, I0, I1, I2, I3, I4, __half, "f16")                                        \
    PT_WG_SS_ZERO(N, R, I0, I1, I2, I3, I4, __nv_bfloat16, "bf16")                                \
    PT_WG_RS(N, R, I0, I1, I2, I3, I4, __half, "f16", 1, "1")                                     \
    PT_WG_RS(N, R, I0, I1, I2, I3, I4, __nv_bfloat16, "bf16", 1, "1")                             \
    PT_WG_RS(N, R, I0, I1, I2, I3, I4, __half, "f16", 0, "0")                                     \
    PT_WG_RS(N, R, I0, I1, I2, I3, I4, __nv_bfloat16, "bf16", 0, "0")
PT_WG_SHAPES(PT_WG_ALL)

} // namespace pt
