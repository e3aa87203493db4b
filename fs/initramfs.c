/* fs/initramfs.c -- unpack the initrd (a ustar archive GRUB loaded) into
 * the root tmpfs, as Linux unpacks its initramfs.
 *
 * ustar: a sequence of 512-byte headers, each followed by the file's data
 * rounded up to 512 bytes; two zero blocks end the archive. Directories,
 * regular files and symlinks are kept; every file's bytes are copied into
 * its page cache (written pages of a tmpfs file: they stay).
 */
#include "fs/vfs.h"
#include "fs/file.h"
#include "lib/errno.h"
#include "lib/format.h"
#include "lib/string.h"
#include "arch/x86_64/memlayout.h"

#define TAR_BLOCK 512

struct ustar_header {
	char name[100], mode[8], uid[8], gid[8], size[12], mtime[12];
	char chksum[8], typeflag, linkname[100], magic[6], version[2];
	char uname[32], gname[32], devmajor[8], devminor[8], prefix[155];
};

static uint64_t octal(const char *s, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n && s[i] >= '0' && s[i] <= '7'; i++)
		v = v * 8 + (uint64_t)(s[i] - '0');
	return v;
}

/* mkdir -p of every directory above path's last component. */
static void make_parents(const struct fs_root *fs, char *path)
{
	for (char *c = path + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		(void)vfs_mkdir(fs, NULL, path, 0755);   /* -EEXIST: already there */
		*c = '/';
	}
}

/* A regular file at path with mode and the bytes data[0..size). */
static int add_file(const struct fs_root *fs, const char *path, uint32_t mode,
		    const char *data, uint64_t size)
{
	struct path p;
	int r = vfs_create(fs, NULL, path, S_IFREG | mode, 0, &p);
	if (r < 0)
		return r;
	struct inode *ip = p.dentry->inode;
	long n = size ? pagecache_copy(ip->mapping, 0, (void *)data, size, PC_COPY_IN) : 0;
	if (n >= 0)
		ip->size = (uint64_t)n;
	path_put(&p);
	return n < 0 ? (int)n : (uint64_t)n == size ? 0 : -ENOMEM;
}

/* One archive member; 1 if it was a file, 0 if not, or -errno. */
static int add_member(const struct fs_root *fs, const char *at, const struct ustar_header *h,
		      const char *data, uint64_t size)
{
	char path[256 + 64];
	const char *base = strcmp(at, "/") ? at : "";
	if (h->prefix[0])
		ksnprintf(path, sizeof(path), "%s/%.155s/%.100s", base, h->prefix, h->name);
	else
		ksnprintf(path, sizeof(path), "%s/%.100s", base, h->name);
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	if (n <= 1 || (n >= 2 && !strcmp(path + n - 2, "/.")))
		return 0;              /* the top itself */
	make_parents(fs, path);
	uint32_t mode = (uint32_t)octal(h->mode, sizeof(h->mode)) & 07777;
	char target[101];
	switch (h->typeflag) {
	case '5': {
		int r = vfs_mkdir(fs, NULL, path, mode);
		return r == -EEXIST ? 0 : r;
	}
	case '2':
		ksnprintf(target, sizeof(target), "%.100s", h->linkname);
		return vfs_symlink(fs, NULL, path, target);
	case '0':
	case 0: {
		int r = add_file(fs, path, mode, data, size);
		return r < 0 ? r : 1;
	}
	default:
		return 0;              /* hard links, devices, fifos: not in our archives */
	}
}

int initramfs_unpack(const struct fs_root *fs, const char *at, paddr_t start, paddr_t end)
{
	const char *p = P2V(start), *limit = P2V(end);
	int files = 0;
	while (p + TAR_BLOCK <= limit) {
		const struct ustar_header *h = (const void *)p;
		if (!h->name[0])
			break;
		uint64_t size = octal(h->size, sizeof(h->size));
		const char *data = p + TAR_BLOCK;
		if (data + size > limit)
			return -EINVAL;
		int r = add_member(fs, at, h, data, size);
		if (r < 0)
			return r;
		files += r;
		p = data + ALIGN_UP(size, TAR_BLOCK);
	}
	return files;
}
