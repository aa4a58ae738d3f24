#include "util/board_token.h"
#include "util/deadline.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static pthread_once_t run_once = PTHREAD_ONCE_INIT;
static unsigned long long run_part;

static void run_part_init(void)
{
	if (getrandom(&run_part, sizeof(run_part), 0) != (ssize_t)sizeof(run_part))
		run_part = ((unsigned long long)clock_mono_us() << 20) ^
			   ((unsigned long long)getpid() << 40) ^ (unsigned long long)clock_wall_us();
}

static uint32_t board_hash(const char *board)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)(board ? board : ""); *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

void board_token(const char *board, char *buf, size_t len)
{
	pthread_once(&run_once, run_part_init);
	snprintf(buf, len, "%016llx-%08x", run_part, (unsigned)board_hash(board));
}

bool board_token_ok(const char *text)
{
	if (!text || strlen(text) != BOARD_TOKEN_LEN || text[16] != '-')
		return false;
	for (size_t i = 0; i < BOARD_TOKEN_LEN; i++)
		if (i != 16 && !((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f')))
			return false;
	return true;
}

bool board_token_of(const char *text, const char *board)
{
	char part[9];
	snprintf(part, sizeof(part), "%08x", (unsigned)board_hash(board));
	return board_token_ok(text) && !strcmp(text + 17, part);
}
