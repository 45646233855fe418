/* Prints the process's module map the way stdbg's preloaded library reports
 * it: load bias, lowest and highest PT_LOAD address, path. */
#ifndef MODMAP_H
#define MODMAP_H
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int modmap_cb(struct dl_phdr_info *info, size_t size, void *data) {
	int *first = (int *)data;
	char buf[PATH_MAX];
	const char *name = info->dlpi_name;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	(void)size;
	if (*first) {
		*first = 0;
		if (realpath("/proc/self/exe", buf) != NULL)
			name = buf;
	}
	if (name == NULL || name[0] == 0)
		name = "-";
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type != PT_LOAD)
			continue;
		uintptr_t s = info->dlpi_addr + p->p_vaddr, e = s + p->p_memsz;
		if (s < lo)
			lo = s;
		if (e > hi)
			hi = e;
	}
	if (hi > lo)
		printf("MOD %#lx %#lx %#lx %s\n", (unsigned long)info->dlpi_addr,
		       (unsigned long)lo, (unsigned long)hi, name);
	return 0;
}

static void print_modmap(void) {
	int first = 1;
	dl_iterate_phdr(modmap_cb, &first);
}
#endif
