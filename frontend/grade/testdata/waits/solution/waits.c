#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* pause_a_little sleeps 200 ms in the kernel. */
static void pause_a_little(void)
{
	struct timespec ts = {0, 200 * 1000 * 1000};
	syscall(SYS_nanosleep, &ts, NULL);
}
