/* mm/vmobject.c -- backing objects (mm/vmobject.h): their references and
 * their lists of mappings. */
#include "mm/vmobject.h"
#include "mm/as.h"
#include "lib/atomic.h"
#include "lib/printk.h"

void vmobject_get(struct vmobject *obj)
{
	if (obj && __atomic_add_fetch(&obj->refs, 1, __ATOMIC_ACQ_REL) == 1 && obj->ops->hold)
		obj->ops->hold(obj);
}

bool vmobject_tryget(struct vmobject *obj)
{
	for (uint32_t n = atomic_load(&obj->refs); n > 0;)
		if (__atomic_compare_exchange_n(&obj->refs, &n, n + 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return true;
	return false;
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

void vmobject_init(struct vmobject *obj, const struct vmobject_ops *ops,
		   enum vmobject_kind kind)
{
	*obj = (struct vmobject){ .ops = ops, .kind = kind };
	list_init(&obj->mappings);
	spin_init(&obj->mappings_lock, "rmap", LOCK_RANK_RMAP);
}

void vmobject_add_mapping(struct vma *v)
{
	spin_lock(&v->obj->mappings_lock);
	list_add_tail(&v->obj->mappings, &v->obj_link);
	spin_unlock(&v->obj->mappings_lock);
}

void vmobject_remove_mapping(struct vma *v)
{
	if (!v->obj || !v->obj_link.next)
		return;   /* never on the list */
	spin_lock(&v->obj->mappings_lock);
	list_del(&v->obj_link);
	spin_unlock(&v->obj->mappings_lock);
}
