/*
 * io.c - whole-file reads and atomic writes for the CLI and tests.
 *
 * Output files are written to a temporary file made by mkstemp (O_EXCL,
 * so a planted name or symlink is never followed) in the target's own
 * directory and renamed into place, so an error never leaves a partial
 * or truncated file.  A symlink is written through: the file it names is
 * replaced and the link stays.  Devices and pipes (not regular files,
 * /dev/stdout included) are written in place.  Staging (out_stage) and
 * committing (out_commit) are separate so that several outputs can all
 * be staged before any is renamed.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

char *
read_file(Arena *a, const char *path, size_t *len)
{
	return read_file_max(a, path, SIZE_MAX - 1, len);
}

/* Reads at most max + 1 bytes: a stream that never ends (/dev/zero, a
 * pipe) stops one byte past the budget, which the caller reports, instead
 * of growing until memory runs out. */
char *
read_file_max(Arena *a, const char *path, size_t max, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f)
		return NULL;
	StrBuf b;
	sb_init(&b, a);
	char buf[65536];
	size_t n, want = sizeof(buf);
	while (b.n <= max &&
	       (n = fread(buf, 1, want < max + 1 - b.n ? want : max + 1 - b.n,
			  f)) > 0)
		sb_putn(&b, buf, n);
	bool err = ferror(f);
	if (f != stdin)
		fclose(f);
	if (err)
		return NULL;
	if (len)
		*len = b.n;
	return (char *)sb_cstr(&b);
}

static bool
write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		data += n;
		len -= (size_t)n;
	}
	return true;
}

static bool
is_descriptor_path(const char *p)
{
	return strncmp(p, "/dev/", 5) == 0 || strncmp(p, "/proc/", 6) == 0;
}

/* Whether a chain of symlinks passes through /dev or /proc (a link to
 * /proc/self/fd/1 is the caller's stdout, whatever file that is). */
static bool
links_to_descriptor(const char *path)
{
	char cur[PATH_MAX], next[PATH_MAX];
	struct stat st;
	snprintf(cur, sizeof(cur), "%s", path);
	for (int hop = 0; hop < 40; hop++) {
		if (is_descriptor_path(cur))
			return true;
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return false;
		ssize_t n = readlink(cur, next, sizeof(next) - 1);
		if (n < 0)
			return false;
		next[n] = 0;
		if (next[0] != '/') { /* relative to the link's directory */
			char *slash = strrchr(cur, '/');
			size_t dir = slash ? (size_t)(slash - cur) + 1 : 0;
			if (dir + (size_t)n >= sizeof(cur))
				return false;
			memmove(cur + dir, next, (size_t)n + 1);
		} else {
			memcpy(cur, next, (size_t)n + 1);
		}
	}
	return false;
}

/* Where the bytes go: "-" is stdout, a symlink its (resolved) target. */
static bool
resolve(OutFile *o, const char *path)
{
	struct stat lst, st;
	o->path = path;
	/* /dev/stdout, /dev/fd/N, /proc/self/fd/N name a descriptor that
	 * someone holds open (a shell redirection): replacing the file it
	 * resolves to would hide the output from them */
	o->in_place = strcmp(path, "-") == 0 || is_descriptor_path(path);
	if (o->in_place)
		return true;
	if (lstat(path, &lst) != 0)
		return errno == ENOENT; /* a new file */
	if (S_ISLNK(lst.st_mode) && links_to_descriptor(path)) {
		o->in_place = true;
		return true;
	}
	if (S_ISLNK(lst.st_mode)) {
		char *real = realpath(path, NULL); /* ENOENT: dangling */
		if (!real)
			return false;
		o->real = real;
		o->path = real;
	}
	if (stat(o->path, &st) != 0)
		return false;
	o->in_place = !S_ISREG(st.st_mode);
	return true;
}

bool
out_stage(OutFile *o, const char *path, const char *data, size_t len)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->data = data;
	o->len = len;
	if (!resolve(o, path)) {
		o->err = errno;
		return false;
	}
	if (o->in_place)
		return true; /* written at commit: a device cannot be staged */
	const char *slash = strrchr(o->path, '/');
	size_t dirlen = slash ? (size_t)(slash - o->path) + 1 : 0;
	o->tmp = malloc(dirlen + 32);
	if (!o->tmp) {
		o->err = ENOMEM;
		return false;
	}
	memcpy(o->tmp, o->path, dirlen);
	strcpy(o->tmp + dirlen, ".ptxtile-tmp-XXXXXX");
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		o->err = errno;
		free(o->tmp);
		o->tmp = NULL;
		return false;
	}
	/* mkstemp makes 0600; an output is an ordinary file (umask) */
	mode_t um = umask(0);
	umask(um);
	bool ok = fchmod(fd, 0666 & ~um) == 0 && write_all(fd, data, len);
	if (!ok)
		o->err = errno;
	if (close(fd) != 0 && ok) {
		o->err = errno;
		ok = false;
	}
	if (!ok)
		out_abort(o);
	return ok;
}

bool
out_commit(OutFile *o)
{
	bool ok;
	if (o->tmp) {
		ok = rename(o->tmp, o->path) == 0;
	} else if (strcmp(o->path, "-") == 0) {
		ok = fwrite(o->data, 1, o->len, stdout) == o->len &&
		     fflush(stdout) == 0;
	} else {
		/* append: a descriptor's file (`>>` or earlier output)
		 * keeps what it has; devices and pipes ignore the flag */
		int fd = open(o->path, O_WRONLY | O_APPEND);
		ok = fd >= 0 && write_all(fd, o->data, o->len);
		if (fd >= 0 && close(fd) != 0)
			ok = false;
	}
	if (!ok)
		o->err = errno;
	out_abort(o);
	return ok;
}

void
out_abort(OutFile *o)
{
	if (o->tmp) {
		int e = errno;
		unlink(o->tmp); /* gone already after a rename */
		errno = e;
	}
	free(o->tmp);
	free(o->real);
	o->tmp = o->real = NULL;
}

/* A hard link beside the file that output o replaces (none when there is
 * no such file), so that a later failure can put the file back. */
static bool
keep_backup(OutFile *o)
{
	struct stat st;
	if (lstat(o->path, &st) != 0)
		return errno == ENOENT;
	size_t n = strlen(o->tmp);
	o->bak = malloc(n + 5);
	if (!o->bak) {
		errno = ENOMEM;
		return false;
	}
	memcpy(o->bak, o->tmp, n);
	memcpy(o->bak + n, ".bak", 5);
	/* link() can fail with ENOENT while another writer renames its own
	 * output over the path (600 concurrent compiles to one file: one
	 * failed); the path is never missing, so look again */
	for (int try = 0; try < 100; try++) {
		if (link(o->path, o->bak) == 0)
			return true;
		if (errno != ENOENT)
			break;
		if (lstat(o->path, &st) != 0 && errno == ENOENT) {
			free(o->bak); /* removed meanwhile: nothing to keep */
			o->bak = NULL;
			return true;
		}
	}
	free(o->bak);
	o->bak = NULL;
	return false;
}

int
out_commit_all(OutFile *o, int n)
{
	int bad = -1;
	for (int i = 0; i < n && bad < 0; i++)
		if (o[i].tmp && !keep_backup(&o[i]))
			o[i].err = errno, bad = i;
	for (int i = 0; i < n && bad < 0; i++) {
		if (!o[i].tmp)
			continue;
		o[i].renamed = rename(o[i].tmp, o[i].path) == 0;
		if (!o[i].renamed)
			o[i].err = errno, bad = i;
	}
	/* stdout and devices last: they cannot be taken back */
	for (int i = 0; i < n && bad < 0; i++)
		if (!o[i].tmp && !out_commit(&o[i]))
			bad = i;
	for (int i = 0; i < n; i++) {
		if (bad >= 0 && o[i].renamed) {
			if (o[i].bak)
				rename(o[i].bak, o[i].path);
			else
				unlink(o[i].path);
		} else if (o[i].bak) {
			unlink(o[i].bak);
		}
		free(o[i].bak);
		o[i].bak = NULL;
		out_abort(&o[i]);
	}
	return bad;
}

bool
write_file_atomic(const char *path, const char *data, size_t len)
{
	OutFile o;
	return out_stage(&o, path, data, len) && out_commit(&o);
}
