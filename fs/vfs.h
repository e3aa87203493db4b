/* fs/vfs.h -- the virtual file system: inodes, dentries, mounts, paths.
 *
 * Every file system (tmpfs, ext2, /proc) gives the VFS its inodes and a
 * table of operations; the VFS does the rest: names, path walks, mounts,
 * open files, and the page cache of regular files (mm/pagecache.h).
 *
 *   struct path {mnt, dentry}     "where": a name in one mount
 *        |
 *   mount --root--> dentry "/" ----children----> dentry "bin" ----> dentry "sh"
 *     ^ mountpoint        |                         |                  |
 *     |                 inode (dir)               inode (dir)        inode (file)
 *   mounted on a dentry of the parent mount               i_mapping: pagecache
 *
 * An inode is one file (mode, size, times, links, its pages); a dentry is
 * one name of it in a directory (hard links: several dentries, one inode).
 * Dentries form the tree the path walk follows; a dentry with mounts on it
 * leads the walk to the root of the mount on top (fs/mount.c).
 *
 * References:
 *   - a dentry holds one on its inode, and one on its parent dentry;
 *   - struct path holds one on its mount and one on its dentry (path_get,
 *     path_put); open files, the current directory and /proc/PID/exe are
 *     struct paths;
 *   - a VMA mapping a file holds its inode through the inode's vmobject
 *     (inode_vmobject): the first mapping takes an inode reference, the
 *     last one gives it back.
 *   A dentry whose count falls to 0 stays in the cache (its directory's
 *   children) unless its file system forgets names (DENTRY_VOLATILE:
 *   /proc's, made from processes) or it was unlinked; an inode whose count
 *   falls to 0 with no links left is evicted (its file system frees its
 *   blocks: sb->ops->evict).
 *
 * Locks (docs/storage.md, "Who changes what"):
 *   - dcache_lock (spinlock, LOCK_RANK_DCACHE): every dentry's children,
 *     parent, name, inode pointer and refs; the mount table; never held
 *     across I/O or a file system's op;
 *   - sb->ns (rwsem, SLEEP_RANK_NAMESPACE): one file system's names:
 *     lookup ops run under it shared, create/unlink/rename/... exclusive
 *     (Linux has a lock per directory; one per file system is simpler and
 *     enough here);
 *   - inode->lock (mutex, SLEEP_RANK_INODE): a file's size and contents
 *     against other writers and truncation (Linux's i_rwsem);
 *   - inode->invalidate (rwsem, SLEEP_RANK_INVALIDATE; Linux's
 *     invalidate_lock): a page fault and read() hold it shared from their
 *     check of the size to the page's arrival in the cache, truncation and
 *     a hole punched exclusive while they drop pages, so no page past the
 *     end comes back (a fault already holds the address space's lock;
 *     read() copies to user memory after it let go);
 *   taken in that order: f_pos, sb->ns, inode->lock, the address space,
 *   inode->invalidate.
 *
 * Errors are Linux's: -ENOENT, -ENOTDIR, -EISDIR, -EEXIST, -ENOTEMPTY,
 * -ELOOP, -ENAMETOOLONG, -EXDEV, -EROFS, -ENOSPC, -EBUSY, -EIO, -EUCLEAN.
 */
#ifndef FS_VFS_H
#define FS_VFS_H

#include "lib/list.h"
#include "lib/mutex.h"
#include "lib/rwsem.h"
#include "lib/types.h"
#include "mm/pagecache.h"
#include "mm/vmobject.h"

#define NAME_MAX 255
#define PATH_MAX 4096
#define SYMLOOP_MAX 40

/* st_mode's type bits (Linux's values; a host test may have them from
 * <sys/stat.h> already, with the same values) */
#ifndef S_IFMT
#define S_IFMT   0170000
#define S_IFSOCK 0140000
#define S_IFLNK  0120000
#define S_IFREG  0100000
#define S_IFBLK  0060000
#define S_IFDIR  0040000
#define S_IFCHR  0020000
#define S_IFIFO  0010000
#endif
#ifndef S_ISDIR
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#define S_ISBLK(m) (((m) & S_IFMT) == S_IFBLK)
#define S_ISCHR(m) (((m) & S_IFMT) == S_IFCHR)
#define S_ISFIFO(m) (((m) & S_IFMT) == S_IFIFO)
#endif

/* dirent d_type values (DT_*) from a mode */
#define MODE_DT(m) ((uint8_t)(((m) & S_IFMT) >> 12))

/* Device numbers as Linux's new_encode_dev: major 12 bits, minor 20. */
#define MKDEV(ma, mi) ((((uint32_t)(ma)) << 8) | ((uint32_t)(mi) & 0xff) | (((uint32_t)(mi) & ~0xffu) << 12))
#define MAJOR(d) (((d) >> 8) & 0xfff)
#define MINOR(d) (((d) & 0xff) | (((d) >> 12) & 0xfff00))

struct inode;
struct dentry;
struct mount;
struct super_block;
struct file;
struct file_ops;
struct textbuf;

struct vfs_time {
	int64_t sec;
	uint32_t nsec;
};

/* One directory entry as readdir reports it. */
struct dir_entry {
	char name[NAME_MAX + 1];
	uint64_t ino;
	uint8_t type;               /* DT_* */
};

/* What a file system does to names (all optional but lookup; NULL: the
 * operation is not possible here: -EPERM, as Linux's when a file system
 * lacks it). Called with sb->ns held (exclusive for changes, shared for
 * lookup and readdir); name is not NUL-terminated. */
struct inode_ops {
	/* The inode of name in dir with a new reference: 0, -ENOENT, -errno. */
	int (*lookup)(struct inode *dir, const char *name, size_t len, struct inode **out);
	/* A new file, device node, fifo (mode holds the type; rdev: a node's
	 * device) or directory (S_IFDIR), or a symlink to target: its inode
	 * with a reference. -ENOSPC, -EIO, ... The VFS checked that the name
	 * is free. */
	int (*create)(struct inode *dir, const char *name, size_t len, uint32_t mode,
		      uint32_t rdev, const char *target, struct inode **out);
	/* A new name of ip (not a directory) in dir. */
	int (*link)(struct inode *dir, const char *name, size_t len, struct inode *ip);
	/* Remove name (which names ip) from dir; a directory (rmdir) is empty. */
	int (*unlink)(struct inode *dir, const char *name, size_t len, struct inode *ip);
	/* Move name (ip) from odir to nname in ndir, replacing victim (NULL if
	 * none: the VFS checked the types and that a directory victim is empty);
	 * with RENAME_EXCHANGE in flags, victim's name and ip's trade places
	 * (-EINVAL: this file system cannot, as Linux's ext2). */
	int (*rename)(struct inode *odir, const char *oname, size_t olen, struct inode *ip,
		      struct inode *ndir, const char *nname, size_t nlen, struct inode *victim,
		      unsigned flags);
	/* Is directory ip empty (for rmdir and rename): 1, 0 or -errno. */
	int (*empty)(struct inode *ip);
	/* The entry of dir at position *pos or after it into *de, *pos moved
	 * past it: 1, 0 at the end, or -errno. Positions 0 and 1 are "." and
	 * ".." (the VFS answers those); a file system's start at 2. */
	int (*readdir)(struct dentry *dir, uint64_t *pos, struct dir_entry *de);
	/* A symlink's target into buf (n bytes, no NUL): its length. */
	long (*readlink)(struct inode *ip, char *buf, uint64_t n);
	/* The file's size changed to ip->size (truncate, write past the end):
	 * free or prepare the blocks; 0 or -errno (inode->lock held). A
	 * shrink comes after the VFS took the pages past the end out of every
	 * mapping and out of the cache (the end page's tail zeroed, its
	 * write-back in flight over: pagecache_truncate_at). */
	int (*set_size)(struct inode *ip, uint64_t old_size);
	/* A write of [off, off + len) is about to copy into the cache: make
	 * its blocks exist on the store (so a full disk is -ENOSPC now, not a
	 * lost write later; inode->lock held). NULL: nothing to prepare. */
	int (*prepare_write)(struct inode *ip, uint64_t off, uint64_t len);
	/* A store through a shared mapping is about to dirty page index of
	 * ip, inside the file: make its blocks exist on the store, as
	 * prepare_write (a full disk: -ENOSPC now, the storer's SIGBUS, not
	 * a lost write later; Linux's page_mkwrite of a file system). Called
	 * by a page fault, under the address space's lock and ip->invalidate
	 * (shared), without ip->lock. 1 (all of the page's blocks exist now:
	 * the VFS remembers it while the page is cached, PGC_BLOCKS), 0 (the
	 * file ends in the page: ask again next time), -ENOSPC, -ENOMEM,
	 * -EIO. NULL: nothing to prepare (a store without holes, or none). */
	int (*prepare_mmap_write)(struct inode *ip, uint64_t index);
	/* ip's fields (mode, times, size) changed: write the inode out (NULL:
	 * nothing to write, as tmpfs). */
	int (*write_inode)(struct inode *ip);
	/* Free the store's blocks of [off, off + len), inside the file, whose
	 * whole pages the VFS dropped from every mapping and the cache and
	 * whose part pages it zeroed (fallocate's PUNCH_HOLE, MADV_REMOVE;
	 * inode->lock held). NULL: the file system cannot (-EOPNOTSUPP, as
	 * Linux's ext2). */
	int (*punch_hole)(struct inode *ip, uint64_t off, uint64_t len);
	/* Where page index of ip (wholly inside the file) lies on sb->bdev,
	 * for a swap file (Linux's bmap): PAGE_CONTIGUOUS with *sector its
	 * first sector, PAGE_SCATTERED (its blocks are not neighbours on the
	 * disk), PAGE_HOLE (a block is missing), or -EIO / -EUCLEAN (a block
	 * map that cannot be read). inode->lock held. NULL: this file
	 * system's files cannot be swap files (tmpfs's, as on Linux). */
	int (*bmap_page)(struct inode *ip, uint64_t index, uint64_t *sector);
};

/* bmap_page's answers. */
enum page_blocks { PAGE_CONTIGUOUS, PAGE_SCATTERED, PAGE_HOLE };

struct inode {
	struct super_block *sb;
	uint64_t ino;
	uint32_t mode;              /* S_IF* type and permission bits */
	uint32_t nlink;
	uint32_t uid, gid;
	uint32_t rdev;              /* device nodes: MKDEV(major, minor) */
	uint64_t size;
	uint64_t blocks;            /* 512-byte units in use (st_blocks) */
	struct vfs_time atime, mtime, ctime;
	int refs;                   /* atomic; see the top */
	const struct inode_ops *op;
	const struct file_ops *fop; /* what open gives (regular files: fs/read_write.c) */
	struct pagecache *mapping;  /* regular files and symlinks: their pages */
	struct pagecache data;      /* the cache mapping points at, for most */
	struct vmobject vmobj;      /* what mmap maps: the pages of mapping */
	struct mutex lock;          /* size and contents (see the top) */
	struct rwsem invalidate;    /* faults against truncation (see the top) */
	bool swapfile;              /* an active swap area (kernel/swapfile.c): its blocks hold
				     * swapped-out pages, so write, truncate and fallocate fail
				     * (-ETXTBSY), a store through a mapping too (SIGBUS), and
				     * unlink and rename (-EPERM), as Linux's S_SWAPFILE; set and
				     * cleared under lock and invalidate (exclusive) */
	void *ptshare;              /* shared text page tables (mm/ptshare_text.c) */
	struct dentry *alias;       /* a name of it, for /proc/PID/maps (not counted) */
	bool dirty;                 /* fields changed since op->write_inode last wrote them */
	uint64_t dirtied_ns;        /* clock_ns() when dirty was last set (the flusher's age) */
	uint64_t priv;              /* the file system's own */
	struct list sb_link;        /* on sb->inodes */
	struct list idle_link;      /* on the idle list while on_idle (fs/inode.c) */
	bool on_idle;               /* under the idle list's lock */
	struct list locks;          /* advisory locks (fs/locks.c, under file_locks_lock) */
};

enum dentry_flags {
	DENTRY_VOLATILE = 0x1,      /* forget it when unused (/proc's names) */
	DENTRY_DEAD = 0x2,          /* unlinked or renamed over: out of the tree */
	DENTRY_LRU = 0x4,           /* on the list of unused dentries (dcache_shrink's) */
	DENTRY_REFERENCED = 0x8,    /* used again since it went on that list: spared once */
};

struct dentry {
	struct dentry *parent;      /* itself for a file system's root */
	struct inode *inode;
	struct super_block *sb;
	struct list children;       /* its cached entries (a directory's) */
	struct list sibling;        /* on parent->children */
	struct list lru;            /* on the unused list while DENTRY_LRU */
	int refs;                   /* under dcache_lock */
	int mounts;                 /* mounts on it (under dcache_lock) */
	unsigned flags;             /* enum dentry_flags */
	uint64_t seq;               /* creation order in its directory (tmpfs's readdir position) */
	uint64_t next_seq;          /* a directory's next child's seq */
	size_t len;
	char *name;                 /* len bytes and a NUL: iname, or kmalloc'd when long */
	char iname[40];
};

struct mount {
	struct super_block *sb;
	struct dentry *root;        /* sb's root dentry */
	struct mount *parent;       /* the mount it sits on (itself: the root mount) */
	struct dentry *mountpoint;  /* where in parent */
	char source[64];            /* /proc/mounts' first column ("/dev/vda", "tmpfs") */
	unsigned flags;             /* MS_RDONLY, MS_NOSUID, ... as given */
	int refs;                   /* paths holding it (under dcache_lock) */
	struct list link;           /* on the mount table */
};

struct path {
	struct mount *mnt;
	struct dentry *dentry;
};

/* Why a file system commits (super_ops.commit, vfs_commit). */
enum commit_scope {
	COMMIT_FSYNC,        /* fsync: the file's pages and inode were written */
	COMMIT_BACKGROUND,   /* the flusher: flush only if something is held */
	COMMIT_SYNC,         /* sync, syncfs, umount: every file and directory was written */
};

struct super_ops {
	/* The last reference to ip went and it has no links: free its
	 * blocks and its number on the store (NULL: nothing to free). */
	void (*evict)(struct inode *ip);
	/* Free ip's memory, the file system's own inode around it (NULL:
	 * kfree(ip)); its page cache is gone already. */
	void (*free_inode)(struct inode *ip);
	/* statfs: fill blocks/free counts; 0 or -errno. */
	int (*statfs)(struct super_block *sb, uint64_t out[6]);  /* bsize, blocks, bfree, bavail, files, ffree */
	/* Write everything dirty the file system keeps (bitmaps, superblock)
	 * and mark it clean for an unmount when `final` (sync, umount). */
	int (*sync)(struct super_block *sb, bool final);
	/* Make what was written durable (FLUSH the disk), then give back what
	 * the file system held until it was (ext2: freed blocks and inode
	 * numbers, see fs/ext2/alloc.c): 0 or -EIO. NULL: vfs_commit flushes
	 * the disk (FSYNC, SYNC) or does nothing (BACKGROUND). */
	int (*commit)(struct super_block *sb, enum commit_scope scope);
};

#define SB_RDONLY 0x1
#define SB_VOLATILE 0x2             /* names made up on lookup (/proc): not cached */
#define SB_RECLAIMABLE 0x4          /* names and inodes are on a store (ext2): unused
				     * dentries and idle clean inodes are freed when
				     * memory is short (tmpfs's dentries are the
				     * directory: never) */

struct super_block {
	const struct fs_type *type;
	const struct super_ops *ops;
	struct dentry *root;
	struct rwsem ns;            /* names (see the top) */
	unsigned flags;             /* SB_RDONLY */
	uint32_t dev;               /* st_dev of its files */
	uint32_t magic;             /* statfs f_type */
	struct blkdev *bdev;        /* disk file systems */
	int active;                 /* mounts of it (under dcache_lock) */
	void *priv;
	struct spinlock inodes_lock;
	struct list inodes;         /* every inode of it in memory */
	uint64_t next_ino;          /* in-memory file systems' numbers */
};

struct fs_type {
	const char *name;           /* "ext2", "tmpfs", "proc" */
	/* Read (or make) a file system from source (a disk's path or
	 * nothing) with mount flags and data (options text or NULL): its
	 * super block with a root dentry, or -errno (-EINVAL: not this kind,
	 * -ENOTBLK, -EUCLEAN, -EIO, -ENOMEM). */
	int (*mount)(const struct fs_type *t, struct blkdev *bdev, unsigned flags,
		     const char *data, struct super_block **out);
	/* Undo mount: the last mount of sb went (after sync; its dentries
	 * and idle inodes are gone; the VFS frees sb after). NULL: nothing. */
	void (*kill)(struct super_block *sb);
	bool needs_disk;
};

/* ---- inodes (fs/inode.c) ---- */

/* Set up ip, zeroed memory inside a file system's own inode (ext2's):
 * one reference, one link, the times now, its lock, and a page cache with
 * pc_ops for a regular file, a directory or a symlink (NULL: none). Not
 * on sb's list yet: inode_insert puts it there once ino is set. */
void inode_init(struct inode *ip, struct super_block *sb, uint32_t mode,
		const struct pagecache_ops *pc_ops);
/* Put ip on its sb's list, unless an inode of its number is there: ip,
 * or that other one with a reference (the caller frees ip). */
struct inode *inode_insert(struct inode *ip);
/* The inode numbered ino of sb in memory, with a reference, or NULL. */
struct inode *inode_find(struct super_block *sb, uint64_t ino);
/* A new inode of sb (zeroed, one reference, on sb->inodes, a page cache
 * whose ops are pc_ops when it is a regular file or a symlink and pc_ops
 * is not NULL); NULL when out of memory. The file system fills the rest.
 * An inode of an SB_VOLATILE file system is freed with its last reference. */
struct inode *inode_new(struct super_block *sb, uint32_t mode, const struct pagecache_ops *pc_ops);
/* Take / drop a reference; the last drop of an unlinked inode evicts it
 * (sb->ops->evict, then its cache is emptied and it is freed once no
 * mapping holds it). NULL is ignored. */
struct inode *inode_get(struct inode *ip);
void inode_put(struct inode *ip);
/* The object mmap maps for ip: its page cache (-EIO past the end). */
struct vmobject *inode_vmobject(struct inode *ip);
/* The inode whose object obj is, or NULL (shared anonymous memory). */
struct inode *vmobject_inode(struct vmobject *obj);
/* Free every inode of sb nobody holds (no eviction: their links are on
 * the store; a later lookup reads them again): at umount, and to forget
 * cached inodes. true if none is left (at umount, an inode still held --
 * a process's exe -- stays, and so does sb). */
bool sb_drop_inodes(struct super_block *sb);
/* Memory is short: free up to n idle inodes of SB_RECLAIMABLE file
 * systems (no reference, still linked, nothing unwritten: fields nor
 * pages), those idle longest first, with their cached pages; a later
 * lookup reads them again. Inodes freed. No lock may be held. */
uint64_t inode_shrink(uint64_t n);
/* Inodes in memory, and of them idle ones of SB_RECLAIMABLE file systems
 * (/proc/sys/fs/inode-nr). */
struct inode_stats {
	uint64_t inodes, idle;
};
extern struct inode_stats inode_stats;
/* Does a VMA map a file of sb? (umount is EBUSY then, as on Linux, where
 * the mapping holds the file open.) */
bool sb_has_mapped_files(struct super_block *sb);
/* Make pages [first, last] of regular file ip durable (fsync's work for
 * one range: msync): written back, its inode written, the disk flushed.
 * 0 or the first error (-EIO). */
int inode_sync_range(struct inode *ip, uint64_t first, uint64_t last);
/* Now, for timestamps. */
struct vfs_time vfs_now(void);
/* Set mtime and ctime to now (a write, a create in a directory). */
void inode_touch(struct inode *ip);
/* ip's fields changed: op->write_inode must write them (sync, fsync, or
 * the flusher once they are old). */
void inode_mark_dirty(struct inode *ip);
/* File times are clock_ns() (arch/x86_64/timer.h) plus this many ns since
 * 1970: the wall clock at boot (kernel/time.c reads the RTC and sets it
 * before the root is mounted). */
void vfs_set_epoch(uint64_t ns);

/* ---- dentries (fs/dcache.c) ---- */

/* dcache_lock: see the top. */
extern struct spinlock dcache_lock;
/* A root dentry for sb with inode ip (its reference passes to it). */
struct dentry *dentry_root(struct super_block *sb, struct inode *ip);
/* The cached child name[0..len) of dir with a reference, or NULL. */
struct dentry *dentry_find(struct dentry *dir, const char *name, size_t len);
/* Add child name of dir for inode ip (ip's reference passes to it):
 * the new dentry with a reference, or an existing one (another task added
 * it first: ip is put), or NULL (no memory: ip put). */
struct dentry *dentry_add(struct dentry *dir, const char *name, size_t len,
			  struct inode *ip, unsigned flags);
struct dentry *dentry_get(struct dentry *d);
void dentry_put(struct dentry *d);
/* d's name was unlinked or replaced: take it out of the tree (open files
 * keep it; its inode goes with its last reference). */
void dentry_drop(struct dentry *d);
/* The room a name of len bytes needs beyond a dentry's inline buffer, made
 * before a rename changes anything (a tmpfs name lives only in its dentry:
 * it must not be lost for want of memory after the rename): 0 with *buf
 * NULL (the inline buffer holds it) or a new buffer, or -ENOMEM. */
int dentry_name_prepare(size_t len, char **buf);
/* Move d under ndir with name (rename; dcache_lock taken inside); buf:
 * dentry_name_prepare's, now d's. */
void dentry_move(struct dentry *d, struct dentry *ndir, const char *name, size_t len, char *buf);
/* Trade the places (parents and names) of a and b (RENAME_EXCHANGE). */
void dentry_exchange(struct dentry *a, struct dentry *b);
/* Every cached, unused dentry of sb's tree is dropped (umount). */
void dentry_prune(struct super_block *sb);
/* Memory is short: free up to n unused dentries of SB_RECLAIMABLE file
 * systems, least recently used first (one used again since it became
 * unused is spared once, as Linux's DCACHE_REFERENCED). A parent left
 * unused by it becomes a candidate in turn. Dentries freed. Takes
 * dcache_lock; no lock may be held (inode_put of their inodes). */
uint64_t dcache_shrink(uint64_t n);
/* Dentries in memory, and of them unused ones on the shrink list
 * (/proc/sys/fs/dentry-state). */
struct dcache_stats {
	uint64_t dentries, unused;
};
extern struct dcache_stats dcache_stats;
/* The file system is unmounted and its tree pruned: free its root
 * dentry, dropping the sb's own reference (sb->root holds one from
 * dentry_root on); panics if anything else still uses it. */
void dentry_kill_root(struct super_block *sb);
/* Is d an ancestor of (or equal to) e? (rename into itself) */
bool dentry_is_ancestor(struct dentry *d, struct dentry *e);

/* ---- mounts and paths (fs/mount.c, fs/namei.c) ---- */

void path_get(const struct path *p);
void path_put(struct path *p);

/* What a process walks from: its root, its current directory, its umask
 * (kernel/thread.h's fs_context holds one). */
struct fs_root {
	struct path root, cwd;
};

enum lookup_flags {
	LOOKUP_FOLLOW = 0x1,        /* follow a symlink in the last component */
	LOOKUP_DIRECTORY = 0x2,     /* the last component must be a directory */
	LOOKUP_EMPTY = 0x4,         /* "" names the start itself (AT_EMPTY_PATH) */
};

/* Walk name from start (a directory; NULL: fs->cwd, or fs->root for
 * absolute names): *out with references. 0, -ENOENT, -ENOTDIR, -ELOOP,
 * -ENAMETOOLONG, -EACCES, -EIO, ... */
int path_walk(const struct fs_root *fs, const struct path *start, const char *name,
	      enum lookup_flags flags, struct path *out);
/* The directory of name's last component (*dir, with references) and
 * that component (*last, *len into name): for create, unlink, rename.
 * A name ending in "." or ".." or "/" gives *len 0 with dir itself.
 * Errors as path_walk's. */
int path_parent(const struct fs_root *fs, const struct path *start, const char *name,
		struct path *dir, const char **last, size_t *len);
/* The absolute path of p as seen from fs's root into buf (n bytes, with
 * its NUL): its length with the NUL, or -ERANGE. A dead (unlinked) name
 * ends in " (deleted)" as Linux's d_path. */
long path_name(const struct fs_root *fs, const struct path *p, char *buf, uint64_t n);
/* path_name with dcache_lock held (no reference taken or dropped). */
long path_name_locked(const struct fs_root *fs, const struct path *p, char *buf, uint64_t n);

/* d's absolute path from the root of everything, through the first mount
 * of its file system (a file's name for /proc/PID/maps), dcache_lock held:
 * its length with the NUL, -ERANGE, or -ENOENT (its file system is not
 * mounted). */
long dentry_name_locked(struct dentry *d, char *buf, uint64_t n);

/* The root mount's root (for kernel threads and init). */
void vfs_root(struct path *out);

/* Set up the VFS's locks and give reclaim its shrinkers (boot, before any mount). */
void vfs_init(void);
/* A new super block of type t (zeroed, its locks and lists ready), or NULL. */
struct super_block *sb_new(const struct fs_type *t, const struct super_ops *ops);
/* The last mount of sb went (after its sync): its dentries, its inodes
 * (none held but by a process's exe), the file system's own (type->kill),
 * and sb itself. */
void sb_release(struct super_block *sb);
/* Disks as device numbers (Linux's virtio-blk: major 253, 16 minors a
 * disk): the number of disk index, and the disk of a number (or NULL). */
uint32_t blkdev_devt(int index);
uint32_t blkdev_devt_of(struct blkdev *d);
struct blkdev *blkdev_by_devt(uint32_t rdev);

/* Unpack the ustar archive at [start, end) physical into directory `at`
 * ("/", or "/run" beside a disk root) at boot: the number of files, or
 * -errno (-EINVAL: a bad archive). */
int initramfs_unpack(const struct fs_root *fs, const char *at, paddr_t start, paddr_t end);
/* tmpfs (fs/tmpfs.c). */
extern const struct fs_type tmpfs_type;
/* Shared anonymous memory (MAP_SHARED|MAP_ANONYMOUS, Linux's
 * shmem_zero_setup): shmem_init (at boot) makes the tmpfs it lives on,
 * never mounted; shmem_object_new makes a file of size bytes there with no
 * name and returns its backing object (kind VMOBJ_SHM) with one reference
 * for the caller, which gives it to as_mmap and then drops its own: the
 * file goes with its last mapping. NULL when out of memory. */
void shmem_init(void);
struct vmobject *shmem_object_new(uint64_t size);

/* Register a kind of file system (boot). */
void fs_type_register(const struct fs_type *t);

/* mount(2): mount a file system of type (or a disk's, with its source
 * path) on target: 0 or -EBUSY, -ENODEV (unknown type), -ENOTBLK,
 * -EINVAL, -ENOENT, -ENOTDIR, ... */
int vfs_mount(const struct fs_root *fs, const char *source, const char *target,
	      const char *type, unsigned flags, const char *data);
/* umount2(2): 0, -EINVAL (not a mount point), -EBUSY (in use). */
int vfs_umount(const struct fs_root *fs, const char *target, int flags);
/* Mount the root file system (boot): type on bdev (NULL: none). */
int vfs_mount_root(const char *type, struct blkdev *bdev, const char *source);
/* /proc/mounts' text. */
void vfs_show_mounts(struct textbuf *tb);
/* Write back every file system (sync(2)); `final`: before power-off, each
 * left clean. 0 or the first error. */
int vfs_sync_all(bool final);
/* Write back the file system of ip (syncfs). */
int vfs_sync_sb(struct super_block *sb);
/* sb's commit (super_ops.commit): what was written durable: 0 or -EIO. */
int vfs_commit(struct super_block *sb, enum commit_scope scope);
/* The flusher's round: every file's pages and fields dirtied before
 * `before` (clock_ns()) written out, on every mounted file system, then
 * every disk's own cache (file systems' metadata) dirtied before it. */
void vfs_flush_old(uint64_t before);

/* ---- what the system calls do on names (fs/namei.c) ---- */

int vfs_create(const struct fs_root *fs, const struct path *start, const char *name,
	       uint32_t mode, uint32_t rdev, struct path *out);   /* O_CREAT|O_EXCL, mknod */
int vfs_mkdir(const struct fs_root *fs, const struct path *start, const char *name, uint32_t mode);
int vfs_symlink(const struct fs_root *fs, const struct path *start, const char *name,
		const char *target);
int vfs_link(const struct fs_root *fs, const struct path *ostart, const char *oname,
	     const struct path *nstart, const char *nname, enum lookup_flags flags);
enum unlink_kind { UNLINK_FILE, UNLINK_DIR };
int vfs_unlink(const struct fs_root *fs, const struct path *start, const char *name,
	       enum unlink_kind kind);
#define RENAME_NOREPLACE 1
#define RENAME_EXCHANGE 2
int vfs_rename(const struct fs_root *fs, const struct path *ostart, const char *oname,
	       const struct path *nstart, const char *nname, unsigned flags);
/* readlink of name (not followed): its length, -EINVAL (not a link). */
long vfs_readlink(const struct fs_root *fs, const struct path *start, const char *name,
		  char *buf, uint64_t n);
/* Change ip's size (truncate, ftruncate, O_TRUNC): 0, -EISDIR, -EINVAL,
 * -EFBIG, -EROFS, -ETXTBSY (a swap file), -errno of the file system. */
int vfs_truncate(struct inode *ip, uint64_t size);
/* fallocate mode 0: the blocks of [off, off + len) made on the store
 * (prepare_write), the size grown to cover it; keep_size: only the part
 * inside the file (blocks past the end are not valid on every disk
 * format). 0, -ENOSPC, -EFBIG, -ETXTBSY (a swap file), -errno. */
int vfs_fallocate(struct inode *ip, uint64_t off, uint64_t len, bool keep_size);
/* fallocate's PUNCH_HOLE (with KEEP_SIZE), MADV_REMOVE: [off, off + len)
 * of ip, inside the file, reads zeros from now on, in every mapping
 * (private copies stay, as Linux's) and on the store; the size stays.
 * 0, -EOPNOTSUPP (the file system has no punch_hole), -ETXTBSY, -errno. */
int vfs_punch_hole(struct inode *ip, uint64_t off, uint64_t len);
/* posix_fadvise's advice (Linux's values). */
enum {
	POSIX_FADV_NORMAL, POSIX_FADV_RANDOM, POSIX_FADV_SEQUENTIAL, POSIX_FADV_WILLNEED,
	POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE,
};
/* posix_fadvise of [off, off + len) of ip (len 0: to the end), as Linux's
 * generic_fadvise: WILLNEED reads the range into the cache now, DONTNEED
 * starts writing its dirty pages and drops its clean pages that nobody
 * maps or holds; NORMAL, RANDOM, SEQUENTIAL, NOREUSE are accepted (read()
 * finds a sequential or random reader by itself; a mapping takes
 * madvise's advice). Nothing for a file that is not regular. 0, or
 * -EINVAL for an unknown advice. */
int vfs_fadvise(struct inode *ip, uint64_t off, uint64_t len, int advice);
/* Is the mount p is in, or its file system, read-only? */
bool path_readonly(const struct path *p);
/* Write ip's changed fields out (chmod, utimensat). */
int inode_changed(struct inode *ip);

#endif
