/* The resource is a mutex. */
static pthread_mutex_t resource = PTHREAD_MUTEX_INITIALIZER;

void claim(int me)
{
	(void)me;
	pthread_mutex_lock(&resource);
}

void release(int me)
{
	(void)me;
	pthread_mutex_unlock(&resource);
}
