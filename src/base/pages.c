/* pages.c — 2 MB pages for streamed memory (see pages.h). */
#include "base/pages.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)1 << 21)

void *ts_pages_alloc(size_t bytes)
{
    if (bytes > SIZE_MAX - 63) return NULL;
    size_t size = (bytes + 63) & ~(size_t)63;
    void *p = NULL;
    if (posix_memalign(&p, bytes >= HUGE_PAGE ? HUGE_PAGE : 64, size ? size : 64) != 0) return NULL;
    if (bytes >= HUGE_PAGE) ts_pages_advise(p, bytes & ~(HUGE_PAGE - 1));
    return p;
}

void ts_pages_advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes >= HUGE_PAGE) madvise(p, bytes, MADV_HUGEPAGE); /* advice only */
#else
    (void)p, (void)bytes;
#endif
}
