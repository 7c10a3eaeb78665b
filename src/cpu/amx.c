/* amx.c — per-process permission for AMX tile state (Linux ≥ 5.16). */
#include "cpu/kernels.h"
#include "base/error.h"

#if defined(__x86_64__) && defined(__linux__)
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

ts_status ts_amx_request_permission(ts_error *err)
{
    if (!(ts_cpu_features() & TS_CPU_AMX_BF16))
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "AMX: this CPU has no AMX-BF16 tiles");
    if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "AMX: the kernel refused tile state: %s",
                            strerror(errno));
    return TS_OK;
}
#else
ts_status ts_amx_request_permission(ts_error *err)
{
    return ts_error_set(err, TS_ERR_UNSUPPORTED, "AMX: not an x86-64 Linux build");
}
#endif
