#include "modmap.h"

extern "C" __attribute__((noinline)) void *here(void) { return __builtin_return_address(0); }

namespace ns {
struct Foo {
	int v;
	void *bar();
};

__attribute__((noinline)) void *Foo::bar() {
	void *ra = here(); /* LINE_CXX_BAR */
	return ra;
}

__attribute__((noinline)) void *baz(int x) {
	void *ra = here(); /* LINE_CXX_BAZ */
	(void)x;
	return ra;
}

template <typename T> __attribute__((noinline)) void *twice(T) {
	void *ra = here(); /* LINE_CXX_TWICE */
	return ra;
}

long gval[3];
} // namespace ns

int main() {
	ns::Foo foo{1};
	printf("BAR %p\n", foo.bar());
	printf("BAZ %p\n", ns::baz(2));
	printf("TWICE %p\n", ns::twice<int>(3));
	printf("GVAL1 %p\n", (void *)&ns::gval[1]);
	auto lambda = [](int x) {
		void *ra = here(); /* LINE_CXX_LAMBDA */
		(void)x;
		return ra;
	};
	printf("LAMBDA %p\n", lambda(4));
	print_modmap();
	return 0;
}
