#include "transport/t.h"
/* sealed: execute reaches transport only through link */
int reach(void) { return t_open(); }
