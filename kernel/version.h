/* kernel/version.h -- the boot banner (the test driver looks for it). */
#ifndef KERNEL_VERSION_H
#define KERNEL_VERSION_H

#define PAGODA_VERSION "0.1"
#define PAGODA_BANNER "Pagoda " PAGODA_VERSION " (x86_64) booting"

#endif
