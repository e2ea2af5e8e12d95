/* A scripted BTL for unit tests of the pml (test/pml/README.md). It reaches
 * only this process: a singleton's messages to itself go through it, and a
 * script of rules decides, per operation, to refuse it (-EAGAIN), fail it,
 * hold it some polls, let the next one overtake it, or drop it. Nothing is
 * delivered from inside a call: like btl/self, delivery and RDMA
 * completion happen in progress. */
#ifndef FAKE_BTL_H
#define FAKE_BTL_H

#include "btl.h"

/* What a rule watches. */
enum fake_op {
    FAKE_SENDI = 1, /* a sendi call (rule.type: the header type it carries) */
    FAKE_ALLOC,     /* an alloc call (the header is not written yet: type 0) */
    FAKE_MSG,       /* a message queued by sendi or send (rule.type: its header type) */
    FAKE_GET,       /* a get call */
    FAKE_PUT,       /* a put call */
    FAKE_REG,       /* a register_mem call */
};

/* What it does. The call-level ones (EAGAIN, FAIL) leave no trace; the
 * others shape the event the operation queued. */
enum fake_act {
    FAKE_EAGAIN = 1, /* the call returns -EAGAIN (alloc: NULL) */
    FAKE_FAIL,       /* the call returns arg, a negative errno */
    FAKE_CFAIL,      /* get/put: accepted, nothing copied, completes with status arg */
    FAKE_HOLD,       /* delivered (or completed) arg polls later */
    FAKE_SWAP,       /* the next event queued goes first; arg polls (0: 1000) if none comes */
    FAKE_DROP,       /* message: never delivered */
    FAKE_ERROR,      /* message: not delivered; the poll that would have
                        delivered it reports error arg (0: -EIO) for this
                        rank through the module's error callback, as a
                        failed send completion; get/put: that poll reports
                        the error, then completes the operation with it
                        (a rail lost mid-message) */
};

/* Modules the component may open (fake_btl_modules). */
#define FAKE_MAX_MODULES 3

/* Rules are tried in the order given; the first that matches an operation
 * and is past its `after` takes it. A matching rule still counting down
 * `after` lets the operation pass (to later rules). */
struct fake_rule {
    enum fake_op op;
    int type;  /* header type (first byte) for SENDI and MSG, 0: any */
    int after; /* matching operations it lets pass first */
    int times; /* operations it then takes; 0: all */
    enum fake_act act;
    int arg;
    int module; /* 0: any module's; k: only fake_module(k - 1)'s */
};

/* What the fake saw and did since install (or fake_counts_reset). */
struct fake_counts {
    unsigned long sendi, alloc, msgs, delivered, gets, puts, regs;
    unsigned long get_bytes, put_bytes; /* of those gets and puts */
    unsigned long eagain, failed, cfailed, held, swapped, dropped, errors;
};
extern struct fake_counts fake_counts;
/* The same per module. */
extern struct fake_counts fake_module_counts[FAKE_MAX_MODULES];

/* Its one module: tests may change the limits and flags before MPI_Init, or
 * between scenarios while nothing is queued. */
extern struct btl_module fake_btl_module;

/* Its component: btl_open_all opens it, and refuses it when its version
 * or size is not this build's. */
extern struct btl_component fake_btl_component;

/* Before MPI_Init: the pml gets this BTL and no other. */
void fake_btl_install(void);
/* Before MPI_Init: the component opens n modules (default 1), rails 0..n-1
 * of one kind, each a copy of fake_btl_module as it is then; module 0 is
 * fake_btl_module itself. */
void fake_btl_modules(int n);
struct btl_module *fake_module(int k);
/* Adds a rule; at most 16. */
void fake_script(struct fake_rule rule);
/* Drops every rule, and lets everything held or waiting for a swap go at
 * the next poll. */
void fake_clear(void);
void fake_counts_reset(void);
/* Events (messages, RDMA completions) queued and not yet delivered. */
int fake_queued(void);
/* Of those, the ones a HOLD or SWAP still keeps back. */
int fake_held(void);

#endif
