/* drivers/virtio/virtio_blk.c -- virtio block devices (see virtio_blk.h). */
#include "drivers/virtio/virtio_blk.h"
#include "drivers/block/blkdev.h"
#include "drivers/virtio/virtio_pci.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/trap.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/wait.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"

#define VIRTIO_BLK_MODERN 0x1042        /* 0x1040 + device type 2 */
#define VIRTIO_BLK_TRANSITIONAL 0x1001
#define F_SEG_MAX 2
#define F_RO 5
#define F_BLK_SIZE 6
#define F_FLUSH 9
enum { T_IN = 0, T_OUT = 1, T_FLUSH = 4 };
enum { S_OK = 0, S_IOERR = 1, S_UNSUPP = 2 };
#define MAX_DISKS 8

/* The device-readable header and the device-written status of one request. */
struct slot {
	uint32_t type, reserved;
	uint64_t sector;
	uint8_t status;
	struct blk_request *req;        /* NULL: the slot is free */
};

struct vblk {
	struct blkdev disk;
	struct virtio_dev v;
	struct virtq q;
	struct spinlock lock;
	struct slot *slots;             /* VQ_MAX_SIZE of them, in one frame */
};

static struct vblk *vblks[MAX_DISKS];
static int nvblk;

static struct slot *free_slot(struct vblk *b)
{
	for (int i = 0; i < VQ_MAX_SIZE; i++)
		if (!b->slots[i].req)
			return &b->slots[i];
	return NULL;
}

static uint32_t request_type(enum blk_op op)
{
	return op == BLK_READ ? T_IN : op == BLK_WRITE ? T_OUT : T_FLUSH;
}

/* Queue r in slot s (b->lock held, r->nseg + 2 descriptors free): the
 * header, each segment, the status byte. */
static void queue(struct vblk *b, struct slot *s, struct blk_request *r)
{
	*s = (struct slot){ .type = request_type(r->op), .sector = r->sector, .status = 0xff,
			    .req = r };
	struct vq_buf bufs[BLK_MAX_SEGS + 2] = { { V2P(s), 16, false } };
	int n = 1;
	for (unsigned i = 0; i < r->nseg; i++)
		bufs[n++] = (struct vq_buf){ V2P(r->seg[i].buf), r->seg[i].len, r->op == BLK_READ };
	bufs[n++] = (struct vq_buf){ V2P(&s->status), 1, true };
	vq_add(&b->q, bufs, n, s);   /* cannot fail: room was checked */
	virtio_notify(&b->q);
}

static int vblk_submit(struct blkdev *d, struct blk_request *r)
{
	struct vblk *b = d->driver;
	struct slot *s;
	spin_lock(&b->lock);
	while (!(s = free_slot(b)) || b->q.num_free < r->nseg + 2)
		wait_on(&b->q, &b->lock);   /* the interrupt frees room */
	queue(b, s, r);
	spin_unlock(&b->lock);
	return 0;
}

static const struct blkdev_ops vblk_ops = { .submit = vblk_submit };

static int status_error(uint8_t st)
{
	return st == S_OK ? 0 : st == S_UNSUPP ? -EOPNOTSUPP : -EIO;
}

/* Complete everything b's device has finished. */
static void drain(struct vblk *b)
{
	spin_lock(&b->lock);
	struct slot *s;
	uint32_t len;
	bool freed = false;
	while ((s = vq_pop(&b->q, &len))) {
		struct blk_request *r = s->req;
		s->req = NULL;
		blk_complete(r, status_error(s->status));
		freed = true;
	}
	if (freed)
		wait_wake(&b->q);
	spin_unlock(&b->lock);
}

/* The disks' MSI-X vector (one for all: each looks at its own queue). */
static void vblk_irq(struct trapframe *tf)
{
	(void)tf;
	for (int i = 0; i < nvblk; i++)
		drain(vblks[i]);
}

/* The ring and slot frames of b, and its queue set up with MSI-X entry 0
 * on `vector`: 0 or an error. */
static int setup_queue(struct vblk *b, int vector)
{
	uint16_t max = virtio_queue_max(&b->v, 0), size = VQ_MAX_SIZE;
	while (size > max)
		size >>= 1;
	struct page *ring = page_alloc(0, PA_ZERO), *slots = page_alloc(0, PA_ZERO);
	if (!ring || !slots || size < 4) {
		if (ring)
			page_put(ring);
		if (slots)
			page_put(slots);
		return -ENOMEM;
	}
	_Static_assert(sizeof(struct slot) * VQ_MAX_SIZE <= PAGE_SIZE, "slots fit a frame");
	b->slots = page_va(slots);
	vq_init(&b->q, size, page_va(ring), page_to_pa(ring));
	int e = pci_msix_route(b->v.pci, 0, vector, lapic_id());
	if (!e)
		e = virtio_queue_setup(&b->v, 0, &b->q, 0);
	if (e) {   /* the queue was never enabled: the device does not use the frames */
		page_put(ring);
		page_put(slots);
	}
	return e;
}

/* Read the disk's size and modes from the device configuration. */
static void read_config(struct vblk *b)
{
	volatile uint8_t *cfg = b->v.device_cfg;
	b->disk.sectors = *(volatile uint64_t *)cfg;
	b->disk.readonly = b->v.features & 1ull << F_RO;
	b->disk.write_cache = b->v.features & 1ull << F_FLUSH;
	/* segments: what the device takes (seg_max), and what the queue holds
	 * with the header and status (so a request always fits at last) */
	uint32_t segs = b->v.features & 1ull << F_SEG_MAX ? *(volatile uint32_t *)(cfg + 12) : 1;
	segs = MIN(MIN(segs, (uint32_t)b->q.size - 2), (uint32_t)BLK_MAX_SEGS);
	b->disk.max_segs = (uint16_t)(segs ? segs : 1);
}

/* Start the device at pci as disk number n: 0 or an error. */
static int start(struct pci_dev *pci, int n, int vector)
{
	struct vblk *b = kzalloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	spin_init(&b->lock, "virtio-blk", LOCK_RANK_BLK_QUEUE);
	int e = virtio_pci_open(&b->v, pci);
	if (!e)
		e = virtio_negotiate(&b->v, 1ull << F_SEG_MAX | 1ull << F_RO | 1ull << F_BLK_SIZE |
					    1ull << F_FLUSH);
	if (!e && (e = setup_queue(b, vector)) < 0)
		virtio_fail(&b->v);
	if (e) {
		kfree(b);
		return e;
	}
	read_config(b);
	b->disk.name[0] = 'v', b->disk.name[1] = 'd', b->disk.name[2] = (char)('a' + n);
	b->disk.ops = &vblk_ops;
	b->disk.driver = b;
	vblks[nvblk++] = b;
	virtio_ready(&b->v);
	return blkdev_register(&b->disk);
}

/* Is pci a virtio block device (modern, or transitional: both speak 1.0)? */
static bool is_virtio_blk(const struct pci_dev *pci)
{
	return pci->vendor == VIRTIO_VENDOR &&
	       (pci->device == VIRTIO_BLK_MODERN || pci->device == VIRTIO_BLK_TRANSITIONAL);
}

int virtio_blk_probe(void)
{
	int vector = -1;
	struct pci_dev *pci;
	for (int i = 0; nvblk < MAX_DISKS && (pci = pci_get(i)); i++) {
		if (!is_virtio_blk(pci))
			continue;
		if (vector < 0 && (vector = vector_alloc(vblk_irq)) < 0) {
			printk("virtio-blk: no interrupt vector left\n");
			break;
		}
		int e = start(pci, nvblk, vector);
		if (e) {
			printk("virtio-blk: %02x:%02x.%x failed to start (error %d)\n", pci->bdf >> 8,
			       (pci->bdf >> 3) & 31, pci->bdf & 7, e);
			continue;
		}
		struct blkdev *d = &vblks[nvblk - 1]->disk;
		printk("virtio-blk: %s: %lu sectors (%lu MiB)%s%s\n", d->name, d->sectors,
		       d->sectors >> 11, d->readonly ? ", read-only" : "",
		       d->write_cache ? ", write cache" : "");
	}
	return nvblk;
}
