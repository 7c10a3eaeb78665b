/* cpu_features.c — CPUID/XGETBV detection of the kernel levels we dispatch on.
 *
 * A feature counts only when the OS also saves its register state (XCR0): AVX-512 on a kernel
 * that does not save ZMM would fault. AMX additionally needs a per-process permission
 * (arch_prctl ARCH_REQ_XCOMP_PERM) that the AMX kernel path requests before its first tile use.
 */
#include "tessera.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static unsigned detect(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    bool osxsave = c & (1u << 27), fma = c & (1u << 12), f16c = c & (1u << 29);
    if (!osxsave) return 0;
    uint64_t xcr0 = read_xcr0();
    bool ymm_saved = (xcr0 & 0x6) == 0x6;
    bool zmm_saved = (xcr0 & 0xe6) == 0xe6;
    bool tile_saved = (xcr0 & (3ull << 17)) == (3ull << 17);
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    unsigned out = 0;
    bool avx2 = b & (1u << 5);
    if (avx2 && fma && f16c && ymm_saved) out |= TS_CPU_AVX2;
    bool avx512 = (b & (1u << 16)) && (b & (1u << 17)) && (b & (1u << 30)) && (b & (1u << 31));
    if ((out & TS_CPU_AVX2) && avx512 && zmm_saved) out |= TS_CPU_AVX512;
    if ((out & TS_CPU_AVX512) && (c & (1u << 11))) out |= TS_CPU_AVX512_VNNI;
    bool amx_bf16 = d & (1u << 22), amx_tile = d & (1u << 24);
    unsigned a1, b1, c1, d1;
    __cpuid_count(7, 1, a1, b1, c1, d1);
    (void)b1, (void)c1, (void)d1;
    if ((out & TS_CPU_AVX512) && (a1 & (1u << 5))) out |= TS_CPU_AVX512_BF16;
    if ((out & TS_CPU_AVX512) && amx_bf16 && amx_tile && tile_saved) out |= TS_CPU_AMX_BF16;
    return out;
}
#else
static unsigned detect(void) { return 0; }
#endif

unsigned ts_cpu_features(void)
{
    /* Idempotent and race-benign: every thread computes the same value. */
    static volatile int known;
    static volatile unsigned cached;
    if (!known) {
        cached = detect();
        known = 1;
    }
    return cached;
}

const char *ts_cpu_features_string(unsigned features)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{TS_CPU_AVX2, " avx2"},
                 {TS_CPU_AVX512, " avx512"},
                 {TS_CPU_AVX512_VNNI, " avx512_vnni"},
                 {TS_CPU_AVX512_BF16, " avx512_bf16"},
                 {TS_CPU_AMX_BF16, " amx_bf16"}};
    static _Thread_local char buf[128];
#if defined(__x86_64__)
    snprintf(buf, sizeof(buf), "x86-64");
#else
    snprintf(buf, sizeof(buf), "portable");
#endif
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (features & names[i].bit) strncat(buf, names[i].name, sizeof(buf) - strlen(buf) - 1);
    return buf;
}
