#include <stdlib.h>
#include <string.h>
#include <stdbg.h>
static void work(void)
{
	for (;;) {
		char *p = malloc(1 << 20);
		stdbg_assert(p != NULL, "out of memory");
		memset(p, 1, 1 << 20);
	}
}
