/* kernel/pipe.c -- pipes: a ring buffer between a read end and a write end.
 *
 * Readers sleep while the pipe is empty and a writer remains; writers sleep
 * while it is full and a reader remains. Reading with no writers left gives
 * 0 (end of file); writing with no readers left raises SIGPIPE and gives
 * -EPIPE. A write of at most PIPE_BUF bytes is atomic (POSIX): it waits
 * until the ring has room for all of it, so two writers' records never
 * interleave; a longer write may be split.
 *
 * Two locks, as Linux's pipe->mutex and wait queue:
 *
 *   mutex   one reader or writer at a time moves bytes, copying straight
 *           between user memory and the ring (a copy may fault and sleep:
 *           hence a sleeping lock). Dropped before any wait for data or
 *           room, so a task waiting for the mutex never waits long.
 *   lock    (spinlock) nread, nwrite, the open flags, and the sleep/wakeup
 *           on them; a closing end takes only this one.
 *
 * Bytes leave the ring only after they reached the reader: a read whose
 * copy-out faults returns -EFAULT and the bytes stay for the next read.
 */
#include "kernel/file.h"
#include "lib/errno.h"
#include "lib/mutex.h"
#include "kernel/proc.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"
#include "mm/uaccess.h"

#define PIPE_SIZE 4096
#define PIPE_BUF 4096   /* writes up to this many bytes are atomic (Linux's) */

struct pipe {
	struct mutex mutex;       /* held by the one task moving bytes */
	struct spinlock lock;     /* the fields below, sleep and wakeup */
	char buf[PIPE_SIZE];
	uint64_t nread, nwrite;   /* total bytes read / written */
	bool reader_open, writer_open;
};

/* May a reader or writer of f sleep now (lock held)? 0, or -errno. */
static int may_wait(struct file *f)
{
	if (f->flags & O_NONBLOCK)
		return -EAGAIN;
	if (signal_interrupted(current_proc()))
		return -EINTR;
	return 0;
}

/* The answer of a readiness check that means "sleep and ask again". */
#define WAIT (1L << 62)

/* Bytes to read (lock held; need unused): > 0, 0 at end of file, -errno
 * to give up, or WAIT. */
static long readable(struct pipe *p, struct file *f, uint64_t need)
{
	(void)need;
	if (p->nwrite != p->nread)
		return (long)(p->nwrite - p->nread);
	if (!p->writer_open)
		return 0;
	int r = may_wait(f);
	return r < 0 ? r : WAIT;
}

/* Room for a write that needs `need` bytes free (lock held): the room,
 * -EPIPE, -errno to give up, or WAIT. */
static long writable(struct pipe *p, struct file *f, uint64_t need)
{
	if (!p->reader_open)
		return -EPIPE;
	uint64_t room = PIPE_SIZE - (p->nwrite - p->nread);
	if (room >= need)
		return (long)room;
	int r = may_wait(f);
	return r < 0 ? r : WAIT;
}

/* Wait (mutex held; dropped while asleep) until ready(p, f, need) is not
 * WAIT, sleeping on chan; its answer. */
static long pipe_wait(struct pipe *p, struct file *f, uint64_t need, const void *chan,
		      long (*ready)(struct pipe *, struct file *, uint64_t))
{
	spin_lock(&p->lock);
	long r;
	while ((r = ready(p, f, need)) == WAIT) {
		spin_unlock(&p->lock);
		mutex_unlock(&p->mutex);
		spin_lock(&p->lock);
		if (ready(p, f, need) == WAIT)
			sleep_on_signal(chan, &p->lock);
		spin_unlock(&p->lock);
		mutex_lock(&p->mutex);
		spin_lock(&p->lock);
	}
	spin_unlock(&p->lock);
	return r;
}

/* Copy n bytes between user memory at u and the ring from position pos
 * (two pieces where the ring wraps): 0 or -EFAULT. */
static int ring_copyout(vaddr_t u, const struct pipe *p, uint64_t pos, uint64_t n)
{
	uint64_t at = pos % PIPE_SIZE, first = MIN(n, PIPE_SIZE - at);
	if (copyout(u, p->buf + at, first) < 0 || copyout(u + first, p->buf, n - first) < 0)
		return -EFAULT;
	return 0;
}

static int ring_copyin(struct pipe *p, uint64_t pos, vaddr_t u, uint64_t n)
{
	uint64_t at = pos % PIPE_SIZE, first = MIN(n, PIPE_SIZE - at);
	if (copyin(p->buf + at, u, first) < 0 || copyin(p->buf, u + first, n - first) < 0)
		return -EFAULT;
	return 0;
}

/* Move a counter (nread or nwrite) on by n and wake the other side. */
static void advance(struct pipe *p, uint64_t *counter, uint64_t n, const void *wake)
{
	spin_lock(&p->lock);
	*counter += n;
	wakeup(wake);
	spin_unlock(&p->lock);
}

static long pipe_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	struct pipe *p = f->priv;
	if (n == 0)
		return 0;
	mutex_lock(&p->mutex);
	long r = pipe_wait(p, f, 0, &p->nread, readable);
	if (r > 0) {
		uint64_t got = MIN(n, (uint64_t)r);
		r = ring_copyout(ubuf, p, p->nread, got);
		if (r == 0) {
			advance(p, &p->nread, got, &p->nwrite);
			r = (long)got;
		}
	}
	mutex_unlock(&p->mutex);
	return r;
}

/* One step of a write with `left` bytes to go, `done` done: the bytes it
 * moved, or -errno (-EPIPE after SIGPIPE). Up to PIPE_BUF bytes wait for
 * room for all of them at once (atomic), more take what room there is. */
static long write_step(struct pipe *p, struct file *f, vaddr_t u, uint64_t left)
{
	uint64_t need = left <= PIPE_BUF ? left : 1;
	long room = pipe_wait(p, f, need, &p->nwrite, writable);
	if (room == -EPIPE)
		signal_self(SIGPIPE);   /* and EPIPE if it is ignored (Linux) */
	if (room < 0)
		return room;
	uint64_t chunk = MIN(left, (uint64_t)room);
	if (ring_copyin(p, p->nwrite, u, chunk) < 0)
		return -EFAULT;
	advance(p, &p->nwrite, chunk, &p->nread);
	return (long)chunk;
}

static long pipe_write(struct file *f, vaddr_t ubuf, uint64_t n)
{
	struct pipe *p = f->priv;
	uint64_t done = 0;
	long r = 0;
	mutex_lock(&p->mutex);
	while (done < n && (r = write_step(p, f, ubuf + done, n - done)) > 0)
		done += (uint64_t)r;
	mutex_unlock(&p->mutex);
	return done ? (long)done : r;
}

/* Closing one end wakes the other; the last close frees the pipe. */
static void pipe_close_end(struct file *f, bool writer)
{
	struct pipe *p = f->priv;
	spin_lock(&p->lock);
	if (writer)
		p->writer_open = false;
	else
		p->reader_open = false;
	wakeup(&p->nread);
	wakeup(&p->nwrite);
	bool last = !p->reader_open && !p->writer_open;
	spin_unlock(&p->lock);
	if (last)
		kfree(p);
}

static void pipe_close_read(struct file *f)
{
	pipe_close_end(f, false);
}

static void pipe_close_write(struct file *f)
{
	pipe_close_end(f, true);
}

static const struct file_ops pipe_read_ops = { .read = pipe_read, .write = file_no_write, .close = pipe_close_read };
static const struct file_ops pipe_write_ops = { .read = file_no_read, .write = pipe_write, .close = pipe_close_write };

int pipe_create(struct file *ends[2])
{
	struct pipe *p = kzalloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	spin_init(&p->lock, "pipe", LOCK_RANK_PIPE);
	mutex_init(&p->mutex, "pipe-mutex", SLEEP_RANK_FILE);
	p->reader_open = p->writer_open = true;
	ends[0] = file_alloc(&pipe_read_ops, O_RDONLY);
	ends[1] = file_alloc(&pipe_write_ops, O_WRONLY);
	if (!ends[0] || !ends[1]) {
		if (ends[0])
			kfree(ends[0]);
		if (ends[1])
			kfree(ends[1]);
		kfree(p);
		return -ENOMEM;
	}
	ends[0]->priv = ends[1]->priv = p;
	return 0;
}
