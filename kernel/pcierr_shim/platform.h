/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The platform interface: the few places where the generic shim asks a
 * platform backend first. Today the one backend is pseries RTAS
 * (pseries.c, built when CONFIG_PPC_PSERIES; docs/pseries.md); elsewhere
 * every hook is an inline "no say" and the generic code does it all.
 *
 *   pcierr_platform_init()           find the firmware calls (module load)
 *   pcierr_platform_backend(pe)      enum pcierr_backend recovering @pe
 *   pcierr_platform_reset_types(pe, types)
 *                                    the PE's reset types given the
 *                                    generic ones (pcierr_topo_lock held)
 *   pcierr_platform_reset(pe, type)  reset @pe through the platform:
 *                                    0 done (config restore follows, as
 *                                    for the generic reset), -ENOTTY the
 *                                    generic reset is the one, another
 *                                    negative errno: the platform refused
 *   pcierr_platform_check(dev)       confirm an all-ones read (any
 *                                    context): -ENOTTY no say, else what
 *                                    pcierr_check_failure() returns (the
 *                                    platform raised the event itself)
 *   pcierr_platform_owned(dev)       the kernel's own recovery (EEH) owns
 *                                    the device's PE: INJECT is refused
 *   pcierr_platform_fill_event(msg, ev)  platform error detail for EVENT
 *   pcierr_platform_fill_op(msg, op)     ... for OP_DONE (DISABLE)
 */
#ifndef _PCIERR_PLATFORM_H
#define _PCIERR_PLATFORM_H

#include <linux/errno.h>

#include "internal.h"

#ifdef CONFIG_PPC_PSERIES
void pcierr_platform_init(void);
u32 pcierr_platform_backend(struct pcierr_pe *pe);
u32 pcierr_platform_reset_types(struct pcierr_pe *pe, u32 types);
int pcierr_platform_reset(struct pcierr_pe *pe, u32 type);
int pcierr_platform_check(struct pcierr_dev *dev);
bool pcierr_platform_owned(struct pcierr_dev *dev);
void pcierr_platform_fill_event(struct sk_buff *msg,
				const struct pcierr_event_info *ev);
void pcierr_platform_fill_op(struct sk_buff *msg, const struct pcierr_op *op);
#else
static inline void pcierr_platform_init(void) { }

static inline u32 pcierr_platform_backend(struct pcierr_pe *pe)
{
	return PCIERR_BACKEND_GENERIC;
}

static inline u32 pcierr_platform_reset_types(struct pcierr_pe *pe, u32 types)
{
	return types;
}

static inline int pcierr_platform_reset(struct pcierr_pe *pe, u32 type)
{
	return -ENOTTY;
}

static inline int pcierr_platform_check(struct pcierr_dev *dev)
{
	return -ENOTTY;
}

static inline bool pcierr_platform_owned(struct pcierr_dev *dev)
{
	return false;
}

static inline void pcierr_platform_fill_event(struct sk_buff *msg,
					      const struct pcierr_event_info *ev)
{
}

static inline void pcierr_platform_fill_op(struct sk_buff *msg,
					   const struct pcierr_op *op)
{
}
#endif

#endif /* _PCIERR_PLATFORM_H */
