/* mm/mm.h -- bring up memory management. */
#ifndef MM_MM_H
#define MM_MM_H

/* Build the frame database from boot_info, start the page allocator, build
 * and load the kernel address space (direct map, W^X image, no identity
 * map), turn on global pages, SMEP and SMAP, and print what it did. After
 * this, page_alloc, kmalloc, kstack_alloc and pgt_* work. */
void mm_init(void);

#endif
