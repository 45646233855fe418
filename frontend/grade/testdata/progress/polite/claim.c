/* Each thread announces its wish, and withdraws while the other wants the
 * resource too: both can withdraw in step for ever. */
static volatile int want[2];

void claim(int me)
{
	for (;;) {
		want[me] = 1;
		sched_yield();
		if (!want[1 - me])
			return;
		want[me] = 0;
		sched_yield();
	}
}

void release(int me)
{
	want[me] = 0;
}
