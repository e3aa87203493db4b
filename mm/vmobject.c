/* mm/vmobject.c -- references on backing objects (mm/vmobject.h). */
#include "mm/vmobject.h"
#include "lib/atomic.h"
#include "lib/printk.h"

void vmobject_get(struct vmobject *obj)
{
	if (obj && __atomic_add_fetch(&obj->refs, 1, __ATOMIC_ACQ_REL) == 1 && obj->ops->hold)
		obj->ops->hold(obj);
}

void vmobject_put(struct vmobject *obj)
{
	if (!obj)
		return;
	if (obj->refs == 0)
		panic("vmobject_put: object %p (kind %d) has no references", (void *)obj,
		      (int)obj->kind);
	if (atomic_dec_and_test(&obj->refs) && obj->ops->release)
		obj->ops->release(obj);
}
