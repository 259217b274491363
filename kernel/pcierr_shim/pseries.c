// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr's pseries backend: PE reset, confirmation of an all-ones read
 * and error detail through the firmware (RTAS), as PAPR describes them.
 * docs/pseries.md explains the model; the pure part (what the answers
 * mean) is pseries-rtas.c.
 *
 * Which mechanism recovers a PE is decided per PE (pcierr_platform_backend):
 *  - the kernel's own EEH has the PE (eeh_enabled() and the devices have
 *    an eeh_dev in an eeh_pe): EEH. pcierr leaves it alone: no reset
 *    types (a RESET fails), INJECT fails with EBUSY, an all-ones check
 *    goes to eeh_dev_check_failure() and the kernel recovers (its uevents
 *    reach pcierrd as for AER). Two owners freezing or resetting one PE
 *    would fight.
 *  - otherwise, firmware answers ibm,read-slot-reset-state2 for the PE
 *    with "EEH supported": RTAS. Hot and fundamental resets go through
 *    ibm,set-slot-reset, an all-ones read is confirmed by the PE state.
 *  - otherwise (QEMU without VFIO: every EEH call answers -3): GENERIC,
 *    the PCI core's resets as on x86. A fundamental reset is still asked
 *    of firmware (there is no other way to one here), and its refusal is
 *    the operation's error.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <asm/eeh.h>
#include <asm/pci-bridge.h>
#include <asm/ppc-pci.h>
#include <asm/rtas.h>

#include "platform.h"
#include "pseries-rtas.h"

static unsigned int pseries_reset_hold_ms = 250;
module_param(pseries_reset_hold_ms, uint, 0644);
MODULE_PARM_DESC(pseries_reset_hold_ms,
		 "pseries: ms a slot reset is held asserted (default 250)");

static unsigned int pseries_reset_settle_ms = 1800;
module_param(pseries_reset_settle_ms, uint, 0644);
MODULE_PARM_DESC(pseries_reset_settle_ms,
		 "pseries: ms to settle after a slot reset (default 1800)");

static unsigned int pseries_avail_max_ms = 60000;
module_param(pseries_avail_max_ms, uint, 0644);
MODULE_PARM_DESC(pseries_avail_max_ms,
		 "pseries: bound of the wait for a PE to become available after a reset (default 60000)");

/* bound of the busy retries of one RTAS call, and of one busy wait */
#define PSERIES_BUSY_MAX_MS	5000
#define PSERIES_BUSY_CAP_MS	100

static struct {
	int set_slot_reset;
	int read_state2;
	int read_state;
	int error_detail;
	int configure_pe;
	int addr_info2;
	bool active;
} tok;

/* Where a PE is for RTAS: the PHB's BUID and the PE config address. */
struct pseries_loc {
	u64 buid;
	u32 cfg;		/* the config address of the device used */
	u32 addr;		/* the PE config address */
	struct pci_dev *pdev;	/* that device (reference), or NULL */
};

static void pseries_loc_put(struct pseries_loc *loc)
{
	pci_dev_put(loc->pdev);
	loc->pdev = NULL;
}

static bool pseries_eeh_owns(struct pci_dev *pdev)
{
#ifdef CONFIG_EEH
	struct eeh_dev *edev;

	if (!pdev || !eeh_enabled())
		return false;
	edev = pci_dev_to_eeh_dev(pdev);
	return edev && edev->pe;
#else
	return false;
#endif
}

/* The PE config address firmware wants (any context). */
static void pseries_loc_addr(struct pseries_loc *loc)
{
	int rets[2] = { 0, 0 };
	int rc;

	loc->addr = loc->cfg;
	if (tok.addr_info2 == RTAS_UNKNOWN_SERVICE)
		return;
	rc = rtas_call(tok.addr_info2, 4, 2, rets, loc->cfg,
		       BUID_HI(loc->buid), BUID_LO(loc->buid), 0);
	if (!rc && rets[0])
		loc->addr = rets[0];
}

static void pseries_loc_from(struct pseries_loc *loc, struct pci_bus *bus,
			     unsigned int devfn)
{
	loc->buid = pci_bus_to_host(bus)->buid;
	loc->cfg = rtas_config_addr(bus->number, devfn, 0);
	pseries_loc_addr(loc);
}

/*
 * The PE's location: its first device that is not a bridge; an empty
 * bridge's PE is function 0 of its secondary bus. Caller holds
 * pcierr_topo_lock.
 */
static int pseries_pe_loc_locked(struct pcierr_pe *pe, struct pseries_loc *loc)
{
	struct pcierr_dev *dev;

	lockdep_assert_held(&pcierr_topo_lock);
	memset(loc, 0, sizeof(*loc));
	list_for_each_entry(dev, &pe->devs, pe_node) {
		if (!pci_is_bridge(dev->pdev) && !READ_ONCE(dev->removed)) {
			loc->pdev = pci_dev_get(dev->pdev);
			pseries_loc_from(loc, dev->pdev->bus, dev->pdev->devfn);
			return 0;
		}
	}
	if (!pe->head)
		return -ENODEV;
	if (!pe->root_single && pe->head->subordinate)
		pseries_loc_from(loc, pe->head->subordinate, 0);
	else
		pseries_loc_from(loc, pe->head->bus, pe->head->devfn);
	return 0;
}

static int pseries_pe_loc(struct pcierr_pe *pe, struct pseries_loc *loc)
{
	int ret;

	mutex_lock(&pcierr_topo_lock);
	ret = pseries_pe_loc_locked(pe, loc);
	mutex_unlock(&pcierr_topo_lock);
	return ret;
}

/* ibm,read-slot-reset-state2 (or the old call, which has no wait). */
static int pseries_read_state(const struct pseries_loc *loc, int rets[3])
{
	rets[0] = 0;
	rets[1] = 0;
	rets[2] = 0;
	if (tok.read_state2 != RTAS_UNKNOWN_SERVICE)
		return rtas_call(tok.read_state2, 3, 4, rets, loc->addr,
				 BUID_HI(loc->buid), BUID_LO(loc->buid));
	if (tok.read_state != RTAS_UNKNOWN_SERVICE)
		return rtas_call(tok.read_state, 3, 3, rets, loc->addr,
				 BUID_HI(loc->buid), BUID_LO(loc->buid));
	return PSERIES_RTAS_PARAM_ERROR;
}

static u32 pseries_backend_loc(const struct pseries_loc *loc, int *rcp)
{
	int rets[3];
	int rc;

	if (pseries_eeh_owns(loc->pdev))
		return PCIERR_BACKEND_EEH;
	rc = pseries_read_state(loc, rets);
	if (rcp)
		*rcp = rc;
	return !rc && rets[1] ? PCIERR_BACKEND_RTAS : PCIERR_BACKEND_GENERIC;
}

u32 pcierr_platform_backend(struct pcierr_pe *pe)
{
	struct pseries_loc loc;
	u32 backend;

	if (!tok.active)
		return PCIERR_BACKEND_GENERIC;
	lockdep_assert_held(&pcierr_topo_lock);
	if (pseries_pe_loc_locked(pe, &loc))
		return PCIERR_BACKEND_GENERIC;
	backend = pseries_backend_loc(&loc, NULL);
	pseries_loc_put(&loc);
	return backend;
}

u32 pcierr_platform_reset_types(struct pcierr_pe *pe, u32 types)
{
	if (!tok.active)
		return types;
	switch (pcierr_platform_backend(pe)) {
	case PCIERR_BACKEND_EEH:
		return 0;
	case PCIERR_BACKEND_RTAS:
		return BIT(PCIERR_RESET_HOT) | BIT(PCIERR_RESET_FUNDAMENTAL);
	default:
		/* only firmware could do it: it is asked, and decides */
		return types | BIT(PCIERR_RESET_FUNDAMENTAL);
	}
}

/* ibm,set-slot-reset, retried while firmware says busy. */
static int pseries_set_slot_reset(const struct pseries_loc *loc, int option)
{
	unsigned int waited = 0;
	int rc, ms;

	for (;;) {
		rc = rtas_call(tok.set_slot_reset, 4, 1, NULL, loc->addr,
			       BUID_HI(loc->buid), BUID_LO(loc->buid), option);
		ms = pseries_busy_ms(rc, PSERIES_BUSY_CAP_MS);
		if (ms < 0 || waited >= PSERIES_BUSY_MAX_MS)
			return rc;
		msleep(ms);
		waited += ms;
	}
}

/* ibm,configure-pe (or -bridge): firmware sets up the PE's bridges. */
static int pseries_configure(const struct pseries_loc *loc)
{
	unsigned int waited = 0;
	int rc, ms;

	for (;;) {
		rc = rtas_call(tok.configure_pe, 3, 1, NULL, loc->addr,
			       BUID_HI(loc->buid), BUID_LO(loc->buid));
		ms = pseries_busy_ms(rc, PSERIES_BUSY_CAP_MS);
		if (ms < 0 || waited >= PSERIES_BUSY_MAX_MS)
			return rc;
		msleep(ms);
		waited += ms;
	}
}

/* The availability loop: honour firmware's wait, up to the bound. */
static int pseries_wait_available(struct pcierr_pe *pe,
				  const struct pseries_loc *loc)
{
	unsigned int waited = 0, sleep;
	int rets[3];
	int rc;

	for (;;) {
		rc = pseries_read_state(loc, rets);
		switch (pseries_wait_step(rc, rets, waited,
					  READ_ONCE(pseries_avail_max_ms),
					  &sleep)) {
		case PSERIES_W_AVAILABLE:
			return 0;
		case PSERIES_W_SLEEP:
			msleep(sleep);
			waited += sleep;
			break;
		case PSERIES_W_PERMANENT:
			pr_warn("PE %s: firmware reports it unavailable for good (state %d, wait %d ms)\n",
				pe->name, rets[0], rets[2]);
			return -ENODEV;
		case PSERIES_W_TIMEOUT:
			pr_warn("PE %s: not available %u ms after the reset\n",
				pe->name, waited);
			return -ETIMEDOUT;
		default:
			pr_warn("PE %s: ibm,read-slot-reset-state2: status %d, state %d\n",
				pe->name, rc, rets[0]);
			return rc ? pseries_errno(rc) : -EIO;
		}
	}
}

static int pseries_rtas_reset(struct pcierr_pe *pe,
			      const struct pseries_loc *loc, u32 type)
{
	int option = type == PCIERR_RESET_FUNDAMENTAL ?
		     PSERIES_RESET_FUNDAMENTAL : PSERIES_RESET_HOT;
	int rc, ret;

	rc = pseries_set_slot_reset(loc, option);
	if (rc == PSERIES_RTAS_NOT_SUPPORTED &&
	    option == PSERIES_RESET_FUNDAMENTAL) {
		pr_info("PE %s: firmware offers no fundamental reset: hot reset\n",
			pe->name);
		option = PSERIES_RESET_HOT;
		rc = pseries_set_slot_reset(loc, option);
	}
	if (rc) {
		ret = pseries_errno(rc);
		pr_warn("PE %s: ibm,set-slot-reset(%d) refused: RTAS status %d (%pe)\n",
			pe->name, option, rc, ERR_PTR(ret));
		return ret;
	}
	msleep(READ_ONCE(pseries_reset_hold_ms));
	rc = pseries_set_slot_reset(loc, PSERIES_RESET_DEACTIVATE);
	if (rc) {
		ret = pseries_errno(rc);
		pr_warn("PE %s: ibm,set-slot-reset(deactivate): RTAS status %d (%pe)\n",
			pe->name, rc, ERR_PTR(ret));
		return ret;
	}
	msleep(READ_ONCE(pseries_reset_settle_ms));
	ret = pseries_wait_available(pe, loc);
	if (ret)
		return ret;
	rc = pseries_configure(loc);
	if (rc) {
		ret = pseries_errno(rc);
		pr_warn("PE %s: ibm,configure-pe: RTAS status %d (%pe)\n",
			pe->name, rc, ERR_PTR(ret));
		return ret;
	}
	pr_info("PE %s: %s reset through RTAS done\n", pe->name,
		option == PSERIES_RESET_FUNDAMENTAL ? "fundamental" : "hot");
	return 0;
}

int pcierr_platform_reset(struct pcierr_pe *pe, u32 type)
{
	struct pseries_loc loc;
	u32 backend;
	int ret, rc = 0;

	if (!tok.active)
		return -ENOTTY;
	ret = pseries_pe_loc(pe, &loc);
	if (ret)
		return type == PCIERR_RESET_HOT ? -ENOTTY : ret;
	backend = pseries_backend_loc(&loc, &rc);
	switch (backend) {
	case PCIERR_BACKEND_EEH:
		pr_info("PE %s: the kernel's EEH recovers this PE: no reset by pcierr\n",
			pe->name);
		ret = -EBUSY;
		break;
	case PCIERR_BACKEND_GENERIC:
		if (type == PCIERR_RESET_HOT) {
			pr_info("PE %s: firmware reports no EEH (ibm,read-slot-reset-state2: %d): the PCI core's hot reset\n",
				pe->name, rc);
			ret = -ENOTTY;
			break;
		}
		fallthrough;
	default:
		ret = pseries_rtas_reset(pe, &loc, type);
	}
	pseries_loc_put(&loc);
	return ret;
}

bool pcierr_platform_owned(struct pcierr_dev *dev)
{
	return pseries_eeh_owns(dev->pdev);
}

int pcierr_platform_check(struct pcierr_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	enum pseries_verdict verdict;
	struct pseries_loc loc = {};
	bool empty;
	int rets[3];
	u32 time;
	int rc;

#ifdef CONFIG_EEH
	if (pseries_eeh_owns(pdev))
		return eeh_dev_check_failure(pci_dev_to_eeh_dev(pdev)) > 0;
#endif
	if (!tok.active)
		return -ENOTTY;
	pseries_loc_from(&loc, pdev->bus, pdev->devfn);
	rc = pseries_read_state(&loc, rets);
	empty = pdev->subordinate && list_empty(&pdev->subordinate->devices);
	verdict = pseries_check_verdict(rc, rets, empty, &time);
	pci_dbg(pdev, "pcierr: all-ones check: ibm,read-slot-reset-state2 %d (state %d, eeh %d, wait %d): verdict %d\n",
		rc, rets[0], rets[1], rets[2], verdict);
	switch (verdict) {
	case PSERIES_V_NO_EEH:
		return -ENOTTY;
	case PSERIES_V_FROZEN:
		pcierr_detect(dev, pci_channel_io_frozen, 0,
			      PCIERR_SOURCE_CHECK, NULL);
		return 1;
	case PSERIES_V_PERM_FAILURE:
		pcierr_detect(dev, pci_channel_io_perm_failure, time,
			      PCIERR_SOURCE_CHECK, NULL);
		return 1;
	default:
		pcierr_stat_inc(PCIERR_STAT_FALSE_POSITIVES);
		return 0;
	}
}

/* ibm,slot-error-detail into the message (process context). */
static void pseries_put_detail(struct sk_buff *msg,
			       const struct pseries_loc *loc, int severity)
{
	struct pseries_log_header h;
	unsigned int len;
	u8 *buf;
	int rc, n;

	len = min_t(int, rtas_get_error_log_max(), RTAS_DATA_BUF_SIZE);
	buf = kzalloc(len, GFP_KERNEL);
	if (!buf)
		return;
	spin_lock(&rtas_data_buf_lock);
	memset(rtas_data_buf, 0, len);
	rc = rtas_call(tok.error_detail, 8, 1, NULL, loc->addr,
		       BUID_HI(loc->buid), BUID_LO(loc->buid), 0, 0,
		       __pa(rtas_data_buf), len, severity);
	if (!rc)
		memcpy(buf, rtas_data_buf, len);
	spin_unlock(&rtas_data_buf_lock);

	if (nla_put_u32(msg, PCIERR_A_ERROR_DETAIL_SEVERITY,
			severity == PSERIES_LOG_PERMANENT ?
			PCIERR_DETAIL_PERMANENT : PCIERR_DETAIL_TEMPORARY) ||
	    nla_put_s32(msg, PCIERR_A_ERROR_DETAIL_STATUS, rc))
		goto out;
	if (rc)
		goto out;
	n = pseries_log_decode(buf, len, &h);
	if (n > 0)
		pr_info("error log of PE %08x: version %u severity %s type %u, %d bytes\n",
			loc->addr, h.version,
			pseries_log_severity_name(h.severity), h.type, n);
	nla_put(msg, PCIERR_A_ERROR_DETAIL, n > 0 ? n : len, buf);
out:
	kfree(buf);
}

void pcierr_platform_fill_event(struct sk_buff *msg,
				const struct pcierr_event_info *ev)
{
	struct pseries_loc loc = {};

	if (!tok.active || tok.error_detail == RTAS_UNKNOWN_SERVICE ||
	    !ev->pdev || pseries_eeh_owns(ev->pdev))
		return;
	pseries_loc_from(&loc, ev->pdev->bus, ev->pdev->devfn);
	pseries_put_detail(msg, &loc,
			   ev->state == pci_channel_io_perm_failure ?
			   PSERIES_LOG_PERMANENT : PSERIES_LOG_TEMPORARY);
}

void pcierr_platform_fill_op(struct sk_buff *msg, const struct pcierr_op *op)
{
	struct pseries_loc loc;

	if (!tok.active || tok.error_detail == RTAS_UNKNOWN_SERVICE ||
	    op->cmd != PCIERR_CMD_DISABLE || pseries_pe_loc(op->pe, &loc))
		return;
	if (!pseries_eeh_owns(loc.pdev))
		pseries_put_detail(msg, &loc, PSERIES_LOG_PERMANENT);
	pseries_loc_put(&loc);
}

static int pseries_token(const char *name)
{
	int t = rtas_token(name);

	if (t == RTAS_UNKNOWN_SERVICE)
		pr_info("pseries: RTAS %s: absent\n", name);
	else
		pr_info("pseries: RTAS %s: token 0x%x\n", name, t);
	return t;
}

void pcierr_platform_init(void)
{
	tok.set_slot_reset = rtas_token("ibm,set-slot-reset");
	if (tok.set_slot_reset == RTAS_UNKNOWN_SERVICE)
		return;		/* not pseries firmware: generic only */
	tok.set_slot_reset = pseries_token("ibm,set-slot-reset");
	tok.read_state2 = pseries_token("ibm,read-slot-reset-state2");
	if (tok.read_state2 == RTAS_UNKNOWN_SERVICE)
		tok.read_state = pseries_token("ibm,read-slot-reset-state");
	else
		tok.read_state = RTAS_UNKNOWN_SERVICE;
	tok.error_detail = pseries_token("ibm,slot-error-detail");
	tok.configure_pe = pseries_token("ibm,configure-pe");
	if (tok.configure_pe == RTAS_UNKNOWN_SERVICE)
		tok.configure_pe = pseries_token("ibm,configure-bridge");
	tok.addr_info2 = pseries_token("ibm,get-config-addr-info2");
	tok.active = tok.configure_pe != RTAS_UNKNOWN_SERVICE &&
		     (tok.read_state2 != RTAS_UNKNOWN_SERVICE ||
		      tok.read_state != RTAS_UNKNOWN_SERVICE);
	pr_info("pseries RTAS backend %s; the kernel's EEH is %s\n",
		tok.active ? "active" : "inactive (calls missing)",
		eeh_enabled() ? "enabled" : "not enabled");
}
