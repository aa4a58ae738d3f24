/* fixture */
#include "transport/upward.h"
