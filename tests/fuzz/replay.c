/*
 * replay.c - runs a libFuzzer target without libFuzzer: feeds each file
 * named on the command line to LLVMFuzzerTestOneInput once.  Used by
 * tests/suites/fuzz_replay.sh to replay corpora and saved crash inputs with
 * the project's normal compiler (and sanitizers under make asan).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return 1;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "replay: out of memory on %s\n", path);
		return 1;
	}
	/* A copy of exactly n bytes, so ASan sees reads past the input. */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact) {
		free(buf);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		exact[i] = buf[i];
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

int
main(int argc, char **argv)
{
	int bad = 0;
	for (int i = 1; i < argc; i++)
		bad |= replay_file(argv[i]);
	return bad;
}
