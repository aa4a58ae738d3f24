/* fixture: a transport reaching up into execute */
#include "execute/execute.h"
