/* fixture: a transport reaching up into execute with angle brackets */
#include <execute/execute.h>
