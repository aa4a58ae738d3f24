#include "transport/t.h"
/* sealed: the top reaches transport only through link */
int cmd_x(void) { return t_open(); }
