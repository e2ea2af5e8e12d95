/* Attribute caching on communicators, datatypes and windows. The objects
 * keep a list head; this layer runs the copy and delete callbacks. */
#ifndef RT_ATTR_H
#define RT_ATTR_H

struct rt_attr;

/* Copies src's attributes to a new object (MPI_Comm_dup, MPI_Type_dup),
 * running each keyval's copy callback; kind is RT_KIND_COMM/DATATYPE/WIN. */
int rt_attr_copy(int kind, void *old_handle, struct rt_attr *src,
                 void *new_handle, struct rt_attr **dst);
/* Deletes every attribute, running delete callbacks (object being freed). */
int rt_attr_delete_all(int kind, void *handle, struct rt_attr **list);

#endif
