/* refcpu_half.cpp — IEEE half precision to and from float, rounding to nearest even: the 16-bit
 * type of the CPU runs (refcpu_device.h, and tests/kernelcpu's emulated device library). */
#include <cmath>
#include <cstdint>
#include <cstring>

float refcpu_half_to_float(uint16_t h)
{
    const uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
    uint32_t u;
    if (e == 0 && m == 0)
        u = s;
    else if (e == 0) { /* subnormal: m * 2^-24 */
        float f = std::ldexp((float)m, -24);
        return s ? -f : f;
    } else if (e == 31)
        u = s | 0x7f800000u | (m << 13);
    else
        u = s | ((e + 112) << 23) | (m << 13);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint16_t refcpu_float_to_half(float f)
{
    /* round to nearest even through the exact value's binary expansion: scale into the
     * half's grid and let rint do the rounding */
    if (std::isnan(f))
        return 0x7e00;
    const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
    float a = std::fabs(f);
    if (a >= 65520.0f)
        return sign | 0x7c00;
    int e;
    std::frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int q = e - 11 < -24 ? -24 : e - 11; /* the grid step 2^q: 11 bits, or the subnormals' */
    float r = std::rint(std::ldexp(a, -q)); /* a whole number of steps */
    float v = std::ldexp(r, q);
    if (v >= 65520.0f)
        return sign | 0x7c00;
    if (v < std::ldexp(1.0f, -14)) /* subnormal (or zero): the step count is the mantissa */
        return sign | (uint16_t)(int)std::ldexp(v, 24);
    int ve;
    float vm = std::frexp(v, &ve); /* v = vm * 2^ve, vm in [0.5, 1) */
    uint16_t mant = (uint16_t)((int)std::ldexp(vm, 11) - 1024);
    return sign | (uint16_t)((ve - 1 + 15) << 10) | mant;
}
