// Lazy initialisation with std::call_once from several std::threads (a
// correct program).
//
// The initialiser yields half-way; threads that call std::call_once
// meanwhile must wait for it and then see the finished result. stdbg must
// find nothing: the initialiser runs once.
#include <cstdio>
#include <mutex>
#include <thread>
#include <stdbg.h>

static std::once_flag flag;
static int runs;
static int answer;

static void init()
{
	runs++;
	stdbg_yield(); // half-way
	answer = 42;
}

static void use()
{
	std::call_once(flag, init);
	stdbg_assert(answer == 42, "call_once returns after the initialiser finished");
}

int main()
{
	std::thread a(use), b(use);
	use();
	a.join();
	b.join();
	stdbg_assert(runs == 1, "the initialiser runs once");
	std::printf("initialised %d time(s)\n", runs);
	return 0;
}
