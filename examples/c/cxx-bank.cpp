// Bank transfers with one std::mutex per account.
//
// transfer() locks the source account, then the destination, with
// std::lock_guard. Bug: one teller moves money from checking to savings
// while another moves it from savings to checking; each takes its source
// lock and then waits for the other's: a deadlock. stdbg must report it
// (both threads blocked in pthread_mutex_lock, called by std::mutex::lock).
// The fix is std::scoped_lock(from.m, to.m), which locks both without
// deadlock. Run natively the program usually finishes.
#include <cstdio>
#include <mutex>
#include <thread>
#include <stdbg.h>

struct Account {
	std::mutex m;
	int balance;
};

static Account checking{{}, 100};
static Account savings{{}, 100};

static void transfer(Account &from, Account &to, int amount)
{
	std::lock_guard<std::mutex> a(from.m);
	std::lock_guard<std::mutex> b(to.m);
	from.balance -= amount;
	to.balance += amount;
}

int main()
{
	std::thread t1([] {
		for (int i = 0; i < 2; i++)
			transfer(checking, savings, 10);
	});
	std::thread t2([] {
		for (int i = 0; i < 2; i++)
			transfer(savings, checking, 5);
	});
	t1.join();
	t2.join();
	stdbg_assert(checking.balance + savings.balance == 200, "money is neither created nor lost");
	std::printf("checking %d, savings %d\n", checking.balance, savings.balance);
	return 0;
}
