/* For tests only: a BTL the test program builds (test/pml/fake_btl.c)
 * replaces the compiled-in ones, so the pml runs over a transport whose
 * every operation the test scripts. Not part of any BTL's contract. */
#ifndef BTL_TEST_H
#define BTL_TEST_H

#include "btl.h"

/* Before MPI_Init: c becomes the only component btl_open_all opens
 * (RDMPI_BTL is ignored). NULL goes back to the compiled-in ones. */
void btl_test_install(struct btl_component *c);

#endif
