/*
 * A plain main() for the fuzz targets (fuzz_*.c) when not built with
 * libFuzzer: runs the target once over every file named on the command line
 * or found in the directories named (the corpus), so ctest exercises the
 * same code path. With --max-seconds S first, an input that takes longer
 * than S seconds fails the run (libFuzzer's -timeout, for the corpus).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double max_seconds;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	double t0 = now_s();
	LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	double dt = now_s() - t0;
	free(buf);
	if (max_seconds > 0 && dt > max_seconds) {
		fprintf(stderr, "%s: took %.2f s, more than the %.2f s allowed\n", path, dt,
			max_seconds);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int n_files = 0, failed = 0;
	int first = 1;
	if (argc > 2 && strcmp(argv[1], "--max-seconds") == 0) {
		max_seconds = atof(argv[2]);
		first = 3;
	}
	for (int i = first; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "cannot stat %s\n", argv[i]);
			failed++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			failed += run_file(argv[i]) < 0;
			n_files++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
			char *p = malloc(len);
			if (!p)
				return 1;
			snprintf(p, len, "%s/%s", argv[i], e->d_name);
			failed += run_file(p) < 0;
			n_files++;
			free(p);
		}
		if (d)
			closedir(d);
	}
	const char *name = strrchr(argv[0], '/');
	printf("%s: %d inputs run, %d unreadable or too slow\n", name ? name + 1 : argv[0], n_files, failed);
	return failed || n_files == 0 ? 1 : 0;
}
