#include "transport/t.h"
/* the link may include its transport */
int l_open(void) { return t_open(); }
