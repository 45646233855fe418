// A queue between a producer and a consumer with std::condition_variable
// (a correct program).
//
// The consumer waits with a predicate (cv.wait(lock, pred)) under a
// std::unique_lock, so wake-ups without an item are harmless; the producer
// notifies after each push. stdbg must find nothing.
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <stdbg.h>

static std::mutex m;
static std::condition_variable cv;
static std::deque<int> queue;

int main()
{
	std::thread producer([] {
		for (int i = 1; i <= 2; i++) {
			{
				std::lock_guard<std::mutex> g(m);
				queue.push_back(i);
			}
			cv.notify_one();
		}
	});
	int sum = 0;
	for (int n = 0; n < 2; n++) {
		std::unique_lock<std::mutex> lk(m);
		cv.wait(lk, [] { return !queue.empty(); });
		stdbg_assert(!queue.empty(), "the predicate holds after the wait");
		sum += queue.front();
		queue.pop_front();
	}
	producer.join();
	stdbg_assert(sum == 3, "every item is consumed once");
	std::printf("sum %d\n", sum);
	return 0;
}
