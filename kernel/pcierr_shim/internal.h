/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcierr_shim internals shared between its files.
 *
 * Locking, outermost first:
 *   top->op_lock -> pci_lock_rescan_remove() -> device_lock()
 *	-> pe->freeze_lock -> pcierr_topo_lock -> dev->state_lock
 *	-> pe->lock -> pcierr_ev_lock
 * top->op_lock is the mutex of the PE at the top of a hierarchy (headed
 * by a root port or a lone root-bus device): every operation on that PE
 * or on one below it holds it, so parent and child PEs never run
 * operations at the same time. A hotplug slot's reset (pciehp's
 * reset_lock) is never called under pci_lock_rescan_remove().
 * pcierr_topo_lock (mutex) guards the PE list, PE membership and cached
 * device data; the bus notifier takes it, so nobody may call into PCI
 * topology changes, driver callbacks or device_lock() while holding it.
 * pe->lock and pcierr_ev_lock are raw spinlocks, taken with interrupts
 * off: detection (pcierr_detect(), the check API) may run in hard
 * interrupt context, on PREEMPT_RT too, where a spinlock_t sleeps (D26).
 * So under them only bounded work: a few fields read, set or copied
 * (pe->last_op at most), kref and pci_dev_get(), and queueing delayed
 * work (whose pool and timer locks are raw). Never a kmalloc, a sleeping
 * call, a printk, a put that may free, or a spinlock_t. Lookups from
 * atomic context go through an RCU hash of struct pcierr_dev keyed by
 * the pci_dev pointer.
 */
#ifndef _PCIERR_INTERNAL_H
#define _PCIERR_INTERNAL_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>

#include "compat.h"
#include "pcierr.h"

#define PCIERR_DISABLED_OVERRIDE	"pcierr-disabled"
#define PCIERR_LOOP_CHECKS		10000

/* ED, ENABLE_IO, MMIO_ENABLED, RESET, SLOT_RESET, RESUME */
#define PCIERR_RECOVER_STEPS	6
/* an OWNER_RECOVER: a RECOVER's, then REMOVE, RESET, RESCAN */
#define PCIERR_OP_STEPS		(PCIERR_RECOVER_STEPS + 3)

/* Why an answer is not simply a driver's (struct pcierr_answer) */
enum pcierr_reason {
	PCIERR_REASON_UNSET,		/* nothing was asked: a REPORT that failed */
	PCIERR_REASON_NONE,		/* the driver's answer, NONE: no callback */
	PCIERR_REASON_NO_DRIVER,	/* no driver bound */
	PCIERR_REASON_GONE,		/* the device was removed meanwhile */
};

/*
 * A driver's answer to a recovery callback, or several merged, as the
 * kernel's own pci_ers_result_t (only the four answers or NONE, which
 * also stands for "not asked" with a reason other than NONE). It becomes
 * the uapi's enum pcierr_result only in netlink.c (pcierr_nl_result()).
 */
struct pcierr_answer {
	pci_ers_result_t ers;
	u8 reason;			/* enum pcierr_reason */
};

static inline struct pcierr_answer pcierr_driver_answer(pci_ers_result_t ers)
{
	return (struct pcierr_answer){ .ers = ers, .reason = PCIERR_REASON_NONE };
}

/* No driver's answer, for @reason: no vote in any merge */
static inline struct pcierr_answer pcierr_no_answer(enum pcierr_reason reason)
{
	return (struct pcierr_answer){ .ers = PCI_ERS_RESULT_NONE,
				       .reason = reason };
}

/* A bound driver that lacks the callback (or answered nothing) */
static inline bool pcierr_no_callback(struct pcierr_answer a)
{
	return a.reason == PCIERR_REASON_NONE && a.ers == PCI_ERS_RESULT_NONE;
}

/* One step of a RECOVER, as its OP_DONE and LAST_OP tell it */
struct pcierr_step_status {
	u8 cmd;				/* REPORT, ENABLE_IO, RESET */
	u32 step;			/* REPORT */
	struct pcierr_answer merged;	/* REPORT: err.c's merge_result() */
	u32 reset_type;			/* RESET */
	int err;			/* 0 or negative errno */
	u64 duration_ns;
};

/* The last operation of a PE, for GET_PE's PCIERR_A_LAST_OP (D18). */
struct pcierr_op_status {
	u64 id;				/* 0: none yet */
	u8 cmd;				/* enum pcierr_cmd */
	bool done;
	u32 step;			/* REPORT */
	struct pcierr_answer merged;	/* REPORT, once done: as op's */
	int err;			/* once done: 0 or negative errno */
	u64 duration_ns;
	u32 pe_state;			/* once done */
	u32 stop;			/* RECOVER, once done */
	unsigned int nsteps;		/* RECOVER, once done */
	struct pcierr_step_status steps[PCIERR_OP_STEPS];
};

struct pcierr_pe {
	struct list_head node;		/* pcierr_pes; topo_lock */
	struct list_head devs;		/* pcierr_dev.pe_node; topo_lock */
	struct kref kref;
	char name[PCIERR_ADDR_MAX];
	bool root_single;		/* a lone device on a root bus */
	int domain;			/* root_single: where to rescan */
	unsigned int busnr;
	unsigned int devfn;		/* root_single: which function */
	struct pci_dev *head;		/* bridge or lone device; topo_lock */
	struct workqueue_struct *wq;	/* ordered: operations */
	struct delayed_work watch_work;
	struct work_struct release_work;
	struct list_head freeze_node;	/* pending freezes; pcierr_ev_lock */
	struct mutex freeze_lock;	/* hardware freeze writes */

	raw_spinlock_t lock;		/* everything below */
	u64 id;				/* PCIERR_A_PE_ID; also topo_lock */
	struct pcierr_op_status last_op;
	enum pcierr_pe_state state;
	bool busy;
	bool disabled;
	bool dead;			/* unlinked from pcierr_pes */
	bool unplugged;			/* emptied while frozen (pe.c) */
	unsigned long freeze_req;
	unsigned long freeze_done;
	unsigned int watch_ms;
	unsigned long loop_checks;	/* ignored checks since the freeze */

	struct mutex op_lock;		/* see the locking order above */
	/* the owner timeout (owner.c), under pe->lock */
	struct delayed_work owner_work;
	unsigned long owner_stamp;	/* jiffies of the last act */
	unsigned long owner_window;	/* the first of the budget's hour */
	u32 owner_used;			/* OWNER_RECOVERs in that hour */
	bool owner_said;		/* "budget used up" logged */
	bool hold_active;		/* PCIERR_CMD_HOLD */
	u32 hold_portid;		/* the holding socket */
	u64 hold_pe_id;			/* the id it holds */
	unsigned long hold_until;	/* jiffies: the lease's end */

	/* PCIERR_CMD_ARM (auto.c), under pe->lock */
	u32 auto_budget;		/* 0: not armed */
	u32 auto_reset_type;
	u32 auto_portid;		/* the arming socket */
	u64 auto_pe_id;			/* the id it was armed for */
	unsigned long auto_freeze_req;	/* freeze_req at the ARM */
	struct pcierr_op *auto_op;	/* allocated at ARM, for the claim */
};

struct pcierr_dev {
	struct hlist_node hnode;	/* RCU hash; topo_lock for writers */
	struct list_head pe_node;	/* pe->devs; topo_lock */
	struct kref kref;
	struct pci_dev *pdev;		/* reference */
	struct pcierr_pe *pe;		/* reference, constant */
	char name[PCIERR_ADDR_MAX];	/* pci_name(), kept for after removal */
	u64 dsn;			/* read once: a frozen device reads ~0 */
	bool removed;			/* topo_lock (READ_ONCE elsewhere) */
	bool gone_reported;		/* watchdog */
	struct pcierr_pe *headed;	/* a bridge's own PE; reference */
	char *driver;			/* topo_lock: bound driver's name */
	struct pci_driver *drv;		/* topo_lock: bound driver */
	atomic_t error_gen;

	struct mutex state_lock;	/* everything below */
	struct pci_saved_state *healthy;
	bool hw_frozen;			/* something below was written */
	bool cmd_saved;			/* frozen_cmd is valid */
	bool msix_saved;		/* frozen_msix is valid */
	bool decode_thawed;		/* frozen, but ENABLE_IO gave decode back */
	bool rpm_held;			/* a runtime-PM reference of ours */
	u16 frozen_cmd;			/* PCI_COMMAND before the freeze */
	u16 frozen_msix;		/* MSI-X flags before the freeze */
	struct rcu_work free_rwork;
};

struct pcierr_dev_result {
	char name[PCIERR_ADDR_MAX];
	struct pcierr_answer answer;
	bool bridge;			/* a port: its silence is no veto */
};

struct pcierr_op {
	struct work_struct work;
	struct pcierr_pe *pe;		/* reference */
	u64 id;
	u8 cmd;				/* enum pcierr_cmd */
	u32 step;			/* REPORT */
	u32 state;			/* REPORT ERROR_DETECTED */
	u32 reset_type;			/* RESET */
	struct pcierr_dev *dev;		/* REMOVE of one device; reference */
	u64 event_seq;			/* armed RECOVER: its EVENT, else 0 */
	/* filled in by the operation */
	struct pcierr_dev_result *res;
	unsigned int nres;
	struct pcierr_answer merged;	/* REPORT: EEH's priority order */
	int err;			/* 0 or negative errno */
	unsigned long freeze_req;	/* pe->freeze_req when it started */
	struct pcierr_pe *top;		/* whose op_lock it holds; reference */
	u32 pe_state;
	u64 pe_id;			/* after the operation */
	u64 start_ns;			/* CLOCK_MONOTONIC, when it began */
	u64 duration_ns;
	/* RECOVER: its steps, each with its own device results */
	u32 stop;			/* enum pcierr_recover_stop */
	unsigned int nsteps;
	struct pcierr_step_status steps[PCIERR_OP_STEPS];
	struct pcierr_dev_result *step_res[PCIERR_OP_STEPS];
	unsigned int step_nres[PCIERR_OP_STEPS];
};

/* main.c */
extern struct workqueue_struct *pcierr_wq;
extern struct workqueue_struct *pcierr_recover_wq;
extern struct workqueue_struct *pcierr_hotplug_wq;
extern bool pcierr_exiting;
extern unsigned int pcierr_event_queue_len;

/*
 * The counters of GET_STATS, per CPU (D27): bumped on every check API
 * call, from any context, without a shared cache line; summed over the
 * possible CPUs when read (pcierr_stat_read(), event.c).
 */
struct pcierr_stats {
	u64 v[__PCIERR_STAT_MAX];
};

DECLARE_PER_CPU(struct pcierr_stats, pcierr_stats);

static inline void pcierr_stat_inc(enum pcierr_stat s)
{
	this_cpu_inc(pcierr_stats.v[s]);
}

u64 pcierr_stat_read(enum pcierr_stat s);

/* pe.c */
extern struct mutex pcierr_topo_lock;
extern struct list_head pcierr_pes;
u32 pcierr_topo_gen(void);
u64 pcierr_pe_id(struct pcierr_pe *pe);
int pcierr_pe_init(void);
void pcierr_pe_quiesce(void);
void pcierr_pe_thaw_all(void);
void pcierr_pe_exit(void);
void pcierr_pe_get(struct pcierr_pe *pe);
void pcierr_pe_put(struct pcierr_pe *pe);
void pcierr_dev_put(struct pcierr_dev *dev);
struct pcierr_dev *pcierr_dev_find_rcu(struct pci_dev *pdev);
struct pcierr_pe *pcierr_pe_lookup(const char *name);
struct pcierr_dev *pcierr_dev_lookup(const char *name);
int pcierr_pe_snapshot(struct pcierr_pe *pe, bool skip_bridges,
		       struct pcierr_dev ***out);
struct pcierr_pe *pcierr_pe_top(struct pcierr_pe *pe);
struct pci_dev *pcierr_pe_head(struct pcierr_pe *pe);
__printf(2, 3)
void pcierr_pe_info(struct pcierr_pe *pe, const char *fmt, ...);
void pcierr_pe_op_begin(struct pcierr_op *op);
void pcierr_pe_op_end(struct pcierr_op *op);
bool pcierr_pe_set_state_if(struct pcierr_pe *pe, enum pcierr_pe_state state,
			    unsigned long freeze_req);
void pcierr_save_healthy_pe(struct pcierr_pe *pe);
void pcierr_rpm_put(struct pcierr_dev *dev);
void pcierr_snapshot_put(struct pcierr_dev **devs, unsigned int n);
u32 pcierr_pe_reset_types(struct pcierr_pe *pe);
u32 pcierr_pe_flags(struct pcierr_pe *pe);
u32 pcierr_dev_handlers(struct pcierr_dev *dev);
enum pcierr_pe_state pcierr_pe_get_state(struct pcierr_pe *pe);
void pcierr_pe_set_state(struct pcierr_pe *pe, enum pcierr_pe_state state);
void pcierr_save_healthy(struct pcierr_dev *dev);

/* event.c */
int pcierr_event_init(void);
void pcierr_event_exit(void);
int pcierr_detect(struct pcierr_dev *dev, pci_channel_state_t state,
		  unsigned int time_unavail_ms, enum pcierr_source source,
		  u64 *seq);
void pcierr_event_wait_delivered(u64 seq);

/* freeze.c */
bool pcierr_set_io_state(struct pci_dev *pdev, pci_channel_state_t state);
u32 pcierr_channel_state(pci_channel_state_t state);
pci_channel_state_t pcierr_pci_state(u32 state);
void pcierr_pe_apply_freeze(struct pcierr_pe *pe, bool wake);
void pcierr_pe_refreeze(struct pcierr_pe *pe);
void pcierr_unfreeze_dev(struct pcierr_dev *dev, bool dma);

/* recovery.c */
struct pcierr_answer pcierr_report_one(struct pcierr_dev *dev, u32 step,
				       u32 state);
void pcierr_op_report(struct pcierr_op *op);
void pcierr_op_enable_io(struct pcierr_op *op);
void pcierr_op_recover(struct pcierr_op *op);
void pcierr_op_step_close(struct pcierr_op *op, struct pcierr_step_status *st,
			  ktime_t start);
void pcierr_op_free_steps(struct pcierr_op *op);

/* reset.c */
void pcierr_op_reset(struct pcierr_op *op);

/* hotplug.c */
void pcierr_op_remove(struct pcierr_op *op);
void pcierr_op_rescan(struct pcierr_op *op);
void pcierr_op_disable(struct pcierr_op *op);
void pcierr_op_enable(struct pcierr_op *op);
void pcierr_keep_away(struct pcierr_dev *dev);

/* surprise.c */
void pcierr_fail_lost_io(struct pci_dev *pdev);

/* owner.c: the owner timeout and HOLD */
void pcierr_owner_arm(struct pcierr_pe *pe, bool listeners);
void pcierr_owner_fn(struct work_struct *work);
void pcierr_owner_recover(struct pcierr_op *op);
bool pcierr_owner_held_locked(struct pcierr_pe *pe);
int pcierr_owner_hold(struct pcierr_pe *pe, u64 pe_id, u32 ms, u32 portid);
int pcierr_owner_init(void);
void pcierr_owner_exit(void);

/* watchdog.c */
int pcierr_watch_set(struct pcierr_pe *pe, unsigned int ms);
bool pcierr_present(struct pci_dev *pdev);

/*
 * The config dword that tells whether @pdev answers: a VF's vendor and
 * device ID read all ones (the SR-IOV spec), its class code does not.
 */
static inline int pcierr_id_reg(const struct pci_dev *pdev)
{
	return pdev->is_virtfn ? PCI_CLASS_REVISION : PCI_VENDOR_ID;
}

void pcierr_watch_fn(struct work_struct *work);

/* auto.c */
int pcierr_auto_arm(struct pcierr_pe *pe, u64 pe_id, u32 budget,
		    u32 reset_type, u32 portid);
bool pcierr_auto_armed_locked(struct pcierr_pe *pe);
void pcierr_auto_drop_locked(struct pcierr_pe *pe);
struct pcierr_op *pcierr_auto_claim_locked(struct pcierr_pe *pe, u64 pe_id);
int pcierr_auto_init(void);
void pcierr_auto_exit(void);

/* op.c */
int __pcierr_op_claim(struct pcierr_pe *pe, struct pcierr_op *op, u64 pe_id);
void pcierr_op_attach(struct pcierr_pe *pe, struct pcierr_op *op);
int pcierr_op_claim(struct pcierr_pe *pe, struct pcierr_op *op, u64 pe_id);
void pcierr_op_start(struct pcierr_op *op);
void pcierr_op_start_armed(struct pcierr_op *op);
int pcierr_op_alloc_results(struct pcierr_op *op, unsigned int n);
void pcierr_op_add_result(struct pcierr_op *op, const struct pcierr_dev *dev,
			  struct pcierr_answer answer);

/* netlink.c */
int pcierr_nl_init(void);
void pcierr_nl_exit(void);
void pcierr_nl_event(const struct pcierr_event_info *ev);
void pcierr_nl_overflow(const struct pcierr_overflow_info *ov);
void pcierr_nl_op_done(const struct pcierr_op *op);
bool pcierr_nl_has_listeners(void);

#endif /* _PCIERR_INTERNAL_H */
