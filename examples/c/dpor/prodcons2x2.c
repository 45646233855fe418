/* The 2-producer, 2-consumer bounded buffer of the benchmarks: prodcons.c
 * with P = C = 2 built in (buffer of 2, one mutex, two condition
 * variables, each thread moving 2 items).
 *
 *   stdbg find examples/c/dpor/prodcons2x2.c
 */
#define PRODCONS_FIXED 2
#include "prodcons.c"
