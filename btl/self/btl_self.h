/* btl/self: a rank's messages to itself. */
#ifndef BTL_SELF_H
#define BTL_SELF_H

#include "btl.h"

extern struct btl_component btl_self_component;

#endif
