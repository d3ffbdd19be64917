/*
 * io.c - whole-file reads and atomic writes for the CLI and tests.
 *
 * Output files are written to a temporary name beside the target and
 * renamed into place, so an error never leaves a partial or truncated file.
 * Devices and pipes (not regular files) are written in place.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

char *
read_file(Arena *a, const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f)
		return NULL;
	StrBuf b;
	sb_init(&b, a);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
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
write_in_place(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(data, 1, len, f) == len;
	return (fclose(f) == 0) && ok;
}

bool
write_file_atomic(const char *path, const char *data, size_t len)
{
	if (strcmp(path, "-") == 0)
		return fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0;
	/* A device or pipe (say /dev/null) is written in place: renaming a
	 * temporary file over it would replace the device node. */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return write_in_place(path, data, len);
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 32);
	if (!tmp)
		return false;
	snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	bool ok = f != NULL;
	if (ok) {
		ok = fwrite(data, 1, len, f) == len;
		ok = (fclose(f) == 0) && ok;
	}
	if (ok)
		ok = rename(tmp, path) == 0;
	if (!ok)
		remove(tmp);
	free(tmp);
	return ok;
}
