__attribute__((noinline)) void *so_here(void) { return __builtin_return_address(0); }

void *shared_here(void) {
	void *ra = so_here(); /* LINE_SO */
	return ra;
}

static long so_table[4];

void *shared_table_addr(void) { return &so_table[2]; }
