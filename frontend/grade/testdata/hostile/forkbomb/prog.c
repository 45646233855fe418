#include <unistd.h>
static void work(void)
{
	for (;;)
		fork();
}
