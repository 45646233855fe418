static volatile int forever = 1;
static void work(void)
{
	while (forever)
		;
}
