/* arch/x86_64/smap.c -- whether Supervisor Mode Access Prevention is on. */
#include "arch/x86_64/usercopy.h"

bool smap_enabled;
