/* pages.h — memory for what a decode step streams whole (weights), in 2 MB pages.
 *
 * A decode step reads every weight once, so the page-table entries walked per step count: with
 * 4 KB pages a 1 GB model walks 256 K of them, with 2 MB pages 512. Huge pages are advice
 * (MADV_HUGEPAGE: the kernel's "madvise" mode grants them, "never" does not); nothing here
 * fails for want of them. ts_pages_alloc's memory is freed with free(); ts_pages_advise also
 * marks a read-only file mapping, so the pages read in through it come as 2 MB folios.
 */
#ifndef TS_BASE_PAGES_H
#define TS_BASE_PAGES_H

#include <stddef.h>

/* bytes (64-byte aligned; from 2 MB on, 2 MB aligned with its whole 2 MB pages advised, the tail
 * in 4 KB pages so no allocation's resident size grows); NULL when out of memory. */
void *ts_pages_alloc(size_t bytes);
/* Advises memory that will be streamed whole (a checkpoint's mapping as mmap returned it, or a
 * 2 MB-aligned block): from 2 MB on, in 2 MB pages where the kernel grants them. */
void ts_pages_advise(void *p, size_t bytes);

#endif
