/* fixture: a transport reaching up into execute by a relative path */
# include "../execute/execute.h"
