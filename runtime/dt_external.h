/* Conversion to and from "external32". */
#ifndef RT_DT_EXTERNAL_H
#define RT_DT_EXTERNAL_H

#include "datatype.h"

#include <stdbool.h>

/* Bytes of one element of d in external32. */
int rt_dt_ext32_size(const struct rdmpi_datatype *d, size_t *esize);
/* Packs (to_ext) count elements of (buf, d) into ext, or unpacks them. */
int rt_dt_ext32(const struct rdmpi_datatype *d, void *buf, size_t count, void *ext, bool to_ext);

#endif
