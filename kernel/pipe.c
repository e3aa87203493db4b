/* kernel/pipe.c -- pipes: a ring buffer between a read end and a write end.
 *
 * Readers sleep while the pipe is empty and a writer remains; writers sleep
 * while it is full and a reader remains. Reading with no writers left gives
 * 0 (end of file); writing with no readers left raises SIGPIPE and gives
 * -EPIPE. Data moves
 * through a small bounce buffer so that no lock is held while user memory
 * is touched (that may fault and sleep).
 */
#include "kernel/file.h"
#include "lib/errno.h"
#include "kernel/proc.h"
#include "lib/string.h"
#include "mm/kmalloc.h"
#include "mm/uaccess.h"

#define PIPE_SIZE 4096
#define PIPE_CHUNK 512

struct pipe {
	struct spinlock lock;
	char buf[PIPE_SIZE];
	uint64_t nread, nwrite;   /* total bytes read / written */
	bool reader_open, writer_open;
};

/* Wait (lock held) until ready() or the other end closed; -errno if the
 * caller must give up. */
static int pipe_wait(struct pipe *p, struct file *f, const void *chan)
{
	if (f->flags & O_NONBLOCK)
		return -EAGAIN;
	if (signal_interrupted(current_proc()))
		return -EINTR;
	sleep_on_signal(chan, &p->lock);
	return 0;
}

static long pipe_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	struct pipe *p = f->priv;
	char tmp[PIPE_CHUNK];
	spin_lock(&p->lock);
	while (p->nread == p->nwrite && p->writer_open) {
		int r = pipe_wait(p, f, &p->nread);
		if (r < 0) {
			spin_unlock(&p->lock);
			return r;
		}
	}
	uint64_t got = 0;
	while (got < MIN(n, PIPE_CHUNK) && p->nread != p->nwrite)
		tmp[got++] = p->buf[p->nread++ % PIPE_SIZE];
	wakeup(&p->nwrite);
	spin_unlock(&p->lock);
	int r = got ? copyout(ubuf, tmp, got) : 0;
	if (r < 0)
		return r;
	return (long)got;
}

static long pipe_write(struct file *f, vaddr_t ubuf, uint64_t n)
{
	struct pipe *p = f->priv;
	char tmp[PIPE_CHUNK];
	uint64_t done = 0;
	while (done < n) {
		uint64_t chunk = MIN(n - done, PIPE_CHUNK);
		if (copyin(tmp, ubuf + done, chunk) < 0)
			return done ? (long)done : -EFAULT;
		spin_lock(&p->lock);
		for (uint64_t i = 0; i < chunk;) {
			if (!p->reader_open) {
				spin_unlock(&p->lock);
				if (done + i)
					return (long)(done + i);
				signal_self(SIGPIPE);   /* and EPIPE if it is ignored */
				return -EPIPE;
			}
			if (p->nwrite - p->nread == PIPE_SIZE) {
				wakeup(&p->nread);
				int r = pipe_wait(p, f, &p->nwrite);
				if (r < 0) {
					spin_unlock(&p->lock);
					return done + i ? (long)(done + i) : r;
				}
				continue;
			}
			p->buf[p->nwrite++ % PIPE_SIZE] = tmp[i++];
		}
		wakeup(&p->nread);
		spin_unlock(&p->lock);
		done += chunk;
	}
	return (long)done;
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

static const struct file_ops pipe_read_ops = { pipe_read, file_no_write, pipe_close_read, false };
static const struct file_ops pipe_write_ops = { file_no_read, pipe_write, pipe_close_write, false };

int pipe_create(struct file *ends[2])
{
	struct pipe *p = kzalloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	spin_init(&p->lock, "pipe", LOCK_RANK_PIPE);
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
