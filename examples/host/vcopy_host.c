/*
 * vcopy_host.c - a complete C host program for a ptxtile kernel: load the
 * PTX and metadata that `ptxtile compile` wrote, launch the kernel with a
 * runtime size, and check the result on the host.
 *
 *   build/ptxtile compile examples/vcopy_dynamic.py \
 *       -o vcopy_dynamic.ptx --meta vcopy_dynamic.json
 *   build/vcopy_host vcopy_dynamic.ptx vcopy_dynamic.json [n]
 *
 * (`make` builds build/vcopy_host; it needs only libptxtile_rt and libdl:
 * cc -Iinclude examples/host/vcopy_host.c build/libptxtile_rt.a -ldl -lm.)
 * The kernel copies an (n, 4) float32 tensor A to B; n defaults to 1000,
 * which is not a multiple of the 128-thread block, so the last block
 * runs its tail guard.  B gets one extra row filled with a sentinel,
 * which must survive.  Exit status: 0 correct, 1 wrong or failed, 77 no
 * CUDA driver or GPU (nothing to run on).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxtile_rt.h"

#define SENTINEL (-12345.0f)

/* The whole file, NUL-terminated; NULL when it cannot be read. */
static char *
read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0, got;
	char chunk[65536];
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (n + got + 1 > cap) {
			cap = 2 * (n + got + 1);
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		memcpy(buf + n, chunk, got);
		n += got;
	}
	fclose(f);
	if (!buf)
		buf = calloc(1, 1);
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

/* Reports a runtime failure; 77 when there is nothing to run on. */
static int
fail(ptrt_ctx *rt, int rc, const char *what)
{
	fprintf(stderr, "vcopy_host: %s: %s\n", what, ptrt_errmsg(rt));
	if (ptrt_jit_log(rt)[0])
		fprintf(stderr, "%s\n", ptrt_jit_log(rt));
	return rc == PT_E_RT_NO_DRIVER || rc == PT_E_RT_NO_DEVICE ? 77 : 1;
}

static int
run(ptrt_ctx *rt, const char *ptx, size_t ptx_len, const char *meta,
    size_t meta_len, int64_t n)
{
	ptrt_module *m = NULL;
	ptrt_kernel *k = NULL;
	int rc = ptrt_module_load(rt, ptx, ptx_len + 1, meta, meta_len, &m);
	if (rc != PT_OK)
		return fail(rt, rc, "loading the module");
	if ((rc = ptrt_kernel_get(m, "vcopy_dynamic", &k)) != PT_OK)
		return fail(rt, rc, "finding kernel vcopy_dynamic");
	size_t elems = (size_t)n * 4, bytes = elems * sizeof(float);
	float *a = malloc(bytes), *b = malloc(bytes + 4 * sizeof(float));
	if (!a || !b) {
		free(a);
		free(b);
		fprintf(stderr, "vcopy_host: out of host memory\n");
		return 1;
	}
	for (size_t i = 0; i < elems; i++)
		a[i] = (float)i * 0.5f - 7.0f;
	for (size_t i = 0; i < elems + 4; i++)
		b[i] = SENTINEL;
	ptrt_devptr da = 0, db = 0;
	int status = 1;
	int64_t shape[2] = {n, 4};
	if ((rc = ptrt_alloc(rt, bytes, &da)) != PT_OK ||
	    (rc = ptrt_alloc(rt, bytes + 4 * sizeof(float), &db)) != PT_OK ||
	    (rc = ptrt_copy_htod(rt, da, a, bytes)) != PT_OK ||
	    (rc = ptrt_copy_htod(rt, db, b, bytes + 4 * sizeof(float))) !=
		    PT_OK) {
		status = fail(rt, rc, "preparing device memory");
		goto out;
	}
	/* B is passed with n rows: the extra row is beyond the tensor */
	ptrt_arg args[] = {ptrt_arg_tensor(da, PTRT_FLOAT32, 2, shape, NULL),
			   ptrt_arg_tensor(db, PTRT_FLOAT32, 2, shape, NULL)};
	if ((rc = ptrt_launch(k, args, 2, NULL)) != PT_OK ||
	    (rc = ptrt_sync(rt)) != PT_OK ||
	    (rc = ptrt_copy_dtoh(rt, b, db, bytes + 4 * sizeof(float))) !=
		    PT_OK) {
		status = fail(rt, rc, "running the kernel");
		goto out;
	}
	status = 0;
	for (size_t i = 0; i < elems + 4 && !status; i++) {
		float want = i < elems ? a[i] : SENTINEL;
		if (memcmp(&b[i], &want, sizeof want) != 0) {
			fprintf(stderr, "vcopy_host: B[%zu][%zu] = %g, expected "
				"%g\n", i / 4, i % 4, (double)b[i],
				(double)want);
			status = 1;
		}
	}
	if (!status)
		printf("vcopy_dynamic: n=%lld rows copied, row %lld untouched\n",
		       (long long)n, (long long)n);
out:
	if (da)
		ptrt_free(rt, da);
	if (db)
		ptrt_free(rt, db);
	free(a);
	free(b);
	return status;
}

int
main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: vcopy_host KERNEL.ptx KERNEL.json [n]\n");
		return 1;
	}
	int64_t n = argc == 4 ? strtoll(argv[3], NULL, 10) : 1000;
	if (n < 1 || n > (1 << 26)) {
		fprintf(stderr, "vcopy_host: n must be in [1, 2^26]\n");
		return 1;
	}
	size_t ptx_len = 0, meta_len = 0;
	char *ptx = read_all(argv[1], &ptx_len);
	char *meta = read_all(argv[2], &meta_len);
	if (!ptx || !meta) {
		fprintf(stderr, "vcopy_host: cannot read %s\n",
			ptx ? argv[2] : argv[1]);
		free(ptx);
		free(meta);
		return 1;
	}
	ptrt_ctx *rt = NULL;
	int rc = ptrt_open(&rt);
	int status = rc == PT_OK ? run(rt, ptx, ptx_len, meta, meta_len, n)
				 : fail(rt, rc, "opening the CUDA driver");
	ptrt_close(rt);
	free(ptx);
	free(meta);
	return status;
}
