/*
 * stubs.c - stages not written yet.  Each returns an environment failure
 * so that nothing pretends to work.  Remove a stub when its stage lands.
 */
#include "api.h"
