/* SPDX-License-Identifier: ISC */
#include "fx_reach.h"

void lib_used(void) { SYS(505); }
void lib_unused(void) { SYS(506); }
void lib_named(void) { SYS(507); }
void lib_typed(void) { SYS(508); }
